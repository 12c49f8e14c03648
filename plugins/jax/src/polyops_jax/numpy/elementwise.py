"""JAX kernels of ``polyops.ops.numpy.elementwise``: transcendental and arithmetic
functions (arctan2, log1p, hypot, gcd...).

Float operands arrive in the result dtype (ints and bools already cast to floatx);
jnp's functions keep it, with NumPy's special values (float16/bfloat16 compute in
float32 inside XLA).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._common import (
    _INT32, _c99, _carccos, _carccosh, _carcsin, _carcsinh, _carctan, _carctanh, _ccosh,
    _csinh, _ctan, _i0e, _int_floor_divide, _jit,
)


# ===== catalogue primitive ==========================================================

arctan2 = jnp.arctan2


# ===== elementwise functions ========================================================

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
# complex operands (the Array API namespace's: polyops' ops take real ones): C99 Annex G's
# special values (see `_common._c99`)
tan = _c99(jnp.tan, _ctan)
arcsin = _c99(jnp.arcsin, _carcsin)
arccos = _c99(jnp.arccos, _carccos)
arctan = _c99(jnp.arctan, _carctan)
sinh = _c99(jnp.sinh, _csinh)
cosh = _c99(jnp.cosh, _ccosh)
arcsinh = _c99(jnp.arcsinh, _carcsinh)
arccosh = _c99(jnp.arccosh, _carccosh)
arctanh = _c99(jnp.arctanh, _carctanh)
deg2rad = jnp.deg2rad
rad2deg = jnp.rad2deg
sinc = jnp.sinc
hypot = jnp.hypot  # inf if either is +-inf, even with a NaN


@_jit()
def i0(x):
    # jnp.i0 is exp(|x|) * i0e(x), which overflows float32 for |x| > 88 while i0 is finite
    # up to ~91.9; split the exponential as core's reference.  i0(+-inf) is 0 * inf = NaN.
    h = jnp.exp(jnp.abs(x) * 0.5)
    return _i0e(x) * h * h


@_jit()
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


@_jit()
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


@_jit()
def divide_no_nan(x1, x2):
    zero = x2 == 0
    q = jnp.true_divide(x1, jnp.where(zero, jnp.ones((), x2.dtype), x2))
    return jnp.where(zero, jnp.zeros((), q.dtype), q)


def _pow2(k, work):
    """2.0**k of the int32 tensor k, exactly, as its exponent bits (k within the normal range)."""
    if work == np.float64:
        return jax.lax.bitcast_convert_type((k.astype(jnp.int64) + 1023) << 52, work)
    return jax.lax.bitcast_convert_type((k + 127) << 23, work)


@jax.jit
def ldexp(x1, x2):
    # x1 * 2**x2 rounded once: core's three-step product (x2 clipped, each 2**k finite) with
    # its two floor divisions exact on the shifted, non-negative n (lax.div and a shift, where
    # jnp's int // takes ~20 ops) and each 2**k built from its bits: one XLA fusion
    work = x1.dtype
    limit = 2202 if work == np.float64 else 300  # the reference's 2200, a multiple of 6
    n = jnp.clip(x2, -limit, limit)
    n1 = jax.lax.div(n + limit, n.dtype.type(3)) - limit // 3  # n // 3
    n2 = jax.lax.shift_right_arithmetic(n - n1, n.dtype.type(1))  # (n - n1) // 2
    n3 = n - n1 - n2
    return x1 * _pow2(n1, work) * _pow2(n2, work) * _pow2(n3, work)
