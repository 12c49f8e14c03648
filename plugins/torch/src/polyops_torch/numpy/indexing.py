"""PyTorch kernels of `polyops.ops.numpy.indexing`: creation of structured arrays,
triangles and diagonals, gathers along an axis, pad."""

from __future__ import annotations

import math

import numpy as np
import torch

from polyops import standardize_dtype
from polyops.plugin import pad_index

from .._compat import is_compiling as _is_compiling
from .._compat import is_wrapped as _is_wrapped
from ..core import TORCH_DTYPES
from ._common import _F32, _F64, _max, _min, _moving, _spaced, _to, _valid_index, _widened
from .base import full as _full
from .base import take as _take


# ===== gathers ======================================================================


def _wrap_index(indices, n):
    indices = indices.to(torch.int64)
    return torch.where(indices < 0, indices + n, indices)


def _take_along_axis(x, indices, axis):
    if axis is None:
        return _take(x, indices, None)
    if _is_compiling():  # traced: out-of-range indices read 0 (eagerly core raised)
        indices, valid = _valid_index(indices, x.shape[axis])
        out = torch.take_along_dim(x, indices, dim=axis)
        return torch.where(valid, out, torch.zeros((), dtype=out.dtype, device=out.device))
    return torch.take_along_dim(x, _wrap_index(indices, x.shape[axis]), dim=axis)


take_along_axis = _moving(_take_along_axis)


# ===== creation =====================================================================


def array(x, dtype):
    from ..core import cast

    out = cast(x, dtype)
    return out.clone() if out is x else out


def copy(x):
    return torch.clone(x)


def empty(shape, dtype):
    return torch.zeros(shape, dtype=TORCH_DTYPES[dtype])


def empty_like(x, dtype):
    return torch.zeros_like(x, dtype=TORCH_DTYPES[dtype])  # (half torch.zeros' cost)


def identity(n, dtype):
    return torch.eye(n, dtype=torch.bool).to(TORCH_DTYPES[dtype])


def tri(N, M, k, dtype):
    return (torch.arange(N)[:, None] + k >= torch.arange(M)).to(TORCH_DTYPES[dtype])


# ===== spaced values ================================================================
# core's references step by step (torch.logspace rounds otherwise), in float32, or float64
# for a float64 result, as the numpy plugin's kernels: every backend the same values.


def _steps(start, stop, num, endpoint, axis, dtype):
    """``start + i * step`` along a new ``axis``, start and stop broadcast (in the work
    dtype), and stop along that axis."""
    work = _F64 if dtype == "float64" else _F32
    start, stop = torch.broadcast_tensors(start.to(work), stop.to(work))
    start, stop = start.unsqueeze(axis), stop.unsqueeze(axis)
    ishape = [1] * start.ndim
    ishape[axis] = num
    i = torch.arange(num, dtype=work).reshape(ishape)
    div = num - 1 if endpoint else num
    return (i * ((stop - start) / div) if div > 0 else i * 0.0) + start, stop


def logspace(start, stop, num, endpoint, base, dtype, axis):
    if start.ndim == 0 and stop.ndim == 0 and not (start.requires_grad or stop.requires_grad):
        y = _scalar_steps(start, stop, num, endpoint, dtype)  # (Python numbers: the common call)
    else:
        y, stop = _steps(start, stop, num, endpoint, axis, dtype)
        if endpoint and num > 1:  # the last exponent exactly stop
            y = torch.cat([y.narrow(axis, 0, num - 1), stop], axis)
    out, td = torch.pow(float(base), y), TORCH_DTYPES[dtype]
    return out if out.dtype is td else _to(out, td)  # (a float result: no cast call)


def _scalar_steps(start, stop, num, endpoint, dtype):
    """`_steps` of 0-d start and stop, in place (the same float operations), the last
    exactly stop."""
    work = _F64 if dtype == "float64" else _F32
    div = num - 1 if endpoint else num
    if start.is_cpu and stop.is_cpu and not _is_compiling():
        # eager: start, stop and step as NumPy scalars of the work dtype, the same roundings
        # as 0-d tensors at a tenth of a torch call each
        scalar = np.float64 if work == _F64 else np.float32
        start, stop = scalar(start.item()), scalar(stop.item())
        step = float((stop - start) / scalar(div)) if div > 0 else 0.0
        return _spaced(num, step, float(start), float(stop) if endpoint and num > 1 else None,
                       work)
    start, stop = start.to(work), stop.to(work)
    y = torch.arange(num, dtype=work).mul_((stop - start) / div if div > 0 else 0.0).add_(start)
    if endpoint and num > 1:
        y[-1] = stop
    return y


# ===== triangles and diagonals ======================================================

tril = _moving(torch.tril)
triu = _moving(torch.triu)
diag = _moving(torch.diag)
diagflat = _moving(torch.diagflat)


def diagonal(x, offset, axis1, axis2):
    return torch.diagonal(x, offset, axis1, axis2)  # the diagonal becomes the last axis


def _trace(x, offset, axis1, axis2):
    if offset == 0 and x.ndim == 2 and x.is_floating_point():
        return torch.trace(x)  # either axis order: the same sum (torch.trace widens ints)
    return torch.sum(torch.diagonal(x, offset, axis1, axis2), -1, dtype=x.dtype)


trace = _widened(_trace)


# ===== indices, vander ==============================================================


def unravel_index(indices, shape):
    if not shape:
        return ()
    coords, rem = [], indices
    for d in reversed(shape[1:]):  # floor division: NumPy's coordinates in range
        coords.append(torch.remainder(rem, d) if d else torch.zeros_like(rem))
        rem = torch.div(rem, d, rounding_mode="floor") if d else torch.zeros_like(rem)
    coords.append(rem)
    return tuple(reversed(coords))


def vander(x, N, increasing):
    if x.dtype not in _NO_VANDER and not (x.requires_grad or _is_wrapped(x)):
        # NumPy's product of the repeated column itself (ints in int64: the same low bits);
        # its backward fails (it writes its cumprod in place): differentiated, the one below
        out = torch.vander(x, N, increasing)
        return out if out.dtype == x.dtype else out.to(x.dtype)
    n = x.shape[0]
    if N == 0:
        return torch.zeros((n, 0), dtype=x.dtype)
    # NumPy's multiply.accumulate of the repeated column, x**0 = 1 first
    cols = torch.cat([torch.ones((n, 1), dtype=x.dtype), x.reshape(n, 1).expand(n, N - 1)], 1)
    out = _widened(lambda c: torch.cumprod(c, 1, dtype=c.dtype))(cols)
    return out if increasing else torch.flip(out, (1,))


# torch.vander promotes to int64, which wide unsigned ints cannot; 16-bit floats: the
# widened cumprod below
_NO_VANDER = (torch.uint16, torch.uint32, torch.uint64, torch.float16, torch.bfloat16)


# ===== pad ==========================================================================


def _pad_stat(t, axis, mode):
    if mode == "maximum":
        return _max(t, (axis,), True, None)
    if mode == "minimum":
        return _min(t, (axis,), True, None)
    dtype = t.dtype
    f = t.to(_F64 if dtype == _F64 else _F32)
    if mode == "mean":
        stat = torch.mean(f, axis, keepdim=True)
    else:  # median: NaN if the line has one, else the middle (mean of the two middle ones)
        n = t.shape[axis]
        mid = torch.sort(f, axis)[0].narrow(axis, (n - 1) // 2, 2 - n % 2)
        stat = torch.mean(mid, axis, keepdim=True)
        stat = torch.where(torch.any(torch.isnan(f), axis, keepdim=True), math.nan, stat)
    if not (dtype.is_floating_point or dtype.is_complex):
        stat = torch.round(stat)
    return stat.to(dtype)


def _ramp(edge, width, axis, reverse):
    dtype = edge.dtype
    shape = [1] * edge.ndim
    shape[axis] = width
    j = torch.arange(width - 1, -1, -1) if reverse else torch.arange(width)
    work = _F64 if dtype == _F64 else _F32
    ramp = edge.to(work) * j.to(work).reshape(shape) / float(width)
    if not (dtype.is_floating_point or dtype.is_complex):
        ramp = torch.floor(ramp)
    return ramp.to(dtype)


def _pad(x, pad_width, mode, constant_values):
    out_shape = tuple(d + b + a for d, (b, a) in zip(x.shape, pad_width))
    if mode == "constant":
        out = _full(out_shape, constant_values, standardize_dtype(x.dtype))
        out[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, pad_width))] = x
        return out
    for axis, (b, a) in enumerate(pad_width):
        if not (b or a):
            continue
        n = x.shape[axis]
        if mode in ("edge", "reflect", "symmetric", "wrap"):
            x = x.index_select(axis, torch.as_tensor(pad_index(n, b, a, mode)))
            continue
        shape = list(x.shape)
        if mode == "linear_ramp":
            before = _ramp(x.narrow(axis, 0, 1), b, axis, False)
            after = _ramp(x.narrow(axis, n - 1, 1), a, axis, True)
        else:  # NumPy pads axis by axis: later statistics see the earlier padding
            stat = _pad_stat(x, axis, mode)
            before = stat.expand(shape[:axis] + [b] + shape[axis + 1:])
            after = stat.expand(shape[:axis] + [a] + shape[axis + 1:])
        x = torch.cat([before, x, after], axis)
    return x


def pad(x, pad_width, mode, constant_values):
    if mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        return _moving(_pad)(x, pad_width, mode, constant_values)
    return _pad(x, pad_width, mode, constant_values)
