"""NumPy kernels for the ``linalg`` op family (the rest use core's references).

float16/bfloat16 operands arrive as float32 (the ops declare compute="float32"), but for
matrix_power, which widens them itself (np.linalg has no 16-bit loops).
Where np.linalg raises on a singular or non-positive-definite matrix and the contract
asks for non-finite values instead, the kernel falls back to core's reference.
"""

from __future__ import annotations

import numpy as np
from polyops.plugin import canonical_eigh, canonical_svd, reference

from .core import HALF_NP


def _as(y, dtype):
    """y as an ndarray of dtype (np.linalg returns scalars for 0-d results)."""
    return np.asarray(y).astype(dtype, copy=False)


def _eps(dtype):
    return float(np.finfo(np.float64 if dtype == np.float64 else np.float32).eps)


# ----- cholesky, triangular solves -----------------------------------------------------


def cholesky(x, upper):
    try:
        out = np.linalg.cholesky(x)  # reads the lower triangle only
    except np.linalg.LinAlgError:  # not positive definite: the contract's NaNs
        return reference("cholesky")(x, upper)
    if upper:
        out = np.swapaxes(out, -1, -2)
    return _as(out, x.dtype)


def _substitute(a, b, lower):
    """x with a x = b for triangular a (..., n, n) (only that triangle read), b (..., n, k)
    broadcast against a's batch: row-by-row substitution (zero pivots give inf/NaN)."""
    n = a.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    x = np.zeros(batch + b.shape[-2:], np.result_type(a, b))
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            acc = b[..., i, :]
            if lower and i:
                acc = acc - np.matmul(a[..., i:i + 1, :i], x[..., :i, :])[..., 0, :]
            elif not lower and i < n - 1:
                acc = acc - np.matmul(a[..., i:i + 1, i + 1:], x[..., i + 1:, :])[..., 0, :]
            x[..., i, :] = acc / a[..., i, i, None]
    return x


def solve_triangular(a, b, lower):
    vec = b.ndim == a.ndim - 1
    if vec:
        b = b[..., None]
    out = _substitute(a, b, lower)
    if vec:
        out = out[..., 0]
    return _as(out, a.dtype)


def cholesky_inverse(x, upper):
    n = x.shape[-1]
    eye = np.broadcast_to(np.eye(n, dtype=x.dtype), x.shape)
    t = _substitute(x, eye, not upper)  # L^-1 (or U^-1)
    with np.errstate(all="ignore"):
        out = np.matmul(t, np.swapaxes(t, -1, -2)) if upper else np.matmul(np.swapaxes(t, -1, -2), t)
    return _as(out, x.dtype)


# ----- LU: lu_factor, det, solve, inv, matrix_power ------------------------------------


def lu_factor(x):
    # getrf, vectorised over the batch: pivot on the first largest |entry| of the column
    a = x.copy()
    m, n = a.shape[-2:]
    k = min(m, n)
    piv = np.zeros(a.shape[:-2] + (k,), np.int32)
    nb = int(np.prod(a.shape[:-2]))
    flat = a.reshape((nb, m, n))
    fpiv = piv.reshape((nb, k))
    idx = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
            fpiv[:, j] = p
            rp, rj = flat[idx, p, :].copy(), flat[:, j, :].copy()
            flat[idx, p, :] = rj
            flat[:, j, :] = rp
            d = flat[:, j, j]
            safe = np.where(d == 0, np.ones((), d.dtype), d)
            lcol = flat[:, j + 1:, j] / safe[:, None]
            flat[:, j + 1:, j + 1:] -= lcol[:, :, None] * flat[:, j, None, j + 1:]
            flat[:, j + 1:, j] = lcol
    return _as(flat.reshape(a.shape), x.dtype), fpiv.reshape(piv.shape)


def det(x):
    with np.errstate(all="ignore"):
        return _as(np.linalg.det(x), x.dtype)


def solve(a, b):
    # np.linalg.solve's gufunc broadcasts the batch dims and keeps a's dtype (float32,
    # float64, complex); b a stack of vectors (b.ndim == a.ndim - 1) solves as (..., n, 1)
    vec = b.ndim == a.ndim - 1
    try:
        out = np.linalg.solve(a, b[..., None] if vec else b)
    except np.linalg.LinAlgError:  # singular: the reference's non-finite values
        return reference("solve")(a, b)
    return out[..., 0] if vec else out


def inv(x):
    try:
        return _as(np.linalg.inv(x), x.dtype)
    except np.linalg.LinAlgError:
        return reference("inv")(x)


def matrix_power(a, n):
    # no compute dtype (a positive power multiplies in a's dtype, as the reference), but
    # np.linalg has no 16-bit loops (and ml_dtypes no bfloat16 matmul): those in float32
    w = a.astype(np.float32) if a.dtype in HALF_NP else a
    if n < 0:
        try:
            return _as(np.linalg.matrix_power(np.linalg.inv(w), -n), a.dtype)
        except np.linalg.LinAlgError:
            return reference("matrix_power")(a, n)
    with np.errstate(all="ignore"):
        return _as(np.linalg.matrix_power(w, n), a.dtype)


# ----- qr, svd, eig, eigh ----------------------------------------------------------------


def qr(x, mode):
    q, r = np.linalg.qr(x, mode=mode)
    k = min(x.shape[-2:])
    # canonical signs: diag(r) >= 0, the matching columns of q negated
    d = np.diagonal(r[..., :k, :k], axis1=-2, axis2=-1)
    s = np.where(d < 0, -1, 1).astype(r.dtype)
    r = r.copy()
    q = q.copy()
    r[..., :k, :] *= s[..., :, None]
    q[..., :, :k] *= s[..., None, :]
    return _as(q, x.dtype), _as(r, x.dtype)


def svd(x, full_matrices, compute_uv):
    if not compute_uv:
        return _as(np.linalg.svd(x, compute_uv=False), x.dtype)
    u, s, vh = canonical_svd(*np.linalg.svd(x, full_matrices=full_matrices))  # the sign convention
    return _as(u, x.dtype), _as(s, x.dtype), _as(vh, x.dtype)


def eigh(x):
    w, v = canonical_eigh(*np.linalg.eigh(x))  # ascending, lower triangle read, signs canonical
    return _as(w, x.dtype), _as(v, x.dtype)


def eig(x):
    w, v = np.linalg.eig(x.astype(np.float64))  # as core's host computation
    ctype = np.complex128 if x.dtype == np.float64 else np.complex64  # (64-bit mode)
    return w.astype(ctype), v.astype(ctype)


# ----- lstsq, pinv, matrix_rank ------------------------------------------------------------


def lstsq(a, b, rcond):
    if rcond is None:
        rcond = _eps(a.dtype) * max(a.shape)
    return _as(np.linalg.lstsq(a, b, rcond=rcond)[0], a.dtype)


def pinv(x, rcond):
    if rcond is None:
        rcond = _eps(x.dtype) * max(x.shape[-2:])
    return _as(np.linalg.pinv(x, rcond=rcond), x.dtype)


def matrix_rank(x, tol):
    s = np.linalg.svd(x, compute_uv=False)
    if tol is None:  # (initial 0: a matrix with no singular value has rank 0)
        tol = s.max(-1, keepdims=True, initial=0) * max(x.shape[-2:]) * _eps(x.dtype)
    return np.count_nonzero(s > tol, axis=-1).astype(np.int32)


# ----- norm ----------------------------------------------------------------------------


def norm(x, ord, axis, keepdims):
    if ord is None and len(axis) == x.ndim and not keepdims and x.dtype.kind == "f":
        # the 2-norm of all elements: one dot, in x's dtype (float32/float64), as
        # np.linalg.norm (and as it, an overflow warns: np.errstate costs 0.75 us)
        r = x.ravel()
        return np.asarray(np.sqrt(r.dot(r)))
    with np.errstate(all="ignore"):
        if ord is None and len(axis) != 1:  # flattened 2-norm, or Frobenius
            out = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
        else:
            out = np.linalg.norm(x, ord, axis if len(axis) == 2 else axis[0], keepdims)
    return _as(out, x.dtype)
