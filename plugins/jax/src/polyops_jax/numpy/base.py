"""JAX kernels of ``polyops.ops.numpy.base``: creation, arithmetic, comparisons,
reductions, shape and matmul/einsum (most primitives live here).

Kernels take the op's arguments positionally; tensors arrive as jax arrays (or
tracers) already promoted, axes canonical (None or a tuple of non-negative
ints), dtypes as canonical strings.  A kernel keeps the input dtype unless the
op says otherwise.  Where ``jax.numpy`` already has NumPy's semantics and a
positional signature that fits, the kernel is the jnp function itself.
"""

from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np

from polyops import standardize_dtype
from polyops.plugin import SplitKernel, any_dtype, nonempty

from ..core import _NP, JAX_DTYPES, _ArrayImpl, _to_device
from ._common import (
    _F32, _INT32, _LOW_FLOATS, _c99, _ccos, _cexp, _clog, _compiled_reference, _csin, _csqrt,
    _ctanh, _int_floor_divide, _jit,
)

_INTS = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    return jnp.full(shape, fill_value, JAX_DTYPES[dtype])


def arange(start, stop, step, dtype):
    jd = JAX_DTYPES[dtype]
    if jd.kind in "biu" and not (type(start) is int and type(stop) is int and type(step) is int):
        # float bounds into an integer dtype: numpy casts start and start + step, then
        # steps by their difference; jnp truncates start and step separately.
        return _to_device(np.arange(start, stop, step, dtype=jd))
    return jnp.arange(start, stop, step, dtype=jd)


def zeros(shape, dtype):
    return jnp.zeros(shape, JAX_DTYPES[dtype])


def ones(shape, dtype):
    return jnp.ones(shape, JAX_DTYPES[dtype])


def _like(x, dtype):
    """The dtype of a ``*_like`` result: ``dtype`` as given (these ops have no prepare),
    None meaning x's."""
    return x.dtype if dtype is None else JAX_DTYPES[standardize_dtype(dtype)]


def full_like(x, fill_value, dtype):
    return jnp.full(x.shape, fill_value, _like(x, dtype))


def zeros_like(x, dtype):
    return jnp.zeros(x.shape, _like(x, dtype))


def ones_like(x, dtype):
    return jnp.ones(x.shape, _like(x, dtype))


# eye validates its raw arguments (no prepare): core's reference, compiled (the arguments
# are static; a jnp.eye of the same values)
eye = _compiled_reference("eye", 0, 1, 2, 3)


def linspace(start, stop, num, endpoint, retstep, dtype, axis):
    # No prepare: the reference's checks (a failure here reports the rule's error)
    for v in (start, stop):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"linspace: expected a Python number, got {v!r}")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: expected num >= 0, got num={num}")
    name = standardize_dtype(dtype)
    nd = _NP[name]
    # The reference's arithmetic, as the numpy backend: i * step + start in the float dtype
    # (float64 for the 64-bit others, as NumPy, float32 for the rest; ints truncate at the
    # end), rounded after each operation.
    # On the host: every value is static, and a compiled i * step + start is one fused
    # multiply-add on CPUs that have it (1 ulp off the numpy backend).
    work = (nd if nd.kind == "f" or name == "bfloat16"
            else np.dtype(np.float64) if name in ("int64", "uint64", "complex128") else _F32)
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    values = np.arange(num, dtype=work) * np.asarray(step, work) + np.asarray(start, work)
    if endpoint and num > 1:
        values[-1] = stop
    # (64-bit mode off: a float64 result rounds the float64 values once, to float32)
    values = _to_device(values.astype(JAX_DTYPES[name], copy=False))
    return (values, step) if retstep else values


# ===== elementwise ==================================================================

abs = jnp.abs  # bool stays bool, as in numpy
negative = jnp.negative
# complex operands: C99 Annex G's special values (see `_common._c99`)
exp = _c99(jnp.exp, _cexp)
log = _c99(jnp.log, _clog)
sqrt = _c99(jnp.sqrt, _csqrt)
sin = _c99(jnp.sin, _csin)
cos = _c99(jnp.cos, _ccos)
tanh = _c99(jnp.tanh, _ctanh)


@_jit()
def _sign(x):
    # floats: +0 for either zero, as numpy, torch and tensorflow (jnp.sign keeps -0.0, and
    # XLA folds away a "+ 0.0")
    return jnp.where(x == 0, jnp.zeros((), x.dtype), jnp.sign(x))


sign = SplitKernel(jnp.sign, _sign, _INTS)  # sign(nan) is nan
floor = jnp.floor
ceil = jnp.ceil
square = jnp.square


def round(x, decimals):
    # jnp.round is half to even, with numpy's scale-round-unscale for decimals != 0.
    kind = x.dtype.kind
    if kind == "b":
        return x
    if kind in "iu":
        return x if decimals >= 0 else _round_int(x, -decimals)
    return jnp.round(x, decimals)


def _round_int(x, k):
    # jnp.round rejects ints with decimals < 0; numpy rounds to a multiple of 10**k,
    # half to even.  Integer arithmetic keeps int32 values above 2**24 exact.
    f = 10**k
    if f > np.iinfo(x.dtype).max:
        return jnp.zeros_like(x)
    f = jnp.asarray(f, x.dtype)
    q = jnp.floor_divide(x, f)
    r = x - q * f  # 0 <= r < f
    up = (r > f - r) | ((r == f - r) & (q % 2 == 1))
    return (q + up.astype(x.dtype)) * f


add = jnp.add
subtract = jnp.subtract
multiply = jnp.multiply
divide = jnp.true_divide


def floor_divide(x1, x2):
    # floors, like numpy (bool operands arrive as int32); jnp.mod already gives x % 0 == 0
    if x1.dtype.kind in "iu":
        return _int_floor_divide(x1, x2)
    return jnp.floor_divide(x1, x2)


mod = jnp.mod  # the divisor's sign, like numpy
power = jnp.power
maximum = jnp.maximum  # NaN propagates
minimum = jnp.minimum


def clip(x, x_min, x_max):
    # jnp.clip is minimum(maximum(x, x_min), x_max), like the reference; NaN propagates.
    return jnp.clip(x, x_min, x_max)


# ===== comparison and logic =========================================================

equal = jnp.equal
not_equal = jnp.not_equal
less = jnp.less
less_equal = jnp.less_equal
greater = jnp.greater
greater_equal = jnp.greater_equal
# (any dtype read as truth values, as the cast to bool would: no cast first)
logical_and = any_dtype(jnp.logical_and)
logical_or = any_dtype(jnp.logical_or)
logical_not = any_dtype(jnp.logical_not)
where = any_dtype(jnp.where)  # (a condition of any dtype read as truth values)


# ===== reductions ===================================================================


def sum(x, axis, keepdims):
    # dtype= keeps the (already widened) input dtype exact.
    return jnp.sum(x, axis, x.dtype, keepdims=keepdims)


def prod(x, axis, keepdims, dtype):
    return jnp.prod(x, axis, x.dtype, keepdims=keepdims)


def max(x, axis, keepdims, initial):
    return jnp.max(x, axis, keepdims=keepdims, initial=initial)


def min(x, axis, keepdims, initial):
    return jnp.min(x, axis, keepdims=keepdims, initial=initial)


def argmax(x, axis, keepdims):
    r = jnp.argmax(x, axis, keepdims=keepdims)
    return r if r.dtype == _INT32 else r.astype(_INT32)


def argmin(x, axis, keepdims):
    r = jnp.argmin(x, axis, keepdims=keepdims)
    return r if r.dtype == _INT32 else r.astype(_INT32)


@any_dtype  # (any dtype read as truth values: no cast to bool first)
def all(x, axis, keepdims):
    return jnp.all(x, axis, keepdims=keepdims)


@any_dtype  # (any dtype read as truth values: no cast to bool first)
def any(x, axis, keepdims):
    return jnp.any(x, axis, keepdims=keepdims)


def mean(x, axis, keepdims):
    # jnp.mean accumulates float16/bfloat16 in float32 and returns the input dtype.
    return jnp.mean(x, axis, keepdims=keepdims)


def var(x, axis, keepdims):
    return _moment(jnp.var, x, axis, keepdims)


def std(x, axis, keepdims):
    return _moment(jnp.std, x, axis, keepdims)


def _moment(fn, x, axis, keepdims):
    # Population statistics (ddof=0).  float16/bfloat16 compute in float32; complex
    # inputs give numpy's real variance, cast back to the op's complex result dtype.
    d = x.dtype
    if d in _LOW_FLOATS:
        return fn(x, axis, jnp.float32, keepdims=keepdims).astype(d)
    r = fn(x, axis, keepdims=keepdims)
    return r if r.dtype == d else r.astype(d)


# ===== shape ========================================================================

reshape = jnp.reshape
transpose = jnp.transpose
expand_dims = jnp.expand_dims
squeeze = jnp.squeeze
flip = jnp.flip
concatenate = jnp.concatenate
# one compiled call (per count, shapes and axis: eager jnp.stack compiles its expand_dims
# and concatenate per signature too) where eager jnp.stack binds n + 1 primitives
stack = _jit(1)(jnp.stack)
broadcast_to = jnp.broadcast_to


@nonempty  # jnp.take returns x itself for an empty taken axis (core's fill: 0)
def take(x, indices, axis):
    # mode="fill" wraps negative indices like numpy (jnp's default clamps them); core
    # raises on out-of-range indices eagerly, under jit they read 0 (polyops' policy)
    return jnp.take(x, indices, axis, mode="fill", fill_value=0)


# x[i] of a concrete x as one compiled call (~7us, i a traced int: one compile per shape)
# where jnp's eager indexing binds a slice and a squeeze (~45us): a scan's rows, eagerly
_row = jax.jit(lambda x, i: jax.lax.dynamic_index_in_dim(x, i, 0, keepdims=False))


def get_item(x, key):
    # jax clamps an out-of-range int index; numpy raises, so check ints here.
    if type(key) is int:
        if x.ndim and not -x.shape[0] <= key < x.shape[0]:
            raise IndexError(f"index {key} is out of bounds for axis 0 with size {x.shape[0]}")
        if x.ndim and type(x) is _ArrayImpl:
            return _row(x, key + x.shape[0] if key < 0 else key)
    elif type(key) is tuple:
        _check_int_keys(x.shape, key)
    return x[key]


def _check_int_keys(shape, key):
    used = 0
    for k in key:
        if k is not None and k is not Ellipsis:
            used += 1
    axis = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            axis += len(shape) - used
            continue
        if type(k) is int and axis < len(shape) and not -shape[axis] <= k < shape[axis]:
            raise IndexError(f"index {k} is out of bounds for axis {axis} with size {shape[axis]}")
        axis += 1


# ===== linear algebra ===============================================================

matmul = jnp.matmul
dot = jnp.dot


def einsum(subscripts, *operands):
    return jnp.einsum(subscripts, *operands)
