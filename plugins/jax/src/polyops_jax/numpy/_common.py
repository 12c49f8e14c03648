"""Helpers shared by the ``numpy`` family's kernel modules (dtypes, casts, builtins).

The kernel modules shadow sum/max/min/abs/round/all/any/range with kernels, hence the
builtins' aliases here.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from ..core import HALF_JAX as _LOW_FLOATS
from ..core import JAX_DTYPES

_INT32 = np.dtype(np.int32)
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
    """float16/bfloat16 -> float32, for ops without a compute dtype (bincount's weights
    accumulate in float32, as sum)."""
    return x.astype(_F32) if x.dtype in _LOW_FLOATS else x


@jax.jit
def _int_floor_divide(x1, x2):
    # XLA's integer x // 0 is -1 (jnp floors that to -1 or -2); NumPy's, and polyops', is 0
    return jnp.where(x2 == 0, jnp.zeros((), x1.dtype), jnp.floor_divide(x1, x2))


def _jit(*static):
    """Compile a kernel of several jnp calls with ``jax.jit``, once per input signature;
    ``static`` are the positions of its Python arguments (axes, modes, floats), which key
    the cache.  Eagerly each jnp call is a dispatch of its own (~10us), compiled the kernel
    is one; inside a trace the inner jit is inlined."""

    def wrap(fn):
        return jax.jit(fn, static_argnums=static)

    return wrap


def _key(v):
    # floats by repr: jit's static cache compares by ==, where -0.0 == 0.0, 1 == 1.0 and
    # nan != nan (a fresh compile on every call)
    t = type(v)
    if t is float:
        return t, repr(v)
    if t is tuple or t is list:
        return t, tuple(_key(e) for e in v)
    return t, v


class _Static:
    """A static argument keyed exactly (`_key`); the kernel body gets ``.value``."""

    __slots__ = ("value", "key")

    def __init__(self, value):
        self.value = value
        self.key = _key(value)

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return type(other) is _Static and self.key == other.key


_FLOAT = object()  # marks a static float passed as (_FLOAT, repr)
_BOOLS = {True: (_FLOAT, True), False: (_FLOAT, False)}  # (True == 1: kept apart from ints)


def _static(v):
    """A static argument as jit's cache key: floats as (marker, repr), bools as (marker,
    bool), ints, strings and None as they are, all hashed and compared in C on every call;
    anything else (tuples, lists) a `_Static`."""
    t = type(v)
    if t is float:
        return (_FLOAT, repr(v))
    if t is int or t is str or v is None:
        return v
    if t is bool:
        return _BOOLS[v]
    return _Static(v)


def _unstatic(v):
    if type(v) is tuple and len(v) == 2 and v[0] is _FLOAT:
        return v[1] if type(v[1]) is bool else float(v[1])
    return v.value if type(v) is _Static else v


def _jit_exact(*static):
    """`_jit` for kernels with static Python floats (fill values, tolerances, alpha):
    each keys the cache by its exact value, sign of zero and NaN included (a float by its
    repr, which ``float`` reads back exactly)."""

    def wrap(fn):
        def inner(*args):
            return fn(*[_unstatic(a) if i in static else a for i, a in enumerate(args)])

        compiled = jax.jit(inner, static_argnums=static)

        def kernel(*args):
            args = list(args)
            for i in static:
                args[i] = _static(args[i])
            return compiled(*args)

        kernel.__name__ = kernel.__qualname__ = fn.__name__
        kernel.__doc__ = fn.__doc__
        return kernel

    return wrap


def _compiled_reference(name, *static, exact=False):
    """Core's reference of op ``name`` compiled as one jax function (static: as `_jit`):
    the same composition of polyops ops, each traced to its jax kernel, dispatched once
    instead of op by op (an eager reference pays core's entry and a dispatch per op)."""
    from polyops.plugin import reference

    ref = reference(name)
    if exact:
        return _jit_exact(*static)(ref)
    return jax.jit(ref, static_argnums=static)


# ===== complex special values (C99 Annex G) =========================================
#
# XLA's complex exp, log, sqrt, sinh, cosh, tanh, arccos, arccosh, arcsinh, arctanh lose
# C99 Annex G's results where a part is inf, NaN or a signed zero (exp(inf + nan j) is
# nan + nan j, not inf + nan j; sqrt(-1 - 0j) is +1j, not -1j); NumPy, torch and
# tensorflow follow Annex G, and so does the Array API standard.  Each complex kernel
# below is XLA's result with those cases patched by `jnp.where`; the real dtypes keep
# the jnp function itself (`_c99`: a SplitKernel whose fast variant is that function).
# sin, cos, tan, arcsin and arctan are Annex G's own definitions from the hyperbolic ones
# (sin z = -i sinh(iz)...), exact: multiplying by +-i only swaps parts and flips a sign.

_NON_COMPLEX = tuple(n for n in JAX_DTYPES if n not in ("complex64", "complex128"))
_HALF_PI = np.pi / 2


def _c99(fast, fixed):
    """The kernel of a unary op: ``fast`` (the jnp function) on real dtypes, ``fixed``
    (compiled) on complex ones; the dtype is read at trace time."""
    from polyops.plugin import SplitKernel

    fixed = jax.jit(fixed)

    def kernel(x):
        return fixed(x) if x.dtype.kind == "c" else fast(x)

    kernel.__name__ = kernel.__qualname__ = fast.__name__
    return SplitKernel(fast, kernel, _NON_COMPLEX)


def _times_i(z):
    """i z, exact: (-y, x)."""
    return jax.lax.complex(-jnp.imag(z), jnp.real(z))


def _times_minus_i(z):
    """-i z, exact: (y, -x)."""
    return jax.lax.complex(jnp.imag(z), -jnp.real(z))


def _patch(r, *cases):
    """``r`` with (mask, real, imag) cases applied in order (a later case wins)."""
    re, im = jnp.real(r), jnp.imag(r)
    for mask, a, b in cases:
        re, im = jnp.where(mask, a, re), jnp.where(mask, b, im)
    return jax.lax.complex(re, im)


def _cexp(z):
    x, y = jnp.real(z), jnp.imag(z)
    bad_y = ~jnp.isfinite(y)
    return _patch(
        jnp.exp(z),
        (y == 0, jnp.exp(x), y),  # exp(x +- 0j) = exp(x) +- 0j, NaN x too
        ((x == -jnp.inf) & bad_y, 0.0, jnp.copysign(0.0, y)),  # +-0 +- 0j
        ((x == jnp.inf) & bad_y, jnp.inf, jnp.nan))  # +-inf + nan j


def _clog(z):
    x, y = jnp.real(z), jnp.imag(z)
    r = jnp.log(z)  # |z| is inf where a part is, NaN or not
    return _patch(r, (jnp.isinf(x) | jnp.isinf(y), jnp.inf, jnp.imag(r)))


def _csqrt(z):
    x, y = jnp.real(z), jnp.imag(z)
    r = jnp.sqrt(z)
    nan_y = jnp.isnan(y)
    return _patch(
        r,
        (~nan_y, jnp.real(r), jnp.copysign(jnp.imag(r), y)),  # the cut: y's sign, at +-0 too
        (jnp.isinf(y), jnp.inf, y),  # +inf +- inf j for every x, NaN too
        (nan_y & (x == jnp.inf), jnp.inf, jnp.nan),
        (nan_y & (x == -jnp.inf), jnp.nan, jnp.inf))


def _ctanh(z):
    x, y = jnp.real(z), jnp.imag(z)
    zero_y = y == 0
    # tanh(+-inf + iy) = +-1 + 0j with the zero's sign that of sin(2y) (y's where not finite)
    s = jnp.where(jnp.isfinite(y), jnp.sin(y) * jnp.cos(y), y)
    return _patch(
        jnp.tanh(z),
        (zero_y, jnp.tanh(x), y),
        ((x == 0) & ~jnp.isfinite(y), x, jnp.nan),  # +-0 + nan j
        (jnp.isinf(x) & ~zero_y, jnp.copysign(1.0, x), jnp.copysign(0.0, s)))


def _csinh(z):
    x, y = jnp.real(z), jnp.imag(z)
    finite_y = jnp.isfinite(y)
    return _patch(
        jnp.sinh(z),
        (y == 0, jnp.sinh(x), y),
        (x == 0, jnp.where(finite_y, x * jnp.cos(y), x), jnp.sin(y)),  # +-0 + nan j past finite y
        (jnp.isinf(x) & ~finite_y, jnp.inf, jnp.nan))  # (the real sign unspecified: NumPy's +)


def _ccosh(z):
    x, y = jnp.real(z), jnp.imag(z)
    finite_y = jnp.isfinite(y)
    return _patch(
        jnp.cosh(z),
        (y == 0, jnp.cosh(x), jnp.copysign(0.0, x) * y),  # the zero: sinh(x) sin(y)'s sign
        (x == 0, jnp.cos(y), jnp.where(finite_y, x * jnp.sin(y), 0.0)),  # nan + 0j past finite y
        (jnp.isinf(x) & ~finite_y, jnp.inf, jnp.nan))


def _carccos(z):
    x, y = jnp.real(z), jnp.imag(z)
    nan_x, nan_y = jnp.isnan(x), jnp.isnan(y)
    r = jnp.arccos(z)
    return _patch(
        r,
        (~nan_y, jnp.real(r), jnp.copysign(jnp.imag(r), -y)),  # arccos(conj z) = conj arccos(z)
        (nan_y, jnp.where(x == 0, _HALF_PI, jnp.nan), jnp.where(jnp.isinf(x), -jnp.inf, jnp.nan)),
        (nan_x & ~nan_y, jnp.nan, jnp.where(jnp.isinf(y), -y, jnp.nan)))


def _carccosh(z):
    x, y = jnp.real(z), jnp.imag(z)
    nan_x, nan_y = jnp.isnan(x), jnp.isnan(y)
    r = jnp.arccosh(z)
    inf_x, inf_y = jnp.isinf(x), jnp.isinf(y)
    return _patch(
        r,
        (~nan_y, jnp.real(r), jnp.copysign(jnp.imag(r), y)),
        (nan_y, jnp.where(inf_x, jnp.inf, jnp.nan), jnp.where(x == 0, _HALF_PI, jnp.nan)),
        (nan_x & ~nan_y, jnp.where(inf_y, jnp.inf, jnp.nan), jnp.nan))


def _carcsinh(z):
    x, y = jnp.real(z), jnp.imag(z)
    nan_x, nan_y = jnp.isnan(x), jnp.isnan(y)
    r = jnp.arcsinh(z)
    inf_x, inf_y = jnp.isinf(x), jnp.isinf(y)
    return _patch(
        r,
        (~nan_x & ~nan_y, jnp.copysign(jnp.real(r), x), jnp.copysign(jnp.imag(r), y)),  # odd
        (nan_y, jnp.where(inf_x, x, jnp.nan), jnp.nan),
        (nan_x & ~nan_y, jnp.where(inf_y, jnp.inf, jnp.nan), jnp.where(y == 0, y, jnp.nan)))


def _carctanh(z):
    x, y = jnp.real(z), jnp.imag(z)
    nan_x, nan_y = jnp.isnan(x), jnp.isnan(y)
    r = jnp.arctanh(z)
    inf_x, inf_y = jnp.isinf(x), jnp.isinf(y)
    return _patch(
        r,
        (~nan_x & ~nan_y, jnp.copysign(jnp.real(r), x), jnp.copysign(jnp.imag(r), y)),  # odd
        (nan_y, jnp.where(x == 0, x, jnp.where(inf_x, jnp.copysign(0.0, x), jnp.nan)), jnp.nan),
        (nan_x & ~nan_y, jnp.where(inf_y, 0.0, jnp.nan),
         jnp.where(inf_y, jnp.copysign(_HALF_PI, y), jnp.nan)))


def _csin(z):
    return _times_minus_i(_csinh(_times_i(z)))


def _ccos(z):
    return _ccosh(_times_i(z))


def _ctan(z):
    return _times_minus_i(_ctanh(_times_i(z)))


def _carcsin(z):
    return _times_minus_i(_carcsinh(_times_i(z)))


def _carctan(z):
    return _times_minus_i(_carctanh(_times_i(z)))
