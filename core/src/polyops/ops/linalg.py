"""Linear algebra (``keras.ops.linalg``): decompositions, solves, norms, jvp.

Ops are declared as in `polyops.ops.numpy` (see its docstring).  Every op works on
batches of matrices (the last two dims) with any leading dims; ints and bools
compute in floatx, float16/bfloat16 in float32 (results cast back).

References: the LU family (lu_factor, det, solve, inv), cholesky, cholesky_inverse,
solve_triangular, qr, matrix_power and most norms are compositions of polyops ops
(static Python loops over the matrix size), so they trace under jax.jit and
tf.function.  svd, eig, eigh, lstsq, pinv, matrix_rank and the spectral norms
(``ord`` 2, -2, "nuc") compute on the host with numpy (eager only) unless the
backend has a native kernel.

Conventions where the frameworks differ (every backend gives these):

* ``qr``: ``R`` has a non-negative diagonal (columns of ``Q`` flipped to match);
* ``eigh``: eigenvalues ascending; ``svd``: singular values descending;
* singular matrices in ``solve``/``inv``/``det``: no error (traceable); ``det``
  gives 0, ``solve``/``inv`` give non-finite values, as JAX;
* ``cholesky`` of a matrix that is not positive definite gives NaNs (no error),
  and reads only the lower triangle;
* ``solve``/``solve_triangular``: ``b`` is a stack of vectors when
  ``b.ndim == a.ndim - 1``, else a stack of matrices (batch dims broadcast).
"""

from __future__ import annotations

import builtins
import math

from .. import _promote
from .._op import defop
from .._shapes import canonicalize_axis, reduce_shape
from .._symbolic import SymbolicTensor
from ..plugin import canonical_eigh, canonical_svd
from ._base import finish as _finish
from ._base import from_host, key, shape_of, spec, to_host
from ._linalg import (
    _as_matrix_rhs, _cholesky_lower, _col, _const, _diag, _dt, _eq, _eye, _float_dtype,
    _float_matrix, _gauss_jordan, _kmin, _lu, _matrix, _rhs_shape, _row, _substitute,
    _tensor, _tri_mask,
)
from .core import cast
from .core import shape as _shape_of
from .numpy import (
    abs, broadcast_to, concatenate, divide, equal, expand_dims, greater, less, matmul, max,
    min, multiply, negative, not_equal, ones, power, reshape, sqrt, subtract, sum, swapaxes,
    take, transpose, where, zeros,
)

_bmin, _bmax = builtins.min, builtins.max

# ===== cholesky ========================================================================


def _cholesky_prepare(x, upper=False):
    _matrix("cholesky", x.shape, square=True)
    return x, bool(upper)


# Kernel contract: cholesky(x, upper) gets a floating tensor (..., n, n), validated, and a
# bool; returns the lower factor L (upper: L^T) of x's dtype.  Only the lower triangle of x
# is read; a matrix that is not positive definite gives NaNs, never an error.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_cholesky_prepare, compute="float32")
def cholesky(x, upper=False):
    """Cholesky factor of (a batch of) symmetric positive definite matrices.

    Keras: ``keras.ops.cholesky``; NumPy: ``np.linalg.cholesky(x, upper=upper)``.  Returns
    ``L`` with ``x = L @ L.T`` (``upper=True``: ``U = L.T`` with ``x = U.T @ U``).  Only
    the lower triangle of ``x`` is read.  A matrix that is not positive definite gives
    NaNs (no error: JAX's behaviour, and traceable).  Ints compute in floatx,
    float16/bfloat16 in float32.

    Example:
        >>> polyops.ops.cholesky(polyops.ops.convert_to_tensor([[4., 2.], [2., 5.]]))
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    dtype, shape = _float_matrix("cholesky", x, square=True)
    return spec(shape, dtype)


@cholesky.reference
def _cholesky_ref(x, upper=False):
    a = x
    out = _cholesky_lower(a)
    if upper:
        out = swapaxes(out, -1, -2)
    return out


# ===== solve_triangular ================================================================


def _solve_prepare_for(op):
    def prepare(a, b, *rest):
        _rhs_shape(op, tuple(a.shape), tuple(b.shape))
        return (a, b) + tuple(bool(r) for r in rest)

    return prepare


# Kernel contract: solve_triangular(a, b, lower) gets floating a (..., n, n) and b of the
# same dtype, (..., n) when b.ndim == a.ndim - 1 else (..., n, k), shapes validated, and a
# bool; returns x with a @ x = b (batch dims broadcast), reading only a's lower (lower=True)
# or upper triangle.
@defop("linalg", tensors=("a", "b"), promote=_promote.floating,
       prepare=_solve_prepare_for("solve_triangular"), compute="float32")
def solve_triangular(a, b, lower=False):
    """Solve ``a @ x = b`` for a triangular ``a`` (only its lower or upper triangle is read).

    Keras: ``keras.ops.solve_triangular``; SciPy: ``scipy.linalg.solve_triangular``.
    ``b`` is a stack of vectors when ``b.ndim == a.ndim - 1``, else of matrices; batch
    dims broadcast.  A zero on the diagonal gives non-finite values.  Ints compute in
    floatx, float16/bfloat16 in float32.

    Example:
        >>> a = polyops.ops.convert_to_tensor([[2., 0.], [1., 1.]])
        >>> polyops.ops.solve_triangular(a, polyops.ops.convert_to_tensor([2., 3.]), lower=True)
        array([1., 2.], dtype=float32)
    """
    a, b = _tensor("solve_triangular", "a", a), _tensor("solve_triangular", "b", b)
    dtype = _float_dtype("solve_triangular", key(a), key(b))
    return spec(_rhs_shape("solve_triangular", shape_of(a), shape_of(b)), dtype)


@solve_triangular.reference
def _solve_triangular_ref(a, b, lower=False):
    b, batch, vec = _as_matrix_rhs(a, b)
    n = _shape_of(a)[-1]
    if n == 0:
        out = b
    else:
        out = _substitute(where(_tri_mask(n, lower), a, 0.0), b, lower)
    if vec:
        out = reshape(out, batch + (n,))
    return out


# ===== cholesky_inverse ================================================================


# Kernel contract: cholesky_inverse(x, upper) gets a floating Cholesky factor (..., n, n),
# validated, and a bool; returns inv(L @ L.T) (upper: inv(U.T @ U)) of x's dtype.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_cholesky_prepare, compute="float32")
def cholesky_inverse(x, upper=False):
    """Inverse of ``A`` from its Cholesky factor ``x`` (``A = x @ x.T``, upper: ``x.T @ x``).

    Keras: ``keras.ops.cholesky_inverse``; PyTorch: ``torch.cholesky_inverse``.  Only
    the relevant triangle of ``x`` is read.  Ints compute in floatx, float16/bfloat16
    in float32.

    Example:
        >>> polyops.ops.cholesky_inverse(polyops.ops.convert_to_tensor([[2., 0.], [1., 2.]]))
        array([[ 0.3125, -0.125 ],
               [-0.125 ,  0.25  ]], dtype=float32)
    """
    dtype, shape = _float_matrix("cholesky_inverse", x, square=True)
    return spec(shape, dtype)


@cholesky_inverse.reference
def _cholesky_inverse_ref(x, upper=False):
    a = x
    n = _shape_of(a)[-1]
    if n == 0:
        return a
    eye = broadcast_to(_eye(n, _dt(a)), tuple(_shape_of(a)))
    t = _substitute(where(_tri_mask(n, not upper), a, 0.0), eye, not upper)  # L^-1 or U^-1
    out = matmul(t, swapaxes(t, -1, -2)) if upper else matmul(swapaxes(t, -1, -2), t)
    return out


# ===== LU: lu_factor, det, solve, inv ==================================================


def _lu_prepare(x):
    _matrix("lu_factor", x.shape)
    return (x,)


# Kernel contract: lu_factor(x) gets a floating tensor (..., m, n), validated; returns
# (lu of x's dtype (..., m, n), pivots int32 (..., min(m, n))) as scipy/LAPACK getrf:
# partial pivoting on the first largest |entry|, pivots[i] the row swapped with row i
# (0-based), unit-lower L below the diagonal and U on and above it.  A zero column leaves
# its multipliers 0.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_lu_prepare, compute="float32")
def lu_factor(x):
    """LU decomposition with partial pivoting: ``(lu, pivots)`` as ``scipy.linalg.lu_factor``.

    Keras: ``keras.ops.lu_factor``; JAX: ``jax.scipy.linalg.lu_factor``.  ``lu`` holds the
    unit-lower ``L`` (below the diagonal) and ``U`` (on and above it) of ``P @ x = L @ U``;
    ``pivots`` (int32, 0-based, shape ``(..., min(m, n))``) says which row was swapped with
    row ``i`` at step ``i``.  Rectangular matrices are accepted.  Ints compute in floatx,
    float16/bfloat16 in float32.

    Example:
        >>> lu, piv = polyops.ops.lu_factor(polyops.ops.convert_to_tensor([[1., 2.], [3., 4.]]))
        >>> polyops.ops.round(lu, 4)
        array([[3.    , 4.    ],
               [0.3333, 0.6667]], dtype=float32)
        >>> piv
        array([1, 1], dtype=int32)
    """
    dtype, shape = _float_matrix("lu_factor", x)
    return spec(shape, dtype), spec(shape[:-2] + (_kmin(shape[-2], shape[-1]),), "int32")


@lu_factor.reference
def _lu_factor_ref(x):
    a = x
    shape = tuple(_shape_of(a))
    lu, pivots = _lu(a)
    if pivots:
        piv = reshape(cast(concatenate(pivots, -1), "int32"), shape[:-2] + (len(pivots),))
    else:
        piv = zeros(shape[:-2] + (0,), "int32")
    return lu, piv


def _det_prepare_for(op):
    def prepare(x):
        _matrix(op, x.shape, square=True)
        return (x,)

    return prepare


# Kernel contract: det(x) gets a floating tensor (..., n, n), validated; returns the
# determinants (...) of x's dtype; n == 0 gives 1, a singular matrix 0.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_det_prepare_for("det"), compute="float32", empty=1)
def det(x):
    """Determinant of (a batch of) square matrices.

    Keras: ``keras.ops.det``; NumPy: ``np.linalg.det``.  The reference multiplies the
    pivots of an LU decomposition with partial pivoting.  An empty (0 x 0) matrix has
    determinant 1.  Ints compute in floatx, float16/bfloat16 in float32.

    Example:
        >>> polyops.ops.det(polyops.ops.convert_to_tensor([[1., 2.], [3., 4.]]))
        array(-2., dtype=float32)
    """
    dtype, shape = _float_matrix("det", x, square=True)
    return spec(shape[:-2], dtype)


@det.reference
def _det_ref(x):
    a = x
    shape = tuple(_shape_of(a))
    n = shape[-1]
    if n == 0:
        return ones(shape[:-2], _dt(a))
    lu, pivots = _lu(a)
    out = None
    for k, p in enumerate(pivots):
        d = take(take(lu, _const([k], "int32"), -2), _const([k], "int32"), -1)  # (..., 1, 1)
        d = where(equal(p, k), d, negative(d))
        out = d if out is None else multiply(out, d)
    return reshape(out, shape[:-2])


# Kernel contract: solve(a, b) gets floating a (..., n, n) and b of the same dtype,
# (..., n) when b.ndim == a.ndim - 1 else (..., n, k), shapes validated; returns x with
# a @ x = b (batch dims broadcast).  A singular a gives non-finite values, no error.
@defop("linalg", tensors=("a", "b"), promote=_promote.floating, prepare=_solve_prepare_for("solve"), compute="float32")
def solve(a, b):
    """Solve the linear system ``a @ x = b`` for square ``a``.

    Keras: ``keras.ops.solve``; NumPy: ``np.linalg.solve``.  ``b`` is a stack of vectors
    when ``b.ndim == a.ndim - 1`` (Keras/PyTorch's rule; NumPy 2 only for 1-d ``b``),
    else of matrices; batch dims broadcast.  The reference is Gauss-Jordan elimination
    with partial pivoting; a singular ``a`` gives non-finite values (as JAX), no error.
    Ints compute in floatx, float16/bfloat16 in float32.

    Example:
        >>> a = polyops.ops.convert_to_tensor([[3., 1.], [1., 2.]])
        >>> polyops.ops.solve(a, polyops.ops.convert_to_tensor([9., 8.]))
        array([2., 3.], dtype=float32)
    """
    a, b = _tensor("solve", "a", a), _tensor("solve", "b", b)
    dtype = _float_dtype("solve", key(a), key(b))
    return spec(_rhs_shape("solve", shape_of(a), shape_of(b)), dtype)


@solve.reference
def _solve_ref(a, b):
    b, batch, vec = _as_matrix_rhs(a, b)
    n = _shape_of(a)[-1]
    a = broadcast_to(a, batch + (n, n))
    out = _gauss_jordan(a, b) if n else b
    if vec:
        out = reshape(out, batch + (n,))
    return out


# Kernel contract: inv(x) gets a floating tensor (..., n, n), validated; returns its
# inverse of x's dtype; a singular matrix gives non-finite values, no error.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_det_prepare_for("inv"), compute="float32")
def inv(x):
    """Inverse of (a batch of) square matrices.

    Keras: ``keras.ops.inv``; NumPy: ``np.linalg.inv``.  The reference is Gauss-Jordan
    elimination with partial pivoting; a singular matrix gives non-finite values (as
    JAX), no error.  Ints compute in floatx, float16/bfloat16 in float32.

    Example:
        >>> polyops.ops.inv(polyops.ops.convert_to_tensor([[2., 0.], [0., 4.]]))
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    dtype, shape = _float_matrix("inv", x, square=True)
    return spec(shape, dtype)


@inv.reference
def _inv_ref(x):
    a = x
    shape = tuple(_shape_of(a))
    n = shape[-1]
    if n == 0:
        return a
    eye = broadcast_to(_eye(n, _dt(a)), shape)
    return _gauss_jordan(a, eye)


# ===== matrix_power ====================================================================


def _matrix_power_prepare(a, n):
    _matrix("matrix_power", a.shape, square=True, name="a")
    return a, _power_arg(n)


def _power_arg(n):
    if isinstance(n, bool) or isinstance(n, SymbolicTensor):
        raise TypeError(f"matrix_power: expected a Python int n, got n={n!r}")
    import operator

    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: expected a Python int n, got n={n!r}") from None


# Kernel contract: matrix_power(a, n) gets a floating tensor (..., m, m), validated, and a
# Python int n; returns a^n (n == 0: identity; n < 0: inv(a)^-n) of a's dtype.
@defop("linalg", tensors=("a",), promote=_promote.floating, prepare=_matrix_power_prepare)
def matrix_power(a, n):
    """Raise (a batch of) square matrices to the integer power ``n``.

    NumPy: ``np.linalg.matrix_power`` (Keras 3.15 has no ``matrix_power``).  Repeated
    squaring; ``n == 0`` gives the identity, ``n < 0`` the power of ``inv(a)``.  Unlike
    NumPy, ints and bools compute in floatx (the linalg rule); float16/bfloat16 keep
    their dtype.

    Example:
        >>> polyops.ops.matrix_power(polyops.ops.convert_to_tensor([[1., 1.], [0., 1.]]), 3)
        array([[1., 3.],
               [0., 1.]], dtype=float32)
    """
    a = _tensor("matrix_power", "a", a)
    _power_arg(n)
    dtype = _float_dtype("matrix_power", key(a))
    return spec(_matrix("matrix_power", shape_of(a), square=True, name="a"), dtype)


@matrix_power.reference
def _matrix_power_ref(a, n):
    shape = tuple(_shape_of(a))
    dtype = _dt(a)
    if n == 0:
        return broadcast_to(_eye(shape[-1], dtype), shape)
    if n < 0:
        a = inv(a)
        n = -n
    result, base = None, a
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


# ===== qr ==============================================================================


def _qr_mode(mode):
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: expected mode 'reduced' or 'complete', got mode={mode!r}")
    return mode


def _qr_prepare(x, mode="reduced"):
    _matrix("qr", x.shape)
    return x, _qr_mode(mode)


# Kernel contract: qr(x, mode) gets a floating tensor (..., m, n), validated, and mode
# "reduced" or "complete"; returns (q, r) of x's dtype, (..., m, k) and (..., k, n) with
# k = min(m, n) when reduced, (..., m, m) and (..., m, n) when complete; r's diagonal is
# made non-negative (the matching columns of q negated).
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_qr_prepare, compute="float32")
def qr(x, mode="reduced"):
    """QR decomposition ``x = q @ r`` of (a batch of) matrices.

    Keras: ``keras.ops.qr``; NumPy: ``np.linalg.qr``.  ``mode="reduced"`` gives ``q``
    (..., m, k) and ``r`` (..., k, n), k = min(m, n); ``"complete"`` gives ``q`` (..., m, m)
    and ``r`` (..., m, n).  Canonical signs on every backend: ``r``'s diagonal is
    non-negative.  The reference uses Householder reflections.  Ints compute in floatx,
    float16/bfloat16 in float32.

    Example:
        >>> q, r = polyops.ops.qr(polyops.ops.convert_to_tensor([[3., 1.], [4., 2.]]))
        >>> polyops.ops.round(r, 4)
        array([[5. , 2.2],
               [0. , 0.4]], dtype=float32)
    """
    x = _tensor("qr", "x", x)
    _qr_mode(mode)
    dtype = _float_dtype("qr", key(x))
    shape = _matrix("qr", shape_of(x))
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    if mode == "reduced":
        k = _kmin(m, n)
        return spec(batch + (m, k), dtype), spec(batch + (k, n), dtype)
    return spec(batch + (m, m), dtype), spec(batch + (m, n), dtype)


@qr.reference
def _qr_ref(x, mode="reduced"):
    a = x
    shape = tuple(_shape_of(a))
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    k = _bmin(m, n)
    r = a
    q = broadcast_to(_eye(m, _dt(a)), batch + (m, m))
    rows = _const([[i] for i in range(m)], "int32")
    for j in range(_bmin(m - 1, n)):
        v = where(less(rows, j), 0.0, _col(r, j))  # (..., m, 1)
        xj = _row(v, j)
        nrm = sqrt(sum(multiply(v, v), -2, True))
        alpha = where(less(xj, 0.0), nrm, negative(nrm))  # -sign(xj) * |v|
        v = where(equal(rows, j), subtract(v, alpha), v)
        vn = sqrt(sum(multiply(v, v), -2, True))
        u = divide(v, where(equal(vn, 0.0), 1.0, vn))
        r = subtract(r, multiply(2.0, matmul(u, matmul(swapaxes(u, -1, -2), r))))
        q = subtract(q, multiply(2.0, matmul(matmul(q, u), swapaxes(u, -1, -2))))
    # canonical signs: diag(r) >= 0
    if k:
        d = _diag(r, k)  # (..., k)
        s = where(less(d, 0.0), -1.0, 1.0)
        if m > k:
            s = concatenate([s, ones(batch + (m - k,), _dt(s))], -1)
        r = multiply(r, expand_dims(s, -1))
        q = multiply(q, expand_dims(s, -2))
        rows_r = _const([[i] for i in range(m)], "int32")
        cols_r = _const([list(range(n))], "int32")
        r = where(greater(rows_r, cols_r), 0.0, r)
    if mode == "reduced":
        q = take(q, _const(list(range(k)), "int32"), -1)
        r = take(r, _const(list(range(k)), "int32"), -2)
    return q, r


# ===== host decompositions: svd, eig, eigh ============================================
# Singular vectors and eigenvectors are unique only up to sign; every backend returns
# the same ones by one convention: each vector's entry of largest magnitude is positive
# (the first entry within a relative 1e-3 of the largest, so rounding noise between
# backends cannot pick another entry on a near tie).  For svd the sign of u's column i (i < min(m, n)) also
# flips vh's row i, so u @ diag(s) @ vh is unchanged; the columns of u or rows of vh
# beyond min(m, n) (full_matrices) are normalised on their own.  The numpy forms are
# polyops.plugin.canonical_svd / canonical_eigh.


def _svd_prepare(x, full_matrices=True, compute_uv=True):
    _matrix("svd", x.shape)
    return x, bool(full_matrices), bool(compute_uv)


# Kernel contract: svd(x, full_matrices, compute_uv) gets a floating tensor (..., m, n),
# validated, and two bools; returns s (..., k) descending (compute_uv=False), else
# (u, s, vh) as np.linalg.svd, of x's dtype, with the sign convention above (each
# column of u, and each extra row of vh, has its largest-|entry| positive).
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_svd_prepare, compute="float32")
def svd(x, full_matrices=True, compute_uv=True):
    """Singular value decomposition ``x = u @ diag(s) @ vh``.

    Keras: ``keras.ops.svd``; NumPy: ``np.linalg.svd``.  Returns ``(u, s, vh)`` (or ``s``
    with ``compute_uv=False``); ``s`` is descending.  Singular vectors are unique only up
    to sign, so every backend gives them one sign: each column of ``u`` has its entry of
    largest magnitude positive, and ``vh``'s matching row follows (NumPy's own signs may
    differ).  Columns of ``u`` beyond ``min(m, n)`` (``full_matrices``, m > n + 1) are any
    orthonormal basis of the complement and may differ between backends.  Computed on the
    host with numpy (eager only) where the backend has no kernel.  Ints compute in floatx, float16/bfloat16 in float32.

    Example:
        >>> polyops.ops.svd(polyops.ops.convert_to_tensor([[3., 0.], [0., -4.]]), compute_uv=False)
        array([4., 3.], dtype=float32)
    """
    dtype, shape = _float_matrix("svd", x)
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    k = _kmin(m, n)
    s = spec(batch + (k,), dtype)
    if not compute_uv:
        return s
    if full_matrices:
        return spec(batch + (m, m), dtype), s, spec(batch + (n, n), dtype)
    return spec(batch + (m, k), dtype), s, spec(batch + (k, n), dtype)


@svd.host_reference
def _svd_host(x, full_matrices=True, compute_uv=True):
    import numpy as np

    dtype = _dt(x)
    a = to_host("svd", x)
    if not compute_uv:
        return from_host(np.linalg.svd(a, compute_uv=False), dtype)
    u, s, vh = canonical_svd(*np.linalg.svd(a, full_matrices=full_matrices))
    return from_host(u, dtype), from_host(s, dtype), from_host(vh, dtype)


def _eig_prepare_for(op):
    def prepare(x):
        _matrix(op, x.shape, square=True)
        if op == "eig":
            from .._registry import current

            rt = current().runtime
            if "complex64" not in set(rt.dtypes.values()):
                raise TypeError(f"eig: returns complex64, which the {rt.name} backend does not support")
        return (x,)

    return prepare


# Kernel contract: eigh(x) gets a floating tensor (..., n, n), validated; returns (w, v) of
# x's dtype: eigenvalues ascending (..., n), eigenvectors as columns, each with its
# largest-|entry| positive (the sign convention above); reads the lower triangle.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_eig_prepare_for("eigh"), compute="float32")
def eigh(x):
    """Eigenvalues (ascending) and eigenvectors of (a batch of) symmetric matrices.

    Keras: ``keras.ops.eigh``; NumPy: ``np.linalg.eigh`` (lower triangle read).  Returns
    ``(w, v)`` with ``x @ v = v * w``; eigenvectors are unique only up to sign, and every
    backend gives each its entry of largest magnitude positive (NumPy's own signs may
    differ).  Computed on the host with numpy (eager only) where the backend has no kernel.  Ints compute in floatx, float16/bfloat16 in
    float32.

    Example:
        >>> w, v = polyops.ops.eigh(polyops.ops.convert_to_tensor([[2., 1.], [1., 2.]]))
        >>> polyops.ops.round(w, 4)
        array([1., 3.], dtype=float32)
    """
    dtype, shape = _float_matrix("eigh", x, square=True)
    return spec(shape[:-1], dtype), spec(shape, dtype)


@eigh.host_reference
def _eigh_host(x):
    import numpy as np

    dtype = _dt(x)
    w, v = canonical_eigh(*np.linalg.eigh(to_host("eigh", x)))
    return from_host(w, dtype), from_host(v, dtype)


# Kernel contract: eig(x) gets a floating tensor (..., n, n), validated; returns complex64
# (complex128 for float64, in 64-bit mode) (w (..., n), v (..., n, n)) as np.linalg.eig.
# Backends without complex dtypes raise.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_eig_prepare_for("eig"), compute="float32")
def eig(x):
    """Eigenvalues and right eigenvectors of (a batch of) general square matrices.

    Keras: ``keras.ops.eig``; NumPy: ``np.linalg.eig``.  Returns complex64 ``(w, v)``
    (as JAX; complex128 from float64 in 64-bit mode) with ``x @ v = v * w``; the order and phases are those of LAPACK (numpy).
    Computed on the host with numpy (eager only).  Raises TypeError on backends without
    complex dtypes (openvino).

    Example:
        >>> w, v = polyops.ops.eig(polyops.ops.convert_to_tensor([[2., 0.], [0., 3.]]))
        >>> w
        array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    dtype, shape = _float_matrix("eig", x, square=True)
    ctype = _EIG_COMPLEX.get(dtype, "complex64")
    return spec(shape[:-1], ctype), spec(shape, ctype)


_EIG_COMPLEX = {"float64": "complex128"}  # (float64 reaches the rule in 64-bit mode only)


@eig.host_reference
def _eig_host(x):
    import numpy as np

    ctype = _EIG_COMPLEX.get(_dt(x), "complex64")
    w, v = np.linalg.eig(to_host("eig", x).astype(np.float64))
    return from_host(w.astype(ctype), ctype), from_host(v.astype(ctype), ctype)


# ===== lstsq, pinv, matrix_rank ======================================================


def _rcond(op, name, value):
    if value is None:
        return None
    if isinstance(value, (bool, SymbolicTensor)) or not isinstance(value, (int, float)):
        raise TypeError(f"{op}: expected a Python float {name}, got {name}={value!r}")
    return float(value)


def _lstsq_shape(a, b):
    a, b = tuple(a), tuple(b)
    if len(a) != 2:
        raise ValueError(f"lstsq: expected a of rank 2, got a.shape={a}")
    if len(b) not in (1, 2):
        raise ValueError(f"lstsq: expected b of rank 1 or 2, got b.shape={b}")
    if not _eq(a[0], b[0]):
        raise ValueError(f"lstsq: expected b.shape[0] == a.shape[0], got a.shape={a} and b.shape={b}")
    return (a[1],) + b[1:]


def _lstsq_prepare(a, b, rcond=None):
    _lstsq_shape(a.shape, b.shape)
    return a, b, _rcond("lstsq", "rcond", rcond)


# Kernel contract: lstsq(a, b, rcond) gets floating a (m, n) and b (m,) or (m, k) of the same
# dtype, validated, and rcond None or a float; returns the minimum-norm least-squares x
# (n,) or (n, k): singular values <= rcond * s.max() count as zero, rcond None meaning
# eps(dtype) * max(m, n) (NumPy 2's default).
@defop("linalg", tensors=("a", "b"), promote=_promote.floating, prepare=_lstsq_prepare, compute="float32", empty=0)
def lstsq(a, b, rcond=None):
    """Minimum-norm least-squares solution of ``a @ x = b``.

    Keras: ``keras.ops.lstsq``; NumPy: ``np.linalg.lstsq(a, b, rcond)[0]``.  ``a`` is (m, n),
    ``b`` (m,) or (m, k).  Singular values below ``rcond * max(s)`` are treated as zero;
    ``rcond=None`` means ``eps * max(m, n)`` (NumPy 2).  Computed on the host with numpy
    (eager only) where the backend has no kernel.  Ints compute in floatx.

    Example:
        >>> a = polyops.ops.convert_to_tensor([[1., 0.], [0., 1.], [1., 1.]])
        >>> polyops.ops.lstsq(a, polyops.ops.convert_to_tensor([1., 1., 2.]))
        array([1., 1.], dtype=float32)
    """
    a, b = _tensor("lstsq", "a", a), _tensor("lstsq", "b", b)
    _rcond("lstsq", "rcond", rcond)
    dtype = _float_dtype("lstsq", key(a), key(b))
    return spec(_lstsq_shape(shape_of(a), shape_of(b)), dtype)


def _eps(dtype):
    import numpy as np

    return float(np.finfo(np.float64 if dtype == "float64" else np.float32).eps)


@lstsq.host_reference
def _lstsq_host(a, b, rcond=None):
    import numpy as np

    dtype = _dt(a)
    aa, bb = to_host("lstsq", a), to_host("lstsq", b)
    if rcond is None:
        rcond = _eps(dtype) * _bmax(aa.shape)
    return from_host(np.linalg.lstsq(aa, bb, rcond=rcond)[0], dtype)


def _pinv_prepare(x, rcond=None):
    _matrix("pinv", x.shape)
    return x, _rcond("pinv", "rcond", rcond)


# Kernel contract: pinv(x, rcond) gets a floating tensor (..., m, n), validated, and rcond
# None or a float; returns the pseudo-inverse (..., n, m): singular values <= rcond * s.max()
# count as zero, rcond None meaning eps(dtype) * max(m, n).
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_pinv_prepare, compute="float32")
def pinv(x, rcond=None):
    """Moore-Penrose pseudo-inverse of (a batch of) matrices, via the SVD.

    Keras: ``keras.ops.pinv``; NumPy: ``np.linalg.pinv``.  Singular values below
    ``rcond * max(s)`` count as zero; ``rcond=None`` means ``eps * max(m, n)`` (NumPy 2's
    default).  Computed on the host with numpy (eager only) where the backend has no
    kernel.  Ints compute in floatx, float16/bfloat16 in float32.

    Example:
        >>> polyops.ops.pinv(polyops.ops.convert_to_tensor([[2., 0.], [0., 0.]]))
        array([[0.5, 0. ],
               [0. , 0. ]], dtype=float32)
    """
    x = _tensor("pinv", "x", x)
    _rcond("pinv", "rcond", rcond)
    dtype = _float_dtype("pinv", key(x))
    shape = _matrix("pinv", shape_of(x))
    return spec(shape[:-2] + (shape[-1], shape[-2]), dtype)


@pinv.host_reference
def _pinv_host(x, rcond=None):
    import numpy as np

    dtype = _dt(x)
    a = to_host("pinv", x)
    if rcond is None:
        rcond = _eps(dtype) * _bmax(a.shape[-2:])
    if a.size == 0:
        return from_host(np.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype), dtype)
    return from_host(np.linalg.pinv(a, rcond=rcond), dtype)


def _tol(value):
    if value is None:
        return None
    if isinstance(value, (bool, SymbolicTensor)) or not isinstance(value, (int, float)):
        raise TypeError(f"matrix_rank: expected a Python float tol, got tol={value!r}")
    return float(value)


def _matrix_rank_prepare(x, tol=None):
    _matrix("matrix_rank", x.shape)
    return x, _tol(tol)


# Kernel contract: matrix_rank(x, tol) gets a floating tensor (..., m, n), validated, and tol
# None or a float; returns int32 (...): the count of singular values > tol, tol None meaning
# s.max() * max(m, n) * eps(dtype) (NumPy's default).
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_matrix_rank_prepare, compute="float32", empty=0)
def matrix_rank(x, tol=None):
    """Rank of (a batch of) matrices: the number of singular values above ``tol``.

    Keras: ``keras.ops.matrix_rank``; NumPy: ``np.linalg.matrix_rank``.  ``tol=None``
    means ``s.max() * max(m, n) * eps`` (NumPy's default, eps of the compute dtype:
    float32 for float16/bfloat16).  Returns int32.  Computed on the host with numpy
    (eager only) where the backend has no kernel.

    Example:
        >>> polyops.ops.matrix_rank(polyops.ops.convert_to_tensor([[1., 2.], [2., 4.]]))
        np.int32(1)
    """
    x = _tensor("matrix_rank", "x", x)
    _tol(tol)
    _float_dtype("matrix_rank", key(x))
    return spec(_matrix("matrix_rank", shape_of(x))[:-2], "int32")


@matrix_rank.host_reference
def _matrix_rank_host(x, tol=None):
    import numpy as np

    a = to_host("matrix_rank", x)
    if a.shape[-1] == 0 or a.shape[-2] == 0:
        return from_host(np.zeros(a.shape[:-2], np.int32), "int32")
    s = np.linalg.svd(a, compute_uv=False)
    if tol is None:
        tol = s.max(-1, keepdims=True) * _bmax(a.shape[-2:]) * float(np.finfo(a.dtype).eps)
    else:
        tol = np.asarray(tol)[..., None] if np.ndim(tol) else tol
    return from_host(np.count_nonzero(s > tol, axis=-1).astype(np.int32), "int32")


# ===== norm ============================================================================

_MATRIX_ORDS = (None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def _norm_axes(x_ndim, ord, axis):
    """(canonical axes tuple, ord) or ValueError/TypeError naming norm."""
    if axis is None:
        if ord is None:
            return tuple(range(x_ndim)), None, True  # flattened 2-norm
        if x_ndim not in (1, 2):
            raise ValueError(f"norm: with ord={ord!r} and axis=None, expected a tensor of rank 1 or 2, got rank {x_ndim}")
        axes = tuple(range(x_ndim))
    else:
        raw = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
        if len(raw) not in (1, 2):
            raise ValueError(f"norm: expected 1 or 2 axes, got axis={axis!r}")
        axes = tuple(canonicalize_axis(a, x_ndim, "norm") for a in raw)
        if len(axes) == 2 and axes[0] == axes[1]:
            raise ValueError(f"norm: expected distinct axes, got axis={axis!r}")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise ValueError(f"norm: expected ord 'fro' or 'nuc' as a string, got ord={ord!r}")
        if len(axes) == 1:
            raise ValueError(f"norm: ord={ord!r} is a matrix norm; got a vector norm (axis={axis!r})")
    elif ord is not None:
        if isinstance(ord, bool) or not isinstance(ord, (int, float)):
            raise TypeError(f"norm: expected a number, 'fro' or 'nuc' for ord, got ord={ord!r}")
        if len(axes) == 2 and ord not in _MATRIX_ORDS:
            raise ValueError(f"norm: invalid matrix norm ord={ord!r}")
    return axes, ord, False


def _norm_prepare(x, ord=None, axis=None, keepdims=False):
    axes, ord, flat = _norm_axes(len(x.shape), ord, axis)
    return x, ord, axes, bool(keepdims)


def _norm_fill(out, x, ord=None, axis=None, keepdims=False):
    """The norm of no values: 0, but inf for a vector norm of negative order (NumPy's
    ``sum(|x|**ord)**(1/ord)`` of nothing)."""
    vector = (len(x.shape) == 1 and axis is None) or isinstance(axis, int) or (
        isinstance(axis, (tuple, list)) and len(axis) == 1)
    neg = isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord < 0
    return math.inf if vector and neg else 0


# Kernel contract: norm(x, ord, axis, keepdims) gets a floating tensor, ord (None, a number,
# "fro" or "nuc"), axis a canonical tuple of 1 or 2 non-negative axes (all axes with ord
# None: the flattened 2-norm), keepdims a bool; returns np.linalg.norm's result of x's dtype.
@defop("linalg", tensors=("x",), promote=_promote.floating, prepare=_norm_prepare, compute="float32", empty=_norm_fill)
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm, as ``np.linalg.norm``.

    Keras: ``keras.ops.norm``.  ``axis`` None: the 2-norm of the flattened tensor when
    ``ord`` is None, else a vector (rank 1) or matrix (rank 2) norm; one axis: vector norm
    (``ord`` inf, -inf, 0, any number); two axes: matrix norm (None/"fro", "nuc", inf,
    -inf, 1, -1, 2, -2).  ``ord`` 2, -2 and "nuc" of matrices use singular values
    (host/eager unless the backend has a kernel).  Ints compute in floatx; float16 and
    bfloat16 in float32 and keep their dtype.

    Example:
        >>> polyops.ops.norm(polyops.ops.convert_to_tensor([3., 4.]))
        array(5., dtype=float32)
    """
    x = _tensor("norm", "x", x)
    dtype = _float_dtype("norm", key(x))
    shape = shape_of(x)
    axes, ord, flat = _norm_axes(len(shape), ord, axis)
    return spec(reduce_shape(tuple(shape), axes, bool(keepdims)), dtype)


def _vector_norm(a, ord, ax, keepdims):
    if ord is None or ord == 2:
        return sqrt(sum(multiply(a, a), ax, keepdims))
    v = abs(a)
    if ord == math.inf:
        return max(v, ax, keepdims)
    if ord == -math.inf:
        return min(v, ax, keepdims)
    if ord == 0:
        return sum(cast(not_equal(a, 0.0), _dt(a)), ax, keepdims)
    if ord == 1:
        return sum(v, ax, keepdims)
    return power(sum(power(v, float(ord)), ax, keepdims), 1.0 / float(ord))


@norm.reference
def _norm_ref(x, ord=None, axis=None, keepdims=False):
    a = x
    axes = axis
    if len(axes) != 2 or (ord is None and len(axes) != 2):
        return _vector_norm(a, ord, axes, keepdims)
    r, c = axes
    if ord in (None, "fro"):
        return sqrt(sum(multiply(a, a), axes, keepdims))
    if ord in (1, -1, math.inf, -math.inf):
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        s = sum(abs(a), inner, True)
        out = max(s, outer, True) if ord in (1, math.inf) else min(s, outer, True)
        if not keepdims:
            out = reshape(out, reduce_shape(tuple(_shape_of(a)), axes, False))
        return out
    # spectral norms: singular values of the matrices moved to the last two axes
    nd = len(_shape_of(a))
    perm = [i for i in range(nd) if i not in axes] + [r, c]
    s = svd(transpose(a, perm), compute_uv=False)
    out = max(s, -1) if ord == 2 else min(s, -1) if ord == -2 else sum(s, -1)
    shape = reduce_shape(tuple(_shape_of(a)), axes, keepdims)
    return reshape(out, shape)


# ===== jvp =============================================================================


def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode Jacobian-vector product of ``fun`` at ``primals`` along ``tangents``.

    Keras: ``keras.ops.jvp``; JAX: ``jax.jvp``.  Returns ``(primals_out, tangents_out)``
    (plus ``aux`` with ``has_aux=True``, where ``fun`` returns ``(out, aux)``).  Runs
    through the current backend's forward-mode autodiff (jax, tensorflow, torch); other
    backends raise NotImplementedError.

    Example:
        >>> polyops.ops.jvp(polyops.ops.sin, (polyops.ops.convert_to_tensor(0.1),),
        ...                 (polyops.ops.convert_to_tensor(0.2),))   # (0.0998, 0.1990)
    """
    from .._registry import current

    backend = current()
    rt = backend.runtime
    if rt.jvp is None:
        raise NotImplementedError(
            f"jvp: the {rt.name} backend has no forward-mode autodiff; "
            "jvp is available on the jax, tensorflow and torch backends")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"jvp: expected tuples of primals and tangents, got {type(primals).__name__} "
                        f"and {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: expected as many tangents as primals, got {len(primals)} and {len(tangents)}")
    from .core import convert_to_tensor as _ct

    def _t(v):
        return v if isinstance(v, rt.tensor_types) else _ct(v)

    primals = tuple(_t(p) for p in primals)
    tangents = tuple(_t(t) for t in tangents)
    return rt.jvp(fun, primals, tangents, bool(has_aux))


__all__ = [
    "Cholesky", "CholeskyInverse", "Det", "Eig", "Eigh", "Inv", "Lstsq", "LuFactor",
    "MatrixPower", "MatrixRank", "Norm", "Pinv", "Qr", "Solve", "SolveTriangular", "Svd",
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor",
    "matrix_power", "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd",
]

_finish(globals())
