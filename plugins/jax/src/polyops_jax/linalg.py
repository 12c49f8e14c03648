"""JAX kernels for the ``linalg`` op family (the rest use core's references).

Kernels follow core's contracts (``core/src/polyops/ops/linalg.py``): inputs arrive as
floating arrays of the op's dtype, shapes validated; float16/bfloat16 as float32 (the ops
declare compute="float32"), but for matrix_power (LAPACK has no 16-bit routines).
Conventions normalised here where jax differs: qr's non-negative diagonal of ``r``,
cholesky reading only the lower triangle (no symmetrisation), the ``b.ndim == a.ndim - 1``
vector rule of solve/solve_triangular with broadcast batch dims, and the strict
``s > rcond * s.max()`` cut-offs of lstsq/pinv/matrix_rank (written on jnp's svd).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.custom_derivatives import SymbolicZero
from jax.lax import linalg as lax_linalg

from polyops.plugin import eig_vectors_error, nonempty, reference

from .core import HALF_JAX

def _eps(dtype):
    # eps of the compute dtype (float32 for the 16-bit floats, float32 with x64 off)
    return float(np.finfo(np.float64 if np.dtype(dtype) == np.float64 else np.float32).eps)


# ===== cholesky, cholesky_inverse, solve_triangular =====================================


@jax.custom_vjp
def _symmetric_gradient(x):
    """The identity, whose gradient is symmetrized: cholesky and eigh read one triangle of
    a symmetric input, and polyops gives their gradient as (G + G^T) / 2 on every backend
    (docs/transforms.md, Gradients)."""
    return x


_symmetric_gradient.defvjp(lambda x: (x, None),
                           lambda _, g: ((g + jnp.swapaxes(g, -1, -2)) / 2,))


@functools.partial(jax.jit, static_argnums=1)
def cholesky(x, upper):
    # symmetrize_input=False: only the lower triangle is read; not PD gives NaNs
    out = lax_linalg.cholesky(_symmetric_gradient(x), symmetrize_input=False)
    if upper:
        out = jnp.swapaxes(out, -1, -2)
    return out.astype(x.dtype)


@functools.partial(jax.jit, static_argnums=1)
def cholesky_inverse(x, upper):
    n = x.shape[-1]
    eye = jnp.broadcast_to(jnp.eye(n, dtype=x.dtype), x.shape)
    # t = L^-1 (or U^-1); triangular_solve reads only the named triangle
    t = lax_linalg.triangular_solve(x, eye, left_side=True, lower=not upper)
    tt = jnp.swapaxes(t, -1, -2)
    out = jnp.matmul(t, tt) if upper else jnp.matmul(tt, t)
    return out.astype(x.dtype)


def _rhs(a, b):
    """(a, b) broadcast to common batch dims with b a stack of matrices, and was_vector."""
    vec = b.ndim == a.ndim - 1
    if vec:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return jnp.broadcast_to(a, batch + a.shape[-2:]), jnp.broadcast_to(b, batch + b.shape[-2:]), vec


@functools.partial(jax.jit, static_argnums=2)
def solve_triangular(a, b, lower):
    dtype = a.dtype
    a, b, vec = _rhs(a, b)
    out = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower)
    if vec:
        out = out[..., 0]
    return out.astype(dtype)


# ===== LU family: lu_factor, det, solve, inv ==============================================


@jax.jit
def lu_factor(x):
    lu, piv, _ = lax_linalg.lu(x)
    return lu.astype(x.dtype), piv.astype(jnp.int32)


@nonempty  # jax's det of 0x0 matrices has no gradient (core's fill: 1)
@jax.jit
def det(x):
    return jnp.linalg.det(x).astype(x.dtype)


@jax.jit
def solve(a, b):
    dtype = a.dtype
    a, b, vec = _rhs(a, b)
    out = jnp.linalg.solve(a, b)
    if vec:
        out = out[..., 0]
    return out.astype(dtype)


@jax.jit
def inv(x):
    return jnp.linalg.inv(x).astype(x.dtype)


@functools.partial(jax.jit, static_argnums=1)
def matrix_power(a, n):
    # as the reference: n < 0 inverts (in float32 for the 16-bit floats: no compute dtype,
    # but LAPACK has no 16-bit routines) and then multiplies in a's dtype
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a = inv(a.astype(jnp.float32) if a.dtype in HALF_JAX else a).astype(a.dtype)
        n = -n
    return jnp.linalg.matrix_power(a, n)


# ===== qr ==================================================================================


@functools.partial(jax.jit, static_argnums=1)
def qr(x, mode):
    m, n = x.shape[-2:]
    k = min(m, n)
    q, r = jnp.linalg.qr(x, mode=mode)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)[..., :k]
    s = jnp.where(d < 0, -1.0, 1.0).astype(r.dtype)  # diag(r) >= 0
    if q.shape[-1] > k:
        s_q = jnp.concatenate([s, jnp.ones(s.shape[:-1] + (q.shape[-1] - k,), s.dtype)], -1)
    else:
        s_q = s
    q = q * s_q[..., None, :]
    if r.shape[-2] > k:
        s = jnp.concatenate([s, jnp.ones(s.shape[:-1] + (r.shape[-2] - k,), s.dtype)], -1)
    r = r * s[..., :, None]
    return q.astype(x.dtype), r.astype(x.dtype)


# ===== svd, eigh, eig ======================================================================


def _sign_columns(v):
    """+-1 per column of v (..., m, k) making its largest-|entry| positive (the first entry
    within a relative 1e-3 of the largest: core's convention, robust to near ties)."""
    if v.shape[-2] == 0:  # no entry (jnp.argmax rejects an empty axis): every sign +1
        return jnp.ones(v.shape[:-2] + v.shape[-1:], v.dtype)
    a = jnp.abs(v)
    near = (a >= a.max(axis=-2, keepdims=True) * (1 - 1e-3)).astype(jnp.int8)
    idx = jnp.argmax(near, axis=-2)[..., None, :]
    s = jnp.sign(jnp.take_along_axis(v, idx, -2))[..., 0, :]
    return jnp.where(s == 0, 1, s).astype(v.dtype)


@functools.partial(jax.jit, static_argnums=(1, 2))
def svd(x, full_matrices, compute_uv):
    # LAPACK gesdd (as numpy); s descending; signs as polyops.plugin.canonical_svd
    if not compute_uv:
        return jnp.linalg.svd(x, compute_uv=False).astype(x.dtype)
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    sign = _sign_columns(u[..., :, :k])
    u_parts, vh_parts = [u[..., :, :k] * sign[..., None, :]], [vh[..., :k, :] * sign[..., :, None]]
    if u.shape[-1] > k:
        rest = u[..., :, k:]
        u_parts.append(rest * _sign_columns(rest)[..., None, :])
    if vh.shape[-2] > k:
        rest = vh[..., k:, :]
        vh_parts.append(rest * _sign_columns(jnp.swapaxes(rest, -1, -2))[..., :, None])
    u = jnp.concatenate(u_parts, -1) if len(u_parts) > 1 else u_parts[0]
    vh = jnp.concatenate(vh_parts, -2) if len(vh_parts) > 1 else vh_parts[0]
    return u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)


@jax.jit
def eigh(x):
    # LAPACK syevd on the lower triangle (as numpy's UPLO="L"); eigenvalues ascending;
    # signs as polyops.plugin.canonical_eigh
    w, v = jnp.linalg.eigh(_symmetric_gradient(x), UPLO="L", symmetrize_input=False)
    v = v * _sign_columns(v)[..., None, :]
    return w.astype(x.dtype), v.astype(x.dtype)


# eig stays on core's host computation: jnp.linalg.eig (float32 geev) is wrong for tiny
# magnitudes (eig([[2.35e-28]]) gives 9.09e-13) and rounds differently from numpy's
# float64 host result, which the complex64 records compare exactly.  The eigenvalues'
# gradient is attached here: under jax.grad (not under jit) custom_vjp's forward gets the
# concrete input, which the host computation reads.


def eig(x):
    # a concrete input outside any transformation goes to the host computation directly:
    # custom_vjp's eager call alone (its signature and debug info) costs ~150us
    if not isinstance(x, jax.core.Tracer):
        return tuple(reference("eig")(x))
    return _eig(x)


@jax.custom_vjp
def _eig(x):
    return tuple(reference("eig")(x))


def _eig_fwd(x):
    x = x.value  # a CustomVJPPrimal (symbolic zeros on)
    w, v = reference("eig")(x)
    return (w, v), (v, jnp.zeros((), x.dtype))


def _eig_bwd(res, cotangents):
    # d w_i = (V^-1 dA V)_ii: A-bar = V^-T diag(w-bar) V^T, real part for a real A (jax's
    # convention for complex cotangents, as its own eig rule); an unused output's cotangent
    # is a SymbolicZero, so a loss of the eigenvectors (defined only up to phase) raises
    v, like = res
    gw, gv = cotangents
    if not isinstance(gv, SymbolicZero):
        raise eig_vectors_error("jax")
    if isinstance(gw, SymbolicZero):
        return (None,)
    vt = jnp.swapaxes(v, -1, -2)
    ga = jnp.linalg.solve(vt, gw[..., :, None] * vt)
    return (jnp.real(ga).astype(like.dtype),)


_eig.defvjp(_eig_fwd, _eig_bwd, symbolic_zeros=True)


# ===== lstsq, pinv, matrix_rank ==========================================================


def _pinv_core(a, rcond):
    """Pseudo-inverse of (..., m, n) a: singular values <= rcond * s.max() are 0."""
    m, n = a.shape[-2:]
    if rcond is None:
        rcond = _eps(a.dtype) * max(m, n)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    cut = rcond * jnp.max(s, -1, keepdims=True, initial=0.0)
    keep = s > cut
    sinv = jnp.where(keep, 1.0 / jnp.where(keep, s, 1.0), 0.0)
    return jnp.matmul(jnp.swapaxes(vh, -1, -2) * sinv[..., None, :], jnp.swapaxes(u, -1, -2),
                      precision=lax.Precision.HIGHEST)


@functools.partial(jax.jit, static_argnums=2)
def lstsq(a, b, rcond):
    return jnp.matmul(_pinv_core(a, rcond), b, precision=lax.Precision.HIGHEST).astype(a.dtype)


@functools.partial(jax.jit, static_argnums=1)
def pinv(x, rcond):
    return _pinv_core(x, rcond).astype(x.dtype)


@functools.partial(jax.jit, static_argnums=1)
def matrix_rank(x, tol):
    m, n = x.shape[-2:]
    s = jnp.linalg.svd(x, compute_uv=False)
    if tol is None:
        tol = jnp.max(s, -1, keepdims=True, initial=0.0) * (max(m, n) * _eps(x.dtype))
    return jnp.sum(s > tol, -1).astype(jnp.int32)


# ===== norm ================================================================================


def _vector_norm(a, ord, ax, keepdims):
    if ord is None or ord == 2:
        return jnp.sqrt(jnp.sum(a * a, ax, keepdims=keepdims))
    v = jnp.abs(a)
    if ord == math.inf:  # (initial 0: an empty vector's norm is 0, as NumPy's)
        return jnp.max(v, ax, keepdims=keepdims, initial=0.0)
    if ord == -math.inf:
        return jnp.min(v, ax, keepdims=keepdims)
    if ord == 0:
        return jnp.sum((a != 0).astype(a.dtype), ax, keepdims=keepdims)
    if ord == 1:
        return jnp.sum(v, ax, keepdims=keepdims)
    return jnp.power(jnp.sum(jnp.power(v, float(ord)), ax, keepdims=keepdims), 1.0 / float(ord))


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def norm(x, ord, axis, keepdims):
    if len(axis) != 2:
        return _vector_norm(x, ord, axis, keepdims).astype(x.dtype)
    r, c = axis
    if ord in (None, "fro"):
        out = jnp.sqrt(jnp.sum(x * x, axis, keepdims=keepdims))
    elif ord in (1, -1, math.inf, -math.inf):
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        s = jnp.sum(jnp.abs(x), inner, keepdims=True)
        if ord in (1, math.inf):
            out = jnp.max(s, outer, keepdims=True, initial=0.0)
        else:
            out = jnp.min(s, outer, keepdims=True)
        if not keepdims:
            out = jnp.squeeze(out, axis)
    else:  # 2, -2, "nuc": singular values of the matrices moved last
        s = jnp.linalg.svd(jnp.moveaxis(x, (r, c), (-2, -1)), compute_uv=False)
        out = (jnp.max(s, -1, initial=0.0) if ord == 2 else jnp.min(s, -1) if ord == -2
               else jnp.sum(s, -1))
        if keepdims:
            out = jnp.expand_dims(out, tuple(sorted(axis)))
    return out.astype(x.dtype)
