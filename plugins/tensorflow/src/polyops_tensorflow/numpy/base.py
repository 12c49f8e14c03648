"""TensorFlow kernels of ``polyops.ops.numpy.base``: creation, arithmetic, comparisons,
reductions, shape, matmul/einsum, flip and dot (most primitives).

Kernels take the op's arguments positionally; tensors arrive as tf tensors
already promoted, axes canonical (None or a tuple of non-negative ints), dtypes
as canonical strings.  A kernel keeps the input dtype unless the op says
otherwise.  Where a tf op has no CPU kernel for a dtype, or its semantics differ
from NumPy's, the kernel works in another dtype or patches the result; the
common dtypes (float32, int32) go straight to the tf op.
"""

from __future__ import annotations

import operator

import numpy as np
import tensorflow as tf

from polyops import standardize_dtype
from polyops.plugin import SplitKernel

from ..core import NP_DTYPES, TF_DTYPES, EagerTensor
from ._common import (
    _BOOL,
    _COMPLEX,
    _FLOATS,
    _INT32,
    _INT64,
    _INTS,
    _UNSIGNED,
    _axis,
    _host_view,
    _ints,
    _multiply,
    _restore,
    _valid_index,
)

_NO_ABS = _UNSIGNED | {_BOOL}
_InvalidArgument = tf.errors.InvalidArgumentError


# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    # np.full's conversion of the fill value (truncation, overflow errors).
    return tf.fill(_ints(shape), tf.constant(np.full((), fill_value, NP_DTYPES[dtype]), TF_DTYPES[dtype]))


def _like(x, dtype):
    return x.dtype if dtype is None else TF_DTYPES[standardize_dtype(dtype)]


def zeros_like(x, dtype):
    return tf.zeros_like(x, _like(x, dtype))


def ones_like(x, dtype):
    return tf.ones_like(x, _like(x, dtype))


def eye(N, M, k, dtype):
    # No prepare: operator.index makes a float N or k fail here (core reports the rule's
    # TypeError).  Built by NumPy on the host: one constant (tf.eye is a Python graph).
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    d = standardize_dtype(dtype)
    return tf.constant(np.eye(N, M, operator.index(k), NP_DTYPES[d]), TF_DTYPES[d])


def arange(start, stop, step, dtype):
    # NumPy decides the length and the values (tf.range sizes floats in the
    # result dtype and can differ by one element).
    return tf.constant(np.arange(start, stop, step, dtype=NP_DTYPES[dtype]), TF_DTYPES[dtype])


# ===== arithmetic and comparisons ==================================================


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
    if d in _FLOATS and type(x1) is not EagerTensor:
        return _traced_float_floordiv(x1, x2)
    out = tf.raw_ops.FloorDiv(x=x1, y=x2)  # (tf.math.floordiv's wrapper: ~3 us eagerly)
    if d in _FLOATS and not (_finite(_host_view(x1)) and _finite(_host_view(x2))):
        out = _float_floordiv_inf(x1, x2, out)
    return out


@tf.custom_gradient
def _traced_float_floordiv(x1, x2):
    """Traced float floor division, patched, with no gradient (tf's FloorDiv has none):
    the patch's selects would put their own gradient graph around the None (issue 21:
    23 nodes that do work against tf's 5, this 16)."""
    out = _float_floordiv_inf(x1, x2, tf.raw_ops.FloorDiv(x=x1, y=x2))
    return out, lambda g: (None, None)


def _finite(h):
    """Whether the host array ``h`` (None: not on the host) surely holds no inf: two
    reductions, no temporary (a NaN hides the answer: False)."""
    return h is not None and bool(h.max(initial=0) < np.inf) and bool(h.min(initial=0) > -np.inf)


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


def _arg_extremum(fn, name):
    def kernel(x, axis, keepdims):
        ndim = x.shape.rank
        if axis is None:
            x = tf.reshape(x, _ints((-1,)))
            out = kernel(x, 0, False)
            return tf.reshape(out, _ints((1,) * ndim)) if keepdims else out
        out = fn(input=x, dimension=axis, output_type=_INT32)
        if x.dtype in _FLOATS:
            # NumPy returns the first NaN (tf skips NaNs); eagerly, patch only when needed
            # (a min propagates NaN: one pass, no temporary)
            host = _host_view(x)
            if host is None or np.isnan(host.min(initial=0)):
                nan = tf.math.is_nan(x)
                out = tf.where(tf.reduce_any(nan, axis), tf.argmax(nan, axis, output_type=_INT32), out)
        return tf.raw_ops.ExpandDims(input=out, axis=axis) if keepdims else out

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# tf.raw_ops: tf.argmax's wrapper costs ~2 us eagerly
argmax = _arg_extremum(tf.raw_ops.ArgMax, "argmax")
argmin = _arg_extremum(tf.raw_ops.ArgMin, "argmin")


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


def expand_dims(x, axis):
    if isinstance(axis, int):  # tf's kernel itself (tf.expand_dims's wrapper: ~5-10 us eagerly)
        return tf.raw_ops.ExpandDims(input=x, axis=axis)
    ndim = x.shape.rank + len(axis)  # (axes in range and distinct: the op's prepare checked)
    for a in sorted(a + ndim if a < 0 else a for a in axis):
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


def get_item(x, key):
    return x[key]


# ===== linear algebra ===============================================================

# dtypes tf has no matmul/einsum CPU kernel for -> the dtype to compute in
# (integer products wrap to the same low bits in a wider int)
_MATMUL_WORK = {
    tf.bool: _INT32, tf.int8: _INT32, tf.int16: _INT32, tf.uint8: _INT32,
    tf.uint16: _INT32, tf.uint32: _INT64, tf.uint64: _INT64,
}


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


# ===== flip, dot ====================================================================


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
