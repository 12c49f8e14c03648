"""JAX kernels of ``polyops.ops.numpy.sorting``: sort, search and count (argsort,
searchsorted, bincount, histogram, unique, nonzero, the cumulative sums...)."""

from __future__ import annotations

import jax.numpy as jnp

from .._compat import AD_TRACERS as _AD_TRACERS
from ._common import _F32, _INT32, _as, _floating, _floatx, _jit, _widen


# ===== catalogue primitive ==========================================================


@_jit(1)
def argsort(x, axis):
    return jnp.argsort(x, axis=axis, stable=True).astype(_INT32)  # NaN sorts last


# ===== sort, search, count ==========================================================


def sort(x, axis):
    # stable, NaN last (jnp's order is NumPy's); axis None sorts the flattened x
    return jnp.sort(x, axis=axis)


def argpartition(x, kth, axis):
    # core's contract: the stable argsort (a valid partition for every kth)
    return argsort(x, axis)


def searchsorted(sorted_sequence, values, side):
    # jnp orders NaN after every number, as NumPy
    return _as(jnp.searchsorted(sorted_sequence, values, side=side), _INT32)


@_jit()
def digitize(x, bins):
    n = bins.shape[0]
    inc = _as(jnp.searchsorted(bins, x, side="right"), _INT32)
    if n < 2:
        return inc
    dec = n - _as(jnp.searchsorted(bins[::-1], x, side="right"), _INT32)
    return jnp.where(bins[n - 1] < bins[0], dec, inc)


def bincount(x, weights, minlength, sparse):
    # minlength is the final length (core read max(x) + 1); x holds no negative value
    x = _as(x, _INT32)
    if weights is None:
        d, w = _INT32, jnp.ones((), _INT32)
    else:
        d = weights.dtype
        w = _widen(weights)
    acc = w.dtype
    if x.ndim == 1:
        out = jnp.zeros((minlength,), acc).at[x].add(w, mode="drop")
    else:
        rows = jnp.arange(x.shape[0], dtype=_INT32)[:, None]
        out = jnp.zeros((x.shape[0], minlength), acc).at[rows, x].add(w, mode="drop")
    return _as(out, d)


def histogram(x, bins, range):
    fdt = x.dtype if _floating(x.dtype) else _floatx()
    flat = x.reshape(-1)
    n = flat.shape[0]
    # the edges exactly as core's reference: float32 lo + i * ((hi - lo) / bins), last = hi
    # (float64 for float64 x, in 64-bit mode)
    work = fdt if fdt == jnp.float64 else _F32
    if range is not None or n == 0:  # NumPy's range of no values: (0, 1)
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = jnp.full((), lo, work), jnp.full((), hi, work)
    else:
        xw = flat.astype(work)
        lo_t, hi_t = jnp.min(xw), jnp.max(xw)
        same = lo_t == hi_t
        lo_t, hi_t = jnp.where(same, lo_t - 0.5, lo_t), jnp.where(same, hi_t + 0.5, hi_t)
    i = jnp.arange(bins + 1, dtype=work)
    edges = lo_t + i * ((hi_t - lo_t) / bins)
    edges = _as(jnp.where(i == bins, hi_t, edges), fdt)
    values = _as(flat, fdt)
    # bin j holds edges[j] <= v < edges[j + 1]; the last bin also holds v == edges[-1]
    idx = _as(jnp.searchsorted(edges, values, side="right"), _INT32) - 1
    idx = jnp.where((idx == bins) & (values == edges[bins]), bins - 1, idx)
    idx = jnp.where(idx < 0, bins, idx)  # below the range: dropped like those above it
    hist = jnp.zeros((bins,), _INT32).at[idx].add(1, mode="drop")
    return hist.astype(fdt), edges


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    # jnp.unique: sorted (NaN last), NaNs one value (equal_nan), -0.0 == 0.0, index the
    # first occurrence.  Its padding differs (values with the smallest, index with its
    # first index): pad as Keras's numpy backend instead (fill_value or 0, 1, 0).
    flat = x.reshape(-1)
    fill = 0 if fill_value is None else fill_value
    if flat.shape[0] == 0:
        m = size or 0
        outs = [jnp.full((m,), fill, x.dtype), jnp.ones((m,), _INT32), jnp.zeros(x.shape, _INT32),
                jnp.zeros((m,), _INT32)]
    else:
        # only the outputs needed: eagerly each is more dispatches (all four: ~5x the values')
        traced = isinstance(x, _AD_TRACERS)  # jnp.unique's values carry no gradient: gather them
        want = (return_index or traced, return_inverse, return_counts or size is not None)
        got = jnp.unique(flat, *want, equal_nan=True, size=size)
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        vals = got.pop(0)
        index, inverse, counts = (got.pop(0) if w else None for w in want)
        if traced:
            vals = flat[index]
        if size is not None:
            real = counts > 0
            vals = jnp.where(real, vals, jnp.full((), fill, vals.dtype))
            index = None if index is None else jnp.where(real, index, 1)
        outs = [vals, index, None if inverse is None else inverse.reshape(x.shape), counts]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [o if i == 0 else _as(o, _INT32) for i, (o, k) in enumerate(zip(outs, keep)) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def nonzero(x):
    # row-major order; NaN is non-zero.  The length is data-dependent (eager only).
    return tuple(_as(i, _INT32) for i in jnp.nonzero(x))


def isin(x1, x2, assume_unique, invert):
    return jnp.isin(x1, x2, assume_unique=assume_unique, invert=invert)


def count_nonzero(x, axis):
    return _as(jnp.count_nonzero(x, axis), _INT32)


def cumsum(x, axis, dtype):
    # x arrives in the result dtype; dtype= keeps it (ints wrap, nothing widens)
    return jnp.cumsum(x, axis, dtype=x.dtype)


def cumprod(x, axis, dtype):
    return jnp.cumprod(x, axis, dtype=x.dtype)


@_jit(1, 2)
def nancumsum(x, axis, dtype):
    if _floating(x.dtype):  # complex NaN stays (core's reference replaces real NaN only)
        x = jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)
    return jnp.cumsum(x, axis, dtype=x.dtype)


@_jit(1, 2)
def nancumprod(x, axis, dtype):
    if _floating(x.dtype):
        x = jnp.where(jnp.isnan(x), jnp.ones((), x.dtype), x)
    return jnp.cumprod(x, axis, dtype=x.dtype)
