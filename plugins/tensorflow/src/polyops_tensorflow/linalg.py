"""TensorFlow kernels for the ``linalg`` op family (the rest use core's references).

float16/bfloat16 arrive as float32 (the ops declare a compute dtype).  Where tf's
kernel raises on a singular matrix (``tf.linalg.lu``, ``solve``, ``inv``) the contract
wants non-finite values instead: eagerly the error falls back to core's reference, and
under tf.function (where the error would only show at run time) the reference is used.
Not tf's ops under XLA either, though they would be 3 graph nodes against the reference's
~250 (4x4): XLA inverts through a QR factorization and never raises, so an exactly singular
matrix gives finite garbage (``inv([[1, 2], [2, 4]])`` about 1.5e7), where the contract and
every other backend give inf/NaN (issue 21 leaves that size gap, for the right answer).

svd and eigh normalise their vectors' signs to core's convention (each vector's
largest-|entry| positive).  ``eig``'s order and phases are LAPACK's, which tf's kernel does
not reproduce: it uses core's host computation eagerly and tf's kernel only when traced.  ``lstsq``, ``pinv``, ``matrix_rank`` and the spectral norms only need
singular values (or sign-invariant products) and are always native.  matrix_power has
no tf function and stays on the reference.
"""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from polyops.plugin import eig_vectors_error, nonempty, reference

from ._compat import off_tape as _off_tape
from ._compat import on_tape as _on_tape
from .core import EagerTensor
from .numpy._common import _host_view

_InvalidArgument = tf.errors.InvalidArgumentError


def _eps(dtype):
    return float(np.finfo(np.float64 if dtype == tf.float64 else np.float32).eps)


# ===== cholesky, solve_triangular, cholesky_inverse =====


def cholesky(x, upper):
    # tf reads the lower triangle; a failed factorization fills the lower triangle with
    # NaN and leaves the upper one unset, so it is zeroed explicitly (eagerly, only then:
    # a successful one writes zeros there).
    lo = tf.linalg.cholesky(x)
    host = _host_view(lo)
    if host is None or np.isnan(host).any():
        lo = tf.linalg.band_part(lo, -1, 0)
    if upper:
        lo = tf.linalg.matrix_transpose(lo)
    return lo


def solve_triangular(a, b, lower):
    vec = len(b.shape) == len(a.shape) - 1
    if vec:
        b = b[..., None]
    out = tf.linalg.triangular_solve(a, b, lower=lower)  # batch dims broadcast
    if vec:
        out = out[..., 0]
    return out


def cholesky_inverse(x, upper):
    lo = tf.linalg.matrix_transpose(x) if upper else x  # cholesky_solve reads the lower triangle
    n = x.shape[-1]
    eye = tf.broadcast_to(tf.eye(n, dtype=x.dtype), tf.shape(x))
    return tf.linalg.cholesky_solve(lo, eye)


# ===== LU family: lu_factor, det, solve, inv =====


def _eager():
    return tf.executing_eagerly()


def _perm_to_pivots(p, k):
    """LAPACK pivots (..., k) of a row permutation p (..., m) (P @ x == x[p])."""
    m = p.shape[-1]
    cur = p * 0 + tf.range(m, dtype=p.dtype)  # rows in their current order
    idx = tf.range(m, dtype=p.dtype)
    pivs = []
    for i in range(k):
        j = tf.argmax(tf.cast(tf.equal(cur, p[..., i:i + 1]), tf.int32), -1, output_type=p.dtype)
        pivs.append(j)
        ci = cur[..., i:i + 1]
        cj = tf.gather(cur, j[..., None], batch_dims=len(p.shape) - 1)
        jj = j[..., None]
        cur = tf.where(tf.equal(idx, i), cj, tf.where(tf.equal(idx, jj), ci, cur))
    if not pivs:
        return tf.zeros(tuple(p.shape[:-1]) + (0,), tf.int32)
    return tf.cast(tf.stack(pivs, -1), tf.int32)


def lu_factor(x):
    m, n = x.shape[-2], x.shape[-1]
    if m != n or not _eager() or None in x.shape:
        return reference("lu_factor")(x)
    try:
        lu, p = _lu(x)
    except _InvalidArgument:  # singular: tf refuses, LAPACK does not
        return reference("lu_factor")(x)
    return lu, _perm_to_pivots(p, n)


def _lu(a):
    """tf.linalg.lu's packed L\\U and row permutation p, with the gradient tf lacks for
    Lu.  With a[p] = L U and F = L^-1 da[p] U^-1, dL = L tril(F, -1) and dU = triu(F) U,
    so a-bar[p] = L^-T (tril(L^T G_L, -1) + triu(G_U U^T)) U^-T."""
    lu, p = tf.linalg.lu(tf.stop_gradient(a))
    return _lu_with_gradient(a, lu, p), p


def _lu_with_gradient(a, lu, p):
    @tf.custom_gradient
    def packed(a):
        return tf.identity(lu), grad

    def grad(g):
        lower = tf.linalg.band_part(lu, -1, 0)
        l = tf.linalg.set_diag(lower, tf.ones_like(tf.linalg.diag_part(lu)))
        u = tf.linalg.band_part(lu, 0, -1)
        gl = g - tf.linalg.band_part(g, 0, -1)
        m = tf.linalg.matmul(l, gl, adjoint_a=True)
        m = m - tf.linalg.band_part(m, 0, -1)
        m = m + tf.linalg.band_part(tf.linalg.matmul(tf.linalg.band_part(g, 0, -1), u,
                                                     adjoint_b=True), 0, -1)
        x = tf.linalg.triangular_solve(l, m, lower=True, adjoint=True)  # L^-T m
        bt = tf.linalg.triangular_solve(u, tf.linalg.adjoint(x), lower=False)  # (x U^-T)^T
        rows = tf.one_hot(p, tf.shape(a)[-1], dtype=a.dtype)  # rows @ a == a[p]
        return tf.linalg.matmul(rows, bt, adjoint_a=True, adjoint_b=True)

    return packed(a)


@nonempty  # tf's det of 0x0 matrices is not 1 (core's fill)
def det(x):
    # the custom gradient costs ~80 us eagerly: only where a tape records x, or traced
    if x.dtype.is_floating and (type(x) is not EagerTensor or _on_tape(x)):
        return _det(x)
    return tf.linalg.det(x)


def _cofactors(a):
    """The cofactor matrix adj(a)^T (det's derivative) through an SVD, exact at singular
    matrices too, where det * inv(a)^T is 0 * inf: with a = U S V^T it is
    det(U) det(V) U diag(prod_{j != i} s_j) V^T, returned as (det(U) det(V), the rest)."""
    s, u, v = tf.linalg.svd(a)
    others = tf.math.cumprod(s, -1, exclusive=True) * tf.math.cumprod(
        s, -1, exclusive=True, reverse=True)
    sign = tf.stop_gradient(tf.linalg.det(tf.linalg.matmul(u, v, adjoint_b=True)))  # det(U) det(V)
    return sign, tf.linalg.matmul(u * tf.expand_dims(others, -2), v, adjoint_b=True)


@tf.custom_gradient
def _det(a):
    """det with the cofactor matrix as its gradient: tf's own inverts the matrix, which
    raises at a singular one."""

    def grad(g):
        sign, cof = _cofactors(a)
        return (g * sign)[..., None, None] * cof

    return tf.linalg.det(a), grad


def solve(a, b):
    if not _eager():
        return reference("solve")(a, b)
    # tf.raw_ops and plain lists: eagerly tf.linalg.solve's wrapper and TensorShape
    # slices cost more than a small solve
    ra = a.shape.rank
    vec = b.shape.rank == ra - 1
    aw, bw = a, tf.raw_ops.ExpandDims(input=b, axis=-1) if vec else b
    if ra > 2 or bw.shape.rank > 2:
        da, db = a.shape.as_list(), bw.shape.as_list()
        if da[:-2] != db[:-2]:  # tf.linalg.solve does not broadcast batch dims
            batch = np.broadcast_shapes(tuple(da[:-2]), tuple(db[:-2]))
            aw = tf.broadcast_to(aw, batch + tuple(da[-2:]))
            bw = tf.broadcast_to(bw, batch + tuple(db[-2:]))
    try:
        out = tf.raw_ops.MatrixSolve(matrix=aw, rhs=bw)
    except _InvalidArgument:  # singular
        return reference("solve")(a, b)
    if vec:
        out = tf.raw_ops.Squeeze(input=out, axis=[-1])
    return out


def inv(x):
    if not _eager():
        return reference("inv")(x)
    try:
        return tf.linalg.inv(x)
    except _InvalidArgument:  # singular
        return reference("inv")(x)


# ===== qr =====


def qr(x, mode):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    q, r = tf.linalg.qr(x, full_matrices=mode == "complete")
    if k:
        d = tf.linalg.diag_part(r)[..., :k]
        s = tf.where(d < 0, tf.constant(-1.0, d.dtype), tf.constant(1.0, d.dtype))
        sq = s
        if q.shape[-1] > k:
            sq = tf.concat([s, tf.ones(tf.concat([tf.shape(s)[:-1], [q.shape[-1] - k]], 0), s.dtype)], -1)
        sr = s
        if r.shape[-2] > k:
            sr = tf.concat([s, tf.ones(tf.concat([tf.shape(s)[:-1], [r.shape[-2] - k]], 0), s.dtype)], -1)
        q = q * sq[..., None, :]
        r = tf.linalg.band_part(r * sr[..., :, None], 0, -1)
    return q, r


# ===== svd, eigh, eig =====


def _signs(v):
    """+-1 (..., k) making each column of v (..., m, k) have its largest-|entry| positive
    (the first entry within a relative 1e-3 of the largest, robust to near ties): core's
    sign convention (polyops.plugin._sign_columns)."""
    if v.shape[-2] == 0:
        return tf.ones(tf.concat([tf.shape(v)[:-2], tf.shape(v)[-1:]], 0), v.dtype)
    a = tf.abs(v)
    near = tf.cast(a >= tf.reduce_max(a, axis=-2, keepdims=True) * (1 - 1e-3), tf.int32)
    idx = tf.argmax(near, axis=-2, output_type=tf.int32)  # the first near-maximal entry
    top = tf.gather(tf.linalg.matrix_transpose(v), idx[..., None], batch_dims=len(v.shape) - 1)[..., 0]
    return tf.where(top < 0, tf.constant(-1.0, v.dtype), tf.constant(1.0, v.dtype))


def svd(x, full_matrices, compute_uv):
    # tf.linalg.svd (s descending), signs normalised to core's convention.
    if not compute_uv:
        return tf.linalg.svd(x, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    vh = tf.linalg.adjoint(v)
    k = min(x.shape[-2], x.shape[-1])
    sign = _signs(u[..., :, :k])
    u_parts, vh_parts = [u[..., :, :k] * sign[..., None, :]], [vh[..., :k, :] * sign[..., :, None]]
    if u.shape[-1] > k:
        rest = u[..., :, k:]
        u_parts.append(rest * _signs(rest)[..., None, :])
    if vh.shape[-2] > k:
        rest = vh[..., k:, :]
        vh_parts.append(rest * _signs(tf.linalg.matrix_transpose(rest))[..., :, None])
    u = tf.concat(u_parts, -1) if len(u_parts) > 1 else u_parts[0]
    vh = tf.concat(vh_parts, -2) if len(vh_parts) > 1 else vh_parts[0]
    return u, s, vh


@tf.custom_gradient
def _symmetric_gradient(x):
    """The identity, whose gradient is symmetrized: eigh reads the lower triangle of a
    symmetric input, and polyops gives its gradient as (G + G^T) / 2 on every backend
    (tf's own is the lower-triangle one; docs/transforms.md, Gradients)."""
    return tf.identity(x), lambda g: (g + tf.linalg.matrix_transpose(g)) / 2


def eigh(x):
    # tf.linalg.eigh: ascending, reads the lower triangle; signs to core's convention.
    w, v = tf.linalg.eigh(_symmetric_gradient(x))
    v = v * _signs(v)[..., None, :]
    return w, v


def eig(x):
    if _eager():  # LAPACK's order and phases, as the other backends
        return _eig_host(x)
    w, v = tf.linalg.eig(x)
    ctype = tf.complex128 if x.dtype == tf.float64 else tf.complex64  # (64-bit mode)
    return tf.cast(w, ctype), tf.cast(v, ctype)


@tf.custom_gradient
def _eig_host(x):
    """The host eig with the eigenvalues' gradient (its forward runs off the tape):
    A-bar = V^-H diag(w-bar) V^H, real part for a real A (tensorflow's convention for
    complex cotangents, as its own eig gradient).  Eigenvectors are unique only up to a
    complex phase: a gradient through them raises."""
    with _off_tape():  # eager custom_gradient keeps recording; x is cut off the tape
        w, v = reference("eig")(tf.stop_gradient(x))

    def grad(gw, gv):
        # the tape passes zeros for an output the loss does not use
        if gv is not None and bool(tf.reduce_any(tf.not_equal(gv, 0))):
            raise eig_vectors_error("tensorflow")
        if gw is None:
            return tf.zeros_like(x)
        vh = tf.linalg.adjoint(tf.cast(v, tf.complex128))
        ga = tf.linalg.solve(vh, tf.linalg.diag(tf.cast(gw, tf.complex128)) @ vh)
        return tf.cast(tf.math.real(ga), x.dtype)

    return (w, v), grad


# ===== lstsq, pinv, matrix_rank (through the singular values) =====


def _pinv_of(a, rcond):
    """pinv of (..., m, n) a (computation dtype), np.linalg.pinv's cutoff rule."""
    m, n = a.shape[-2], a.shape[-1]
    if rcond is None:
        rcond = _eps(a.dtype) * max(m, n)
    s, u, v = tf.linalg.svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * tf.reduce_max(s, -1, keepdims=True)
    large = s > cutoff
    sinv = tf.where(large, 1.0 / tf.where(large, s, tf.ones_like(s)), tf.zeros_like(s))
    return tf.linalg.matmul(v * sinv[..., None, :], u, adjoint_b=True)


def pinv(x, rcond):
    return _pinv_of(x, rcond)


def lstsq(a, b, rcond):
    # x = v @ (s+ * (u^H @ b)), s+ = 1/s where s > rcond * max(s), else 0 (as pinv(a) @ b,
    # without forming pinv).  tf.raw_ops: eagerly the public wrappers cost more than the
    # small problem's arithmetic.  divide_no_nan of the 0/1 mask gives s+ with a finite
    # gradient at the dropped values.
    if rcond is None:
        rcond = _eps(a.dtype) * max(a.shape)
    raw = tf.raw_ops
    s, u, v = raw.Svd(input=a, compute_uv=True, full_matrices=False)
    keep = raw.Greater(x=s, y=raw.Mul(x=raw.Max(input=s, axis=-1, keep_dims=True),
                                      y=tf.constant(rcond, s.dtype)))
    sinv = raw.ExpandDims(input=raw.DivNoNan(x=raw.Cast(x=keep, DstT=s.dtype), y=s), axis=-1)
    vec = len(b.shape) == 1
    bm = raw.ExpandDims(input=b, axis=-1) if vec else b
    x = raw.BatchMatMulV2(x=v, y=raw.Mul(x=sinv, y=raw.BatchMatMulV2(x=u, y=bm, adj_x=True)))
    return raw.Squeeze(input=x, axis=[-1]) if vec else x


def matrix_rank(x, tol):
    m, n = x.shape[-2], x.shape[-1]
    s = tf.linalg.svd(x, compute_uv=False)
    if tol is None:
        cut = tf.reduce_max(s, -1, keepdims=True) * (max(m, n) * _eps(x.dtype))
    else:
        cut = tf.constant(tol, s.dtype)
    return tf.reduce_sum(tf.cast(s > cut, tf.int32), -1)


# ===== norm =====


@nonempty  # tf's reduce_max/min of no singular values is -inf/+inf, not NumPy's answer
def norm(x, ord, axis, keepdims):
    if len(axis) == 1 or ord is None and len(axis) != 2:
        ax = list(axis)
        if ord is None or ord == 2:
            out = tf.sqrt(tf.reduce_sum(x * x, ax, keepdims))
        elif ord == math.inf:
            out = tf.reduce_max(tf.abs(x), ax, keepdims)
        elif ord == -math.inf:
            out = tf.reduce_min(tf.abs(x), ax, keepdims)
        elif ord == 0:
            out = tf.reduce_sum(tf.cast(tf.not_equal(x, 0), x.dtype), ax, keepdims)
        elif ord == 1:
            out = tf.reduce_sum(tf.abs(x), ax, keepdims)
        else:
            p = float(ord)
            out = tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), p), ax, keepdims), 1.0 / p)
        return out
    r, c = axis
    nd = len(x.shape)
    if ord in (None, "fro"):
        out = tf.sqrt(tf.reduce_sum(x * x, list(axis), keepdims))
    elif ord in (1, -1, math.inf, -math.inf):
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        s = tf.reduce_sum(tf.abs(x), inner, keepdims=True)
        red = tf.reduce_max if ord in (1, math.inf) else tf.reduce_min
        out = red(s, outer, keepdims=True)
        if not keepdims:
            out = tf.squeeze(out, sorted(axis))
    else:  # 2, -2, "nuc": singular values of the matrices moved last
        perm = [i for i in range(nd) if i not in axis] + [r, c]
        s = tf.linalg.svd(tf.transpose(x, perm), compute_uv=False)
        out = (tf.reduce_max(s, -1) if ord == 2 else tf.reduce_min(s, -1) if ord == -2
               else tf.reduce_sum(s, -1))
        if keepdims:
            for ax in sorted(axis):
                out = tf.expand_dims(out, ax)
    return out
