"""TensorFlow kernels of ``polyops.ops.numpy.sorting``: sort, search and count
(argsort, unique, searchsorted, bincount, cumsum...).

tf orders NaN arbitrarily: the kernels sort with NaN as +inf and then move the NaNs
last, NumPy's order.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from polyops.plugin import nonempty

from ._common import (
    _BOOL,
    _COMPLEX,
    _F32,
    _FLOATS,
    _HALF,
    _INT32,
    _INT64,
    _axis_len,
    _host_view,
    _ints,
    _np_scalar,
    _restore,
)


def argsort(x, axis):
    """Stable argsort with NaN last, as NumPy: tf.argsort orders NaN arbitrarily, so the
    values sort with NaN as +inf, then a second stable pass moves the NaNs behind."""
    if axis is None or x.shape.rank == 0:
        x, axis = tf.reshape(x, [-1]), 0
    if x.dtype in (_BOOL, tf.int8, tf.uint8, tf.int16, tf.uint16):
        x = tf.cast(x, _INT32)  # order-preserving; tf.argsort lacks narrow kernels
    elif x.dtype in _HALF:
        x = tf.cast(x, tf.float32)  # exact: the order is the same
    if x.dtype not in _FLOATS or _no_nan(x):  # eagerly, NaN-free values need one pass
        return tf.argsort(x, axis=axis, stable=True)  # int32
    last = x.shape.rank - 1
    if axis != last:  # work along the last axis, where gather's batch_dims fits
        perm = [i for i in range(last + 1) if i != axis] + [axis]
        back = [perm.index(i) for i in range(last + 1)]
        return tf.transpose(argsort(tf.transpose(x, perm), last), back)
    nan = tf.math.is_nan(x)
    first = tf.argsort(tf.where(nan, tf.constant(np.inf, x.dtype), x), axis=last, stable=True)
    late = tf.cast(tf.gather(nan, first, axis=last, batch_dims=last), _INT32)
    second = tf.argsort(late, axis=last, stable=True)
    return tf.cast(tf.gather(first, second, axis=last, batch_dims=last), _INT32)


def _no_nan(x):
    """Whether x is known NaN-free (an eager tensor in CPU memory, checked on the host)."""
    host = _host_view(x)
    return host is not None and not np.isnan(host).any()


def _is_float(x):
    return x.dtype in _FLOATS


@nonempty  # tf's TopK gradient raises on zero-size input (range delta 0)
def sort(x, axis):
    if axis is None:
        x, axis = tf.reshape(x, _ints((-1,))), 0
    d = x.dtype
    if d is _BOOL:  # no tf kernel: sort as 0/1
        return tf.cast(tf.sort(tf.cast(x, tf.uint8), axis=axis), d)
    if d not in _FLOATS or _no_nan(x):
        return tf.sort(x, axis=axis)
    # tf.sort places NaN anywhere: sort with NaN as +inf, then the last k entries of a
    # line holding k NaNs are those NaNs (every other entry there is +inf)
    nan = tf.math.is_nan(x)
    out = tf.sort(tf.where(nan, tf.constant(np.inf, d), x), axis=axis)
    count = tf.reduce_sum(tf.cast(nan, _INT32), axis, keepdims=True)
    n = _axis_len(x, axis)
    shape = [1] * x.shape.rank
    shape[axis] = -1
    pos = tf.reshape(tf.range(n, dtype=_INT32), _ints(shape))
    return tf.where(tf.greater_equal(pos, tf.subtract(n, count)), tf.constant(np.nan, d), out)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # the stable argsort is a valid partition for every kth


def searchsorted(sorted_sequence, values, side):
    seq, v = sorted_sequence, values
    if seq.dtype is _BOOL:
        seq, v = tf.cast(seq, tf.uint8), tf.cast(v, tf.uint8)
    flat = tf.reshape(v, _ints((1, -1)))
    if not _is_float(seq):
        out = tf.searchsorted(tf.reshape(seq, _ints((1, -1))), flat, side=side, out_type=_INT32)
        return tf.reshape(out, tf.shape(v))
    # NumPy's order puts NaN after +inf (tf compares NaN as neither < nor >): search with
    # NaN as +inf, then clip to the number k of non-NaN entries; a NaN value goes to k
    # (left) or after everything (right)
    d = seq.dtype
    inf = tf.constant(np.inf, d)
    nan_s = tf.math.is_nan(seq)
    n = tf.size(seq, out_type=_INT32)
    k = tf.subtract(n, tf.reduce_sum(tf.cast(nan_s, _INT32)))
    seq = tf.reshape(tf.where(nan_s, inf, seq), _ints((1, -1)))
    nan_v = tf.math.is_nan(flat)
    out = tf.minimum(tf.searchsorted(seq, tf.where(nan_v, inf, flat), side=side, out_type=_INT32), k)
    out = tf.where(nan_v, k if side == "left" else n, out)
    return tf.reshape(out, tf.shape(v))


def digitize(x, bins):
    # np.digitize(right=False): searchsorted(bins, x, "right") for increasing bins,
    # n - searchsorted(bins[::-1], x, "right") for decreasing ones (bins[-1] < bins[0])
    up = searchsorted(bins, x, "right")
    n = bins.shape[0]
    if n is not None and n < 2:
        return up
    down = tf.subtract(tf.size(bins, out_type=_INT32), searchsorted(tf.reverse(bins, _ints((0,))), x, "right"))
    cmp = bins if bins.dtype is not _BOOL else tf.cast(bins, tf.uint8)
    return tf.where(tf.less(cmp[-1], cmp[0]), down, up)


# weight dtypes tf.math.bincount lacks -> the dtype to sum in (ints wrap to the same bits)
_BINCOUNT_WORK = {
    tf.bool: _INT32, tf.int8: _INT32, tf.int16: _INT32, tf.uint8: _INT32, tf.uint16: _INT32,
    tf.uint32: _INT64, tf.uint64: _INT64, tf.bfloat16: _F32, tf.float16: _F32,
}


def bincount(x, weights, minlength, sparse):
    x = tf.cast(x, _INT32)
    axis = -1 if x.shape.rank == 2 else None
    if weights is None:
        return tf.math.bincount(x, minlength=minlength, maxlength=minlength, dtype=_INT32, axis=axis)
    d = weights.dtype
    work = _BINCOUNT_WORK.get(d, d)
    w = tf.cast(weights, work) if work != d else weights
    out = tf.math.bincount(x, weights=w, minlength=minlength, maxlength=minlength, dtype=work, axis=axis)
    return _restore(out, d) if work != d else out


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    d = x.dtype
    shape = x.shape
    flat = tf.reshape(x, _ints((-1,)))
    fill = _np_scalar(0 if fill_value is None else fill_value, d)
    n = flat.shape[0]
    if n == 0:
        m = size or 0
        outs = [tf.fill(_ints((m,)), fill), tf.ones((m,), _INT32), tf.zeros(shape, _INT32),
                tf.zeros((m,), _INT32)]
    else:
        order = argsort(flat, 0)
        s = tf.gather(flat, order)
        a, b = s[1:], s[:-1]
        step = tf.not_equal(a, b)
        if _is_float(s):  # NaNs are one value (-0.0 == 0.0 already)
            step = tf.logical_and(step, tf.logical_not(tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b))))
        new = tf.concat([tf.ones((1,), _BOOL), step], 0)
        starts = tf.cast(tf.reshape(tf.where(new), _ints((-1,))), _INT32)  # first sorted position of each
        total = tf.size(flat, out_type=_INT32)
        values = tf.gather(s, starts)
        index = tf.gather(order, starts)
        counts = tf.subtract(tf.concat([starts[1:], tf.reshape(total, _ints((1,)))], 0), starts)
        inverse = None
        if return_inverse:
            group = tf.subtract(tf.cumsum(tf.cast(new, _INT32)), tf.constant(1, _INT32))
            inverse = tf.reshape(tf.scatter_nd(tf.expand_dims(order, 1), group, tf.reshape(total, _ints((1,)))),
                                 tf.shape(x))
        if size is not None:
            def fit(t, pad):
                t = t[:size]
                t = tf.pad(t, tf.reshape(tf.stack([0, size - tf.size(t, out_type=_INT32)]), _ints((1, 2))),
                           constant_values=pad)
                return tf.ensure_shape(t, (size,))

            values = fit(values, fill)
            index = fit(index, tf.constant(1, _INT32))
            counts = fit(counts, tf.constant(0, _INT32))
        outs = [values, index, inverse, counts]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [o for o, k in zip(outs, keep) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def nonzero(x):
    mask = tf.not_equal(x, tf.zeros((), x.dtype))  # NaN is nonzero
    coords = tf.cast(tf.where(mask), _INT32)  # row-major, as np.nonzero
    return tuple(coords[:, i] for i in range(x.shape.rank))


def isin(x1, x2, assume_unique, invert):
    m = x2.shape.num_elements()
    if x1.dtype in _COMPLEX or m is None or m <= 8:
        found = tf.reduce_any(tf.equal(tf.expand_dims(x1, -1), tf.reshape(x2, _ints((-1,)))), -1)
    else:  # binary search in the sorted x2 (NaN last, equal to nothing)
        s = sort(tf.reshape(x2, _ints((-1,))), 0)
        idx = tf.minimum(searchsorted(s, x1, "left"), tf.constant(m - 1, _INT32))
        found = tf.equal(tf.gather(s, idx), x1)
    return tf.logical_not(found) if invert else found


def count_nonzero(x, axis):
    return tf.math.count_nonzero(x, axis=None if axis is None else list(axis), dtype=_INT32)


def _cumulative(name, fn, nan_to):
    def kernel(x, axis, dtype):
        if axis is None:
            x, axis = tf.reshape(x, _ints((-1,))), 0
        d = x.dtype
        if nan_to is not None:
            if d in _FLOATS:
                x = tf.where(tf.math.is_nan(x), tf.constant(nan_to, d), x)
            elif d in _COMPLEX:  # np.isnan of a complex: either part is NaN
                nan = tf.logical_or(tf.math.is_nan(tf.math.real(x)), tf.math.is_nan(tf.math.imag(x)))
                x = tf.where(nan, tf.constant(nan_to, d), x)
        if d is _BOOL:  # dtype="bool": NumPy's logical or / and accumulate
            return tf.not_equal(fn(tf.cast(x, _INT32), axis), tf.zeros((), _INT32))
        if d in _HALF:  # accumulate in float32, round once
            return tf.cast(fn(tf.cast(x, _F32), axis), d)
        return fn(x, axis)  # ints wrap in their own dtype

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


cumsum = _cumulative("cumsum", tf.math.cumsum, None)
cumprod = _cumulative("cumprod", tf.math.cumprod, None)
nancumsum = _cumulative("nancumsum", tf.math.cumsum, 0)
nancumprod = _cumulative("nancumprod", tf.math.cumprod, 1)
