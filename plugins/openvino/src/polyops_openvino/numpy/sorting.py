"""OpenVINO kernels of ``polyops.ops.numpy.sorting``: sort and argsort (stable TopK),
cumulative sums and products, searchsorted, digitize and counts."""

from __future__ import annotations

import numpy as np

from polyops.plugin import reference

from .._graph import T, axes_const, const, etype, ops, run1, run1_dyn
from .._graph import copy as _copy
from ._common import (
    _FLOAT, _I32, _conv, _cpu_type, _eq, _flip, _kind, _lt, _nonzero, _reduce_plan, _slice,
    _wide,
)


# ===== sort =========================================================================


def _sort_index(x, axis, n):
    """int32 node: the stable ascending order of ``x`` along ``axis`` (NaN last)."""
    t = etype(x)
    k = const(n, _I32)
    if t not in _FLOAT:  # TopK orders ints exactly (unlike the f32 comparisons)
        v = _cpu_type(x)
        if etype(v) == T.u32:  # TopK is signed on u32
            v = _flip(v)
        return ops.topk(v, k, axis, "min", "value", "i32", True).output(1)
    nan = ops.is_nan(x)
    key = ops.select(nan, const(np.inf, t), x)
    first = ops.topk(key, k, axis, "min", "value", "i32", True).output(1)
    late = ops.convert(ops.gather_elements(nan, first, axis), _I32)
    second = ops.topk(late, k, axis, "min", "value", "i32", True).output(1)
    return ops.gather_elements(first, second, axis)


def _argsort_build(axis, n):
    def build(x):
        return _sort_index(x, axis, n)

    return build


def argsort(x, axis):
    if axis is None or x.ndim == 0:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    if n == 1:
        return np.zeros(x.shape, np.int32)
    return run1_dyn(("argsort", axis, n), _argsort_build(axis, n), x)


def sort(x, axis):
    if axis is None:
        x, axis = np.reshape(x, -1), 0
    n = x.shape[axis]
    if n == 1:
        return _copy(x)
    if _wide(x):
        return reference("sort")(x, axis)

    def build(p):
        return ops.gather_elements(p, _sort_index(p, axis, n), axis)

    return run1_dyn(("sort", axis, n), build, x)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # the stable argsort is a valid partition for every kth


# ===== cumulative sums and products =================================================


def _scan_nodes(x, axis, n, combine, identity):
    """Inclusive Hillis-Steele scan of node ``x`` (static shape) along ``axis``."""
    shape = list(x.get_output_partial_shape(0).to_shape())
    t = etype(x)
    s = 1
    while s < n:
        pad_shape = shape[:axis] + [s] + shape[axis + 1:]
        pad = ops.broadcast(const(identity, t), axes_const(pad_shape))
        head = _slice(x, [0], [n - s], [axis])
        x = combine(x, ops.concat([pad, head], axis))
        s *= 2
    return x


def _cumulative(name, product, nan_to):
    def kernel(x, axis, dtype=None):
        if axis is None:
            x, axis = np.reshape(x, -1), 0
        n = x.shape[axis]
        if n == 1 and (nan_to is None or _kind(x) != "f"):
            return _copy(x)
        if _wide(x):
            return reference(name)(x, axis)

        def build(p):
            t = etype(p)
            if t in _FLOAT:
                u = _cpu_type(p)
                if nan_to is not None:
                    u = ops.select(ops.is_nan(u), const(nan_to, etype(u)), u)
                if product:
                    r = _scan_nodes(u, axis, n, ops.multiply, 1.0)
                else:
                    r = ops.cumsum(u, const(axis, T.i64))
                return _conv(r, t)
            u = _conv(_cpu_type(p), _I32)  # wrapping Add/Multiply: u32 as its bit pattern
            r = _scan_nodes(u, axis, n, ops.multiply if product else ops.add, 1 if product else 0)
            return _conv(r, t) if t != T.u32 else ops.convert(r, t)

        return run1((name, axis), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


cumsum = _cumulative("cumsum", False, None)
cumprod = _cumulative("cumprod", True, None)
nancumsum = _cumulative("nancumsum", False, 0.0)
nancumprod = _cumulative("nancumprod", True, 1.0)


# ===== search and count =============================================================


def _count_before_nodes(seq, v, side, negate=False):
    """int32 node: how many of the 1-D sorted ``seq`` sort before each of ``v`` (NumPy's
    order: NaN last); an exact broadcast comparison and a count (< 2**24: exact)."""
    seq, v = _cpu_type(seq), _cpu_type(v)
    rank = len(v.get_output_partial_shape(0))
    v2 = ops.unsqueeze(v, const(rank, T.i64))
    is_float = etype(seq) in _FLOAT
    if side == "left":
        c = _lt(seq, v2)
        if is_float:
            c = ops.logical_or(c, ops.logical_and(ops.is_nan(v2), ops.logical_not(ops.is_nan(seq))))
    else:
        if is_float:
            c = ops.logical_or(ops.less_equal(seq, v2), ops.is_nan(v2))
        else:
            c = ops.logical_not(_lt(v2, seq))
    if negate:  # how many do not sort before
        c = ops.logical_not(c)
    return ops.reduce_sum(ops.convert(c, _I32), const(rank, T.i64), False)


def searchsorted(sorted_sequence, values, side):
    if _wide(values):
        return reference("searchsorted")(sorted_sequence, values, side)

    def build(s, v):
        return _count_before_nodes(s, v, side)

    return run1_dyn(("searchsorted", side), build, sorted_sequence, values)


def digitize(x, bins):
    n = np.shape(bins)[0]
    if _wide(x):
        return reference("digitize")(x, bins)

    def build(xp, b):
        inc = _count_before_nodes(b, xp, "right")
        if n < 2:
            return inc
        flipped = ops.gather(b, axes_const(np.arange(n - 1, -1, -1)), const(0, T.i64))
        # n - count: the CPU plugin miscomputes a Subtract fused after this ReduceSum
        dec = _count_before_nodes(flipped, xp, "right", negate=True)
        last = _cpu_type(ops.gather(b, const(n - 1, T.i64), const(0, T.i64)))
        first = _cpu_type(ops.gather(b, const(0, T.i64), const(0, T.i64)))
        return ops.select(_lt(last, first), dec, inc)

    return run1(("digitize",), build, x, bins)


def count_nonzero(x, axis):
    _, axes, _ = _reduce_plan(x, axis, False)
    if _wide(x):
        return reference("count_nonzero")(x, axis)

    def build(p):
        c = ops.convert(_nonzero(p), _I32)
        return ops.reduce_sum(c, axes_const(axes), False) if axes else c

    return run1_dyn(("count_nonzero", axes), build, x)


def isin(x1, x2, assume_unique, invert):
    shape = np.shape(x1)
    if _wide(x1):
        return reference("isin")(x1, x2, assume_unique, invert)

    def build(a, b):
        a, b = _cpu_type(a), _cpu_type(b)
        rank = len(shape)
        flat = ops.reshape(b, axes_const([-1]), False)
        hit = _eq(ops.unsqueeze(a, const(rank, T.i64)), flat)
        found = ops.reduce_logical_or(hit, const(rank, T.i64), False)
        return ops.logical_not(found) if invert else found

    return run1_dyn(("isin", bool(invert)), build, x1, x2)
