"""TensorFlow kernels for the ``nn`` op family."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from ._compat import in_xla
from .numpy._common import _HALF, _host_view

relu = tf.nn.relu
sigmoid = tf.math.sigmoid


def softmax(x, axis):
    rank = x.shape.rank
    if rank and axis in (-1, rank - 1):  # tf's kernel itself (tf.nn.softmax's wrapper: ~5 us)
        out = tf.raw_ops.Softmax(logits=x)
    else:
        out = tf.nn.softmax(x, axis)
    # NumPy's formula, exp(x - max) / sum(exp(x - max)), is NaN along an axis that
    # holds +inf or NaN; tf's Softmax kernel gives 0 beside an inf (and beside a NaN).
    # XLA's lowering is that formula: a graph XLA compiles (polyops.jit) needs no guard.
    # Elsewhere max - max is NaN exactly along such an axis and 0 on the others: one
    # reduction and two elementwise ops, off the tape (the guard has no gradient).
    if in_xla():
        return out
    host = _host_view(x)  # (a max propagates NaN: one pass, no temporary)
    if host is None or not host.max(initial=-np.inf) < np.inf:
        m = tf.reduce_max(x, axis, keepdims=True)
        out = out + tf.stop_gradient(m - m)
    return out


# ===== activations =====
# tf.nn's activations (float16/bfloat16 arrive as float32: the ops declare compute); the
# ops tf has no direct, matching function for use core's references.

relu6 = tf.nn.relu6  # ints too; NaN propagates
softplus = tf.math.softplus
log_sigmoid = tf.math.log_sigmoid
softsign = tf.nn.softsign
silu = tf.nn.silu
selu = tf.nn.selu


def gelu(x, approximate):
    if x.dtype != tf.float64:
        return tf.nn.gelu(x, approximate=approximate)
    # tf.nn.gelu loses 8 digits in float64 (64-bit mode: 1e-8 relative): the formulas
    if approximate:
        inner = np.sqrt(2 / np.pi) * (x + 0.044715 * (x * (x * x)))
        return (0.5 * x) * (1 + tf.math.tanh(inner))
    return (0.5 * x) * tf.math.erfc(x * -np.sqrt(0.5))


def leaky_relu(x, negative_slope):
    if x.dtype == tf.float64:  # (64-bit mode) tf's LeakyRelu holds the slope in float32
        return tf.where(x > 0, x, x * negative_slope)
    return tf.nn.leaky_relu(x, negative_slope)


def log_softmax(x, axis):
    return tf.nn.log_softmax(x, axis)


def elu(x, alpha):
    if alpha == 1.0:  # tf.nn.elu's own alpha
        return tf.nn.elu(x)
    return tf.where(x >= 0, x, alpha * tf.nn.elu(x))


# ===== conv and pools =====
# tf.nn.convolution / max_pool / avg_pool (TF's "same" is Keras's); TF's CPU kernels lack
# channels_first, so those inputs are transposed.
# Grouped convs and strides > 1 with dilation > 1 (unsupported by tf.nn.convolution)
# use core's reference; so do depthwise_conv and dilated conv_transposes.  conv_transpose
# computes the full transposed conv ("VALID"), then takes Keras's window of it.

from polyops.plugin import conv_transpose_padding, conv_transpose_size, nonempty, reference  # noqa: E402


def _tf_cl(x, nd, fmt):
    return tf.transpose(x, (0, *range(2, nd + 2), 1)) if fmt == "channels_first" else x


def _tf_back(y, nd, fmt):
    return tf.transpose(y, (0, nd + 1, *range(1, nd + 1))) if fmt == "channels_first" else y


def _tf_work(x):
    """x in float32 if it is float16/bfloat16, for the ops without a compute dtype whose
    tf kernels lack or lose half precision (MaxPool3D has no CPU float16 kernel;
    tf.nn.moments and batch_normalization would accumulate in it)."""
    return tf.cast(x, tf.float32) if x.dtype in _HALF else x


# named, not None: tf records None as the 3-D ops' data_format attr, and their eager
# gradients then fail in nn_grad.py ('NoneType' object has no attribute 'decode')
_TF_FORMAT = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


@nonempty  # tf's conv rejects an empty filter and mis-shapes an empty batch
def conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)
    cin = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    if cin != kernel.shape[-2] or (any(s > 1 for s in strides) and any(d > 1 for d in dilation_rate)):
        return reference("conv")(inputs, kernel, strides, padding, data_format, dilation_rate)
    y = tf.nn.convolution(_tf_cl(inputs, nd, data_format), kernel, strides=strides,
                          padding=padding.upper(), dilations=dilation_rate,
                          data_format=_TF_FORMAT[nd])
    return _tf_back(y, nd, data_format)


def _tf_pool(fn, inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    x = _tf_work(_tf_cl(inputs, nd, data_format))
    y = fn(x, pool_size, strides, padding.upper(), data_format=_TF_FORMAT[nd])
    return tf.cast(_tf_back(y, nd, data_format), inputs.dtype)


# tf's MaxPool3D and AvgPool3D have no float64 CPU kernel: float64 (64-bit mode) 3-D pools
# use core's reference, which computes in float64.


def max_pool(inputs, pool_size, strides, padding, data_format):
    if len(pool_size) == 3 and inputs.dtype == tf.float64:
        return reference("max_pool")(inputs, pool_size, strides, padding, data_format)
    return _tf_pool(tf.nn.max_pool, inputs, pool_size, strides, padding, data_format)


@nonempty  # tf's AvgPoolGrad raises on zero-size input
def average_pool(inputs, pool_size, strides, padding, data_format):
    if len(pool_size) == 3 and inputs.dtype == tf.float64:
        return reference("average_pool")(inputs, pool_size, strides, padding, data_format)
    return _tf_pool(tf.nn.avg_pool, inputs, pool_size, strides, padding, data_format)


@nonempty  # tf's conv_transpose rejects an empty filter
def conv_transpose(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    if any(d > 1 for d in dilation_rate):
        return reference("conv_transpose")(inputs, kernel, strides, padding, output_padding, data_format,
                                           dilation_rate)
    x = _tf_cl(inputs, nd, data_format)
    ks = tuple(kernel.shape[:nd])
    spatial = tuple(x.shape[1:-1])
    full = [(n - 1) * s + k for n, s, k in zip(spatial, strides, ks)]
    batch = x.shape[0] if x.shape[0] is not None else tf.shape(x)[0]
    y = tf.nn.conv_transpose(x, kernel, [batch, *full, kernel.shape[-2]], strides, "VALID")
    key, pads = [slice(None)], [(0, 0)]
    for i in range(nd):
        op = None if output_padding is None else output_padding[i]
        start = ks[i] - 1 - conv_transpose_padding(ks[i], strides[i], 1, padding, op)[0]
        out = conv_transpose_size(spatial[i], ks[i], strides[i], 1, padding, op)
        stop = min(start + out, full[i])
        key.append(slice(start, stop))
        pads.append((0, out - (stop - start)))
    y = y[tuple(key)]
    if any(p != (0, 0) for p in pads):
        y = tf.pad(y, pads + [(0, 0)])
    return _tf_back(y, nd, data_format)


# ===== one_hot, moments, batch_normalization, depth_to_space =====

from polyops.plugin import reference as _reference  # noqa: E402


def one_hot(x, num_classes, axis, dtype, sparse):
    # tf.one_hot: negative/out-of-range indices give all zeros; axis canonical in [0, ndim].
    from .core import TF_DTYPES

    out_dt = TF_DTYPES[dtype]
    idx = x if x.dtype in (tf.int32, tf.int64, tf.uint8) else tf.cast(x, tf.int64)
    if out_dt == tf.bool:
        return tf.cast(tf.one_hot(idx, num_classes, axis=axis, dtype=tf.int8), tf.bool)
    return tf.one_hot(idx, num_classes, axis=axis, dtype=out_dt)


def moments(x, axes, keepdims, synchronized):
    # mean(square(x - mean)) as tf.nn.moments (with float32 for float16/bfloat16; float16
    # results clipped to its range, as Keras).
    w = _tf_work(x)
    m, v = tf.nn.moments(w, list(axes), keepdims=keepdims)
    if x.dtype == tf.float16:
        m = tf.clip_by_value(m, -65504.0, 65504.0)
        v = tf.minimum(v, 65504.0)
    return tf.cast(m, x.dtype), tf.cast(v, x.dtype)


def batch_normalization(x, mean, variance, axis, offset, scale, epsilon):
    nd = len(x.shape)
    shape = [1] * nd
    shape[axis] = -1

    def b(t):
        return None if t is None else tf.reshape(_tf_work(t), shape)

    y = tf.nn.batch_normalization(_tf_work(x), b(mean), b(variance), b(offset), b(scale), epsilon)
    return tf.cast(y, x.dtype)


def depth_to_space(x, block_size, data_format):
    # tf's DCR order is core's channels_last; channels_first (torch's pixel_shuffle order,
    # not tf's NCHW DCR) uses the reference.
    if data_format != "channels_last":
        return _reference("depth_to_space")(x, block_size, data_format)
    return tf.nn.depth_to_space(x, block_size)


def space_to_depth(x, block_size, data_format):
    if data_format != "channels_last":
        return _reference("space_to_depth")(x, block_size, data_format)
    return tf.nn.space_to_depth(x, block_size)


# ===== rms_normalization, layer_normalization, dot_product_attention =====
# Core's formulas as a tf user writes them (issue 21: the references' graphs were 10-50%
# larger than tf's own): rsqrt instead of 1 / sqrt, tf.nn.moments and
# tf.nn.batch_normalization for layer norm, batched matmuls and tf.nn.softmax for
# attention.  float16/bfloat16 norms arrive as float32 (the ops declare compute).


def rms_normalization(x, scale, axis, epsilon):
    out = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), list(axis), keepdims=True) + epsilon)
    return out if scale is None else out * scale


def layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling):
    nd = len(x.shape)
    bshape = [x.shape[i] if i in axis else 1 for i in range(nd)]

    def bc(v):  # gamma/beta shaped as x's dims on axis: placed on those dims
        return v if v is None or len(v.shape) == nd or axis == (nd - 1,) else tf.reshape(v, bshape)

    gamma, beta = bc(gamma), bc(beta)
    m, v = tf.nn.moments(x, list(axis), keepdims=True)
    if rms_scaling:  # Keras' deprecated keyword: no centering, no beta
        out = x * tf.math.rsqrt(v + epsilon)
        return out if gamma is None else out * gamma
    return tf.nn.batch_normalization(x, m, v, beta, gamma, epsilon)


_LARGE_NEGATIVE = -0.7 * 3.38953e38  # Keras' masked logit in float32 (as core's reference)


def dot_product_attention(query, key, value, bias, mask, scale, is_causal, flash_attention,
                          attn_logits_soft_cap):
    if any(d is None for d in (*query.shape, *key.shape)):  # unknown dims: the reference
        return reference("dot_product_attention")(query, key, value, bias, mask, scale, is_causal,
                                                  flash_attention, attn_logits_soft_cap)
    dtype = query.dtype
    b, t, n, h = query.shape
    _, s, k, _ = key.shape
    g = n // k if k else 1
    wide = tf.float64 if dtype == tf.float64 else tf.float32  # (float64: 64-bit mode)
    # heads first; each key head serves g consecutive query heads: (b, k, g * t, h)
    # (reshapes only where g > 1)
    q = tf.cast(query, wide)
    if g == 1:
        q = tf.transpose(q, (0, 2, 1, 3))
    else:
        q = tf.reshape(tf.transpose(tf.reshape(q, (b, t, k, g, h)), (0, 2, 3, 1, 4)), (b, k, g * t, h))
    kf, vf = (tf.transpose(tf.cast(z, wide), (0, 2, 1, 3)) for z in (key, value))
    if scale is None:
        scale = 1.0 / np.sqrt(h) if h else 1.0
    logits = tf.matmul(q, kf, transpose_b=True) * scale
    if g > 1:
        logits = tf.reshape(logits, (b, n, t, s))
    if bias is not None:
        logits = logits + tf.cast(bias, wide)
    if attn_logits_soft_cap is not None:
        logits = tf.math.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    keep = None
    if mask is not None:
        keep = tf.broadcast_to(mask, (b, n, t, s))
    if is_causal:
        causal = tf.constant(np.tril(np.ones((t, s), bool)))
        keep = causal if keep is None else tf.logical_and(keep, causal)
    if keep is not None:
        logits = tf.where(keep, logits, tf.constant(_LARGE_NEGATIVE, wide))
    probs = softmax(logits, 3) if s else logits
    if g == 1:
        return tf.cast(tf.transpose(tf.matmul(probs, vf), (0, 2, 1, 3)), dtype)
    out = tf.matmul(tf.reshape(probs, (b, k, g * t, s)), vf)  # (b, k, g * t, h)
    out = tf.transpose(tf.reshape(out, (b, k, g, t, h)), (0, 3, 1, 2, 4))
    return tf.cast(tf.reshape(out, (b, t, n, h)), dtype)
