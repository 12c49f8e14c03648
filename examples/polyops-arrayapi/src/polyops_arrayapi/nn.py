"""Kernels of the ``nn`` op family: none, on purpose.

This plugin implements primitive ops only (ops without a reference in core).
Every op of the ``nn`` family so far (``relu``, ``sigmoid``, ``softmax``) is a
composite: core's reference builds it from primitives (``maximum``, ``exp``,
``max``, ``sum``, ``divide``...), which run on this backend's ``numpy``-family
kernels, so the results are still arrays of the namespace.  A future primitive
``nn`` op would get its kernel here, built over ``xp`` like those of numpy.py.
"""

from __future__ import annotations


def make_kernels(xp) -> dict:
    """The ``nn`` family kernels over ``xp``: none (see the module docstring)."""
    return {}
