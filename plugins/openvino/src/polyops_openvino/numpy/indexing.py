"""OpenVINO kernels of ``polyops.ops.numpy.indexing``: triangles, take_along_axis and pad
(data movement: 8-byte dtypes travel as int32 pairs)."""

from __future__ import annotations

import builtins

import numpy as np

from polyops.plugin import pad_index, reference

from .._graph import T, axes_const, const, etype, ops, run1
from .._graph import copy as _copy
from ._common import _I32, _bits32, _move, _wide
from .base import take as _take


def _triangle(name, lower):
    def kernel(x, k):
        shape = tuple(np.shape(x))
        n, m = shape[-2:]
        rows = np.arange(n).reshape(n, 1)
        cols = np.arange(m).reshape(1, m)
        keep = (cols <= rows + k) if lower else (cols >= rows + k)
        if keep.all():
            return _copy(x)
        wide = _wide(x)

        def build(p):
            mask = keep[..., None] if wide else keep
            zero = ops.broadcast(const(0, etype(p)), axes_const(mask.shape))
            return ops.select(const(mask, T.boolean), p, zero)

        return _move((name, k, n, m), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


tril = _triangle("tril", True)
triu = _triangle("triu", False)


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


def pad(x, pad_width, mode, constant_values):
    shape = tuple(np.shape(x))
    widths = tuple(pad_width)
    out = tuple(d + b + a for d, (b, a) in zip(shape, widths))
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        return reference("pad")(x, pad_width, mode, constant_values)
    if builtins.all(b == 0 and a == 0 for b, a in widths):
        return _copy(x)
    if mode == "constant":
        value = np.asarray(constant_values).astype(x.dtype)
        if _wide(x):  # the constant's bit pattern as an int32 pair
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

        return _move(("pad", widths, mode, repr(value.tolist())), build, x)

    def build(p):
        for axis, (d, (b, a)) in enumerate(zip(shape, widths)):
            if b or a:
                p = ops.gather(p, axes_const(pad_index(d, b, a, mode)), const(axis, T.i64))
        return p

    return _move(("pad", widths, mode), build, x)
