"""JAX kernels for the ``numpy`` op family.

Kernels take the op's arguments positionally; tensors arrive as jax arrays (or
tracers) already promoted, axes canonical (None or a tuple of non-negative
ints), dtypes as canonical strings.  A kernel keeps the input dtype unless the
op says otherwise.  Where ``jax.numpy`` already has NumPy's semantics and a
positional signature that fits, the kernel is the jnp function itself.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from .core import JAX_DTYPES

_INT32 = np.dtype(np.int32)
_LOW_FLOATS = (np.dtype(np.float16), JAX_DTYPES["bfloat16"])

# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    return jnp.full(shape, fill_value, JAX_DTYPES[dtype])


def arange(start, stop, step, dtype):
    jd = JAX_DTYPES[dtype]
    if jd.kind in "biu" and not (type(start) is int and type(stop) is int and type(step) is int):
        # float bounds into an integer dtype: numpy casts start and start + step, then
        # steps by their difference; jnp truncates start and step separately.
        return jnp.asarray(np.arange(start, stop, step, dtype=jd))
    return jnp.arange(start, stop, step, dtype=jd)


# ===== elementwise ==================================================================

abs = jnp.abs  # bool stays bool, as in numpy
negative = jnp.negative
exp = jnp.exp
log = jnp.log
sqrt = jnp.sqrt
sin = jnp.sin
cos = jnp.cos
tanh = jnp.tanh
sign = jnp.sign  # sign(nan) is nan
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


@jax.jit
def _int_floor_divide(x1, x2):
    # XLA's integer x // 0 is -1 (jnp floors that to -1 or -2); NumPy's, and polyops', is 0
    return jnp.where(x2 == 0, jnp.zeros((), x1.dtype), jnp.floor_divide(x1, x2))


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
logical_and = jnp.logical_and
logical_or = jnp.logical_or
logical_not = jnp.logical_not
where = jnp.where

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


def all(x, axis, keepdims):
    return jnp.all(x, axis, keepdims=keepdims)


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
stack = jnp.stack
broadcast_to = jnp.broadcast_to


def take(x, indices, axis):
    if (x.size if axis is None else x.shape[axis]) == 0:
        # jnp.take returns x itself when the taken axis is empty; NumPy's shape rule
        # still holds, and every index into nothing reads 0 (core raised if eager)
        shape = indices.shape if axis is None else x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        return jnp.zeros(shape, x.dtype)
    # mode="fill" wraps negative indices like numpy (jnp's default clamps them); core
    # raises on out-of-range indices eagerly, under jit they read 0 (polyops' policy)
    return jnp.take(x, indices, axis, mode="fill", fill_value=0)


def get_item(x, key):
    # jax clamps an out-of-range int index; numpy raises, so check ints here.
    if type(key) is int:
        if x.ndim and not -x.shape[0] <= key < x.shape[0]:
            raise IndexError(f"index {key} is out of bounds for axis 0 with size {x.shape[0]}")
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


# ===== catalogue primitives ===========================================================

arctan2 = jnp.arctan2
bitwise_and = jnp.bitwise_and
bitwise_or = jnp.bitwise_or
bitwise_xor = jnp.bitwise_xor
bitwise_invert = jnp.invert
left_shift = jnp.left_shift  # lax: a count >= the bit width gives 0
right_shift = jnp.right_shift  # arithmetic for signed: sign fill past the width


def view(x, dtype):
    """NumPy's ``x.view(dtype)``: a bit cast; the last dim scales with the item size."""
    target = JAX_DTYPES[dtype]
    if x.dtype == target:
        return x
    src = jnp.uint8 if x.dtype == jnp.bool_ else x.dtype
    dst = jnp.uint8 if target == jnp.bool_ else target
    x = x.astype(src)
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    if a > b:  # bitcast adds a trailing dim of a // b
        out = jax.lax.bitcast_convert_type(x, dst)
        out = out.reshape(x.shape[:-1] + (x.shape[-1] * (a // b),))
    elif a < b:  # bitcast consumes a trailing dim of b // a
        out = jax.lax.bitcast_convert_type(x.reshape(x.shape[:-1] + (x.shape[-1] * a // b, b // a)), dst)
    else:
        out = jax.lax.bitcast_convert_type(x, dst)
    return out.astype(target) if dst != target else out


def argsort(x, axis):
    return jnp.argsort(x, axis=axis, stable=True).astype(_INT32)  # NaN sorts last


# ===== helpers of the catalogue sections ==============================================
# (this module shadows sum/max/min/abs/round/all/any/range with kernels)

_F32 = np.dtype(np.float32)
_b_max, _b_min, _b_abs = builtins.max, builtins.min, builtins.abs
builtins_range = builtins.range
_i0e = jax.scipy.special.i0e


def _floating(d) -> bool:
    return jnp.issubdtype(d, jnp.floating)


def _as(x, d):
    """x in dtype d (no-op when it already is)."""
    return x if x.dtype == d else x.astype(d)


def _floatx():
    from polyops import config

    return JAX_DTYPES[config.floatx()]


def _widen(x):
    """float16/bfloat16 -> float32 (sums accumulate in float32, as core's references)."""
    return x.astype(_F32) if x.dtype in _LOW_FLOATS else x


# ===== sorting (polyops.ops.numpy.sorting) ==============================================


def sort(x, axis):
    # stable, NaN last (jnp's order is NumPy's); axis None sorts the flattened x
    return jnp.sort(x, axis=axis)


def argpartition(x, kth, axis):
    # core's contract: the stable argsort (a valid partition for every kth)
    return argsort(x, axis)


def searchsorted(sorted_sequence, values, side):
    # jnp orders NaN after every number, as NumPy
    return _as(jnp.searchsorted(sorted_sequence, values, side=side), _INT32)


def digitize(x, bins):
    n = bins.shape[0]
    if n == 0:
        return jnp.zeros(x.shape, _INT32)
    inc = _as(jnp.searchsorted(bins, x, side="right"), _INT32)
    if n < 2:
        return inc
    dec = n - _as(jnp.searchsorted(bins[::-1], x, side="right"), _INT32)
    return jnp.where(bins[n - 1] < bins[0], dec, inc)


def bincount(x, weights, minlength, sparse):
    # minlength is the final length (core read max(x) + 1); x holds no negative value
    x = _as(x, _INT32)
    if weights is None:
        d, w = _INT32, jnp.ones((), _INT32)
    else:
        d = weights.dtype
        w = _widen(weights)
    acc = w.dtype
    if x.ndim == 1:
        out = jnp.zeros((minlength,), acc).at[x].add(w, mode="drop")
    else:
        rows = jnp.arange(x.shape[0], dtype=_INT32)[:, None]
        out = jnp.zeros((x.shape[0], minlength), acc).at[rows, x].add(w, mode="drop")
    return _as(out, d)


def histogram(x, bins, range):
    fdt = x.dtype if _floating(x.dtype) else _floatx()
    flat = x.reshape(-1)
    n = flat.shape[0]
    # the edges exactly as core's reference: float32 lo + i * ((hi - lo) / bins), last = hi
    if range is not None or n == 0:
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = jnp.full((), lo, _F32), jnp.full((), hi, _F32)
    else:
        x32 = flat.astype(_F32)
        lo_t, hi_t = jnp.min(x32), jnp.max(x32)
        same = lo_t == hi_t
        lo_t, hi_t = jnp.where(same, lo_t - 0.5, lo_t), jnp.where(same, hi_t + 0.5, hi_t)
    i = jnp.arange(bins + 1, dtype=_F32)
    edges = lo_t + i * ((hi_t - lo_t) / bins)
    edges = _as(jnp.where(i == bins, hi_t, edges), fdt)
    values = _as(flat, fdt)
    # bin j holds edges[j] <= v < edges[j + 1]; the last bin also holds v == edges[-1]
    idx = _as(jnp.searchsorted(edges, values, side="right"), _INT32) - 1
    idx = jnp.where((idx == bins) & (values == edges[bins]), bins - 1, idx)
    idx = jnp.where(idx < 0, bins, idx)  # below the range: dropped like those above it
    hist = jnp.zeros((bins,), _INT32).at[idx].add(1, mode="drop")
    return hist.astype(fdt), edges


from jax._src.interpreters.ad import JVPTracer as _JVPTracer  # noqa: E402
from jax._src.interpreters.ad import LinearizeTracer as _LinearizeTracer  # noqa: E402

_AD_TRACERS = (_JVPTracer, _LinearizeTracer)


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    # jnp.unique: sorted (NaN last), NaNs one value (equal_nan), -0.0 == 0.0, index the
    # first occurrence.  Its padding differs (values with the smallest, index with its
    # first index): pad as Keras's numpy backend instead (fill_value or 0, 1, 0).
    flat = x.reshape(-1)
    fill = 0 if fill_value is None else fill_value
    if flat.shape[0] == 0:
        m = size or 0
        outs = [jnp.full((m,), fill, x.dtype), jnp.ones((m,), _INT32), jnp.zeros(x.shape, _INT32),
                jnp.zeros((m,), _INT32)]
    else:
        vals, index, inverse, counts = jnp.unique(flat, True, True, True, equal_nan=True, size=size)
        if isinstance(x, _AD_TRACERS):  # jnp.unique's values carry no gradient: gather them
            vals = flat[index]
        if size is not None:
            real = counts > 0
            vals = jnp.where(real, vals, jnp.full((), fill, vals.dtype))
            index = jnp.where(real, index, 1)
        outs = [vals, index, inverse.reshape(x.shape), counts]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [o if i == 0 else _as(o, _INT32) for i, (o, k) in enumerate(zip(outs, keep)) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def nonzero(x):
    # row-major order; NaN is non-zero.  The length is data-dependent (eager only).
    return tuple(_as(i, _INT32) for i in jnp.nonzero(x))


def isin(x1, x2, assume_unique, invert):
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


def count_nonzero(x, axis):
    return _as(jnp.count_nonzero(x, axis), _INT32)


def cumsum(x, axis, dtype):
    # x arrives in the result dtype; dtype= keeps it (ints wrap, nothing widens)
    return jnp.cumsum(x, axis, dtype=x.dtype)


def cumprod(x, axis, dtype):
    return jnp.cumprod(x, axis, dtype=x.dtype)


def nancumsum(x, axis, dtype):
    if _floating(x.dtype):  # complex NaN stays (core's reference replaces real NaN only)
        x = jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)
    return jnp.cumsum(x, axis, dtype=x.dtype)


def nancumprod(x, axis, dtype):
    if _floating(x.dtype):
        x = jnp.where(jnp.isnan(x), jnp.ones((), x.dtype), x)
    return jnp.cumprod(x, axis, dtype=x.dtype)


# ===== products (polyops.ops.numpy.products) ==========================================
# Operands share the matmul dtype (int8 arrives as int32); float16/bfloat16 accumulate in
# float32 and round once, as core's references.


def outer(x1, x2):
    return jnp.outer(x1, x2)


def kron(x1, x2):
    # jnp.kron's own layout, with jnp.multiply (which takes bool, unlike lax.mul)
    nd = _b_max(x1.ndim, x2.ndim)
    a = (1,) * (nd - x1.ndim) + x1.shape
    b = (1,) * (nd - x2.ndim) + x2.shape
    x1 = x1.reshape(tuple(d for p in a for d in (p, 1)))
    x2 = x2.reshape(tuple(d for q in b for d in (1, q)))
    return jnp.multiply(x1, x2).reshape(tuple(p * q for p, q in zip(a, b)))


def inner(x1, x2):
    if x1.ndim == 0 or x2.ndim == 0:
        return jnp.multiply(x1, x2)
    return _as(jnp.inner(_widen(x1), _widen(x2)), x1.dtype)


def vdot(x1, x2):
    return _as(jnp.vdot(_widen(x1), _widen(x2)), x1.dtype)  # conjugates a complex x1


def tensordot(x1, x2, axes):
    if not axes[0]:  # no contraction: an outer product keeping the shapes
        return jnp.multiply(x1.reshape(x1.shape + (1,) * x2.ndim), x2)
    return _as(jnp.tensordot(_widen(x1), _widen(x2), axes), x1.dtype)


def cross(x1, x2, axisa, axisb, axisc, axis):
    # NumPy's formulas: an implicit zero z-component takes no part (no 0 * inf, which
    # jnp.cross computes); the batch axes broadcast.
    a = jnp.moveaxis(x1, axisa, -1)
    b = jnp.moveaxis(x2, axisb, -1)
    n1, n2 = a.shape[-1], b.shape[-1]
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    cp2 = a0 * b1 - a1 * b0
    if n1 == 2 and n2 == 2:
        return cp2
    if n1 == 3 and n2 == 3:
        a2, b2 = a[..., 2], b[..., 2]
        cp0 = a1 * b2 - a2 * b1
        cp1 = a2 * b0 - a0 * b2
    elif n1 == 2:
        b2 = b[..., 2]
        cp0 = a1 * b2
        cp1 = -(a0 * b2)
    else:
        a2 = a[..., 2]
        cp0 = -(a2 * b1)
        cp1 = a2 * b0
    cp0, cp1, cp2 = jnp.broadcast_arrays(cp0, cp1, cp2)
    return jnp.stack([cp0, cp1, cp2], axis=axisc)


def trapezoid(y, x, dx, axis):
    d = y.dtype
    y = _widen(y)
    n = y.shape[axis]
    s = _shifted(y, axis, 1) + _shifted(y, axis, 0)
    if x is None:
        w = jnp.asarray(dx, y.dtype)
    else:
        x = _widen(x)
        xa = 0 if x.ndim == 1 else axis
        w = _shifted(x, xa, 1) - _shifted(x, xa, 0)
        if x.ndim == 1 and y.ndim > 1:
            w = w.reshape(tuple(_b_max(n - 1, 0) if i == axis else 1 for i in builtins_range(y.ndim)))
    return _as(jnp.sum(w * s / 2.0, axis=axis), d)


def _shifted(v, axis, start):
    """v[1:] (start 1) or v[:-1] (start 0) along axis; empty for an empty axis."""
    n = v.shape[axis]
    lo = _b_min(start, n)
    return jax.lax.slice_in_dim(v, lo, lo + _b_max(n - 1, 0), axis=axis)


def _window(fn):
    def kernel(x):
        if x <= 0:
            return jnp.zeros((0,), _floatx())
        if x == 1:
            return jnp.ones((1,), _floatx())
        return _as(fn(x), _floatx())  # float32 math, as core's references

    kernel.__name__ = fn.__name__
    return kernel


bartlett = _window(jnp.bartlett)
blackman = _window(jnp.blackman)
hamming = _window(jnp.hamming)
hanning = _window(jnp.hanning)


def kaiser(x, beta):
    # jnp.kaiser divides i0(beta * r) by i0(beta), which overflows float32 past beta ~ 90;
    # the exponentially scaled i0e keeps the ratio finite: i0e(b r) / i0e(b) * exp(b (r - 1)).
    if x <= 1:
        return jnp.zeros((0,), _floatx()) if x <= 0 else jnp.ones((1,), _floatx())
    beta = _b_abs(beta)
    n = jnp.arange(x, dtype=_F32)
    r = jnp.sqrt(jnp.maximum(n * (x - 1 - n) * (4.0 / (x - 1) ** 2), 0.0))
    b = jnp.asarray(beta, _F32)
    w = _i0e(b * r) / _i0e(b) * jnp.exp(b * (r - 1.0))
    return _as(w, _floatx())


# ===== elementwise (polyops.ops.numpy.elementwise) =====================================
# Float operands arrive in the result dtype (ints and bools already cast to floatx);
# jnp's functions keep it, with NumPy's special values (float16/bfloat16 compute in
# float32 inside XLA).

fabs = jnp.fabs
trunc = jnp.trunc  # ints and bools come back as they are
reciprocal = jnp.reciprocal
expm1 = jnp.expm1
log1p = jnp.log1p
exp2 = jnp.exp2
log2 = jnp.log2
log10 = jnp.log10
logaddexp = jnp.logaddexp  # (-inf, -inf) -> -inf, (inf, inf) -> inf
logaddexp2 = jnp.logaddexp2
cbrt = jnp.cbrt
tan = jnp.tan
arcsin = jnp.arcsin
arccos = jnp.arccos
arctan = jnp.arctan
sinh = jnp.sinh
cosh = jnp.cosh
arcsinh = jnp.arcsinh
arccosh = jnp.arccosh
arctanh = jnp.arctanh
deg2rad = jnp.deg2rad
rad2deg = jnp.rad2deg
sinc = jnp.sinc
hypot = jnp.hypot  # inf if either is +-inf, even with a NaN


def i0(x):
    # jnp.i0 is exp(|x|) * i0e(x), which overflows float32 for |x| > 88 while i0 is finite
    # up to ~91.9; split the exponential as core's reference.  i0(+-inf) is 0 * inf = NaN.
    d = x.dtype
    x = _widen(x)
    h = jnp.exp(jnp.abs(x) * 0.5)
    return _as(_i0e(x) * h * h, d)


def heaviside(x1, x2):
    # NaN where x1 is NaN (jnp.heaviside's own where-chain gives it too; spelled out here)
    step = jnp.where(x1 < 0, jnp.zeros((), x1.dtype), jnp.where(x1 > 0, jnp.ones((), x1.dtype), x1))
    return jnp.where(x1 == 0, x2, step)


def fmax(x1, x2):
    if x1.dtype == jnp.bool_:
        return jnp.logical_or(x1, x2)
    return jnp.fmax(x1, x2)  # a NaN is ignored unless both are NaN


def fmin(x1, x2):
    if x1.dtype == jnp.bool_:
        return jnp.logical_and(x1, x2)
    return jnp.fmin(x1, x2)


def fmod(x1, x2):
    # C's fmod (lax.rem): the sign of x1; floats: fmod(x, 0) and fmod(inf, y) NaN,
    # fmod(x, inf) x.  Integer fmod(x, 0) is 0 (XLA's rem gives x there).
    if x1.dtype.kind in "iu":
        zero = x2 == 0
        r = jnp.fmod(x1, jnp.where(zero, jnp.ones((), x2.dtype), x2))
        return jnp.where(zero, jnp.zeros((), x1.dtype), r)
    return jnp.fmod(x1, x2)


# Jitted once per signature: an eager lax.while_loop traces and compiles its fresh cond and
# body closures on every call (~100 ms and ~1.8 MiB of never-freed code a call).
@jax.jit
def gcd(x1, x2):
    # jnp.gcd's loop never ends for some INT_MIN operands (gcd(INT_MIN, 6)); this is core's
    # Euclid with floored mod (x % 0 == 0), stopped when every pair is done or after the
    # dtype's worst-case step count, so INT_MIN wraps as in NumPy (gcd(INT_MIN, 0) = INT_MIN).
    a, b = jnp.broadcast_arrays(jnp.abs(x1), jnp.abs(x2))
    bits = np.dtype(a.dtype).itemsize * 8
    steps = int(bits * 1.4405) + 2

    def cond(state):
        i, _, b = state
        return (i < steps) & jnp.any(b != 0)

    def body(state):
        i, a, b = state
        nz = b != 0
        return i + 1, jnp.where(nz, b, a), jnp.mod(a, b)

    _, a, _ = jax.lax.while_loop(cond, body, (jnp.zeros((), _INT32), a, b))
    return jnp.abs(a)


@jax.jit
def lcm(x1, x2):
    # |x1| // gcd * |x2|, with 0 // 0 == 0 (lcm(0, 0) = 0); overflow wraps
    g = gcd(x1, x2)
    return _int_floor_divide(jnp.abs(x1), g) * jnp.abs(x2)


def divide_no_nan(x1, x2):
    zero = x2 == 0
    q = jnp.true_divide(x1, jnp.where(zero, jnp.ones((), x2.dtype), x2))
    return jnp.where(zero, jnp.zeros((), q.dtype), q)


# ===== logic (polyops.ops.numpy.logic) ================================================
# The predicates take x in its own dtype (complex included where the op allows it) and
# return bool; jnp gives ints and bools their constant answers.

logical_xor = jnp.logical_xor
isfinite = jnp.isfinite  # complex: both parts finite
isinf = jnp.isinf  # complex: either part infinite
isnan = jnp.isnan  # complex: either part NaN
isneginf = jnp.isneginf
isposinf = jnp.isposinf
isreal = jnp.isreal  # complex: a zero imaginary part
signbit = jnp.signbit  # floats bit by bit: signbit(-0.0) and of a negative NaN is True


def isclose(x1, x2, rtol, atol, equal_nan):
    # NumPy's formula, as core's reference; float16/bfloat16 compare in float32
    if x1.dtype in _LOW_FLOATS:
        x1, x2 = x1.astype(_F32), x2.astype(_F32)
    abs2 = jnp.abs(x2)
    within = jnp.abs(x1 - x2) <= abs2 * rtol + atol
    out = (within & (abs2 < np.inf)) | (x1 == x2)
    if equal_nan:
        out = out | (jnp.isnan(x1) & jnp.isnan(x2))
    return out


def allclose(x1, x2, rtol, atol, equal_nan):
    return jnp.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    # posinf/neginf already resolved; complex parts each replaced; ints and bools as they are
    if x.dtype.kind in "biu":
        return x
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


real = jnp.real  # complex64 -> float32; real input as it is
imag = jnp.imag  # zeros of x's dtype for real input
conjugate = jnp.conjugate


def angle(x):
    # arctan2(imag, real): pi for -0.0, NaN for NaN; jnp gives a 0-d float16 float32
    return _as(jnp.angle(x), jnp.finfo(x.dtype).dtype)


# ===== indexing (polyops.ops.numpy.indexing) ==========================================


def take_along_axis(x, indices, axis):
    # negative indices wrap; out-of-range ones read 0, like take above
    return jnp.take_along_axis(x, indices, axis, mode="fill", fill_value=0)


def copy(x):
    return jnp.array(x, copy=True)


def empty(shape, dtype):
    return jnp.zeros(shape, JAX_DTYPES[dtype])  # zeros: polyops' deterministic "empty"


def empty_like(x, dtype):
    return jnp.zeros(x.shape, JAX_DTYPES[dtype])


def identity(n, dtype):
    return jnp.identity(n, JAX_DTYPES[dtype])


def tri(N, M, k, dtype):
    return jnp.tri(N, M, k, JAX_DTYPES[dtype])


def tril(x, k):
    return jnp.tril(x, k)


def triu(x, k):
    return jnp.triu(x, k)


def diag(x, k):
    return jnp.diag(x, k)


def diagflat(x, k):
    return jnp.diagflat(x, k)


def diagonal(x, offset, axis1, axis2):
    return jnp.diagonal(x, offset, axis1, axis2)


def trace(x, offset, axis1, axis2):
    # x arrives in its accumulation dtype; dtype= keeps it (no widening)
    return jnp.trace(x, offset, axis1, axis2, dtype=x.dtype)


def vander(x, N, increasing):
    return _as(jnp.vander(x, N, increasing), x.dtype)


def meshgrid(*args):
    *x, indexing = args
    return list(jnp.meshgrid(*(t.reshape(-1) for t in x), indexing=indexing))


def unravel_index(indices, shape):
    # jnp.unravel_index clamps out-of-range indices; NumPy raises and core's contract gives
    # the floor-division/modulo coordinates (the first one unbounded)
    if not shape:
        return ()
    if indices.size == 0:
        return tuple(jnp.zeros(indices.shape, _INT32) for _ in shape)
    coords = []
    rem = indices
    for d in reversed(shape[1:]):
        coords.append(jnp.mod(rem, d))
        rem = jnp.floor_divide(rem, d)
    coords.append(rem)
    return tuple(_as(c, _INT32) for c in reversed(coords))


def select(condlist, choicelist, default):
    shape = jnp.broadcast_shapes(*(t.shape for t in (*condlist, *choicelist, default)))
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = jnp.where(cond, choice, out)
    return jnp.broadcast_to(out, shape)


def pad(x, pad_width, mode, constant_values):
    # jnp.pad pads axis by axis with NumPy's rules (stat modes over the whole axis, ints
    # rounded half to even); "circular" and "empty" arrive resolved
    if x.ndim == 0:  # nothing to pad (jnp.pad rejects the empty pad_width)
        return x
    if mode == "constant":
        return jnp.pad(x, pad_width, "constant", constant_values=constant_values)
    return jnp.pad(x, pad_width, mode)


# ===== manipulation (polyops.ops.numpy.manipulation) ===================================

ravel = jnp.ravel


def fliplr(x):
    return jnp.flip(x, 1)


def flipud(x):
    return jnp.flip(x, 0)


def swapaxes(x, axis1, axis2):
    return jnp.swapaxes(x, axis1, axis2)


def moveaxis(x, source, destination):
    return jnp.moveaxis(x, source, destination)


def rot90(array, k, axes):
    return jnp.rot90(array, k, axes)


def append(x1, x2, axis):
    return jnp.append(x1, x2, axis)


def hstack(xs):
    return jnp.hstack(xs)


def vstack(xs):
    return jnp.vstack(xs)


def dstack(xs):
    return jnp.dstack(xs)


def column_stack(xs):
    return jnp.column_stack(xs)


def diff(a, n, axis):
    # bool differences are not_equal (jnp.diff's own rule), ints wrap; n >= size: empty
    if n == 0:
        return a
    if n >= a.shape[axis]:
        return jax.lax.slice_in_dim(a, 0, 0, axis=axis)
    return jnp.diff(a, n, axis)


def repeat(x, repeats, axis):
    # repeats is static (an int or a tuple of ints): the output length is known
    n = x.size if axis is None else x.shape[axis]
    total = n * repeats if type(repeats) is int else builtins.sum(repeats)
    if type(repeats) is not int:
        repeats = np.asarray(repeats, np.int32)
    return jnp.repeat(x, repeats, axis, total_repeat_length=total)


def tile(x, repeats):
    return jnp.tile(x, repeats)


def roll(x, shift, axis):
    return jnp.roll(x, shift, axis)


def _split_bounds(size, sections, exact):
    if type(sections) is int:
        if exact:
            step = size // sections
            return [(i * step, (i + 1) * step) for i in builtins_range(sections)]
        q, r = divmod(size, sections)
        out, start = [], 0
        for i in builtins_range(sections):
            stop = start + q + (1 if i < r else 0)
            out.append((start, stop))
            start = stop
        return out
    points = (0,) + tuple(sections) + (size,)
    return [(points[i], _b_max(points[i], points[i + 1])) for i in builtins_range(len(points) - 1)]


def _split(x, sections, axis, exact):
    # static bounds: each piece a slice (a point below its predecessor gives an empty piece)
    return [jax.lax.slice_in_dim(x, a, b, axis=axis)
            for a, b in _split_bounds(x.shape[axis], sections, exact)]


def split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0, True)


def vsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 0, True)


def dsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 2, True)


# ===== statistics (polyops.ops.numpy.statistics) =======================================


def ptp(x, axis, keepdims):
    # ints wrap like the dtype (int8 127 - -128 is -1); bool: max != min
    hi, lo = jnp.max(x, axis, keepdims=keepdims), jnp.min(x, axis, keepdims=keepdims)
    return hi != lo if x.dtype == jnp.bool_ else hi - lo


def nanmax(x, axis, keepdims):
    return jnp.nanmax(x, axis, keepdims=keepdims)  # an all-NaN slice gives NaN


def nanmin(x, axis, keepdims):
    return jnp.nanmin(x, axis, keepdims=keepdims)


def nanargmax(x, axis, keepdims):
    # NaN counts as -inf; an all-NaN slice gives -1 (jnp's answer, core's contract)
    return _as(jnp.nanargmax(x, axis, keepdims=keepdims), _INT32)


def nanargmin(x, axis, keepdims):
    return _as(jnp.nanargmin(x, axis, keepdims=keepdims), _INT32)


def _median(x, axis, keepdims, skip_nan):
    # core's reference with one native sort: rows of the reduced axes, the middle one or
    # two values in float32 (float16/bfloat16) or the result dtype, (a + b) * 0.5
    dtype = x.dtype if _floating(x.dtype) else _floatx()
    work = _F32 if dtype in _LOW_FLOATS else dtype
    nd = x.ndim
    axes = tuple(builtins_range(nd)) if axis is None else axis
    kept = tuple(i for i in builtins_range(nd) if i not in axes)
    if keepdims:
        out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        out_shape = tuple(x.shape[i] for i in kept)
    n = 1
    for a in axes:
        n *= x.shape[a]
    if n == 0 or x.size == 0:
        return jnp.full(out_shape, np.nan, dtype)
    floating = _floating(x.dtype)
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.uint8)
    rows = jnp.transpose(x, kept + axes).reshape(tuple(x.shape[i] for i in kept) + (n,))
    s = jnp.sort(rows, axis=-1)  # NaN last
    if skip_nan and floating:
        counts = n - jnp.sum(jnp.isnan(rows), axis=-1, dtype=_INT32)
        lo = jnp.maximum((counts - 1) // 2, 0)
        hi = jnp.minimum(counts // 2, jnp.maximum(counts - 1, 0))
        a = jnp.take_along_axis(s, lo[..., None], -1)[..., 0].astype(work)
        b = jnp.take_along_axis(s, hi[..., None], -1)[..., 0].astype(work)
        out = jnp.where(lo == hi, a, (a + b) * 0.5)
        out = jnp.where(counts == 0, jnp.full((), np.nan, work), out)
    else:
        out = s[..., (n - 1) // 2].astype(work)
        if n % 2 == 0:
            out = (out + s[..., n // 2].astype(work)) * 0.5
        if floating:
            out = jnp.where(jnp.isnan(s[..., n - 1]), jnp.full((), np.nan, work), out)
    return _as(out, dtype).reshape(out_shape)


def median(x, axis, keepdims):
    return _median(x, axis, keepdims, False)


def nanmedian(x, axis, keepdims):
    return _median(x, axis, keepdims, True)
