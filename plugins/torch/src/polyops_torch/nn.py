"""PyTorch kernels for the ``nn`` op family (the rest use core's references)."""

from __future__ import annotations

import torch

from ._compat import is_compiling as _is_compiling
from .numpy._common import _HALF, _widened

relu = _widened(torch.relu)
sigmoid = torch.sigmoid


def softmax(x, axis):
    return torch.softmax(x, axis)


# ===== activations =====
# torch.nn.functional's activations (float16/bfloat16 arrive as float32: the ops declare
# compute).  Where torch's function differs from core's rule (NaN handling, argument
# ranges), the kernel says so or is absent.

import torch.nn.functional as _F  # noqa: E402


def relu6(x):
    if x.is_floating_point():
        return _F.relu6(x)  # hardtanh: clamp's values, and its lean backward
    if x.dtype == torch.bool:
        return torch.clamp(x.to(torch.int32), 0, 6)
    return torch.clamp(x, 0, 6)


softplus = _F.softplus
log_sigmoid = _F.logsigmoid
softsign = _F.softsign
silu = _F.silu
selu = _F.selu
tanh_shrink = _F.tanhshrink


def elu(x, alpha):
    return _F.elu(x, alpha)


def leaky_relu(x, negative_slope):
    return _F.leaky_relu(x, negative_slope)


celu = torch.celu  # (F.celu's Python frame only reads inplace=False)


def glu(x, axis):
    return _F.glu(x, axis)


def gelu(x, approximate):
    if approximate:
        return _F.gelu(x, approximate="tanh")
    # F.gelu's exact form is off by ~1e-4 relative near x = -3 and NaN at +inf
    return 0.5 * x * (1 + torch.erf(x * 0.7071067811865476))


def soft_shrink(x, threshold):
    if threshold >= 0:
        return _F.softshrink(x, threshold)
    return torch.where(x > threshold, x - threshold, x + threshold)  # negative: never 0


def log_softmax(x, axis):
    return torch.log_softmax(x, axis)


# ===== conv and pools =====
# torch.nn.functional conv{1,2,3}d / max_pool / avg_pool on channels_first tensors; the
# asymmetric TF "same" pads are applied with F.pad first.  conv_transpose: the full transposed conv, then Keras's
# window of it (F.pad crops with negative amounts).  torch's convs and pools reject
# zero-size channels and spatial dims: those calls are core's (`nonempty`).

import numpy as _np  # noqa: E402
import torch.nn.functional as _F  # noqa: E402

from polyops.plugin import (  # noqa: E402
    average_pool_counts, conv_transpose_padding, conv_transpose_size, nonempty, same_padding,
)
from polyops.plugin import reference as _reference  # noqa: E402
_CONVS = {1: _F.conv1d, 2: _F.conv2d, 3: _F.conv3d}
_CONVT = {1: _F.conv_transpose1d, 2: _F.conv_transpose2d, 3: _F.conv_transpose3d}
_MAXP = {1: _F.max_pool1d, 2: _F.max_pool2d, 3: _F.max_pool3d}
_AVGP = {1: _F.avg_pool1d, 2: _F.avg_pool2d, 3: _F.avg_pool3d}


def _cf(x, nd, fmt):
    return x.permute(0, nd + 1, *range(1, nd + 1)) if fmt == "channels_last" else x


def _cl(y, nd, fmt):
    return y.permute(0, *range(2, nd + 2), 1) if fmt == "channels_last" else y


def _torch_pads(pads):
    """F.pad's flat list (last axis first) from per-spatial-axis (lo, hi) pairs."""
    out = []
    for lo, hi in reversed(pads):
        out += [lo, hi]
    return out


def _conv_t(inputs, kernel, strides, padding, fmt, dil, groups_of):
    nd = len(strides)
    x = _cf(inputs, nd, fmt)
    k = kernel
    ks = tuple(k.shape[:nd])
    sym = (0,) * nd
    if padding == "same":
        pads = [same_padding(n, kk, s, d) for n, kk, s, d in zip(x.shape[2:], ks, strides, dil)]
        sym = tuple(min(p) for p in pads)  # conv's own (faster) symmetric padding
        extra = [(lo - m, hi - m) for (lo, hi), m in zip(pads, sym)]
        if any(p != (0, 0) for p in extra):
            x = _F.pad(x, _torch_pads(extra))
    k, groups = groups_of(k, x.shape[1])
    w = k.permute(nd + 1, nd, *range(nd))  # (out, in // groups, *ks)
    y = _CONVS[nd](x, w, None, strides, sym, dil, groups)
    return _cl(y, nd, fmt)


@nonempty
def conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    return _conv_t(inputs, kernel, strides, padding, data_format, dilation_rate,
                   lambda k, c: (k, c // k.shape[-2]))


@nonempty
def depthwise_conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)

    def groups_of(k, c):
        return k.reshape(*k.shape[:nd], 1, k.shape[-2] * k.shape[-1]), k.shape[-2]

    return _conv_t(inputs, kernel, strides, padding, data_format, dilation_rate, groups_of)


def _pool_t(inputs, pool_size, strides, padding, fmt, value, split=True):
    """(x, spatial, pads, sym): x with the pads beyond the symmetric part ``sym`` applied
    (all of them when not ``split``); the pool applies ``sym`` itself (<= k // 2)."""
    nd = len(pool_size)
    x = _cf(inputs, nd, fmt)
    spatial = tuple(x.shape[2:])
    pads = ([same_padding(n, k, s, 1) for n, k, s in zip(spatial, pool_size, strides)]
            if padding == "same" else [(0, 0)] * nd)
    sym = tuple(min(p) for p in pads) if split else (0,) * nd
    extra = [(lo - m, hi - m) for (lo, hi), m in zip(pads, sym)]
    if any(p != (0, 0) for p in extra):
        x = _F.pad(x, _torch_pads(extra), value=value)
    return x, spatial, pads, sym


@nonempty
def max_pool(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    x, _, _, sym = _pool_t(inputs, pool_size, strides, padding, data_format, float("-inf"))
    y = _MAXP[nd](x, pool_size, strides, sym)
    return _cl(y, nd, data_format)


@nonempty
def average_pool(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    x, spatial, pads, sym = _pool_t(inputs, pool_size, strides, padding, data_format, 0.0)
    if all(lo == hi for lo, hi in pads):  # symmetric: torch excludes the padding itself
        y = _AVGP[nd](x, pool_size, strides, sym, count_include_pad=False)
        return _cl(y, nd, data_format)
    x, spatial, pads, _ = _pool_t(inputs, pool_size, strides, padding, data_format, 0.0, False)
    y = _AVGP[nd](x, pool_size, strides)
    if any(p != (0, 0) for p in pads):
        counts = average_pool_counts(spatial, pool_size, strides, tuple(y.shape[2:]), pads)
        scale = float(_np.prod(pool_size)) / _np.moveaxis(counts, -1, 1)
        y = y * torch.from_numpy(_np.ascontiguousarray(scale)).to(y.dtype)
    return _cl(y, nd, data_format)


@nonempty
def conv_transpose(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    x = _cf(inputs, nd, data_format)
    k = kernel
    ks = tuple(k.shape[:nd])
    # (in, out, *ks); contiguous: the dilated backward wants a contiguous grad_weight
    w = k.permute(nd + 1, nd, *range(nd)).contiguous()
    y = _CONVT[nd](x, w, None, strides, 0, 0, 1, dilation_rate)
    crop = []
    for i in range(nd):
        kk, s, d = ks[i], strides[i], dilation_rate[i]
        op = None if output_padding is None else output_padding[i]
        left, _ = conv_transpose_padding(kk, s, d, padding, op)
        start = (kk - 1) * d - left
        out = conv_transpose_size(x.shape[2 + i], kk, s, d, padding, op)
        crop.append((-start, out - (y.shape[2 + i] - start)))
    if any(c != (0, 0) for c in crop):
        y = _F.pad(y, _torch_pads(crop))
    return _cl(y, nd, data_format)


# ===== elementwise activations still on core's formulas ===================================
# Written with torch ops in core's exact form (torch's own hardswish/hardsigmoid differ at
# +-inf and NaN).

from .core import TORCH_DTYPES as _TD  # noqa: E402


def hard_sigmoid(x):
    y = x / 6.0 + 0.5
    return torch.where(y <= 0, 0.0, torch.where(y >= 1, 1.0, y))


def hard_silu(x):
    return x * hard_sigmoid(x)


def sparse_plus(x):
    return torch.where(x <= -1, 0.0, torch.where(x < 1, 0.25 * (x + 1) ** 2, x))


def squareplus(x, b):
    return 0.5 * (x + torch.sqrt(x * x + b))


def sparse_sigmoid(x):
    return torch.where(x <= -1, 0.0, torch.where(x >= 1, 1.0, 0.5 * (x + 1))).to(x.dtype)


def hard_tanh(x):
    return torch.where(x < -1, -1.0, torch.where(x > 1, 1.0, x)).to(x.dtype)


def hard_shrink(x, threshold):
    return torch.where(torch.abs(x) <= threshold, 0.0, x).to(x.dtype)


def threshold(x, threshold, default_value):
    try:
        return torch.threshold(x, threshold, default_value)  # NaN stays, as the reference
    except RuntimeError:  # a default_value past x's dtype (1e5 in float16): inf, as NumPy
        return torch.where(x <= threshold, default_value, x).to(x.dtype)


# ===== one_hot =============================================================================


def one_hot(x, num_classes, axis, dtype, sparse):
    classes = torch.arange(num_classes, dtype=torch.int64)
    hot = x.to(torch.int64).unsqueeze(-1) == classes  # out of range: no class matches
    return torch.movedim(hot, -1, axis).to(_TD[dtype])


# ===== normalization =======================================================================


def moments(x, axes, keepdims, synchronized):
    # float16/bfloat16 widened here, as core's reference (no compute dtype declared): the
    # float16 results are clipped to its range below, as Keras does
    w = x.float() if x.dtype in _HALF else x
    m = torch.mean(w, dim=axes, keepdim=True)
    v = torch.mean(torch.square(w - m), dim=axes, keepdim=True)
    if not keepdims:
        m, v = m.squeeze(axes), v.squeeze(axes)
    if x.dtype == torch.float16:
        m, v = torch.clamp(m, -65504.0, 65504.0), torch.clamp(v, max=65504.0)
    return m.to(x.dtype), v.to(x.dtype)


def batch_normalization(x, mean, variance, axis, offset, scale, epsilon):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    inv = torch.rsqrt(variance.reshape(shape) + epsilon)
    if scale is not None:
        inv = inv * scale.reshape(shape)
    res = -mean.reshape(shape) * inv
    if offset is not None:
        res = res + offset.reshape(shape)
    return x * inv + res


def normalize(x, axis, order, epsilon):
    if order == 2:
        inv = torch.rsqrt(torch.sum(torch.square(x), dim=axis, keepdim=True))
        out = x * torch.clamp(inv, max=1.0 / epsilon)
    else:
        a = torch.abs(x)
        if order == 1:
            n = torch.sum(a, dim=axis, keepdim=True)
        else:
            n = torch.sum(a ** order, dim=axis, keepdim=True) ** (1.0 / order)
        out = x / torch.clamp(n, min=epsilon)
    return out


def polar(abs_, angle):
    if abs_.requires_grad or angle.requires_grad:
        # torch.polar's backward differs from the composition's (the test_gradients
        # convention for a complex output): the reference's real ops
        return _reference("polar")(abs_, angle)
    return torch.polar(abs_, angle)  # one real float dtype (float32 or float64), broadcast


def rms_normalization(x, scale, axis, epsilon):
    out = x * torch.rsqrt(torch.mean(torch.square(x), dim=axis, keepdim=True) + epsilon)
    if scale is not None:
        out = out * scale
    return out


# ===== layer_normalization, dot_product_attention ==========================================
# torch's fused kernels where they compute core's formula (issue 21: the references' aten
# graphs were twice the size of F.layer_norm's and F.scaled_dot_product_attention's); the
# other calls (normalized axes not trailing, gamma of x's rank, rms_scaling; a boolean
# mask, whose fully masked rows torch makes NaN where Keras averages, a soft cap, a bias
# with is_causal) use core's reference.  float16/bfloat16 attention computes in float32,
# as the reference.


def layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling):
    nd = x.ndim
    trailing = tuple(range(nd - len(axis), nd))
    shape = x.shape[nd - len(axis):]
    if (rms_scaling or axis != trailing
            or any(v is not None and v.shape != shape for v in (gamma, beta))):
        return _reference("layer_normalization")(x, gamma, beta, axis, epsilon, rms_scaling)
    return _F.layer_norm(x, shape, gamma, beta, epsilon)


def dot_product_attention(query, key, value, bias, mask, scale, is_causal, flash_attention,
                          attn_logits_soft_cap):
    if mask is not None or attn_logits_soft_cap is not None or (bias is not None and is_causal):
        return _reference("dot_product_attention")(query, key, value, bias, mask, scale, is_causal,
                                                   flash_attention, attn_logits_soft_cap)
    dtype = query.dtype
    wide = torch.float64 if dtype == torch.float64 else torch.float32
    q, k, v = (z.to(wide).transpose(1, 2) for z in (query, key, value))  # (B, heads, T, H)
    out = _F.scaled_dot_product_attention(
        q, k, v, attn_mask=None if bias is None else bias.to(wide), is_causal=is_causal,
        scale=scale, enable_gqa=k.shape[1] != q.shape[1])
    return out.transpose(1, 2).to(dtype)


def fold(x, output_size, kernel_size, dilation, padding, stride):
    return _F.fold(x, output_size, kernel_size, dilation, padding, stride)  # core's contract


def unfold(x, kernel_size, dilation, padding, stride):
    # torch's im2col costs ~3 ns an element on the CPU, where core's reference (a strided
    # slice per kernel offset, one stack) costs a fixed ~25 us and ~1 ns an element: im2col
    # up to ~8k elements, and compiled (one node of the graph, and its backward fold's)
    if x.numel() <= _UNFOLD_NATIVE or _is_compiling() or not x.is_cpu:
        return _F.unfold(x, kernel_size, dilation, padding, stride)
    return _reference("unfold")(x, kernel_size, dilation, padding, stride)


_UNFOLD_NATIVE = 8192
