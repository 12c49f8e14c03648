"""NumPy kernels of ``polyops.ops.numpy.logic``: bitwise ops and shifts, bit views,
predicates (isnan, isclose...), nextafter and complex parts."""

from __future__ import annotations

import numpy as np

from ..core import NP_DTYPES
from ._common import _BF16, _LOW_FLOATS, _is_float, _wide


# ----- catalogue primitives -----------------------------------------------------------

bitwise_and = np.bitwise_and
bitwise_or = np.bitwise_or
bitwise_xor = np.bitwise_xor
bitwise_invert = np.invert


def _shift_count(x, y):
    """Counts clipped to [0, bits]: NumPy's (C's) shift by >= the width is undefined."""
    bits = x.dtype.itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype), y >= bits


def left_shift(x, y):
    count, over = _shift_count(x, y)
    return np.where(over, np.zeros((), x.dtype), np.left_shift(x, count))


def right_shift(x, y):
    count, over = _shift_count(x, y)
    # a count of bits-1 already gives 0 or -1 (arithmetic shift); larger counts keep that
    return np.where(over & (x.dtype.kind == "u"), np.zeros((), x.dtype), np.right_shift(x, count))


def view(x, dtype):
    return x.view(NP_DTYPES[dtype])


# ----- predicates and complex parts ---------------------------------------------------

logical_xor = np.logical_xor
isfinite = np.isfinite
isinf = np.isinf
isnan = np.isnan


def isneginf(x):
    return x == -np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isposinf(x):
    return x == np.inf if _is_float(x) else np.zeros(x.shape, bool)


def isreal(x):
    return np.imag(x) == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool)


def signbit(x):
    if x.dtype == np.bool_:
        return np.zeros(x.shape, bool)
    return np.signbit(x) if _is_float(x) else x < 0


def isclose(x1, x2, rtol, atol, equal_nan):
    return np.isclose(x1, x2, rtol, atol, equal_nan)


def allclose(x1, x2, rtol, atol, equal_nan):
    return np.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    if x.dtype.kind not in "fc" and x.dtype != _BF16:  # ints and bools: unchanged
        return x
    # np.nan_to_num leaves bfloat16 (not an np.inexact type) alone: replace in float32
    return np.nan_to_num(_wide(x), nan=nan, posinf=posinf, neginf=neginf).astype(x.dtype)


def nextafter(x1, x2):
    # x2 where x1 == x2, in every dtype: NumPy's float16 loop gives x1 (-0.0 towards 0.0)
    return np.where(x1 == x2, x2, np.nextafter(x1, x2))


real = np.real
imag = np.imag


def conjugate(x):
    return np.conjugate(x) if x.dtype.kind == "c" else x


def angle(x):
    if x.dtype in _LOW_FLOATS:  # no compute dtype: float32, rounded once (NumPy's float16 loop)
        return np.angle(x.astype(np.float32)).astype(x.dtype)
    return np.angle(x)
