"""NumPy kernels of ``polyops.ops.numpy.sorting``: sort, search and count (argsort,
searchsorted, bincount, histogram, unique, nonzero, the cumulative sums...)."""

from __future__ import annotations

import math
import sys

import numpy as np
import polyops
from polyops.plugin import SplitKernel

from ..core import NP_DTYPES
from ._common import _BF16, _LOW_FLOATS, _NUMPY_DTYPES, _NUMPY_REAL, _is_float

# polyops sorts stably (ties and -0.0/0.0 keep their order, as on jax); NumPy's stable
# sort (timsort, radix for <= 16-bit ints) is 10-30x slower than its default one (an
# AVX-512/AVX2 quicksort) on large float32 and int32 inputs.  From this many elements the
# kernels below take the default sort where its result is the stable one; under it the
# checks would cost more than they save.
_FAST_MIN = 2048
_LITTLE = sys.byteorder == "little"
_SIGN32 = np.uint32(0x80000000)


# ----- catalogue primitive ------------------------------------------------------------


def argsort(x, axis):
    if x.dtype == _LOW_FLOATS[1]:  # ml_dtypes' bfloat16 sort does not put NaN last
        x = x.astype(np.float32)
    if axis is None:
        x, axis = x.reshape(-1), 0
    if x.size >= _FAST_MIN and _LITTLE and x.dtype in _KEYED and x.shape[axis] < 2 ** 32:
        return _keyed_argsort(_KEYED[x.dtype](x), axis)
    return np.argsort(x, axis=axis, kind="stable").astype(np.int32)


def _float_keys(x):
    """float32 (float16 widened) values as uint32 keys in NumPy's sort order: -0.0 and
    0.0 equal, every NaN equal and last."""
    b = (x.astype(np.float32) + np.float32(0.0)).view(np.uint32)  # -0.0 + 0.0 is 0.0
    # negative values: all bits flipped; positive ones: the sign bit set
    mask = (b.view(np.int32) >> 31).view(np.uint32)
    np.bitwise_or(mask, _SIGN32, out=mask)
    np.bitwise_xor(b, mask, out=b)
    if np.isnan(x.max()):  # (max propagates NaN: one pass without a temporary)
        b[np.isnan(x)] = np.uint32(0xFFFFFFFF)
    return b


_KEYED = {
    np.dtype(np.float32): _float_keys,
    np.dtype(np.float16): _float_keys,
    np.dtype(np.int32): lambda x: x.view(np.uint32) ^ _SIGN32,
    np.dtype(np.uint32): lambda x: x,
}


def _keyed_argsort(keys, axis):
    """The stable argsort of uint32 ``keys`` along ``axis``: each key joined with its
    position into one distinct uint64 (key high, position low), which any sort, NumPy's
    fast default one included, puts in the stable order."""
    n = keys.shape[axis]
    joined = np.empty(keys.shape, np.uint64)
    words = joined.view(np.uint32).reshape(keys.shape + (2,))  # (little-endian: low first)
    where = [1] * keys.ndim
    where[axis] = n
    words[..., 0] = np.arange(n, dtype=np.uint32).reshape(where)
    words[..., 1] = keys
    joined.sort(axis=axis)
    return words[..., 0].astype(np.int32)


def _mixed_zeros(x, out):
    """Whether float ``x`` holds both -0.0 and 0.0 (equal, distinguishable: only a stable
    sort keeps their order); ``out``, x sorted, answers the common case from the cache."""
    sint = np.dtype(f"int{8 * x.dtype.itemsize}")
    if out.view(sint).min() != np.iinfo(sint).min:  # -0.0 is the least int of that view
        return False
    neg = np.signbit(x[x == 0])
    return bool(neg.any()) and not neg.all()


def _other_nans(x):
    """Whether float ``x`` holds a NaN other than the default quiet one (NumPy's default
    sort writes that one in place of every NaN)."""
    uint = np.dtype(f"uint{8 * x.dtype.itemsize}")
    return not (x[np.isnan(x)].view(uint) == np.array(np.nan, x.dtype).view(uint)).all()


# ----- helpers ------------------------------------------------------------------------


def _ordered(x):
    """x in a dtype whose NumPy comparisons sort NaN last (bfloat16 as float32)."""
    return x.astype(np.float32) if x.dtype == _BF16 else x


def _i32(x):
    return np.asarray(x, dtype=np.int32)


# ----- sorting, searching, counting ---------------------------------------------------


def _sort_fast(x, axis):
    # NumPy's own dtypes (not bfloat16: `_ordered`): under _FAST_MIN elements, the stable
    # sort in place on a copy (np.sort's wrapper costs a third of a 16x16 sort)
    if x.size >= _FAST_MIN:
        return _sort(x, axis)
    if axis is None:
        out = x.flatten()
        out.sort(0, "stable")
    else:
        out = x.copy()
        out.sort(axis, "stable")
    return out


def _sort(x, axis):
    # stable, so -0.0 and 0.0 keep their order; bfloat16 in float32 for NaN last.  A sort
    # returns values: NumPy's default sort gives the same ones but for signed zeros and
    # NaN bit patterns (see `_mixed_zeros`, `_other_nans`), checked on its result
    w = _ordered(x)
    kind = w.dtype.kind
    if w.size < _FAST_MIN or kind not in "biuf":
        return np.sort(w, axis=axis, kind="stable").astype(x.dtype, copy=False)
    out = np.sort(w, axis=axis)
    if kind == "f" and (_mixed_zeros(w, out) or (  # NaN sorts last: any is in the last slice
            np.isnan(out.take(-1, axis=axis or 0)).any() and _other_nans(w))):
        out = np.sort(w, axis=axis, kind="stable")
    return out.astype(x.dtype, copy=False)


sort = SplitKernel(_sort_fast, _sort, _NUMPY_REAL)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # polyops' contract: the stable argsort, a valid partition


def _searchsorted(sorted_sequence, values, side):
    return _i32(np.searchsorted(_ordered(sorted_sequence), _ordered(values), side))


def _searchsorted_fast(sorted_sequence, values, side):
    # the method: np.searchsorted's Python wrapper costs as much as the search (16 values)
    out = sorted_sequence.searchsorted(values, side)
    return out.astype(np.int32) if values.ndim else np.asarray(out, np.int32)


# every dtype but bfloat16, whose NumPy comparisons do not sort NaN last (`_ordered`)
searchsorted = SplitKernel(_searchsorted_fast, _searchsorted, _NUMPY_DTYPES)


def digitize(x, bins):
    # np.digitize, without its monotonicity check (and for bool): searchsorted either way
    n = bins.shape[0]
    if n >= 2 and bins[-1] < bins[0]:
        return _i32(n - np.searchsorted(_ordered(bins[::-1]), _ordered(x), "right"))
    return _i32(np.searchsorted(_ordered(bins), _ordered(x), "right"))


def bincount(x, weights, minlength, sparse):
    rows = x.shape[:-1]
    if rows:  # 2-D: row r counts at r * length, in one flat bincount
        x = x.astype(np.intp)
        flat = (x + minlength * np.arange(x.shape[0])[:, None]).ravel()
    else:
        flat = x  # (np.bincount casts int32 and bool itself)
    total = math.prod(rows) * minlength
    if weights is None:
        out = np.bincount(flat, minlength=total).astype(np.int32)
    elif _is_float(weights):  # float64 sums, rounded once
        out = np.bincount(flat, weights.ravel().astype(np.float64), total).astype(weights.dtype)
    else:  # integers wrap in their own dtype
        out = np.zeros(total, weights.dtype)
        np.add.at(out, flat, weights.ravel())
    return out.reshape(rows + (minlength,))


def histogram(x, bins, range):
    fdt = x.dtype if _is_float(x) else NP_DTYPES[polyops.config.floatx()]
    flat = x.reshape(-1)
    n = flat.shape[0]
    # the edges exactly as core's reference: float32 lo + i * ((hi - lo) / bins), last = hi
    # (float64 for float64 x: 64-bit mode)
    work = np.float64 if fdt == np.float64 else np.float32
    if range is not None or n == 0:  # NumPy's range of no values: (0, 1)
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = work(lo), work(hi)
    else:
        xw = flat.astype(work)
        lo_t, hi_t = np.min(xw), np.max(xw)  # NaN propagates: NaN edges, no counts
        if lo_t == hi_t:
            lo_t, hi_t = lo_t - work(0.5), hi_t + work(0.5)
    i = np.arange(bins + 1, dtype=work)
    edges = lo_t + i * ((hi_t - lo_t) / work(bins))
    edges[bins] = hi_t
    edges = edges.astype(fdt)
    # the reference's counts: hist[j] = #(v >= e[j]) - #(v >= e[j + 1]), the last bin
    # closed (#(v > e[-1])); NaN values count nowhere, NaN edges hold nothing
    v = _ordered(flat.astype(fdt))
    v = np.sort(v[v == v])
    e = _ordered(edges)
    at_least = v.shape[0] - np.searchsorted(v, e[:bins], "left")
    beyond = v.shape[0] - np.searchsorted(v, e[bins:], "right")
    hist = at_least - np.concatenate([at_least[1:], beyond])
    return hist.astype(fdt), edges


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    # np.unique's algorithm, with a stable sort: a group's value is its first occurrence
    flat = x.ravel()
    order = np.argsort(_ordered(flat), kind="stable")
    s = flat[order]
    new = np.ones(s.shape, bool)
    if s.size > 1:
        step = s[1:] != s[:-1]
        if _is_float(s):
            step &= ~(np.isnan(s[1:]) & np.isnan(s[:-1]))
        new[1:] = step
    first = np.flatnonzero(new)
    m = first.size if size is None else size
    starts = np.concatenate([first, [s.size]])
    if m > first.size:  # pad: values with fill_value, index with 1, counts with 0
        pad = m - first.size
        fill = 0 if fill_value is None else fill_value
        values = np.concatenate([s[first], np.full(pad, fill, x.dtype)])
        index = np.concatenate([order[first], np.ones(pad, order.dtype)])
        counts = np.concatenate([np.diff(starts), np.zeros(pad, starts.dtype)])
    else:
        values, index, counts = s[first[:m]], order[first[:m]], np.diff(starts)[:m]
    outs = [values]
    if return_index:
        outs.append(_i32(index))
    if return_inverse:
        inverse = np.empty(flat.shape, np.int32)
        inverse[order] = np.cumsum(new) - 1
        outs.append(inverse.reshape(x.shape))
    if return_counts:
        outs.append(_i32(counts))
    return outs[0] if len(outs) == 1 else tuple(outs)


def nonzero(x):
    # (the method, and a list: np.nonzero's wrapper and a generator cost as much as the search)
    return tuple([i.astype(np.int32) for i in x.nonzero()])


def isin(x1, x2, assume_unique, invert):
    # assume_unique only allows a faster path in polyops; NumPy's can be wrong without it
    return np.isin(_ordered(x1), _ordered(x2), invert=invert)


def count_nonzero(x, axis):
    return _i32(np.count_nonzero(x, axis=axis))


def _cumulative(np_fn, nan_to):
    def kernel(x, axis, dtype):
        if nan_to is not None and _is_float(x):
            x = np.where(np.isnan(x), np.asarray(nan_to, x.dtype), x)
        # float16/bfloat16 accumulate in float32 (as sum); dtype= keeps ints from widening
        wide = np.float32 if x.dtype in _LOW_FLOATS else x.dtype
        return np_fn(x, axis=axis, dtype=wide).astype(x.dtype, copy=False)

    kernel.__name__ = np_fn.__name__
    return kernel


cumsum = _cumulative(np.cumsum, None)
cumprod = _cumulative(np.cumprod, None)
nancumsum = _cumulative(np.cumsum, 0)
nancumprod = _cumulative(np.cumprod, 1)
