"""TensorFlow kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from polyops.plugin import nonempty

from ._compat import in_xla
from .numpy._common import _host_view

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# tf.signal in complex64 (complex128 for float64 parts: 64-bit mode); results in the parts'
# dtype.


def _wide(x):
    return tf.float64 if x.dtype == tf.float64 else tf.float32


def _c(x):
    re, im = x
    return tf.complex(tf.cast(re, _wide(re)), tf.cast(im, _wide(re)))


def _parts(z, dtype):
    return tf.cast(tf.math.real(z), dtype), tf.cast(tf.math.imag(z), dtype)


def fft(x):
    return _parts(tf.signal.fft(_c(x)), x[0].dtype)


def fft2(x):
    return _parts(tf.signal.fft2d(_c(x)), x[0].dtype)


def ifft2(x):
    return _parts(tf.signal.ifft2d(_c(x)), x[0].dtype)


@nonempty  # tf's RFFT rejects zero-size input (and pads an empty signal with garbage)
def rfft(x, fft_length):
    # cropped here: tf's RFFT gradient has the uncropped shape (Incompatible shapes)
    z = tf.signal.rfft(tf.cast(x[..., :fft_length], _wide(x)), fft_length=[fft_length])
    return _parts(z, x.dtype)


@nonempty  # tf's IRFFT rejects zero-size input (and pads an empty signal with garbage)
def irfft(x, fft_length):
    # cropped here: tf's IRFFT gradient has the uncropped shape (Incompatible shapes)
    z = _c(x)[..., :fft_length // 2 + 1]
    return tf.cast(tf.signal.irfft(z, fft_length=[fft_length]), x[0].dtype)


# ===== special functions =====
# tf.math's kernels (float16/bfloat16 arrive as float32: the ops declare compute).


def erf(x):
    # erf(+-inf) = +-1, NaN propagates; tf's float64 erf (64-bit mode) gives NaN at +-inf
    if x.dtype == tf.float64:
        return tf.where(tf.math.is_inf(x), tf.math.sign(x), tf.math.erf(x))
    return tf.math.erf(x)


erfc = tf.math.erfc


def erfinv(x):
    # +-1 -> +-inf, |x| > 1 -> NaN.  tf's float32 erfinv loses ~3 digits near +-1 (2e-3
    # relative at 1 - 1e-6), so float32 and narrower compute in float64.
    # (tf.raw_ops: tf.cast's wrapper costs ~6 us an op eagerly)
    if x.dtype == tf.float64:
        return tf.math.erfinv(x)
    if in_xla():
        return _erfinv_xla(x)
    return tf.raw_ops.Cast(x=tf.raw_ops.Erfinv(x=tf.raw_ops.Cast(x=x, DstT=tf.float64)),
                           DstT=x.dtype)


@tf.custom_gradient
def _erfinv_xla(x):
    """erfinv below float64 compiled by XLA, with its derivative sqrt(pi) / 2 exp(y^2)
    taken in x's dtype from the result y (issue 21: its autodiff through the float64
    casts took 13 nodes that do work against tf's 9, this 12); inf at +-1, NaN past
    them."""
    y = tf.raw_ops.Cast(x=tf.raw_ops.Erfinv(x=tf.raw_ops.Cast(x=x, DstT=tf.float64)), DstT=x.dtype)

    def grad(g):
        return g * tf.constant(0.5 * math.sqrt(math.pi), x.dtype) * tf.exp(y * y)

    return y, grad


rsqrt = tf.math.rsqrt  # rsqrt(0) = inf, x < 0 -> NaN


def gammainc(a, x):
    # tf.math.igamma broadcasts; NaN where a <= 0 or x < 0, P(a, 0) = 0, P(a, inf) = 1.
    return tf.math.igamma(a, x)


def logdet(x):
    # log|det x| as slogdet (-inf for a singular matrix, 0 for 0x0).
    return tf.linalg.slogdet(x)[1]


def logsumexp(x, axis, keepdims):
    # tf.reduce_logsumexp: all -inf (or empty) -> -inf, +inf -> +inf, NaN propagates.
    ax = None if axis is None else list(axis)
    return tf.math.reduce_logsumexp(x, ax, keepdims)


# ===== segment reductions =====
# tf.math.unsorted_segment_*: ids >= num_segments (an error in tf) are mapped to -1, which
# tf drops; empty max/min segments (tf: the dtype's lowest/highest finite value) become
# -inf/+inf for floats.


def _segment(fn, empty=None):
    def kernel(data, segment_ids, num_segments, sorted):
        ids = tf.where(segment_ids < num_segments, segment_ids, -1)
        out = fn(data, ids, num_segments)
        if empty is not None and data.dtype.is_floating:
            count = tf.math.unsorted_segment_sum(tf.ones_like(ids), ids, num_segments)
            count = tf.reshape(count, [num_segments] + [1] * (len(data.shape) - 1))
            out = tf.where(count > 0, out, tf.constant(empty, out.dtype))
        return out

    return kernel


segment_sum = _segment(tf.math.unsorted_segment_sum)
segment_prod = _segment(tf.math.unsorted_segment_prod)
segment_max = _segment(tf.math.unsorted_segment_max, float("-inf"))
segment_min = _segment(tf.math.unsorted_segment_min, float("inf"))


# ===== top_k, in_top_k =====


@nonempty  # tf's TopK gradient raises on zero-size input (range delta 0)
def top_k(x, k, sorted):
    # tf.math.top_k: descending, ties by lower index; it misplaces NaN, so an input with
    # NaN goes through two stable sorts (NaN -> +inf by value, then NaNs first).
    if x.dtype == tf.bool:
        v, i = tf.math.top_k(tf.cast(x, tf.int32), k)
        return tf.cast(v, tf.bool), i
    if not x.dtype.is_floating:
        return tuple(tf.math.top_k(x, k))

    if in_xla() and x.shape.is_fully_defined():
        return _top_k_xla(x, k)

    def fast():
        return tuple(tf.math.top_k(x, k))

    def with_nan():
        nan = tf.math.is_nan(x)
        key = tf.where(nan, tf.constant(float("inf"), x.dtype), x)
        order = tf.argsort(key, -1, "DESCENDING", stable=True)
        nan_o = tf.cast(tf.gather(nan, order, batch_dims=len(x.shape) - 1), tf.int32)
        order = tf.gather(order, tf.argsort(nan_o, -1, "DESCENDING", stable=True),
                          batch_dims=len(x.shape) - 1)[..., :k]
        return tf.gather(x, order, batch_dims=len(x.shape) - 1), tf.cast(order, tf.int32)

    host = _host_view(x)  # eagerly, the NaN test on the host (tf.cond costs ~60 us)
    if host is not None:
        # (a min propagates NaN: one pass, no temporary)
        return with_nan() if np.isnan(host.min()) else fast()
    return tf.cond(tf.reduce_any(tf.math.is_nan(x)), with_nan, fast)


def _top_k_xla(x, k):
    """XLA's TopK orders totally (-0 < 0, -NaN lowest): one top_k on normalised keys
    (every NaN +NaN, the largest; -0 -> 0), the values gathered from x, as jax's kernel
    (6 nodes against the tf.cond of both paths' 15).  The gradient scatters the values'
    into x's shape directly (gather's with batch_dims would be ~60 nodes, TopK's 28)."""
    shape = x.shape.as_list()
    n, rows = shape[-1], int(np.prod(shape[:-1], dtype=np.int64))

    @tf.custom_gradient
    def top(x):
        keys = tf.where(tf.math.is_nan(x), tf.constant(float("nan"), x.dtype),
                        tf.where(tf.equal(x, 0), tf.zeros((), x.dtype), x))
        _, idx = tf.math.top_k(keys, k)

        def grad(g, _):
            offsets = tf.range(0, rows * n, n, dtype=idx.dtype)[:, None]  # each row's start
            flat = tf.reshape(tf.reshape(idx, (rows, k)) + offsets, (-1, 1))
            return tf.reshape(tf.scatter_nd(flat, tf.reshape(g, (-1,)), (rows * n,)), shape)

        return (tf.gather(x, idx, batch_dims=len(shape) - 1), idx), grad

    return top(x)


@nonempty  # tf's gather has no class to read with zero classes
def in_top_k(targets, predictions, k):
    # Counted directly (tf.math.in_top_k gives False for any non-finite target score):
    # True where fewer than k classes score strictly higher; NaN target -> -inf; a target
    # outside [0, C) -> False.
    p = tf.cast(predictions, tf.int32) if predictions.dtype == tf.bool else predictions
    c = p.shape[-1] if p.shape[-1] is not None else tf.shape(p)[-1]
    valid = tf.logical_and(targets >= 0, targets < c)
    t = tf.gather(p, tf.clip_by_value(targets, 0, c - 1)[:, None], batch_dims=1)  # (B, 1)
    if p.dtype.is_floating:
        t = tf.where(tf.math.is_nan(t), tf.constant(float("-inf"), p.dtype), t)
    higher = tf.reduce_sum(tf.cast(p > t, tf.int32), -1)
    return tf.logical_and(valid, higher < k)


# ===== extract_sequences =====


def extract_sequences(x, sequence_length, sequence_stride):
    # tf.signal.frame without padding: max(1 + (N - L) // stride, 0) frames, any dtype.
    return tf.signal.frame(x, sequence_length, sequence_stride, pad_end=False)
