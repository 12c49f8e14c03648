"""PyTorch kernels for the ``linalg`` op family (the rest use core's references).

torch.linalg (LAPACK on CPU) has no float16/bfloat16 kernels: the ops declare float32 as
their compute dtype, so core hands those over widened (but matrix_power, widened here).
Conventions normalised to core's contracts: qr's non-negative diagonal
of r, lu_factor's 0-based int32 pivots, cholesky reading only the lower triangle.

svd and eigh vectors are unique only up to sign, and torch's LAPACK (MKL) picks other
signs than NumPy's for about a fifth of the matrices: the kernels apply core's sign
convention (each vector's largest-|entry| positive).  eig stays on core's host
computation (vectors unique only up to phase, and torch's order of eigenvalues differs),
with the eigenvalues' gradient attached here.
"""

from __future__ import annotations

import math

import torch

from polyops.plugin import eig_vectors_error, nonempty, reference

from ._compat import is_compiling as _is_compiling
from ._compat import is_wrapped as _is_wrapped
from .numpy._common import _HALF


def _eps(dtype):
    return torch.finfo(torch.float64 if dtype == torch.float64 else torch.float32).eps


# ===== cholesky, cholesky_inverse, solve_triangular =====================================


def cholesky(x, upper):
    lo = None
    if not _is_compiling():
        # eager: the positive definite matrices (the common call) in one torch call (the
        # same LAPACK factorisation as cholesky_ex); the others raise, and take the mask
        try:
            lo = torch.linalg.cholesky(x)  # reads the lower triangle only
        except RuntimeError:
            pass
    if lo is None:
        lo, info = torch.linalg.cholesky_ex(x)
        lo = lo.masked_fill((info != 0).view(info.shape + (1, 1)), math.nan)  # not positive definite
    if upper:
        lo = lo.transpose(-1, -2)
    return lo


def cholesky_inverse(x, upper):
    # torch reads one triangle (LAPACK's potri, potrs on CUDA); the other is masked only
    # for the gradient, which torch's backward computes from the whole of its input
    if x.requires_grad or _is_wrapped(x):
        x = torch.triu(x) if upper else torch.tril(x)
    return torch.cholesky_inverse(x, upper=upper)


def _rhs(a, b):
    vec = b.ndim == a.ndim - 1
    return (b.unsqueeze(-1) if vec else b), vec


def solve_triangular(a, b, lower):
    bb, vec = _rhs(a, b)
    out = torch.linalg.solve_triangular(a, bb, upper=not lower)
    return out.squeeze(-1) if vec else out


# ===== LU: lu_factor, det, solve, inv ===================================================


def lu_factor(x):
    lu, piv, _ = torch.linalg.lu_factor_ex(x)
    return lu, (piv - 1).to(torch.int32)


def det(x):
    if x.is_floating_point() and torch.is_grad_enabled() and x.requires_grad:
        return _Det.apply(x)
    return torch.linalg.det(x)


def _cofactors(a):
    """The cofactor matrix adj(a)^T (det's derivative) through an SVD, exact at singular
    matrices too, where det * inv(a)^T is 0 * inf: with a = U S V^T it is
    det(U) det(V) U diag(prod_{j != i} s_j) V^T, returned as (det(U) det(V), the rest)."""
    u, s, vh = torch.linalg.svd(a)
    # prod_{j != i} s_j: row i of s with its i-th entry 1, one product (issue 21: fewer
    # nodes than the exclusive cumulative products from both ends)
    eye = torch.eye(s.shape[-1], dtype=torch.bool, device=s.device)
    others = s.unsqueeze(-2).masked_fill(eye, 1.0).prod(-1)
    sign = torch.linalg.det(torch.stack((u, vh))).prod(0).detach()  # one det call
    return sign, (u * others.unsqueeze(-2)) @ vh


class _Det(torch.autograd.Function):
    """det with the cofactor matrix as its gradient: torch's own backward gives zeros at
    some singular matrices (it goes through LU's zero pivot)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return torch.linalg.det(a)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        sign, cof = _cofactors(a)
        scale = g * sign
        return scale.reshape(scale.shape + (1, 1)) * cof


def solve(a, b):
    bb, vec = _rhs(a, b)
    out = torch.linalg.solve_ex(a, bb)[0]  # singular: inf/nan, no error
    return out.squeeze(-1) if vec else out


def inv(x):
    return torch.linalg.inv_ex(x)[0]


def matrix_power(a, n):
    # no compute dtype declared: float16/bfloat16 widen here (torch.linalg has no kernels)
    w = a.float() if a.dtype in _HALF else a
    if n < 0:
        w = torch.linalg.inv_ex(w)[0]
        n = -n
    return torch.linalg.matrix_power(w, n).to(a.dtype)


# ===== qr ===============================================================================


def qr(x, mode):
    q, r = torch.linalg.qr(x, mode=mode)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    d = torch.diagonal(r, dim1=-2, dim2=-1)[..., :k]
    s = torch.where(d < 0, -1.0, 1.0).to(r.dtype)  # r's diagonal made non-negative
    if q.shape[-1] > k:
        s_q = torch.cat([s, torch.ones(s.shape[:-1] + (q.shape[-1] - k,), dtype=s.dtype)], -1)
    else:
        s_q = s
    if r.shape[-2] > k:
        s_r = torch.cat([s, torch.ones(s.shape[:-1] + (r.shape[-2] - k,), dtype=s.dtype)], -1)
    else:
        s_r = s
    q = q * s_q[..., None, :]
    r = torch.triu(r * s_r[..., :, None])
    return q, r


# ===== svd, lstsq, pinv, matrix_rank ====================================================


def _signs(v):
    """(..., k) signs making each column of v have its largest-|entry| positive (the
    first within 1e-3 of the largest on a near tie): core's sign convention."""
    if v.shape[-2] == 0:  # vectors of no entries (svd of (0, n)): +1, amax has no identity
        return torch.ones(v.shape[:-2] + v.shape[-1:], dtype=v.dtype)
    a = v.abs()
    near = (a >= a.amax(-2, keepdim=True) * (1 - 1e-3)).to(torch.int8)
    idx = torch.argmax(near, dim=-2, keepdim=True)  # the first near-maximal index
    sign = torch.sign(torch.take_along_dim(v, idx, dim=-2)).squeeze(-2)
    return torch.where(sign == 0, torch.ones_like(sign), sign)


def svd(x, full_matrices, compute_uv):
    if not compute_uv:
        return torch.linalg.svdvals(x)
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    k = s.shape[-1]
    sign = _signs(u[..., :, :k])
    parts_u, parts_vh = [u[..., :, :k] * sign[..., None, :]], [vh[..., :k, :] * sign[..., :, None]]
    if u.shape[-1] > k:
        extra = u[..., :, k:]
        parts_u.append(extra * _signs(extra)[..., None, :])
    if vh.shape[-2] > k:
        extra = vh[..., k:, :]
        parts_vh.append(extra * _signs(extra.transpose(-1, -2))[..., :, None])
    u, vh = torch.cat(parts_u, -1), torch.cat(parts_vh, -2)
    return u, s, vh


def eigh(x):
    w, v = torch.linalg.eigh(x, UPLO="L")
    return w, v * _signs(v)[..., None, :]


def eig(x):
    # core's host computation (LAPACK's order and phases, as numpy); under autograd it gets
    # the eigenvalues' gradient from _Eig
    if torch.is_grad_enabled() and x.requires_grad:
        return _Eig.apply(x)
    return reference("eig")(x)


class _Eig(torch.autograd.Function):
    """The host eig as one autograd node: d w_i = (V^-1 dA V)_ii, so the eigenvalues'
    gradient is A-bar = V^-H diag(w-bar) V^H (its real part for a real A: torch's
    convention for complex cotangents, as torch.linalg.eig's own backward).  Eigenvectors
    are unique only up to a complex phase: a gradient through them raises."""

    @staticmethod
    def forward(ctx, x):
        w, v = reference("eig")(x)
        ctx.set_materialize_grads(False)  # an unused output's cotangent stays None
        ctx.save_for_backward(v)
        ctx.dtype = x.dtype
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        if gv is not None:
            raise eig_vectors_error("torch")
        if gw is None:
            return None
        (v,) = ctx.saved_tensors
        v = v.to(torch.complex128)
        vh = v.mH
        ga = torch.linalg.solve(vh, torch.diag_embed(gw.to(torch.complex128)) @ vh)
        return ga.real.to(ctx.dtype)


def lstsq(a, b, rcond):
    if rcond is None:
        rcond = _eps(a.dtype) * max(a.shape)
    bb = b.unsqueeze(-1) if b.ndim == 1 else b
    # gelsd: NumPy's driver (SVD, minimum norm, s <= rcond * s.max() count as zero)
    out = torch.linalg.lstsq(a, bb, rcond=rcond, driver="gelsd").solution
    return out.squeeze(-1) if b.ndim == 1 else out


@nonempty  # the cutoff's amax has no identity
def pinv(x, rcond):
    default = rcond is None
    if default:
        rcond = _eps(x.dtype) * max(x.shape[-2:])
    if rcond >= 0:
        # torch's own: the same SVD, cutoff (s > rtol * s[0]) and product as below, one
        # node of a compiled graph, and its backward the closed form (issue 21: the
        # SVD's autodiff took 93 nodes against 61); its default rtol is core's (a given
        # one costs two nodes more).  (A negative rcond, whose cutoff torch floors at
        # atol = 0, takes the SVD below.)
        return torch.linalg.pinv(x, rtol=None if default else rcond)
    u, s, vh = torch.linalg.svd(x, full_matrices=False)
    cutoff = rcond * s.amax(-1, keepdim=True)
    inv_s = torch.where(s > cutoff, 1.0 / torch.where(s > cutoff, s, 1.0), 0.0)
    out = (vh.transpose(-1, -2) * inv_s[..., None, :]) @ u.transpose(-1, -2)
    return out


@nonempty  # the cutoff's amax has no identity
def matrix_rank(x, tol):
    s = torch.linalg.svdvals(x)
    if tol is None:
        tol = s.amax(-1, keepdim=True) * (max(x.shape[-2:]) * _eps(x.dtype))
    return (s > tol).sum(-1).to(torch.int32)


# ===== norm =============================================================================


def norm(x, ord, axis, keepdims):
    if len(axis) == 1 or ord is None or ord == "fro":
        # (the Frobenius norm is matrix_norm's call of the 2-norm over both axes, one
        # node of a compiled graph where matrix_norm's wrapper adds its own)
        p = 2.0 if ord is None or ord == "fro" else float(ord)
        # every axis as dim=None: the gradient's graph then expands its cotangent once,
        # where a tuple of them unsqueezes it axis by axis
        dim = None if len(axis) == x.ndim else axis
        out = torch.linalg.vector_norm(x, p, dim=dim, keepdim=keepdims)
    else:
        o = "fro" if ord is None else ord
        out = torch.linalg.matrix_norm(x, o, dim=axis, keepdim=keepdims)
    return out
