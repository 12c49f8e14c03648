"""OpenVINO kernels of ``polyops.ops.numpy.manipulation``: roll, tile and repeat
(data movement: 8-byte dtypes travel as int32 pairs)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._graph import T, axes_const, const, ops
from .._graph import copy as _copy
from ._common import _bmax, _move


def roll(x, shift, axis):
    shape = tuple(np.shape(x))
    if axis is None:
        n = math.prod(shape)
        if shift % n == 0:
            return _copy(x)
        flat_shape = [n]

        def build(p):
            wide = len(p.get_output_partial_shape(0)) > len(shape)
            f = ops.reshape(p, axes_const(flat_shape + ([2] if wide else [])), False)
            r = ops.roll(f, axes_const([shift % n]), axes_const([0]))
            return ops.reshape(r, axes_const(list(shape) + ([2] if wide else [])), False)

        return _move(("roll", shift % n, None), build, x)
    pairs = [(a, s % shape[a]) for a, s in zip(axis, shift) if s % shape[a]]
    if not pairs:
        return _copy(x)

    def build(p):
        return ops.roll(p, axes_const([s for _, s in pairs]), axes_const([a for a, _ in pairs]))

    return _move(("roll", tuple(pairs)), build, x)


def tile(x, repeats):
    shape = tuple(np.shape(x))
    nd = _bmax(len(shape), len(repeats))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(repeats)) + tuple(repeats)
    out = tuple(s * r for s, r in zip(shape, reps))
    if builtins.all(r == 1 for r in reps):
        return _copy(x).reshape(out)

    def build(p):
        wide = len(p.get_output_partial_shape(0)) > len(np.shape(x))
        extra = [2] if wide else []
        p = ops.reshape(p, axes_const(list(shape) + extra), False)
        return ops.tile(p, axes_const(list(reps) + ([1] if wide else [])))

    return _move(("tile", shape, reps), build, x)


def repeat(x, repeats, axis):
    shape = tuple(np.shape(x))
    if axis is None:
        shape, axis, flat = (math.prod(shape),), 0, True
    else:
        flat = False
    n = shape[axis]
    if isinstance(repeats, int):
        idx = np.repeat(np.arange(n), repeats)
    else:
        idx = np.repeat(np.arange(n), np.asarray(repeats, np.int64))
    out = shape[:axis] + (len(idx),) + shape[axis + 1:]
    if not len(idx):  # every repeat 0 (OpenVINO's Gather crashes on no indices)
        return np.empty(out, x.dtype)
    key_idx = repeats if isinstance(repeats, int) else tuple(repeats)

    def build(p):
        if flat:
            wide = len(p.get_output_partial_shape(0)) > np.ndim(x)
            p = ops.reshape(p, axes_const(list(shape) + ([2] if wide else [])), False)
        return ops.gather(p, axes_const(idx), const(axis, T.i64))

    return _move(("repeat", key_idx, axis, flat), build, x)
