"""JAX kernels for the ``nn`` op family.

``jax.nn.relu``/``softmax`` are custom_jvp functions, which cost 45-100us per eager
call; under ``jax.jit`` the same call dispatches in ~6us and keeps their gradients.
Inside a traced function the inner jit is simply inlined.
"""

from __future__ import annotations

import functools

import jax

# inline=True: eagerly a compiled call as before; inside a trace (polyops.jit, a jitted
# gradient) the kernel's equations go into the enclosing jaxpr instead of a nested jit,
# so the compiled graph is the one the same jax.nn code gives (issue 21: a nested jit is
# linearized on its own, and its residuals can keep XLA from fusing forward and backward).
_jit = functools.partial(jax.jit, inline=True)

relu = _jit(jax.nn.relu)
sigmoid = _jit(jax.nn.sigmoid)
softmax = _jit(jax.nn.softmax, static_argnums=1)  # softmax(x, axis)


# ===== activations =====
# Core's reference formulas as one jitted function each (float16/bfloat16 operands of the
# ops with a compute dtype arrive as float32, the piecewise-linear ones compute in their
# own); jax.nn's versions are custom_jvp functions (slow eagerly) and differ at the edges
# (relu6 of ints is float there), so only log_softmax-style math is reused here.

import jax.numpy as jnp  # noqa: E402

from .numpy._common import _jit_exact  # noqa: E402

_jit1 = functools.partial(_jit, static_argnums=1)  # (x, axis or approximate)


@_jit
def relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6).astype(x.dtype)


def _ramp(line, slope):
    """``clip(line(x), 0, 1)`` (sparse_sigmoid, hard_sigmoid) with the derivative
    tensorflow and torch give: ``slope`` strictly inside, 0 at and beyond the corners, and
    the cotangent passed through at NaN (lax.clamp's own derivative is 0 there).  Two
    selects give that derivative by autodiff, but their fusion runs on XLA:CPU's thread
    pool: ~24 us on 16x16 against ~5 us for the clamp."""

    @jax.custom_jvp
    def ramp(x):  # (max/min with weak scalars: jnp.clip converts its bounds, 2 equations)
        return jnp.minimum(jnp.maximum(line(x), 0.0), 1.0)

    @ramp.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = line(x)
        outside = (y <= 0) | (y >= 1)  # (False at NaN: the cotangent passes)
        return jnp.minimum(jnp.maximum(y, 0.0), 1.0), jnp.where(outside, 0.0, t * slope)

    return ramp


_sparse_sigmoid = _ramp(lambda x: 0.5 * (x + 1), 0.5)
_hard_sigmoid = _ramp(lambda x: x / 6.0 + 0.5, 1.0 / 6.0)
sparse_sigmoid = _jit(_sparse_sigmoid)


@_jit
def softplus(x):
    # logaddexp: the same values as max(x, 0) + log1p(exp(-|x|)), but its derivative at
    # x = 0 is 0.5 (through max and |x| jax gives 0 there)
    return jnp.logaddexp(x, jnp.zeros((), x.dtype))


@_jit
def log_sigmoid(x):
    return -jnp.logaddexp(-x, jnp.zeros((), x.dtype))  # -softplus(-x), for its gradient at 0


@_jit
def softsign(x):
    return x / (1 + jnp.abs(x))


@_jit_exact(1)
def soft_shrink(x, threshold):
    return jnp.where(x > threshold, x - threshold, jnp.where(x >= -threshold, 0.0, x + threshold))


@_jit
def sparse_plus(x):
    return jnp.where(x <= -1, 0.0, jnp.where(x < 1, 0.25 * jnp.square(x + 1), x))


def _sigmoid(x):
    return 1 / (1 + jnp.exp(-x))


@_jit
def silu(x):
    return x * _sigmoid(x)


@_jit_exact(1)
def squareplus(x, b):
    return 0.5 * (x + jnp.sqrt(x * x + b))


@_jit_exact(1)
def leaky_relu(x, negative_slope):
    return jnp.where(x >= 0, x, x * negative_slope)


hard_sigmoid = _jit(_hard_sigmoid)


@_jit
def hard_silu(x):
    return x * _hard_sigmoid(x)


def _elu(x, alpha):
    return jnp.where(x >= 0, x, alpha * jnp.expm1(jnp.minimum(x, 0)))


# alpha static (exactly keyed): a Python float argument of a jitted function becomes a new
# device array on every call (~30us)
elu = _jit_exact(1)(_elu)


@_jit
def selu(x):
    return 1.0507009873554804934193349852946 * _elu(x, 1.6732632423543772848170429916717)


# jax.nn.gelu itself: the same formulas (the exact one through erfc, as accurate or more),
# with x ** 3, whose gradient XLA fuses with the forward into one kernel; core's
# ``0.044715 * x * x * x`` left a residual that took a second kernel (gradient 1.9x).
gelu = _jit1(jax.nn.gelu)


@_jit_exact(1)
def celu(x, alpha):
    return jnp.maximum(x, 0) + alpha * jnp.expm1(jnp.minimum(x, 0) / alpha)


@_jit
def tanh_shrink(x):
    return x - jnp.tanh(x)


@_jit
def hard_tanh(x):
    return jnp.where(x < -1, -1.0, jnp.where(x > 1, 1.0, x))


@_jit_exact(1)
def hard_shrink(x, threshold):
    return jnp.where(jnp.abs(x) <= threshold, 0.0, x)


@_jit_exact(1, 2)
def threshold(x, threshold, default_value):
    return jnp.where(x <= threshold, default_value, x)


@_jit1
def glu(x, axis):
    a, b = jnp.split(x, 2, axis)
    return a * jax.nn.sigmoid(b)  # lax.logistic, as jax.nn.glu: its gradient is 3 kernels, not 4


@_jit1
def log_softmax(x, axis):
    # the shift by the max cancels in the value and in the derivative: stop_gradient keeps
    # autodiff from differentiating max (as jax.nn.log_softmax; 10 kernels to 4)
    s = x - jax.lax.stop_gradient(jnp.max(x, axis, keepdims=True, initial=-jnp.inf))
    return s - jnp.log(jnp.sum(jnp.exp(s), axis, keepdims=True))


# ===== conv and pools =====
# lax.conv_general_dilated / lax.reduce_window with explicit (TF "same") pads computed
# from the static shapes (float16/bfloat16 operands arrive as float32, but for max_pool's:
# exact in any dtype).

import functools as _ft  # noqa: E402

import jax.numpy as _jnp  # noqa: E402
import numpy as _np  # noqa: E402
from jax import lax as _lax  # noqa: E402

from polyops.plugin import average_pool_counts, conv_transpose_padding, same_padding  # noqa: E402

def _dnums(nd, fmt):
    sp = "DHW"[3 - nd:]
    lhs = "N" + sp + "C" if fmt == "channels_last" else "NC" + sp
    return (lhs, sp + "IO", lhs)


def _spatial(x, nd, fmt):
    return x.shape[1:1 + nd] if fmt == "channels_last" else x.shape[2:]


def _conv_core(inputs, kernel, strides, pads, fmt, dil, groups, lhs_dil=None):
    nd = len(strides)
    y = _lax.conv_general_dilated(inputs, kernel, strides, pads, lhs_dilation=lhs_dil,
                                  rhs_dilation=dil, dimension_numbers=_dnums(nd, fmt),
                                  feature_group_count=groups)
    return y.astype(inputs.dtype)


@_ft.partial(_jit, static_argnums=(2, 3, 4, 5))
def conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)
    spatial = _spatial(inputs, nd, data_format)
    cin = inputs.shape[-1] if data_format == "channels_last" else inputs.shape[1]
    pads = ([same_padding(n, k, s, d) for n, k, s, d in zip(spatial, kernel.shape[:nd], strides, dilation_rate)]
            if padding == "same" else [(0, 0)] * nd)
    return _conv_core(inputs, kernel, strides, pads, data_format, dilation_rate, cin // kernel.shape[-2])


@_ft.partial(_jit, static_argnums=(2, 3, 4, 5))
def depthwise_conv(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)
    ks = kernel.shape
    k = kernel.reshape(*ks[:nd], 1, ks[-2] * ks[-1])
    spatial = _spatial(inputs, nd, data_format)
    pads = ([same_padding(n, kk, s, d) for n, kk, s, d in zip(spatial, ks[:nd], strides, dilation_rate)]
            if padding == "same" else [(0, 0)] * nd)
    return _conv_core(inputs, k, strides, pads, data_format, dilation_rate, ks[-2])


@_ft.partial(_jit, static_argnums=(2, 3, 4, 5, 6))
def conv_transpose(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    ks = kernel.shape[:nd]
    pads = [conv_transpose_padding(k, s, d, padding, None if output_padding is None else output_padding[i])
            for i, (k, s, d) in enumerate(zip(ks, strides, dilation_rate))]
    k = _jnp.flip(_jnp.swapaxes(kernel, -1, -2), tuple(range(nd)))
    return _conv_core(inputs, k, (1,) * nd, pads, data_format, dilation_rate, 1, lhs_dil=strides)


def _pool_geom(x, pool_size, strides, padding, fmt):
    nd = len(pool_size)
    spatial = _spatial(x, nd, fmt)
    pads = ([same_padding(n, k, s, 1) for n, k, s in zip(spatial, pool_size, strides)]
            if padding == "same" else [(0, 0)] * nd)
    if fmt == "channels_last":
        return (1, *pool_size, 1), (1, *strides, 1), [(0, 0), *pads, (0, 0)], spatial, pads
    return (1, 1, *pool_size), (1, 1, *strides), [(0, 0), (0, 0), *pads], spatial, pads


@_ft.partial(_jit, static_argnums=(1, 2, 3, 4))
def max_pool(inputs, pool_size, strides, padding, data_format):
    win, st, pads, _, _ = _pool_geom(inputs, pool_size, strides, padding, data_format)
    # numpy init values: a jnp array is a traced constant under jit, and jax then takes the
    # generic reduce_window, which has no reverse-mode rule (grad failed to linearize)
    return _lax.reduce_window(inputs, _np.array(-_np.inf, inputs.dtype), _lax.max, win, st, pads)


@_ft.partial(_jit, static_argnums=(1, 2, 3, 4))
def average_pool(inputs, pool_size, strides, padding, data_format):
    win, st, pads, spatial, sp = _pool_geom(inputs, pool_size, strides, padding, data_format)
    x = inputs
    y = _lax.reduce_window(x, _np.array(0, x.dtype), _lax.add, win, st, pads)
    if padding == "same" and any(p != (0, 0) for p in sp):
        outs = y.shape[1:-1] if data_format == "channels_last" else y.shape[2:]
        counts = average_pool_counts(spatial, pool_size, strides, outs, sp)
        if data_format == "channels_first":
            counts = _np.moveaxis(counts, -1, 1)
        y = y / _jnp.asarray(counts, x.dtype)
    else:
        y = y / _np.float32(_np.prod(pool_size))
    return y.astype(inputs.dtype)


# ===== one_hot, multi_hot, moments, batch/rms normalization =====
# Core's reference formulas as one jitted function each (float16/bfloat16 operands of
# rms_normalization arrive as float32; moments widens them itself, as its reference).

from .core import HALF_JAX as _HALVES  # noqa: E402
from .core import JAX_DTYPES as _JD  # noqa: E402


def _hot(x, num_classes, axis):
    if x.dtype == _np.bool_:
        x = x.astype(_jnp.int32)
    oh = x[..., None] == _jnp.arange(num_classes, dtype=x.dtype)
    return _jnp.moveaxis(oh, -1, axis) if axis != oh.ndim - 1 else oh


@_ft.partial(_jit, static_argnums=(1, 2, 3, 4))
def one_hot(x, num_classes, axis, dtype, sparse):
    return _hot(x, num_classes, axis).astype(_JD[dtype])


@_ft.partial(_jit, static_argnums=(1, 2, 3, 4))
def multi_hot(inputs, num_classes, axis, dtype, sparse):
    oh = _hot(inputs, num_classes, axis)
    return _jnp.any(oh, 1 if inputs.ndim > 1 else 0).astype(_JD[dtype])


def _work(x):
    # moments (no compute dtype: it clips float16 to its range, as the reference)
    return x.astype(_jnp.float32) if x.dtype in _HALVES else x


@_ft.partial(_jit, static_argnums=(1, 2, 3))
def moments(x, axes, keepdims, synchronized):
    w = _work(x)
    m = _jnp.mean(w, axes, keepdims=True)
    v = _jnp.mean(_jnp.square(w - m), axes, keepdims=True)
    if not keepdims:
        m, v = _jnp.squeeze(m, axes), _jnp.squeeze(v, axes)
    if x.dtype == _jnp.float16:
        m, v = _jnp.clip(m, -65504.0, 65504.0), _jnp.minimum(v, 65504.0)
    return m.astype(x.dtype), v.astype(x.dtype)


@_ft.partial(_jit, static_argnums=(3, 6))
def batch_normalization(x, mean, variance, axis, offset, scale, epsilon):
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    inv = 1 / _jnp.sqrt(variance.reshape(shape) + _jnp.asarray(epsilon, x.dtype))
    if scale is not None:
        inv = inv * scale.reshape(shape)
    res = -mean.reshape(shape) * inv
    if offset is not None:
        res = res + offset.reshape(shape)
    return x * inv + res


@_ft.partial(_jit, static_argnums=(2, 3))
def rms_normalization(x, scale, axis, epsilon):
    # rsqrt: one op forward and in the gradient, as Keras's jax backend (issue 21)
    out = x * _lax.rsqrt(_jnp.mean(_jnp.square(x), axis, keepdims=True) + epsilon)
    if scale is not None:
        out = out * scale
    return out.astype(x.dtype)


# ===== dot_product_attention =====
# Core's reference formula in one function, but for the softmax's shift: the max is
# behind stop_gradient (it cancels in the value and in the derivative), as in
# jax.nn.softmax, so the gradient does not differentiate the max (issue 21: the
# attention gradient took 30 XLA kernels against jax.nn.dot_product_attention's 21).

import math as _math  # noqa: E402

_LARGE_NEGATIVE = -0.7 * 3.38953e38  # Keras' masked logit in float32 (as core's reference)


@_ft.partial(_jit, static_argnums=(5, 6, 7, 8))
def dot_product_attention(query, key, value, bias, mask, scale, is_causal, flash_attention,
                          attn_logits_soft_cap):
    dtype = query.dtype
    b, t, n, h = query.shape
    _, s, k, _ = key.shape
    g = n // k if k else 1
    wide = _jnp.float64 if dtype == _jnp.float64 else _jnp.float32  # (float64: 64-bit mode)
    q = query.astype(wide).reshape(b, t, k, g, h)
    kf, vf = key.astype(wide), value.astype(wide)
    if scale is None:
        scale = 1.0 / _math.sqrt(h) if h else 1.0
    if g == 1:  # (no key groups: the einsum jax.nn writes, with no transpose of the logits)
        logits = _jnp.einsum("btnh,bsnh->bnts", q.reshape(b, t, n, h), kf) * scale
    else:
        logits = (_jnp.einsum("btkgh,bskh->bkgts", q, kf) * scale).reshape(b, n, t, s)
    if bias is not None:
        logits = logits + bias.astype(wide)
    if attn_logits_soft_cap is not None:
        logits = _jnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    keep = None
    if mask is not None:
        keep = _jnp.broadcast_to(mask, (b, n, t, s))
    if is_causal:
        causal = _jnp.tril(_jnp.ones((t, s), _jnp.int32)).astype(bool)
        keep = causal if keep is None else _jnp.logical_and(keep, causal)
    if keep is not None:
        logits = _jnp.where(keep, logits, _LARGE_NEGATIVE)
    if s:
        e = _jnp.exp(logits - jax.lax.stop_gradient(_jnp.max(logits, 3, keepdims=True)))
        probs = e / _jnp.sum(e, 3, keepdims=True)
    else:
        probs = logits
    if g == 1:
        return _jnp.einsum("bnts,bsnh->btnh", probs, vf).astype(dtype)
    out = _jnp.einsum("bkgts,bskh->btkgh", probs.reshape(b, k, g, t, s), vf)
    return out.reshape(b, t, n, h).astype(dtype)


# ===== layer_normalization =====
# Core's reference, written as jax users write it, ``(x - mean) * rsqrt(var + eps) * gamma
# + beta``: the same values within a rounding, and a gradient of 15-16 XLA kernels
# where the reference's ``x * inv + (-mean * inv + beta)`` with ``1 / sqrt`` took 18.


@_ft.partial(_jit, static_argnums=(3, 4, 5))
def layer_normalization(x, gamma, beta, axis, epsilon, rms_scaling):
    nd = x.ndim
    bshape = tuple(x.shape[i] if i in axis else 1 for i in range(nd))

    def bc(v):  # gamma/beta shaped as x's dims on axis: placed on those dims
        return v if v is None or v.ndim == nd or axis == (nd - 1,) else v.reshape(bshape)

    gamma, beta = bc(gamma), bc(beta)
    c = x - _jnp.mean(x, axis, keepdims=True)
    inv = jax.lax.rsqrt(_jnp.mean(_jnp.square(c), axis, keepdims=True) + epsilon)
    out = x * inv if rms_scaling else c * inv  # rms_scaling: Keras' deprecated keyword
    if gamma is not None:
        out = out * gamma
    if beta is not None and not rms_scaling:
        out = out + beta
    return out
