"""NumPy kernels of ``polyops.ops.numpy.base``: creation, arithmetic, comparisons,
reductions, shape and matmul/einsum (most primitives live here).

Kernels take the op's arguments positionally; tensors arrive as ndarrays already
promoted, axes canonical (None or a tuple of non-negative ints), dtypes as
canonical strings.  A kernel keeps the input dtype unless the op says otherwise.
"""

from __future__ import annotations

import numpy as np

from ..core import NP_DTYPES
from ._common import _BF16, _LOW_FLOATS


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


def matmul(x1, x2):
    if x1.dtype == _BF16:  # ml_dtypes has no bfloat16 matmul loop: accumulate in float32
        return np.matmul(x1.astype(np.float32), x2.astype(np.float32)).astype(_BF16)
    return np.matmul(x1, x2)


def einsum(subscripts, *operands):
    if operands and operands[0].dtype == _BF16:
        wide = [o.astype(np.float32) for o in operands]
        return np.einsum(subscripts, *wide).astype(_BF16)
    return np.einsum(subscripts, *operands)
