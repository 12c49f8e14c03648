"""OpenVINO kernels for the ``nn`` op family (softmax uses core's reference)."""

from __future__ import annotations

import numpy as np

from ._graph import T, const, etype, ops, run1, to

_HALF = frozenset({T.f16, T.bf16})
_FLOAT = frozenset({T.f16, T.bf16, T.f32, T.f64})
_NARROW = frozenset({T.i8, T.i16, T.u8, T.u16})


def _relu_build(x):
    t = etype(x)
    if t in _FLOAT:
        u = to(x, T.f32) if t in _HALF else x
        r = ops.select(ops.is_nan(u), u, ops.relu(u))  # NaN propagates, as max(x, 0) does
        return to(r, t)
    u = to(x, T.i32) if t in _NARROW else x
    return to(ops.maximum(u, const(0, etype(u))), t)  # exact for int32


def relu(x):
    if x.dtype.kind == "u":
        return np.array(x, copy=True)
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    return run1(("relu",), _relu_build, x)


def _sigmoid_build(x):
    t = etype(x)
    u = to(x, T.f32) if t in _HALF else x
    return to(ops.sigmoid(u), t)


def sigmoid(x):
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    return run1(("sigmoid",), _sigmoid_build, x)
