"""Transcendental and arithmetic element-wise functions: arcsin, log1p, hypot, gcd, fmod...

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import math

from ... import _dtypes, _promote
from .._base import binary, unary
from .._base import finish as _finish
from ..core import cast
from ..core import dtype as _dtype_of
from .base import (
    abs, add, ceil, clip, cos, divide, equal, exp, floor, floor_divide, greater,
    less, log, logical_and, logical_or, maximum, minimum, mod, multiply, negative, not_equal,
    power, sin, sqrt, square, subtract, where,
)

# ===== ops ===========================================================================

_ORD_FLOATING = _promote.ordered(_promote.floating)
_ORD_SAME = _promote.ordered(_promote.same)
_ORD_NUMERIC = _promote.ordered(_promote.numeric)
_ORD_PRESERVE = _promote.ordered(_promote.preserve)
_INT_NUMERIC = _promote.integral(_promote.numeric)

arctan2 = binary("arctan2", promote=_ORD_FLOATING, doc=(
    "Element-wise arc tangent of ``x1 / x2`` choosing the quadrant, in radians.  Primitive.\n\n"
    "NumPy: ``np.arctan2``.  Ints compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arctan2(1.0, -1.0), 4)   # 3*pi/4\n    np.float32(2.3562)"))


# ----- helpers of the references (not ops) --------------------------------------------

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_INF = math.inf


def _small_big(x):
    """(tiny, big) thresholds of the working float dtype: sqrt(eps) and 1/sqrt(eps).

    Below ``tiny`` odd functions such as sinh, arcsinh, arctanh equal ``x`` to the
    dtype's precision; above ``big`` asymptotic forms (log(2x)) are exact to it.
    """
    eps = 2.0 ** -52 if _dtype_of(x) == "float64" else 2.0 ** -23
    return math.sqrt(eps), 1.0 / math.sqrt(eps)


def _odd(x, r, tiny):
    """``r`` computed on ``|x|`` given back the sign of ``x``; ``x`` itself where
    ``|x| < tiny`` (which keeps -0.0 and where the odd function is ``x``)."""
    return where(less(abs(x), tiny), x, where(less(x, 0), negative(r), r))


def _is_nan(x):
    return not_equal(x, x)


def _half_exp_sq(a):
    """``exp(a) / 2`` without overflowing before the result does: (exp(a/2)/2)*exp(a/2)."""
    h = exp(multiply(a, 0.5))
    return multiply(multiply(h, 0.5), h)


# ----- unary: absolute value, rounding, reciprocal --------------------------------------

# Kernel contract (fabs): x is a float tensor of the result dtype (ints and bools arrive
# already cast to floatx); return |x| in that dtype.
fabs = unary("fabs", promote=_ORD_FLOATING, doc=(
    "Absolute value in floating point.\n\n"
    "NumPy: ``np.fabs``.  Ints and bools compute in floatx; complex is rejected.\n\n"
    "Example:\n    >>> polyops.ops.fabs(polyops.ops.arange(-2, 1))\n    array([2., 1., 0.], dtype=float32)"))


@fabs.reference
def _fabs_ref(x):
    return abs(x)


# Kernel contract (trunc): x keeps its dtype (int/bool tensors may be returned as they
# are); floats round toward zero, keeping NaN, +-inf and the sign of zero.
trunc = unary("trunc", promote=_ORD_PRESERVE, doc=(
    "Round toward zero; integer and bool inputs keep their dtype and values.\n\n"
    "NumPy: ``np.trunc``.\n\n"
    "Example:\n    >>> polyops.ops.trunc(polyops.ops.convert_to_tensor([-1.7, 1.7]))\n    array([-1.,  1.], dtype=float32)"))


@trunc.reference
def _trunc_ref(x):
    if _dtype_of(x) not in _dtypes.FLOAT_TYPES:
        return x
    return where(less(x, 0), ceil(x), floor(x))


# Kernel contract (reciprocal): x is a float (or complex) tensor of the result dtype.
reciprocal = unary("reciprocal", promote=_promote.floating, doc=(
    "``1 / x`` element-wise; ints and bools compute in floatx (1 / 0 is inf).\n\n"
    "NumPy: ``np.reciprocal`` (which keeps ints; Keras's jax backend gives floats).\n\n"
    "Example:\n    >>> polyops.ops.reciprocal(polyops.ops.convert_to_tensor([2.0, 4.0]))\n    array([0.5 , 0.25], dtype=float32)"))


@reciprocal.reference
def _reciprocal_ref(x):
    return divide(1, x)


# ----- unary: exponentials and logarithms -----------------------------------------------

# Kernel contract (expm1, log1p, exp2, log2, log10, cbrt, sinh, cosh, tan, arcsin, arccos,
# arctan, arcsinh, arccosh, arctanh, sinc, i0, deg2rad, rad2deg): x is a float tensor of
# the result dtype (ints and bools already cast to floatx); return the function in that
# dtype with NumPy's special values.
expm1 = unary("expm1", promote=_ORD_FLOATING, compute="float32", doc=(
    "``exp(x) - 1``, accurate for small ``x``.\n\n"
    "NumPy: ``np.expm1``.  Ints and bools compute in floatx.  The reference uses Kahan's\n"
    "``(u - 1) * x / log(u)`` with ``u = exp(x)``.\n\n"
    "Example:\n    >>> polyops.ops.expm1(1e-10)\n    np.float32(1e-10)"))


@expm1.reference
def _expm1_ref(x):
    u = exp(x)
    um1 = subtract(u, 1)
    r = multiply(um1, divide(x, log(u)))
    r = where(equal(u, 1), x, where(equal(um1, -1), -1.0, r))
    return where(equal(u, _INF), u, r)


log1p = unary("log1p", promote=_ORD_FLOATING, compute="float32", doc=(
    "``log(1 + x)``, accurate for small ``x``.\n\n"
    "NumPy: ``np.log1p``.  Ints and bools compute in floatx; ``log1p(-1)`` is -inf.\n\n"
    "Example:\n    >>> polyops.ops.log1p(1e-10)\n    np.float32(1e-10)"))


@log1p.reference
def _log1p_ref(x):
    u = add(x, 1)
    r = multiply(log(u), divide(x, subtract(u, 1)))
    r = where(equal(u, 1), x, r)
    return where(equal(u, _INF), u, r)


exp2 = unary("exp2", promote=_promote.floating, compute="float32", doc=(
    "``2 ** x`` element-wise.\n\n"
    "NumPy: ``np.exp2``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.exp2(polyops.ops.arange(4))\n    array([1., 2., 4., 8.], dtype=float32)"))


@exp2.reference
def _exp2_ref(x):
    return power(2.0, x)


log2 = unary("log2", promote=_ORD_FLOATING, compute="float32", doc=(
    "Base-2 logarithm.\n\n"
    "NumPy: ``np.log2``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.log2(polyops.ops.convert_to_tensor([1.0, 8.0]))\n    array([0., 3.], dtype=float32)"))


@log2.reference
def _log2_ref(x):
    return divide(log(x), _LN2)


log10 = unary("log10", promote=_ORD_FLOATING, compute="float32", doc=(
    "Base-10 logarithm.\n\n"
    "NumPy: ``np.log10``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.log10(polyops.ops.convert_to_tensor([1.0, 100.0])), 4)\n    array([0., 2.], dtype=float32)"))


@log10.reference
def _log10_ref(x):
    return divide(log(x), _LN10)


logaddexp = binary("logaddexp", promote=_ORD_FLOATING, compute="float32", doc=(
    "``log(exp(x1) + exp(x2))`` without overflow.\n\n"
    "NumPy: ``np.logaddexp``.  Ints and bools compute in floatx.  ``logaddexp(-inf, -inf)``\n"
    "is -inf and ``logaddexp(inf, inf)`` is inf.\n\n"
    "Example:\n    >>> polyops.ops.logaddexp(1000.0, 1000.0)\n    np.float32(1000.6932)"))


@logaddexp.reference
def _logaddexp_ref(x1, x2):
    tail = log1p(exp(negative(abs(subtract(x1, x2)))))
    r = add(maximum(x1, x2), tail)
    return where(equal(x1, x2), add(x1, _LN2), r)


logaddexp2 = binary("logaddexp2", promote=_ORD_FLOATING, compute="float32", doc=(
    "``log2(2 ** x1 + 2 ** x2)`` without overflow.\n\n"
    "NumPy: ``np.logaddexp2``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.logaddexp2(3.0, 3.0)\n    np.float32(4.0)"))


@logaddexp2.reference
def _logaddexp2_ref(x1, x2):
    tail = divide(log1p(exp2(negative(abs(subtract(x1, x2))))), _LN2)
    r = add(maximum(x1, x2), tail)
    return where(equal(x1, x2), add(x1, 1), r)


cbrt = unary("cbrt", promote=_ORD_FLOATING, compute="float32", doc=(
    "Real cube root (negative for negative ``x``).\n\n"
    "NumPy: ``np.cbrt``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.cbrt(polyops.ops.convert_to_tensor([-8.0, 27.0])), 4)\n    array([-2.,  3.], dtype=float32)"))


@cbrt.reference
def _cbrt_ref(x):
    a = abs(x)
    r = power(a, 1.0 / 3.0)
    # one Newton step (r + (a / r**2 - r) / 3) removes the error of pow's rounded 1/3
    newton = add(r, multiply(subtract(divide(a, multiply(r, r)), r), 1.0 / 3.0))
    r = where(logical_and(greater(a, 0), less(a, _INF)), newton, r)
    return where(less(x, 0), negative(r), where(greater(x, 0), r, x))


# ----- unary: trigonometric and hyperbolic ----------------------------------------------

tan = unary("tan", promote=_ORD_FLOATING, compute="float32", doc=(
    "Tangent, element-wise.\n\n"
    "NumPy: ``np.tan``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.tan(0.7853982)\n    np.float32(1.0)"))


@tan.reference
def _tan_ref(x):
    return divide(sin(x), cos(x))


def _sqrt_one_minus_sq(x):
    return sqrt(multiply(subtract(1, x), add(1, x)))  # exact factors near |x| = 1


arcsin = unary("arcsin", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse sine, in ``[-pi/2, pi/2]``; NaN outside ``[-1, 1]``.\n\n"
    "NumPy: ``np.arcsin``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arcsin(1.0), 4)\n    np.float32(1.5708)"))


@arcsin.reference
def _arcsin_ref(x):
    return arctan2(x, _sqrt_one_minus_sq(x))


arccos = unary("arccos", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse cosine, in ``[0, pi]``; NaN outside ``[-1, 1]``.\n\n"
    "NumPy: ``np.arccos``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arccos(-1.0), 4)\n    np.float32(3.1416)"))


@arccos.reference
def _arccos_ref(x):
    return arctan2(_sqrt_one_minus_sq(x), x)


arctan = unary("arctan", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse tangent, in ``[-pi/2, pi/2]``.\n\n"
    "NumPy: ``np.arctan``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arctan(1.0), 4)\n    np.float32(0.7854)"))


@arctan.reference
def _arctan_ref(x):
    return arctan2(x, 1)


sinh = unary("sinh", promote=_ORD_FLOATING, compute="float32", doc=(
    "Hyperbolic sine, accurate near 0 and up to the overflow threshold.\n\n"
    "NumPy: ``np.sinh``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.sinh(1.0), 4)\n    np.float32(1.1752)"))


@sinh.reference
def _sinh_ref(x):
    tiny, _ = _small_big(x)
    a = abs(x)
    e = expm1(a)
    mid = multiply(add(e, divide(e, add(e, 1))), 0.5)
    r = where(greater(a, 20), _half_exp_sq(a), mid)
    return _odd(x, r, tiny)


cosh = unary("cosh", promote=_ORD_FLOATING, compute="float32", doc=(
    "Hyperbolic cosine, finite up to the overflow threshold.\n\n"
    "NumPy: ``np.cosh``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.cosh(0.0)\n    np.float32(1.0)"))


@cosh.reference
def _cosh_ref(x):
    a = abs(x)
    u = exp(a)
    mid = multiply(add(u, divide(1, u)), 0.5)
    return where(greater(a, 20), _half_exp_sq(a), mid)


arcsinh = unary("arcsinh", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse hyperbolic sine.\n\n"
    "NumPy: ``np.arcsinh``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arcsinh(1.0), 4)\n    np.float32(0.8814)"))


@arcsinh.reference
def _arcsinh_ref(x):
    tiny, big = _small_big(x)
    a = abs(x)
    a2 = multiply(a, a)
    small = log1p(add(a, divide(a2, add(1, sqrt(add(1, a2))))))
    r = where(greater(a, big), add(log(a), _LN2), small)
    return _odd(x, r, tiny)


arccosh = unary("arccosh", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse hyperbolic cosine; NaN below 1.\n\n"
    "NumPy: ``np.arccosh``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.arccosh(1.0)\n    np.float32(0.0)"))


@arccosh.reference
def _arccosh_ref(x):
    _, big = _small_big(x)
    t = subtract(x, 1)
    small = log1p(add(t, sqrt(add(multiply(t, 2), multiply(t, t)))))
    r = where(greater(x, big), add(log(x), _LN2), small)
    return where(less(x, 1), math.nan, r)


arctanh = unary("arctanh", promote=_ORD_FLOATING, compute="float32", doc=(
    "Inverse hyperbolic tangent; +-inf at +-1, NaN outside ``[-1, 1]``.\n\n"
    "NumPy: ``np.arctanh``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.arctanh(0.5), 4)\n    np.float32(0.5493)"))


@arctanh.reference
def _arctanh_ref(x):
    tiny, _ = _small_big(x)
    a = abs(x)
    r = multiply(log1p(divide(multiply(a, 2), subtract(1, a))), 0.5)
    return _odd(x, r, tiny)


deg2rad = unary("deg2rad", promote=_ORD_FLOATING, doc=(
    "Degrees to radians: ``x * pi / 180``.\n\n"
    "NumPy: ``np.deg2rad``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.deg2rad(180.0), 4)\n    np.float32(3.1416)"))


@deg2rad.reference
def _deg2rad_ref(x):
    return multiply(x, math.pi / 180.0)


rad2deg = unary("rad2deg", promote=_ORD_FLOATING, doc=(
    "Radians to degrees: ``x * 180 / pi``.\n\n"
    "NumPy: ``np.rad2deg``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.rad2deg(3.1415927)\n    np.float32(180.0)"))


@rad2deg.reference
def _rad2deg_ref(x):
    return multiply(x, 180.0 / math.pi)


sinc = unary("sinc", promote=_ORD_FLOATING, compute="float32", doc=(
    "Normalized sinc: ``sin(pi x) / (pi x)``, and 1 at 0.\n\n"
    "NumPy: ``np.sinc`` (same formula).  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.sinc(polyops.ops.convert_to_tensor([0.0, 0.5])), 4)\n    array([1.    , 0.6366], dtype=float32)"))


@sinc.reference
def _sinc_ref(x):
    y = multiply(where(equal(x, 0), 1e-20, x), math.pi)
    return divide(sin(y), y)


# Abramowitz & Stegun 9.8.1 (|x| <= 3.75, in t = (x/3.75)**2; absolute error < 1.6e-7 on
# I0 >= 1) and 9.8.2 (|x| >= 3.75, in 1/t with t = |x|/3.75, for sqrt(|x|) exp(-|x|) I0;
# absolute error < 1.9e-7 on a value near 0.4).
_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
_I0_LARGE = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
             0.02635537, -0.01647633, 0.00392377)


def _horner(t, coefs):
    r = multiply(t, coefs[-1])
    for c in coefs[-2:0:-1]:
        r = multiply(add(r, c), t)
    return add(r, coefs[0])


i0 = unary("i0", promote=_ORD_FLOATING, compute="float32", doc=(
    "Modified Bessel function of the first kind, order 0.\n\n"
    "NumPy: ``np.i0``.  Ints and bools compute in floatx.  The reference uses the\n"
    "polynomials of Abramowitz & Stegun 9.8.1-9.8.2 (relative error below 1e-6).\n"
    "``i0(+-inf)`` is NaN, as in NumPy (and every Keras backend).\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.i0(1.0), 4)\n    np.float32(1.2661)"))


@i0.reference
def _i0_ref(x):
    a = abs(x)
    small = _horner(square(divide(a, 3.75)), _I0_SMALL)
    al = maximum(a, 3.75)  # keeps the unused branch finite
    q = divide(_horner(divide(3.75, al), _I0_LARGE), sqrt(al))
    h = exp(multiply(al, 0.5))
    large = multiply(multiply(h, q), h)
    return where(greater(a, 3.75), large, small)  # i0(+-inf) is NaN, as NumPy


# ----- binary -----------------------------------------------------------------------------

# Kernel contract (hypot, heaviside, logaddexp, logaddexp2): x1 and x2 are float tensors of
# the result dtype (ints and bools already cast to floatx), broadcastable to each other.
hypot = binary("hypot", promote=_ORD_FLOATING, compute="float32", doc=(
    "``sqrt(x1**2 + x2**2)`` without overflow or underflow; inf if either is +-inf (even\n"
    "with a NaN), else NaN if either is NaN.\n\n"
    "NumPy: ``np.hypot``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.hypot(3.0, 4.0)\n    np.float32(5.0)"))


@hypot.reference
def _hypot_ref(x1, x2):
    a, b = abs(x1), abs(x2)
    m, n = maximum(a, b), minimum(a, b)
    q = divide(n, m)
    r = multiply(m, sqrt(add(1, multiply(q, q))))
    r = where(equal(m, 0), 0.0, r)
    return where(logical_or(equal(a, _INF), equal(b, _INF)), _INF, r)


heaviside = binary("heaviside", promote=_ORD_FLOATING, doc=(
    "Heaviside step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``;\n"
    "NaN where ``x1`` is NaN.\n\n"
    "NumPy: ``np.heaviside``.  The result is floating (ints and bools give floatx).\n\n"
    "Example:\n    >>> polyops.ops.heaviside(polyops.ops.convert_to_tensor([-1.0, 0.0, 2.0]), 0.5)\n    array([0. , 0.5, 1. ], dtype=float32)"))


@heaviside.reference
def _heaviside_ref(x1, x2):
    step = where(less(x1, 0), 0.0, where(greater(x1, 0), 1.0, x1))  # x1 itself: NaN
    return where(equal(x1, 0), x2, step)


def _ldexp_promote_fn(keys):
    k1, k2 = keys
    for k in keys:
        if k in _dtypes.COMPLEX_TYPES or k == "complex":
            raise _promote.PromotionError(f"expected real dtypes, got {k}")
    if k2 in _dtypes.FLOAT_TYPES or k2 == "float":
        raise _promote.PromotionError(f"expected an integer exponent x2, got dtype {k2}")
    out, _ = _promote.floating((k1, k2))
    return out, "int32"


_ldexp_promote = _promote.cached(_ldexp_promote_fn)

# Kernel contract (ldexp): x1 a float tensor of the result dtype, x2 an int32 tensor (any
# integer or bool exponent arrives as int32); return x1 * 2**x2 in x1's dtype, rounded once.
ldexp = binary("ldexp", promote=_ldexp_promote, compute="float32", fast="pair", doc=(
    "``x1 * 2 ** x2`` with an integer exponent ``x2``.\n\n"
    "NumPy: ``np.ldexp``.  The result dtype is the common dtype of ``x1`` and ``x2`` made\n"
    "floating (ints give floatx); a float exponent is a TypeError.\n\n"
    "Example:\n    >>> polyops.ops.ldexp(3.0, polyops.ops.arange(3))\n    array([ 3.,  6., 12.], dtype=float32)"))


@ldexp.reference
def _ldexp_ref(x1, x2):
    limit = 2200 if _dtype_of(x1) == "float64" else 300  # beyond: 0 or inf anyway
    n = clip(x2, -limit, limit)
    n1 = floor_divide(n, 3)
    n2 = floor_divide(subtract(n, n1), 2)
    n3 = subtract(subtract(n, n1), n2)  # three parts, each small enough for 2**k to be finite
    work = _dtype_of(x1)
    r = x1
    for k in (n1, n2, n3):
        r = multiply(r, power(2.0, cast(k, work)))
    return r


# Kernel contract (fmax, fmin): x1 and x2 share the result dtype (the common dtype; bool
# stays bool); a NaN is ignored unless both are NaN.
fmax = binary("fmax", promote=_ORD_SAME, doc=(
    "Element-wise maximum ignoring NaN (NaN only where both are NaN).\n\n"
    "NumPy: ``np.fmax``.  The result has the operands' common dtype.\n\n"
    "Example:\n    >>> polyops.ops.fmax(polyops.ops.convert_to_tensor([1.0, float('nan')]), 0.0)\n    array([1., 0.], dtype=float32)"))


def _nan_ignoring(fn, x1, x2):
    r = fn(x1, x2)
    if _dtype_of(r) not in _dtypes.FLOAT_TYPES:
        return r
    return where(_is_nan(x2), x1, where(_is_nan(x1), x2, r))


@fmax.reference
def _fmax_ref(x1, x2):
    return _nan_ignoring(maximum, x1, x2)


fmin = binary("fmin", promote=_ORD_SAME, doc=(
    "Element-wise minimum ignoring NaN (NaN only where both are NaN).\n\n"
    "NumPy: ``np.fmin``.  The result has the operands' common dtype.\n\n"
    "Example:\n    >>> polyops.ops.fmin(polyops.ops.convert_to_tensor([1.0, float('nan')]), 0.0)\n    array([0., 0.], dtype=float32)"))


@fmin.reference
def _fmin_ref(x1, x2):
    return _nan_ignoring(minimum, x1, x2)


# Kernel contract (fmod): x1 and x2 share the result dtype (bool -> int32); the remainder
# of truncated division, with the sign of x1.  Integer fmod(x, 0) is 0 (docs/numerics.md),
# float fmod(x, 0) and fmod(+-inf, y) are NaN, fmod(x, +-inf) is x.
fmod = binary("fmod", promote=_ORD_NUMERIC, doc=(
    "Remainder of truncated division: it has the sign of ``x1`` (``mod`` takes ``x2``'s).\n\n"
    "NumPy: ``np.fmod``.  bool operands compute in int32; integer ``fmod(x, 0)`` is 0, as\n"
    "for ``mod`` (docs/numerics.md), float ``fmod(x, 0)`` is NaN.\n\n"
    "Example:\n    >>> polyops.ops.fmod(polyops.ops.convert_to_tensor([-3, 3]), 2)\n    array([-1,  1], dtype=int32)"))


@fmod.reference
def _fmod_ref(x1, x2):
    dt = _dtype_of(x1)
    if dt in _dtypes.FLOAT_TYPES:
        r = mod(abs(x1), abs(x2))  # both non-negative: floored == truncated
        return where(less(x1, 0), negative(r), where(equal(x1, 0), subtract(x1, r), r))
    r = mod(x1, x2)
    if dt in _dtypes.UINT_TYPES:
        return r
    fix = logical_and(not_equal(r, 0), not_equal(less(r, 0), less(x1, 0)))
    return where(fix, subtract(r, x2), r)


def _euclid_steps(dtype: str) -> int:
    """Euclid's worst case (consecutive Fibonacci numbers) for ``dtype``'s range:
    ceil(log_phi(2**bits)) + 2 steps, a static count so the loop traces."""
    bits = int("".join(c for c in dtype if c.isdigit()))
    return int(bits * 1.4405) + 2


# Kernel contract (gcd, lcm): x1 and x2 share an integer dtype (bools arrive as int32;
# floats are rejected); results are non-negative, gcd(0, 0) = lcm(0, 0) = 0, and
# overflow wraps (gcd(INT_MIN, 0) = INT_MIN, as NumPy).
gcd = binary("gcd", promote=_INT_NUMERIC, doc=(
    "Greatest common divisor of ``|x1|`` and ``|x2|``; ``gcd(0, 0)`` is 0.\n\n"
    "NumPy: ``np.gcd``.  Integers only (bool computes in int32).  The reference runs\n"
    "Euclid's algorithm for a fixed number of steps set by the dtype's width.\n\n"
    "Example:\n    >>> polyops.ops.gcd(polyops.ops.convert_to_tensor([12, -18, 0]), 8)\n    array([4, 2, 8], dtype=int32)"))


@gcd.reference
def _gcd_ref(x1, x2):
    a, b = abs(x1), abs(x2)
    for _ in range(_euclid_steps(_dtype_of(a))):
        # mod(a, 0) is 0 (the integer-division rule), so a finished pair (g, 0) stays
        a, b = where(not_equal(b, 0), b, a), mod(a, b)
    return abs(a)  # an INT_MIN operand can leave a negative a


lcm = binary("lcm", promote=_INT_NUMERIC, doc=(
    "Least common multiple of ``|x1|`` and ``|x2|``; 0 if either is 0.\n\n"
    "NumPy: ``np.lcm``.  Integers only (bool computes in int32); overflow wraps.\n\n"
    "Example:\n    >>> polyops.ops.lcm(polyops.ops.convert_to_tensor([4, 6]), 6)\n    array([12,  6], dtype=int32)"))


@lcm.reference
def _lcm_ref(x1, x2):
    # floor_divide(0, 0) is 0 (the integer-division rule): lcm(0, 0) = 0
    return multiply(floor_divide(abs(x1), gcd(x1, x2)), abs(x2))


# Kernel contract (divide_no_nan): x1 and x2 share the floating result dtype; 0 wherever
# x2 == 0 (whatever x1 is, NaN included), else x1 / x2.
divide_no_nan = binary("divide_no_nan", promote=_promote.floating, doc=(
    "``x1 / x2``, and 0 where ``x2`` is 0 (even for a NaN or inf ``x1``).\n\n"
    "NumPy: ``np.where(x2 == 0, 0, x1 / x2)``.  Ints and bools compute in floatx.\n\n"
    "Example:\n    >>> polyops.ops.divide_no_nan(polyops.ops.convert_to_tensor([1.0, 1.0]), polyops.ops.convert_to_tensor([2.0, 0.0]))\n    array([0.5, 0. ], dtype=float32)"))


@divide_no_nan.reference
def _divide_no_nan_ref(x1, x2):
    zero = equal(x2, 0)
    return where(zero, 0.0, divide(x1, where(zero, 1.0, x2)))


__all__ = [
    "Arccos", "Arccosh", "Arcsin", "Arcsinh", "Arctan", "Arctan2", "Arctanh", "Cbrt", "Cosh",
    "Deg2rad", "DivideNoNan", "Exp2", "Expm1", "Fabs", "Fmax", "Fmin", "Fmod", "Gcd",
    "Heaviside", "Hypot", "I0", "Lcm", "Ldexp", "Log10", "Log1p", "Log2", "Logaddexp",
    "Logaddexp2", "Rad2deg", "Reciprocal", "Sinc", "Sinh", "Tan", "Trunc", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "cbrt", "cosh", "deg2rad",
    "divide_no_nan", "exp2", "expm1", "fabs", "fmax", "fmin", "fmod", "gcd", "heaviside",
    "hypot", "i0", "lcm", "ldexp", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "rad2deg", "reciprocal", "sinc", "sinh", "tan", "trunc",
]

_finish(globals())
