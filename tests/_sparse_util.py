"""Helpers of the sparse tests (tests/test_sparse.py, tests/test_sparse_backends.py)."""

from __future__ import annotations

import numpy as np
from polyops import SymbolicTensor, ops


def sp(values, dtype="float32"):
    """A sparse tensor of the current backend from dense values."""
    return ops.convert_to_tensor(np.asarray(values, dtype), sparse=True)


def dense(values, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(values, dtype))


def densified(v):
    """``v`` (or a list of them) with sparse tensors made dense."""
    if isinstance(v, list):
        return [densified(x) for x in v]
    return ops.convert_to_tensor(v, sparse=False) if ops.is_sparse(v) else v


def spec(v):
    """The SymbolicTensor of a concrete result (or a list of them), sparse included."""
    if isinstance(v, list):
        return [spec(x) for x in v]
    if ops.is_tensor(v):
        return SymbolicTensor(ops.shape(v), ops.dtype(v), sparse=ops.is_sparse(v))
    return v


def check(fn, *args, sparse: bool, kind=None):
    """``fn(*args)`` equals ``fn`` on the densified operands, is sparse iff ``sparse``
    (``kind(out)``: the backend's own check of its type), and its spec from SymbolicTensors
    matches it; returns it."""
    out = fn(*args)
    expect = fn(*densified(list(args)))
    assert ops.is_sparse(out) is sparse
    assert ops.is_tensor(out) if kind is None else kind(out)
    assert ops.dtype(out) == ops.dtype(expect)
    assert ops.shape(out) == ops.shape(expect)
    np.testing.assert_allclose(ops.convert_to_numpy(out), ops.convert_to_numpy(expect),
                               rtol=1e-6, atol=1e-6)
    got = fn(*spec(list(args)))
    assert (got.shape, got.dtype, got.sparse) == (ops.shape(out), ops.dtype(out), sparse)
    return out


# a 3x4 matrix with a third of its entries stored, values in (0, 0.9) (every unary op's
# domain), one negative to tell abs/sign/maximum apart
D = np.array([[0.0, 0.5, 0.0, 0.25],
              [-0.75, 0.0, 0.0, 0.0],
              [0.0, 0.0, 0.125, 0.0]], np.float32)
E = np.array([[0.5, 0.0, 0.0, 0.25],
              [0.0, 0.0, 0.375, 0.0],
              [0.0, 0.0, 0.625, 0.0]], np.float32)
W = np.arange(1, 13, dtype=np.float32).reshape(3, 4) / 4  # dense, no zeros (a divisor)
