"""NumPy kernels of ``polyops.ops.numpy.elementwise``: transcendental and arithmetic
functions (arctan2, log1p, hypot, gcd...)."""

from __future__ import annotations

import numpy as np

from ._common import _LOW_FLOATS, _is_float


# ----- catalogue primitive ------------------------------------------------------------

arctan2 = np.arctan2


# ----- elementwise functions ----------------------------------------------------------


def _in_float32(np_fn):
    """np_fn, computed in float32 for float16/bfloat16 and rounded once, for ops without
    a compute dtype (NumPy's float16 loops do the same; ml_dtypes lacks some of these
    ufuncs for bfloat16)."""

    def kernel(*xs):
        d = xs[0].dtype
        if d in _LOW_FLOATS:
            return np.asarray(np_fn(*(x.astype(np.float32) for x in xs))).astype(d)
        return np_fn(*xs)

    kernel.__name__ = np_fn.__name__
    return kernel


# float16/bfloat16 operands of these arrive as float32 (compute="float32")
expm1 = np.expm1
log1p = np.log1p
exp2 = np.exp2
log2 = np.log2
log10 = np.log10
logaddexp = np.logaddexp
logaddexp2 = np.logaddexp2
cbrt = np.cbrt
tan = np.tan
arcsin = np.arcsin
arccos = np.arccos
arctan = np.arctan
sinh = np.sinh
cosh = np.cosh
arcsinh = np.arcsinh
arccosh = np.arccosh
arctanh = np.arctanh
sinc = np.sinc
hypot = np.hypot
ldexp = np.ldexp
fabs = _in_float32(np.fabs)
reciprocal = _in_float32(np.reciprocal)
deg2rad = _in_float32(np.deg2rad)
rad2deg = _in_float32(np.rad2deg)
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


def divide_no_nan(x1, x2):
    zero = x2 == 0
    return np.where(zero, np.zeros((), x1.dtype), x1 / np.where(zero, np.ones((), x2.dtype), x2))
