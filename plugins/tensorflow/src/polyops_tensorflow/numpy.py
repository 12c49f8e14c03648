"""TensorFlow kernels for the ``numpy`` op family.

Kernels take the op's arguments positionally; tensors arrive as tf tensors
already promoted, axes canonical (None or a tuple of non-negative ints), dtypes
as canonical strings.  A kernel keeps the input dtype unless the op says
otherwise.  Where a tf op has no CPU kernel for a dtype, or its semantics differ
from NumPy's, the kernel works in another dtype or patches the result; the
common dtypes (float32, int32) go straight to the tf op.
"""

from __future__ import annotations

import builtins

import numpy as np
import tensorflow as tf

from polyops.plugin import SplitKernel, pad_index, quantile_plan

from .core import NP_DTYPES, TF_DTYPES, EagerTensor

_BOOL = tf.bool
_INT32 = tf.int32
_INT64 = tf.int64
_UNSIGNED = frozenset({tf.uint8, tf.uint16, tf.uint32, tf.uint64})
_INTS = frozenset({tf.int8, tf.int16, tf.int32, tf.int64}) | _UNSIGNED
_FLOATS = frozenset({tf.bfloat16, tf.float16, tf.float32, tf.float64})
_COMPLEX = frozenset({tf.complex64, tf.complex128})
_NO_ABS = _UNSIGNED | {_BOOL}
_InvalidArgument = tf.errors.InvalidArgumentError


def _ints(values):
    # tf converts a tuple argument (shape, perm, axes) to a tensor ~10x slower
    # than tf.constant does.
    return tf.constant(values, _INT32)


def _host_view(x):
    """x as a NumPy array when that is free (an eager tensor in CPU memory), else None.

    Lets a kernel check its input eagerly for the rare case that needs a patch
    (NaN in argmax, negative indices in take) instead of always paying for it.
    """
    if type(x) is EagerTensor and "device:CPU" in x.backing_device:
        return x.numpy()
    return None


def _axis(axis):
    """A canonical reduction axis (None or a sorted tuple) in tf's fastest form."""
    if axis is None:
        return None
    if len(axis) == 1:
        return axis[0]
    return tf.constant(axis, _INT32)


# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    # np.full's conversion of the fill value (truncation, overflow errors).
    return tf.fill(_ints(shape), tf.constant(np.full((), fill_value, NP_DTYPES[dtype]), TF_DTYPES[dtype]))


def arange(start, stop, step, dtype):
    # NumPy decides the length and the values (tf.range sizes floats in the
    # result dtype and can differ by one element).
    return tf.constant(np.arange(start, stop, step, dtype=NP_DTYPES[dtype]), TF_DTYPES[dtype])


# ===== elementwise ==================================================================


def abs(x):
    if x.dtype in _NO_ABS:  # no tf kernel; |x| is x
        return x
    return tf.abs(x)


def negative(x):
    if x.dtype in _UNSIGNED:  # wraps, as NumPy
        return tf.subtract(tf.zeros_like(x), x)
    return tf.negative(x)


exp = tf.exp
log = tf.math.log
sqrt = tf.sqrt
sin = tf.sin
cos = tf.cos
tanh = tf.tanh
floor = tf.floor
ceil = tf.math.ceil
square = tf.square


def sign(x):
    if x.dtype in _UNSIGNED:
        return tf.cast(tf.greater(x, tf.zeros((), x.dtype)), x.dtype)
    return tf.sign(x)


def round(x, decimals):
    d = x.dtype
    if d in _FLOATS:
        if decimals == 0:
            return tf.round(x)
        # np.round: scale in the input dtype, round half to even, scale back.
        if decimals > 0:
            f = tf.constant(10.0 ** decimals, d)
            return tf.math.truediv(tf.round(tf.multiply(x, f)), f)
        f = tf.constant(10.0 ** -decimals, d)
        return tf.multiply(tf.round(tf.math.truediv(x, f)), f)
    if d in _COMPLEX:
        return tf.complex(round(tf.math.real(x), decimals), round(tf.math.imag(x), decimals))
    if d is _BOOL or decimals >= 0:  # ints (and bool) are already round
        return x
    # ints, negative decimals: NumPy computes in float64 and casts back
    f = tf.constant(10.0 ** -decimals, tf.float64)
    return tf.cast(tf.multiply(tf.round(tf.math.truediv(tf.cast(x, tf.float64), f)), f), d)


def _add(x1, x2):
    if x1.dtype is _BOOL:
        return tf.logical_or(x1, x2)
    return tf.add(x1, x2)


# the eager fast paths call tf.add itself for every dtype but bool (no wrapper frame)
_NOT_BOOL = [name for name in TF_DTYPES if name != "bool"]
add = SplitKernel(tf.add, _add, _NOT_BOOL)


subtract = tf.subtract  # bool raises, as in NumPy


def _multiply(x1, x2):
    if x1.dtype is _BOOL:
        return tf.logical_and(x1, x2)
    return tf.multiply(x1, x2)


multiply = SplitKernel(tf.multiply, _multiply, _NOT_BOOL)


divide = tf.math.truediv


def _int_safe(fn, x1, x2):
    """``fn`` on ints, with NumPy's 0 where the divisor is 0 (tf raises there)."""
    if type(x1) is EagerTensor and type(x2) is EagerTensor:
        try:
            return fn(x1, x2)
        except _InvalidArgument:
            pass
    zero = tf.equal(x2, tf.zeros((), x2.dtype))
    out = fn(x1, tf.where(zero, tf.ones((), x2.dtype), x2))
    return tf.where(zero, tf.zeros((), out.dtype), out)


def floor_divide(x1, x2):
    d = x1.dtype
    if d in _INTS:
        return _int_safe(tf.math.floordiv, x1, x2)
    if d is _BOOL:  # a // 1 == a, a // 0 == 0
        return tf.logical_and(x1, x2)
    out = tf.math.floordiv(x1, x2)
    if d in _FLOATS:
        h1, h2 = _host_view(x1), _host_view(x2)
        if h1 is None or h2 is None or np.isinf(h1).any() or np.isinf(h2).any():
            out = _float_floordiv_inf(x1, x2, out)
    return out


def _float_floordiv_inf(x1, x2, out):
    """NumPy's floor division where an operand is infinite (tf floors ``x1 / x2``):
    inf // y is NaN for y != 0, and a finite x // inf is -1 when the signs differ."""
    zero = tf.zeros((), x1.dtype)
    minus_one = tf.logical_and(tf.math.is_inf(x2), tf.less(tf.multiply(x1, x2), zero))
    out = tf.where(minus_one, tf.constant(-1, x1.dtype), out)
    nan = tf.logical_and(tf.math.is_inf(x1), tf.not_equal(x2, zero))
    return tf.where(nan, tf.constant(np.nan, x1.dtype), out)


def mod(x1, x2):
    d = x1.dtype
    if d in _INTS:
        return _int_safe(tf.math.floormod, x1, x2)
    if d is _BOOL:  # a % 1 == a % 0 == 0
        return tf.zeros_like(tf.logical_and(x1, x2))
    return tf.math.floormod(x1, x2)


def power(x1, x2):
    d = x1.dtype
    if d in _UNSIGNED:  # no tf kernel; int64 wraps to the same low bits
        return tf.cast(tf.pow(tf.cast(x1, _INT64), tf.cast(x2, _INT64)), d)
    if d is _BOOL:  # a ** 0 == 1, a ** 1 == a
        return tf.logical_or(x1, tf.logical_not(x2))
    return tf.pow(x1, x2)


def maximum(x1, x2):
    if x1.dtype is _BOOL:
        return tf.logical_or(x1, x2)
    return tf.maximum(x1, x2)  # propagates NaN, as np.maximum


def minimum(x1, x2):
    if x1.dtype is _BOOL:
        return tf.logical_and(x1, x2)
    return tf.minimum(x1, x2)


def clip(x, x_min, x_max):
    # core's reference order (np.clip's): when x_min > x_max the result is x_max
    return minimum(maximum(x, x_min), x_max)


equal = tf.equal
not_equal = tf.not_equal


def _ordered(fn):
    def compare(x1, x2):
        if x1.dtype is _BOOL:  # no tf kernel; False < True
            return fn(tf.cast(x1, tf.uint8), tf.cast(x2, tf.uint8))
        return fn(x1, x2)

    compare.__name__ = compare.__qualname__ = fn.__name__
    return compare


less = _ordered(tf.less)
less_equal = _ordered(tf.less_equal)
greater = _ordered(tf.greater)
greater_equal = _ordered(tf.greater_equal)
logical_and = tf.logical_and
logical_or = tf.logical_or
logical_not = tf.logical_not
where = tf.where

# ===== reductions ===================================================================


def sum(x, axis, keepdims):
    return tf.reduce_sum(x, _axis(axis), keepdims)


def prod(x, axis, keepdims, dtype):
    return tf.reduce_prod(x, _axis(axis), keepdims)


def max(x, axis, keepdims, initial):
    axis = _axis(axis)
    if x.dtype is _BOOL:
        out = tf.reduce_any(x, axis, keepdims)
    else:
        out = tf.reduce_max(x, axis, keepdims)  # propagates NaN
    if initial is not None:
        out = maximum(out, tf.cast(initial, out.dtype))
    return out


def min(x, axis, keepdims, initial):
    axis = _axis(axis)
    if x.dtype is _BOOL:
        out = tf.reduce_all(x, axis, keepdims)
    else:
        out = tf.reduce_min(x, axis, keepdims)
    if initial is not None:
        out = minimum(out, tf.cast(initial, out.dtype))
    return out


def _arg_extremum(fn):
    def kernel(x, axis, keepdims):
        ndim = x.shape.rank
        if axis is None:
            x = tf.reshape(x, _ints((-1,)))
            out = kernel(x, 0, False)
            return tf.reshape(out, _ints((1,) * ndim)) if keepdims else out
        out = fn(x, axis, output_type=_INT32)
        if x.dtype in _FLOATS:
            # NumPy returns the first NaN (tf skips NaNs); eagerly, patch only when needed
            host = _host_view(x)
            if host is None or np.isnan(host).any():
                nan = tf.math.is_nan(x)
                out = tf.where(tf.reduce_any(nan, axis), tf.argmax(nan, axis, output_type=_INT32), out)
        return tf.expand_dims(out, axis) if keepdims else out

    kernel.__name__ = kernel.__qualname__ = fn.__name__
    return kernel


argmax = _arg_extremum(tf.argmax)
argmin = _arg_extremum(tf.argmin)


def all(x, axis, keepdims):
    return tf.reduce_all(x, _axis(axis), keepdims)


def any(x, axis, keepdims):
    return tf.reduce_any(x, _axis(axis), keepdims)


def mean(x, axis, keepdims):
    return tf.reduce_mean(x, _axis(axis), keepdims)


def var(x, axis, keepdims):
    return tf.math.reduce_variance(x, _axis(axis), keepdims)


def std(x, axis, keepdims):
    return tf.math.reduce_std(x, _axis(axis), keepdims)


# ===== shape ========================================================================

def reshape(x, newshape):
    return tf.reshape(x, _ints(newshape))


def transpose(x, axes):
    return tf.transpose(x, _ints(axes))


def concatenate(xs, axis):
    return tf.concat(xs, axis)


def broadcast_to(x, shape):
    return tf.broadcast_to(x, _ints(shape))


def _axes(axis, ndim):
    axes = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of bounds for rank {ndim}")
        axes.append(a + ndim if a < 0 else a)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return sorted(axes)


def expand_dims(x, axis):
    if isinstance(axis, int):
        return tf.expand_dims(x, axis)
    for a in _axes(axis, x.shape.rank + len(axis)):
        x = tf.expand_dims(x, a)
    return x


def squeeze(x, axis=None):
    if axis is None:
        return tf.squeeze(x)
    if isinstance(axis, int):
        return tf.squeeze(x, [axis])
    if not axis:  # tf.squeeze(x, []) would squeeze every size-1 dim
        return x
    return tf.squeeze(x, list(axis))


def stack(x, axis=0):
    return tf.stack(x, axis)


def take(x, indices, axis):
    if axis is None:
        x = tf.reshape(x, _ints((-1,)))
        axis = 0
    n = x.shape[axis]
    if n is None:
        n = tf.shape(x, out_type=_INT32)[axis]
    # tf.gather rejects negative indices: count them from the end
    host = _host_view(indices)
    if host is None or host.min(initial=0) < 0:
        indices = tf.where(tf.less(indices, tf.constant(0, _INT32)),
                           tf.add(indices, tf.constant(n, _INT32) if isinstance(n, int) else n), indices)
    if type(indices) is EagerTensor:  # core raised on out-of-range indices
        return tf.gather(x, indices, axis=axis)
    indices, valid = _valid_index(indices, n)
    out = tf.gather(x, indices, axis=axis)
    rank = x.shape.rank
    valid = tf.reshape(valid, tf.concat([tf.ones([axis], _INT32), tf.shape(valid, out_type=_INT32),
                                         tf.ones([rank - axis - 1], _INT32)], 0))
    return tf.where(valid, out, tf.zeros_like(out))


def _valid_index(indices, n):
    """Under a trace, (indices with those outside [0, n) sent to 0, which are inside):
    those outside read 0 (polyops' policy; tf.gather raises on the CPU, gives 0 on GPUs
    and XLA clamps)."""
    n = tf.constant(n, _INT32) if isinstance(n, int) else n
    valid = tf.logical_and(tf.greater_equal(indices, 0), tf.less(indices, n))
    return tf.where(valid, indices, tf.zeros_like(indices)), valid


def get_item(x, key):
    return x[key]


# ===== linear algebra ===============================================================

# dtypes tf has no matmul/einsum CPU kernel for -> the dtype to compute in
# (integer products wrap to the same low bits in a wider int)
_MATMUL_WORK = {
    tf.bool: _INT32, tf.int8: _INT32, tf.int16: _INT32, tf.uint8: _INT32,
    tf.uint16: _INT32, tf.uint32: _INT64, tf.uint64: _INT64,
}


def _restore(out, d):
    return tf.not_equal(out, tf.zeros((), out.dtype)) if d is _BOOL else tf.cast(out, d)


def _matmul(a, b):
    ra, rb = a.shape.rank, b.shape.rank
    if ra >= 2 and rb >= 2:
        return tf.linalg.matmul(a, b)
    if ra == 1 and rb == 1:
        return tf.reshape(tf.linalg.matmul(tf.expand_dims(a, 0), tf.expand_dims(b, 1)), _ints(()))
    if ra == 1:  # (n,) @ (..., n, m) -> (..., m)
        return tf.squeeze(tf.linalg.matmul(tf.expand_dims(a, 0), b), -2)
    return tf.squeeze(tf.linalg.matmul(a, tf.expand_dims(b, 1)), -1)


def matmul(x1, x2):
    d = x1.dtype
    work = _MATMUL_WORK.get(d)
    if work is None:
        return _matmul(x1, x2)
    return _restore(_matmul(tf.cast(x1, work), tf.cast(x2, work)), d)


def einsum(subscripts, *operands):
    d = operands[0].dtype if operands else None
    work = _MATMUL_WORK.get(d)
    if work is None:
        return tf.einsum(subscripts, *operands)
    return _restore(tf.einsum(subscripts, *(tf.cast(o, work) for o in operands)), d)



# ===== catalogue primitives ===========================================================


def arctan2(x1, x2):
    if x1.dtype in (tf.bfloat16, tf.float16):  # no half kernels on CPU
        return tf.cast(tf.math.atan2(tf.cast(x1, tf.float32), tf.cast(x2, tf.float32)), x1.dtype)
    return tf.math.atan2(x1, x2)


def _bitwise(int_fn, bool_fn):
    def kernel(x, y):
        return bool_fn(x, y) if x.dtype == _BOOL else int_fn(x, y)

    return kernel


bitwise_and = _bitwise(tf.bitwise.bitwise_and, tf.logical_and)
bitwise_or = _bitwise(tf.bitwise.bitwise_or, tf.logical_or)
bitwise_xor = _bitwise(tf.bitwise.bitwise_xor, tf.math.logical_xor)


def bitwise_invert(x):
    return tf.logical_not(x) if x.dtype == _BOOL else tf.bitwise.invert(x)


def _shift(fn, sign_fill):
    """Shifts with NumPy's result for counts >= the bit width (C leaves them undefined)."""

    def kernel(x, y):
        bits = x.dtype.size * 8
        out = fn(x, tf.clip_by_value(y, tf.zeros((), y.dtype), tf.constant(bits - 1, y.dtype)))
        if sign_fill and x.dtype not in _UNSIGNED:
            return out  # a count of bits - 1 already gives the sign fill
        return tf.where(y >= bits, tf.zeros((), x.dtype), out)

    return kernel


left_shift = _shift(tf.bitwise.left_shift, False)
right_shift = _shift(tf.bitwise.right_shift, True)


def view(x, dtype):
    """NumPy's ``x.view(dtype)`` with tf.bitcast (which adds or drops a trailing dim)."""
    target = TF_DTYPES[dtype]
    if x.dtype == target:
        return x
    src = tf.uint8 if x.dtype == _BOOL else x.dtype
    dst = tf.uint8 if target == _BOOL else target
    x = tf.cast(x, src) if src != x.dtype else x
    a, b = src.size, dst.size
    shape = x.shape.as_list()
    if a > b:
        out = tf.reshape(tf.bitcast(x, dst), shape[:-1] + [shape[-1] * (a // b)])
    elif a < b:
        out = tf.bitcast(tf.reshape(x, shape[:-1] + [shape[-1] * a // b, b // a]), dst)
    else:
        out = tf.bitcast(x, dst)
    return tf.cast(out, target) if dst != target else out


def argsort(x, axis):
    """Stable argsort with NaN last, as NumPy: tf.argsort orders NaN arbitrarily, so the
    values sort with NaN as +inf, then a second stable pass moves the NaNs behind."""
    if axis is None or x.shape.rank == 0:
        x, axis = tf.reshape(x, [-1]), 0
    if x.dtype in (_BOOL, tf.int8, tf.uint8, tf.int16, tf.uint16):
        x = tf.cast(x, _INT32)  # order-preserving; tf.argsort lacks narrow kernels
    elif x.dtype in (tf.bfloat16, tf.float16):
        x = tf.cast(x, tf.float32)
    if x.dtype not in _FLOATS:
        return tf.cast(tf.argsort(x, axis=axis, stable=True), _INT32)
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


# ===== base: flip, dot ================================================================

_HALF = frozenset({tf.bfloat16, tf.float16})
_F32 = tf.float32
_F64 = tf.float64


def flip(x, axis):
    # prepare checked the axes but hands them over as given (None, an int or a sequence)
    rank = x.shape.rank
    if axis is None:
        axes = list(range(rank))
    elif isinstance(axis, int):
        axes = [axis % rank]
    else:
        axes = [a % rank for a in axis]
    return tf.reverse(x, _ints(axes)) if axes else x


def dot(x1, x2):
    ra, rb = x1.shape.rank, x2.shape.rank
    if ra == 0 or rb == 0:
        return _multiply(x1, x2)
    if ra == 1 or rb == 1:
        return matmul(x1, x2)
    la = "abcdefghijklmnopqrstuvwxyz"[: ra - 1]
    lb = "abcdefghijklmnopqrstuvwxyz"[ra - 1: ra + rb - 3]
    last = "abcdefghijklmnopqrstuvwxyz"[ra + rb - 3]
    return einsum(f"{la}z,{lb}z{last}->{la}{lb}{last}", x1, x2)


# ===== elementwise (transcendental and arithmetic functions) ==========================


def _in_float32(fn):
    """A float kernel that computes float16/bfloat16 in float32 and rounds once, as
    NumPy's own half-precision loops do."""

    def kernel(x):
        d = x.dtype
        if d in _HALF:
            return tf.cast(fn(tf.cast(x, _F32)), d)
        return fn(x)

    kernel.__name__ = kernel.__qualname__ = getattr(fn, "__name__", "kernel")
    return kernel


def _in_float32_2(fn):
    def kernel(x1, x2):
        d = x1.dtype
        if d in _HALF:
            return tf.cast(fn(tf.cast(x1, _F32), tf.cast(x2, _F32)), d)
        return fn(x1, x2)

    kernel.__name__ = kernel.__qualname__ = getattr(fn, "__name__", "kernel")
    return kernel


fabs = tf.abs  # floats only (ints arrive as floatx, complex is rejected)


def trunc(x):
    if x.dtype not in _FLOATS:  # ints and bools are already whole
        return x
    return tf.where(tf.less(x, tf.zeros((), x.dtype)), tf.math.ceil(x), tf.floor(x))


reciprocal = tf.math.reciprocal  # floats and complex
expm1 = _in_float32(tf.math.expm1)
log1p = _in_float32(tf.math.log1p)
tan = _in_float32(tf.math.tan)
arcsin = _in_float32(tf.math.asin)
arccos = _in_float32(tf.math.acos)
arctan = _in_float32(tf.math.atan)
sinh = _in_float32(tf.math.sinh)
cosh = _in_float32(tf.math.cosh)
arcsinh = _in_float32(tf.math.asinh)
arccosh = _in_float32(tf.math.acosh)
arctanh = _in_float32(tf.math.atanh)


def i0(x):
    # Cephes' i0 in float64, as np.i0 (tf's float32 i0 overflows at |x| ~ 88.7, not ~91);
    # i0(+-inf) is NaN, as NumPy
    d = x.dtype
    if d is _F64:
        return tf.math.special.bessel_i0(x)
    return tf.cast(tf.math.special.bessel_i0(tf.cast(x, _F64)), d)


def _log_base(name, ln_base):
    def kernel(x):
        d = x.dtype
        if d is _F64:
            return tf.math.truediv(tf.math.log(x), tf.constant(ln_base, _F64))
        # float64 keeps log(x) / ln(base) exact to the rounding of the result
        # (log2(8) is 3, where float32 may give 2.9999998)
        return tf.cast(tf.math.truediv(tf.math.log(tf.cast(x, _F64)), tf.constant(ln_base, _F64)), d)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


log2 = _log_base("log2", float(np.log(2.0)))
log10 = _log_base("log10", float(np.log(10.0)))


def exp2(x):
    d = x.dtype
    if d in _HALF:
        return tf.cast(tf.pow(tf.constant(2.0, _F32), tf.cast(x, _F32)), d)
    return tf.pow(tf.constant(2.0, d), x)


def _logaddexp(scale):
    def fn(x1, x2):
        # max + log1p(exp(-|x1 - x2|)); equal operands (+-inf included) give x + log(2)
        d = x1.dtype
        delta = tf.abs(tf.subtract(x1, x2))
        if scale is None:
            tail = tf.math.log1p(tf.exp(tf.negative(delta)))
            same = tf.add(x1, tf.constant(np.log(2.0), d))
        else:
            tail = tf.math.truediv(tf.math.log1p(tf.pow(tf.constant(2.0, d), tf.negative(delta))),
                                   tf.constant(np.log(2.0), d))
            same = tf.add(x1, tf.constant(1.0, d))
        return tf.where(tf.equal(x1, x2), same, tf.add(tf.maximum(x1, x2), tail))

    return fn


logaddexp = _in_float32_2(_logaddexp(None))
logaddexp.__name__ = logaddexp.__qualname__ = "logaddexp"
logaddexp2 = _in_float32_2(_logaddexp(2))
logaddexp2.__name__ = logaddexp2.__qualname__ = "logaddexp2"


def hypot(x1, x2):
    d = x1.dtype
    a, b = tf.abs(x1), tf.abs(x2)
    if d is _F64:  # scaled: sqrt of the squares would overflow
        m, n = tf.maximum(a, b), tf.minimum(a, b)
        q = tf.math.divide_no_nan(n, m)
        r = tf.multiply(m, tf.sqrt(tf.add(tf.constant(1.0, d), tf.multiply(q, q))))
    else:  # float64 squares cannot overflow or underflow for float32 and narrower
        a64, b64 = tf.cast(a, _F64), tf.cast(b, _F64)
        r = tf.cast(tf.sqrt(tf.add(tf.multiply(a64, a64), tf.multiply(b64, b64))), d)
    inf = tf.logical_or(tf.math.is_inf(a), tf.math.is_inf(b))  # inf wins over NaN, as np.hypot
    return tf.where(inf, tf.constant(np.inf, d), r)


def heaviside(x1, x2):
    d = x1.dtype
    zero = tf.zeros((), d)
    step = tf.where(tf.less(x1, zero), zero, tf.where(tf.greater(x1, zero), tf.ones((), d), x1))
    return tf.where(tf.equal(x1, zero), x2, step)


def _nan_ignoring(fn):
    def kernel(x1, x2):
        r = fn(x1, x2)
        if x1.dtype not in _FLOATS:
            return r
        return tf.where(tf.math.is_nan(x2), x1, tf.where(tf.math.is_nan(x1), x2, r))

    kernel.__name__ = kernel.__qualname__ = "f" + fn.__name__[:3]
    return kernel


fmax = _nan_ignoring(maximum)
fmin = _nan_ignoring(minimum)

# dtypes tf.truncatemod lacks -> the dtype to compute in
_TRUNCMOD_WORK = {tf.int8: _INT32, tf.int16: _INT32, tf.bfloat16: _F32, tf.float16: _F32}


def fmod(x1, x2):
    d = x1.dtype
    if d in _UNSIGNED:  # non-negative operands: truncated == floored
        return mod(x1, x2)
    work = _TRUNCMOD_WORK.get(d)
    if work is not None:  # exact: the remainder fits both dtypes
        return tf.cast(fmod(tf.cast(x1, work), tf.cast(x2, work)), d)
    if d in _INTS:  # x % 0 is 0 (tf raises an InternalError there)
        h2 = _host_view(x2)
        if h2 is not None and h2.all():
            return tf.truncatemod(x1, x2)
        zero = tf.equal(x2, tf.zeros((), d))
        out = tf.truncatemod(x1, tf.where(zero, tf.ones((), d), x2))
        return tf.where(zero, tf.zeros((), d), out)
    return _float_fmod(x1, x2)


@tf.custom_gradient
def _float_fmod(x1, x2):
    """C's fmod (NaN for x % 0 and inf % y, x for x % inf), with the gradient tf lacks for
    TruncateMod: x1 - trunc(x1 / x2) * x2 gives 1 in x1 and -trunc(x1 / x2) in x2."""
    out = tf.truncatemod(x1, x2)

    def grad(g):
        d = x1 / x2  # trunc(x1 / x2), as jax's and torch's gradients of fmod
        q = tf.where(d < 0, tf.math.ceil(d), tf.math.floor(d))
        s1, s2 = tf.shape(x1), tf.shape(x2)
        r1, r2 = tf.raw_ops.BroadcastGradientArgs(s0=s1, s1=s2)
        return (tf.reshape(tf.reduce_sum(g * tf.ones_like(out), r1), s1),
                tf.reshape(tf.reduce_sum(-g * q, r2), s2))

    return out, grad


def _broadcast_pair(x1, x2):
    s1, s2 = x1.shape, x2.shape
    if s1.is_fully_defined() and s2.is_fully_defined():
        shape = tf.broadcast_static_shape(s1, s2)
        if shape == s1 and shape == s2:
            return x1, x2
        shape = _ints(shape.as_list())
    else:
        shape = tf.broadcast_dynamic_shape(tf.shape(x1), tf.shape(x2))
    return tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape)


def gcd(x1, x2):
    """Euclid's algorithm on |x1|, |x2|, iterating while any pair is unfinished."""
    a, b = _broadcast_pair(abs(x1), abs(x2))
    zero, one = tf.zeros((), a.dtype), tf.ones((), a.dtype)

    def step(a, b):
        live = tf.not_equal(b, zero)
        r = tf.math.floormod(a, tf.where(live, b, one))
        return tf.where(live, b, a), tf.where(live, r, zero)

    a, _ = tf.while_loop(lambda a, b: tf.reduce_any(tf.not_equal(b, zero)), step, (a, b))
    return abs(a)  # an INT_MIN operand can leave INT_MIN, as NumPy


def lcm(x1, x2):
    return _multiply(floor_divide(abs(x1), gcd(x1, x2)), abs(x2))  # lcm(0, 0) = 0 // 0 = 0


divide_no_nan = tf.math.divide_no_nan  # 0 where x2 == 0, NaN or inf x1 included


# ===== sorting, searching, counting ===================================================


def _is_float(x):
    return x.dtype in _FLOATS


def _axis_len(x, axis):
    n = x.shape[axis]
    return n if n is not None else tf.shape(x, out_type=_INT32)[axis]


def sort(x, axis):
    if axis is None:
        x, axis = tf.reshape(x, _ints((-1,))), 0
    if 0 in tuple(x.shape):  # nothing to sort; tf's TopK gradient raises there (range delta 0)
        return tf.identity(x)
    d = x.dtype
    if d is _BOOL:  # no tf kernel: sort as 0/1
        return tf.cast(tf.sort(tf.cast(x, tf.uint8), axis=axis), d)
    if d not in _FLOATS:
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


def _np_scalar(value, d):
    return tf.constant(np.full((), value, NP_DTYPES[d.name]), d)


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
    if m == 0:
        found = tf.zeros(tf.shape(x1), _BOOL)
    elif x1.dtype in _COMPLEX or m is None or m <= 8:
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


# ===== manipulation (rearranging, joining, splitting) =================================


def ravel(x):
    return tf.reshape(x, _ints((-1,)))


def fliplr(x):
    return tf.reverse(x, _ints((1,)))


def flipud(x):
    return tf.reverse(x, _ints((0,)))


def swapaxes(x, axis1, axis2):
    if axis1 == axis2:
        return x
    perm = list(range(x.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return tf.transpose(x, _ints(perm))


def moveaxis(x, source, destination):
    order = [a for a in range(x.shape.rank) if a not in source]
    for dst, src in builtins.sorted(zip(destination, source)):
        order.insert(dst, src)
    return x if order == list(range(len(order))) else tf.transpose(x, _ints(order))


def rot90(array, k, axes):
    a, b = axes
    if k == 0:
        return array
    if k == 2:
        return tf.reverse(array, _ints((a, b)))
    perm = list(range(array.shape.rank))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return tf.transpose(tf.reverse(array, _ints((b,))), _ints(perm))
    return tf.reverse(tf.transpose(array, _ints(perm)), _ints((b,)))


def append(x1, x2, axis):
    if axis is None:
        x1, x2, axis = tf.reshape(x1, _ints((-1,))), tf.reshape(x2, _ints((-1,))), 0
    return tf.concat([x1, x2], axis)


def _lifted(xs, lift):
    out = []
    for x in xs:
        shape = x.shape.as_list()
        want = lift(shape)
        out.append(x if want == shape else tf.reshape(x, _ints([-1 if s is None else s for s in want])))
    return out


def _lift_vstack(s):
    return s if len(s) >= 2 else [1] * (2 - len(s)) + s


def _lift_column(s):
    return s if len(s) >= 2 else [s[0], 1] if len(s) == 1 else [1, 1]


def _lift_dstack(s):
    n = len(s)
    return [1, 1, 1] if n == 0 else [1, s[0], 1] if n == 1 else s + [1] if n == 2 else s


def hstack(xs):
    parts = _lifted(xs, lambda s: s if s else [1])
    return tf.concat(parts, 0 if parts[0].shape.rank == 1 else 1)


def vstack(xs):
    return tf.concat(_lifted(xs, _lift_vstack), 0)


def dstack(xs):
    return tf.concat(_lifted(xs, _lift_dstack), 2)


def column_stack(xs):
    return tf.concat(_lifted(xs, _lift_column), 1)


def diff(a, n, axis):
    if n == 0:
        return a
    lead = (slice(None),) * axis
    size = a.shape[axis]
    if size is not None and n >= size:
        return a[lead + (slice(0, 0),)]
    op = tf.not_equal if a.dtype is _BOOL else subtract
    for _ in range(n):
        a = op(a[lead + (slice(1, None),)], a[lead + (slice(None, -1),)])
    return a


def _same_bits(fn):
    """``fn`` on uint16 through int16 (tf.repeat and tf.tile have no uint16 kernel)."""

    def kernel(x, *args):
        if x.dtype == tf.uint16:
            return tf.bitcast(kernel(tf.bitcast(x, tf.int16), *args), tf.uint16)
        return fn(x, *args)

    kernel.__name__ = kernel.__qualname__ = fn.__name__
    return kernel


@_same_bits
def repeat(x, repeats, axis):
    if axis is None:
        x, axis = tf.reshape(x, _ints((-1,))), 0
    if isinstance(repeats, int):
        if repeats == 1:
            return x
        return tf.repeat(x, repeats, axis=axis)
    return tf.repeat(x, _ints(repeats) if repeats else tf.zeros((0,), _INT32), axis=axis)


@_same_bits
def tile(x, repeats):
    shape = x.shape.as_list()
    nd = builtins.max(len(shape), len(repeats))
    if len(shape) < nd:
        x = tf.reshape(x, _ints([1] * (nd - len(shape)) + [-1 if s is None else s for s in shape]))
    repeats = (1,) * (nd - len(repeats)) + tuple(repeats)
    if builtins.all(r == 1 for r in repeats):
        return x
    return tf.tile(x, _ints(repeats))


def roll(x, shift, axis):
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, _ints((-1,))), shift, 0), tf.shape(x))
    if not axis:
        return x
    return tf.roll(x, _ints(shift), _ints(axis))


def _split(x, ios, axis, exact):
    n = x.shape[axis]
    if isinstance(ios, int):
        if exact or (n is not None and n % ios == 0):
            return tf.split(x, ios, axis)
        if n is None:
            raise ValueError("array_split: expected a known size on the split axis")
        each, extra = divmod(n, ios)
        return tf.split(x, _ints([each + 1] * extra + [each] * (ios - extra)), axis)
    if ios is None or n is None:
        raise ValueError("split: expected a known size on the split axis")
    lead = (slice(None),) * axis
    edges = (0,) + tuple(ios) + (n,)
    # NumPy's pieces x[p[i-1]:p[i]]: a point below its predecessor gives an empty piece
    return [x[lead + (slice(a, b),)] for a, b in zip(edges[:-1], edges[1:])]


def split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 1 if x.shape.rank > 1 else 0, True)


def vsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 0, True)


def dsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 2, True)


# ===== products, slogdet, windows =====================================================

_LETTERS = "abcdefghijklmnopqrstuvwxy"  # einsum labels; "z" is kept for contractions


def _widen(x):
    return tf.cast(x, _F32) if x.dtype in _HALF else x  # half sums accumulate in float32


def _narrow(out, d):
    return tf.cast(out, d) if out.dtype != d else out


def outer(x1, x2):
    return _multiply(tf.reshape(x1, _ints((-1, 1))), tf.reshape(x2, _ints((1, -1))))


def kron(x1, x2):
    a, b = x1.shape.as_list(), x2.shape.as_list()
    nd = builtins.max(len(a), len(b))
    a, b = [1] * (nd - len(a)) + a, [1] * (nd - len(b)) + b
    p = _multiply(tf.reshape(x1, _ints([d for s in a for d in (s, 1)])),
                 tf.reshape(x2, _ints([d for s in b for d in (1, s)])))
    return tf.reshape(p, _ints([s * t for s, t in zip(a, b)]))


def inner(x1, x2):
    ra, rb = x1.shape.rank, x2.shape.rank
    if ra == 0 or rb == 0:
        return _multiply(x1, x2)
    la, lb = _LETTERS[: ra - 1], _LETTERS[ra - 1: ra + rb - 2]
    return _narrow(einsum(f"{la}z,{lb}z->{la}{lb}", _widen(x1), _widen(x2)), x1.dtype)


def vdot(x1, x2):
    d = x1.dtype
    if d in _COMPLEX:
        x1 = tf.math.conj(x1)
    a, b = tf.reshape(_widen(x1), _ints((-1,))), tf.reshape(_widen(x2), _ints((-1,)))
    return _narrow(einsum("i,i->", a, b), d)


def tensordot(x1, x2, axes):
    a1, a2 = axes
    r1, r2 = x1.shape.rank, x2.shape.rank
    if not a1:  # no contraction: an outer product
        return _multiply(tf.reshape(x1, tf.concat([tf.shape(x1), tf.ones((r2,), _INT32)], 0)), x2)
    d = x1.dtype
    l1 = _LETTERS[:r1]
    l2 = list(_LETTERS[r1: r1 + r2])
    for i, j in zip(a1, a2):
        l2[j] = l1[i]
    out = "".join(c for i, c in enumerate(l1) if i not in a1)
    out += "".join(c for j, c in enumerate(l2) if j not in a2)
    return _narrow(einsum(f"{l1},{''.join(l2)}->{out}", _widen(x1), _widen(x2)), d)


def slogdet(x):
    d = x.dtype
    sign, logdet = tf.linalg.slogdet(_widen(x))  # LU with partial pivoting, as LAPACK
    if d not in _COMPLEX:
        sign = tf.add(sign, tf.zeros((), sign.dtype))  # a singular matrix's sign is +0.0
    return _narrow(sign, d), _narrow(logdet, d)


def _window(np_fn):
    def kernel(x, *args):
        from polyops import config

        dtype = config.floatx()
        return tf.constant(np_fn(x, *args).astype(NP_DTYPES[dtype]), TF_DTYPES[dtype])

    kernel.__name__ = kernel.__qualname__ = np_fn.__name__
    return kernel


# NumPy's own windows, computed on the host in float64 (x and beta are Python numbers)
bartlett = _window(np.bartlett)
blackman = _window(np.blackman)
hamming = _window(np.hamming)
hanning = _window(np.hanning)
kaiser = _window(np.kaiser)


# ===== logic (predicates, closeness, complex parts) ===================================

logical_xor = tf.math.logical_xor


def _parts_test(float_fn, combine, other):
    """A predicate: ``float_fn`` on floats, ``combine`` of it on a complex number's two
    parts (NumPy's rule), the constant ``other`` for ints and bools."""

    def kernel(x):
        d = x.dtype
        if d in _FLOATS:
            return float_fn(x)
        if d in _COMPLEX:
            return combine(float_fn(tf.math.real(x)), float_fn(tf.math.imag(x)))
        return tf.fill(tf.shape(x), tf.constant(other, _BOOL))

    kernel.__name__ = kernel.__qualname__ = float_fn.__name__.replace("_", "")
    return kernel


isnan = _parts_test(tf.math.is_nan, tf.logical_or, False)
isinf = _parts_test(tf.math.is_inf, tf.logical_or, False)
isfinite = _parts_test(tf.math.is_finite, tf.logical_and, True)


def _is_signed_inf(value, name):
    def kernel(x):
        if x.dtype in _FLOATS:
            return tf.equal(x, tf.constant(value, x.dtype))
        return tf.zeros(tf.shape(x), _BOOL)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


isposinf = _is_signed_inf(np.inf, "isposinf")
isneginf = _is_signed_inf(-np.inf, "isneginf")


def isreal(x):
    if x.dtype in _COMPLEX:
        return tf.equal(tf.math.imag(x), tf.zeros((), x.dtype.real_dtype))
    return tf.ones(tf.shape(x), _BOOL)


_SIGN_BITS = {tf.bfloat16: tf.int16, tf.float16: tf.int16, tf.float32: _INT32, tf.float64: _INT64}


def signbit(x):
    d = x.dtype
    if d is _BOOL:
        return tf.zeros(tf.shape(x), _BOOL)
    bits = _SIGN_BITS.get(d)
    if bits is None:  # ints
        return tf.less(x, tf.zeros((), d))
    return tf.less(tf.bitcast(x, bits), tf.zeros((), bits))  # -0.0 and negative NaNs too


def isclose(x1, x2, rtol, atol, equal_nan):
    d = x1.dtype
    if d in _HALF:
        x1, x2 = tf.cast(x1, _F32), tf.cast(x2, _F32)
    # |x1 - x2| <= atol + rtol * |x2| where x2 is finite, or x1 == x2 (inf == inf);
    # complex magnitudes as np.isclose (a NaN or inf part makes |x2| NaN or inf)
    abs2 = tf.abs(x2)
    rd = abs2.dtype
    within = tf.less_equal(tf.abs(tf.subtract(x1, x2)),
                           tf.add(tf.multiply(abs2, tf.constant(rtol, rd)), tf.constant(atol, rd)))
    out = tf.logical_or(tf.logical_and(within, tf.less(abs2, tf.constant(np.inf, rd))), tf.equal(x1, x2))
    if equal_nan:
        out = tf.logical_or(out, tf.logical_and(tf.not_equal(x1, x1), tf.not_equal(x2, x2)))
    return out


def allclose(x1, x2, rtol, atol, equal_nan):
    return tf.reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    d = x.dtype
    if d in _COMPLEX:  # each part on its own, as NumPy
        return tf.complex(nan_to_num(tf.math.real(x), nan, posinf, neginf),
                          nan_to_num(tf.math.imag(x), nan, posinf, neginf))
    if d not in _FLOATS:
        return x
    # the replacement values as NumPy converts them to x's dtype (overflow gives inf)
    out = tf.where(tf.math.is_nan(x), _np_scalar(nan, d), x)
    out = tf.where(tf.equal(x, tf.constant(np.inf, d)), _np_scalar(posinf, d), out)
    return tf.where(tf.equal(x, tf.constant(-np.inf, d)), _np_scalar(neginf, d), out)


def real(x):
    return tf.math.real(x) if x.dtype in _COMPLEX else x


def imag(x):
    return tf.math.imag(x) if x.dtype in _COMPLEX else tf.zeros_like(x)


def conjugate(x):
    return tf.math.conj(x) if x.dtype in _COMPLEX else x


def angle(x):
    d = x.dtype
    if d in _COMPLEX:
        return tf.math.angle(x)  # atan2(imag, real)
    # pi where the sign bit is set (-0.0 included, as np.arctan2(0, -0.0)), NaN stays
    out = tf.where(signbit(x), tf.constant(np.pi, d), tf.zeros((), d))
    return tf.where(tf.math.is_nan(x), x, out)


# ===== indexing (polyops.ops.numpy.indexing) ==========================================


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


def array(x, dtype):
    from .core import cast

    out = cast(x, dtype)
    return tf.identity(out) if out is x else out


def copy(x):
    return tf.identity(x)


def empty(shape, dtype):
    return tf.zeros(_ints(shape), TF_DTYPES[dtype])


def empty_like(x, dtype):
    return tf.zeros(tf.shape(x), TF_DTYPES[dtype])


def identity(n, dtype):
    return tf.eye(n, dtype=TF_DTYPES[dtype])


def _band(n, m, k):
    """bool (n, m): ``j <= i + k``."""
    rows = tf.reshape(tf.range(n, dtype=_INT32), _ints((-1, 1)))
    return tf.less_equal(tf.range(m, dtype=_INT32), tf.add(rows, tf.constant(k, _INT32)))


def tri(N, M, k, dtype):
    d = TF_DTYPES[dtype]
    return tf.where(_band(N, M, k), tf.ones((), d), tf.zeros((), d))


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
    return tf.linalg.diag_part(x, k=offset)  # x[..., i, i + offset]


def trace(x, offset, axis1, axis2):
    d = diagonal(x, offset, axis1, axis2)  # x is in the accumulation dtype already
    return sum(d, (d.shape.rank - 1,), False)


def diag(x, k):
    if x.shape.rank == 2:
        return diagonal(x, k, 0, 1)
    n = x.shape[0]
    if n == 0:
        m = builtins.abs(k)
        return tf.zeros((m, m), x.dtype)
    return tf.linalg.diag(x, k=k)  # a square matrix of side n + |k|


def diagflat(x, k):
    return diag(tf.reshape(x, _ints((-1,))), k)


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
    if n == 0 or N == 0:
        return tf.zeros((n, N), x.dtype)
    # NumPy's multiply.accumulate of [1, x, x, ...]: each power rounds (or wraps) once
    col = tf.reshape(x, _ints((n, 1)))
    cols = tf.concat([tf.ones((n, 1), x.dtype), tf.broadcast_to(col, _ints((n, N - 1)))], 1)
    out = tf.math.cumprod(cols, 1)
    return out if increasing else tf.reverse(out, _ints((1,)))


def _pad_stat(t, axis, mode, d):
    """The statistic of ``t`` along ``axis`` (keepdims) in ``d``, as core's reference pads."""
    from .core import cast

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
    from .core import cast

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
    if 0 in out:
        return tf.zeros(_ints(out), d)
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


# ===== statistics (polyops.ops.numpy.statistics) ======================================


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
    d = x.dtype  # floating (ints arrive as floatx) or complex
    w = _widen(x)
    total, count = _nan_count_sum(w, axis)
    out = tf.math.truediv(total, count)
    return _narrow(out if keepdims else _unreduce(out, axis), d)


def _nanvar(x, axis, keepdims):
    w = _widen(x)
    total, count = _nan_count_sum(w, axis)
    nan = _nan_of(w)
    centered = tf.where(nan, tf.zeros((), w.dtype), tf.subtract(w, tf.math.truediv(total, count)))
    out = tf.math.truediv(tf.reduce_sum(tf.multiply(centered, centered), _axis(axis), True), count)
    return out if keepdims else _unreduce(out, axis)


def nanvar(x, axis, keepdims):
    return _narrow(_nanvar(x, axis, keepdims), x.dtype)


def nanstd(x, axis, keepdims):
    return _narrow(tf.sqrt(_nanvar(x, axis, keepdims)), x.dtype)


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
    return _widen(x), n, kept_shape, keep_shape


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
        d = x.dtype
        x2, n, kept, keep = _lines(x, axis)
        out_shape = keep if keepdims else kept
        if n == 0 or 0 in kept:
            return tf.fill(_ints(out_shape), tf.constant(np.nan, d))
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
        return _narrow(_shaped(out, kept, keep, keepdims), d)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


median = _median_family("median", False)
nanmedian = _median_family("nanmedian", True)


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
        if n == 0 or 0 in kept or not qs:
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
        return _narrow(out, d)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


quantile = _quantile_family("quantile", 1, False)
percentile = _quantile_family("percentile", 100, False)
nanquantile = _quantile_family("nanquantile", 1, True)
nanpercentile = _quantile_family("nanpercentile", 100, True)


def average(x, axis, weights):
    if weights is None:
        return mean(x, axis, False)
    d = x.dtype  # x and weights share the floating result dtype
    xw, w = _widen(x), _widen(weights)
    if weights.shape.rank != x.shape.rank:  # 1-D along the one axis
        shape = [1] * x.shape.rank
        shape[axis[0]] = -1
        w = tf.reshape(w, _ints(shape))
    ax = _axis(axis)
    total = tf.reduce_sum(tf.multiply(xw, w), ax)
    scale = tf.reduce_sum(w, ax)
    zero = tf.equal(scale, tf.zeros((), w.dtype))
    out = tf.where(zero, _np_scalar(np.nan, w.dtype), tf.math.truediv(total, scale))
    return _narrow(out, d)


def corrcoef(x):
    d = x.dtype  # floating (ints arrive as floatx)
    xf = _widen(x)
    one_d = x.shape.rank == 1
    if one_d:
        xf = tf.reshape(xf, _ints((1, -1)))
    centered = tf.subtract(xf, tf.reduce_mean(xf, 1, True))
    c = tf.linalg.matmul(centered, centered, transpose_b=True)  # the 1/(D-1) cancels
    sd = tf.sqrt(tf.linalg.diag_part(c))
    c = tf.math.truediv(tf.math.truediv(c, tf.expand_dims(sd, 1)), tf.expand_dims(sd, 0))
    one = tf.ones((), c.dtype)
    c = tf.minimum(tf.maximum(c, tf.negative(one)), one)  # NaN stays
    return _narrow(tf.reshape(c, _ints(())) if one_d else c, d)
