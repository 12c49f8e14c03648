"""OpenVINO kernels for the ``image`` op family (the rest use core's references)."""

from __future__ import annotations

from .numpy.indexing import pad as _pad


def pad_images(images, top, left, bottom, right, target_height, target_width, data_format):
    # numpy.pad's model (core's reference goes through pad's own entry, a second prepare)
    nd = images.ndim
    widths = [(0, 0)] * nd
    h = nd - 3 if data_format == "channels_last" else nd - 2
    widths[h] = (top, bottom)
    widths[h + 1] = (left, right)
    return _pad(images, tuple(widths), "constant", 0)
