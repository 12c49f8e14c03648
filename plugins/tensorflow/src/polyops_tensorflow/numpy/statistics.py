"""TensorFlow kernels of ``polyops.ops.numpy.statistics``: order statistics (median,
quantile...) and NaN-ignoring reductions (nanmean, nanargmax...).
"""

from __future__ import annotations

import builtins

import numpy as np
import tensorflow as tf

from polyops.plugin import nonempty, quantile_plan

from ..core import NP_DTYPES
from ._common import _BOOL, _COMPLEX, _FLOATS, _INT32, _axis, _ints, _np_scalar
from .base import argmax, argmin, max, mean, min, prod, sum

# ===== NaN-ignoring reductions ======================================================


def _nan_of(x):
    """Where x is NaN (a complex number: either part), as np.isnan."""
    return tf.not_equal(x, x)


def _nan_filled(x, value):
    if x.dtype in _FLOATS or x.dtype in _COMPLEX:
        return tf.where(_nan_of(x), tf.constant(value, x.dtype), x)
    return x


def _unreduce(out, axis):
    """A keepdims result of ``axis`` (None: all) with the reduced axes dropped."""
    if axis is None:
        return tf.reshape(out, _ints(()))
    return tf.squeeze(out, list(axis)) if axis else out


def nansum(x, axis, keepdims):
    return sum(_nan_filled(x, 0), axis, keepdims)  # x arrives in the accumulation dtype


def nanprod(x, axis, keepdims):
    return prod(_nan_filled(x, 1), axis, keepdims, None)


def _nan_count_sum(x, axis):
    """(sum of the non-NaN values, their count) over ``axis`` with keepdims, in x's dtype."""
    nan = _nan_of(x)
    ax = _axis(axis)
    total = tf.reduce_sum(tf.where(nan, tf.zeros((), x.dtype), x), ax, True)
    count = tf.cast(tf.reduce_sum(tf.cast(tf.logical_not(nan), _INT32), ax, True), x.dtype)
    return total, count


def nanmean(x, axis, keepdims):
    # floating (ints arrive as floatx) or complex
    total, count = _nan_count_sum(x, axis)
    out = tf.math.truediv(total, count)
    return out if keepdims else _unreduce(out, axis)


def _nanvar(x, axis, keepdims):
    total, count = _nan_count_sum(x, axis)
    nan = _nan_of(x)
    centered = tf.where(nan, tf.zeros((), x.dtype), tf.subtract(x, tf.math.truediv(total, count)))
    out = tf.math.truediv(tf.reduce_sum(tf.multiply(centered, centered), _axis(axis), True), count)
    return out if keepdims else _unreduce(out, axis)


def nanvar(x, axis, keepdims):
    return _nanvar(x, axis, keepdims)


def nanstd(x, axis, keepdims):
    return tf.sqrt(_nanvar(x, axis, keepdims))


def _nan_extremum(name, reduce, fill):
    def kernel(x, axis, keepdims):
        d = x.dtype
        if d not in _FLOATS:
            return reduce(x, axis, keepdims, None)
        nan = tf.math.is_nan(x)
        out = reduce(tf.where(nan, tf.constant(fill, d), x), axis, keepdims, None)
        return tf.where(tf.reduce_all(nan, _axis(axis), keepdims), tf.constant(np.nan, d), out)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


nanmax = _nan_extremum("nanmax", max, -np.inf)
nanmin = _nan_extremum("nanmin", min, np.inf)


def _nan_arg(name, arg, fn, fill):
    def kernel(x, axis, keepdims):
        d = x.dtype
        if d not in _FLOATS:
            return arg(x, axis, keepdims)
        ndim = x.shape.rank
        flat = axis is None
        if flat:
            x, axis = tf.reshape(x, _ints((-1,))), 0
        # NaN as the identity (-inf for max): a NaN ahead of an only -inf wins the tie
        nan = tf.math.is_nan(x)
        out = fn(tf.where(nan, tf.constant(fill, d), x), axis, output_type=_INT32)
        out = tf.where(tf.reduce_all(nan, axis), tf.constant(-1, _INT32), out)
        if not keepdims:
            return out
        return tf.reshape(out, _ints((1,) * ndim)) if flat else tf.expand_dims(out, axis)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


nanargmax = _nan_arg("nanargmax", argmax, tf.argmax, -np.inf)
nanargmin = _nan_arg("nanargmin", argmin, tf.argmin, np.inf)


def ptp(x, axis, keepdims):
    hi, lo = max(x, axis, keepdims, None), min(x, axis, keepdims, None)
    if x.dtype is _BOOL:
        return tf.not_equal(hi, lo)
    return tf.subtract(hi, lo)  # ints wrap, as NumPy


# ===== order statistics =============================================================


def _lines(x, axis):
    """x (16-bit floats widened) with the reduced axes (None: all) moved last and
    flattened into one: (lines of shape kept + [n], n, kept, the keepdims shape)."""
    rank = x.shape.rank
    axes = tuple(range(rank)) if axis is None else tuple(axis)
    shape = x.shape.as_list()
    kept = [i for i in range(rank) if i not in axes]
    perm = kept + list(axes)
    if perm != list(range(rank)):
        x = tf.transpose(x, _ints(perm))
    kept_shape = [shape[i] for i in kept]
    n = 1
    for a in axes:
        n *= shape[a]
    if len(axes) != 1:
        x = tf.reshape(x, _ints(kept_shape + [n]))
    keep_shape = [1 if i in axes else s for i, s in enumerate(shape)]
    return x, n, kept_shape, keep_shape


def _shaped(out, kept_shape, keep_shape, keepdims):
    """A (kept)-shaped result as the reduction's result."""
    if keepdims and len(keep_shape) != len(kept_shape):
        return tf.reshape(out, _ints(keep_shape))
    return out


def _nan_sorted(x2):
    """Each line sorted with NaN as +inf (the first ``count`` entries are the non-NaN
    values in order), and where x2 is NaN."""
    nan = tf.math.is_nan(x2)
    return tf.sort(tf.where(nan, tf.constant(np.inf, x2.dtype), x2), axis=-1), nan


def _at(s, pos):
    """``s[..., pos[...]]``: one entry of each line (pos of s's shape without the last dim)."""
    b = s.shape.rank - 1
    return tf.squeeze(tf.gather(s, tf.expand_dims(pos, -1), axis=b, batch_dims=b), -1)


def _median_family(name, skip_nan):
    # x arrives floating (ints and bools as floatx)
    def kernel(x, axis, keepdims):
        x2, n, kept, keep = _lines(x, axis)
        w = x2.dtype
        s, nan = _nan_sorted(x2)
        half = tf.constant(0.5, w)
        if skip_nan:
            count = tf.subtract(tf.constant(n, _INT32), tf.reduce_sum(tf.cast(nan, _INT32), -1))
            one, zero = tf.constant(1, _INT32), tf.constant(0, _INT32)
            lo = tf.maximum(tf.math.floordiv(tf.subtract(count, one), tf.constant(2, _INT32)), zero)
            hi = tf.minimum(tf.math.floordiv(count, tf.constant(2, _INT32)),
                            tf.maximum(tf.subtract(count, one), zero))
            a, b = _at(s, lo), _at(s, hi)
            out = tf.where(tf.equal(lo, hi), a, tf.multiply(tf.add(a, b), half))
            bad = tf.equal(count, zero)
        else:
            a = s[..., (n - 1) // 2]
            out = a if n % 2 else tf.multiply(tf.add(a, s[..., n // 2]), half)
            bad = tf.reduce_any(nan, -1)
        out = tf.where(bad, tf.constant(np.nan, w), out)
        return _shaped(out, kept, keep, keepdims)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# (an empty line has no median: NaN, core's fill; `nonempty`)
median = nonempty(_median_family("median", False))
nanmedian = nonempty(_median_family("nanmedian", True))


def _quantile_family(name, scale, skip_nan):
    def kernel(x, q, axis, method, keepdims):

        d = x.dtype  # floating (ints and bools arrive as floatx)
        qs = q if isinstance(q, tuple) else (q,)
        lead = [len(qs)] if isinstance(q, tuple) else []
        if scale != 1:
            qs, int_q = tuple(float(v) / scale for v in qs), False
        else:
            int_q = builtins.all(isinstance(v, int) for v in qs)
        x2, n, kept, keep = _lines(x, axis)
        out_shape = lead + (keep if keepdims else kept)
        if not qs:
            return tf.fill(_ints(out_shape), tf.constant(np.nan, d))
        w = x2.dtype
        nw = NP_DTYPES[w.name]
        k = len(qs)
        s, nan = _nan_sorted(x2)
        b = len(kept)
        if skip_nan:
            count = tf.subtract(tf.constant(n, _INT32), tf.reduce_sum(tf.cast(nan, _INT32), -1))
            sizes = np.arange(n + 1, dtype=np.int64)
            plans = [quantile_plan(sizes, float(v) if not int_q else v, method, int_q) for v in qs]

            def pick(arrays, dtype):  # (k, n + 1) table -> kept + [k], per line's count
                table = tf.constant(np.stack(arrays).T.astype(dtype))  # (n + 1, k)
                return tf.gather(table, count)
        else:
            plans = [quantile_plan(np.array([n], np.int64), v, method, int_q) for v in qs]

            def pick(arrays, dtype):  # kept + [k] by broadcasting
                return tf.constant(np.stack(arrays).reshape(k).astype(dtype))

        def values(arrays):
            pos = pick(arrays, np.int32)
            if not skip_nan:
                return tf.gather(s, pos, axis=b)
            return tf.gather(s, pos, axis=b, batch_dims=b)

        out = values([p[0] for p in plans])
        gammas = [p[2] for p in plans]
        if gammas[0] is not None:  # NumPy's _lerp: a + (b - a) * g, or b - (b - a) * (1 - g)
            a, hi = out, values([p[1] for p in plans])
            diff = tf.subtract(hi, a)
            g, g1 = pick(gammas, nw), pick([1 - g for g in gammas], nw)
            ge = pick([g >= 0.5 for g in gammas], np.bool_)
            out = tf.where(ge, tf.subtract(hi, tf.multiply(diff, g1)), tf.add(a, tf.multiply(diff, g)))
        bad = tf.equal(count, 0) if skip_nan else tf.reduce_any(nan, -1)
        out = tf.where(tf.expand_dims(bad, -1), tf.constant(np.nan, w), out)  # kept + [k]
        out = tf.transpose(out, _ints([b] + list(range(b)))) if b else out  # [k] + kept
        if keepdims and len(keep) != b:
            out = tf.reshape(out, _ints([k] + keep))
        if not lead:
            out = tf.reshape(out, _ints(out_shape))
        return out

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


quantile = nonempty(_quantile_family("quantile", 1, False))
percentile = nonempty(_quantile_family("percentile", 100, False))
nanquantile = nonempty(_quantile_family("nanquantile", 1, True))
nanpercentile = nonempty(_quantile_family("nanpercentile", 100, True))


# ===== weighted mean, correlation ===================================================


def average(x, axis, weights):
    if weights is None:
        return mean(x, axis, False)
    w = weights  # x and weights share the floating result dtype
    if weights.shape.rank != x.shape.rank:  # 1-D along the one axis
        shape = [1] * x.shape.rank
        shape[axis[0]] = -1
        w = tf.reshape(w, _ints(shape))
    ax = _axis(axis)
    total = tf.reduce_sum(tf.multiply(x, w), ax)
    scale = tf.reduce_sum(w, ax)
    zero = tf.equal(scale, tf.zeros((), w.dtype))
    return tf.where(zero, _np_scalar(np.nan, w.dtype), tf.math.truediv(total, scale))


def corrcoef(x):
    xf = x  # floating (ints arrive as floatx)
    one_d = x.shape.rank == 1
    if one_d:
        xf = tf.reshape(xf, _ints((1, -1)))
    centered = tf.subtract(xf, tf.reduce_mean(xf, 1, True))
    c = tf.linalg.matmul(centered, centered, transpose_b=True)  # the 1/(D-1) cancels
    sd = tf.sqrt(tf.linalg.diag_part(c))
    c = tf.math.truediv(tf.math.truediv(c, tf.expand_dims(sd, 1)), tf.expand_dims(sd, 0))
    one = tf.ones((), c.dtype)
    c = tf.minimum(tf.maximum(c, tf.negative(one)), one)  # NaN stays
    return tf.reshape(c, _ints(())) if one_d else c
