"""Normalizations and attention: moments, batch/layer/RMS normalization, psnr, polar.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import math
import numbers

from ... import _dtypes, _promote, config
from ..._op import defop
from ..._shapes import broadcast_shapes, canonicalize_axes, canonicalize_axis, reduce_shape
from ..._symbolic import SymbolicTensor
from .._base import finish as _finish
from .._base import key, spec
from ..core import cast, stop_gradient
from ..core import shape as _shape
from ..numpy import (
    abs, add, broadcast_to, cos, einsum, exp, log10, logical_and, max, maximum,
    mean, minimum, multiply, negative, ones, power, reciprocal, reshape, sin, sqrt, square,
    subtract, sum, tanh, tril, where,
)
from ..numpy import divide

def _dt(x) -> str:
    return _dtypes.standardize_dtype(x.dtype)


def _tensor(op, name, v):
    if not isinstance(v, SymbolicTensor):
        raise TypeError(f"{op}: expected a tensor for {name!r}, got {v!r}")


def _tensors(op, required, optional=()):
    """_tensor on each (name, value) of required, and of optional where value is not None."""
    for name, v in required:
        _tensor(op, name, v)
    for name, v in optional:
        if v is not None:
            _tensor(op, name, v)


def _shape_or_none(v):
    return None if v is None else tuple(v.shape)


def _eps(op, epsilon, default=None):
    if epsilon is None:
        return config.epsilon() if default is None else default
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{op}: expected a float epsilon, got epsilon={epsilon!r}")
    return float(epsilon)


def _axes_list(op, axis, ndim):
    """``axis`` (int or sequence; None: all) as a sorted tuple of canonical axes."""
    axes = canonicalize_axes(axis, ndim, op)
    return tuple(range(ndim)) if axes is None else axes


# ===== moments =======================================================================


def _moments_prepare(x, axes, keepdims=False, synchronized=False):
    return x, _axes_list("moments", axes, len(x.shape)), bool(keepdims), bool(synchronized)


# Kernel contract: moments(x, axes, keepdims, synchronized): x floating (ints as floatx),
# axes a sorted tuple of canonical axes, keepdims and synchronized bools.  Returns (mean,
# variance), each reduce_shape(x.shape, axes, keepdims) in x's dtype.
@defop("nn", tensors=("x",), promote=_promote.floating, prepare=_moments_prepare, empty=(math.nan, math.nan))
def moments(x, axes, keepdims=False, synchronized=False):
    """Mean and (biased) variance of ``x`` over ``axes``: ``(mean, variance)``.

    Keras: ``keras.ops.moments`` (``tf.nn.moments``).  ``axes``: an int or a sequence
    of ints (None: every axis).  Ints and bools compute in floatx; float16/bfloat16
    compute in float32 and are clipped to the float16 range and cast back, as Keras
    does.  The variance is ``mean(square(x - mean))`` (Keras uses
    ``E[x^2] - E[x]^2``; equal up to rounding, ours never negative).
    ``synchronized=True`` (cross-replica statistics in Keras' TF backend) computes the
    same local statistics here: polyops runs on one device.

    Example:
        >>> polyops.ops.moments(polyops.ops.convert_to_tensor([1.0, 3.0]), axes=[0])
        (array(2., dtype=float32), array(1., dtype=float32))
    """
    _tensor("moments", "x", x)
    axes_ = _axes_list("moments", axes, len(x.shape))
    (dtype,) = _promote.floating((key(x),))
    out = reduce_shape(x.shape, axes_, bool(keepdims))
    return spec(out, dtype), spec(out, dtype)


@moments.reference
def _moments_ref(x, axes, keepdims=False, synchronized=False):
    dtype = _dt(x)
    # widened here, not by a declared compute dtype: the float16 results are clipped to
    # its range below (as Keras does), which the entry's cast back would not do
    w = cast(x, "float32") if dtype in _dtypes.HALF_FLOATS else x
    m = mean(w, axes, True)
    v = mean(square(subtract(w, m)), axes, True)
    if not keepdims:
        shape = _shape(x)
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
        m, v = reshape(m, out), reshape(v, out)
    if dtype == "float16":
        lim = 65504.0
        m, v = minimum(maximum(m, -lim), lim), minimum(v, lim)
    return cast(m, dtype), cast(v, dtype)


# ===== batch_normalization ===========================================================


def _bn_check(x, mean_, variance, axis, offset, scale):
    op = "batch_normalization"
    a = canonicalize_axis(axis, len(x), op)
    want = (x[a],)
    for name, s in (("mean", mean_), ("variance", variance), ("offset", offset), ("scale", scale)):
        if s is not None and not (len(s) == 1 and (s[0] is None or want[0] is None or s[0] == want[0])):
            raise ValueError(f"{op}: expected {name} of shape {want} (x.shape[axis]), got "
                             f"{name}.shape={tuple(s)}, x.shape={tuple(x)}, axis={axis}")
    return a


def _bn_prepare(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    shape = _shape_or_none
    a = _bn_check(tuple(x.shape), shape(mean), shape(variance), axis, shape(offset), shape(scale))
    return x, mean, variance, a, offset, scale, _eps("batch_normalization", epsilon)


# Kernel contract: batch_normalization(x, mean, variance, axis, offset, scale, epsilon): x,
# mean, variance (and offset, scale where not None) of one floating dtype; mean etc. of
# shape (x.shape[axis],), axis canonical, epsilon a float.  Returns x's shape and dtype.
@defop("nn", tensors=("x", "mean", "variance", "offset", "scale"), promote=_promote.floating,
       prepare=_bn_prepare)
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """Normalize ``x`` by given statistics: ``(x - mean) / sqrt(variance + epsilon) * scale
    + offset``, the vectors laid along ``axis``.

    Keras: ``keras.ops.batch_normalization`` (``tf.nn.batch_normalization``).
    ``mean``, ``variance``, ``offset`` and ``scale`` are vectors of length
    ``x.shape[axis]``.  Every operand promotes to one floating dtype.

    Example:
        >>> x = polyops.ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> m = polyops.ops.convert_to_tensor([2.0, 3.0]); v = polyops.ops.ones((2,))
        >>> polyops.ops.batch_normalization(x, m, v, axis=-1, epsilon=0.0)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
    """
    _tensors("batch_normalization", (("x", x), ("mean", mean), ("variance", variance)),
             (("offset", offset), ("scale", scale)))
    _bn_check(x.shape, mean.shape, variance.shape, axis, _shape_or_none(offset),
              _shape_or_none(scale))
    _eps("batch_normalization", epsilon)
    keys = tuple(None if v is None else key(v) for v in (x, mean, variance, offset, scale))
    return spec(x.shape, _promote.floating(keys)[0])


@batch_normalization.reference
def _bn_ref(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    nd = len(_shape(x))
    shape = [1] * nd
    shape[axis] = _shape(x)[axis]
    shape = tuple(shape)
    inv = reciprocal(sqrt(add(reshape(variance, shape), epsilon)))
    if scale is not None:
        inv = multiply(inv, reshape(scale, shape))
    res = multiply(negative(reshape(mean, shape)), inv)
    if offset is not None:
        res = add(res, reshape(offset, shape))
    return add(multiply(x, inv), res)


# ===== normalize =====================================================================


def _order(op, order):
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"{op}: expected an int order >= 1, got order={order!r}")
    if order < 1:
        raise ValueError(f"{op}: expected an int order >= 1, got order={order!r}")
    return order


def _normalize_prepare(x, axis=-1, order=2, epsilon=None):
    nd = len(x.shape)
    axes = _axes_list("normalize", axis, nd)
    return x, axes, _order("normalize", order), _eps("normalize", epsilon)


# Kernel contract: normalize(x, axis, order, epsilon): x floating (ints as floatx), axis a
# sorted tuple of canonical axes, order an int >= 1, epsilon a float.  Returns x / max(
# norm, epsilon) with the order-``order`` norm over axis (keepdims), x's shape and dtype.
@defop("nn", tensors=("x",), promote=_promote.floating, prepare=_normalize_prepare, compute="float32")
def normalize(x, axis=-1, order=2, epsilon=None):
    """``x / max(norm(x, order, axis), epsilon)``: unit vectors along ``axis``.

    Keras: ``keras.ops.normalize`` (``sklearn.preprocessing.normalize``,
    ``torch.nn.functional.normalize``).  ``axis``: an int, a sequence of ints or None
    (all).  ``order`` is an int >= 1 (the p of the p-norm); ``epsilon`` defaults to
    `polyops.config.epsilon`.  For order 2 this is ``x * min(rsqrt(sum(x^2)),
    1 / epsilon)``, as Keras computes it.  Ints become floatx.  A 0-d ``x`` has no axis
    -1 (ValueError; Keras' eager call would return shape (1,)).

    Example:
        >>> polyops.ops.normalize(polyops.ops.convert_to_tensor([3.0, 4.0]))
        array([0.6, 0.8], dtype=float32)
    """
    _tensor("normalize", "x", x)
    _axes_list("normalize", axis, len(x.shape))
    _order("normalize", order)
    _eps("normalize", epsilon)
    (dtype,) = _promote.floating((key(x),))
    return spec(x.shape, dtype)


@normalize.reference
def _normalize_ref(x, axis=-1, order=2, epsilon=None):
    w = x
    if order == 2:
        inv = reciprocal(sqrt(sum(square(w), axis, True)))
        out = multiply(w, minimum(inv, 1.0 / epsilon))
    else:
        a = abs(w)
        norm = sum(a, axis, True) if order == 1 else power(sum(power(a, order), axis, True), 1.0 / order)
        out = divide(w, maximum(norm, epsilon))
    return out


# ===== psnr ==========================================================================


def _max_val(max_val):
    if isinstance(max_val, bool) or not isinstance(max_val, numbers.Real):
        raise TypeError(f"psnr: expected a number max_val, got max_val={max_val!r}")
    return float(max_val)


def _psnr_check(s1, s2):
    if len(s1) != len(s2) or not all(a is None or b is None or a == b for a, b in zip(s1, s2)):
        raise ValueError(f"psnr: expected x1 and x2 of the same shape, got x1.shape={tuple(s1)}, "
                         f"x2.shape={tuple(s2)}")


def _psnr_prepare(x1, x2, max_val):
    _psnr_check(tuple(x1.shape), tuple(x2.shape))
    return x1, x2, _max_val(max_val)


# Kernel contract: psnr(x1, x2, max_val): x1, x2 of one floating dtype and one shape,
# max_val a float.  Returns a 0-d tensor of that dtype: 20 log10(max_val) - 10 log10(mse).
@defop("nn", tensors=("x1", "x2"), promote=_promote.floating, prepare=_psnr_prepare, compute="float32", empty=math.nan)
def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mean((x1 - x2)^2))``.

    Keras: ``keras.ops.psnr`` (``tf.image.psnr`` over the whole tensor).  ``x1`` and
    ``x2`` must have the same shape; the result is a 0-d tensor of their common floating
    dtype (16-bit floats compute in float32).  Identical inputs give +inf.
    ``max_val`` is a Python number.

    Example:
        >>> a = polyops.ops.zeros((4,)); b = polyops.ops.full((4,), 0.1)
        >>> polyops.ops.round(polyops.ops.psnr(a, b, 1.0), 4)
        np.float32(20.0)
    """
    _tensor("psnr", "x1", x1)
    _tensor("psnr", "x2", x2)
    _psnr_check(x1.shape, x2.shape)
    _max_val(max_val)
    dtype, _ = _promote.floating((key(x1), key(x2)))
    return spec((), dtype)


@psnr.reference
def _psnr_ref(x1, x2, max_val):
    mse = mean(square(subtract(x1, x2)))
    return subtract(20.0 * math.log10(max_val) if max_val > 0 else -math.inf, multiply(10.0, log10(mse)))


# ===== dot_product_attention =========================================================


@_promote.cached
def _attention_promote(keys):
    """(query, key, value, bias, mask): q/k/v to one floating dtype, bias to it, mask bool."""
    q, k, v, b, m = keys
    (dtype,) = _promote.floating((_dtypes.result_type_of_keys((q, k, v)),))
    return (dtype, dtype, dtype, None if b is None else dtype, None if m is None else "bool")


def _attention_check(q, k, v, bias, mask, scale, is_causal, attn_logits_soft_cap):
    op = "dot_product_attention"
    for name, s in (("query", q), ("key", k), ("value", v)):
        if len(s) != 4:
            raise ValueError(f"{op}: expected 4-d (B, T, N, H) tensors, got {name}.shape={tuple(s)}")

    def eq(a, b):
        return a is None or b is None or a == b

    if not (eq(k[0], q[0]) and eq(k[3], q[3]) and all(eq(a, b) for a, b in zip(k, v))):
        raise ValueError(f"{op}: expected key (B, S, K, H) matching query (B, T, N, H) and value "
                         f"of the key's shape, got query.shape={tuple(q)}, key.shape={tuple(k)}, "
                         f"value.shape={tuple(v)}")
    if q[2] is not None and k[2] is not None and (k[2] == 0 or q[2] % k[2]):
        raise ValueError(f"{op}: expected the query heads ({q[2]}) to be a multiple of the key "
                         f"heads ({k[2]}), got query.shape={tuple(q)}, key.shape={tuple(k)}")
    full = (q[0], q[2], q[1], k[1])
    for name, s in (("bias", bias), ("mask", mask)):
        if s is not None:
            if len(s) > 4:
                raise ValueError(f"{op}: expected {name} broadcastable to (B, N, T, S) = {full}, "
                                 f"got {name}.shape={tuple(s)}")
            broadcast_shapes(tuple(s), full, op=op)
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, numbers.Real)):
        raise TypeError(f"{op}: expected a float scale or None, got scale={scale!r}")
    if attn_logits_soft_cap is not None and (isinstance(attn_logits_soft_cap, bool)
                                             or not isinstance(attn_logits_soft_cap, numbers.Real)
                                             or attn_logits_soft_cap <= 0):
        raise ValueError(f"{op}: expected a positive attn_logits_soft_cap or None, got "
                         f"attn_logits_soft_cap={attn_logits_soft_cap!r}")
    return None if scale is None else float(scale)


def _attention_prepare(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                       flash_attention=None, attn_logits_soft_cap=None):
    sh = _shape_or_none
    s = _attention_check(sh(query), sh(key), sh(value), sh(bias), sh(mask), scale, is_causal,
                         attn_logits_soft_cap)
    cap = None if attn_logits_soft_cap is None else float(attn_logits_soft_cap)
    return query, key, value, bias, mask, s, bool(is_causal), flash_attention, cap


# Kernel contract: dot_product_attention(query, key, value, bias, mask, scale, is_causal,
# flash_attention, attn_logits_soft_cap): query (B, T, N, H), key and value (B, S, K, H) of
# one floating dtype with N % K == 0; bias (that dtype) and mask (bool) None or
# broadcastable to (B, N, T, S); scale a float or None (1/sqrt(H)); is_causal a bool;
# flash_attention a hint (ignored by the reference); the cap a positive float or None.
# Returns query's shape in the common dtype.
@defop("nn", tensors=("query", "key", "value", "bias", "mask"), promote=_attention_promote,
       prepare=_attention_prepare)
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                          flash_attention=None, attn_logits_soft_cap=None):
    """Scaled dot-product attention ``softmax(Q K^T * scale + bias, masked) V``.

    Keras: ``keras.ops.dot_product_attention`` (``jax.nn.dot_product_attention``,
    ``torch.nn.functional.scaled_dot_product_attention``).  Shapes as in Keras: query
    (B, T, N, H), key and value (B, S, K, H); K < N is grouped-query attention (N a
    multiple of K; each key head serves N / K consecutive query heads).  ``bias`` (added
    to the logits) and the boolean ``mask`` (True = attend) broadcast to (B, N, T, S);
    ``is_causal`` keeps ``t >= s``; masked logits get a large negative value, so a fully
    masked row averages the values (as Keras' JAX/NumPy backends).  ``scale`` defaults
    to ``1 / sqrt(H)``.  Logits and softmax compute in float32 (float16/bfloat16 cast
    back at the end; float64, in 64-bit mode, computes in float64).  ``attn_logits_soft_cap`` caps the logits as ``cap * tanh(logits
    / cap)`` before masking on every backend (Keras allows it on JAX TPU only).
    ``flash_attention`` is a hint with no effect on the result here.

    Example:
        >>> q = polyops.ops.ones((1, 2, 1, 4))
        >>> polyops.ops.dot_product_attention(q, q, q).shape
        (1, 2, 1, 4)
    """
    _tensors("dot_product_attention", (("query", query), ("key", key), ("value", value)),
             (("bias", bias), ("mask", mask)))
    sh = _shape_or_none
    _attention_check(query.shape, key.shape, value.shape, sh(bias), sh(mask), scale, is_causal,
                     attn_logits_soft_cap)
    keys = tuple(_key(v) for v in (query, key, value, bias, mask))
    dtype = _attention_promote(keys)[0]
    return spec(query.shape, dtype)


def _key(v):
    return None if v is None else key(v)


_LARGE_NEGATIVE = -0.7 * 3.38953e38  # Keras' masked logit in float32


@dot_product_attention.reference
def _attention_ref(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                   flash_attention=None, attn_logits_soft_cap=None):
    dtype = _dt(query)
    b, t, n, h = _shape(query)
    _, s, k, _ = _shape(key)
    g = n // k if k else 1
    wide = "float64" if dtype == "float64" else "float32"  # (float64: 64-bit mode only)
    q = reshape(cast(query, wide), (b, t, k, g, h))
    kf, vf = cast(key, wide), cast(value, wide)
    if scale is None:
        scale = 1.0 / math.sqrt(h) if h else 1.0
    logits = multiply(einsum("btkgh,bskh->bkgts", q, kf), scale)
    logits = reshape(logits, (b, n, t, s))
    if bias is not None:
        logits = add(logits, cast(bias, wide))
    if attn_logits_soft_cap is not None:
        logits = multiply(tanh(divide(logits, attn_logits_soft_cap)), attn_logits_soft_cap)
    keep = None
    if mask is not None:
        keep = broadcast_to(mask, (b, n, t, s))
    if is_causal:
        causal = cast(tril(ones((t, s), "int32")), "bool")
        keep = causal if keep is None else logical_and(keep, causal)
    if keep is not None:
        logits = where(keep, logits, _LARGE_NEGATIVE)
    if s:
        # the shift cancels in the softmax: off the tape, its gradient is no work
        e = exp(subtract(logits, stop_gradient(max(logits, (3,), True))))
        probs = divide(e, sum(e, (3,), True))
    else:
        probs = logits
    probs = reshape(probs, (b, k, g, t, s))
    out = einsum("bkgts,bskh->btkgh", probs, vf)
    return cast(reshape(out, (b, t, n, h)), dtype)


# ===== rms_normalization, layer_normalization ========================================


def _norm_prepare_for(op):
    def prepare(x, scale=None, axis=-1, epsilon=None):
        axes = _axes_list(op, axis, len(x.shape))
        if scale is not None:
            broadcast_shapes(tuple(scale.shape), tuple(x.shape), op=op)
        return x, scale, axes, _eps(op, epsilon)

    return prepare


# Kernel contract: rms_normalization(x, scale, axis, epsilon): x (and scale, broadcastable
# to x, where not None) of one floating dtype; axis a sorted tuple of canonical axes;
# epsilon a float.  Returns x * rsqrt(mean(x^2, axis) + epsilon) * scale, x's shape.
@defop("nn", tensors=("x", "scale"), promote=_promote.floating,
       prepare=_norm_prepare_for("rms_normalization"), compute="float32")
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """Root-mean-square normalization ``x * rsqrt(mean(x^2, axis) + epsilon) * scale``.

    Keras: ``keras.ops.rms_normalization`` (``torch.nn.functional.rms_norm``).
    ``axis``: int or sequence of ints; ``scale`` (optional) broadcasts against ``x``;
    ``epsilon`` defaults to `polyops.config.epsilon`.  Computed in float32 for 16-bit
    floats and cast back; ints become floatx (Keras would cast back to the int dtype).

    Example:
        >>> y = polyops.ops.rms_normalization(polyops.ops.convert_to_tensor([3.0, 4.0]))
        >>> polyops.ops.round(y, 4)
        array([0.8485, 1.1314], dtype=float32)
    """
    _tensor("rms_normalization", "x", x)
    if scale is not None:
        _tensor("rms_normalization", "scale", scale)
        broadcast_shapes(scale.shape, x.shape, op="rms_normalization")
    _axes_list("rms_normalization", axis, len(x.shape))
    _eps("rms_normalization", epsilon)
    return spec(x.shape, _promote.floating((key(x), _key(scale)))[0])


@rms_normalization.reference
def _rms_ref(x, scale=None, axis=-1, epsilon=None):
    out = multiply(x, reciprocal(sqrt(add(mean(square(x), axis, True), epsilon))))
    if scale is not None:
        out = multiply(out, scale)
    return out


def _ln_shapes(op, x, gamma, beta, axis):
    axes = _axes_list(op, axis, len(x))
    nd = len(x)
    want = tuple(x[a] for a in axes)
    for name, s in (("gamma", gamma), ("beta", beta)):
        if s is None:
            continue
        if len(s) != nd or axes == (nd - 1,):
            ok = len(s) == len(want) and all(a is None or b is None or a == b for a, b in zip(s, want))
            if not ok and not (len(s) == nd and axes == (nd - 1,)):
                raise ValueError(f"{op}: expected {name} of shape {want} (x's dims on axis), got "
                                 f"{name}.shape={tuple(s)}, x.shape={tuple(x)}")
        if len(s) == nd:
            broadcast_shapes(tuple(s), tuple(x), op=op)
    return axes


def _ln_prepare(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    axes = _ln_shapes("layer_normalization", tuple(x.shape), _shape_or_none(gamma),
                      _shape_or_none(beta), axis)
    return x, gamma, beta, axes, _eps("layer_normalization", epsilon), bool(rms_scaling)


# Kernel contract: layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling): x (and
# gamma, beta where not None: shaped as x's dims on axis, or of x's rank) of one floating
# dtype; axis a sorted tuple of canonical axes; epsilon a float; rms_scaling a bool.
# Returns x's shape and dtype.
@defop("nn", tensors=("x", "gamma", "beta"), promote=_promote.floating, prepare=_ln_prepare, compute="float32")
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    """Layer normalization ``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over ``axis``.

    Keras: ``keras.ops.layer_normalization`` (``torch.nn.functional.layer_norm``).
    ``axis``: int or sequence of ints; ``gamma``/``beta`` have the shape of x's dims on
    ``axis`` (or x's rank); ``epsilon`` defaults to `polyops.config.epsilon`.
    ``rms_scaling=True`` is Keras' deprecated keyword (passed through ``**kwargs``
    there): ``x * rsqrt(var + epsilon) * gamma``, no centering, no beta.  Computed in
    float32 for 16-bit floats and cast back; ints become floatx.

    Example:
        >>> y = polyops.ops.layer_normalization(polyops.ops.arange(5, dtype="float32"))
        >>> polyops.ops.round(y, 4)
        array([-1.4142, -0.7071,  0.    ,  0.7071,  1.4142], dtype=float32)
    """
    _tensors("layer_normalization", (("x", x),), (("gamma", gamma), ("beta", beta)))
    _ln_shapes("layer_normalization", x.shape, _shape_or_none(gamma), _shape_or_none(beta), axis)
    _eps("layer_normalization", epsilon)
    return spec(x.shape, _promote.floating((key(x), _key(gamma), _key(beta)))[0])


@layer_normalization.reference
def _ln_ref(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    w = x
    shape = _shape(x)
    nd = len(shape)
    bshape = tuple(shape[i] if i in axis else 1 for i in range(nd))

    def bc(v):
        if v is None:
            return None
        if len(_shape(v)) != nd and axis != (nd - 1,):
            v = reshape(v, bshape)
        return v

    gamma, beta = bc(gamma), bc(beta)
    m = mean(w, axis, True)
    var = mean(square(subtract(w, m)), axis, True)
    inv = reciprocal(sqrt(add(var, epsilon)))
    if rms_scaling:
        out = multiply(w, inv)
        if gamma is not None:
            out = multiply(out, gamma)
        return out
    if gamma is not None:
        inv = multiply(inv, gamma)
    res = multiply(negative(m), inv)
    if beta is not None:
        res = add(res, beta)
    return add(multiply(w, inv), res)


# ===== polar =========================================================================


@_promote.cached
def _polar_promote(keys):
    out = _promote.ordered(_promote.floating)(keys)
    return out


_COMPLEX_OF = {"float16": "complex64", "bfloat16": "complex64", "float32": "complex64",
               "float64": "complex128"}


def _polar_prepare(abs_, angle):
    from ..._registry import current

    backend = current()
    if "complex64" not in set(backend.runtime.dtypes.values()):
        raise TypeError(f"polar: the {backend.name} backend has no complex dtype, and polar "
                        "returns complex64")
    return abs_, angle


# Kernel contract: polar(abs_, angle): two broadcastable tensors of one real floating dtype.
# Returns abs_ * (cos(angle) + 1j sin(angle)), complex64 (complex128 for float64).
@defop("nn", tensors=("abs_", "angle"), promote=_polar_promote, prepare=_polar_prepare, compute="float32")
def polar(abs_, angle):
    """The complex number with magnitude ``abs_`` and phase ``angle``:
    ``abs_ * (cos(angle) + 1j * sin(angle))``.

    Keras: ``keras.ops.polar`` (``torch.polar``; not ``scipy.linalg.polar``).  The
    operands broadcast and promote to a real floating dtype; the result is complex64
    (complex128 from float64).  Backends without complex dtypes (openvino) raise
    TypeError.

    Example:
        >>> polyops.ops.polar(polyops.ops.ones((1,)), polyops.ops.zeros((1,)))
        array([1.+0.j], dtype=complex64)
    """
    _tensor("polar", "abs_", abs_)
    _tensor("polar", "angle", angle)
    dtype, _ = _polar_promote((key(abs_), key(angle)))
    return spec(broadcast_shapes(abs_.shape, angle.shape, op="polar"), _COMPLEX_OF.get(dtype, "complex64"))


@polar.reference
def _polar_ref(abs_, angle):
    ctype = _COMPLEX_OF.get(_dt(abs_), "complex64")
    re = multiply(abs_, cos(angle))
    im = multiply(abs_, sin(angle))
    return add(cast(re, ctype), multiply(cast(im, ctype), 1j))


__all__ = [
    "BatchNormalization", "DotProductAttention", "LayerNormalization", "Moments", "Normalize",
    "Polar", "Psnr", "RmsNormalization", "batch_normalization", "dot_product_attention",
    "layer_normalization", "moments", "normalize", "polar", "psnr", "rms_normalization",
]

_finish(globals())
