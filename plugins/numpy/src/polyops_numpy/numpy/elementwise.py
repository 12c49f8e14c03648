"""NumPy kernels of ``polyops.ops.numpy.elementwise``: transcendental and arithmetic
functions (arctan2, log1p, hypot, gcd...)."""

from __future__ import annotations

import numpy as np

from ._common import _LOW_FLOATS, _is_float


# ----- catalogue primitive ------------------------------------------------------------

arctan2 = np.arctan2


# ----- elementwise functions ----------------------------------------------------------


def _in_float32(np_fn):
    """np_fn, computed in float32 for float16/bfloat16 and rounded once (NumPy's float16
    loops do the same; ml_dtypes lacks some of these ufuncs for bfloat16)."""

    def kernel(*xs):
        d = xs[0].dtype
        if d in _LOW_FLOATS:
            return np.asarray(np_fn(*(x.astype(np.float32) for x in xs))).astype(d)
        return np_fn(*xs)

    kernel.__name__ = np_fn.__name__
    return kernel


fabs = _in_float32(np.fabs)
reciprocal = _in_float32(np.reciprocal)
expm1 = _in_float32(np.expm1)
log1p = _in_float32(np.log1p)
exp2 = _in_float32(np.exp2)
log2 = _in_float32(np.log2)
log10 = _in_float32(np.log10)
logaddexp = _in_float32(np.logaddexp)
logaddexp2 = _in_float32(np.logaddexp2)
cbrt = _in_float32(np.cbrt)
tan = _in_float32(np.tan)
arcsin = _in_float32(np.arcsin)
arccos = _in_float32(np.arccos)
arctan = _in_float32(np.arctan)
sinh = _in_float32(np.sinh)
cosh = _in_float32(np.cosh)
arcsinh = _in_float32(np.arcsinh)
arccosh = _in_float32(np.arccosh)
arctanh = _in_float32(np.arctanh)
deg2rad = _in_float32(np.deg2rad)
rad2deg = _in_float32(np.rad2deg)
sinc = _in_float32(np.sinc)
hypot = _in_float32(np.hypot)
heaviside = _in_float32(np.heaviside)
fmax = _in_float32(np.fmax)
fmin = _in_float32(np.fmin)
fmod = _in_float32(np.fmod)
gcd = np.gcd
lcm = np.lcm


def i0(x):
    # in float64: np.i0's exp(x) overflows float32 well before the result does
    return np.i0(x.astype(np.float64)).astype(x.dtype)


def trunc(x):
    return _in_float32(np.trunc)(x) if _is_float(x) else x.copy()


def ldexp(x1, x2):
    if x1.dtype in _LOW_FLOATS:  # exact in float32, then rounded once
        return np.ldexp(x1.astype(np.float32), x2).astype(x1.dtype)
    return np.ldexp(x1, x2)


def divide_no_nan(x1, x2):
    zero = x2 == 0
    return np.where(zero, np.zeros((), x1.dtype), x1 / np.where(zero, np.ones((), x2.dtype), x2))
