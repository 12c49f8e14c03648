"""OpenVINO kernels for the ``linalg`` op family (the rest use core's references).

OpenVINO has Inverse (opset14) and MatMul but no factorizations (no LU, Cholesky, QR,
SVD or eigen-solvers), so the kernels here are inv, the ops built on an inverse (solve,
solve_triangular, cholesky_inverse, matrix_power) and the norms that need no singular
values.  cholesky, lu_factor, det, qr keep core's references; svd, eig, eigh, lstsq,
pinv, matrix_rank and the spectral norms (ord 2, -2, "nuc") stay host computations.
float16/bfloat16 operands arrive as float32 (these ops declare compute="float32" in core),
but matrix_power's.
"""

from __future__ import annotations

import math

import numpy as np
import openvino.opset14 as _ops14

from polyops.plugin import reference

from ._graph import HALF_TYPES, T, axes_const, const, etype, ops, run1, run1_dyn, to


def _inverse(x):
    return _ops14.inverse(x, False)


def _eye_like(shape, dtype):
    n = shape[-1]
    return np.broadcast_to(np.eye(n, dtype=np.float32).astype(dtype), shape).copy()


def _tri(x, n, lower):
    """``x``'s lower (upper) triangle, the rest zeroed."""
    m = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    return ops.select(const(m, T.boolean), x, const(0.0, etype(x)))


# ===== inv ============================================================================


def inv(x):
    return run1_dyn(("inv",), _inverse, x)


# ===== solve, solve_triangular ========================================================


def _solve_via_inverse(name, a, b, lower):
    vec = b.ndim == a.ndim - 1
    n = a.shape[-1]

    def build(aa, bb):
        if lower is not None:
            aa = _tri(aa, n, lower)
        if vec:
            bb = ops.unsqueeze(bb, const([-1], T.i64))
        out = ops.matmul(_inverse(aa), bb, False, False)
        if vec:
            out = ops.squeeze(out, const([-1], T.i64))
        return out

    # (the triangle mask of solve_triangular is n x n: static models)
    return (run1_dyn if lower is None else run1)((name, lower), build, a, b)


def solve(a, b):
    return _solve_via_inverse("solve", a, b, None)


def solve_triangular(a, b, lower=False):
    return _solve_via_inverse("solve_triangular", a, b, bool(lower))


# ===== cholesky_inverse ===============================================================


def cholesky_inverse(x, upper=False):
    n = x.shape[-1]

    def build(p):
        f = _inverse(_tri(p, n, not upper))  # L^-1 (upper: U^-1)
        return ops.matmul(f, f, False, True) if upper else ops.matmul(f, f, True, False)

    return run1(("cholesky_inverse", bool(upper)), build, x)


# ===== matrix_power ===================================================================


def matrix_power(a, n):
    if n == 0:
        return _eye_like(a.shape, a.dtype)

    def build(p):
        # matrix_power declares no compute dtype, but the CPU plugin rounds every bf16
        # MatMul to bf16: the chain runs in f32 and rounds once, as NumPy's does
        t = etype(p)
        base = to(p, T.f32) if t in HALF_TYPES else p
        k = n
        if k < 0:
            base, k = _inverse(base), -k
        result = None
        while k:
            if k & 1:
                result = base if result is None else ops.matmul(result, base, False, False)
            k >>= 1
            if k:
                base = ops.matmul(base, base, False, False)
        return to(result, t)

    return run1_dyn(("matrix_power", int(n)), build, a)


# ===== norm ===========================================================================


def _vector_norm(a, ord, ax, keepdims):
    t = etype(a)
    if ord is None or ord == 2:
        return ops.sqrt(ops.reduce_sum(ops.multiply(a, a), ax, keepdims))
    v = ops.abs(a)
    if ord == math.inf:
        return ops.reduce_max(v, ax, keepdims)
    if ord == -math.inf:
        return ops.reduce_min(v, ax, keepdims)
    if ord == 0:
        return ops.reduce_sum(to(ops.not_equal(a, const(0.0, t)), t), ax, keepdims)
    if ord == 1:
        return ops.reduce_sum(v, ax, keepdims)
    p = float(ord)
    return ops.power(ops.reduce_sum(ops.power(v, const(p, t)), ax, keepdims), const(1.0 / p, t))


def norm(x, ord, axis, keepdims):
    axes = tuple(axis)
    matrix = len(axes) == 2
    if matrix and ord in (2, -2, "nuc"):
        return reference("norm")(x, ord, axis, keepdims)  # needs singular values

    def build(a):
        if not matrix:
            return _vector_norm(a, ord, axes_const(list(axes)), keepdims)
        r, c = axes
        if ord in (None, "fro"):
            return ops.sqrt(ops.reduce_sum(ops.multiply(a, a), axes_const(list(axes)), keepdims))
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        s = ops.reduce_sum(ops.abs(a), axes_const([inner]), True)
        red = ops.reduce_max if ord in (1, math.inf) else ops.reduce_min
        out = red(s, axes_const([outer]), True)
        if not keepdims:
            out = ops.squeeze(out, axes_const(list(axes)))
        return out

    return run1_dyn(("norm", repr(ord), axes, bool(keepdims)), build, x)
