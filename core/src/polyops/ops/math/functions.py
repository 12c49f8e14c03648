"""Segment reductions, top_k, logsumexp, cdist, extract_sequences, logdet and the special functions (rsqrt, erf, erfc, erfinv, gammainc).

Part of `polyops.ops.math`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "math")
