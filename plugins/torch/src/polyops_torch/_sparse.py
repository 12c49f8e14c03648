"""torch's sparse tensors (``Runtime.sparse``): ``torch.sparse_coo_tensor`` (other sparse
layouts, CSR, CSC, BSR, BSC, are taken and read as COO), and the kernels that take them.

A torch sparse tensor is a ``torch.Tensor`` of another layout, so no class tells it apart
for free: ``shared`` names the class and `is_sparse` tests the layout.  torch's own
functions take sparse tensors in one of three ways, and core handles each
(`polyops._sparse`): most raise (core's rescue then dispatches the call as for
tensorflow's and jax's sparse tensors, at no cost to dense calls); many answer by
Keras's rule (sin, abs, multiply, matmul: torch sums duplicate indices first, as Keras
does); the ops in `guarded` would answer otherwise (a sparse result where the rule says
dense, or other values), and core checks their operands first.  tests/test_sparse_torch.py
runs every case of the op table with a sparse operand to keep `guarded` complete.

Core promotes the operands before these kernels and maps the zero-preserving unary ops
over the stored values itself; a kernel returns NotImplemented for a case it does not
cover (core then computes densely).
"""

from __future__ import annotations

import torch

types = ()
shared = (torch.Tensor,)
_LAYOUTS = frozenset((torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr,
                      torch.sparse_bsc))

# ops whose torch function takes a sparse tensor and answers otherwise than the rule (found
# by tests/test_sparse_torch.py: a sparse result where the rule's is dense, or, for cross,
# other values); core guards every reference too (a composition of ops)
guarded = frozenset((
    "sum", "nansum", "signbit", "zeros_like", "empty_like", "get_item", "relu", "ldexp",
    "isinf", "isnan", "isneginf", "isposinf", "nan_to_num", "view", "array", "pad",
    "swapaxes", "moveaxis", "diff", "repeat", "tensordot", "cross", "tanh_shrink",
    "rms_normalization", "layer_normalization", "erf", "erfinv", "stop_gradient",
))


def is_sparse(x) -> bool:
    return x.layout in _LAYOUTS


def _coo(x):
    return x if x.layout is torch.sparse_coo else x.to_sparse_coo()


def to_dense(x):
    return x.to_dense()  # (duplicates summed)


def from_dense(x):
    return x.to_sparse()


def values(x):
    return _coo(x)._values()


def _make(indices, v, shape, coalesced=False):
    # (indices made here are in range: torch's check of them would only cost time)
    return torch.sparse_coo_tensor(indices, v, tuple(shape), is_coalesced=coalesced,
                                   check_invariants=False)


def with_values(x, v):
    x = _coo(x)
    return _make(x._indices(), v, x.shape, x.is_coalesced())


def sum_duplicates(x):
    return _coo(x).coalesce()


def _same_shape(x1, x2) -> bool:
    return x1.shape == x2.shape


def _linear(indices, shape):
    """Each index (a column of ``indices``) as one int64: its row-major position."""
    strides = torch.ones(len(shape), dtype=torch.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return (indices * strides[:, None]).sum(0)


def _unlinear(lin, shape):
    return torch.stack(torch.unravel_index(lin, tuple(shape))) if shape else lin[None]


def add(x1, x2):
    s1, s2 = is_sparse(x1), is_sparse(x2)
    if not _same_shape(x1, x2):
        return NotImplemented  # (broadcasting: a dense computation)
    if s1 and s2:
        return torch.add(_coo(x1), _coo(x2))
    sp, dense = (x1, x2) if s1 else (x2, x1)
    return torch.add(dense, _coo(sp))  # (torch adds a sparse tensor to a dense one only)


def subtract(x1, x2):
    if not _same_shape(x1, x2):
        return NotImplemented
    if is_sparse(x2):
        return add(x1, with_values(x2, torch.neg(values(x2))))
    return add(x1, torch.neg(x2))


def _union(func):
    def kernel(x1, x2):
        if not (is_sparse(x1) and is_sparse(x2) and _same_shape(x1, x2)):
            return NotImplemented
        a, b = sum_duplicates(x1), sum_duplicates(x2)
        l1, l2 = _linear(a._indices(), a.shape), _linear(b._indices(), b.shape)
        lin = torch.unique(torch.cat([l1, l2]))  # (sorted)
        v1 = torch.zeros(lin.shape, dtype=a.dtype)
        v2 = torch.zeros(lin.shape, dtype=b.dtype)
        v1[torch.searchsorted(lin, l1)] = a._values()
        v2[torch.searchsorted(lin, l2)] = b._values()
        return _make(_unlinear(lin, a.shape), func(v1, v2), a.shape, coalesced=True)

    return kernel


def _at(dense, sp):
    """``dense`` (broadcastable to ``sp``'s shape) read at each of ``sp``'s indices."""
    return dense.expand(sp.shape)[tuple(sp._indices())]


def multiply(x1, x2):
    if is_sparse(x1) and is_sparse(x2):
        if not _same_shape(x1, x2):
            return NotImplemented
        return torch.mul(_coo(x1), _coo(x2))  # (the intersection)
    sp, dense = (x1, x2) if is_sparse(x1) else (x2, x1)
    if torch.broadcast_shapes(sp.shape, dense.shape) != sp.shape:
        return NotImplemented  # (the dense operand widens the result)
    sp = _coo(sp)
    return with_values(sp, sp._values() * _at(dense, sp))


def divide(x1, x2):
    if is_sparse(x2) or not is_sparse(x1):
        return NotImplemented  # (core computes densely: the rule makes the result dense)
    if torch.broadcast_shapes(x1.shape, x2.shape) != x1.shape:
        return NotImplemented
    if not bool(torch.all(x2 != 0)) or bool(torch.any(torch.isnan(x2))):
        return NotImplemented  # (0 / 0 and 0 / nan are nan where x1 stores nothing: dense)
    x1 = _coo(x1)
    return with_values(x1, x1._values() / _at(x2, x1))


def matmul(x1, x2):
    if x1.ndim != 2 or x2.ndim != 2 or not (x1.dtype.is_floating_point or x1.dtype.is_complex):
        return NotImplemented  # (torch's sparse products: floats and complex, 2-D)
    s1, s2 = is_sparse(x1), is_sparse(x2)
    if s1 and s2:
        return torch.sparse.mm(_coo(x1), _coo(x2))
    if s1:
        return torch.sparse.mm(_coo(x1), x2)
    # dense @ sparse = (sparse^T @ dense^T)^T
    return torch.sparse.mm(_coo(x2).t(), x1.t()).t()


def transpose(x, axes):
    x = _coo(x)
    return _make(x._indices()[list(axes)], x._values(), [x.shape[a] for a in axes])


def reshape(x, newshape):
    x = _coo(x)
    newshape = tuple(newshape)
    if not newshape:  # (0-d: never sparse)
        return x.to_dense().reshape(())
    if -1 in newshape:  # (core resolves it; a direct call may not)
        known = 1
        for d in newshape:
            known *= d if d != -1 else 1
        newshape = tuple(x.numel() // known if d == -1 else d for d in newshape)
    indices = _unlinear(_linear(x._indices(), x.shape), newshape)
    return _make(indices, x._values(), newshape, x.is_coalesced())


def concatenate(xs, axis):
    if not all(map(is_sparse, xs)):
        return NotImplemented  # dense parts: a dense result, computed densely
    return torch.cat([_coo(x) for x in xs], dim=axis)


def sum(x, axis=None, keepdims=False):  # noqa: A001  (the op's name)
    if axis == () or not x.dtype.is_floating_point:
        return NotImplemented  # (integer sums widen as the dense kernel decides)
    x = _coo(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in axis)
    out = torch.sparse.sum(x, dim=axes) if len(axes) < x.ndim else torch.sparse.sum(x)
    out = out.to_dense() if is_sparse(out) else out
    if keepdims:
        out = out.reshape(tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    return out


kernels = {
    "add": add, "subtract": subtract,
    "maximum": _union(torch.maximum), "minimum": _union(torch.minimum),
    "multiply": multiply, "divide": divide, "matmul": matmul, "transpose": transpose,
    "reshape": reshape, "concatenate": concatenate, "sum": sum,
}
