"""PyTorch kernels of `polyops.ops.numpy.sorting`: sort, search and count (argsort,
unique, searchsorted, bincount, cumsum...)."""

from __future__ import annotations

import math

import torch

from polyops import standardize_dtype

from .._compat import is_compiling as _is_compiling
from .._compat import is_wrapped as _is_wrapped
from ..core import TORCH_DTYPES
from ._common import _F32, _F64, _SIGNED, _WIDER, _WIDER_BOOL, _widen, _widened
from .base import full as _full


# ===== sorting, searching, counting =================================================


def argsort(x, axis):
    if axis is None or x.ndim == 0:
        x, axis = x.reshape(-1), 0
    if x.dtype in _WIDER:
        x = x.to(_WIDER[x.dtype])
    return torch.argsort(x, dim=axis, stable=True).int()  # NaN sorts last


def _sortable(x):
    """x in a dtype torch sorts and compares (bool and wide unsigned ints: wider ints)."""
    return _widen(x, _WIDER_BOOL)


def sort(x, axis):
    if axis is None:
        x, axis = x.reshape(-1), 0
    dtype = x.dtype
    out = torch.sort(_widen(x, _WIDER), dim=axis, stable=True)[0]  # NaN sorts last
    return out if out.dtype == dtype else out.to(dtype)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # the stable argsort is a valid partition for every kth


def _count_before(seq, values, side):
    """searchsorted in NumPy's order (NaN after +inf), int64."""
    seq, values = _sortable(seq), _sortable(values)
    if not seq.is_floating_point():
        return torch.searchsorted(seq.contiguous(), values.contiguous(), side=side)
    nan = torch.isnan(seq)
    numbers = seq.numel() - torch.sum(nan)  # NaNs sort last: numbers come first
    seq = torch.where(nan, math.inf, seq)
    out = torch.searchsorted(seq.contiguous(), values.contiguous(), side=side)
    out = torch.minimum(out, numbers)  # v <= inf counts no NaN
    vnan = torch.isnan(values)
    return torch.where(vnan, seq.numel() if side == "right" else numbers, out)


def searchsorted(sorted_sequence, values, side):
    return _count_before(sorted_sequence, values, side).to(torch.int32)


def digitize(x, bins):
    n = bins.shape[0]
    increasing = _count_before(bins, x, "right")
    if n >= 2:
        decreasing = n - _count_before(torch.flip(bins, (0,)), x, "right")
        increasing = torch.where(bins[n - 1] < bins[0], decreasing, increasing)
    return increasing.to(torch.int32)


# the int dtypes torch.bincount counts
_BINCOUNT = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def bincount(x, weights, minlength, sparse):
    if weights is None and x.ndim == 1 and x.dtype in _BINCOUNT and not _is_compiling():
        # (a traced bincount has a value-dependent shape; minlength is the length already)
        return torch.bincount(x, minlength=minlength).to(torch.int32)
    index = x.to(torch.int64)
    shape = tuple(x.shape[:-1]) + (minlength,)
    if weights is None:
        src, acc = torch.ones_like(index, dtype=torch.int32), torch.int32
    else:
        dtype = weights.dtype
        # NumPy sums weights in float64 (complex128); ints wrap in their own dtype
        acc = (torch.complex128 if dtype.is_complex else _F64 if dtype.is_floating_point
               else _WIDER_BOOL.get(dtype, dtype))
        src = weights.to(acc)
    out = torch.zeros(shape, dtype=acc).scatter_add_(-1, index, src)
    return out if weights is None else out.to(weights.dtype)


def histogram(x, bins, range):
    from polyops import config

    fdt = x.dtype if x.is_floating_point() else TORCH_DTYPES[config.floatx()]
    flat = x.reshape(-1)
    work = _F64 if fdt == _F64 else _F32  # (float64: 64-bit mode)
    if range is not None or flat.numel() == 0:
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = torch.tensor(lo, dtype=work), torch.tensor(hi, dtype=work)
    else:
        xw = flat.to(work)
        lo_t, hi_t = torch.min(xw), torch.max(xw)
        same = lo_t == hi_t
        lo_t, hi_t = torch.where(same, lo_t - 0.5, lo_t), torch.where(same, hi_t + 0.5, hi_t)
    # the edges of the reference, in float32 (float64 for float64 x)
    i = torch.arange(bins + 1, dtype=work)
    edges = torch.where(i == bins, hi_t, lo_t + i * ((hi_t - lo_t) / bins)).to(fdt)
    values = flat.to(fdt)
    # bin j holds e[j] <= v < e[j+1], the last also v == e[bins]
    j = _count_before(edges[:bins], values, "right") - 1
    inside = (j >= 0) & ((j < bins - 1) | (values <= edges[bins]))
    hist = torch.zeros(bins, dtype=_F64).scatter_add_(
        0, torch.where(inside, j, 0), inside.to(_F64))
    return hist.to(fdt), edges


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    if (size is None and not return_index and x.dtype not in _WIDER and not x.is_complex()
            and not (x.requires_grad or _is_wrapped(x) or _is_compiling())):
        # (torch.unique has no derivative: a differentiated x takes the sort below)
        return _unique_native(x, return_inverse, return_counts)
    flat = x.reshape(-1)
    n = flat.numel()
    fill = 0 if fill_value is None else fill_value
    i32 = torch.int32
    if n == 0:
        m = size or 0
        outs = [_full((m,), fill, standardize_dtype(x.dtype)), torch.ones(m, dtype=i32),
                torch.zeros(x.shape, dtype=i32), torch.zeros(m, dtype=i32)]
    else:
        sw, order = torch.sort(_widen(flat, _WIDER), stable=True)
        s = sw.to(x.dtype)
        step = sw[1:] != sw[:-1]
        if sw.is_floating_point():
            step &= ~(torch.isnan(sw[1:]) & torch.isnan(sw[:-1]))
        new = torch.cat([torch.ones(1, dtype=torch.bool), step])
        starts = torch.nonzero(new)[:, 0]  # the first sorted position of each value
        count = starts.numel()
        m = count if size is None else size
        bounds = torch.cat([starts, torch.tensor([n])])
        counts = bounds[1:] - bounds[:-1]
        values, index = s[starts], order[starts]
        if m < count:
            values, index, counts = values[:m], index[:m], counts[:m]
        elif m > count:
            pad = m - count
            values = torch.cat([values, _full((pad,), fill, standardize_dtype(x.dtype))])
            index = torch.cat([index, torch.ones(pad, dtype=index.dtype)])
            counts = torch.cat([counts, torch.zeros(pad, dtype=counts.dtype)])
        inverse = torch.empty(n, dtype=torch.int64)
        inverse[order] = torch.cumsum(new, 0) - 1
        outs = [values, index.to(i32), inverse.reshape(x.shape).to(i32), counts.to(i32)]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [o for o, k in zip(outs, keep) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _unique_native(x, return_inverse, return_counts):
    """torch.unique (each value where it first occurs in x, as NumPy: -0.0 or 0.0), its NaNs
    made one, as NumPy's (torch keeps each NaN apart; they sort last)."""
    values, inverse, counts = torch.unique(x, return_inverse=True, return_counts=True)
    if values.is_floating_point():
        m = values.numel() - int(torch.isnan(values).sum()) + 1  # (values are few)
        if m < values.numel():
            values = values[:m]
            counts = torch.cat([counts[:m - 1], counts[m - 1:].sum(0, keepdim=True)])
            inverse = torch.clamp(inverse, max=m - 1)
    outs = [values]
    if return_inverse:
        outs.append(inverse.to(torch.int32))
    if return_counts:
        outs.append(counts.to(torch.int32))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _nonzero_mask(x):
    return x.view(_SIGNED[x.dtype]) if x.dtype in _SIGNED else x  # same bits, same zeros


def nonzero(x):
    if x.ndim > 1:  # one cast of the (count, ndim) indices, then its columns
        return torch.nonzero(_nonzero_mask(x)).to(torch.int32).unbind(1)
    return tuple(i.to(torch.int32) for i in torch.nonzero(_nonzero_mask(x), as_tuple=True))


def isin(x1, x2, assume_unique, invert):
    a, b = _sortable(x1), _sortable(x2)
    if a.is_complex():  # no complex isin: compare with every element
        found = torch.any(a.unsqueeze(-1) == b.reshape(-1), dim=-1)
        return ~found if invert else found
    return torch.isin(a, b, assume_unique=assume_unique, invert=invert)


def count_nonzero(x, axis):
    # (Tensor.int(): the int32 cast at two thirds of .to(torch.int32)'s cost on a small
    # input; no dim= keyword for all axes)
    x = _nonzero_mask(x)
    if axis is None:
        return torch.count_nonzero(x).int()
    if axis == ():
        return (x != 0).int()
    return torch.count_nonzero(x, dim=axis).int()


# ===== cumulative sums and products =================================================


def _cumulative(fn, nan_to):
    def kernel(x, axis, dtype):
        if axis is None:
            x, axis = x.reshape(-1), 0
        if nan_to is not None and x.is_floating_point():
            x = torch.where(torch.isnan(x), nan_to, x)
        return fn(x, axis, dtype=x.dtype)  # dtype= keeps ints from widening to int64

    return _widened(kernel)


cumsum = _cumulative(torch.cumsum, None)
cumprod = _cumulative(torch.cumprod, None)
nancumsum = _cumulative(torch.cumsum, 0.0)
nancumprod = _cumulative(torch.cumprod, 1.0)
