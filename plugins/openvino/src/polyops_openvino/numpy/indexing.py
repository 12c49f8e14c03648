"""OpenVINO kernels of ``polyops.ops.numpy.indexing``: triangles, take_along_axis and pad
(data movement: 8-byte dtypes travel as int32 pairs)."""

from __future__ import annotations

import builtins

import numpy as np

from polyops.plugin import pad_index, reference

from .._graph import T, axes_const, const, etype, ops, run1
from .._graph import copy as _copy
from ..core import _np_dtype
from ..core import cast as _cast
from ._common import _I32, _bits32, _conv, _cpu_type, _kept, _kind, _move, _wide
from .base import take as _take


def array(x, dtype):
    # a copy needs no model: on the host, as the kernels copy an input they return as it is
    # (core's reference runs copy's reference, a Select model of the whole input)
    if x.dtype == _np_dtype(dtype):
        return _copy(x)
    return _cast(x, dtype)


copy = _copy  # (a new numpy array; a recorded tensor as it is, immutable in the model)


def _triangle(name, lower):
    masks: dict = {}  # (k, n, m) -> the kept entries, or None when every one is kept

    def kernel(x, k):
        shape = tuple(x.shape)
        n, m = shape[-2:]
        mk = (k, n, m)
        if mk in masks:
            keep = masks[mk]
        else:
            rows = np.arange(n).reshape(n, 1)
            cols = np.arange(m).reshape(1, m)
            keep = (cols <= rows + k) if lower else (cols >= rows + k)
            if keep.all():
                keep = None
            if len(masks) >= 256:
                masks.clear()
            masks[mk] = keep
        if keep is None:
            return _copy(x)

        def build(p):
            mask = keep[..., None] if len(p.get_output_partial_shape(0)) > len(shape) else keep
            zero = ops.broadcast(const(0, etype(p)), axes_const(mask.shape))
            return ops.select(const(mask, T.boolean), p, zero)

        return _move((name, k, n, m), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


tril = _triangle("tril", True)
triu = _triangle("triu", False)


def _diagonal_plan(shape, offset, axis1, axis2):
    """The build of diagonal's Gather for ``shape``, or the empty result's shape."""
    nd = len(shape)
    n, m = shape[axis1], shape[axis2]
    rest = [i for i in range(nd) if i not in (axis1, axis2)]
    size = builtins.max(0, builtins.min(n, m - offset) if offset >= 0
                        else builtins.min(n + offset, m))
    if not size:  # (OpenVINO's Gather fails on no indices)
        return tuple(shape[i] for i in rest) + (0,)
    i = np.arange(size)
    flat = i * m + i + offset if offset >= 0 else (i - offset) * m + i
    perm = rest + [axis1, axis2]

    def build(p):
        extra = [2] if len(p.get_output_partial_shape(0)) > nd else []  # (an int32 pair)
        if perm != list(range(nd)):
            p = ops.transpose(p, axes_const(perm + ([nd] if extra else [])))
        p = ops.reshape(p, axes_const([shape[j] for j in rest] + [n * m] + extra), False)
        return ops.gather(p, axes_const(flat), const(len(rest), T.i64))

    return build


_DIAGONALS: dict = {}  # (shape, offset, axis1, axis2) -> _diagonal_plan's answer


def diagonal(x, offset, axis1, axis2):
    # one Gather of the diagonal's flat positions (core's reference reshapes x with a copy
    # first, and a Transpose where the axes are not the last two)
    plan = _kept(_DIAGONALS, (x.shape, offset, axis1, axis2), _diagonal_plan)
    if type(plan) is tuple:
        return np.zeros(plan, x.dtype)
    return _move(("diagonal", offset, axis1, axis2), plan, x)


def take_along_axis(x, indices, axis):
    if axis is None:
        return _take(np.reshape(x, -1), indices, None)
    xs, ish = tuple(np.shape(x)), tuple(np.shape(indices))
    base = list(xs)
    base[axis] = ish[axis]
    out = np.broadcast_shapes(tuple(base), ish)
    n = xs[axis]
    xshape = tuple(o if i != axis else n for i, o in enumerate(out))

    def build(p, i):
        wide = len(p.get_output_partial_shape(0)) > len(xs)
        extra = [2] if wide else []
        if xs != xshape:
            p = ops.broadcast(p, axes_const(list(xshape) + extra))
        i = ops.broadcast(i, axes_const(out)) if ish != out else i
        # indices outside [-n, n) read 0: polyops' policy under a trace (eagerly core
        # raised on them); GatherElements itself fails on them
        bad = ops.logical_or(ops.less(i, const(-n, _I32)), ops.greater_equal(i, const(n, _I32)))
        i = ops.select(ops.less(i, const(0, _I32)), ops.add(i, const(n, _I32)), i)
        i = ops.select(bad, const(0, _I32), i)
        if wide:
            i = ops.broadcast(ops.unsqueeze(i, const(len(out), T.i64)), axes_const(list(out) + [2]))
            bad = ops.unsqueeze(bad, const(len(out), T.i64))
        g = ops.gather_elements(p, i, axis)
        return ops.select(bad, ops.convert_like(const(0, _I32), g), g)

    xb, undo = _bits32(x)
    return undo(run1(("take_along_axis", axis), build, xb, indices))


def _pad_plan(shape, dtype, wide, widths, mode, constant_values):
    """pad's (key, build) for these static arguments; None where nothing is padded."""
    out = tuple(d + b + a for d, (b, a) in zip(shape, widths))
    if builtins.all(b == 0 and a == 0 for b, a in widths):
        return None
    if mode == "constant":
        value = np.asarray(constant_values).astype(dtype)
        if wide:  # the constant's bit pattern as an int32 pair
            value = np.ascontiguousarray(value).reshape(1).view(np.int32)

        def build(p):
            t = etype(p)
            extra = [(0, 0)] if len(p.get_output_partial_shape(0)) > len(shape) else []
            w = list(widths) + extra
            begin = axes_const([b for b, _ in w])
            end = axes_const([a for _, a in w])
            if extra:  # a constant pair: pad with zeros, then select the pattern in
                z = ops.pad(p, begin, end, "constant", const(0, t))
                inside = np.zeros(out, np.bool_)
                inside[tuple(slice(b, b + d) for d, (b, _) in zip(shape, widths))] = True
                fill = ops.broadcast(const(value, t), axes_const(list(out) + [2]))
                return ops.select(const(inside[..., None], T.boolean), z, fill)
            return ops.pad(p, begin, end, "constant", const(value, t))

        return ("pad", widths, mode, repr(value.tolist())), build

    def build(p):
        for axis, (d, (b, a)) in enumerate(zip(shape, widths)):
            if b or a:
                p = ops.gather(p, axes_const(pad_index(d, b, a, mode)), const(axis, T.i64))
        return p

    return ("pad", widths, mode), build


# (shape, dtype, wide, widths, mode, repr(constant_values)) -> _pad_plan's answer (the
# constant's repr tells -0.0 from 0.0)
_PADS: dict = {}


def pad(x, pad_width, mode, constant_values):
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        return reference("pad")(x, pad_width, mode, constant_values)
    pk = (x.shape, x.dtype, _wide(x), pad_width, mode, repr(constant_values))
    plan = _PADS.get(pk, False)
    if plan is False:
        plan = _pad_plan(x.shape, x.dtype, pk[2], tuple(pad_width), mode, constant_values)
        if len(_PADS) >= 1024:
            _PADS.clear()
        _PADS[pk] = plan
    if plan is None:
        return _copy(x)
    return _move(plan[0], plan[1], x)


def trace(x, offset, axis1, axis2):
    if _kind(x) != "f":  # (ints and bools accumulate in 32 bits: core's reference)
        return reference("trace")(x, offset, axis1, axis2)
    shape = x.shape
    n, m = shape[axis1], shape[axis2]
    k = builtins.max(0, builtins.min(n, m - offset) if offset >= 0 else builtins.min(n + offset, m))
    rest = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    if not k:
        return np.zeros(tuple(shape[i] for i in rest), x.dtype)
    i = np.arange(k)
    flat = i * m + i + offset if offset >= 0 else (i - offset) * m + i

    def build(p):
        # core's diagonal (a Gather of the flattened planes) and sum, in one model
        t = etype(p)
        p = ops.transpose(_cpu_type(p), axes_const(rest + [axis1, axis2]))
        p = ops.reshape(p, axes_const([shape[j] for j in rest] + [n * m]), False)
        d = ops.gather(p, axes_const(flat), const(len(rest), T.i64))
        return _conv(ops.reduce_sum(d, axes_const([len(rest)]), False), t)

    return run1(("trace", offset, axis1, axis2), build, x)
