"""OpenVINO kernels for the ``nn`` op family."""

from __future__ import annotations

import math

import numpy as np

from ._graph import (HALF_TYPES, T, axes_const, const, copy, etype, ops, padded, run1,
                     run1_dyn, run_dyn, to)
from .numpy._common import _exp, _float_extreme, _mean_of, _nan_aware

_FLOAT = frozenset({T.f16, T.bf16, T.f32, T.f64})
_NARROW = frozenset({T.i8, T.i16, T.u8, T.u16})


def _relu_build(x):
    t = etype(x)
    if t in _FLOAT:
        # x <= 0 is false at NaN, which passes through as max(x, 0) passes it (the CPU
        # plugin's Relu maps NaN to 0): one compare and one select, where IsNaN, Relu and
        # Select took a runtime node more (the MLP's 10 layers under polyops.jit: 72 -> 62)
        return ops.select(ops.less_equal(x, const(0, t)), const(0, t), x)
    u = to(x, T.i32) if t in _NARROW else x
    return to(ops.maximum(u, const(0, etype(u))), t)  # exact for int32


def relu(x):
    if x.dtype.kind == "u":
        return copy(x)
    return run1_dyn(("relu",), _relu_build, x)


def _softmax_build(axis):
    # opset SoftMax in one model (core's reference runs five).  As the reference, a NaN or
    # +inf in a slice, or a slice of only -inf, gives a NaN slice.  SoftMax of such a slice
    # has a NaN somewhere (inf - inf, NaN - max, -inf - -inf) and of any other none, so
    # a NaN sum of the output marks it: one reduction of the output (tests/test_numerics.py
    # softmax rows).  The former test of the input, two comparisons and two reductions,
    # took 20 of a 32x1000 call's 60 us.
    def build(x):
        out = ops.softmax(x, axis)
        total = ops.reduce_sum(out, const(np.array([axis], np.int64), T.i64), True)
        return ops.select(ops.is_nan(total), total, out)

    return build


def softmax(x, axis):
    dim = 0 if axis % x.ndim else x.ndim - 1  # (x.ndim > 1: a dim across the axis)
    pad = padded(x, dim) if x.ndim > 1 else None
    if pad is not None:  # (slices across the axis are computed apart: the same bits)
        out = run1_dyn(("softmax", axis), _softmax_build(axis), pad)
        n = x.shape[dim]
        return out[:n] if dim == 0 else np.ascontiguousarray(out[..., :n])
    return run1_dyn(("softmax", axis), _softmax_build(axis), x)


def sigmoid(x):
    return run1_dyn(("sigmoid",), ops.sigmoid, x)


# ===== activations =====
# OpenVINO's activation ops (the kernels get floats only: core's rule promotes ints, and
# float16/bfloat16 arrive as float32, the compute dtype these ops declare).  Static
# arguments are baked into the model and so are part of its cache key.


def _activation(name, make):
    """A kernel running ``make(node, *static args)`` as one cached model."""

    def kernel(x, *args):
        def build(node):
            return make(node, *args)

        return run1_dyn((name,) + tuple(args), build, x)

    kernel.__name__ = name
    return kernel


softplus = _activation("softplus", lambda x: ops.softplus(x))
softsign = _activation("softsign", lambda x: ops.softsign(x))
silu = _activation("silu", lambda x: ops.swish(x))
elu = _activation("elu", lambda x, alpha: ops.elu(x, alpha))
selu = _activation("selu", lambda x: ops.selu(
    x, const([1.6732632423543772848170429916717], etype(x)),
    const([1.0507009873554804934193349852946], etype(x))))


def _gelu_make(x, approximate):
    if approximate:
        return ops.gelu(x, "tanh")
    # the erf form is NaN at +inf (spelling out x * (1 + erf(x / sqrt(2))) / 2 does not
    # help: OpenVINO fuses it back into Gelu), so +inf passes through
    pos_inf = ops.equal(x, const(np.inf, etype(x)))
    return ops.select(pos_inf, x, ops.gelu(x, "erf"))


gelu = _activation("gelu", _gelu_make)
# (hsigmoid maps NaN to 0: hard_sigmoid uses core's reference.  OpenVINO's LogSoftmax
# differs from NumPy's formula along an axis with +-inf or NaN: log_softmax below spells
# the reference's formula out.)
hard_silu = _activation("hard_silu", lambda x: ops.hswish(x))


# ===== layer normalization, attention =====
# OpenVINO's fused nodes (MVN, ScaledDotProductAttention), so that a model recorded by
# `polyops.jit` has them too (a transformer block's forward: 1.13x -> see RESULTS.md,
# against the same block built with the opset); core's references for the rest.


def layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling):
    if rms_scaling or x.dtype != np.float32:  # (float16/bfloat16 arrive as float32)
        from polyops.plugin import reference

        return reference("layer_normalization")(x, gamma, beta, axis, epsilon, rms_scaling)
    nd = x.ndim
    # gamma/beta of x's rank broadcast as they are; shaped as x's dims on axis, they gain
    # size-1 dims around them (unsqueeze: no dim of the input in the model)
    lift = [i for i in range(nd) if i not in axis]
    given = tuple(v is not None for v in (gamma, beta))

    def build(node, *gb):
        y = ops.mvn(node, axes_const(list(axis)), True, epsilon, "inside_sqrt")
        gb = iter(gb)
        for used, op in zip(given, (ops.multiply, ops.add)):
            if used:
                v = next(gb)
                if v.get_output_partial_shape(0).rank.get_length() != nd and lift:
                    v = ops.unsqueeze(v, axes_const(lift))
                y = op(y, v)
        return y

    return run1_dyn(("layer_normalization", axis, epsilon, given), build, x,
                    *(v for v in (gamma, beta) if v is not None))


def dot_product_attention(query, key, value, bias, mask, scale, is_causal, flash_attention,
                          attn_logits_soft_cap):
    b, t, n, h = query.shape
    s, k = key.shape[1], key.shape[2]
    if (bias is not None or mask is not None or attn_logits_soft_cap is not None or n != k
            or query.dtype != np.float32 or (is_causal and t > s)):
        # (a causal t > s has rows with no key: the reference's large-negative logits)
        from polyops.plugin import reference

        return reference("dot_product_attention")(query, key, value, bias, mask, scale,
                                                  is_causal, flash_attention, attn_logits_soft_cap)
    if scale is None:
        scale = 1.0 / math.sqrt(h) if h else 1.0
    perm = axes_const([0, 2, 1, 3])

    def build(q, kk, v):
        q, kk, v = (ops.transpose(z, perm) for z in (q, kk, v))  # (B, N, T, H)
        out = ops.scaled_dot_product_attention(q, kk, v, None, const(scale, T.f32),
                                               causal=is_causal)
        return ops.transpose(out, perm)

    return run1_dyn(("dot_product_attention", float(scale), bool(is_causal)), build,
                    query, key, value)


# ===== conv and pools =====
# opset Convolution / GroupConvolution / MaxPool / AvgPool(exclude_pad) on channels_first
# graphs with explicit (TF "same") pads; channels_last inputs are transposed in the graph.
# conv_transpose: ConvolutionBackpropData without pads (the full transposed conv), then
# Keras's window of it (Pad crops with negative amounts).

import openvino.opset14 as _ops14  # noqa: E402

from polyops.plugin import conv_transpose_padding, conv_transpose_size, same_padding  # noqa: E402


def _ov_cf(x, nd, fmt):
    return ops.transpose(x, const([0, nd + 1, *range(1, nd + 1)], T.i64)) if fmt == "channels_last" else x


def _ov_back(y, nd, fmt):
    return ops.transpose(y, const([0, *range(2, nd + 2), 1], T.i64)) if fmt == "channels_last" else y


def _spatial_np(x, nd, fmt):
    return x.shape[1:1 + nd] if fmt == "channels_last" else x.shape[2:]


def _conv_ov(inputs, kernel, strides, padding, fmt, dil, groups, depthwise):
    nd = len(strides)
    ks = kernel.shape[:nd]
    pads = ([same_padding(n, k, s, d) for n, k, s, d in zip(_spatial_np(inputs, nd, fmt), ks, strides, dil)]
            if padding == "same" else [(0, 0)] * nd)
    lo, hi = [p[0] for p in pads], [p[1] for p in pads]

    def build(x, kk):
        xx = _ov_cf(x, nd, fmt)
        if depthwise:  # (*ks, C, M) -> (C, M, 1, *ks)
            w = ops.transpose(kk, const([nd, nd + 1, *range(nd)], T.i64))
            w = ops.unsqueeze(w, const([2], T.i64))
            y = ops.group_convolution(xx, w, list(strides), lo, hi, list(dil))
        elif groups == 1:  # (*ks, I, O) -> (O, I, *ks)
            w = ops.transpose(kk, const([nd + 1, nd, *range(nd)], T.i64))
            y = ops.convolution(xx, w, list(strides), lo, hi, list(dil))
        else:  # -> (G, O/G, I/G, *ks)
            w = ops.transpose(kk, const([nd + 1, nd, *range(nd)], T.i64))
            cout, kin = kernel.shape[-1], kernel.shape[-2]
            w = ops.reshape(w, const([groups, cout // groups, kin, *ks], T.i64), False)
            y = ops.group_convolution(xx, w, list(strides), lo, hi, list(dil))
        return _ov_back(y, nd, fmt)

    return run1(("conv", strides, tuple(pads), fmt, dil, groups, depthwise), build, inputs, kernel)


def conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    cin = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    return _conv_ov(inputs, kernel, strides, padding, data_format, dilation_rate,
                    cin // kernel.shape[-2], False)


def depthwise_conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    return _conv_ov(inputs, kernel, strides, padding, data_format, dilation_rate, None, True)


def _pool_ov(name, inputs, pool_size, strides, padding, fmt):
    nd = len(pool_size)
    pads = ([same_padding(n, k, s, 1) for n, k, s in zip(_spatial_np(inputs, nd, fmt), pool_size, strides)]
            if padding == "same" else [(0, 0)] * nd)
    lo, hi = [p[0] for p in pads], [p[1] for p in pads]

    def build(x):
        xx = _ov_cf(x, nd, fmt)
        if name == "max":
            y = ops.max_pool(xx, list(strides), [1] * nd, lo, hi, list(pool_size), "floor",
                             "explicit").output(0)
        else:  # (opset16's avg_pool segfaults the CPU plugin's compile: opset14's does not)
            y = _ops14.avg_pool(xx, list(strides), lo, hi, list(pool_size), True, "floor", "explicit")
        return _ov_back(y, nd, fmt)

    return run1((name + "_pool", pool_size, strides, tuple(pads), fmt), build, inputs)


def max_pool(inputs, pool_size, strides, padding, data_format):
    return _pool_ov("max", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs, pool_size, strides, padding, data_format):
    return _pool_ov("avg", inputs, pool_size, strides, padding, data_format)


def conv_transpose(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    ks = kernel.shape[:nd]
    spatial = _spatial_np(inputs, nd, data_format)
    lo, hi = [0, 0], [0, 0]
    for i in range(nd):
        k, s, d = ks[i], strides[i], dilation_rate[i]
        op = None if output_padding is None else output_padding[i]
        start = (k - 1) * d - conv_transpose_padding(k, s, d, padding, op)[0]
        full = (spatial[i] - 1) * s + (k - 1) * d + 1
        lo.append(-start)
        hi.append(conv_transpose_size(spatial[i], k, s, d, padding, op) - (full - start))

    def build(x, w):
        xx = _ov_cf(x, nd, data_format)
        ww = ops.transpose(w, const([nd + 1, nd, *range(nd)], T.i64))  # (in, out, *ks)
        y = ops.convolution_backprop_data(xx, ww, list(strides), None, [0] * nd, [0] * nd,
                                          list(dilation_rate), "explicit", [0] * nd)
        if any(lo) or any(hi):
            y = ops.pad(y, const(lo, T.i64), const(hi, T.i64), "constant")
        return _ov_back(y, nd, data_format)

    key = ("conv_transpose", strides, tuple(lo), tuple(hi), data_format, dilation_rate)
    return run1(key, build, inputs, kernel)


# ===== more activations ==================================================================
# Core's formulas as one model each.  The CPU plugin's
# comparisons, Minimum/Maximum and Clamp do not propagate NaN, so NaN lanes are passed
# through explicitly (every op below maps NaN to NaN, as its reference does).


def _act_nan(name, make):
    def kernel(x, *args):
        if x.dtype.kind in "iub":  # (relu6 keeps ints: core's reference is exact there)
            from polyops.plugin import reference

            return reference(name)(x, *args)

        def build(node):
            # float16/bfloat16 (the ops here without a compute dtype: relu6, shrinks,
            # threshold...) run in f32, where the static arguments (the thresholds)
            # stay exact, as the reference's Python floats are; each result rounds once
            t = etype(node)
            u = to(node, T.f32) if t in HALF_TYPES else node
            return to(ops.select(ops.is_nan(u), u, make(u, *args)), t)

        return run1_dyn((name,) + tuple(args), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _k(x, v):
    return const(v, etype(x))


def _sel(cond, a, b):
    return ops.select(cond, a, b)


relu6 = _act_nan("relu6", lambda x: ops.minimum(ops.maximum(x, _k(x, 0.0)), _k(x, 6.0)))
sparse_sigmoid = _act_nan("sparse_sigmoid", lambda x: _sel(
    ops.less_equal(x, _k(x, -1.0)), _k(x, 0.0),
    _sel(ops.greater_equal(x, _k(x, 1.0)), _k(x, 1.0),
         ops.multiply(_k(x, 0.5), ops.add(x, _k(x, 1.0))))))
soft_shrink = _act_nan("soft_shrink", lambda x, t: _sel(
    ops.greater(x, _k(x, t)), ops.subtract(x, _k(x, t)),
    _sel(ops.greater_equal(x, _k(x, -t)), _k(x, 0.0), ops.add(x, _k(x, t)))))


def _sparse_plus_make(x):
    y = ops.add(x, _k(x, 1.0))
    q = ops.multiply(_k(x, 0.25), ops.multiply(y, y))
    return _sel(ops.less_equal(x, _k(x, -1.0)), _k(x, 0.0), _sel(ops.less(x, _k(x, 1.0)), q, x))


sparse_plus = _act_nan("sparse_plus", _sparse_plus_make)
squareplus = _act_nan("squareplus", lambda x, b: ops.multiply(
    _k(x, 0.5), ops.add(x, ops.sqrt(ops.add(ops.multiply(x, x), _k(x, b))))))

# (log_sigmoid stays on core's reference: log(1 + u) here loses the tail that its
# log1p keeps, and the CPU plugin's Log/Exp give 1e-6-scale errors near 0.)
leaky_relu = _act_nan("leaky_relu", lambda x, s: _sel(
    ops.greater_equal(x, _k(x, 0.0)), x, ops.multiply(x, _k(x, s))))
tanh_shrink = _act_nan("tanh_shrink", lambda x: ops.subtract(x, ops.tanh(x)))
hard_tanh = _act_nan("hard_tanh", lambda x: _sel(
    ops.less(x, _k(x, -1.0)), _k(x, -1.0), _sel(ops.greater(x, _k(x, 1.0)), _k(x, 1.0), x)))
hard_shrink = _act_nan("hard_shrink", lambda x, t: _sel(
    ops.less_equal(ops.abs(x), _k(x, t)), _k(x, 0.0), x))
threshold = _act_nan("threshold", lambda x, t, d: _sel(ops.less_equal(x, _k(x, t)), _k(x, d), x))


# ===== log_softmax, rms_normalization, moments =====
# core's references in one model each (their max, exp, sums and counts as the numpy
# kernels build them, so the answers stay those of the references).


def _log_softmax_build(axis):
    def build(x):
        s = ops.subtract(x, _float_extreme(x, [axis], True, ops.reduce_max, -np.inf))  # (max's)
        return ops.subtract(s, ops.log(ops.reduce_sum(_exp(s), axes_const([axis]), True)))

    return build


def log_softmax(x, axis):
    return run1_dyn(("log_softmax", axis), _log_softmax_build(axis), x)


def rms_normalization(x, scale, axis, epsilon):
    def build(p, *s):
        t = etype(p)
        ms = _mean_of(ops.multiply(p, p), axis, True, t)
        y = ops.multiply(p, ops.divide(const(1.0, t), ops.sqrt(ops.add(ms, const(epsilon, t)))))
        return ops.multiply(y, s[0]) if s else y

    key = ("rms_normalization", axis, float(epsilon), scale is not None)
    return run1_dyn(key, build, x, *(() if scale is None else (scale,)))


_F16_MAX = 65504.0


def moments(x, axes, keepdims, synchronized):
    def build(p):
        t = etype(p)
        u = to(p, T.f32) if t in HALF_TYPES else p  # (exact: the reference's cast)
        m = _mean_of(u, axes, True, etype(u))
        c = ops.subtract(u, m)
        v = _mean_of(ops.multiply(c, c), axes, True, etype(u))
        if axes and not keepdims:
            m, v = (ops.squeeze(n, axes_const(axes)) for n in (m, v))
        if t == T.f16:  # clipped to its range, as Keras (NaN kept, as minimum/maximum)
            lim = const(_F16_MAX, T.f32)
            m = _nan_aware(ops.minimum, _nan_aware(ops.maximum, m, const(-_F16_MAX, T.f32)), lim)
            v = _nan_aware(ops.minimum, v, lim)
        return [to(m, t), to(v, t)]

    return tuple(run_dyn(("moments", axes, keepdims), build, x))
