"""Tensor ops of ``keras.ops.core``: scatter, scatter_update, slice, slice_update,
saturate_cast, stop_gradient, unstack, rearrange and custom_gradient."""

from __future__ import annotations

import builtins
import functools
import math as _math
import re

import numpy as np

from ... import _dtypes, _promote
from ..._op import defop
from ..._symbolic import SymbolicTensor
from .._base import dtype_arg, key, shape_of, spec
from .._base import finish as _finish
from .._indices import check_rows
from .base import cast, convert_to_tensor
from .base import dtype as _dtype_of
from .base import shape as _shape_of


def _np():
    from .. import numpy

    return numpy


def _int_key(op, name, k):
    if k is not None and k not in _dtypes.INT_TYPES and k != "int":
        raise _promote.PromotionError(f"expected integer {name}, got dtype {k}")


# ----- scatter ----------------------------------------------------------------------------


@_promote.cached
def _scatter_promote(keys):
    indices, values = keys
    _int_key("scatter", "indices", indices)
    return "int32", _promote.preserve((values,))[0]


def _scatter_shape(op, shape):
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{op}: expected a shape (a tuple of ints), got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"{op}: expected non-negative dims, got shape={shape}")
    return shape


def _check_updates(op, ishape, vshape, target, what):
    """``indices`` (N..., k) against ``target`` dims: updates must be (N...) + target[k:]."""
    if not ishape:
        raise ValueError(f"{op}: indices must have at least one dim (..., k), got a scalar")
    k = ishape[-1]
    if k is not None and k > len(target):
        raise ValueError(f"{op}: indices of depth {k} index a tensor of rank {len(target)}")
    if k is None:
        return
    want = tuple(ishape[:-1]) + tuple(target[k:])
    if len(vshape) != len(want) or any(
            a is not None and b is not None and a != b for a, b in zip(vshape, want)):
        raise ValueError(f"{op}: {what} must have shape {want} for indices of shape "
                         f"{tuple(ishape)} into shape {tuple(target)}, got {tuple(vshape)}")


def _scatter_prepare(indices, values, shape):
    shape = _scatter_shape("scatter", shape)
    _check_updates("scatter", tuple(_shape_of(indices)), tuple(_shape_of(values)), shape, "values")
    check_rows("scatter", indices, shape)
    return indices, values, shape


@defop("core", tensors=("indices", "values"), promote=_scatter_promote, prepare=_scatter_prepare, empty=0)
def scatter(indices, values, shape):
    """A zero tensor of ``shape`` with ``values`` added at ``indices``.

    ``indices`` has shape ``(..., k)``: each row indexes the first ``k`` dims of ``shape``
    (negative entries count from the end); ``values`` has shape ``indices.shape[:-1] +
    shape[k:]``.  Values at duplicate indices add up.  An index outside ``[-d, d)`` raises
    `polyops.IndexOutOfRangeError` eagerly; under a trace its row is dropped.
    The result has ``values``'s dtype.  Keras: ``keras.ops.scatter``; TF:
    ``tf.scatter_nd``.

    Example:
        >>> polyops.ops.scatter([[0], [2], [0]], polyops.ops.array([1.0, 2.0, 3.0]), (4,))
        array([4., 0., 2., 0.], dtype=float32)
    """
    shape = _scatter_shape("scatter", shape)
    dtype = _scatter_promote((key(indices), key(values)))[1]
    _check_updates("scatter", shape_of(indices), shape_of(values), shape, "values")
    return spec(shape, dtype)


def _linear(op, indices, dims):
    """Row-major linear positions (int32, shape (N,)) of the rows of ``indices`` (N, k)
    into ``dims`` (the first k dims), negatives wrapped; out-of-range rows get -1."""
    pnp = _np()
    k = len(dims)
    if k == 0:
        return pnp.zeros((_shape_of(indices)[0],), "int32")
    lin = None
    ok = None
    stride = 1
    for j in range(k - 1, -1, -1):
        col = indices[:, j]
        col = pnp.where(col < 0, col + dims[j], col)
        good = (col >= 0) & (col < dims[j])
        ok = good if ok is None else ok & good
        term = col * stride
        lin = term if lin is None else lin + term
        stride *= dims[j]
    return pnp.where(ok, lin, -1)


def _rows(op, indices, values, target):
    """(indices as (N, k) int32, values as (N,) + target[k:], k, M = prod(target[:k]))."""
    pnp = _np()
    ishape = tuple(_shape_of(indices))
    k = ishape[-1]
    n = _math.prod(ishape[:-1])
    idx = pnp.reshape(indices, (n, k))
    vals = pnp.reshape(values, (n,) + tuple(target[k:]))
    return idx, vals, k, _math.prod(target[:k])


@scatter.reference
def _scatter_ref(indices, values, shape):
    from .. import math as pmath

    pnp = _np()
    shape = _scatter_shape("scatter", shape)
    idx, vals, k, m = _rows("scatter", indices, values, shape)
    lin = _linear("scatter", idx, shape[:k])
    dtype = _dtype_of(values)
    data = cast(vals, "int32") if dtype == "bool" else vals
    out = pmath.segment_sum(data, lin, num_segments=m)
    if dtype == "bool":
        out = pnp.not_equal(out, 0)
    return pnp.reshape(out, shape)


# Kernel contract: scatter(indices, values, shape) gets int32 indices (..., k), values of the
# result dtype and shape a tuple of ints; duplicates add (bool: logical or), negative
# indices wrap once, out-of-range rows are dropped (only under a trace: eagerly the prepare
# hook raises first).


@_promote.cached
def _scatter_update_promote(keys):
    inputs, indices, updates = keys
    _int_key("scatter_update", "indices", indices)
    (d,) = _promote.preserve((inputs,))
    return d, "int32", d


_REDUCTIONS = (None, "add", "max", "min", "mul")


def _reduction(op, reduction):
    r = reduction.lower() if isinstance(reduction, str) else reduction
    if r not in _REDUCTIONS:
        raise ValueError(f"{op}: expected reduction None, 'add', 'max', 'min' or 'mul', "
                         f"got {reduction!r}")
    return r


def _scatter_update_prepare(inputs, indices, updates, reduction=None):
    ishape = tuple(_shape_of(indices))
    if len(ishape) != 2:
        raise ValueError(f"scatter_update: expected indices of shape (N, k), got {ishape}")
    _check_updates("scatter_update", ishape, tuple(_shape_of(updates)),
                   tuple(_shape_of(inputs)), "updates")
    check_rows("scatter_update", indices, tuple(_shape_of(inputs)))
    return inputs, indices, updates, _reduction("scatter_update", reduction)


@defop("core", tensors=("inputs", "indices", "updates"), promote=_scatter_update_promote,
       prepare=_scatter_update_prepare)
def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices`` (``inputs[indices] = updates``).

    ``indices`` has shape ``(N, k)`` (negative entries count from the end; an entry outside
    ``[-d, d)`` raises `polyops.IndexOutOfRangeError` eagerly, and under a trace its row is
    dropped) and ``updates`` ``(N,) + inputs.shape[k:]``, cast to ``inputs``'s
    dtype.  ``reduction``: None replaces, and at duplicate indices the *last* update wins
    (on every backend); "add", "max", "min" and "mul" combine every update at an index with
    the input value.  Keras: ``keras.ops.scatter_update``.

    Example:
        >>> polyops.ops.scatter_update(polyops.ops.zeros((4,)), [[1], [3]], [5.0, 6.0])
        array([0., 5., 0., 6.], dtype=float32)
    """
    _reduction("scatter_update", reduction)
    d = _scatter_update_promote((key(inputs), key(indices), key(updates)))[0]
    _check_updates("scatter_update", shape_of(indices), shape_of(updates), shape_of(inputs),
                   "updates")
    return spec(shape_of(inputs), d)


@scatter_update.reference
def _scatter_update_ref(inputs, indices, updates, reduction=None):
    from .. import math as pmath

    pnp = _np()
    target = tuple(_shape_of(inputs))
    idx, upd, k, m = _rows("scatter_update", indices, updates, target)
    lin = _linear("scatter_update", idx, target[:k])
    flat = pnp.reshape(inputs, (m,) + target[k:])
    n = _shape_of(idx)[0]
    tail = (1,) * (len(target) - k)
    dtype = _dtype_of(inputs)
    if reduction is None:
        last = pmath.segment_max(pnp.arange(n, dtype="int32"), lin, num_segments=m)
        hit = pnp.reshape(last >= 0, (m,) + tail)
        if n == 0:
            return inputs
        picked = pnp.take(upd, pnp.maximum(last, 0), axis=0)
        out = pnp.where(hit, picked, flat)
    else:
        count = pmath.segment_sum(pnp.ones((n,), "int32"), lin, num_segments=m)
        hit = pnp.reshape(count > 0, (m,) + tail)
        work = cast(upd, "int32") if dtype == "bool" else upd
        base = cast(flat, "int32") if dtype == "bool" else flat
        seg = {"add": pmath.segment_sum, "max": pmath.segment_max, "min": pmath.segment_min,
               "mul": pmath.segment_prod}[reduction](work, lin, num_segments=m)
        combine = {"add": pnp.add, "max": pnp.maximum, "min": pnp.minimum,
                   "mul": pnp.multiply}[reduction]
        out = pnp.where(hit, combine(base, seg), base)
        out = pnp.not_equal(out, 0) if dtype == "bool" else cast(out, dtype)
    return pnp.reshape(out, target)


# Kernel contract: scatter_update(inputs, indices, updates, reduction) gets int32 indices
# (N, k), updates of inputs's dtype and a canonical reduction (None/"add"/"max"/"min"/
# "mul"); None: the last of duplicate updates wins; negative indices wrap once;
# out-of-range rows are dropped (only under a trace: eagerly the prepare hook raises first).


# ----- slice / slice_update ------------------------------------------------------------------


def _static_starts(start_indices):
    """The start indices as Python ints, or None when any is a tensor."""
    if isinstance(start_indices, (list, tuple)) and all(
            isinstance(s, int) and not isinstance(s, bool) for s in start_indices):
        return [int(s) for s in start_indices]
    if isinstance(start_indices, np.ndarray) and start_indices.dtype.kind in "iu":
        return [int(s) for s in start_indices.reshape(-1)]
    return None


def _check_starts(op, start_indices, rank):
    if isinstance(start_indices, (list, tuple)):
        n = len(start_indices)
    else:
        s = tuple(getattr(start_indices, "shape", np.shape(start_indices)))
        n = s[0] if len(s) == 1 else -1
    if n is not None and n != rank:
        raise ValueError(f"{op}: expected {rank} start indices (one per dim of inputs), "
                         f"got {start_indices!r:.60}")


def _slice_sizes(op, in_shape, starts, shape):
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{op}: expected a shape (a tuple of ints), got {shape!r}") from None
    if len(shape) != len(in_shape):
        raise ValueError(f"{op}: shape {shape} must have one size per dim of inputs "
                         f"{tuple(in_shape)}")
    out = []
    for ax, (d, s) in enumerate(zip(in_shape, shape)):
        if s == -1:
            if starts is None or d is None:
                out.append(None if d is None or starts is None else d)
                continue
            s = d - min(max(starts[ax], 0), d)
        if s < 0:
            raise ValueError(f"{op}: expected sizes >= 0 (or -1), got shape={shape}")
        if d is not None and s > d:
            raise ValueError(f"{op}: slice size {s} exceeds dim {ax} of size {d} "
                             f"(inputs shape {tuple(in_shape)})")
        out.append(s)
    return tuple(out)


def _slice_prepare(inputs, start_indices, shape):
    in_shape = tuple(_shape_of(inputs))
    _check_starts("slice", start_indices, len(in_shape))
    _slice_sizes("slice", in_shape, _static_starts(start_indices), shape)
    return inputs, start_indices, shape


@defop("core", tensors=("inputs",), prepare=_slice_prepare)
def slice(inputs, start_indices, shape):
    """The block of ``inputs`` of size ``shape`` starting at ``start_indices``.

    ``start_indices`` are ints or an int tensor (traceable); each start is clamped to
    ``[0, dim - size]`` so that the block fits (as XLA's dynamic_slice; TF would raise).
    A size of -1 takes the rest of the dim (static starts only).  Keras:
    ``keras.ops.slice``; JAX: ``jax.lax.dynamic_slice``.

    Example:
        >>> polyops.ops.slice(polyops.ops.arange(10), [2], [3])
        array([2, 3, 4], dtype=int32)
    """
    in_shape = shape_of(inputs)
    _check_starts("slice", start_indices, len(in_shape))
    sizes = _slice_sizes("slice", in_shape, _static_starts(start_indices), shape)
    return spec(sizes, inputs.dtype)


@slice.reference
def _slice_ref(inputs, start_indices, shape):
    pnp = _np()
    in_shape = tuple(_shape_of(inputs))
    starts = _static_starts(start_indices)
    sizes = _slice_sizes("slice", in_shape, starts, shape)
    if starts is not None:
        key_ = tuple(builtins.slice(min(max(s, 0), d - n), min(max(s, 0), d - n) + n)
                     for s, d, n in zip(starts, in_shape, sizes))
        return pnp.get_item(inputs, key_) if key_ else inputs
    x = inputs
    for ax, (d, n) in enumerate(zip(in_shape, sizes)):
        if n == d:
            continue
        s = pnp.clip(cast(start_indices[ax], "int32"), 0, d - n)
        x = pnp.take(x, s + pnp.arange(n, dtype="int32"), axis=ax)
    return x


# Kernel contract: slice(inputs, start_indices, shape) gets start_indices as given (ints or
# an int tensor) and shape as given (-1 allowed); starts clamp so that the block fits.


@_promote.cached
def _slice_update_promote(keys):
    (d,) = _promote.preserve((keys[0],))
    return d, d


def _slice_update_prepare(inputs, start_indices, updates):
    _slice_update_check(tuple(_shape_of(inputs)), start_indices, tuple(_shape_of(updates)))
    return inputs, start_indices, updates


def _slice_update_check(in_shape, start_indices, u_shape):
    _check_starts("slice_update", start_indices, len(in_shape))
    if len(u_shape) != len(in_shape):
        raise ValueError(f"slice_update: updates must have the rank of inputs {tuple(in_shape)}, "
                         f"got shape {tuple(u_shape)}")
    for ax, (d, u) in enumerate(zip(in_shape, u_shape)):
        if d is not None and u is not None and u > d:
            raise ValueError(f"slice_update: updates shape {tuple(u_shape)} exceeds inputs "
                             f"shape {tuple(in_shape)} in dim {ax}")


@defop("core", tensors=("inputs", "updates"), promote=_slice_update_promote,
       prepare=_slice_update_prepare)
def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block starting at ``start_indices`` replaced by ``updates`` (cast
    to ``inputs``'s dtype).

    Starts are clamped to ``[0, dim - updates_dim]`` so that the block fits, as XLA's
    dynamic_update_slice; they may be ints or an int tensor.  Keras:
    ``keras.ops.slice_update``; JAX: ``jax.lax.dynamic_update_slice``.

    Example:
        >>> polyops.ops.slice_update(polyops.ops.zeros((5,)), [1], polyops.ops.ones((2,)))
        array([0., 1., 1., 0., 0.], dtype=float32)
    """
    in_shape, u_shape = shape_of(inputs), shape_of(updates)
    _slice_update_check(in_shape, start_indices, u_shape)
    return spec(in_shape, _slice_update_promote((key(inputs), key(updates)))[0])


@slice_update.reference
def _slice_update_ref(inputs, start_indices, updates):
    pnp = _np()
    in_shape = tuple(_shape_of(inputs))
    u_shape = tuple(_shape_of(updates))
    if any(u == 0 for u in u_shape):
        return inputs
    starts = _static_starts(start_indices)
    gathered = updates
    mask = None
    for ax, (d, u) in enumerate(zip(in_shape, u_shape)):
        if starts is not None:
            s = min(max(starts[ax], 0), d - u)
        else:
            s = pnp.clip(cast(start_indices[ax], "int32"), 0, d - u)
        pos = pnp.arange(d, dtype="int32") - s
        inside = (pos >= 0) & (pos < u)
        gathered = pnp.take(gathered, pnp.clip(pos, 0, u - 1), axis=ax)
        shape = [1] * len(in_shape)
        shape[ax] = d
        inside = pnp.reshape(inside, shape)
        mask = inside if mask is None else mask & inside
    if mask is None:  # 0-d
        return updates
    return pnp.where(mask, gathered, inputs)


# Kernel contract: slice_update(inputs, start_indices, updates) gets updates already of
# inputs's dtype and the starts as given; starts clamp so that the block fits.


# ----- saturate_cast / stop_gradient ---------------------------------------------------------


def _range_of(dtype):
    if dtype == "bool":
        return 0, 1
    if dtype in _dtypes.INT_TYPES:
        i = np.iinfo(dtype)
        return int(i.min), int(i.max)
    f = _dtypes.numpy_finfo(dtype)
    return float(f.min), float(f.max)


def _limit(value, src, toward):
    """``value`` as the nearest number of dtype ``src`` on the ``toward`` side of it (float
    sources cannot hold every integer bound: float32 holds 2**31, not 2**31 - 1)."""
    if src in _dtypes.INT_TYPES or src == "bool":
        return int(value)
    nd = _dtypes.numpy_dtype(src)
    v = np.asarray(value, np.float64).astype(nd)
    if toward < 0 and float(v) > value or toward > 0 and float(v) < value:
        v = np.nextafter(v, np.asarray(toward * np.inf, nd))  # one step, in src's own dtype
    return float(v)


def _saturate_prepare(x, dtype):
    return x, dtype_arg("saturate_cast", dtype)


@defop("core", tensors=("x",), promote=_promote.ordered(_promote.preserve),
       prepare=_saturate_prepare)
def saturate_cast(x, dtype):
    """Cast to ``dtype``, first clipping values to the range ``dtype`` can hold (float ->
    integer: into the integer range, NaN -> 0; wider float -> narrower float: +-inf and
    out-of-range values to the largest finite values).  Keras: ``keras.ops.saturate_cast``.

    Example:
        >>> polyops.ops.saturate_cast(polyops.ops.array([-1.0, 300.0]), "uint8")
        array([  0, 255], dtype=uint8)
    """
    if dtype is None:
        raise TypeError("saturate_cast: expected a dtype, got dtype=None")
    _promote.ordered(_promote.preserve)((key(x),))
    return spec(shape_of(x), dtype_arg("saturate_cast", dtype))


@saturate_cast.reference
def _saturate_cast_ref(x, dtype):
    pnp = _np()
    src = _dtype_of(x)
    if src == dtype or dtype == "bool" or src == "bool":
        return cast(x, dtype)
    lo_t, hi_t = _range_of(dtype)
    lo_s, hi_s = _range_of(src)
    to_int = src in _dtypes.FLOAT_TYPES and dtype not in _dtypes.FLOAT_TYPES
    if lo_t <= lo_s and hi_s <= hi_t and not to_int:  # (inf and NaN need the clip to ints)
        return cast(x, dtype)
    lo = _limit(max(lo_t, lo_s), src, +1)
    hi = _limit(min(hi_t, hi_s), src, -1)
    y = pnp.clip(x, lo, hi)
    if to_int:
        y = pnp.where(pnp.isnan(x), pnp.zeros((), src), y)
    return cast(y, dtype)


@defop("core", tensors=("variable",), elementwise="unary")
def stop_gradient(variable):
    """``variable`` as a value that gradients do not flow through (``jax.lax.stop_gradient``,
    ``tf.stop_gradient``, ``Tensor.detach``); the identity where nothing differentiates.
    Keras: ``keras.ops.stop_gradient``.  On a differentiating backend,
    ``polyops.grad(lambda x: polyops.ops.sum(x * polyops.ops.stop_gradient(x)))(x)`` is ``x``.

    Example:
        >>> polyops.ops.stop_gradient(polyops.ops.convert_to_tensor([1.0, 2.0]))
        array([1., 2.], dtype=float32)
    """
    from .._base import check_tensor

    check_tensor("stop_gradient", "variable", variable)
    return spec(shape_of(variable), _promote.preserve((key(variable),))[0])


@stop_gradient.reference
def _stop_gradient_ref(variable):
    return variable


# ----- plain functions: unstack, rearrange, custom_gradient -----------------------------------


def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis``, as a list.  Keras: ``keras.ops.unstack``.

    ``num`` is needed when that dim is unknown (a SymbolicTensor's None); when given it
    must equal the dim.

    Example:
        >>> polyops.ops.unstack(polyops.ops.ones((2, 3)))   # two tensors of shape (3,)
    """
    pnp = _np()
    shape = tuple(_shape_of(x))
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"unstack: axis {axis} is out of range for shape {shape}")
    axis %= len(shape)
    n = shape[axis]
    if n is None:
        if num is None:
            raise ValueError(f"unstack: dim {axis} of shape {shape} is unknown; pass num=")
        n = num
    elif num is not None and num != n:
        raise ValueError(f"unstack: num={num} but dim {axis} of shape {shape} is {n}")
    lead = (builtins.slice(None),) * axis
    return [pnp.get_item(x, lead + (i,)) for i in range(n)]


_GROUP = re.compile(r"\(([\w\s]*)\)|\w+")


def _parse_side(op, side):
    items = []
    for m in _GROUP.finditer(side):
        items.append(m.group(1).split() if m.group(1) is not None else [m.group(0)])
    rest = _GROUP.sub("", side).strip()
    if rest:
        raise ValueError(f"{op}: unexpected {rest!r} in pattern side {side!r} "
                         "(expected names and parenthesized groups)")
    return items


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, merge and split axes by an einops pattern, as ``keras.ops.rearrange``:
    ``"b h w c -> b c h w"``, ``"b h w c -> b (h w c)"``,
    ``"b (h1 h) w c -> (b h1) h w c"`` with ``h1=2``.

    Each name on the left appears once on the right; a group on the left splits a dim
    (all but one of its sizes given in ``axes_lengths``), a group on the right merges dims.

    Example:
        >>> polyops.ops.rearrange(polyops.ops.ones((2, 3, 4)), "a b c -> c (a b)").shape
        (4, 6)
    """
    pnp = _np()
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"rearrange: expected a pattern 'left -> right', got {pattern!r}")
    left, right = (s.strip() for s in pattern.split("->"))
    lhs, rhs = _parse_side("rearrange", left), _parse_side("rearrange", right)
    shape = tuple(_shape_of(tensor))
    if len(lhs) != len(shape):
        raise ValueError(f"rearrange: pattern {left!r} has {len(lhs)} axes, tensor shape "
                         f"{shape} has {len(shape)}")
    names_l = [a for g in lhs for a in g]
    names_r = [a for g in rhs for a in g]
    if sorted(names_l) != sorted(names_r) or len(set(names_l)) != len(names_l):
        raise ValueError(f"rearrange: the names on each side must be the same, each once: "
                         f"{names_l} vs {names_r}")
    for a in axes_lengths:
        if a not in names_l:
            raise ValueError(f"rearrange: axis length {a}= names no axis of {pattern!r}")
    sizes: dict = {}
    for group, d in zip(lhs, shape):
        unknown = [a for a in group if a not in axes_lengths]
        known = _math.prod(int(axes_lengths[a]) for a in group if a in axes_lengths)
        if len(group) == 1 and not unknown:
            if d is not None and int(axes_lengths[group[0]]) != d:
                raise ValueError(f"rearrange: {group[0]}={axes_lengths[group[0]]} but the dim is {d}")
        if len(unknown) > 1:
            raise ValueError(f"rearrange: group ({' '.join(group)}) needs the lengths of all "
                             f"but one of its axes")
        for a in group:
            if a in axes_lengths:
                sizes[a] = int(axes_lengths[a])
        if unknown:
            if d is None:
                sizes[unknown[0]] = None
            elif known == 0 or d % known:
                raise ValueError(f"rearrange: dim {d} does not split into "
                                 f"({' '.join(group)}) with {axes_lengths}")
            else:
                sizes[unknown[0]] = d // known
        elif d is not None and known != d:
            raise ValueError(f"rearrange: group ({' '.join(group)}) has size {known}, dim is {d}")

    def size(group):
        vals = [sizes[a] for a in group]
        return None if any(v is None for v in vals) else _math.prod(vals)

    split = [sizes[a] for a in names_l]
    x = tensor
    if len(split) != len(shape) or any(s != d for s, d in zip(split, shape)):
        x = pnp.reshape(x, tuple(-1 if s is None else s for s in split))
    perm = [names_l.index(a) for a in names_r]
    if perm != sorted(perm):
        x = pnp.transpose(x, perm)
    out = tuple(size(g) for g in rhs)
    if len(out) != len(names_r) or any(o != sizes[a] for o, a in zip(out, names_r)):
        if sum(o is None for o in out) > 1:
            raise ValueError(f"rearrange: more than one output dim of {pattern!r} is unknown")
        x = pnp.reshape(x, tuple(-1 if o is None else o for o in out))
    return x


def custom_gradient(f):
    """Decorate ``f`` whose call returns ``(output, grad_fn)``; the result computes ``output``
    and differentiates through ``grad_fn(upstream)`` (the cotangent of ``output``) on jax,
    tensorflow and torch.  As in Keras, ``grad_fn`` may take ``*args, upstream=None``.
    Keras: ``keras.ops.custom_gradient``.

    Example:
        >>> @polyops.ops.custom_gradient
        ... def clip_grad(x):
        ...     def grad(upstream):
        ...         return polyops.ops.clip(upstream, -1.0, 1.0)
        ...     return x, grad
    """
    if not callable(f):
        raise TypeError(f"custom_gradient: expected a callable, got {type(f).__name__}")

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        from ..._registry import current
        from ..._tree import leaves

        rt = current().runtime
        if rt.custom_gradient is None or any(isinstance(a, SymbolicTensor) for a in leaves(args)):
            return f(*args, **kwargs)[0]
        args = tuple(convert_to_tensor(a) if not callable(a) else a for a in args)
        return rt.custom_gradient(lambda *a: f(*a, **kwargs))(*args)

    return wrapper


__all__ = [
    "SaturateCast", "Scatter", "ScatterUpdate", "Slice", "SliceUpdate", "StopGradient",
    "custom_gradient", "rearrange", "saturate_cast", "scatter", "scatter_update", "slice",
    "slice_update", "stop_gradient", "unstack",
]

_finish(globals())
