"""PyTorch kernels of `polyops.ops.numpy.elementwise`: transcendental and arithmetic
functions (arcsin, log1p, ldexp, gcd...).

Floats arrive in the result dtype; torch's float16/bfloat16 CPU kernels compute in
float32 and round once, as NumPy's own loops do.
"""

from __future__ import annotations

import math as _math

import torch

from .._compat import is_wrapped as _is_wrapped
from ._common import _F64, _int_division, _to, _widened


# ===== float functions ==============================================================

arctan2 = torch.atan2


fabs = torch.abs


def trunc(x):
    return torch.trunc(x) if x.is_floating_point() else x


reciprocal = torch.reciprocal
expm1 = torch.expm1
log1p = torch.log1p
exp2 = torch.exp2
log2 = torch.log2
log10 = torch.log10
logaddexp = torch.logaddexp
logaddexp2 = torch.logaddexp2
tan = torch.tan
arcsin = torch.asin
arccos = torch.acos
arctan = torch.atan
sinh = torch.sinh
cosh = torch.cosh
arcsinh = torch.asinh
arccosh = torch.acosh
arctanh = torch.atanh
deg2rad = torch.deg2rad
rad2deg = torch.rad2deg
sinc = torch.sinc


def i0(x):
    if x.dtype != _F64:
        # torch's own i0 in float64, rounded once (its float32 kernel is off by an ulp at 0
        # and overflows before the result); i0(+-inf) is NaN there, as NumPy's
        return _to(torch.i0(x.double()), x.dtype)
    # float64: torch.i0 overflows from 709.8, the result only from 714: i0e(x) *
    # exp(|x|/2)**2 stays finite up to the overflow threshold; i0(+-inf) is NaN (0 * inf)
    h = torch.exp(torch.abs(x) * 0.5)
    return torch.special.i0e(x) * h * h


hypot = torch.hypot  # inf if either is +-inf, even with a NaN


def heaviside(x1, x2):
    if x2.dtype is not x1.dtype:  # (the fast paths' operands agree: no cast call)
        x2 = _to(x2, x1.dtype)
    if not (x1.requires_grad or x2.requires_grad or _is_wrapped(x1) or _is_wrapped(x2)):
        return torch.where(torch.isnan(x1), x1, torch.heaviside(x1, x2))  # NumPy: NaN for NaN
    # torch.heaviside has no derivative; as a select, autograd gives the true one (0 in x1,
    # the cotangent in x2 where x1 == 0).  x1 * inf clamped to [0, 1] is 1 above 0, 0
    # below, NaN for NaN (and at 0, where x2 is taken); x1 detached (the product's
    # derivative, inf times clamp's 0, would be NaN); a NaN x1 is itself, so the cotangent
    # passes there as on jax and tensorflow.
    step = torch.clamp(x1.detach() * _math.inf, 0.0, 1.0)
    return torch.where(x1 == 0, x2, torch.where(torch.isnan(x1), x1, step))


def ldexp(x1, x2):
    if x1.dtype == _F64:
        # three factors 2**k, each finite (the reference's split): rounding as NumPy's
        n = torch.clamp(x2, -2200, 2200).to(torch.int64)
        n1 = torch.div(n, 3, rounding_mode="floor")
        n2 = torch.div(n - n1, 2, rounding_mode="floor")
        out = x1
        for k in (n1, n2, n - n1 - n2):
            out = out * torch.exp2(k.to(_F64))
        return out
    # x1 * 2**n is exact in float64 (or 0 / inf where x1's dtype would be too): round once
    # (the product promotes x1; n a fresh tensor, clamped in place)
    return _to(torch.mul(x1, torch.exp2(x2.double().clamp_(-1000, 1000))), x1.dtype)


# ===== NaN-ignoring extrema, integer functions, division ============================


def _nan_ignoring(fn, x1, x2):
    if x1.dtype == torch.bool:
        return (torch.logical_or if fn is torch.fmax else torch.logical_and)(x1, x2)
    return fn(x1, x2)


def _fmax(x1, x2):
    return _nan_ignoring(torch.fmax, x1, x2)


def _fmin(x1, x2):
    return _nan_ignoring(torch.fmin, x1, x2)


fmax = _widened(_fmax)
fmin = _widened(_fmin)


def fmod(x1, x2):
    if x1.is_floating_point():
        return torch.fmod(x1, x2)  # C's fmod: NaN for x / 0 and inf / y, x for x / inf
    return _int_division(torch.fmod, x1, x2)  # integer x / 0 is 0; torch raises


def _gcd(x1, x2):
    # torch leaves a negative gcd for an INT_MIN operand (gcd(INT_MIN, 6) is -2); abs of
    # INT_MIN wraps, so gcd(INT_MIN, 0) stays INT_MIN, as NumPy (in place: a fresh tensor)
    return torch.gcd(x1, x2).abs_()


gcd = _widened(_gcd)


def _lcm(x1, x2):
    # |x1| // gcd * |x2| wrapping (torch.lcm takes abs of the wrapped product, and its
    # int64 INT_MIN // -1 kills the process); gcd 0 (both 0) divides by 1 instead: 0.  In
    # place where the tensor is fresh and of the result's shape: two large tensors less
    g = _gcd(x1, x2)
    g.add_(g == 0)
    return torch.div(torch.abs(x1), g, rounding_mode="floor").mul_(torch.abs(x2))


lcm = _widened(_lcm)


def divide_no_nan(x1, x2):
    zero = x2 == 0
    return torch.where(zero, 0, x1 / torch.where(zero, 1, x2))
