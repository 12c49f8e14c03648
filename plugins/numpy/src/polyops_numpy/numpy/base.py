"""NumPy kernels of ``polyops.ops.numpy.base``: creation, arithmetic, comparisons,
reductions, shape and matmul/einsum (most primitives live here).

Kernels take the op's arguments positionally; tensors arrive as ndarrays already
promoted, axes canonical (None or a tuple of non-negative ints), dtypes as
canonical strings.  A kernel keeps the input dtype unless the op says otherwise.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from polyops import standardize_dtype
from polyops.plugin import any_dtype

from ..core import NP_DTYPES
from ._common import _BF16, _LOW_FLOATS

# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    return np.full(shape, fill_value, dtype=NP_DTYPES[dtype])


def arange(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=NP_DTYPES[dtype])


def zeros(shape, dtype):
    return np.zeros(shape, NP_DTYPES[dtype])


def ones(shape, dtype):
    return np.ones(shape, NP_DTYPES[dtype])


def _like(x, dtype):
    """The dtype of a ``*_like`` result: ``dtype`` (as given: these ops have no prepare),
    None meaning x's."""
    return x.dtype if dtype is None else NP_DTYPES[standardize_dtype(dtype)]


def full_like(x, fill_value, dtype):
    return np.full(x.shape, fill_value, _like(x, dtype))


def zeros_like(x, dtype):
    return np.zeros(x.shape, _like(x, dtype))


def ones_like(x, dtype):
    return np.ones(x.shape, _like(x, dtype))


def linspace(start, stop, num, endpoint, retstep, dtype, axis):
    # No prepare: the reference's checks (a failure here reports the rule's error)
    for v in (start, stop):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"linspace: expected a Python number, got {v!r}")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: expected num >= 0, got num={num}")
    nd = NP_DTYPES[standardize_dtype(dtype)]
    # the reference's arithmetic: in the float dtype itself, float64 for other 64-bit
    # results, else float32 (cast at the end: ints truncate, where np.linspace floors)
    work = nd if nd.kind == "f" or nd == _BF16 else np.dtype(
        np.float64 if nd.itemsize == 8 and nd.kind in "iu" or nd.kind == "c" and nd.itemsize == 16
        else np.float32)
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    values = np.arange(num, dtype=work) * np.asarray(step, work) + np.asarray(start, work)
    if endpoint and num > 1:
        values[-1] = stop
    values = values.astype(nd, copy=False)
    return (values, step) if retstep else values


def eye(N, M, k, dtype):
    # operator.index: a float N or k fails here, and core reports the rule's TypeError
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    return np.eye(N, M, operator.index(k), NP_DTYPES[standardize_dtype(dtype)])


# ===== elementwise ==================================================================


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
# (any dtype read as truth values, as the cast to bool would: no cast first)
logical_and = any_dtype(np.logical_and)
logical_or = any_dtype(np.logical_or)
logical_not = any_dtype(np.logical_not)
where = any_dtype(np.where)  # (a condition of any dtype read as truth values)


def clip(x, x_min, x_max):
    # NumPy's clip is the reference's minimum(maximum(...)) in one pass (NaN propagates;
    # x_min > x_max gives x_max), 3-5x faster at 512x512 (the method: np.clip's Python
    # wrapper doubles a 16x16 call).  Its ufunc has no bfloat16 loop (it returns float32),
    # so bfloat16 takes the two passes
    if x.dtype == _BF16:
        return np.minimum(np.maximum(x, x_min), x_max)
    return x.clip(x_min, x_max)


# ===== reductions ===================================================================


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


@any_dtype  # (any dtype read as truth values: no cast to bool first)
def all(x, axis, keepdims):
    return np.all(x, axis=axis, keepdims=keepdims)


@any_dtype  # (any dtype read as truth values: no cast to bool first)
def any(x, axis, keepdims):
    return np.any(x, axis=axis, keepdims=keepdims)


def _count(x, axis):
    """The number of elements each slice of ``axis`` (None: all) reduces."""
    return x.size if axis is None else math.prod([x.shape[a] for a in axis])


# mean, var and std: x is floating (ints arrive as floatx) or complex; float16/bfloat16
# accumulate in float32 and round once.  Sum over count, not np.mean: NumPy warns on an
# empty slice, where 0 / 0 gives the NaN of the reference.


def mean(x, axis, keepdims):
    if x.dtype in _LOW_FLOATS:
        total = np.add.reduce(x, axis, np.float32, keepdims=keepdims)
        return np.true_divide(total, _count(x, axis)).astype(x.dtype)
    return np.true_divide(np.add.reduce(x, axis, keepdims=keepdims), _count(x, axis))


def _variance(x, axis, keepdims):
    """The population variance, in float32 for float16/bfloat16: |x - mean|^2 (for a
    complex x real, as np.var)."""
    w = x.astype(np.float32) if x.dtype in _LOW_FLOATS else x
    n = _count(x, axis)
    c = w - np.true_divide(np.add.reduce(w, axis, keepdims=True), n)
    if c.dtype.kind == "c":
        sq = c.real * c.real + c.imag * c.imag
    elif type(c) is np.ndarray:  # squared in place, as np.var: no second temporary (1.3x
        sq = np.multiply(c, c, out=c)  # at 64**3); a 0-d x gives a NumPy scalar here
    else:
        sq = c * c
    return np.true_divide(np.add.reduce(sq, axis, keepdims=keepdims), n)


def var(x, axis, keepdims):
    return _variance(x, axis, keepdims).astype(x.dtype, copy=False)


def std(x, axis, keepdims):
    return np.sqrt(_variance(x, axis, keepdims)).astype(x.dtype, copy=False)


# ===== shape ========================================================================

reshape = np.reshape
transpose = np.transpose
flip = np.flip


def expand_dims(x, axis):
    # axis: an int or a tuple/list, checked by prepare; one int (the common case) is a
    # reshape, 7x faster than np.expand_dims
    if type(axis) is int:
        a = axis if axis >= 0 else axis + x.ndim + 1
        return x.reshape(x.shape[:a] + (1,) + x.shape[a:])
    return np.expand_dims(x, axis)


def squeeze(x, axis):
    return x.squeeze(tuple(axis) if isinstance(axis, list) else axis)


def stack(x, axis):
    return np.stack(x, axis)


def concatenate(xs, axis):
    return np.concatenate(xs, axis=axis)


broadcast_to = np.broadcast_to


def take(x, indices, axis):
    return np.take(x, indices, axis=axis)


def get_item(x, key):
    return x[key]


# ===== linear algebra ===============================================================


def matmul(x1, x2):
    if x1.dtype == _BF16:  # ml_dtypes has no bfloat16 matmul loop: accumulate in float32
        return np.matmul(x1.astype(np.float32), x2.astype(np.float32)).astype(_BF16)
    return np.matmul(x1, x2)


def dot(x1, x2):
    if x1.dtype == _BF16:  # as matmul: accumulate in float32
        return np.dot(x1.astype(np.float32), x2.astype(np.float32)).astype(_BF16)
    return np.dot(x1, x2)


def einsum(subscripts, *operands):
    if operands and operands[0].dtype == _BF16:
        wide = [o.astype(np.float32) for o in operands]
        return np.einsum(subscripts, *wide).astype(_BF16)
    return np.einsum(subscripts, *operands)
