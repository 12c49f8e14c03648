"""TensorFlow kernels of ``polyops.ops.numpy.indexing``: creation of structured arrays,
triangles and diagonals, gathers along an axis, pad.
"""

from __future__ import annotations

import builtins

import numpy as np
import tensorflow as tf

from polyops.plugin import nonempty, pad_index

from ..core import NP_DTYPES, TF_DTYPES, EagerTensor
from ._common import (
    _F32,
    _F64,
    _INT32,
    _INT64,
    _INTS,
    _axis_len,
    _host_view,
    _ints,
    _np_scalar,
    _valid_index,
)
from .base import max, min, sum, take
from .sorting import sort

# ===== gathers along an axis ========================================================


def _to_last(x, axis):
    """x with ``axis`` moved last, and the permutation that moves it back (None: no move)."""
    last = x.shape.rank - 1
    if axis == last:
        return x, None
    perm = [i for i in range(last + 1) if i != axis] + [axis]
    back = [perm.index(i) for i in range(last + 1)]
    return tf.transpose(x, _ints(perm)), back


def _from_last(x, back):
    return x if back is None else tf.transpose(x, _ints(back))


def take_along_axis(x, indices, axis):
    if axis is None:
        return take(x, indices, None)  # x flattened, indices 1-D
    n = _axis_len(x, axis)
    host = _host_view(indices)
    if host is None or host.min(initial=0) < 0:  # count negative indices from the end
        indices = tf.where(tf.less(indices, tf.constant(0, _INT32)),
                           tf.add(indices, tf.cast(n, _INT32)), indices)
    x, back = _to_last(x, axis)
    indices, _ = _to_last(indices, axis)
    xs, js = x.shape, indices.shape
    if xs[:-1] != js[:-1] or not xs[:-1].is_fully_defined():  # broadcast off the axis
        if xs.is_fully_defined() and js.is_fully_defined():
            batch = tf.broadcast_static_shape(xs[:-1], js[:-1]).as_list()
            if batch != xs[:-1].as_list():
                x = tf.broadcast_to(x, _ints(batch + [xs[-1]]))
            if batch != js[:-1].as_list():
                indices = tf.broadcast_to(indices, _ints(batch + [js[-1]]))
        else:
            sx, sj = tf.shape(x, out_type=_INT32), tf.shape(indices, out_type=_INT32)
            batch = tf.broadcast_dynamic_shape(sx[:-1], sj[:-1])
            x = tf.broadcast_to(x, tf.concat([batch, sx[-1:]], 0))
            indices = tf.broadcast_to(indices, tf.concat([batch, sj[-1:]], 0))
    last = x.shape.rank - 1
    if type(indices) is EagerTensor:  # core raised on out-of-range indices
        return _from_last(tf.gather(x, indices, axis=last, batch_dims=last), back)
    indices, valid = _valid_index(indices, n)
    out = tf.gather(x, indices, axis=last, batch_dims=last)
    return _from_last(tf.where(valid, out, tf.zeros_like(out)), back)


# ===== creation and triangles =======================================================


def array(x, dtype):
    from ..core import cast

    out = cast(x, dtype)
    return tf.identity(out) if out is x else out


def copy(x):
    return tf.identity(x)


def empty(shape, dtype):
    return tf.zeros(_ints(shape), TF_DTYPES[dtype])


def empty_like(x, dtype):
    return tf.zeros_like(x, TF_DTYPES[dtype])


def identity(n, dtype):
    return tf.eye(n, dtype=TF_DTYPES[dtype])


def _band(n, m, k):
    """bool (n, m): ``j <= i + k``."""
    rows = tf.reshape(tf.range(n, dtype=_INT32), _ints((-1, 1)))
    return tf.less_equal(tf.range(m, dtype=_INT32), tf.add(rows, tf.constant(k, _INT32)))


def tri(N, M, k, dtype):
    # static ints: NumPy's on the host, one constant
    return tf.constant(np.tri(N, M, k, NP_DTYPES[dtype]), TF_DTYPES[dtype])


def tril(x, k):
    m = x.shape[-1]
    if k >= 0 and m is not None:  # keeps j - i <= k (tf rejects a band wider than the matrix)
        return tf.linalg.band_part(x, tf.constant(-1, _INT64), tf.constant(k if k < m else -1, _INT64))
    mask = _band(_axis_len(x, -2), _axis_len(x, -1), k)
    return tf.where(mask, x, tf.zeros((), x.dtype))


def triu(x, k):
    n = x.shape[-2]
    if k <= 0 and n is not None:  # keeps i - j <= -k
        return tf.linalg.band_part(x, tf.constant(-k if -k < n else -1, _INT64), tf.constant(-1, _INT64))
    mask = _band(_axis_len(x, -2), _axis_len(x, -1), k - 1)
    return tf.where(mask, tf.zeros((), x.dtype), x)


# ===== diagonals ====================================================================


def diagonal(x, offset, axis1, axis2):
    rank = x.shape.rank
    rest = [i for i in range(rank) if i not in (axis1, axis2)]
    perm = rest + [axis1, axis2]
    if perm != list(range(rank)):
        x = tf.transpose(x, _ints(perm))
    n, m = x.shape[-2], x.shape[-1]
    if n is not None and m is not None:
        size = builtins.max(0, builtins.min(n, m - offset) if offset >= 0 else builtins.min(n + offset, m))
        if size == 0:  # tf rejects an offset outside the matrix
            return tf.zeros(tf.concat([tf.shape(x, out_type=_INT32)[:-2], _ints((0,))], 0), x.dtype)
    if type(x) is EagerTensor:  # tf's kernel itself (tf.linalg.diag_part's wrapper: ~5 us)
        zero = _ZEROS.get(x.dtype)
        if zero is None:
            zero = _ZEROS[x.dtype] = tf.zeros((), x.dtype)
        return tf.raw_ops.MatrixDiagPartV3(input=x, k=offset, padding_value=zero)
    return tf.linalg.diag_part(x, k=offset)  # x[..., i, i + offset]


_ZEROS: dict = {}  # dtype -> an eager scalar 0 (diagonal's padding value, never read)


def trace(x, offset, axis1, axis2):
    d = diagonal(x, offset, axis1, axis2)  # x is in the accumulation dtype already
    return sum(d, (d.shape.rank - 1,), False)


@nonempty  # tf's diag gradient raises on an empty vector
def diag(x, k):
    if x.shape.rank == 2:
        return diagonal(x, k, 0, 1)
    return tf.linalg.diag(x, k=k)  # a square matrix of side n + |k|


def diagflat(x, k):
    return diag(tf.reshape(x, _ints((-1,))), k)


# ===== index arithmetic, select, grids ==============================================


def unravel_index(indices, shape):
    coords, rem = [], indices
    for d in reversed(shape[1:]):  # floor division: NumPy's coordinates for valid indices
        if d == 0:  # only with empty indices (core rejects the rest)
            coords.append(tf.zeros_like(rem))
            continue
        c = tf.constant(d, _INT32)
        coords.append(tf.math.floormod(rem, c))
        rem = tf.math.floordiv(rem, c)
    if shape:
        coords.append(rem)
    return tuple(reversed(coords))


def select(condlist, choicelist, default):
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = tf.where(cond, choice, out)
    shapes = [t.shape for t in (*condlist, *choicelist, default)]
    if builtins.all(s.is_fully_defined() for s in shapes):
        shape = shapes[0]
        for s in shapes[1:]:
            shape = tf.broadcast_static_shape(shape, s)
        return out if out.shape == shape else tf.broadcast_to(out, _ints(shape.as_list()))
    shape = tf.shape(out, out_type=_INT32)
    for t in (*condlist, *choicelist, default):
        shape = tf.broadcast_dynamic_shape(shape, tf.shape(t, out_type=_INT32))
    return tf.broadcast_to(out, shape)


def meshgrid(*args):
    *x, indexing = args  # the tensors, then indexing
    n = len(x)
    flat = [tf.reshape(t, _ints((-1,))) for t in x]
    sizes = [_axis_len(t, 0) for t in flat]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = _ints(sizes) if builtins.all(isinstance(s, int) for s in sizes) else tf.stack(sizes)
    out = []
    for i, t in enumerate(flat):
        pos = i if indexing == "ij" or n < 2 or i > 1 else 1 - i
        dims = [1] * n
        dims[pos] = -1
        out.append(tf.broadcast_to(tf.reshape(t, _ints(dims)), shape))
    return out


def vander(x, N, increasing):
    n = x.shape[0]
    if N == 0:
        return tf.zeros((n, 0), x.dtype)
    # NumPy's multiply.accumulate of [1, x, x, ...]: each power rounds (or wraps) once
    col = tf.reshape(x, _ints((n, 1)))
    cols = tf.concat([tf.ones((n, 1), x.dtype), tf.broadcast_to(col, _ints((n, N - 1)))], 1)
    out = tf.math.cumprod(cols, 1)
    return out if increasing else tf.reverse(out, _ints((1,)))


# ===== pad ==========================================================================


def _pad_stat(t, axis, mode, d):
    """The statistic of ``t`` along ``axis`` (keepdims) in ``d``, as core's reference pads."""
    from ..core import cast

    if mode == "maximum":
        return max(t, (axis,), True, None)
    if mode == "minimum":
        return min(t, (axis,), True, None)
    f = tf.cast(t, _F64 if d is _F64 else _F32)
    if mode == "mean":
        stat = tf.reduce_mean(f, axis, True)
    else:  # median: NaN if the line has one, else the middle (mean of the two middle ones)
        n = t.shape[axis]
        s = sort(f, axis)
        lead = (slice(None),) * axis
        stat = s[lead + (slice((n - 1) // 2, n // 2 + 1),)]
        if n % 2 == 0:
            stat = tf.reduce_mean(stat, axis, True)
        nan = tf.reduce_any(tf.math.is_nan(f), axis, True)
        stat = tf.where(nan, tf.constant(np.nan, f.dtype), stat)
    if d in _INTS:
        stat = tf.round(stat)  # half to even
    return cast(stat, d.name)


def _pad_ramp(edge, width, axis, reverse, d):
    from ..core import cast

    work = _F64 if d is _F64 else _F32
    shape = [1] * edge.shape.rank
    shape[axis] = width
    j = np.arange(width)[::-1] if reverse else np.arange(width)
    ramp = tf.math.truediv(tf.multiply(tf.cast(edge, work), tf.constant(j.reshape(shape), work)),
                           tf.constant(float(width), work))
    if d in _INTS:
        ramp = tf.floor(ramp)
    return cast(ramp, d.name)


def pad(x, pad_width, mode, constant_values):
    rank = x.shape.rank
    if rank == 0:
        return x
    d = x.dtype
    if mode == "constant":
        return tf.pad(x, _ints(pad_width), constant_values=_np_scalar(constant_values, d))
    shape = x.shape.as_list()
    out = [None if s is None else s + b + a for s, (b, a) in zip(shape, pad_width)]
    if mode in ("reflect", "symmetric"):
        # tf.pad reflects once: widths up to n - 1 (reflect) or n (symmetric)
        reach = 1 if mode == "reflect" else 0
        if builtins.all(s is not None and b + reach <= s and a + reach <= s
                        for s, (b, a) in zip(shape, pad_width)):
            return tf.pad(x, _ints(pad_width), mode=mode.upper())
    for axis, (b, a) in enumerate(pad_width):
        if not (b or a):
            continue
        n = x.shape[axis]
        if mode in ("edge", "reflect", "symmetric", "wrap"):
            x = tf.gather(x, _ints(pad_index(n, b, a, mode)), axis=axis)
            continue
        lead = (slice(None),) * axis
        if mode == "linear_ramp":
            parts = [_pad_ramp(x[lead + (slice(0, 1),)], b, axis, False, d) if b else None, x,
                     _pad_ramp(x[lead + (slice(n - 1, n),)], a, axis, True, d) if a else None]
        else:  # NumPy pads axis by axis: later statistics see the earlier padding
            stat = _pad_stat(x, axis, mode, d)
            dims = x.shape.as_list()

            def fill(w):
                return tf.broadcast_to(stat, _ints(dims[:axis] + [w] + dims[axis + 1:]))

            parts = [fill(b) if b else None, x, fill(a) if a else None]
        x = tf.concat([p for p in parts if p is not None], axis)
    return x
