"""Linear algebra (``keras.ops.linalg``): decompositions, solves, norms, jvp.

Ops are declared as in `polyops.ops.numpy` (see its docstring).
"""

from __future__ import annotations

from ._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "linalg")
