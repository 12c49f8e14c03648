"""JAX kernels for the ``linalg`` op family (the rest use core's references)."""

from __future__ import annotations
