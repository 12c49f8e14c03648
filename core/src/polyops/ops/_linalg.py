"""Private helpers of `polyops.ops.linalg`: operand and shape checks, small constant
tensors, and the matrix algorithms its references share (Cholesky, triangular
substitution, LU with partial pivoting, Gauss-Jordan), written with polyops ops."""

from __future__ import annotations

from .. import _dtypes, _promote
from .._shapes import broadcast_shapes
from .._symbolic import SymbolicTensor
from ._base import key, shape_of
from .core import convert_to_tensor
from .core import dtype as _dtype_of
from .core import shape as _shape_of
from .numpy import (
    abs, argmax, broadcast_to, concatenate, divide, equal, expand_dims, greater, less,
    logical_and, logical_or, matmul, multiply, reshape, sqrt, subtract, sum, swapaxes, take,
    where, zeros,
)

def _dt(x) -> str:
    return _dtypes.standardize_dtype(_dtype_of(x))


def _const(values, dtype):
    return convert_to_tensor(values, dtype)


def _tensor(op, name, x):
    if not isinstance(x, SymbolicTensor):
        raise TypeError(f"{op}: expected a tensor for {name!r}, got {type(x).__name__}")
    return x


def _float_dtype(op, *keys):
    out = _promote.floating(tuple(keys))[0]
    if out in _dtypes.COMPLEX_TYPES:
        raise TypeError(f"{op}: complex inputs are not supported, got dtype {out}")
    return out


def _matrix(op, shape, square=False, name="x"):
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"{op}: expected {name} of rank >= 2, got shape {shape}")
    if square and shape[-1] is not None and shape[-2] is not None and shape[-1] != shape[-2]:
        raise ValueError(f"{op}: expected square matrices, got shape {shape}")
    return shape


def _float_matrix(op, x, square=False):
    """Spec helper of the one-matrix ops: x checked as a tensor, then its floating result
    dtype and its checked shape, in that order (the order of their errors)."""
    x = _tensor(op, "x", x)
    return _float_dtype(op, key(x)), _matrix(op, shape_of(x), square=square)


def _eq(p, q):
    return p is None or q is None or p == q


def _kmin(m, n):
    return None if m is None or n is None else min(m, n)


def _rhs_shape(op, a, b):
    """The result shape of solving ``a x = b``: b a stack of vectors (b.ndim == a.ndim - 1)
    or of matrices (b.ndim == a.ndim), batch dims broadcast."""
    _matrix(op, a, square=True, name="a")
    n = a[-1] if a[-1] is not None else a[-2]
    if len(b) == len(a) - 1:
        if not _eq(b[-1], n):
            raise ValueError(f"{op}: expected b.shape[-1] == a.shape[-1], got a.shape={a} and b.shape={b}")
        return broadcast_shapes(a[:-2], b[:-1], op=op) + (n if n is not None else b[-1],)
    if len(b) >= len(a):
        if not _eq(b[-2], n):
            raise ValueError(f"{op}: expected b.shape[-2] == a.shape[-1], got a.shape={a} and b.shape={b}")
        return broadcast_shapes(a[:-2], b[:-2], op=op) + (n if n is not None else b[-2], b[-1])
    raise ValueError(f"{op}: expected b of rank >= {len(a) - 1} for a.shape={a}, got b.shape={b}")


def _eye(n, dtype):
    return _const([[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)], dtype)


def _col(a, k):
    return take(a, _const([k], "int32"), -1)


def _row(a, k):
    return take(a, _const([k], "int32"), -2)


def _diag(a, n):
    """(..., n) diagonal of a (..., >=n, >=n) tensor."""
    batch = tuple(_shape_of(a)[:-2])
    if not n:
        return zeros(batch + (0,), _dt(a))
    return concatenate([reshape(take(_col(a, k), _const([k], "int32"), -2), batch + (1,))
                        for k in range(n)], -1)


def _cholesky_lower(a):
    shape = _shape_of(a)
    n = shape[-1]
    if n == 0:
        return a
    rows = _const([[i] for i in range(n)], "int32")
    cols = []
    for j in range(n):
        c = _col(a, j)  # (..., n, 1)
        if j:
            prev = concatenate(cols, -1)  # (..., n, j)
            c = subtract(c, matmul(prev, swapaxes(_row(prev, j), -1, -2)))
        d = sqrt(_row(c, j))  # (..., 1, 1)
        cols.append(where(less(rows, j), 0.0, divide(c, d)))
    return concatenate(cols, -1)


def _as_matrix_rhs(a, b):
    """b as a stack of matrices broadcast against a's batch: (b', was_vector)."""
    sa, sb = tuple(_shape_of(a)), tuple(_shape_of(b))
    vec = len(sb) == len(sa) - 1
    if vec:
        b = expand_dims(b, -1)
        sb = sb + (1,)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    return broadcast_to(b, batch + sb[-2:]), batch, vec


def _substitute(a, b, lower):
    """x with a x = b, a triangular (..., n, n), b (..., n, k): row-by-row substitution."""
    n = _shape_of(a)[-1]
    order = range(n) if lower else range(n - 1, -1, -1)
    xs = {}
    for i in order:
        acc = _row(b, i)  # (..., 1, k)
        done = sorted(xs)
        if done:
            coef = take(_row(a, i), _const(done, "int32"), -1)  # (..., 1, d)
            acc = subtract(acc, matmul(coef, concatenate([xs[j] for j in done], -2)))
        xs[i] = divide(acc, take(_row(a, i), _const([i], "int32"), -1))
    return concatenate([xs[i] for i in range(n)], -2)


def _tri_mask(n, lower):
    return _const([[(j <= i) if lower else (j >= i) for j in range(n)] for i in range(n)], "bool")


def _lu(a):
    """(lu, [pivot index tensors (..., 1, 1)]) of a (..., m, n) tensor."""
    shape = tuple(_shape_of(a))
    m, n = shape[-2], shape[-1]
    rows = _const([[i] for i in range(m)], "int32")  # (m, 1)
    cols = _const([list(range(n))], "int32")  # (1, n)
    pivots = []
    for k in range(min(m, n)):
        col = _col(a, k)  # (..., m, 1)
        p = argmax(where(less(rows, k), -1.0, abs(col)), -2, True)  # (..., 1, 1)
        hit = equal(rows, p)
        is_k = equal(rows, k)
        row_p = sum(where(hit, a, 0.0), -2, True)  # (..., 1, n)
        row_k = _row(a, k)
        a = where(hit, row_k, a)
        a = where(is_k, row_p, a)  # rows k and p swapped
        piv = take(row_p, _const([k], "int32"), -1)  # (..., 1, 1)
        safe = where(equal(piv, 0.0), 1.0, piv)
        below = greater(rows, k)
        lcol = divide(where(below, _col(a, k), 0.0), safe)  # (..., m, 1)
        a = subtract(a, where(logical_and(below, greater(cols, k)), multiply(lcol, row_p), 0.0))
        a = where(logical_and(below, equal(cols, k)), lcol, a)
        pivots.append(p)
    return a, pivots


def _gauss_jordan(a, b):
    """x with a x = b: Gauss-Jordan elimination with partial pivoting, rows left in place.
    a (..., n, n), b (..., n, k) with the same batch dims."""
    n = _shape_of(a)[-1]
    aug = concatenate([a, b], -1)
    rows = _const([[i] for i in range(n)], "int32")
    used = _const([[False]] * n, "bool")
    picks = []
    for k in range(n):
        col = _col(aug, k)
        p = argmax(where(used, -1.0, abs(col)), -2, True)
        hit = equal(p, rows)
        row_p = sum(where(hit, aug, 0.0), -2, True)
        piv = take(row_p, _const([k], "int32"), -1)
        row_n = divide(row_p, piv)
        aug = where(hit, row_n, subtract(aug, multiply(col, row_n)))
        used = logical_or(used, hit)
        picks.append(hit)
    nb = _shape_of(b)[-1]
    right = take(aug, _const(list(range(n, n + nb)), "int32"), -1)  # (..., n, k)
    return concatenate([sum(where(h, right, 0.0), -2, True) for h in picks], -2)
