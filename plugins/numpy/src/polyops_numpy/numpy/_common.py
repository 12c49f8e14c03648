"""Helpers shared by the ``numpy`` family's kernel modules (16-bit floats, widening)."""

from __future__ import annotations

import numpy as np

from ..core import HALF_NP as _LOW_FLOATS
from ..core import NP_DTYPES

_BF16 = NP_DTYPES["bfloat16"]


def _is_float(x):
    return x.dtype.kind == "f" or x.dtype == _BF16


def _wide(x):
    """float16/bfloat16 as float32, for ops without a compute dtype (accumulation, or
    a replacement NumPy does not do in bfloat16)."""
    return x.astype(np.float32) if x.dtype in _LOW_FLOATS else x
