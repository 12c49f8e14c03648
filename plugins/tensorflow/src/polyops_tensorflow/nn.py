"""TensorFlow kernels for the ``nn`` op family."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from .numpy import _host_view

relu = tf.nn.relu
sigmoid = tf.math.sigmoid


def softmax(x, axis):
    out = tf.nn.softmax(x, axis)
    # NumPy's formula, exp(x - max) / sum(exp(x - max)), is NaN along an axis that
    # holds +inf or NaN; tf.nn.softmax gives 0 beside an inf.  Eagerly, patch only then.
    host = _host_view(x)
    if host is None or not (host < np.inf).all():
        finite = tf.reduce_all(tf.less(x, tf.constant(np.inf, x.dtype)), axis, keepdims=True)
        out = tf.where(finite, out, tf.constant(np.nan, x.dtype))
    return out
