"""OpenVINO kernels of ``polyops.ops.numpy.manipulation``: flips, rot90, the stacks and
append, roll, tile and repeat (data movement: 8-byte dtypes travel as int32 pairs)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._graph import T, axes_const, const, ops
from .._graph import copy as _copy
from ._common import _bmax, _move, _reverse
from .base import concatenate as _concatenate
from .base import reshape as _reshape
from .base import transpose as _transpose


# ravel, swapaxes, moveaxis: reshape's and transpose's kernels (eagerly a layout change
# on the host, as those; a Reshape/Transpose node under polyops.jit)
def ravel(x):
    return _reshape(x, (math.prod(x.shape),))


def swapaxes(x, axis1, axis2):
    perm = list(range(x.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _transpose(x, tuple(perm))


def moveaxis(x, source, destination):
    order = [a for a in range(x.ndim) if a not in source]
    for d, s in sorted(zip(destination, source)):
        order.insert(d, s)
    return _transpose(x, tuple(order))


def fliplr(x):
    shape = x.shape
    return _move(("flip", (1,)), lambda p: _reverse(p, (1,), shape), x)  # (flip's model)


def flipud(x):
    shape = x.shape
    return _move(("flip", (0,)), lambda p: _reverse(p, (0,), shape), x)


def rot90(array, k, axes):
    # transpose(flip(x, b)) is flip(transpose(x), a), and flip(transpose(x), b) is
    # transpose(flip(x, a)): the transpose on the host (base.transpose: OpenVINO's CPU
    # Transpose of a 512x512 float32 takes 0.84 ms, NumPy's copy 0.29 ms), then one model
    # reversing the axis that is not last where there is one (a Gather along the last axis
    # costs a little more)
    a, b = axes
    if k == 0:
        return _copy(array)
    shape = array.shape
    if k == 2:
        pair = (a, b) if a < b else (b, a)
        return _move(("flip", pair), lambda p: _reverse(p, pair, shape), array)
    nd = len(shape)
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    perm = tuple(perm)
    # k == 1: flip x along b then transpose, or transpose then flip along a (k == 3: a, b)
    before, after = (b, a) if k == 1 else (a, b)
    if after != nd - 1 and (before == nd - 1 or after < before):
        y = _transpose(array, perm)
        return _move(("flip", (after,)), lambda p: _reverse(p, (after,), y.shape), y)
    y = _move(("flip", (before,)), lambda p: _reverse(p, (before,), shape), array)
    return _transpose(y, perm)


# ----- joining: NumPy's lifting as views, then one Concat (see base.concatenate) -----


def _lift_h(s):
    return s if s else (1,)


def _lift_v(s):
    return s if len(s) >= 2 else (1,) * (2 - len(s)) + s


def _lift_col(s):
    return s if len(s) >= 2 else (s[0], 1) if s else (1, 1)


def _lift_d(s):
    n = len(s)
    return s if n >= 3 else s + (1,) if n == 2 else (1, s[0], 1) if n else (1, 1, 1)


def _stacker(name, lift, axis):
    def kernel(xs):
        parts = []
        for x in xs:
            s = tuple(x.shape)
            t = lift(s)
            parts.append(x if t == s else x.reshape(t))
        ax = (0 if parts[0].ndim == 1 else 1) if axis is None else axis
        return _concatenate(parts, ax)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


hstack = _stacker("hstack", _lift_h, None)
vstack = _stacker("vstack", _lift_v, 0)
column_stack = _stacker("column_stack", _lift_col, 1)
dstack = _stacker("dstack", _lift_d, 2)


def append(x1, x2, axis):
    if axis is None:
        return _concatenate([x1.reshape(-1), x2.reshape(-1)], 0)
    return _concatenate([x1, x2], axis)


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
    shape = tuple(x.shape)
    if axis is None:
        shape, axis, flat = (math.prod(shape),), 0, True
    else:
        flat = False
    n = shape[axis]
    if isinstance(repeats, int):
        total, key_idx = n * repeats, repeats
    else:
        key_idx = tuple(repeats)
        total = builtins.sum(key_idx)
    if not total:  # every repeat 0 (OpenVINO's Gather crashes on no indices)
        return np.empty(shape[:axis] + (0,) + shape[axis + 1:], x.dtype)

    def build(p):  # (the indices only when a model is built: 0.6 ms for 2**18 elements)
        if isinstance(repeats, int):
            idx = np.repeat(np.arange(n), repeats)
        else:
            idx = np.repeat(np.arange(n), np.asarray(repeats, np.int64))
        if flat:
            wide = len(p.get_output_partial_shape(0)) > x.ndim
            p = ops.reshape(p, axes_const(list(shape) + ([2] if wide else [])), False)
        return ops.gather(p, axes_const(idx), const(axis, T.i64))

    return _move(("repeat", key_idx, axis, flat), build, x)
