"""TensorFlow kernels for the ``image`` op family (the rest use core's references)."""

from __future__ import annotations

import tensorflow as tf

# rgb_to_hsv/hsv_to_rgb follow dm_pix's formulas (not tf.image's), resize and the samplers
# follow jax.image / scipy: those stay on core's references.


def rgb_to_grayscale(images, data_format):
    # tf.image.rgb_to_grayscale's weights, but in float32 (float64 kept) without its
    # int rescaling: ints are truncated toward zero, as the contract says.
    nd = len(images.shape)
    ch = nd - 1 if data_format == "channels_last" else nd - 3
    if images.shape[ch] == 1:
        return images
    work = tf.float64 if images.dtype == tf.float64 else tf.float32
    w = tf.constant([0.2989, 0.5870, 0.1140], work)
    out = tf.tensordot(tf.cast(images, work), w, [[ch], [0]])
    return tf.cast(tf.expand_dims(out, ch), images.dtype)
