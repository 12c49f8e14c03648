"""Op records of `polyops.ops.nn.normalization` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
EPS = 1e-7  # polyops.config.epsilon() default
LOW = ("float16", "bfloat16")


def _np_dtype(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _cast(a, dtype):
    return np.asarray(a, np.float32).astype(_np_dtype(dtype))


def _tuple_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % ndim for a in axis))


# -- moments ---------------------------------------------------------------------------


def _np_moments(x, axes, keepdims=False, synchronized=False):
    x = x.astype(np.float64)
    ax = _tuple_axes(axes, x.ndim)
    return np.mean(x, axis=ax, keepdims=keepdims), np.var(x, axis=ax, keepdims=keepdims)


# 16-bit: the statistics are rounded once to the output dtype; sums of 60 values
_STAT_TOL = {"float16": dict(rtol=3e-3, atol=3e-3), "bfloat16": dict(rtol=2e-2, atol=3e-2)}

RECORDS += [
    OpRecord("moments", shapes=((3, 4, 5),), kwargs=dict(axes=[0, 2]), np_fn=_np_moments,
             dtypes=("float32", "float16", "bfloat16", "int32"), tol=_STAT_TOL),
    OpRecord("moments", shapes=((3, 4),), kwargs=dict(axes=-1, keepdims=True), id="moments-keepdims",
             np_fn=_np_moments),
    OpRecord("moments", shapes=((2, 3),), kwargs=dict(axes=(0, 1)), id="moments-all", np_fn=_np_moments),
]


# -- batch_normalization -----------------------------------------------------------------


def _bn_make(shape, axis, offset=True, scale=True):
    def make(dtype, rng):
        c = shape[axis]
        arrs = [rng.normal(0, 2, shape), rng.normal(0, 1, (c,)), rng.uniform(0.5, 2.0, (c,))]
        if offset:
            arrs.append(rng.normal(0, 1, (c,)))
        if scale:
            arrs.append(rng.normal(1, 0.5, (c,)))
        return [_cast(a, dtype) for a in arrs]

    return make


def _np_bn(x, mean, variance, offset=None, scale=None, axis=-1, epsilon=1e-3):
    shape = [1] * x.ndim
    shape[axis] = -1
    out = (x - mean.reshape(shape)) / np.sqrt(variance.reshape(shape).astype(np.float64) + epsilon)
    if scale is not None:
        out = out * scale.reshape(shape)
    if offset is not None:
        out = out + offset.reshape(shape)
    return out


_OFFSET = np.array([0.5, -1.0, 0.0, 2.0], np.float32)
_SCALE = np.array([1.5, 0.5, -1.0, 2.0], np.float32)

# offset and scale go by keyword (axis comes before them), as float32 arrays
RECORDS += [
    OpRecord("batch_normalization", make=_bn_make((2, 3, 4), -1, offset=False, scale=False),
             kwargs=dict(axis=-1, offset=_OFFSET, scale=_SCALE),
             np_fn=lambda x, m, v, axis, offset, scale: _np_bn(x, m, v, offset, scale, axis=axis)),
    OpRecord("batch_normalization", make=_bn_make((2, 3, 4), 1, offset=False, scale=False),
             kwargs=dict(axis=1, epsilon=0.1), id="batch_normalization-axis1-bare",
             np_fn=lambda x, m, v, axis, epsilon: _np_bn(x, m, v, axis=axis, epsilon=epsilon),
             dtypes=("float32", "float16", "bfloat16")),
]


# -- normalize -------------------------------------------------------------------------


def _np_normalize(x, axis=-1, order=2, epsilon=None):
    eps = EPS if epsilon is None else epsilon
    x = x.astype(np.float64)
    ax = _tuple_axes(axis, x.ndim)
    norm = np.sum(np.abs(x) ** order, axis=ax, keepdims=True) ** (1.0 / order)
    return x / np.maximum(norm, eps)


def _with_zero_row(shape):
    def make(dtype, rng):
        a = rng.normal(0, 2, shape)
        a[0] = 0.0  # a zero vector: the epsilon bound
        return [_cast(a, dtype)]

    return make


RECORDS += [
    OpRecord("normalize", make=_with_zero_row((3, 4)), np_fn=_np_normalize, dtypes=("float32", "float16", "bfloat16")),
    OpRecord("normalize", shapes=((3, 4),), kwargs=dict(axis=0, order=1), id="normalize-l1-axis0",
             np_fn=_np_normalize),
    OpRecord("normalize", shapes=((2, 3, 4),), kwargs=dict(axis=(0, -1), order=3, epsilon=1e-3),
             id="normalize-l3-axes", np_fn=_np_normalize),
    OpRecord("normalize", shapes=((3, 4),), kwargs=dict(axis=-1), dtypes=("int32",), id="normalize-int",
             np_fn=_np_normalize),
]


# -- psnr ------------------------------------------------------------------------------


def _np_psnr(x1, x2, max_val):
    mse = np.mean((x1.astype(np.float64) - x2.astype(np.float64)) ** 2)
    return np.asarray(20 * np.log10(max_val) - 10 * np.log10(mse))


RECORDS += [
    OpRecord("psnr", shapes=((2, 4, 4, 3), (2, 4, 4, 3)), kwargs=dict(max_val=1.0), np_fn=_np_psnr,
             dtypes=("float32", "float16", "bfloat16")),
    OpRecord("psnr", shapes=((5,), (5,)), kwargs=dict(max_val=255), id="psnr-255", np_fn=_np_psnr,
             dtypes=("float32", "int32")),
]


# -- dot_product_attention ---------------------------------------------------------------

_NEG = -0.7 * 3.38953e38


def _np_attention(q, k, v, bias=None, mask=None, scale=None, is_causal=False, flash_attention=None,
                  attn_logits_soft_cap=None):
    """Explicit softmax(Q K^T * scale + bias, masked) V per batch and head, in float64."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    b, t, n, h = q.shape
    s, kh = k.shape[1], k.shape[2]
    g = n // kh
    scale = 1 / np.sqrt(h) if scale is None else scale
    out = np.zeros((b, t, n, h))
    bias_full = None if bias is None else np.broadcast_to(bias.astype(np.float64), (b, n, t, s))
    mask_full = None if mask is None else np.broadcast_to(np.asarray(mask, bool), (b, n, t, s))
    for bi in range(b):
        for ni in range(n):
            kv = ni // g
            logits = q[bi, :, ni, :] @ k[bi, :, kv, :].T * scale  # (t, s)
            if bias_full is not None:
                logits = logits + bias_full[bi, ni]
            if attn_logits_soft_cap is not None:
                logits = attn_logits_soft_cap * np.tanh(logits / attn_logits_soft_cap)
            keep = np.ones((t, s), bool)
            if mask_full is not None:
                keep &= mask_full[bi, ni]
            if is_causal:
                keep &= np.tril(np.ones((t, s), bool))
            logits = np.where(keep, logits, _NEG)
            e = np.exp(logits - logits.max(axis=-1, keepdims=True))
            p = e / e.sum(axis=-1, keepdims=True)
            out[bi, :, ni, :] = p @ v[bi, :, kv, :]
    return out


def _attn_make(b, t, s, n, k, h, bias=False, mask=None):
    def make(dtype, rng):
        arrs = [rng.normal(0, 1, (b, t, n, h)), rng.normal(0, 1, (b, s, k, h)), rng.normal(0, 1, (b, s, k, h))]
        if bias:
            arrs.append(rng.normal(0, 1, (1, n, t, s)))
        return [_cast(a, dtype) for a in arrs]

    return make


_MASK = np.array([[True, False, True, True, False]] * 3)  # (T=3, S=5): broadcast to (B, N, T, S)
_MASK[1] = False  # a fully masked row: the values are averaged
_ATT_TOL = {"float16": dict(rtol=5e-3, atol=5e-3), "bfloat16": dict(rtol=3e-2, atol=3e-2)}

RECORDS += [
    OpRecord("dot_product_attention", make=_attn_make(2, 3, 5, 2, 2, 4), np_fn=_np_attention,
             dtypes=("float32", "float16", "bfloat16"), tol=_ATT_TOL),
    OpRecord("dot_product_attention", make=_attn_make(2, 3, 5, 4, 2, 4, bias=True),
             kwargs=dict(mask=_MASK, scale=0.3), id="dot_product_attention-gqa-bias-mask",
             np_fn=_np_attention),
    OpRecord("dot_product_attention", make=_attn_make(1, 4, 4, 3, 1, 2), kwargs=dict(is_causal=True),
             id="dot_product_attention-mqa-causal", np_fn=_np_attention, dtypes=("float32", "float16"),
             tol=_ATT_TOL),
    OpRecord("dot_product_attention", make=_attn_make(1, 2, 3, 2, 2, 4),
             kwargs=dict(attn_logits_soft_cap=0.5), id="dot_product_attention-soft-cap",
             np_fn=_np_attention),
]


# -- rms_normalization, layer_normalization ---------------------------------------------


def _np_rms(x, scale=None, axis=-1, epsilon=None):
    eps = EPS if epsilon is None else epsilon
    x = x.astype(np.float64)
    ax = _tuple_axes(axis, x.ndim)
    out = x / np.sqrt(np.mean(x * x, axis=ax, keepdims=True) + eps)
    return out if scale is None else out * scale


def _np_ln(x, gamma=None, beta=None, axis=-1, epsilon=None, rms_scaling=False):
    eps = EPS if epsilon is None else epsilon
    x = x.astype(np.float64)
    ax = _tuple_axes(axis, x.ndim)
    bshape = [x.shape[i] if i in ax else 1 for i in range(x.ndim)]
    mu = x.mean(axis=ax, keepdims=True)
    var = x.var(axis=ax, keepdims=True)
    if rms_scaling:
        out = x / np.sqrt(var + eps)
        return out if gamma is None else out * gamma.reshape(bshape)
    out = (x - mu) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * gamma.reshape(bshape)
    if beta is not None:
        out = out + beta.reshape(bshape)
    return out


def _vecs(shape, *vec_shapes):
    def make(dtype, rng):
        return [_cast(rng.normal(0, 2, shape), dtype)] + [_cast(rng.normal(1, 0.5, s), dtype) for s in vec_shapes]

    return make


_NORM_TOL = {"float16": dict(rtol=3e-3, atol=3e-3), "bfloat16": dict(rtol=2e-2, atol=3e-2)}

RECORDS += [
    OpRecord("rms_normalization", make=_vecs((3, 4), (4,)), np_fn=_np_rms,
             dtypes=("float32", "float16", "bfloat16"), tol=_NORM_TOL),
    OpRecord("rms_normalization", shapes=((2, 3, 4),), kwargs=dict(axis=(1, 2), epsilon=1e-3),
             id="rms_normalization-axes", np_fn=_np_rms),
    OpRecord("rms_normalization", shapes=((3, 4),), dtypes=("int32",), id="rms_normalization-int",
             np_fn=_np_rms),
    OpRecord("layer_normalization", make=_vecs((3, 5), (5,), (5,)), np_fn=_np_ln,
             dtypes=("float32", "float16", "bfloat16"), tol=_NORM_TOL),
    OpRecord("layer_normalization", make=_vecs((2, 3, 4), (3, 4)), kwargs=dict(axis=(1, 2)),
             id="layer_normalization-axes-gamma", np_fn=_np_ln),
    OpRecord("layer_normalization", make=_vecs((4, 3), (4,)), kwargs=dict(axis=0, epsilon=1e-2),
             id="layer_normalization-axis0", np_fn=_np_ln),
    OpRecord("layer_normalization", make=_vecs((3, 4), (4,)), kwargs=dict(rms_scaling=True),
             id="layer_normalization-rms-scaling", np_fn=_np_ln),
]


# -- polar -----------------------------------------------------------------------------


def _np_polar(r, theta):
    r, theta = r.astype(np.float64), theta.astype(np.float64)
    return r * np.exp(1j * theta)


# openvino has no complex dtype: polar raises TypeError there (tests/test_nn_normalization.py);
# these cases are expected failures on openvino.  complex64 results: float32 tolerances.
_C64 = {"complex64": dict(rtol=2e-5, atol=2e-6)}
RECORDS += [
    OpRecord("polar", shapes=((3, 4), (3, 4)), np_fn=_np_polar, dtypes=("float32", "float16"), tol=_C64),
    OpRecord("polar", shapes=((3, 1), (4,)), np_fn=_np_polar, id="polar-broadcast", tol=_C64),
]
