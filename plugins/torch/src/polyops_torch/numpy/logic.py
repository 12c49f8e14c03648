"""PyTorch kernels of `polyops.ops.numpy.logic`: predicates (isnan, isclose...),
bitwise ops and shifts, complex parts, bit views."""

from __future__ import annotations

import math

import torch

from polyops.plugin import any_dtype, nonempty

from ..core import TORCH_DTYPES
from ._common import _widened


# ===== bitwise ops, shifts, bit views ===============================================

bitwise_and = _widened(torch.bitwise_and)
bitwise_or = _widened(torch.bitwise_or)
bitwise_xor = _widened(torch.bitwise_xor)
bitwise_invert = _widened(torch.bitwise_not)

_BITS = {torch.int8: 8, torch.uint8: 8, torch.int16: 16, torch.uint16: 16, torch.int32: 32,
         torch.uint32: 32, torch.int64: 64, torch.uint64: 64}
_UNSIGNED_T = frozenset({torch.uint8, torch.uint16, torch.uint32, torch.uint64})


def _shift(fn, fill_negative):
    """Shifts with NumPy's result for counts >= the bit width (C leaves them undefined)."""

    def kernel(x, y):
        bits = _BITS[x.dtype]
        out = fn(x, torch.clamp(y, 0, bits - 1))
        over = y >= bits
        if fill_negative and x.dtype not in _UNSIGNED_T:
            return out  # a count of bits - 1 already gives the sign fill
        return torch.where(over, torch.zeros((), dtype=x.dtype), out)

    return _widened(kernel)


left_shift = _shift(torch.bitwise_left_shift, False)
right_shift = _shift(torch.bitwise_right_shift, True)


@nonempty  # torch's view checks strides even when there is no data
def view(x, dtype):
    target = TORCH_DTYPES[dtype]
    if x.dtype == target:
        return x
    return x.contiguous().view(target)


# ===== predicates and complex parts =================================================

logical_xor = any_dtype(torch.logical_xor)  # (any dtype: truth values)
isfinite = torch.isfinite  # complex: both parts finite
isinf = torch.isinf  # complex: either part infinite
isnan = torch.isnan  # complex: either part NaN
isneginf = torch.isneginf
isposinf = torch.isposinf


isreal = torch.isreal  # imag == 0; true for real dtypes


def signbit(x):
    if x.dtype == torch.bool or x.dtype in _UNSIGNED_T:
        return torch.zeros(x.shape, dtype=torch.bool)
    return torch.signbit(x)  # floats by the bit: -0.0 and negative NaNs


def isclose(x1, x2, rtol, atol, equal_nan):
    # NumPy's formula (torch.isclose refuses a negative tolerance and asks for a finite
    # |x1 - x2| rather than a finite x2)
    abs2 = torch.abs(x2)
    within = torch.abs(x1 - x2) <= abs2 * rtol + atol
    out = (within & (abs2 < math.inf)) | (x1 == x2)
    if equal_nan:
        out |= torch.isnan(x1) & torch.isnan(x2)
    return out


def allclose(x1, x2, rtol, atol, equal_nan):
    return torch.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    if not (x.is_floating_point() or x.is_complex()):
        return x
    return torch.nan_to_num(x, nan, posinf, neginf)  # complex: each part


nextafter = torch.nextafter  # x2 where x1 == x2 (also for float16, as the contract says)


def real(x):
    return torch.real(x)  # real input: x itself


def imag(x):
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def conjugate(x):
    # conj_physical: a plain tensor, not one with torch's lazy conjugate bit
    return torch.conj_physical(x) if x.is_complex() else x


conj = conjugate


def angle(x):
    if x.is_complex():
        return torch.angle(x)  # atan2(imag, real)
    # torch.angle(-0.0) is 0; NumPy's arctan2(0, -0.0) is pi
    out = torch.where(torch.signbit(x), math.pi, 0.0).to(x.dtype)
    return torch.where(torch.isnan(x), x, out)
