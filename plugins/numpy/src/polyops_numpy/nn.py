"""NumPy kernels for the ``nn`` op family (the rest use core's references)."""

from __future__ import annotations

import numpy as np


def sigmoid(x):
    # exp of -|x| never overflows; pick the matching branch by sign.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


# ===== activations =====
# Same formulas as core's references, in one call; float16/bfloat16 operands of the ops
# with a compute dtype arrive as float32, the piecewise-linear ones compute in their own.


def _float_kernel(fn):
    """A float kernel: ``fn`` with NumPy's float warnings off, its result in x's dtype."""

    def kernel(x, *args):
        with np.errstate(all="ignore"):
            return np.asarray(fn(x, *args)).astype(x.dtype, copy=False)

    kernel.__name__ = fn.__name__
    return kernel


def relu6(x):
    return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))


@_float_kernel
def sparse_sigmoid(x):
    return np.where(x <= -1, 0, np.where(x >= 1, 1, 0.5 * (x + 1)))


@_float_kernel
def softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


@_float_kernel
def log_sigmoid(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


@_float_kernel
def softsign(x):
    return x / (1 + np.abs(x))


@_float_kernel
def soft_shrink(x, threshold):
    return np.where(x > threshold, x - threshold, np.where(x >= -threshold, 0, x + threshold))


@_float_kernel
def sparse_plus(x):
    return np.where(x <= -1, 0, np.where(x < 1, 0.25 * (x + 1) ** 2, x))


@_float_kernel
def silu(x):
    return x * sigmoid(x)


@_float_kernel
def squareplus(x, b):
    return 0.5 * (x + np.sqrt(x * x + x.dtype.type(b)))


@_float_kernel
def leaky_relu(x, negative_slope):
    return np.where(x >= 0, x, x * x.dtype.type(negative_slope))


def _hard_sigmoid(x):
    y = x / x.dtype.type(6) + x.dtype.type(0.5)
    return np.where(y <= 0, 0, np.where(y >= 1, 1, y))


hard_sigmoid = _float_kernel(_hard_sigmoid)


@_float_kernel
def hard_silu(x):
    return x * _hard_sigmoid(x)


def _elu(x, alpha):
    return np.where(x >= 0, x, x.dtype.type(alpha) * np.expm1(np.minimum(x, 0)))


elu = _float_kernel(_elu)


@_float_kernel
def selu(x):
    return x.dtype.type(1.0507009873554804934193349852946) * _elu(x, 1.6732632423543772848170429916717)


@_float_kernel
def celu(x, alpha):
    a = x.dtype.type(alpha)
    return np.maximum(x, 0) + a * np.expm1(np.minimum(x, 0) / a)


@_float_kernel
def tanh_shrink(x):
    return x - np.tanh(x)


@_float_kernel
def hard_tanh(x):
    return np.where(x < -1, -1, np.where(x > 1, 1, x))


@_float_kernel
def hard_shrink(x, threshold):
    return np.where(np.abs(x) <= threshold, 0, x)


@_float_kernel
def threshold(x, threshold, default_value):
    return np.where(x <= threshold, x.dtype.type(default_value), x)


@_float_kernel
def glu(x, axis):
    a, b = np.split(x, 2, axis)
    return a * sigmoid(b)


@_float_kernel
def log_softmax(x, axis):
    m = np.max(x, axis, keepdims=True, initial=-np.inf)
    s = x - m
    return s - np.log(np.sum(np.exp(s), axis, keepdims=True))


# ===== conv and pools =====
# sliding_window_view + tensordot/einsum on channels_last arrays (float16/bfloat16 operands
# arrive as float32, but for max_pool's: exact in any dtype).

from numpy.lib.stride_tricks import sliding_window_view as _swv  # noqa: E402

from polyops.plugin import average_pool_counts, conv_transpose_padding, same_padding  # noqa: E402


def _to_cl(x, nd, fmt):
    return np.moveaxis(x, 1, -1) if fmt == "channels_first" else x


def _from_cl(y, nd, fmt):
    return np.ascontiguousarray(np.moveaxis(y, -1, 1) if fmt == "channels_first" else y)


def _pad_cl(x, pads, value=0):
    lo_hi = [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    if any(p != (0, 0) for p in lo_hi):
        x = np.pad(x, [(0, 0), *lo_hi, (0, 0)], constant_values=value)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        x = x[(slice(None),) + tuple(slice(max(-lo, 0), x.shape[i + 1] - max(-hi, 0))
                                     for i, (lo, hi) in enumerate(pads))]
    return x


def _win(x, ks, strides, dil):
    """(N, *outs, C, *ks) windows of channels_last x (valid, strided, dilated)."""
    nd = len(ks)
    eff = tuple((k - 1) * d + 1 for k, d in zip(ks, dil))
    v = _swv(x, eff, axis=tuple(range(1, nd + 1)))
    v = v[(slice(None),) + tuple(slice(None, None, s) for s in strides) + (slice(None),)
          + tuple(slice(None, None, d) for d in dil)]
    return v


def _conv_np(x, k, strides, dil, groups):
    nd = len(strides)
    v = _win(x, k.shape[:nd], strides, dil)  # (N, *outs, C, *ks)
    n, outs = v.shape[0], v.shape[1:1 + nd]
    kin, cout = k.shape[-2:]
    kk = np.moveaxis(k, (nd, nd + 1), (0, 1))  # (kin, cout, *ks)
    if groups == 1:
        return np.tensordot(v, kk, axes=(list(range(nd + 1, 2 * nd + 2)), [0] + list(range(2, nd + 2))))
    v = v.reshape(n, *outs, groups, kin, *k.shape[:nd])
    kk = kk.reshape(kin, groups, cout // groups, *k.shape[:nd])
    sp = "defgh"[:nd]
    y = np.einsum(f"n...gc{sp},cgo{sp}->n...go", v, kk)
    return y.reshape(n, *outs, cout)


def conv(inputs, kernel, strides, padding, data_format, dilation_rate, _groups=None):
    nd = len(strides)
    x = _to_cl(inputs, nd, data_format)
    k = kernel
    if padding == "same":
        x = _pad_cl(x, [same_padding(n, kk, s, d) for n, kk, s, d in
                        zip(x.shape[1:-1], k.shape[:nd], strides, dilation_rate)])
    groups = _groups or x.shape[-1] // k.shape[-2]
    y = _conv_np(x, k, strides, dilation_rate, groups)
    return _from_cl(y, nd, data_format).astype(inputs.dtype, copy=False)


def depthwise_conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)
    ks = kernel.shape
    return conv(inputs, kernel.reshape(*ks[:nd], 1, ks[-2] * ks[-1]), strides, padding,
                data_format, dilation_rate, _groups=ks[-2])


def conv_transpose(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    x = _to_cl(inputs, nd, data_format)
    ks = kernel.shape[:nd]
    n, spatial, c = x.shape[0], x.shape[1:-1], x.shape[-1]
    up = np.zeros((n, *((m - 1) * s + 1 for m, s in zip(spatial, strides)), c), x.dtype)
    up[(slice(None),) + tuple(slice(None, None, s) for s in strides)] = x
    pads = [conv_transpose_padding(kk, s, d, padding, None if output_padding is None else output_padding[i])
            for i, (kk, s, d) in enumerate(zip(ks, strides, dilation_rate))]
    up = _pad_cl(up, pads)
    k = np.flip(np.swapaxes(kernel, -1, -2), tuple(range(nd)))
    y = _conv_np(up, k, (1,) * nd, dilation_rate, 1)
    return _from_cl(y, nd, data_format).astype(inputs.dtype, copy=False)


def _pool_np(inputs, pool_size, strides, padding, fmt, value):
    nd = len(pool_size)
    x = _to_cl(inputs, nd, fmt)
    spatial = x.shape[1:-1]
    pads = ([same_padding(m, k, s, 1) for m, k, s in zip(spatial, pool_size, strides)]
            if padding == "same" else [(0, 0)] * nd)
    v = _win(_pad_cl(x, pads, value), pool_size, strides, (1,) * nd)
    return v, spatial, pads


def max_pool(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    v, _, _ = _pool_np(inputs, pool_size, strides, padding, data_format, -np.inf)
    y = v.max(axis=tuple(range(-nd, 0)))
    return _from_cl(y, nd, data_format).astype(inputs.dtype, copy=False)


def average_pool(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    v, spatial, pads = _pool_np(inputs, pool_size, strides, padding, data_format, 0)
    y = v.sum(axis=tuple(range(-nd, 0)))
    if any(p != (0, 0) for p in pads):
        y = y / average_pool_counts(spatial, pool_size, strides, y.shape[1:-1], pads).astype(y.dtype)
    else:
        y = y / y.dtype.type(np.prod(pool_size))
    return _from_cl(y, nd, data_format).astype(inputs.dtype, copy=False)


# ===== relu, softmax, gelu =====

from polyops.plugin import reference as _reference  # noqa: E402


def relu(x):
    return np.maximum(x, x.dtype.type(0))


@_float_kernel
def softmax(x, axis):
    e = np.exp(x - np.max(x, axis, keepdims=True, initial=-np.inf))
    return e / np.sum(e, axis, keepdims=True)


def gelu(x, approximate):
    if not approximate:  # the erf form: NumPy has no erf (and this plugin no SciPy)
        return _reference("gelu")(x, approximate)
    return _gelu_tanh(x)


@_float_kernel
def _gelu_tanh(x):
    inner = np.sqrt(2 / np.pi) * (x + 0.044715 * (x * (x * x)))
    return (0.5 * x) * (1 + np.tanh(inner))


# ===== one_hot =====

from .core import NP_DTYPES as _NP_DTYPES  # noqa: E402


def one_hot(x, num_classes, axis, dtype, sparse):
    hit = x[..., None] == np.arange(num_classes)
    return np.moveaxis(hit, -1, axis).astype(_NP_DTYPES[dtype])


# ===== normalization =====
# Same formulas as core's references; float16/bfloat16 operands arrive as float32, but for
# moments and batch_normalization (no compute dtype), which widen them here, cast back once.

from .core import HALF_NP as _HALF_NP  # noqa: E402


def _in_float32(x):
    return x.astype(np.float32) if x.dtype in _HALF_NP else x


def _mean(w, axis=None, keepdims=False):
    # sum / count: np.mean warns on an empty slice (0 / 0 gives NaN here, silently)
    total = np.sum(w, axis=axis, keepdims=keepdims)
    count = w.size if axis is None else int(np.prod([w.shape[a] for a in axis]))
    with np.errstate(all="ignore"):
        return total / w.dtype.type(count)


def moments(x, axes, keepdims, synchronized):
    w = _in_float32(x)
    with np.errstate(all="ignore"):
        m = _mean(w, axes, True)
        v = _mean(np.square(w - m), axes, True)
    if not keepdims:
        out = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        m, v = m.reshape(out), v.reshape(out)
    if x.dtype == np.float16:
        lim = np.float32(65504.0)
        m, v = np.clip(m, -lim, lim), np.minimum(v, lim)
    return np.asarray(m).astype(x.dtype), np.asarray(v).astype(x.dtype)


def batch_normalization(x, mean, variance, axis, offset, scale, epsilon):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]

    def r(v):
        return _in_float32(v).reshape(shape)

    with np.errstate(all="ignore"):
        inv = 1 / np.sqrt(r(variance) + _in_float32(x).dtype.type(epsilon))
        if scale is not None:
            inv = inv * r(scale)
        res = -r(mean) * inv
        if offset is not None:
            res = res + r(offset)
        return (_in_float32(x) * inv + res).astype(x.dtype, copy=False)


def normalize(x, axis, order, epsilon):
    with np.errstate(all="ignore"):
        if order == 2:
            inv = 1 / np.sqrt(np.sum(np.square(x), axis=axis, keepdims=True))
            out = x * np.minimum(inv, x.dtype.type(1.0 / epsilon))
        else:
            a = np.abs(x)
            norm = (np.sum(a, axis=axis, keepdims=True) if order == 1
                    else np.sum(a ** order, axis=axis, keepdims=True) ** x.dtype.type(1.0 / order))
            out = x / np.maximum(norm, x.dtype.type(epsilon))
    return out.astype(x.dtype, copy=False)


def psnr(x1, x2, max_val):
    with np.errstate(all="ignore"):
        mse = _mean(np.square(x1 - x2))
        top = 20.0 * np.log10(max_val) if max_val > 0 else -np.inf
        out = mse.dtype.type(top) - mse.dtype.type(10.0) * np.log10(mse)
    return np.asarray(out).astype(x1.dtype)


def rms_normalization(x, scale, axis, epsilon):
    with np.errstate(all="ignore"):
        out = x * (1 / np.sqrt(_mean(np.square(x), axis, True) + x.dtype.type(epsilon)))
        if scale is not None:
            out = out * scale
    return out.astype(x.dtype, copy=False)


def layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling):
    nd = x.ndim
    bshape = tuple(x.shape[i] if i in axis else 1 for i in range(nd))

    def bc(v):
        if v is None:
            return None
        if v.ndim != nd and axis != (nd - 1,):
            v = v.reshape(bshape)
        return v

    gamma, beta = bc(gamma), bc(beta)
    with np.errstate(all="ignore"):
        m = _mean(x, axis, True)
        var = _mean(np.square(x - m), axis, True)
        inv = 1 / np.sqrt(var + x.dtype.type(epsilon))
        if rms_scaling:
            out = x * inv
            if gamma is not None:
                out = out * gamma
            return out.astype(x.dtype, copy=False)
        if gamma is not None:
            inv = inv * gamma
        res = -m * inv
        if beta is not None:
            res = res + beta
        return (x * inv + res).astype(x.dtype, copy=False)


_LARGE_NEGATIVE = np.float32(-0.7 * 3.38953e38)  # Keras' masked logit in float32


def dot_product_attention(query, key, value, bias, mask, scale, is_causal, flash_attention,
                          attn_logits_soft_cap):
    b, t, n, h = query.shape
    _, s, k, _ = key.shape
    g = n // k if k else 1
    # as the reference: logits and softmax in float32, float64 only for float64 (64-bit mode)
    wide = np.float64 if query.dtype == np.float64 else np.float32
    q = query.astype(wide).reshape(b, t, k, g, h)
    kf, vf = key.astype(wide), value.astype(wide)
    if scale is None:
        scale = 1.0 / np.sqrt(h) if h else 1.0
    with np.errstate(all="ignore"):
        logits = np.einsum("btkgh,bskh->bkgts", q, kf) * wide(scale)
        logits = logits.reshape(b, n, t, s)
        if bias is not None:
            logits = logits + bias.astype(wide)
        if attn_logits_soft_cap is not None:
            cap = wide(attn_logits_soft_cap)
            logits = np.tanh(logits / cap) * cap
        keep = None
        if mask is not None:
            keep = np.broadcast_to(mask, (b, n, t, s))
        if is_causal:
            causal = np.tril(np.ones((t, s), bool))
            keep = causal if keep is None else keep & causal
        if keep is not None:
            logits = np.where(keep, logits, wide(_LARGE_NEGATIVE))
        if s:
            e = np.exp(logits - np.max(logits, axis=3, keepdims=True))
            probs = e / np.sum(e, axis=3, keepdims=True)
        else:
            probs = logits
        probs = probs.reshape(b, k, g, t, s)
        out = np.einsum("bkgts,bskh->btkgh", probs, vf)
    return out.reshape(b, t, n, h).astype(query.dtype, copy=False)
