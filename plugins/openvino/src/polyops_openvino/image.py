"""OpenVINO kernels for the ``image`` op family (the rest use core's references)."""

from __future__ import annotations

import numpy as np
from polyops.plugin import reference

from ._graph import T, axes_const, etype, ops, run1_dyn, to
from .numpy.indexing import pad as _pad

_GRAY = np.array([0.2989, 0.5870, 0.1140], np.float32)


def rgb_to_grayscale(images, data_format):
    # float16/float32 images: one model, the weighted channel sum in f32 (as core's
    # reference: 3.5x the model's own call on small images, which ran a cast, a
    # tensordot, an expand_dims and a cast).  Ints (truncated toward zero), float64 (the
    # CPU plugin computes it in f32), bfloat16 and recorded (jit) images: the reference.
    nd = images.ndim
    ch = nd - 1 if data_format == "channels_last" else nd - 3
    if (type(images) is not np.ndarray or images.shape[ch] == 1
            or images.dtype not in (np.float32, np.float16)):
        return reference("rgb_to_grayscale")(images, data_format)
    shape = [1] * nd
    shape[ch] = 3

    def build(p):
        w = ops.constant(_GRAY.reshape(shape))
        y = ops.reduce_sum(ops.multiply(to(p, T.f32), w), axes_const([ch]), keep_dims=True)
        return to(y, etype(p))

    return run1_dyn(("rgb_to_grayscale", nd, ch), build, images)


def pad_images(images, top, left, bottom, right, target_height, target_width, data_format):
    # numpy.pad's model (core's reference goes through pad's own entry, a second prepare)
    nd = images.ndim
    widths = [(0, 0)] * nd
    h = nd - 3 if data_format == "channels_last" else nd - 2
    widths[h] = (top, bottom)
    widths[h + 1] = (left, right)
    return _pad(images, tuple(widths), "constant", 0)
