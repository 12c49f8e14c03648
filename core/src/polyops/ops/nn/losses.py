"""One-hot encodings and losses: one_hot, multi_hot, crossentropies, CTC.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import numpy as np

from ... import _dtypes, _promote, config
from ..._op import defop
from ..._shapes import canonicalize_axis
from ..._symbolic import SymbolicTensor
from .._base import dtype_arg, from_host, int_arg, key, shape_of, spec, to_host
from .._base import finish as _finish
from .._indices import check_index, concrete
from ..core import cast
from ..core import shape as _shape
from ..numpy import (
    add, any, arange, argmax, argsort, clip, concatenate, divide, einsum, equal, exp,
    expand_dims, full, get_item, greater_equal, less, log, log1p, logaddexp, max, maximum,
    moveaxis, multiply, negative, reshape, squeeze, subtract, sum, take_along_axis,
    where,
)
from ..numpy import abs as _abs

# ===== helpers =======================================================================

def _dt(x) -> str:
    return _dtypes.standardize_dtype(x.dtype)


def _same_shape(a, b) -> bool:
    """Shapes equal, an unknown (None) dim matching any size."""
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _check_tensors(op, *named):
    """TypeError unless the value of each (name, value) pair is a tensor."""
    for name, v in named:
        if not isinstance(v, SymbolicTensor):
            raise TypeError(f"{op}: expected a tensor for {name!r}, got {v!r}")


def _check_target_output(op, target, output):
    """target and output are tensors of the same (static) shape."""
    _check_tensors(op, ("target", target), ("output", output))
    if not _same_shape(target.shape, output.shape):
        raise ValueError(f"{op}: expected target and output of the same shape, got "
                         f"target.shape={target.shape}, output.shape={output.shape}")


@_promote.cached
def _index_promote(keys):
    """(x,): integer class indices, each int dtype kept (64-bit demoted); floats rejected."""
    (k,) = keys
    if k in ("float", "complex") or k in _dtypes.FLOAT_TYPES or k in _dtypes.COMPLEX_TYPES:
        raise _promote.PromotionError(f"expected integer class indices, got dtype {k}")
    return _promote.preserve(keys)


@_promote.cached
def _sparse_promote(keys):
    """(target, output): target to int32 (ints and bools only), output floating."""
    t, o = keys
    if t in ("float", "complex") or t in _dtypes.FLOAT_TYPES or t in _dtypes.COMPLEX_TYPES:
        raise _promote.PromotionError(f"expected integer targets, got dtype {t}")
    return ("int32",) + _promote.floating((o,))


@_promote.cached
def _ctc_promote(keys):
    """(target, output, target_length, output_length): ints to int32, output floating."""
    t, o, tl, ol = keys
    for name, k in (("target", t), ("target_length", tl), ("output_length", ol)):
        if k in ("float", "complex") or k in _dtypes.FLOAT_TYPES or k in _dtypes.COMPLEX_TYPES:
            raise _promote.PromotionError(f"expected an integer {name}, got dtype {k}")
    return ("int32",) + _promote.floating((o,)) + ("int32", "int32")


@_promote.cached
def _decode_promote(keys):
    """(inputs, sequence_lengths): inputs floating, lengths int32."""
    i, s = keys
    if s in ("float", "complex") or s in _dtypes.FLOAT_TYPES or s in _dtypes.COMPLEX_TYPES:
        raise _promote.PromotionError(f"expected integer sequence_lengths, got dtype {s}")
    return _promote.floating((i,)) + ("int32",)


def _f32_result(dtype) -> str:
    """Keras' ``result_type(dtype, "float32")``: 16-bit floats widen to float32.  (The
    result dtype itself, so not a declared compute dtype, whose results are cast back.)"""
    return "float32" if dtype in _dtypes.HALF_FLOATS else dtype


def _log_softmax(x, axis):
    m = max(x, (axis,), True, float("-inf"))
    s = subtract(x, m)
    return subtract(s, log(sum(exp(s), (axis,), True)))


# ===== one_hot, multi_hot ============================================================


def _hot_axis(op, axis, ndim):
    """The class axis of the (ndim + 1)-d result, canonical."""
    return canonicalize_axis(axis, ndim + 1, op)


def _hot_checks(op, num_classes, sparse):
    if num_classes is None:
        raise ValueError(f"{op}: expected num_classes, got num_classes=None")
    n = int_arg(op, "num_classes", num_classes)
    if n < 0:
        raise ValueError(f"{op}: expected num_classes >= 0, got num_classes={num_classes}")
    if sparse is not False and sparse is not True:
        raise TypeError(f"{op}: expected sparse=True or False, got sparse={sparse!r}")
    return n


def _sparse_hot(op, sparse):
    """The eager check of ``sparse=True`` (the backend in effect must have sparse tensors);
    the kernel receives ``sparse`` as given (`polyops._sparse.by_argument`)."""
    if sparse:
        from ... import _sparse

        _sparse.require(op)
    return sparse


def _one_hot_prepare(x, num_classes, axis=-1, dtype=None, sparse=False):
    n = _hot_checks("one_hot", num_classes, sparse)
    check_index("one_hot", x, n, f"(num_classes={n})", wrap=False, what="class indices")
    return (x, n, _hot_axis("one_hot", axis, len(x.shape)), dtype_arg("one_hot", dtype),
            _sparse_hot("one_hot", sparse))


# Kernel contract: one_hot(x, num_classes, axis, dtype, sparse): x an integer tensor (its
# own int dtype, 64-bit demoted), num_classes an int >= 0, axis canonical in [0, x.ndim],
# dtype a canonical dtype string, sparse False (sparse=True is `_sparse.by_argument`'s).  Returns x.shape with num_classes inserted at
# axis, in dtype: 1 where x == class, 0 elsewhere (negative/out-of-range x: all zeros; only
# under a trace: eagerly the prepare hook raises first).
@defop("nn", tensors=("x",), promote=_index_promote, prepare=_one_hot_prepare)
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot encoding of integer class indices ``x``: ``num_classes`` zeros and ones along
    a new ``axis``.

    Keras: ``keras.ops.one_hot`` (``jax.nn.one_hot``, ``tf.one_hot``).  An index outside
    ``[0, num_classes)`` (negative ones included) raises `polyops.IndexOutOfRangeError`
    eagerly; under a trace it gives an all-zero vector, as Keras does.  The result dtype is
    ``dtype`` (default floatx); ``x`` must be an integer (or bool) tensor: floats raise
    TypeError.  ``sparse=True`` gives a sparse tensor on backends that have them
    (tensorflow, jax; docs/sparse.md), ValueError naming the backend elsewhere.

    Example:
        >>> polyops.ops.one_hot(polyops.ops.convert_to_tensor([1, 3, 0]), 4)
        array([[0., 1., 0., 0.],
               [0., 0., 0., 1.],
               [1., 0., 0., 0.]], dtype=float32)
    """
    n = _hot_checks("one_hot", num_classes, sparse)
    shape = list(shape_of(x))
    a = _hot_axis("one_hot", axis, len(shape))
    _index_promote((key(x),))
    shape.insert(a, n)
    return SymbolicTensor(tuple(shape), dtype_arg("one_hot", dtype), sparse)


def _one_hot_bool(x, num_classes, axis):
    """bool one-hot of ``x`` with the class axis at canonical ``axis``."""
    if _dt(x) == "bool":
        x = cast(x, "int32")
    classes = arange(0, num_classes, dtype="int32") if num_classes else full((0,), 0, "int32")
    oh = equal(expand_dims(x, -1), classes)
    nd = len(_shape(oh))
    if axis != nd - 1:
        oh = moveaxis(oh, -1, axis)
    return oh


@one_hot.reference
def _one_hot_ref(x, num_classes, axis=-1, dtype=None, sparse=False):
    return cast(_one_hot_bool(x, num_classes, axis), dtype)


def _multi_hot_prepare(inputs, num_classes=None, axis=-1, dtype=None, sparse=False):
    n = _hot_checks("multi_hot", num_classes, sparse)
    nd = len(inputs.shape)
    if nd == 0:
        raise ValueError(f"multi_hot: expected inputs of rank >= 1, got shape={tuple(inputs.shape)}")
    check_index("multi_hot", inputs, n, f"(num_classes={n})", wrap=False, what="class indices")
    return (inputs, n, _hot_axis("multi_hot", axis, nd), dtype_arg("multi_hot", dtype),
            _sparse_hot("multi_hot", sparse))


# Kernel contract: multi_hot(inputs, num_classes, axis, dtype, sparse): inputs an integer
# tensor of rank >= 1, axis canonical in [0, inputs.ndim], dtype canonical, sparse False
# (sparse=True is `_sparse.by_argument`'s).
# Returns the one-hot encoding (class axis at ``axis``) reduced by "any" over axis 1 of it
# (axis 0 for 1-d inputs), in dtype.
@defop("nn", tensors=("inputs",), promote=_index_promote, prepare=_multi_hot_prepare, empty=0)
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False):
    """Multi-hot encoding: which of ``num_classes`` classes occur in each row of ``inputs``.

    Keras: ``keras.ops.multi_hot``.  Computed as Keras does: the one-hot encoding (class
    axis at ``axis``) is max-reduced over its axis 1 (axis 0 for 1-d inputs), so a
    (batch, n) input gives (batch, num_classes).  The result dtype is ``dtype`` (default
    floatx; Keras' symbolic dtype is the input's, its eager one floatx).  Keras' legacy
    ``num_tokens=`` keyword is not accepted; ``sparse=True`` as in `one_hot`.  Indices
    outside ``[0, num_classes)`` are handled as in `one_hot`.

    Example:
        >>> polyops.ops.multi_hot(polyops.ops.convert_to_tensor([0, 4]), 5)
        array([1., 0., 0., 0., 1.], dtype=float32)
    """
    n = _hot_checks("multi_hot", num_classes, sparse)
    shape = list(shape_of(inputs))
    if not shape:
        raise ValueError(f"multi_hot: expected inputs of rank >= 1, got shape={tuple(shape)}")
    a = _hot_axis("multi_hot", axis, len(shape))
    _index_promote((key(inputs),))
    shape.insert(a, n)
    red = 1 if len(shape) > 2 else 0
    del shape[red]
    return SymbolicTensor(tuple(shape), dtype_arg("multi_hot", dtype), sparse)


@multi_hot.reference
def _multi_hot_ref(inputs, num_classes=None, axis=-1, dtype=None, sparse=False):
    oh = _one_hot_bool(inputs, num_classes, axis)
    red = 1 if len(_shape(inputs)) > 1 else 0
    return cast(any(oh, red), dtype)


# ===== crossentropies ================================================================


def _bce_prepare(target, output, from_logits=False):
    if tuple(target.shape) != tuple(output.shape):
        raise ValueError(f"binary_crossentropy: expected target and output of the same shape, got "
                         f"target.shape={tuple(target.shape)}, output.shape={tuple(output.shape)}")
    return target, output, bool(from_logits)


# Kernel contract: binary_crossentropy(target, output, from_logits): target and output of
# one floating dtype and one shape, from_logits a bool.  Returns the elementwise loss in
# that dtype.
@defop("nn", tensors=("target", "output"), promote=_promote.floating, prepare=_bce_prepare, compute="float32")
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy ``-(t log p + (1 - t) log(1 - p))``.

    Keras: ``keras.ops.binary_crossentropy``.  Probabilities are clipped to
    ``[epsilon, 1 - epsilon]`` (`polyops.config.epsilon`) as Keras does; with
    ``from_logits=True`` the loss is computed stably from log-sigmoids, without clipping
    (Keras' JAX/TF answer; its NumPy backend clips ``sigmoid(output)``).  ``target`` and
    ``output`` must have the same shape; both promote to a common floating dtype (16-bit
    floats compute in float32 and round back).

    Example:
        >>> t = polyops.ops.convert_to_tensor([0.0, 1.0])
        >>> y = polyops.ops.binary_crossentropy(t, polyops.ops.convert_to_tensor([0.1, 0.9]))
        >>> polyops.ops.round(y, 4)
        array([0.1054, 0.1054], dtype=float32)
    """
    _check_target_output("binary_crossentropy", target, output)
    dtype, _ = _promote.floating((key(target), key(output)))
    return spec(tuple(o if o is not None else t for t, o in zip(target.shape, output.shape)), dtype)


def _log_sigmoid(x):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))
    return subtract(negative(maximum(negative(x), 0)), log1p(exp(negative(_abs(x)))))


@binary_crossentropy.reference
def _bce_ref(target, output, from_logits=False):
    t, o = target, output
    if from_logits:
        loss = negative(add(multiply(t, _log_sigmoid(o)),
                            multiply(subtract(1.0, t), _log_sigmoid(negative(o)))))
    else:
        eps = config.epsilon()
        o = clip(o, eps, 1.0 - eps)
        loss = negative(add(multiply(t, log(o)), multiply(subtract(1.0, t), log(subtract(1.0, o)))))
    return cast(loss, _dt(output))  # a 0-d loss stays a tensor (numpy's ufuncs give scalars)


def _cce_prepare(target, output, from_logits=False, axis=-1):
    if tuple(target.shape) != tuple(output.shape) or not len(output.shape):
        raise ValueError(f"categorical_crossentropy: expected target and output of the same shape, "
                         f"rank >= 1, got target.shape={tuple(target.shape)}, "
                         f"output.shape={tuple(output.shape)}")
    return target, output, bool(from_logits), canonicalize_axis(axis, len(output.shape),
                                                                  "categorical_crossentropy")


# Kernel contract: categorical_crossentropy(target, output, from_logits, axis): target and
# output of one floating dtype and one shape (rank >= 1), from_logits a bool, axis canonical.
# Returns the loss with ``axis`` reduced, in that dtype.
@defop("nn", tensors=("target", "output"), promote=_promote.floating, prepare=_cce_prepare, compute="float32", empty=-0.0)
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Categorical cross-entropy ``-sum(target * log(p), axis)`` between one-hot (or soft)
    targets and predicted probabilities or logits.

    Keras: ``keras.ops.categorical_crossentropy``.  Probabilities are first normalized
    to sum to 1 along ``axis`` and clipped to ``[epsilon, 1 - epsilon]`` as Keras does;
    ``from_logits=True`` uses a stable log-softmax.  ``target`` and ``output`` must have
    the same shape, rank >= 1; the result drops ``axis`` (Keras' symbolic shape always
    drops the last axis; its eager result, and ours, drop ``axis``).  Both promote to a
    common floating dtype; 16-bit floats compute in float32.

    Example:
        >>> t = polyops.ops.convert_to_tensor([[1.0, 0.0]])
        >>> y = polyops.ops.categorical_crossentropy(t, polyops.ops.convert_to_tensor([[0.9, 0.1]]))
        >>> polyops.ops.round(y, 4)
        array([0.1054], dtype=float32)
    """
    _check_target_output("categorical_crossentropy", target, output)
    if len(output.shape) < 1:
        raise ValueError(f"categorical_crossentropy: expected rank >= 1, got "
                         f"target.shape={target.shape}, output.shape={output.shape}")
    a = canonicalize_axis(axis, len(output.shape), "categorical_crossentropy")
    dtype, _ = _promote.floating((key(target), key(output)))
    shape = tuple(o if o is not None else t for t, o in zip(target.shape, output.shape))
    return spec(shape[:a] + shape[a + 1:], dtype)


def _log_probs(output, from_logits, axis):
    if from_logits:
        return _log_softmax(output, axis)
    eps = config.epsilon()
    p = divide(output, sum(output, (axis,), True))
    return log(clip(p, eps, 1.0 - eps))


@categorical_crossentropy.reference
def _cce_ref(target, output, from_logits=False, axis=-1):
    lp = _log_probs(output, from_logits, axis)
    return cast(negative(sum(multiply(target, lp), (axis,))), _dt(lp))  # 0-d: a tensor, as bce


def _scce_shapes(target_shape, output_shape, axis):
    if len(output_shape) < 1:
        raise ValueError(f"sparse_categorical_crossentropy: expected output of rank >= 1, got "
                         f"output.shape={tuple(output_shape)}")
    a = canonicalize_axis(axis, len(output_shape), "sparse_categorical_crossentropy")
    t = tuple(target_shape)
    if len(t) == len(output_shape) and t and t[-1] in (1, None):  # a trailing 1
        t = t[:-1]
    rest = tuple(output_shape[:a]) + tuple(output_shape[a + 1:])
    if not _same_shape(t, rest):
        raise ValueError(
            "sparse_categorical_crossentropy: expected target of the output's shape without "
            f"the class axis, got target.shape={tuple(target_shape)}, "
            f"output.shape={tuple(output_shape)}, axis={axis}")
    return a, tuple(r if r is not None else s for r, s in zip(rest, t))


def _scce_prepare(target, output, from_logits=False, axis=-1):
    a, _ = _scce_shapes(tuple(target.shape), tuple(output.shape), axis)
    c = output.shape[a]
    check_index("sparse_categorical_crossentropy", target, c,
                f"(output axis {a} has {c} classes)", wrap=False, what="target class indices")
    return target, output, bool(from_logits), a


# Kernel contract: sparse_categorical_crossentropy(target, output, from_logits, axis):
# target int32 (shape of output without axis, or with a trailing 1), output floating,
# from_logits a bool, axis canonical.  Returns the loss (output's shape without axis) in
# output's dtype; out-of-range targets contribute 0 (only under a trace: eagerly the prepare
# hook raises first).
@defop("nn", tensors=("target", "output"), promote=_sparse_promote, prepare=_scce_prepare, compute="float32")
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Categorical cross-entropy with integer class targets: ``-log p[target]``.

    Keras: ``keras.ops.sparse_categorical_crossentropy``.  ``target`` has the shape of
    ``output`` without ``axis`` (a trailing size-1 dim is squeezed); probabilities are
    normalized and clipped to ``[epsilon, 1 - epsilon]`` as in Keras, logits go through a
    stable log-softmax.  ``target`` must be an integer tensor (int32 inside); a target
    outside ``[0, classes)`` raises `polyops.IndexOutOfRangeError` eagerly, and under a
    trace gives a loss of 0 (its one-hot row is zero, as in Keras' jax backend).  The
    result has ``output``'s floating dtype (ints to floatx); 16-bit floats compute in
    float32.

    Example:
        >>> t = polyops.ops.convert_to_tensor([0, 1])
        >>> p = polyops.ops.convert_to_tensor([[0.9, 0.1], [0.2, 0.8]])
        >>> polyops.ops.round(polyops.ops.sparse_categorical_crossentropy(t, p), 4)
        array([0.1054, 0.2231], dtype=float32)
    """
    _check_tensors("sparse_categorical_crossentropy", ("target", target), ("output", output))
    _, odt = _sparse_promote((key(target), key(output)))
    _, shape = _scce_shapes(target.shape, output.shape, axis)
    return spec(shape, odt)


@sparse_categorical_crossentropy.reference
def _scce_ref(target, output, from_logits=False, axis=-1):
    oshape = _shape(output)
    tshape = _shape(target)
    if len(tshape) == len(oshape) and tshape[-1] == 1:
        target = squeeze(target, -1)
    lp = _log_probs(output, from_logits, axis)
    oh = cast(_one_hot_bool(target, oshape[axis], axis), _dt(lp))
    return cast(negative(sum(multiply(oh, lp), (axis,))), _dt(lp))  # 0-d: a tensor, as bce


# ===== CTC ===========================================================================


def _ctc_check(target, output, target_length, output_length, mask_index):
    op = "ctc_loss"
    if len(target) != 2:
        raise ValueError(f"{op}: expected target of shape (batch, max_label_length), got target.shape={tuple(target)}")
    if len(output) != 3:
        raise ValueError(f"{op}: expected output of shape (batch, time, classes), got output.shape={tuple(output)}")
    for name, s in (("target_length", target_length), ("output_length", output_length)):
        if len(s) != 1:
            raise ValueError(f"{op}: expected {name} of shape (batch,), got {name}.shape={tuple(s)}")
    for name, s in (("output", output), ("target_length", target_length), ("output_length", output_length)):
        if not _same_shape(s[:1], target[:1]):
            raise ValueError(f"{op}: expected the same batch size, got target.shape={tuple(target)}, "
                             f"{name}.shape={tuple(s)}")
    m = int_arg(op, "mask_index", mask_index)
    c = output[2]
    if c is not None and not 0 <= m < c:
        raise ValueError(f"{op}: expected mask_index in [0, {c}), got mask_index={mask_index}")
    return m


def _ctc_prepare(target, output, target_length, output_length, mask_index=0):
    m = _ctc_check(tuple(target.shape), tuple(output.shape), tuple(target_length.shape),
                   tuple(output_length.shape), mask_index)
    b, n = tuple(target.shape)
    if n and concrete(target) and concrete(target_length):  # labels past a length are padding
        used = less(reshape(arange(0, n, dtype="int32"), (1, n)), reshape(target_length, (b, 1)))
        c = output.shape[2]
        check_index("ctc_loss", where(used, target, 0), c, f"(output has {c} classes)",
                    wrap=False, what="target labels")
    return target, output, target_length, output_length, m


# Kernel contract: ctc_loss(target, output, target_length, output_length, mask_index):
# target int32 (B, L), output floating (B, T, C) logits, target_length and output_length
# int32 (B,), mask_index an int in [0, C).  Returns the per-sequence negative log
# likelihood (B,) in float32 (float64 stays float64).
@defop("nn", tensors=("target", "output", "target_length", "output_length"),
       promote=_ctc_promote, prepare=_ctc_prepare)
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """Connectionist Temporal Classification loss: ``-log p(target | output)`` per sequence.

    Keras: ``keras.ops.ctc_loss`` (``optax.ctc_loss``; ``tf.nn.ctc_loss`` with
    ``blank_index=mask_index``).  ``output`` holds unnormalized logits (B, T, C) and is
    log-softmaxed; ``mask_index`` is the blank class.  Only the first ``target_length[b]``
    labels and ``output_length[b]`` frames of each sequence count; one of those labels
    outside ``[0, C)`` raises `polyops.IndexOutOfRangeError` eagerly (under a trace it is
    emitted with probability 1: its one-hot row is zero, as in optax).  Computed with the
    forward algorithm in log space, as Keras does (unreachable paths get log-probability
    -1e5 instead of -inf, so an impossible alignment gives a large finite loss).  The
    result is float32 (Keras: ``result_type(output.dtype, "float32")``).

    Example:
        >>> out = polyops.ops.zeros((1, 3, 3))        # uniform over 3 classes, 3 frames
        >>> t = polyops.ops.convert_to_tensor([[1]])
        >>> n = polyops.ops.convert_to_tensor([1]); T = polyops.ops.convert_to_tensor([3])
        >>> polyops.ops.round(polyops.ops.ctc_loss(t, out, n, T), 4)   # -log(6 / 27)
        array([1.5041], dtype=float32)
    """
    _check_tensors("ctc_loss", ("target", target), ("output", output),
                   ("target_length", target_length), ("output_length", output_length))
    _ctc_check(target.shape, output.shape, target_length.shape, output_length.shape, mask_index)
    _, odt, _, _ = _ctc_promote((key(target), key(output), key(target_length), key(output_length)))
    b = target.shape[0] if target.shape[0] is not None else output.shape[0]
    return spec((b,), _f32_result(odt))


def _sl(*parts):
    """A get_item key from (start, stop) pairs or None (full slice)."""
    return tuple(slice(None) if p is None else slice(*p) for p in parts)


@ctc_loss.reference
def _ctc_loss_ref(target, output, target_length, output_length, mask_index=0):
    # optax.ctc_loss_with_forward_probs, as Keras' backends compute it.
    dtype = _f32_result(_dt(output))
    output = cast(output, dtype)
    b, t_max, c = _shape(output)
    _, n_max = _shape(target)
    log_eps = -1e5
    logprobs = _log_softmax(output, -1)  # (B, T, C)
    if n_max > 1:
        rep = cast(equal(get_item(target, _sl(None, (None, -1))), get_item(target, _sl(None, (1, None)))), dtype)
        repeat = concatenate([rep, full((b, 1), 0, dtype)], axis=1)  # (B, N)
    else:
        repeat = full((b, n_max), 0, dtype)
    logprobs_phi = get_item(logprobs, _sl(None, None, (mask_index, mask_index + 1)))  # (B, T, 1)
    oh = cast(_one_hot_bool(target, c, 1), dtype)  # (B, C, N)
    logprobs_emit = einsum("btk,bkn->btn", logprobs, oh)  # (B, T, N)
    frames = arange(0, t_max, dtype="int32") if t_max else full((0,), 0, "int32")
    pads = cast(greater_equal(reshape(frames, (1, t_max)), reshape(output_length, (b, 1))), dtype)  # (B, T)

    phi = concatenate([full((b, 1), 0, dtype), full((b, n_max), log_eps, dtype)], axis=1)  # (B, N+1)
    emit = full((b, n_max), log_eps, dtype)

    def update_phi(p, added):
        return concatenate([get_item(p, _sl(None, (None, 1))),
                            logaddexp(get_item(p, _sl(None, (1, None))), added)], axis=1)

    for t in range(t_max):
        lp_emit = get_item(logprobs_emit, (slice(None), t))  # (B, N)
        lp_phi = get_item(logprobs_phi, (slice(None), t))  # (B, 1)
        pad = get_item(pads, (slice(None), slice(t, t + 1)))  # (B, 1)
        prev_phi_orig = phi
        prev_phi = update_phi(phi, add(emit, multiply(log_eps, repeat)))
        next_emit = logaddexp(add(get_item(prev_phi, _sl(None, (None, -1))), lp_emit), add(emit, lp_emit))
        next_phi = add(prev_phi, lp_phi)
        next_phi = update_phi(next_phi, add(add(emit, lp_phi), multiply(log_eps, subtract(1.0, repeat))))
        keep = subtract(1.0, pad)
        emit = add(multiply(pad, emit), multiply(keep, next_emit))
        phi = add(multiply(pad, prev_phi_orig), multiply(keep, next_phi))
    phi_last = update_phi(phi, emit)  # (B, N+1)
    label_lengths = reshape(clip(target_length, 0, n_max), (b, 1))
    picked = take_along_axis(phi_last, label_lengths, axis=1)
    return negative(reshape(picked, (b,)))


_STRATEGIES = ("greedy", "beam_search")


def _decode_check(inputs, sequence_lengths, strategy, beam_width, top_paths, merge_repeated, mask_index):
    op = "ctc_decode"
    if strategy not in _STRATEGIES:
        raise ValueError(f"{op}: expected strategy 'greedy' or 'beam_search', got strategy={strategy!r}")
    if len(inputs) != 3:
        raise ValueError(f"{op}: expected inputs of shape (batch, time, classes), got inputs.shape={tuple(inputs)}")
    if len(sequence_lengths) != 1 or not _same_shape(sequence_lengths, inputs[:1]):
        raise ValueError(f"{op}: expected sequence_lengths of shape (batch,), got "
                         f"sequence_lengths.shape={tuple(sequence_lengths)}, inputs.shape={tuple(inputs)}")
    bw = int_arg(op, "beam_width", beam_width)
    tp = int_arg(op, "top_paths", top_paths)
    if bw < 1:
        raise ValueError(f"{op}: expected beam_width >= 1, got beam_width={beam_width}")
    if not 1 <= tp:
        raise ValueError(f"{op}: expected top_paths >= 1, got top_paths={top_paths}")
    if strategy == "beam_search" and tp > bw:
        raise ValueError(f"{op}: expected top_paths <= beam_width, got top_paths={top_paths}, "
                         f"beam_width={beam_width}")
    c = inputs[2]
    if mask_index is None:
        m = None if c is None else c - 1
    else:
        m = int_arg(op, "mask_index", mask_index)
        if c is not None and not 0 <= m < c:
            raise ValueError(f"{op}: expected mask_index in [0, {c}), got mask_index={mask_index}")
    return bw, tp, bool(merge_repeated), m


def _decode_prepare(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
                    merge_repeated=True, mask_index=0):
    bw, tp, mr, m = _decode_check(tuple(inputs.shape), tuple(sequence_lengths.shape), strategy,
                                  beam_width, top_paths, merge_repeated, mask_index)
    return inputs, sequence_lengths, strategy, bw, tp, mr, m


# Kernel contract: ctc_decode(inputs, sequence_lengths, strategy, beam_width, top_paths,
# merge_repeated, mask_index): inputs floating (B, T, C) logits, sequence_lengths int32
# (B,), strategy "greedy" or "beam_search", ints beam_width >= top_paths >= 1, a bool, and
# mask_index an int in [0, C).  Returns (paths int32 (P, B, T) padded with -1, scores
# (B, P) in float32), P = 1 for greedy, top_paths for beam search.
@defop("nn", tensors=("inputs", "sequence_lengths"), promote=_decode_promote, prepare=_decode_prepare, empty=(0, -0.0))
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """Decode CTC logits into label sequences: ``(paths, scores)``.

    Keras: ``keras.ops.ctc_decode`` (``tf.nn.ctc_greedy_decoder`` /
    ``tf.nn.ctc_beam_search_decoder``).  ``paths`` is int32 (P, B, T): each decoded
    sequence left-aligned and padded with -1; ``scores`` is (B, P) float32.

    * ``strategy="greedy"`` (P = 1): the argmax class per frame (frames past
      ``sequence_lengths`` are blank), repeats merged when ``merge_repeated``, blanks
      (``mask_index``) dropped; the score is minus the sum of the per-frame maximum
      *logits*, as in Keras.  Composed of polyops ops: traceable (jax.jit, tf.function).
    * ``strategy="beam_search"`` (P = ``top_paths``): prefix beam search over the
      log-softmax of ``inputs`` with ``beam_width`` beams; the scores are log
      probabilities.  This is a host computation (NumPy, the algorithm of Keras' NumPy
      backend): **eager only**, it raises TypeError under a trace.  ``merge_repeated``
      does not apply to it (as in Keras).

    ``mask_index=None`` means the last class.

    Example:
        >>> x = polyops.ops.convert_to_tensor([[[0., 5., 0.], [0., 5., 0.], [5., 0., 0.]]])
        >>> polyops.ops.ctc_decode(x, polyops.ops.convert_to_tensor([3]))
        (array([[[ 1, -1, -1]]], dtype=int32), array([[-15.]], dtype=float32))
    """
    _check_tensors("ctc_decode", ("inputs", inputs), ("sequence_lengths", sequence_lengths))
    _, tp, _, _ = _decode_check(inputs.shape, sequence_lengths.shape, strategy, beam_width,
                                top_paths, merge_repeated, mask_index)
    idt, _ = _decode_promote((key(inputs), key(sequence_lengths)))
    p = 1 if strategy == "greedy" else tp
    b, t = inputs.shape[0], inputs.shape[1]
    if b is None:
        b = sequence_lengths.shape[0]
    return spec((p, b, t), "int32"), spec((b, p), _f32_result(idt))


def _greedy(inputs, sequence_lengths, merge_repeated, mask_index):
    b, t, _ = _shape(inputs)
    dtype = _f32_result(_dt(inputs))
    inputs = cast(inputs, dtype)
    indices = cast(argmax(inputs, axis=-1), "int32")  # (B, T)
    scores = max(inputs, (2,), False, None) if t else full((b, 0), 0, dtype)
    frames = reshape(arange(0, t, dtype="int32") if t else full((0,), 0, "int32"), (1, t))
    beyond = greater_equal(frames, reshape(sequence_lengths, (b, 1)))
    indices = where(beyond, mask_index, indices)
    scores = where(beyond, 0.0, scores)
    if merge_repeated and t > 1:
        same = equal(get_item(indices, _sl(None, (1, None))), get_item(indices, _sl(None, (None, -1))))
        same = concatenate([full((b, 1), False, "bool"), same], axis=1)
        indices = where(same, mask_index, indices)
    invalid = equal(indices, mask_index)
    indices = where(invalid, -1, indices)
    order = where(invalid, t, frames)  # distinct for valid frames: any sort order works
    order = argsort(order, axis=-1)
    indices = take_along_axis(indices, cast(order, "int32"), axis=-1)
    scores = reshape(negative(sum(scores, (1,))), (b, 1))
    return expand_dims(indices, 0), scores


@ctc_decode.reference
def _ctc_decode_ref(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
                    merge_repeated=True, mask_index=0):
    if strategy == "greedy":
        return _greedy(inputs, sequence_lengths, merge_repeated, mask_index)
    x = to_host("ctc_decode", inputs)
    lengths = to_host("ctc_decode", sequence_lengths)
    dtype = _f32_result(_dt(inputs))
    paths, scores = _beam_search_host(x.astype(np.float32), lengths.astype(np.int64), beam_width,
                                      top_paths, mask_index)
    return from_host(paths.astype(np.int32), "int32"), from_host(scores, dtype)


def _beam_search_host(inputs, lengths, beam_width, top_paths, mask_index):
    """Keras' NumPy-backend prefix beam search (``_ctc_beam_search_decode``), on the host."""
    batch_size, max_seq_len, num_classes = inputs.shape
    if max_seq_len == 0:
        return (np.full((top_paths, batch_size, 0), -1, np.int32),
                np.zeros((batch_size, top_paths), np.float32))
    m = np.max(inputs, axis=-1, keepdims=True)
    inputs = inputs - m - np.log(np.sum(np.exp(inputs - m), axis=-1, keepdims=True))
    seqlen_mask = np.arange(max_seq_len)[None, :] >= lengths[:, None]
    # flip classes so ties break as TF does (Keras' workaround), and flip back at the end
    inputs = np.flip(inputs, axis=2)
    mask_index = num_classes - mask_index - 1
    pad = -1
    init_paths = np.full((batch_size, 2 * beam_width, max_seq_len), pad, dtype=np.int32)
    n_init = int(min(num_classes, beam_width))
    max_classes = np.argsort(inputs[:, 0], axis=1)[:, -n_init:]
    init_paths[:, :n_init, 0] = np.where(max_classes == mask_index, pad, max_classes)
    init_scores = np.full((batch_size, 2 * beam_width), -np.inf, dtype=inputs.dtype)
    init_scores[:, :n_init] = np.take_along_axis(inputs[:, 0], max_classes, axis=1)
    init_masked = init_paths[:, :, 0] == pad

    def extend(paths, scores, masked, x):
        paths = np.repeat(paths, num_classes, axis=0)
        scores = np.repeat(scores, num_classes)
        masked = np.repeat(masked, num_classes)
        tail_index = np.argmax(paths == pad, axis=1)
        rows = np.arange(2 * beam_width * num_classes)
        tails = np.where(tail_index == 0, pad, paths[rows, tail_index - 1])
        classes = np.arange(num_classes)
        classes[mask_index] = pad
        classes = np.tile(classes, 2 * beam_width)
        prev_masked = masked
        masked = classes == pad
        classes = np.where(~prev_masked & (tails == classes), pad, classes)
        paths[rows, tail_index] = classes
        return paths, scores + np.tile(x, 2 * beam_width), masked

    def merge(inverse, scores):
        top = np.max(scores)
        if not np.isfinite(top):
            top = 0.0
        out = np.zeros_like(scores)
        np.add.at(out, inverse, np.exp(scores - top))
        with np.errstate(divide="ignore"):
            return np.log(out) + top

    def unique(paths):
        paths, inverse = np.unique(paths, return_inverse=True, axis=0)
        size = 2 * num_classes * beam_width
        if size > len(paths):
            paths = np.pad(paths, [[0, size - len(paths)], [0, 0]], constant_values=pad)
        return paths[:size], inverse.reshape(-1)

    def prune(paths, scores, masked):
        paths, inverse = unique(paths)
        emit = merge(inverse, np.where(masked, -np.inf, scores))
        blank = merge(inverse, np.where(masked, scores, -np.inf))
        total = np.logaddexp(emit, blank)
        top = np.argsort(total, kind="stable")[-beam_width:]
        paths = np.tile(paths[top], (2, 1))
        scores = np.concatenate([emit[top], blank[top]])
        masked = np.concatenate([np.zeros(beam_width, bool), np.ones(beam_width, bool)])
        return paths, scores, masked

    all_paths, all_scores = [], []
    for b in range(batch_size):
        paths, scores, masked = init_paths[b], init_scores[b], init_masked[b]
        for t in range(1, max_seq_len):
            if not seqlen_mask[b, t]:
                paths, scores, masked = prune(*extend(paths, scores, masked, inputs[b, t]))
        paths, inverse = unique(paths)
        scores = merge(inverse, scores)
        top = np.argsort(scores)[-top_paths:][::-1]
        all_paths.append(paths[top])
        all_scores.append(scores[top])
    paths = np.stack(all_paths)
    scores = np.stack(all_scores).astype(np.float32)
    paths = np.where(paths == pad, pad, num_classes - paths - 1)
    return np.transpose(paths, [1, 0, 2]), scores


__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "CtcDecode", "CtcLoss", "MultiHot",
    "OneHot", "SparseCategoricalCrossentropy", "binary_crossentropy",
    "categorical_crossentropy", "ctc_decode", "ctc_loss", "multi_hot", "one_hot",
    "sparse_categorical_crossentropy",
]

_finish(globals())
