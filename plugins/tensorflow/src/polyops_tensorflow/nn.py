"""TensorFlow kernels for the ``nn`` op family."""

from __future__ import annotations

import tensorflow as tf

relu = tf.nn.relu
sigmoid = tf.math.sigmoid
softmax = tf.nn.softmax  # softmax(logits, axis)
