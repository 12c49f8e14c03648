"""NumPy kernels of ``polyops.ops.numpy.indexing``: gathers, structured arrays (identity,
tri, vander, meshgrid...), triangles and diagonals, spaced values, select and pad.

Most are NumPy's own function; the wrappers map a canonical dtype string to NumPy's,
keep 32-bit results (unravel_index, vander) or follow the reference where NumPy differs
(geomspace, logspace, pad's bfloat16 mean and median).  Results may be views of the input
(diagonal, meshgrid), as ``reshape``'s are; ``array`` and ``copy`` always copy.
"""

from __future__ import annotations

import numpy as np

from ..core import NP_DTYPES
from ..core import cast as _cast
from ._common import _BF16, _LOW_FLOATS, _wide

_INT32 = np.dtype(np.int32)

# ----- gathers ------------------------------------------------------------------------

# indices broadcast against x off the axis and wrap when negative (prepare rejected
# out-of-range ones); axis None takes from the flattened x
take_along_axis = np.take_along_axis

# ----- creation -----------------------------------------------------------------------



def array(x, dtype):
    if x.dtype == NP_DTYPES[dtype]:  # (dtype=None: x's own, the common case)
        return x.copy()
    return _cast(x, dtype)  # astype: always a new array (bfloat16 -> int through float32)

copy = np.copy


def empty(shape, dtype):
    return np.zeros(shape, NP_DTYPES[dtype])  # zeros: polyops' deterministic "empty"


def empty_like(x, dtype):
    return np.zeros(x.shape, NP_DTYPES[dtype])


def identity(n, dtype):
    return np.identity(n, NP_DTYPES[dtype])


def tri(N, M, k, dtype):
    return np.tri(N, M, k, NP_DTYPES[dtype])


# ----- triangles and diagonals --------------------------------------------------------

tril = np.tril
triu = np.triu
diag = np.diag
diagflat = np.diagflat
diagonal = np.diagonal


def trace(x, offset, axis1, axis2):
    # x arrives in its accumulation dtype: keep it (no widening to int64); 16-bit floats
    # accumulate in float32, as sum does
    if x.dtype in _LOW_FLOATS:
        return x.trace(offset, axis1, axis2, np.float32).astype(x.dtype)
    return x.trace(offset, axis1, axis2, x.dtype)


# ----- spaced values ------------------------------------------------------------------
# NumPy's geomspace raises for 0, floors ints and works through log10; its logspace
# computes in the inputs' dtype.  These follow core's references step by step (in float32,
# or float64 for a float64 result), so every backend gives the same values.


def _work(start, stop, dtype):
    """start and stop in the float dtype the reference computes in, broadcast together."""
    work = np.float64 if dtype == "float64" else np.float32
    start, stop = start.astype(work, copy=False), stop.astype(work, copy=False)
    if start.shape != stop.shape:
        start, stop = np.broadcast_arrays(start, stop)
    return start, stop


def _along(t, axis):
    """``t`` with a new axis of size 1 at ``axis`` (np.expand_dims, without its checks)."""
    return t.reshape(t.shape[:axis] + (1,) + t.shape[axis:])


def _steps(start, stop, num, endpoint, axis):
    """``start + i * step`` along a new ``axis`` (start and stop broadcast already)."""
    start, stop = _along(start, axis), _along(stop, axis)
    div = num - 1 if endpoint else num
    ishape = [1] * start.ndim
    ishape[axis] = num
    i = np.arange(num, dtype=start.dtype).reshape(ishape)
    if div > 0:
        return i * ((stop - start) / div) + start
    return i * 0.0 + start


def _ends(values, first, last, axis):
    """``values`` (a new array) with its first and/or last entry along ``axis`` set."""
    lead = (slice(None),) * axis
    if first is not None:
        values[lead + (0,)] = first
    if last is not None:
        values[lead + (-1,)] = last
    return values


def geomspace(start, stop, num, endpoint, dtype, axis):
    start, stop = _work(start, stop, dtype)
    sgn = np.sign(start)  # rotate start to the positive axis, then back
    s_abs, e_rel = start * sgn, stop * sgn
    values = np.exp(_steps(np.log(s_abs), np.log(e_rel), num, endpoint, axis))
    if num:  # the ends are exactly start (and stop)
        values = _ends(values, s_abs, e_rel if endpoint and num > 1 else None, axis)
    return (values * _along(sgn, axis)).astype(NP_DTYPES[dtype], copy=False)


def logspace(start, stop, num, endpoint, base, dtype, axis):
    start, stop = _work(start, stop, dtype)
    if start.ndim == 0:  # (both: broadcast) _steps's arithmetic on one new axis, leaner
        div = num - 1 if endpoint else num
        i = np.arange(num, dtype=start.dtype)
        y = i * ((stop - start) / div) + start if div > 0 else i * 0.0 + start
    else:
        y = _steps(start, stop, num, endpoint, axis)
    if endpoint and num > 1:
        y = _ends(y, None, stop, axis)
    return np.power(float(base), y).astype(NP_DTYPES[dtype], copy=False)


# ----- structured matrices and grids --------------------------------------------------


def vander(x, N, increasing):
    # NumPy multiplies in x's dtype promoted with int (int64, float64): cast back (ints
    # wrap as they would in 32 bits)
    return np.vander(x, N, increasing).astype(x.dtype, copy=False)


def meshgrid(*args):
    *x, indexing = args
    # np.meshgrid flattens each input; copy=False: broadcast views, as the reference's
    return list(np.meshgrid(*x, indexing=indexing, copy=False))


# ----- index arithmetic and selection -------------------------------------------------


def unravel_index(indices, shape):
    if not shape:  # NumPy rejects non-0-d indices into shape (); no coordinates
        return ()
    return tuple(c.astype(_INT32) for c in np.unravel_index(indices, shape))


def select(condlist, choicelist, default):
    # np.select broadcasts and copies in Python; where's chain broadcasts all operands
    out = default
    for cond, choice in zip(condlist[::-1], choicelist[::-1]):
        out = np.where(cond, choice, out)
    return out


# ----- pad ----------------------------------------------------------------------------


def pad(x, pad_width, mode, constant_values):
    # np.pad pads axis by axis with the reference's rules (stat modes over the whole axis,
    # ints rounded half to even); "circular" and "empty" arrive resolved
    if not pad_width:  # a 0-d x: nothing to pad (np.pad rejects the empty pad_width)
        return x
    if mode == "constant":
        return _pad_constant(x, pad_width, constant_values)
    if x.dtype == _BF16 and mode in ("mean", "median"):
        # NumPy sums bfloat16 in bfloat16 (float16 in float32) and its bfloat16 median
        # misses NaN: as the reference, in float32, each axis's padding rounded before the
        # next axis reads it
        for axis, widths in enumerate(pad_width):
            if widths[0] or widths[1]:
                one = [(0, 0)] * x.ndim
                one[axis] = widths
                x = np.pad(_wide(x), one, mode).astype(_BF16)
        return x
    return np.pad(x, pad_width, mode)


def _pad_constant(x, pad_width, value):
    """np.pad's "constant" mode without its Python-side argument handling (4x faster at
    16x16, 1.6x at 512x512): x copied into an empty result, then each axis's two slabs
    filled (``value``, a Python number x's dtype holds, is assigned as np.pad assigns it)."""
    shape = tuple(n + b + a for n, (b, a) in zip(x.shape, pad_width))
    out = np.empty(shape, x.dtype)
    out[tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, pad_width))] = x
    key = [slice(None)] * x.ndim
    for axis, (b, a) in enumerate(pad_width):
        if b:
            key[axis] = slice(0, b)
            out[tuple(key)] = value
        if a:
            key[axis] = slice(shape[axis] - a, None)
            out[tuple(key)] = value
        key[axis] = slice(None)
    return out
