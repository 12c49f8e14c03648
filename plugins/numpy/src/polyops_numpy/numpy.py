"""NumPy kernels for the ``numpy`` op family.

Kernels take the op's arguments positionally; tensors arrive as ndarrays already
promoted, axes canonical (None or a tuple of non-negative ints), dtypes as
canonical strings.  A kernel keeps the input dtype unless the op says otherwise.
"""

from __future__ import annotations

import builtins
import math

import ml_dtypes
import numpy as np
import polyops

from .core import NP_DTYPES


def full(shape, fill_value, dtype):
    return np.full(shape, fill_value, dtype=NP_DTYPES[dtype])


def arange(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=NP_DTYPES[dtype])


abs = np.absolute
negative = np.negative
exp = np.exp
log = np.log
sqrt = np.sqrt
sin = np.sin
cos = np.cos
tanh = np.tanh
sign = np.sign
floor = np.floor
ceil = np.ceil
square = np.square


def round(x, decimals):
    if x.dtype == np.bool_:  # np.round(bool) would give float16
        return x.copy()
    return np.round(x, decimals)


add = np.add
subtract = np.subtract
multiply = np.multiply
divide = np.true_divide
floor_divide = np.floor_divide
mod = np.mod
power = np.power
maximum = np.maximum
minimum = np.minimum
equal = np.equal
not_equal = np.not_equal
less = np.less
less_equal = np.less_equal
greater = np.greater
greater_equal = np.greater_equal
logical_and = np.logical_and
logical_or = np.logical_or
logical_not = np.logical_not
where = np.where


_LOW_FLOATS = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def sum(x, axis, keepdims):
    if x.dtype in _LOW_FLOATS:  # accumulate in float32, as JAX does: bfloat16 stalls at 256
        return np.sum(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(x.dtype)
    # dtype= keeps int32 from widening to the platform int.
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def prod(x, axis, keepdims, dtype):
    if x.dtype in _LOW_FLOATS:
        return np.prod(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(x.dtype)
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def max(x, axis, keepdims, initial):
    if initial is None:
        return np.max(x, axis=axis, keepdims=keepdims)
    return np.max(x, axis=axis, keepdims=keepdims, initial=initial)


def min(x, axis, keepdims, initial):
    if initial is None:
        return np.min(x, axis=axis, keepdims=keepdims)
    return np.min(x, axis=axis, keepdims=keepdims, initial=initial)


def argmax(x, axis, keepdims):
    return np.argmax(x, axis=axis, keepdims=keepdims).astype(np.int32)


def argmin(x, axis, keepdims):
    return np.argmin(x, axis=axis, keepdims=keepdims).astype(np.int32)


def all(x, axis, keepdims):
    return np.all(x, axis=axis, keepdims=keepdims)


def any(x, axis, keepdims):
    return np.any(x, axis=axis, keepdims=keepdims)


reshape = np.reshape
transpose = np.transpose


def concatenate(xs, axis):
    return np.concatenate(xs, axis=axis)


broadcast_to = np.broadcast_to


def take(x, indices, axis):
    return np.take(x, indices, axis=axis)


def get_item(x, key):
    return x[key]


_BF16 = NP_DTYPES["bfloat16"]


def matmul(x1, x2):
    if x1.dtype == _BF16:  # ml_dtypes has no bfloat16 matmul loop: accumulate in float32
        return np.matmul(x1.astype(np.float32), x2.astype(np.float32)).astype(_BF16)
    return np.matmul(x1, x2)


def einsum(subscripts, *operands):
    if operands and operands[0].dtype == _BF16:
        wide = [o.astype(np.float32) for o in operands]
        return np.einsum(subscripts, *wide).astype(_BF16)
    return np.einsum(subscripts, *operands)


# ----- catalogue primitives ------------------------------------------------------------

arctan2 = np.arctan2
bitwise_and = np.bitwise_and
bitwise_or = np.bitwise_or
bitwise_xor = np.bitwise_xor
bitwise_invert = np.invert


def _shift_count(x, y):
    """Counts clipped to [0, bits]: NumPy's (C's) shift by >= the width is undefined."""
    bits = x.dtype.itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype), y >= bits


def left_shift(x, y):
    count, over = _shift_count(x, y)
    return np.where(over, np.zeros((), x.dtype), np.left_shift(x, count))


def right_shift(x, y):
    count, over = _shift_count(x, y)
    # a count of bits-1 already gives 0 or -1 (arithmetic shift); larger counts keep that
    return np.where(over & (x.dtype.kind == "u"), np.zeros((), x.dtype), np.right_shift(x, count))


def view(x, dtype):
    return x.view(NP_DTYPES[dtype])


def argsort(x, axis):
    if x.dtype == _LOW_FLOATS[1]:  # ml_dtypes' bfloat16 sort does not put NaN last
        x = x.astype(np.float32)
    return np.argsort(x, axis=axis, kind="stable").astype(np.int32)


# ----- helpers of the catalogue kernels ------------------------------------------------


def _is_float(x):
    return x.dtype.kind == "f" or x.dtype == _BF16


def _wide(x):
    """float16/bfloat16 as float32 (accumulation, or a sort that puts NaN last)."""
    return x.astype(np.float32) if x.dtype in _LOW_FLOATS else x


def _ordered(x):
    """x in a dtype whose NumPy comparisons sort NaN last (bfloat16 as float32)."""
    return x.astype(np.float32) if x.dtype == _BF16 else x


def _i32(x):
    return np.asarray(x, dtype=np.int32)


# ----- products (polyops.ops.numpy.products) --------------------------------------------

outer = np.outer
kron = np.kron


def inner(x1, x2):
    return np.asarray(np.inner(_wide(x1), _wide(x2))).astype(x1.dtype, copy=False)


def vdot(x1, x2):
    return np.asarray(np.vdot(_wide(x1), _wide(x2))).astype(x1.dtype, copy=False)


def tensordot(x1, x2, axes):
    return np.tensordot(_wide(x1), _wide(x2), axes).astype(x1.dtype, copy=False)


def cross(x1, x2, axisa, axisb, axisc, axis):
    # NumPy's formulas, written out: np.cross warns on 2-component vectors (NumPy 2).
    a, b = np.moveaxis(x1, axisa, -1), np.moveaxis(x2, axisb, -1)
    n1, n2 = a.shape[-1], b.shape[-1]
    z = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if axisc is None:
        return z
    if n1 == 3 and n2 == 3:
        x = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
        y = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    elif n1 == 2:
        x, y = a[..., 1] * b[..., 2], -(a[..., 0] * b[..., 2])
    else:
        x, y = -(a[..., 2] * b[..., 1]), a[..., 2] * b[..., 0]
    return np.stack(np.broadcast_arrays(x, y, z), axis=axisc)


def trapezoid(y, x, dx, axis):
    out = np.trapezoid(_wide(y), None if x is None else _wide(x), dx, axis)
    return np.asarray(out).astype(y.dtype, copy=False)


def correlate(x1, x2, mode):
    return np.correlate(_wide(x1), _wide(x2), mode).astype(x1.dtype, copy=False)


def _window(np_fn):
    def kernel(x):
        # NumPy computes in float64; the result is floatx
        return np_fn(x).astype(NP_DTYPES[polyops.config.floatx()])

    kernel.__name__ = np_fn.__name__
    return kernel


bartlett = _window(np.bartlett)
blackman = _window(np.blackman)
hamming = _window(np.hamming)
hanning = _window(np.hanning)


def _log_i0(z):
    """log I0(z) for z >= 0: np.i0 below 700, where it would overflow the asymptotic series."""
    small = z <= 700.0
    zs, zl = np.where(small, z, 0.0), np.where(small, 701.0, z)
    big = zl - 0.5 * np.log(2 * np.pi * zl) + np.log1p(1 / (8 * zl) + 9 / (128 * zl**2))
    return np.where(small, np.log(np.i0(zs)), big)


def kaiser(x, beta):
    if builtins.abs(beta) <= 700.0:
        w = np.kaiser(x, beta)
    else:  # np.kaiser's i0(beta) overflows: take the ratio in log space
        alpha = (x - 1) / 2.0
        z = builtins.abs(beta) * np.sqrt(1 - ((np.arange(x) - alpha) / alpha) ** 2)
        w = np.exp(_log_i0(z) - _log_i0(np.float64(builtins.abs(beta))))
    return w.astype(NP_DTYPES[polyops.config.floatx()])


# ----- sorting, searching, counting (polyops.ops.numpy.sorting) --------------------------


def sort(x, axis):
    # stable, so -0.0 and 0.0 keep their order; bfloat16 in float32 for NaN last
    return np.sort(_ordered(x), axis=axis, kind="stable").astype(x.dtype, copy=False)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # polyops' contract: the stable argsort, a valid partition


def searchsorted(sorted_sequence, values, side):
    return _i32(np.searchsorted(_ordered(sorted_sequence), _ordered(values), side))


def digitize(x, bins):
    # np.digitize, without its monotonicity check (and for bool): searchsorted either way
    n = bins.shape[0]
    if n >= 2 and bins[-1] < bins[0]:
        return _i32(n - np.searchsorted(_ordered(bins[::-1]), _ordered(x), "right"))
    return _i32(np.searchsorted(_ordered(bins), _ordered(x), "right"))


def bincount(x, weights, minlength, sparse):
    rows = x.shape[:-1]
    x = x.astype(np.intp).reshape(math.prod(rows), x.shape[-1])
    flat = (x + minlength * np.arange(x.shape[0])[:, None]).ravel()  # row r counts at r * length
    total = x.shape[0] * minlength
    if weights is None:
        out = np.bincount(flat, minlength=total).astype(np.int32)
    elif _is_float(weights):  # float64 sums, rounded once
        out = np.bincount(flat, weights.ravel().astype(np.float64), total).astype(weights.dtype)
    else:  # integers wrap in their own dtype
        out = np.zeros(total, weights.dtype)
        np.add.at(out, flat, weights.ravel())
    return out.reshape(rows + (minlength,))


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    # np.unique's algorithm, with a stable sort: a group's value is its first occurrence
    flat = x.ravel()
    order = np.argsort(_ordered(flat), kind="stable")
    s = flat[order]
    new = np.ones(s.shape, bool)
    if s.size > 1:
        step = s[1:] != s[:-1]
        if _is_float(s):
            step &= ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
        new[1:] = step
    first = np.flatnonzero(new)
    m = first.size if size is None else size
    starts = np.concatenate([first, [s.size]])
    if m > first.size:  # pad: values with fill_value, index with 1, counts with 0
        pad = m - first.size
        fill = 0 if fill_value is None else fill_value
        values = np.concatenate([s[first], np.full(pad, fill, x.dtype)])
        index = np.concatenate([order[first], np.ones(pad, order.dtype)])
        counts = np.concatenate([np.diff(starts), np.zeros(pad, starts.dtype)])
    else:
        values, index, counts = s[first[:m]], order[first[:m]], np.diff(starts)[:m]
    outs = [values]
    if return_index:
        outs.append(_i32(index))
    if return_inverse:
        inverse = np.empty(flat.shape, np.int32)
        inverse[order] = np.cumsum(new) - 1
        outs.append(inverse.reshape(x.shape))
    if return_counts:
        outs.append(_i32(counts))
    return outs[0] if len(outs) == 1 else tuple(outs)


def nonzero(x):
    return tuple(_i32(i) for i in np.nonzero(x))


def isin(x1, x2, assume_unique, invert):
    # assume_unique only allows a faster path in polyops; NumPy's can be wrong without it
    return np.isin(_ordered(x1), _ordered(x2), invert=invert)


def count_nonzero(x, axis):
    return _i32(np.count_nonzero(x, axis=axis))


def _cumulative(np_fn, nan_to):
    def kernel(x, axis, dtype):
        if nan_to is not None and _is_float(x):
            x = np.where(np.isnan(x), np.asarray(nan_to, x.dtype), x)
        # float16/bfloat16 accumulate in float32 (as sum); dtype= keeps ints from widening
        wide = np.float32 if x.dtype in _LOW_FLOATS else x.dtype
        return np_fn(x, axis=axis, dtype=wide).astype(x.dtype, copy=False)

    kernel.__name__ = np_fn.__name__
    return kernel


cumsum = _cumulative(np.cumsum, None)
cumprod = _cumulative(np.cumprod, None)
nancumsum = _cumulative(np.cumsum, 0)
nancumprod = _cumulative(np.cumprod, 1)


# ----- elementwise (polyops.ops.numpy.elementwise) --------------------------------------


def _in_float32(np_fn):
    """np_fn, computed in float32 for float16/bfloat16 and rounded once (NumPy's float16
    loops do the same; ml_dtypes lacks some of these ufuncs for bfloat16)."""

    def kernel(*xs):
        d = xs[0].dtype
        if d in _LOW_FLOATS:
            return np.asarray(np_fn(*(x.astype(np.float32) for x in xs))).astype(d)
        return np_fn(*xs)

    kernel.__name__ = np_fn.__name__
    return kernel


fabs = _in_float32(np.fabs)
reciprocal = _in_float32(np.reciprocal)
expm1 = _in_float32(np.expm1)
log1p = _in_float32(np.log1p)
exp2 = _in_float32(np.exp2)
log2 = _in_float32(np.log2)
log10 = _in_float32(np.log10)
logaddexp = _in_float32(np.logaddexp)
logaddexp2 = _in_float32(np.logaddexp2)
cbrt = _in_float32(np.cbrt)
tan = _in_float32(np.tan)
arcsin = _in_float32(np.arcsin)
arccos = _in_float32(np.arccos)
arctan = _in_float32(np.arctan)
sinh = _in_float32(np.sinh)
cosh = _in_float32(np.cosh)
arcsinh = _in_float32(np.arcsinh)
arccosh = _in_float32(np.arccosh)
arctanh = _in_float32(np.arctanh)
deg2rad = _in_float32(np.deg2rad)
rad2deg = _in_float32(np.rad2deg)
sinc = _in_float32(np.sinc)
hypot = _in_float32(np.hypot)
heaviside = _in_float32(np.heaviside)
fmax = _in_float32(np.fmax)
fmin = _in_float32(np.fmin)
fmod = _in_float32(np.fmod)
gcd = np.gcd
lcm = np.lcm


def i0(x):
    # in float64: np.i0's exp(x) overflows float32 well before the result does
    return np.i0(x.astype(np.float64)).astype(x.dtype)


def trunc(x):
    return _in_float32(np.trunc)(x) if _is_float(x) else x.copy()


def ldexp(x1, x2):
    if x1.dtype in _LOW_FLOATS:  # exact in float32, then rounded once
        return np.ldexp(x1.astype(np.float32), x2).astype(x1.dtype)
    return np.ldexp(x1, x2)


def divide_no_nan(x1, x2):
    zero = x2 == 0
    return np.where(zero, np.zeros((), x1.dtype), x1 / np.where(zero, np.ones((), x2.dtype), x2))


# ----- logic and complex parts (polyops.ops.numpy.logic) ---------------------------------

logical_xor = np.logical_xor
isfinite = np.isfinite
isinf = np.isinf
isnan = np.isnan


def isneginf(x):
    return x == -np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isposinf(x):
    return x == np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isreal(x):
    return np.imag(x) == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool)


def signbit(x):
    if x.dtype == np.bool_:
        return np.zeros(x.shape, bool)
    return np.signbit(x) if _is_float(x) else x < 0


def isclose(x1, x2, rtol, atol, equal_nan):
    return np.isclose(_wide(x1), _wide(x2), rtol, atol, equal_nan)


def allclose(x1, x2, rtol, atol, equal_nan):
    return np.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    if x.dtype.kind not in "fc" and x.dtype != _BF16:  # ints and bools: unchanged
        return x
    # np.nan_to_num leaves bfloat16 (not an np.inexact type) alone: replace in float32
    return np.nan_to_num(_wide(x), nan=nan, posinf=posinf, neginf=neginf).astype(x.dtype)


def nextafter(x1, x2):
    # x2 where x1 == x2, in every dtype: NumPy's float16 loop gives x1 (-0.0 towards 0.0)
    return np.where(x1 == x2, x2, np.nextafter(x1, x2))


real = np.real
imag = np.imag


def conjugate(x):
    return np.conjugate(x) if x.dtype.kind == "c" else x


def angle(x):
    if x.dtype in _LOW_FLOATS:
        return np.angle(x.astype(np.float32)).astype(x.dtype)
    return np.angle(x)
