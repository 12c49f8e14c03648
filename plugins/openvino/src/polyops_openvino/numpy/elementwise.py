"""OpenVINO kernels of ``polyops.ops.numpy.elementwise``: transcendental and arithmetic
functions, built from the f32 nodes (with NaN, infinity and signed-zero fixes) or the
exact int32 helpers of ``_common``."""

from __future__ import annotations

import math

import numpy as np

from polyops.plugin import reference

from .._graph import const, etype, ops
from .._graph import run1_dyn
from .._graph import copy as _copy
from ._common import (
    _F32, _FLOAT, _UNSIGNED, _binary, _conv, _cpu_type, _eq, _exp, _extremum, _fmod,
    _int_divmod, _kind, _nan_aware, _unary, _wide,
)


def _signbit(v):
    """True where the f32 node ``v`` is negative, -0.0 included (1 / -0.0 is -inf)."""
    zero = const(0.0, _F32)
    neg_zero = ops.logical_and(ops.equal(v, zero), ops.less(ops.divide(const(1.0, _F32), v), zero))
    return ops.logical_or(ops.less(v, zero), neg_zero)


def _arctan2_build(y, x):
    t = etype(y)
    y, x = ops.convert(y, _F32) if t != _F32 else y, ops.convert(x, _F32) if t != _F32 else x
    pi = const(math.pi, _F32)
    neg_y, neg_x = _signbit(y), _signbit(x)
    sign_y = ops.select(neg_y, const(-1.0, _F32), const(1.0, _F32))
    # the quadrant from atan(y / x), which covers finite, +-0 and single infinities
    base = ops.atan(ops.divide(y, x))
    base = ops.select(neg_x, ops.add(base, ops.multiply(sign_y, pi)), base)
    # both zero: +-0 or +-pi; both infinite: +-pi/4 or +-3pi/4 (NumPy's IEEE answers)
    zero = const(0.0, _F32)
    both_zero = ops.logical_and(ops.equal(y, zero), ops.equal(x, zero))
    at_zero = ops.multiply(sign_y, ops.select(neg_x, pi, zero))
    inf = const(np.inf, _F32)
    both_inf = ops.logical_and(ops.equal(ops.abs(y), inf), ops.equal(ops.abs(x), inf))
    at_inf = ops.multiply(sign_y, ops.select(neg_x, const(3 * math.pi / 4, _F32), const(math.pi / 4, _F32)))
    out = ops.select(both_zero, at_zero, ops.select(both_inf, at_inf, base))
    return _conv(out, t)


def arctan2(x1, x2):
    return run1_dyn(("arctan2",), _arctan2_build, x1, x2)


arcsin = _unary("arcsin", ops.asin)
arccos = _unary("arccos", ops.acos)
arctan = _unary("arctan", ops.atan)
sinh = _unary("sinh", ops.sinh)
cosh = _unary("cosh", ops.cosh)
tan = _unary("tan", ops.tan)
arcsinh = _unary("arcsinh", ops.asinh)
arccosh = _unary("arccosh", ops.acosh)
arctanh = _unary("arctanh", ops.atanh)
fabs = _unary("fabs", ops.abs)


def _f(v, like):
    return const(v, etype(like))


def _reciprocal(x):
    return ops.divide(_f(1.0, x), x)


reciprocal = _unary("reciprocal", _reciprocal)


def _trunc_f(x):
    return ops.select(ops.less(x, _f(0.0, x)), ops.ceiling(x), ops.floor(x))


_trunc_k = _unary("trunc", _trunc_f)


def trunc(x):
    if _kind(x) != "f":
        return _copy(x)
    return _trunc_k(x)


deg2rad = _unary("deg2rad", lambda x: ops.multiply(x, _f(math.pi / 180.0, x)))
rad2deg = _unary("rad2deg", lambda x: ops.multiply(x, _f(180.0 / math.pi, x)))


def _log1p_f(x):
    u = ops.add(x, _f(1.0, x))
    r = ops.multiply(ops.log(u), ops.divide(x, ops.subtract(u, _f(1.0, x))))
    r = ops.select(ops.equal(u, _f(1.0, x)), x, r)
    return ops.select(ops.equal(u, _f(np.inf, x)), u, r)


def _expm1_f(x):
    u = _exp(x)
    um1 = ops.subtract(u, _f(1.0, x))
    r = ops.multiply(um1, ops.divide(x, ops.log(u)))
    r = ops.select(ops.equal(u, _f(1.0, x)), x, ops.select(ops.equal(um1, _f(-1.0, x)), _f(-1.0, x), r))
    return ops.select(ops.equal(u, _f(np.inf, x)), u, r)


def _exp2_f(x):
    return ops.power(_f(2.0, x), x)


log1p = _unary("log1p", _log1p_f)
expm1 = _unary("expm1", _expm1_f)
exp2 = _unary("exp2", _exp2_f)
log2 = _unary("log2", lambda x: ops.divide(ops.log(x), _f(math.log(2.0), x)))
log10 = _unary("log10", lambda x: ops.divide(ops.log(x), _f(math.log(10.0), x)))


def _cbrt_f(x):
    a = ops.abs(x)
    r = ops.power(a, _f(1.0 / 3.0, x))
    newton = ops.add(r, ops.multiply(ops.subtract(ops.divide(a, ops.multiply(r, r)), r), _f(1.0 / 3.0, x)))
    ok = ops.logical_and(ops.less(_f(0.0, x), a), ops.less(a, _f(np.inf, x)))
    r = ops.select(ok, newton, r)
    return ops.select(ops.less(x, _f(0.0, x)), ops.negative(r),
                      ops.select(ops.less(_f(0.0, x), x), r, x))


cbrt = _unary("cbrt", _cbrt_f)


def _sinc_f(x):
    y = ops.multiply(ops.select(ops.equal(x, _f(0.0, x)), _f(1e-20, x), x), _f(math.pi, x))
    return ops.divide(ops.sin(y), y)


sinc = _unary("sinc", _sinc_f)

_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
_I0_LARGE = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
             0.02635537, -0.01647633, 0.00392377)


def _horner(t, coefs):
    r = ops.multiply(t, _f(coefs[-1], t))
    for c in coefs[-2:0:-1]:
        r = ops.multiply(ops.add(r, _f(c, t)), t)
    return ops.add(r, _f(coefs[0], t))


def _i0_f(x):
    a = ops.abs(x)
    s = ops.divide(a, _f(3.75, x))
    small = _horner(ops.multiply(s, s), _I0_SMALL)
    al = ops.select(ops.less(a, _f(3.75, x)), _f(3.75, x), a)  # NaN stays NaN
    q = ops.divide(_horner(ops.divide(_f(3.75, x), al), _I0_LARGE), ops.sqrt(al))
    h = _exp(ops.multiply(al, _f(0.5, x)))
    large = ops.multiply(ops.multiply(h, q), h)
    return ops.select(ops.less(_f(3.75, x), a), large, small)


i0 = _unary("i0", _i0_f)


def _hypot_f(x1, x2):
    a, b = ops.abs(x1), ops.abs(x2)
    m, n = _nan_aware(ops.maximum, a, b), _nan_aware(ops.minimum, a, b)
    q = ops.divide(n, m)
    r = ops.multiply(m, ops.sqrt(ops.add(_f(1.0, a), ops.multiply(q, q))))
    r = ops.select(ops.equal(m, _f(0.0, a)), _f(0.0, a), r)
    inf = ops.logical_or(ops.equal(a, _f(np.inf, a)), ops.equal(b, _f(np.inf, a)))
    return ops.select(inf, _f(np.inf, a), r)


hypot = _binary("hypot", _hypot_f)


def _logaddexp_f(base2):
    def fn(x1, x2):
        d = ops.negative(ops.abs(ops.subtract(x1, x2)))
        if base2:
            tail = ops.divide(_log1p_f(_exp2_f(d)), _f(math.log(2.0), x1))
        else:
            tail = _log1p_f(_exp(d))
        r = ops.add(_nan_aware(ops.maximum, x1, x2), tail)
        return ops.select(ops.equal(x1, x2), ops.add(x1, _f(1.0 if base2 else math.log(2.0), x1)), r)

    return fn


logaddexp = _binary("logaddexp", _logaddexp_f(False))
logaddexp2 = _binary("logaddexp2", _logaddexp_f(True))


def _heaviside_f(x1, x2):
    zero = _f(0.0, x1)
    step = ops.select(ops.less(x1, zero), zero, ops.select(ops.less(zero, x1), _f(1.0, x1), x1))
    return ops.select(ops.equal(x1, zero), x2, step)


heaviside = _binary("heaviside", _heaviside_f)


def _divide_no_nan_f(x1, x2):
    zero = _f(0.0, x1)
    z = ops.equal(x2, zero)
    return ops.select(z, zero, ops.divide(x1, ops.select(z, _f(1.0, x1), x2)))


divide_no_nan = _binary("divide_no_nan", _divide_no_nan_f)


def _nan_ignoring(fn):
    def build(a, b):
        t = etype(a)
        if t not in _FLOAT:
            return _extremum(fn)(a, b)
        au, bu = _cpu_type(a), _cpu_type(b)
        r = fn(au, bu)
        r = ops.select(ops.is_nan(bu), au, ops.select(ops.is_nan(au), bu, r))
        return _conv(r, t)

    return build


_fmax_build = _nan_ignoring(ops.maximum)
_fmin_build = _nan_ignoring(ops.minimum)


def fmax(x1, x2):
    return run1_dyn(("fmax",), _fmax_build, x1, x2)


def fmin(x1, x2):
    return run1_dyn(("fmin",), _fmin_build, x1, x2)


def _fmod_build(a, b):
    t = etype(a)
    if t in _FLOAT:
        a32 = _conv(a, _F32)
        r = _fmod(a32, _conv(b, _F32))
        r = ops.select(ops.equal(r, const(0.0, _F32)), ops.multiply(a32, const(0.0, _F32)), r)
        return _conv(r, t)  # a zero remainder takes the sign of x1
    au, bu = _cpu_type(a), _cpu_type(b)
    ut = etype(au)
    _, r = _int_divmod(au, bu)
    if ut not in _UNSIGNED:
        zero = const(0, ut)
        fix = ops.logical_and(ops.logical_not(_eq(r, zero)),
                              ops.not_equal(ops.less(r, zero), ops.less(au, zero)))
        r = ops.select(fix, ops.subtract(r, bu), r)
    return _conv(r, t)


def fmod(x1, x2):
    if _wide(x1):
        return reference("fmod")(x1, x2)
    return run1_dyn(("fmod",), _fmod_build, x1, x2)


def _gcd_nodes(a, b, steps):
    """Euclid's algorithm on i32/u32 nodes of |x1|, |x2| for a fixed number of steps."""
    t = etype(a)
    zero = const(0, t)
    for _ in range(steps):
        _, r = _int_divmod(a, b)
        a, b = ops.select(_eq(b, zero), a, b), r
    return a


def _abs_int(n):
    return n if etype(n) in _UNSIGNED else ops.abs(n)


def _gcd_build(lcm):
    def build(x1, x2):
        t = etype(x1)
        a, b = _cpu_type(x1), _cpu_type(x2)
        steps = int(t.bitwidth * 1.4405) + 2
        g = _abs_int(_gcd_nodes(_abs_int(a), _abs_int(b), steps))
        if not lcm:
            return _conv(g, t)
        q, _ = _int_divmod(_abs_int(a), g)
        return _conv(ops.multiply(q, _abs_int(b)), t)

    return build


def gcd(x1, x2):
    if _wide(x1):
        return reference("gcd")(x1, x2)
    return run1_dyn(("gcd",), _gcd_build(False), x1, x2)


def lcm(x1, x2):
    if _wide(x1):
        return reference("lcm")(x1, x2)
    return run1_dyn(("lcm",), _gcd_build(True), x1, x2)
