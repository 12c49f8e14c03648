"""NumPy kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import numpy as np

from polyops.plugin import nonempty

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# np.fft computes in float64/complex128; results are cast back to the parts' dtype.


def _c(x):
    re, im = x
    return re.astype(np.float64) + 1j * im.astype(np.float64)


def _parts(z, dtype):
    return np.real(z).astype(dtype), np.imag(z).astype(dtype)


def _fft(x):
    return _parts(np.fft.fft(_c(x), axis=-1), x[0].dtype)


def _fft2(x):
    return _parts(np.fft.fft2(_c(x), axes=(-2, -1)), x[0].dtype)


def _ifft2(x):
    return _parts(np.fft.ifft2(_c(x), axes=(-2, -1)), x[0].dtype)


# np.fft raises on a transformed axis of size 0 (core builds those empty results)
fft, fft2, ifft2 = nonempty(_fft), nonempty(_fft2), nonempty(_ifft2)


def rfft(x, fft_length):
    return _parts(np.fft.rfft(x.astype(np.float64), n=fft_length, axis=-1), x.dtype)


def irfft(x, fft_length):
    return np.fft.irfft(_c(x), n=fft_length, axis=-1).astype(x[0].dtype)


# -- special functions, reductions, distances ----------------------------------------------
# erf, erfc, erfinv and gammainc stay on core's references (NumPy has no ufuncs for them and
# this plugin does not import SciPy).  float16/bfloat16 operands arrive as float32 (the ops
# declare compute="float32"), but for segment_max/min and top_k/in_top_k (see there).

from numpy.lib.stride_tricks import sliding_window_view as _swv  # noqa: E402

from .core import _BF16, HALF_NP  # noqa: E402


def rsqrt(x):
    with np.errstate(all="ignore"):
        return (1 / np.sqrt(x)).astype(x.dtype, copy=False)


def logsumexp(x, axis, keepdims):
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
        m = np.where(np.isfinite(m), m, np.zeros((), x.dtype))
        s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
        if not keepdims:
            m = m.reshape(s.shape)
        return np.asarray(s + m).astype(x.dtype, copy=False)


def cdist(x, y):
    diff = x[..., :, None, :] - y[..., None, :, :]
    with np.errstate(all="ignore"):
        return np.sqrt(np.sum(diff * diff, axis=-1)).astype(x.dtype, copy=False)


def extract_sequences(x, sequence_length, sequence_stride):
    n = x.shape[-1]
    if n < sequence_length:
        return np.zeros(x.shape[:-1] + (0, sequence_length), x.dtype)
    frames = _swv(x, sequence_length, axis=-1)[..., ::sequence_stride, :]
    return np.ascontiguousarray(frames)


def logdet(x):
    with np.errstate(all="ignore"):
        return np.asarray(np.linalg.slogdet(x)[1]).astype(x.dtype, copy=False)


# top_k / in_top_k: descending, NaN largest, ties lower index first (core's contract).


def _sort_keys(x):
    if x.dtype == np.bool_:
        return x.astype(np.int32)
    # ml_dtypes' bfloat16 sort does not put NaN last: float32 keys (not a compute dtype)
    return x.astype(np.float32) if x.dtype == _BF16 else x


def top_k(x, k, sorted):
    n = x.shape[-1]
    keys = _sort_keys(x)
    # a stable ascending argsort of the reversed row, reversed: descending, NaN first,
    # equal values lower index first
    order = (n - 1) - np.flip(np.argsort(np.flip(keys, -1), axis=-1, kind="stable"), -1)
    idx = np.ascontiguousarray(order[..., :k]).astype(np.int32)
    return np.take_along_axis(x, idx, -1), idx


@nonempty  # no class to index (predictions (N, 0)): core's fill, False
def in_top_k(targets, predictions, k):
    p = _sort_keys(predictions)
    c = p.shape[-1]
    valid = (targets >= 0) & (targets < c)
    safe = np.where(valid, targets, 0)
    at = np.take_along_axis(p, safe[:, None].astype(np.intp), -1)
    if p.dtype.kind == "f":
        at = np.where(np.isnan(at), -np.inf, at)
    above = np.sum(p > at, axis=-1)
    return valid & (above < k)


# segment reductions: ids outside [0, num_segments) dropped; empty segments give the identity.


def _segment(ufunc, fill):
    def kernel(data, segment_ids, num_segments, sorted):
        # segment_sum/prod arrive widened (compute="float32"); max/min are exact in any
        # dtype, but ml_dtypes' bfloat16 is no NumPy float kind: 16-bit floats in float32
        x = data.astype(np.float32) if data.dtype in HALF_NP else data
        if fill is None:
            init = 0
        elif fill == "one":
            init = 1
        elif x.dtype.kind == "f":
            init = -np.inf if fill == "low" else np.inf
        else:
            info = np.iinfo(x.dtype)
            init = info.min if fill == "low" else info.max
        out = np.full((num_segments,) + x.shape[1:], init, x.dtype)
        keep = (segment_ids >= 0) & (segment_ids < num_segments)
        with np.errstate(all="ignore"):
            ufunc.at(out, segment_ids[keep].astype(np.intp), x[keep])
        return out.astype(data.dtype, copy=False)

    kernel.__name__ = ufunc.__name__
    return kernel


segment_sum = _segment(np.add, None)
segment_prod = _segment(np.multiply, "one")
segment_max = _segment(np.maximum, "low")
segment_min = _segment(np.minimum, "high")
