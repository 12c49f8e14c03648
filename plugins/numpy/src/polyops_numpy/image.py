"""NumPy kernels for the ``image`` op family (the rest use core's references)."""

from __future__ import annotations
