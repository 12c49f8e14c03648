"""One-hot encodings and losses: one_hot, multi_hot, crossentropies, CTC.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "nn")
