"""Helpers shared by the ``numpy`` family's kernel modules (16-bit floats, widening)."""

from __future__ import annotations

import numpy as np

from ..core import _BF16  # noqa: F401  (a placeholder until bfloat16 is first used:
from ..core import HALF_NP as _LOW_FLOATS  # core._learn_bfloat16 replaces both here)

# canonical names of NumPy's own dtypes (all but bfloat16, an ml_dtypes type whose sort and
# comparisons differ): a `SplitKernel`'s fast dtypes
_NUMPY_REAL = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "float32", "float64")
_NUMPY_DTYPES = _NUMPY_REAL + ("complex64", "complex128")


def _is_float(x):
    return x.dtype.kind == "f" or x.dtype == _BF16


def _wide(x):
    """float16/bfloat16 as float32, for ops without a compute dtype (accumulation, or
    a replacement NumPy does not do in bfloat16)."""
    return x.astype(np.float32) if x.dtype in _LOW_FLOATS else x
