"""NumPy kernels of ``polyops.ops.numpy.logic``: bitwise ops and shifts, bit views,
predicates (isnan, isclose...), nextafter and complex parts."""

from __future__ import annotations

import numpy as np

from polyops.plugin import SplitKernel, any_dtype

from ..core import NP_DTYPES
from ._common import _BF16, _LOW_FLOATS, _is_float, _wide


# ----- catalogue primitives -----------------------------------------------------------

bitwise_and = np.bitwise_and
bitwise_or = np.bitwise_or
bitwise_xor = np.bitwise_xor
bitwise_invert = np.invert


# NumPy defines shifts by the bit width or more as the contract does (0; right: the sign
# fills), so the ufuncs are the kernels
left_shift = np.left_shift
right_shift = np.right_shift


def view(x, dtype):
    return x.view(NP_DTYPES[dtype])


# ----- predicates and complex parts ---------------------------------------------------

logical_xor = any_dtype(np.logical_xor)  # (any dtype: truth values)
isfinite = np.isfinite
isinf = np.isinf
isnan = np.isnan


def isneginf(x):
    return x == -np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isposinf(x):
    return x == np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isreal(x):
    return np.imag(x) == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool)


def _signbit(x):
    if x.dtype == np.bool_:
        return np.zeros(x.shape, bool)
    return np.signbit(x) if _is_float(x) else x < 0


# NumPy's float loops are the kernel (no dtype test on the fast paths); ints, bools and
# bfloat16 (an ml_dtypes type np.signbit may lack) take the general one
signbit = SplitKernel(np.signbit, _signbit, ("float16", "float32", "float64"))


def isclose(x1, x2, rtol, atol, equal_nan):
    return np.isclose(x1, x2, rtol, atol, equal_nan)


def allclose(x1, x2, rtol, atol, equal_nan):
    return np.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    if x.dtype.kind not in "fc" and x.dtype != _BF16:  # ints and bools: unchanged
        return x
    # np.nan_to_num leaves bfloat16 (not an np.inexact type) alone: replace in float32
    return np.nan_to_num(_wide(x), nan=nan, posinf=posinf, neginf=neginf).astype(x.dtype)


def _nextafter(x1, x2):
    # x2 where x1 == x2, in every dtype: NumPy's float16 loop gives x1 (-0.0 towards 0.0)
    return np.where(x1 == x2, x2, np.nextafter(x1, x2))


# float32/float64 use C's nextafter, which gives x2 where x1 == x2 already
nextafter = SplitKernel(np.nextafter, _nextafter, ("float32", "float64"))


real = np.real
imag = np.imag


def conjugate(x):
    return np.conjugate(x) if x.dtype.kind == "c" else x


def angle(x):
    if x.dtype in _LOW_FLOATS:  # no compute dtype: float32, rounded once (NumPy's float16 loop)
        return np.angle(x.astype(np.float32)).astype(x.dtype)
    return np.angle(x)
