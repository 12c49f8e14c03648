"""PyTorch kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import torch

from polyops.plugin import nonempty

from ._compat import is_compiling as _is_compiling

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# torch.fft in complex64 (complex128 for float64 parts: 64-bit mode); results in the parts'
# dtype.


def _wide(x):
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def _c(x):
    re, im = x
    return torch.complex(re.to(_wide(re)), im.to(_wide(re)))


def _parts(z, dtype):
    return z.real.to(dtype), z.imag.to(dtype)


# (torch's MKL FFT fails on zero-size tensors: core answers those, `nonempty`)


@nonempty
def fft(x):
    return _parts(torch.fft.fft(_c(x), dim=-1), x[0].dtype)


@nonempty
def fft2(x):
    return _parts(torch.fft.fft2(_c(x), dim=(-2, -1)), x[0].dtype)


@nonempty
def ifft2(x):
    return _parts(torch.fft.ifft2(_c(x), dim=(-2, -1)), x[0].dtype)


@nonempty
def rfft(x, fft_length):
    return _parts(torch.fft.rfft(x.to(_wide(x)), n=fft_length, dim=-1), x.dtype)


@nonempty
def irfft(x, fft_length):
    return torch.fft.irfft(_c(x), n=fft_length, dim=-1).to(x[0].dtype)


# ===== special functions ==============================================================
# torch's kernels (float16/bfloat16 arrive as float32: the ops declare compute); the IEEE edges (erf(+-inf) = +-1, erfinv(+-1) = +-inf, rsqrt(0) = inf)
# are torch's too.

import math as _math  # noqa: E402

from polyops.plugin import reference as _reference  # noqa: E402

erf = torch.erf


def erfc(x):
    # core's erfc is 0 past 9.19 (below float32's smallest normal: no subnormals); float64
    # (64-bit mode) keeps torch's subnormals, as core's float64 erfc
    if x.dtype == torch.float64:
        return torch.erfc(x)
    # x > 9.19 (in float32) is erfc(x) < erfc(9.19) = 1.27868e-38 (erfc decreases, and its
    # float32 values at consecutive floats there differ): one threshold on the result,
    # where a bool mask and a select cost ~10x torch.erfc on a 512x512 CPU input.  The
    # bound lies between erfc(9.19) and erfc at the next float32, 1.27865e-38; NaN stays.
    # (eager in place: erfc's result is fresh, and threshold's derivative reads its result;
    # compiled, a node less in the gradient's graph out of place)
    threshold = torch.threshold if _is_compiling() else torch.threshold_
    return threshold(torch.erfc(x), 1.27866e-38, 0.0)


erfinv = torch.erfinv
rsqrt = torch.rsqrt


def gammainc(a, x):
    if torch.is_grad_enabled() and a.requires_grad:
        from polyops import NotDifferentiableError

        # torch has no derivative of igamma in a; it would fail later, in its backward
        raise NotDifferentiableError(
            "gammainc: expected a constant a, got a differentiated one on the torch "
            "backend; torch has no derivative of gammainc with respect to a")
    # core's rule: NaN where a <= 0 or x < 0 or either is NaN, else 1 where x = inf.  torch
    # gives NaN for x < 0 itself, not for a = 0 (its limit 1) nor a = NaN with x = 0 or inf,
    # nor a = inf with x = NaN, and NaN for gammainc(inf, inf)
    # (a > min(x, 0): a > 0 where x >= 0, false where x is NaN; where x < 0 torch's NaN
    # stands, whatever a)
    # (isposinf: ``x == inf`` wraps the Python float in a tensor first, 3x the cost on a
    # small input; the fill in place: the result is fresh, of the broadcast shape, and
    # igamma's derivative reads its operands only; clamp_max: no keyword to parse)
    out = torch.special.gammainc(a, x).masked_fill_(torch.isposinf(x), 1.0)
    return torch.where(a > torch.clamp_max(x, 0.0), out, _math.nan)


# ===== segment reductions =============================================================
# scatter_reduce into num_segments + 1 rows, the last one collecting the ids outside
# [0, num_segments) (then dropped).  Unsigned ints
# wider than uint8 (no torch scatter kernels) use core's reference.

_NO_SCATTER = (torch.uint16, torch.uint32, torch.uint64)


def _segment(kind, reduce):
    def kernel(data, segment_ids, num_segments, sorted):
        if data.dtype in _NO_SCATTER:
            return _reference("segment_" + kind)(data, segment_ids, num_segments, sorted)
        x = data
        ids = segment_ids.to(torch.int64)
        ids = torch.where((ids >= 0) & (ids < num_segments), ids, num_segments)
        if kind == "sum":
            fill = 0
        elif kind == "prod":
            fill = 1
        elif x.is_floating_point():
            fill = -_math.inf if kind == "max" else _math.inf
        else:
            info = torch.iinfo(x.dtype)
            fill = info.min if kind == "max" else info.max
        out = torch.full((num_segments + 1,) + tuple(x.shape[1:]), fill, dtype=x.dtype)
        index = ids.reshape((-1,) + (1,) * (x.ndim - 1)).expand(x.shape)
        out = out.scatter_reduce(0, index, x, reduce=reduce, include_self=True)
        return out[:num_segments]

    kernel.__name__ = "segment_" + kind
    return kernel


segment_sum = _segment("sum", "sum")
segment_prod = _segment("prod", "prod")
segment_max = _segment("max", "amax")
segment_min = _segment("min", "amin")


# ===== top_k, in_top_k ================================================================

_SORT_KEYS = {torch.bool: torch.int32, torch.uint16: torch.int32, torch.uint32: torch.int64}


def top_k(x, k, sorted):
    if x.dtype == torch.uint64:
        return _reference("top_k")(x, k, sorted)
    keys = x.to(_SORT_KEYS[x.dtype]) if x.dtype in _SORT_KEYS else x
    # a stable descending sort: NaN first (torch sorts NaN as the largest), ties lower index first
    idx = torch.sort(keys, dim=-1, descending=True, stable=True).indices[..., :k]
    return torch.gather(x, -1, idx), idx.to(torch.int32)


@nonempty  # torch's gather has no class to read with zero classes
def in_top_k(targets, predictions, k):
    if predictions.dtype == torch.uint64:
        return _reference("in_top_k")(targets, predictions, k)
    p = predictions
    if p.dtype in _SORT_KEYS:
        p = p.to(_SORT_KEYS[p.dtype])
    c = p.shape[-1]
    t = targets.to(torch.int64)
    valid = (t >= 0) & (t < c)
    at = torch.gather(p, -1, torch.where(valid, t, 0)[:, None])
    if at.is_floating_point():
        at = torch.where(torch.isnan(at), -_math.inf, at)
    above = (p > at).sum(-1)
    return valid & (above < k)


# ===== logsumexp, cdist, extract_sequences, logdet ====================================


def logsumexp(x, axis, keepdims):
    dims = tuple(range(x.ndim)) if axis is None else axis
    if not dims:  # 0-d (or no axis): log(exp(x)) = x
        return x.clone()
    return torch.logsumexp(x, dim=dims, keepdim=keepdims)


def cdist(x, y):
    # the direct form: torch's matmul form (|x|^2 + |y|^2 - 2 x.y) cancels
    return torch.cdist(x, y, p=2.0, compute_mode="donot_use_mm_for_euclid_dist")


def extract_sequences(x, sequence_length, sequence_stride):
    if x.shape[-1] < sequence_length:
        return torch.zeros(tuple(x.shape[:-1]) + (0, sequence_length), dtype=x.dtype)
    return x.unfold(-1, sequence_length, sequence_stride).clone()


def logdet(x):
    return torch.linalg.slogdet(x)[1]
