"""Op records of `polyops.ops.linalg` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import numpy as np

from ._records import OpRecord

_FL = ("float32", "float16", "bfloat16")
# LU, triangular solves and Householder steps in float32 round more than an elementwise op:
# float16/bfloat16 results are rounded float32 results, float32 ones differ from LAPACK's
# float64 by a few ulps times the condition number.
_TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float16": dict(rtol=5e-3, atol=5e-3),
        "bfloat16": dict(rtol=3e-2, atol=3e-2)}


def _f64(a):
    return np.asarray(a).astype(np.float64)


def _cast(dtype, a):
    if dtype == "bfloat16":
        import ml_dtypes

        return a.astype(np.float32).astype(ml_dtypes.bfloat16)
    return a.astype(dtype)


def _square(shape, rhs=None):
    """Well-conditioned (diagonally dominant) square matrices, plus an optional rhs."""

    def make(dtype, rng):
        n = shape[-1]
        if dtype in ("int32", "int8"):
            a = rng.integers(-2, 3, shape) + 8 * np.eye(n, dtype=np.int64)
            out = [a.astype(dtype)]
            if rhs is not None:
                out.append(rng.integers(-3, 4, rhs).astype(dtype))
            return out
        a = rng.normal(0, 1, shape) + 4 * np.eye(n) * rng.choice([-1, 1], shape[:-1] + (1,))
        out = [_cast(dtype, a)]
        if rhs is not None:
            out.append(_cast(dtype, rng.normal(0, 1, rhs)))
        return out

    return make


def _spd(shape, factor=False, upper=False):
    """Symmetric positive definite matrices (factor: their lower/upper Cholesky factors)."""

    def make(dtype, rng):
        n = shape[-1]
        a = rng.normal(0, 1, shape)
        s = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        if factor:
            s = np.linalg.cholesky(s)
            if upper:
                s = np.swapaxes(s, -1, -2)
        if dtype in ("int32",):
            return [np.round(s).astype(dtype) + (0 if factor else 0)]
        return [_cast(dtype, s)]

    return make


def _triangular(shape, rhs, lower):
    def make(dtype, rng):
        n = shape[-1]
        a = rng.normal(0, 1, shape) + 4 * np.eye(n)
        return [_cast(dtype, a), _cast(dtype, rng.normal(0, 1, rhs))]

    return make


def _const(*arrays):
    return lambda dtype, rng: [np.asarray(a, dtype) for a in arrays]


def _solve_np(a, b):
    a, b = _f64(a), _f64(b)
    if b.ndim == a.ndim - 1:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _solve_tri_np(a, b, lower=False):
    a, b = _f64(a), _f64(b)
    a = np.tril(a) if lower else np.triu(a)
    return _solve_np(a, b)


def _chol_np(x, upper=False):
    lo = np.linalg.cholesky(np.tril(_f64(x)) + np.swapaxes(np.tril(_f64(x), -1), -1, -2))
    return np.swapaxes(lo, -1, -2) if upper else lo


def _chol_inv_np(x, upper=False):
    x = _f64(x)
    if upper:
        x = np.triu(x)
        return np.linalg.inv(np.swapaxes(x, -1, -2) @ x)
    x = np.tril(x)
    return np.linalg.inv(x @ np.swapaxes(x, -1, -2))


def _lu_np(x):
    from scipy.linalg import lu_factor

    x = _f64(x)
    batch = x.shape[:-2]
    k = min(x.shape[-2:])
    flat = x.reshape((-1,) + x.shape[-2:])
    lus, pivs = [], []
    for m in flat:
        if m.size:
            lu, piv = lu_factor(m, check_finite=False)
        else:
            lu, piv = m, np.zeros((0,), np.int32)
        lus.append(lu)
        pivs.append(piv)
    lu = np.stack(lus).reshape(x.shape) if lus else x
    piv = np.stack(pivs).astype(np.int32).reshape(batch + (k,)) if pivs else np.zeros(batch + (k,), np.int32)
    return lu, piv


def _qr_np(x, mode="reduced"):
    q, r = np.linalg.qr(_f64(x), mode=mode)
    k = min(x.shape[-2:])
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1)[..., :k])
    d = np.where(d == 0, 1.0, d)
    q = q.copy()
    r = r.copy()
    q[..., :, :k] *= d[..., None, :]
    r[..., :k, :] *= d[..., :, None]
    return q, r


def _positive_largest(vec):
    """The sign (+-1) that makes the entry of largest magnitude positive (the first entry
    within a relative 1e-3 of the largest, the convention's rule for near ties)."""
    if not vec.size:
        return 1.0
    big = np.abs(vec).max() * (1 - 1e-3)
    i = next(j for j, e in enumerate(vec) if abs(e) >= big)
    return -1.0 if vec[i] < 0 else 1.0


def _svd_np(x, full_matrices=True, compute_uv=True):
    """np.linalg.svd in polyops's sign convention (svd's docstring), one vector at a time."""
    out = np.linalg.svd(_f64(x), full_matrices=full_matrices, compute_uv=compute_uv)
    if not compute_uv:
        return out
    u, s, vh = (a.copy() for a in out)
    k = s.shape[-1]
    for idx in np.ndindex(*s.shape[:-1]):
        for j in range(u.shape[-1]):
            sign = _positive_largest(u[idx][:, j])
            u[idx][:, j] *= sign
            if j < k:
                vh[idx][j, :] *= sign
        for j in range(k, vh.shape[-2]):
            vh[idx][j, :] *= _positive_largest(vh[idx][j, :])
    return u, s, vh


def _eigh_abs_np(x):
    """np.linalg.eigh with each eigenvector's entry of largest magnitude positive."""
    w, v = np.linalg.eigh(_f64(x))
    v = v.copy()
    for idx in np.ndindex(*w.shape[:-1]):
        for j in range(v.shape[-1]):
            v[idx][:, j] *= _positive_largest(v[idx][:, j])
    return w, v


def _norm_np(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(_f64(x), ord=ord, axis=axis, keepdims=keepdims)


def _rank_np(x, tol=None):
    return np.linalg.matrix_rank(_f64(x).astype(np.float32), tol=tol).astype(np.int32)


def _pinv_np(x, rcond=None):
    x = _f64(x)
    return np.linalg.pinv(x, rcond=np.finfo(np.float32).eps * max(x.shape[-2:]) if rcond is None else rcond)


def _lstsq_np(a, b, rcond=None):
    a = _f64(a)
    return np.linalg.lstsq(a, _f64(b), rcond=np.finfo(np.float32).eps * max(a.shape) if rcond is None else rcond)[0]


def _eig_np(x):
    w, v = np.linalg.eig(_f64(x).astype(np.float32).astype(np.float64))
    return w.astype(np.complex64), v.astype(np.complex64)


def _symmetric(shape):
    def make(dtype, rng):
        a = rng.normal(0, 1, shape)
        a = a + np.swapaxes(a, -1, -2)
        return [_cast(dtype, a)]

    return make


RECORDS: list[OpRecord] = [
    # cholesky, cholesky_inverse
    OpRecord("cholesky", shapes=((2, 3, 3),), make=_spd((2, 3, 3)), np_fn=_chol_np, dtypes=_FL, tol=_TOL),
    OpRecord("cholesky", shapes=((4, 4),), make=_spd((4, 4)), kwargs=dict(upper=True), np_fn=_chol_np,
             id="cholesky-upper", tol=_TOL),
    OpRecord("cholesky", shapes=((2, 0, 0),), np_fn=_chol_np, id="cholesky-empty"),
    OpRecord("cholesky", shapes=((2, 2),), make=_const([[4, 2], [2, 5]]), np_fn=_chol_np, dtypes=("int32",),
             id="cholesky-int"),
    OpRecord("cholesky_inverse", shapes=((2, 3, 3),), make=_spd((2, 3, 3), factor=True), np_fn=_chol_inv_np,
             dtypes=_FL, tol=_TOL),
    OpRecord("cholesky_inverse", shapes=((3, 3),), make=_spd((3, 3), factor=True, upper=True),
             kwargs=dict(upper=True), np_fn=_chol_inv_np, id="cholesky_inverse-upper", tol=_TOL),
    # det, inv, solve, solve_triangular, lu_factor, matrix_power
    OpRecord("det", shapes=((2, 3, 3),), make=_square((2, 3, 3)), np_fn=lambda x: np.linalg.det(_f64(x)),
             dtypes=_FL + ("int32",), tol=_TOL),
    OpRecord("det", shapes=((3, 2, 2),), id="det-singular", np_fn=lambda x: np.linalg.det(_f64(x)),
             make=_const([[[1, 2], [2, 4]], [[0, 1], [1, 0]], [[0, 0], [3, 1]]])),
    OpRecord("det", shapes=((2, 0, 0),), id="det-empty", np_fn=lambda x: np.linalg.det(_f64(x))),
    OpRecord("inv", shapes=((2, 4, 4),), make=_square((2, 4, 4)), np_fn=lambda x: np.linalg.inv(_f64(x)),
             dtypes=_FL + ("int32",), tol=_TOL),
    OpRecord("inv", shapes=((0, 0),), id="inv-empty", np_fn=lambda x: _f64(x)),
    OpRecord("solve", shapes=((2, 3, 3), (2, 3, 2)), make=_square((2, 3, 3), (2, 3, 2)), np_fn=_solve_np,
             dtypes=_FL + ("int32",), tol=_TOL),
    OpRecord("solve", shapes=((2, 3, 3), (2, 3)), make=_square((2, 3, 3), (2, 3)), np_fn=_solve_np,
             id="solve-vectors", tol=_TOL),
    OpRecord("solve", shapes=((3, 3), (2, 3, 4)), make=_square((3, 3), (2, 3, 4)), np_fn=_solve_np,
             id="solve-broadcast", tol=_TOL),
    OpRecord("solve_triangular", shapes=((2, 3, 3), (2, 3, 2)), make=_triangular((2, 3, 3), (2, 3, 2), False),
             np_fn=_solve_tri_np, dtypes=_FL, tol=_TOL),
    OpRecord("solve_triangular", shapes=((4, 4), (4,)), make=_triangular((4, 4), (4,), True),
             kwargs=dict(lower=True), np_fn=_solve_tri_np, id="solve_triangular-lower-vector", tol=_TOL),
    OpRecord("lu_factor", shapes=((2, 4, 4),), make=_square((2, 4, 4)), np_fn=_lu_np, dtypes=("float32", "int32"),
             tol=_TOL),
    OpRecord("lu_factor", shapes=((3, 5),), np_fn=_lu_np, id="lu_factor-wide", tol=_TOL),
    OpRecord("lu_factor", shapes=((5, 3),), np_fn=_lu_np, id="lu_factor-tall", tol=_TOL),
    OpRecord("matrix_power", shapes=((2, 3, 3),), kwargs=dict(n=3), dtypes=("float32", "int32"), tol=_TOL,
             np_fn=lambda a, n: np.linalg.matrix_power(_f64(a), n)),
    OpRecord("matrix_power", shapes=((3, 3),), make=_square((3, 3)), kwargs=dict(n=-2), id="matrix_power-neg",
             np_fn=lambda a, n: np.linalg.matrix_power(_f64(a), n), tol=_TOL),
    OpRecord("matrix_power", shapes=((2, 2, 2),), kwargs=dict(n=0), id="matrix_power-0",
             np_fn=lambda a, n: np.linalg.matrix_power(_f64(a), n)),
    # qr (complete only for m <= n: the extra columns of q are not unique)
    OpRecord("qr", shapes=((2, 5, 3),), np_fn=_qr_np, dtypes=_FL, tol=_TOL),
    OpRecord("qr", shapes=((3, 4),), kwargs=dict(mode="complete"), np_fn=_qr_np, id="qr-complete", tol=_TOL),
    OpRecord("qr", shapes=((0, 3),), np_fn=_qr_np, id="qr-empty"),
    # host decompositions
    OpRecord("svd", shapes=((2, 4, 3),), kwargs=dict(compute_uv=False), np_fn=_svd_np, dtypes=_FL, tol=_TOL),
    OpRecord("svd", shapes=((3, 4),), np_fn=_svd_np, id="svd-uv", tol=_TOL),
    OpRecord("svd", shapes=((4, 3),), kwargs=dict(full_matrices=False), np_fn=_svd_np, id="svd-reduced",
             tol=_TOL),
    OpRecord("eigh", shapes=((2, 3, 3),), make=_symmetric((2, 3, 3)), np_fn=_eigh_abs_np, tol=_TOL),
    OpRecord("eig", shapes=((2, 3, 3),), make=_symmetric((2, 3, 3)), np_fn=_eig_np, tol=_TOL),
    OpRecord("lstsq", shapes=((5, 3), (5, 2)), np_fn=_lstsq_np, tol=_TOL),
    OpRecord("lstsq", shapes=((3, 4), (3,)), np_fn=_lstsq_np, id="lstsq-under", tol=_TOL),
    OpRecord("pinv", shapes=((2, 4, 3),), np_fn=_pinv_np, dtypes=("float32", "float16"), tol=_TOL),
    OpRecord("matrix_rank", shapes=((2, 4, 3),), np_fn=_rank_np),
    OpRecord("matrix_rank", shapes=((3, 2, 2),), id="matrix_rank-deficient", np_fn=_rank_np,
             make=_const([[[1, 2], [2, 4]], [[0, 1], [1, 0]], [[0, 0], [0, 0]]])),
    OpRecord("matrix_rank", shapes=((3, 3),), kwargs=dict(tol=0.5), id="matrix_rank-tol",
             make=_const(np.diag([1.0, 0.4, 2.0])), np_fn=_rank_np),
    # norm
    OpRecord("norm", shapes=((3, 4),), np_fn=_norm_np, dtypes=_FL + ("int32",), tol=_TOL),
    OpRecord("norm", shapes=((2, 3, 4),), kwargs=dict(axis=-1, keepdims=True), np_fn=_norm_np, id="norm-vector",
             tol=_TOL),
    OpRecord("norm", shapes=((5,),), kwargs=dict(ord=3), np_fn=_norm_np, id="norm-vector-3", tol=_TOL),
    OpRecord("norm", shapes=((5,),), kwargs=dict(ord=np.inf), np_fn=_norm_np, id="norm-vector-inf"),
    OpRecord("norm", shapes=((5,),), kwargs=dict(ord=0), np_fn=_norm_np, id="norm-vector-0"),
    OpRecord("norm", shapes=((2, 3, 4),), kwargs=dict(ord=1, axis=(0, 2)), np_fn=_norm_np, id="norm-matrix-1",
             tol=_TOL),
    OpRecord("norm", shapes=((2, 3, 4),), kwargs=dict(ord=-np.inf, axis=(-1, 0)), np_fn=_norm_np,
             id="norm-matrix-neginf", tol=_TOL),
    OpRecord("norm", shapes=((2, 3, 4),), kwargs=dict(ord="fro", axis=(1, 2), keepdims=True), np_fn=_norm_np,
             id="norm-fro", tol=_TOL),
    OpRecord("norm", shapes=((2, 3, 4),), kwargs=dict(ord=2, axis=(1, 2)), np_fn=_norm_np, id="norm-2",
             tol=_TOL),
    OpRecord("norm", shapes=((3, 4),), kwargs=dict(ord="nuc"), np_fn=_norm_np, id="norm-nuc", tol=_TOL),
    OpRecord("norm", shapes=((3, 4),), kwargs=dict(ord=-2), np_fn=_norm_np, id="norm-neg2", tol=_TOL),
    OpRecord("norm", shapes=((0, 3),), np_fn=_norm_np, id="norm-empty"),
]
