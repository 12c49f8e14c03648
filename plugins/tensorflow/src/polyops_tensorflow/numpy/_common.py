"""Helpers shared by the ``numpy`` family's submodules: dtype sets, tf-friendly
shapes and axes, cheap host views, and the dtype round trips of kernels that compute
in another dtype.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from ..core import NP_DTYPES, EagerTensor

_BOOL = tf.bool
_INT32 = tf.int32
_INT64 = tf.int64
_UNSIGNED = frozenset({tf.uint8, tf.uint16, tf.uint32, tf.uint64})
_INTS = frozenset({tf.int8, tf.int16, tf.int32, tf.int64}) | _UNSIGNED
_FLOATS = frozenset({tf.bfloat16, tf.float16, tf.float32, tf.float64})
_COMPLEX = frozenset({tf.complex64, tf.complex128})


_HALF = frozenset({tf.bfloat16, tf.float16})
_F32 = tf.float32
_F64 = tf.float64


def _ints(values):
    # tf converts a tuple argument (shape, perm, axes) to a tensor ~10x slower
    # than tf.constant does.
    return tf.constant(values, _INT32)


def _host_view(x):
    """x as a NumPy array when that is free (an eager tensor in CPU memory), else None.

    Lets a kernel check its input eagerly for the rare case that needs a patch
    (NaN in argmax, negative indices in take) instead of always paying for it.
    """
    if type(x) is EagerTensor and "device:CPU" in x.backing_device:
        # a read-only view of the tensor's buffer (x.numpy() copies: ~70 us at 512x512);
        # bfloat16 has no buffer view ("__array__ method not producing an array")
        try:
            return np.asarray(x)
        except ValueError:
            return x.numpy()
    return None


def _axis(axis):
    """A canonical reduction axis (None or a sorted tuple) in tf's fastest form."""
    if axis is None:
        return None
    if len(axis) == 1:
        return axis[0]
    return tf.constant(axis, _INT32)


def _multiply(x1, x2):
    if x1.dtype is _BOOL:
        return tf.logical_and(x1, x2)
    return tf.multiply(x1, x2)


def _valid_index(indices, n):
    """Under a trace, (indices with those outside [0, n) sent to 0, which are inside):
    those outside read 0 (polyops' policy; tf.gather raises on the CPU, gives 0 on GPUs
    and XLA clamps)."""
    n = tf.constant(n, _INT32) if isinstance(n, int) else n
    valid = tf.logical_and(tf.greater_equal(indices, 0), tf.less(indices, n))
    return tf.where(valid, indices, tf.zeros_like(indices)), valid


def _restore(out, d):
    return tf.not_equal(out, tf.zeros((), out.dtype)) if d is _BOOL else tf.cast(out, d)


def _axis_len(x, axis):
    n = x.shape[axis]
    return n if n is not None else tf.shape(x, out_type=_INT32)[axis]


def _np_scalar(value, d):
    return tf.constant(np.full((), value, NP_DTYPES[d.name]), d)
