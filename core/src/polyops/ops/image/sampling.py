"""Ops that resample images: resize, scale_and_translate, affine_transform, perspective_transform, map_coordinates, elastic_transform.

Part of `polyops.ops.image`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "image")
