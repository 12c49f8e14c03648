"""Property strategies for `polyops.ops.nn.activations` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    return {}
