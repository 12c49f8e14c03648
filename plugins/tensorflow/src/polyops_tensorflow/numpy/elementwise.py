"""TensorFlow kernels of ``polyops.ops.numpy.elementwise``: transcendental and
arithmetic functions (arcsin, log1p, hypot, fmod, gcd...).

Half-precision floats compute in float32 and round once where tf lacks a half kernel
or loses precision, as NumPy's own half-precision loops do.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from .._compat import in_xla
from ..core import EagerTensor
from ._common import (
    _F32,
    _F64,
    _FLOATS,
    _HALF,
    _INT32,
    _INTS,
    _UNSIGNED,
    _host_view,
    _ints,
    _multiply,
)
from .base import abs, floor_divide, maximum, minimum, mod

_raw = tf.raw_ops


def arctan2(x1, x2):
    if x1.dtype in _HALF:  # no half kernels on CPU
        return tf.cast(tf.math.atan2(tf.cast(x1, tf.float32), tf.cast(x2, tf.float32)), x1.dtype)
    return tf.math.atan2(x1, x2)


fabs = tf.abs  # floats only (ints arrive as floatx, complex is rejected)


def trunc(x):
    if x.dtype not in _FLOATS:  # ints and bools are already whole
        return x
    return tf.where(tf.less(x, tf.zeros((), x.dtype)), tf.math.ceil(x), tf.floor(x))


reciprocal = tf.math.reciprocal  # floats and complex
expm1 = tf.math.expm1
log1p = tf.math.log1p
tan = tf.math.tan
arcsin = tf.math.asin
arccos = tf.math.acos
arctan = tf.math.atan
sinh = tf.math.sinh
cosh = tf.math.cosh
arcsinh = tf.math.asinh
arccosh = tf.math.acosh
arctanh = tf.math.atanh


def i0(x):
    # Cephes' i0 in float64, as np.i0 (tf's float32 i0 overflows at |x| ~ 88.7, not ~91);
    # i0(+-inf) is NaN, as NumPy
    d = x.dtype
    if d is _F64:
        return tf.math.special.bessel_i0(x)
    return tf.cast(tf.math.special.bessel_i0(tf.cast(x, _F64)), d)


def _log_base(name, ln_base):
    inv = 1.0 / ln_base

    def kernel(x):
        d = x.dtype
        if d is _F64:
            return tf.math.truediv(tf.math.log(x), tf.constant(ln_base, _F64))
        # float64 keeps log(x) / ln(base) exact to the rounding of the result (log2 of a
        # power of two is exact, where float32 may give 2.9999998): a float64 product
        # with 1 / ln(base) is within 2 ulp of float64, far inside float32's rounding
        y = _raw.Mul(x=_raw.Log(x=_raw.Cast(x=x, DstT=_F64)), y=tf.constant(inv, _F64))
        return _raw.Cast(x=y, DstT=d)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


log2 = _log_base("log2", float(np.log(2.0)))
log10 = _log_base("log10", float(np.log(10.0)))


def cbrt(x):
    # core's reference in one kernel: a first root r = exp(log|x| / 3) (tf's pow costs
    # ~3x exp and log together, and is no closer), then one Newton step on the signed
    # root: rs + (t - rs) / 3 with t = x / r**2, within 1 ulp of the correctly rounded
    # root as with pow.  Where t is 0 or not finite (x = +-0, +-inf, NaN, a subnormal that
    # compares as 0) the answer is x itself.  (tf.raw_ops: the public wrappers add ~5 us
    # an op eagerly.)
    if in_xla():
        return _cbrt_xla(x)
    return _cbrt(x)[0]


def _cbrt(x):
    """(cbrt(x), whether x took the Newton step)."""
    third = tf.constant(1.0 / 3.0, x.dtype)
    r = _raw.Exp(x=_raw.Mul(x=_raw.Log(x=_raw.Abs(x=x)), y=third))
    rs = _raw.Mul(x=_raw.Sign(x=x), y=r)
    t = _raw.RealDiv(x=x, y=_raw.Mul(x=r, y=r))
    y = _raw.AddV2(x=rs, y=_raw.Mul(x=_raw.Sub(x=t, y=rs), y=third))
    stepped = _raw.IsFinite(x=_raw.Reciprocal(x=t))
    return _raw.SelectV2(condition=stepped, t=y, e=x), stepped


@tf.custom_gradient
def _cbrt_xla(x):
    """cbrt compiled by XLA with its derivative 1 / (3 cbrt(x)^2) (issue 21: autodiff of
    the Newton step took 41 nodes that do work against tf's 19, this 23); NaN where x
    kept itself (+-0, +-inf, NaN), as that autodiff gives there (0 / 0, 0 * inf)."""
    out, stepped = _cbrt(x)

    def grad(g):
        d = g / (tf.constant(3.0, x.dtype) * out * out)
        return tf.where(stepped, d, tf.constant(np.nan, x.dtype))

    return out, grad


def exp2(x):
    return tf.pow(tf.constant(2.0, x.dtype), x)


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


logaddexp = _logaddexp(None)
logaddexp.__name__ = logaddexp.__qualname__ = "logaddexp"
logaddexp2 = _logaddexp(2)
logaddexp2.__name__ = logaddexp2.__qualname__ = "logaddexp2"


_HYPOT_MIN = 2.0 ** -50  # a float32 hypot above it lost no square to underflow


def hypot(x1, x2):
    d = x1.dtype
    if d is _F32 and type(x1) is EagerTensor:
        # Eagerly, sqrt(x1**2 + x2**2) in float32 where it is safe: finite (no square
        # overflowed, no inf or NaN operand) and >= 2**-50 (a square flushed below 2**-126
        # weighs under a quarter ulp there); within 1 ulp of the float64 result.
        r = _raw.Sqrt(x=_raw.AddV2(x=_raw.Mul(x=x1, y=x1), y=_raw.Mul(x=x2, y=x2)))
        h = _host_view(r)
        if h is not None and h.min(initial=np.inf) >= _HYPOT_MIN and h.max(initial=0) < np.inf:
            return r
    if (d is not _F64 and in_xla() and x1.shape.is_fully_defined()
            and x2.shape.is_fully_defined()):
        return _hypot_xla(x1, x2)
    if d is _F64:
        a, b = tf.abs(x1), tf.abs(x2)  # scaled: sqrt of the squares would overflow
        m, n = tf.maximum(a, b), tf.minimum(a, b)
        q = tf.math.divide_no_nan(n, m)
        r = tf.multiply(m, tf.sqrt(tf.add(tf.constant(1.0, d), tf.multiply(q, q))))
    else:  # float64 squares cannot overflow or underflow for float32 and narrower
        a64, b64 = _raw.Cast(x=x1, DstT=_F64), _raw.Cast(x=x2, DstT=_F64)
        r = _raw.Cast(x=_raw.Sqrt(x=_raw.AddV2(x=_raw.Mul(x=a64, y=a64), y=_raw.Mul(x=b64, y=b64))),
                      DstT=d)
    # inf wins over NaN, as np.hypot (eagerly, patched only where an operand is infinite)
    h1, h2 = _host_view(x1), _host_view(x2)
    if h1 is not None and h2 is not None and not (np.isinf(h1).any() or np.isinf(h2).any()):
        return r
    inf = tf.logical_or(tf.math.is_inf(x1), tf.math.is_inf(x2))
    return tf.where(inf, tf.constant(np.inf, d), r)


def _hypot_xla(x1, x2):
    """hypot below float64 compiled by XLA, as below (the float64 root, inf where an
    operand is infinite), with autodiff's gradient of it in fewer nodes (issue 21: 31
    nodes that do work against tf's 15, this 26): g x / r in float64, r the root before
    the patch, so an infinite operand's own derivative is NaN (0 * inf) and the other's
    0, as the masked chain of squares gives."""
    d = x1.dtype

    @tf.custom_gradient
    def fn(x1, x2):
        a64, b64 = _raw.Cast(x=x1, DstT=_F64), _raw.Cast(x=x2, DstT=_F64)
        r64 = _raw.Sqrt(x=_raw.AddV2(x=_raw.Mul(x=a64, y=a64), y=_raw.Mul(x=b64, y=b64)))
        inf = tf.logical_or(tf.math.is_inf(x1), tf.math.is_inf(x2))

        def grad(g):
            # (the patched entries' cotangent +0, as the select passes it: signed zeros kept)
            g64 = _raw.Cast(x=tf.where(inf, tf.constant(0, d), g), DstT=_F64)
            return (_summed_to(_raw.Cast(x=g64 * (a64 / r64), DstT=d), x1.shape),
                    _summed_to(_raw.Cast(x=g64 * (b64 / r64), DstT=d), x2.shape))

        return tf.where(inf, tf.constant(np.inf, d), _raw.Cast(x=r64, DstT=d)), grad

    return fn(x1, x2)


def heaviside(x1, x2):
    d = x1.dtype
    zero = tf.constant(0, d)  # (tf.zeros((), d) costs ~10x more eagerly)
    if in_xla() and x1.shape.is_fully_defined() and x2.shape.is_fully_defined():
        return _heaviside_xla(x1, x2, zero)
    step = tf.where(tf.less(x1, zero), zero, tf.where(tf.greater(x1, zero), tf.constant(1, d), x1))
    return tf.where(tf.equal(x1, zero), x2, step)


def _heaviside_xla(x1, x2, zero):
    """heaviside compiled by XLA (issue 21: 4 nodes that do work, as tf's, where the
    selects below take 6): relu(sign(x1)) is 0 below 0, 1 above, NaN for NaN (XLA's sign
    and max keep NaN; tf's CPU kernels do not, hence XLA only).  Its gradient is the
    selects': the cotangent in x2 where x1 == 0, in x1 where x1 is NaN, 0 elsewhere."""
    @tf.custom_gradient
    def fn(x1, x2):
        at0 = tf.equal(x1, zero)

        def grad(g):
            return (_summed_to(tf.where(tf.math.is_nan(x1), g, zero), x1.shape),
                    _summed_to(tf.where(at0, g, zero), x2.shape))

        return tf.where(at0, x2, tf.nn.relu(tf.sign(x1))), grad

    return fn(x1, x2)


def _summed_to(g, shape):
    """The cotangent ``g`` of a broadcast operand summed back to its static ``shape``."""
    if g.shape == shape:
        return g
    lead = g.shape.rank - shape.rank
    axes = list(range(lead)) + [lead + i for i, n in enumerate(shape)
                                if n == 1 and g.shape[lead + i] != 1]
    return tf.reshape(tf.reduce_sum(g, axes), shape)


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
