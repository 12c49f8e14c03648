"""TensorFlow kernels for the ``linalg`` op family (the rest use core's references).

float16/bfloat16 compute in float32 (cast back), as core's references.  Where tf's
kernel raises on a singular matrix (``tf.linalg.lu``, ``solve``, ``inv``) the contract
wants non-finite values instead: eagerly the error falls back to core's reference, and
under tf.function (where the error would only show at run time) the reference is used.

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

from polyops.plugin import eig_vectors_error, reference

from ._compat import off_tape as _off_tape

_HALF = (tf.float16, tf.bfloat16)
_InvalidArgument = tf.errors.InvalidArgumentError


def _w(x):
    return tf.cast(x, tf.float32) if x.dtype in _HALF else x


def _b(y, dtype):
    return y if y.dtype == dtype else tf.cast(y, dtype)


def _eps(dtype):
    return float(np.finfo(np.float64 if dtype == tf.float64 else np.float32).eps)


# ===== cholesky, solve_triangular, cholesky_inverse =====


def cholesky(x, upper):
    # tf reads the lower triangle; a failed factorization fills the lower triangle with
    # NaN and leaves the upper one unset, so it is zeroed explicitly.
    lo = tf.linalg.band_part(tf.linalg.cholesky(_w(x)), -1, 0)
    if upper:
        lo = tf.linalg.matrix_transpose(lo)
    return _b(lo, x.dtype)


def solve_triangular(a, b, lower):
    vec = len(b.shape) == len(a.shape) - 1
    aw, bw = _w(a), _w(b)
    if vec:
        bw = bw[..., None]
    out = tf.linalg.triangular_solve(aw, bw, lower=lower)  # batch dims broadcast
    if vec:
        out = out[..., 0]
    return _b(out, a.dtype)


def cholesky_inverse(x, upper):
    xw = _w(x)
    lo = tf.linalg.matrix_transpose(xw) if upper else xw  # cholesky_solve reads the lower triangle
    n = x.shape[-1]
    if n == 0:
        return x
    eye = tf.broadcast_to(tf.eye(n, dtype=xw.dtype), tf.shape(xw))
    return _b(tf.linalg.cholesky_solve(lo, eye), x.dtype)


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
        lu, p = _lu(_w(x))
    except _InvalidArgument:  # singular: tf refuses, LAPACK does not
        return reference("lu_factor")(x)
    return _b(lu, x.dtype), _perm_to_pivots(p, n)


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


def det(x):
    if x.shape[-1] == 0:
        return tf.ones(tf.shape(x)[:-2], x.dtype)
    a = _w(x)
    return _b(_det(a) if a.dtype.is_floating else tf.linalg.det(a), x.dtype)


def _cofactors(a):
    """The cofactor matrix adj(a)^T (det's derivative) through an SVD, exact at singular
    matrices too, where det * inv(a)^T is 0 * inf: with a = U S V^T it is
    det(U) det(V) U diag(prod_{j != i} s_j) V^T."""
    s, u, v = tf.linalg.svd(a)
    others = tf.math.cumprod(s, -1, exclusive=True) * tf.math.cumprod(
        s, -1, exclusive=True, reverse=True)
    sign = tf.stop_gradient(tf.linalg.det(u) * tf.linalg.det(v))
    return sign[..., None, None] * tf.linalg.matmul(u * others[..., None, :], v, adjoint_b=True)


@tf.custom_gradient
def _det(a):
    """det with the cofactor matrix as its gradient: tf's own inverts the matrix, which
    raises at a singular one."""

    def grad(g):
        return g[..., None, None] * _cofactors(a)

    return tf.linalg.det(a), grad


def solve(a, b):
    if not _eager():
        return reference("solve")(a, b)
    vec = len(b.shape) == len(a.shape) - 1
    aw, bw = _w(a), _w(b)
    if vec:
        bw = bw[..., None]
    batch = tf.broadcast_static_shape(aw.shape[:-2], bw.shape[:-2])
    aw = tf.broadcast_to(aw, batch.concatenate(aw.shape[-2:]))
    bw = tf.broadcast_to(bw, batch.concatenate(bw.shape[-2:]))
    if 0 in aw.shape or 0 in bw.shape:
        return reference("solve")(a, b)
    try:
        out = tf.linalg.solve(aw, bw)
    except _InvalidArgument:  # singular
        return reference("solve")(a, b)
    if vec:
        out = out[..., 0]
    return _b(out, a.dtype)


def inv(x):
    if not _eager():
        return reference("inv")(x)
    if 0 in x.shape:
        return x
    try:
        return _b(tf.linalg.inv(_w(x)), x.dtype)
    except _InvalidArgument:  # singular
        return reference("inv")(x)


# ===== qr =====


def qr(x, mode):
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    q, r = tf.linalg.qr(_w(x), full_matrices=mode == "complete")
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
    return _b(q, x.dtype), _b(r, x.dtype)


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
    xw = _w(x)
    if not compute_uv:
        return _b(tf.linalg.svd(xw, compute_uv=False), x.dtype)
    s, u, v = tf.linalg.svd(xw, full_matrices=full_matrices, compute_uv=True)
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
    return _b(u, x.dtype), _b(s, x.dtype), _b(vh, x.dtype)


@tf.custom_gradient
def _symmetric_gradient(x):
    """The identity, whose gradient is symmetrized: eigh reads the lower triangle of a
    symmetric input, and polyops gives its gradient as (G + G^T) / 2 on every backend
    (tf's own is the lower-triangle one; docs/transforms.md, Gradients)."""
    return tf.identity(x), lambda g: (g + tf.linalg.matrix_transpose(g)) / 2


def eigh(x):
    # tf.linalg.eigh: ascending, reads the lower triangle; signs to core's convention.
    w, v = tf.linalg.eigh(_symmetric_gradient(_w(x)))
    v = v * _signs(v)[..., None, :]
    return _b(w, x.dtype), _b(v, x.dtype)


def eig(x):
    if _eager():  # LAPACK's order and phases, as the other backends
        return _eig_host(x)
    w, v = tf.linalg.eig(_w(x))
    return tf.cast(w, tf.complex64), tf.cast(v, tf.complex64)


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
    if m == 0 or n == 0:
        return tf.zeros(tf.concat([tf.shape(a)[:-2], [n, m]], 0), a.dtype)
    if rcond is None:
        rcond = _eps(a.dtype) * max(m, n)
    s, u, v = tf.linalg.svd(a, full_matrices=False, compute_uv=True)
    cutoff = rcond * tf.reduce_max(s, -1, keepdims=True)
    large = s > cutoff
    sinv = tf.where(large, 1.0 / tf.where(large, s, tf.ones_like(s)), tf.zeros_like(s))
    return tf.linalg.matmul(v * sinv[..., None, :], u, adjoint_b=True)


def pinv(x, rcond):
    return _b(_pinv_of(_w(x), rcond), x.dtype)


def lstsq(a, b, rcond):
    aw, bw = _w(a), _w(b)
    if rcond is None:
        rcond = _eps(aw.dtype) * max(a.shape)
    p = _pinv_of(aw, rcond)  # (n, m)
    out = tf.linalg.matvec(p, bw) if len(b.shape) == 1 else tf.linalg.matmul(p, bw)
    return _b(out, a.dtype)


def matrix_rank(x, tol):
    xw = _w(x)
    m, n = x.shape[-2], x.shape[-1]
    if m == 0 or n == 0:
        return tf.zeros(tf.shape(x)[:-2], tf.int32)
    s = tf.linalg.svd(xw, compute_uv=False)
    if tol is None:
        cut = tf.reduce_max(s, -1, keepdims=True) * (max(m, n) * _eps(xw.dtype))
    else:
        cut = tf.constant(tol, s.dtype)
    return tf.reduce_sum(tf.cast(s > cut, tf.int32), -1)


# ===== norm =====


def norm(x, ord, axis, keepdims):
    a = _w(x)
    if len(axis) == 1 or ord is None and len(axis) != 2:
        ax = list(axis)
        if ord is None or ord == 2:
            out = tf.sqrt(tf.reduce_sum(a * a, ax, keepdims))
        elif ord == math.inf:
            out = tf.reduce_max(tf.abs(a), ax, keepdims)
        elif ord == -math.inf:
            out = tf.reduce_min(tf.abs(a), ax, keepdims)
        elif ord == 0:
            out = tf.reduce_sum(tf.cast(tf.not_equal(a, 0), a.dtype), ax, keepdims)
        elif ord == 1:
            out = tf.reduce_sum(tf.abs(a), ax, keepdims)
        else:
            p = float(ord)
            out = tf.pow(tf.reduce_sum(tf.pow(tf.abs(a), p), ax, keepdims), 1.0 / p)
        return _b(out, x.dtype)
    r, c = axis
    nd = len(x.shape)
    if ord in (None, "fro"):
        out = tf.sqrt(tf.reduce_sum(a * a, list(axis), keepdims))
    elif ord in (1, -1, math.inf, -math.inf):
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        s = tf.reduce_sum(tf.abs(a), inner, keepdims=True)
        red = tf.reduce_max if ord in (1, math.inf) else tf.reduce_min
        out = red(s, outer, keepdims=True)
        if not keepdims:
            out = tf.squeeze(out, sorted(axis))
    else:  # 2, -2, "nuc": singular values of the matrices moved last
        perm = [i for i in range(nd) if i not in axis] + [r, c]
        if 0 in (x.shape[r], x.shape[c]):
            return reference("norm")(x, ord, axis, keepdims)
        s = tf.linalg.svd(tf.transpose(a, perm), compute_uv=False)
        out = (tf.reduce_max(s, -1) if ord == 2 else tf.reduce_min(s, -1) if ord == -2
               else tf.reduce_sum(s, -1))
        if keepdims:
            for ax in sorted(axis):
                out = tf.expand_dims(out, ax)
    return _b(out, x.dtype)
