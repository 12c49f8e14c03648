"""NumPy kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations
