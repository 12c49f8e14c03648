"""Helpers shared by the ``numpy`` family's kernel modules (low floats, widening)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..core import NP_DTYPES

_LOW_FLOATS = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_BF16 = NP_DTYPES["bfloat16"]


def _is_float(x):
    return x.dtype.kind == "f" or x.dtype == _BF16


def _wide(x):
    """float16/bfloat16 as float32 (accumulation, or a sort that puts NaN last)."""
    return x.astype(np.float32) if x.dtype in _LOW_FLOATS else x
