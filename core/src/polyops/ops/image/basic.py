"""Color conversions, padding and cropping, patches, filters (gaussian_blur, sobel_edges) and ssim.

Part of `polyops.ops.image`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "image")
