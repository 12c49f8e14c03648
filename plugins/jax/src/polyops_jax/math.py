"""JAX kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from polyops.plugin import nonempty

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# jnp.fft in complex64 (float16/bfloat16 parts arrive as float32), complex128 for float64
# parts (64-bit mode); results in the parts' dtype.


def _real(x):
    """The parts' compute dtype: float64 stays (64-bit mode), the rest in float32."""
    return x.astype(jnp.float32) if x.dtype != jnp.float64 else x


def _c(x):
    re, im = x
    return jax.lax.complex(_real(re), _real(im))


def _parts(z, dtype):
    return jnp.real(z).astype(dtype), jnp.imag(z).astype(dtype)


def fft(x):
    return _parts(jnp.fft.fft(_c(x), axis=-1), x[0].dtype)


def fft2(x):
    return _parts(jnp.fft.fft2(_c(x), axes=(-2, -1)), x[0].dtype)


def ifft2(x):
    return _parts(jnp.fft.ifft2(_c(x), axes=(-2, -1)), x[0].dtype)


def rfft(x, fft_length):
    return _parts(jnp.fft.rfft(_real(x), n=fft_length, axis=-1), x.dtype)


def irfft(x, fft_length):
    return jnp.fft.irfft(_c(x), n=fft_length, axis=-1).astype(x[0].dtype)


# ===== special functions ===================================================================
# lax's erf/erfc/erf_inv/rsqrt (XLA's float32 polynomials); float16/bfloat16 operands
# arrive as float32 (the ops declare compute="float32").

import functools  # noqa: E402

import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

erf = jax.jit(lax.erf)
erfc = jax.jit(lax.erfc)
erfinv = jax.jit(lax.erf_inv)
rsqrt = jax.jit(lax.rsqrt)


@jax.jit
def gammainc(a, x):
    # jax gives P(0, x > 0) = 1 (SciPy's limit); the contract says NaN for a <= 0, x < 0
    p = jax.scipy.special.gammainc(a, x)
    return jnp.where((a > 0) & (x >= 0), p, jnp.nan)


@jax.jit
def logdet(x):
    return jnp.linalg.slogdet(x)[1]


# ===== segment reductions ==================================================================
# jax.ops.segment_* with the static num_segments; ids outside [0, num_segments) are dropped
# (scatter's FILL_OR_DROP); empty segments give 0 / 1 / the dtype's lowest / highest value.


def _segment(fn):
    @functools.partial(jax.jit, static_argnums=(2, 3))
    def kernel(data, segment_ids, num_segments, sorted):
        return fn(data, segment_ids, num_segments, indices_are_sorted=sorted)

    return kernel


segment_sum = _segment(jax.ops.segment_sum)
segment_max = _segment(jax.ops.segment_max)
segment_min = _segment(jax.ops.segment_min)
_segment_prod = _segment(jax.ops.segment_prod)


def segment_prod(data, segment_ids, num_segments, sorted):
    from .core import _on_tape

    if _on_tape(data):  # jax's scatter-multiply has no gradient for repeated ids
        return _product_by_scan(data, segment_ids, num_segments)
    return _segment_prod(data, segment_ids, num_segments, sorted)


def _product_by_scan(x, ids, num_segments):
    """The product of the rows of ``x`` (n, ...) in each of ``num_segments`` segments
    (ids outside [0, num_segments) dropped, empty segments 1), as a segmented scan of the
    rows sorted by id: made of gathers, selects and products, all reverse-differentiable,
    where jax's scatter-multiply differentiates only with unique ids."""
    out = jnp.ones((num_segments,) + x.shape[1:], x.dtype)
    order = jnp.argsort(ids, stable=True)
    ids, x = ids[order], x[order]
    # a row starts (ends) a segment where its id differs from the previous (next) one's;
    # the first (last) row's neighbour is an id unlike its own
    starts = ids != jnp.concatenate([ids[:1] - 1, ids[:-1]])
    lasts = ids != jnp.concatenate([ids[1:], ids[-1:] + 1])
    expand = (slice(None),) + (None,) * (x.ndim - 1)

    def combine(a, b):
        (va, fa), (vb, fb) = a, b
        return jnp.where(fb[expand], vb, va * vb), fa | fb

    running, _ = jax.lax.associative_scan(combine, (x, starts))
    keep = lasts & (ids >= 0) & (ids < num_segments)
    return out.at[jnp.where(keep, ids, num_segments)].set(running, mode="drop")


# ===== top_k, in_top_k =====================================================================


@functools.partial(jax.jit, static_argnums=(1, 2))
def top_k(x, k, sorted):
    # lax.top_k orders floats totally (-0 < 0, -NaN lowest); the contract treats -0 == 0
    # (ties by lower index) and every NaN as the largest: sort on normalised keys.
    # |x| where x is not negative: -0 -> +0 and -NaN -> +NaN, the rest as it is (one compare
    # and one select: the two nested wheres of the reference put the fusion on XLA:CPU's
    # thread pool, ~20us on 16x16)
    keys = x.astype(jnp.int32) if x.dtype == np.bool_ else x
    if jnp.issubdtype(keys.dtype, jnp.floating):
        keys = jnp.where(keys < 0, keys, jnp.abs(keys))
    _, idx = lax.top_k(keys, k)
    return jnp.take_along_axis(x, idx, -1, mode="promise_in_bounds"), idx.astype(jnp.int32)


@functools.partial(jax.jit, static_argnums=2)
def in_top_k(targets, predictions, k):
    c = predictions.shape[-1]
    p = predictions.astype(jnp.int32) if predictions.dtype == np.bool_ else predictions
    valid = (targets >= 0) & (targets < c)
    at = jnp.take_along_axis(p, jnp.clip(targets, 0, c - 1)[:, None], -1)
    if jnp.issubdtype(p.dtype, jnp.floating):
        at = jnp.where(jnp.isnan(at), -jnp.inf, at)
    above = jnp.sum(p > at, -1)
    return valid & (above < k)


# ===== logsumexp, cdist, extract_sequences ==================================================


@functools.partial(jax.jit, static_argnums=(1, 2))
def logsumexp(x, axis, keepdims):
    m = jnp.max(x, axis, keepdims=True, initial=-jnp.inf)
    # the shift cancels: off the tape (as jax.nn.logsumexp), its gradient is no work
    m = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0.0))
    s = jnp.log(jnp.sum(jnp.exp(x - m), axis, keepdims=keepdims))
    if not keepdims:
        m = jnp.squeeze(m, tuple(range(x.ndim)) if axis is None else axis)
    return s + m


@jax.jit
def cdist(x, y):
    diff = x[..., :, None, :] - y[..., None, :, :]
    return jnp.sqrt(jnp.sum(diff * diff, -1))


@nonempty  # jnp.take returns x itself for an empty last axis (core builds the empty frames)
@functools.partial(jax.jit, static_argnums=(1, 2))
def extract_sequences(x, sequence_length, sequence_stride):
    count = max(1 + (x.shape[-1] - sequence_length) // sequence_stride, 0)
    idx = (np.arange(count, dtype=np.int32)[:, None] * sequence_stride
           + np.arange(sequence_length, dtype=np.int32)[None, :])
    return jnp.take(x, jnp.asarray(idx), -1)
