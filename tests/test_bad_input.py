"""Bad input raises the same exception type on every backend, naming the op and the value."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import ops

X = np.arange(6, dtype="float32").reshape(2, 3)
I = np.arange(6, dtype="int32").reshape(2, 3)

# (id, call, exception type, fragments the message must contain)
CASES = [
    # incompatible shapes
    ("add-shapes", lambda: ops.add(X, np.ones(4, "float32")), ValueError, ["add", "(2, 3)", "(4,)"]),
    ("where-shapes", lambda: ops.where(X > 1, X, np.ones((3, 2), "float32")), ValueError, ["where", "(3, 2)"]),
    ("matmul-shapes", lambda: ops.matmul(X, X), ValueError, ["matmul", "(2, 3)"]),
    ("dot-shapes", lambda: ops.dot(X, np.ones(2, "float32")), ValueError, ["dot", "(2,)"]),
    ("einsum-shapes", lambda: ops.einsum("ij,jk->ik", X, X), ValueError, ["einsum", "(2, 3)"]),
    ("einsum-operands", lambda: ops.einsum("ij,jk->ik", X), ValueError, ["einsum", "2 operands"]),
    ("concat-shapes", lambda: ops.concatenate([X, np.ones((2, 2, 2), "float32")]), ValueError, ["concatenate", "(2, 2, 2)"]),
    ("stack-shapes", lambda: ops.stack([X, X.T]), ValueError, ["stack", "(3, 2)"]),
    ("reshape-size", lambda: ops.reshape(X, (4, 2)), ValueError, ["reshape", "(4, 2)", "(2, 3)"]),
    ("reshape-two-minus-one", lambda: ops.reshape(X, (-1, -1)), ValueError, ["reshape", "(-1, -1)"]),
    ("broadcast_to", lambda: ops.broadcast_to(X, (3, 3)), ValueError, ["broadcast_to", "(3, 3)"]),
    ("squeeze-not-one", lambda: ops.squeeze(X, axis=0), ValueError, ["squeeze", "axis 0", "(2, 3)"]),
    ("max-empty", lambda: ops.max(np.ones((0, 3), "float32")), ValueError, ["max", "(0, 3)"]),
    ("argmax-empty", lambda: ops.argmax(np.ones((0,), "float32")), ValueError, ["argmax", "(0,)"]),
    # axes out of range
    ("sum-axis", lambda: ops.sum(X, axis=2), ValueError, ["sum", "axis=2"]),
    ("mean-axis", lambda: ops.mean(X, axis=(0, -3)), ValueError, ["mean", "axis=-3"]),
    ("std-axis", lambda: ops.std(X, axis=5), ValueError, ["std", "axis=5"]),
    ("argmax-axis", lambda: ops.argmax(X, axis=-3), ValueError, ["argmax", "axis=-3"]),
    ("flip-axis", lambda: ops.flip(X, axis=2), ValueError, ["flip", "axis=2"]),
    ("softmax-axis", lambda: ops.softmax(X, axis=2), ValueError, ["softmax", "axis=2"]),
    ("concat-axis", lambda: ops.concatenate([X, X], axis=2), ValueError, ["concatenate", "axis=2"]),
    ("expand_dims-axis", lambda: ops.expand_dims(X, 4), ValueError, ["expand_dims", "axis=4"]),
    ("transpose-perm", lambda: ops.transpose(X, (0, 0)), ValueError, ["transpose", "(0, 0)"]),
    ("sum-duplicate-axes", lambda: ops.sum(X, axis=(1, -1)), ValueError, ["sum", "(1, -1)"]),
    ("take-axis", lambda: ops.take(X, np.array([0], "int32"), axis=3), ValueError, ["take", "axis=3"]),
    # invalid dtype strings
    ("cast-dtype", lambda: ops.cast(X, "float33"), TypeError, ["cast", "float33"]),
    ("zeros-dtype", lambda: ops.zeros((2,), dtype="floot"), TypeError, ["zeros", "floot"]),
    ("full-dtype", lambda: ops.full((2,), 1, dtype="int99"), TypeError, ["full", "int99"]),
    ("arange-dtype", lambda: ops.arange(3, dtype="uint7"), TypeError, ["arange", "uint7"]),
    ("ones_like-dtype", lambda: ops.ones_like(X, dtype="complex3"), TypeError, ["ones_like", "complex3"]),
    ("convert-dtype", lambda: ops.convert_to_tensor(X, dtype="float8"), TypeError, ["convert_to_tensor", "float8"]),
    # wrong argument types
    ("add-string", lambda: ops.add(X, "a"), TypeError, ["add", "'a'"]),
    ("add-none", lambda: ops.add(X, None), TypeError, ["add", "None"]),
    ("sum-strings", lambda: ops.sum([["a", "b"]]), TypeError, ["sum", "'a'"]),
    ("sum-axis-type", lambda: ops.sum(X, axis="1"), TypeError, ["sum", "axis='1'"]),
    ("reshape-type", lambda: ops.reshape(X, "ab"), TypeError, ["reshape", "'ab'"]),
    ("concat-not-list", lambda: ops.concatenate(X), TypeError, ["concatenate", "sequence"]),
    ("take-float-indices", lambda: ops.take(X, np.array([0.5], "float32")), TypeError, ["take", "float32"]),
    ("full-shape-type", lambda: ops.full("ab", 1.0), TypeError, ["full", "'ab'"]),
    ("zeros-negative", lambda: ops.zeros((2, -1)), ValueError, ["zeros", "(2, -1)"]),
    ("arange-step", lambda: ops.arange(0, 3, 0), ValueError, ["arange", "step=0"]),
    ("einsum-subscripts", lambda: ops.einsum(3, X), TypeError, ["einsum", "3"]),
    ("get_item-key", lambda: ops.get_item(X, "a"), TypeError, ["get_item", "'a'"]),
    ("get_item-bounds", lambda: ops.get_item(X, 5), IndexError, ["get_item", "5"]),
    ("where-one-arg", lambda: ops.where(X > 1), ValueError, ["where", "x1 and x2"]),
    ("cast-none", lambda: ops.cast(X, None), TypeError, ["cast", "None"]),
    # unknown keyword arguments
    ("sum-kwarg", lambda: ops.sum(X, axes=1), TypeError, ["sum", "axes"]),
    ("add-kwarg", lambda: ops.add(X, X, out=X), TypeError, ["add", "out"]),
    ("softmax-kwarg", lambda: ops.softmax(X, dim=1), TypeError, ["softmax", "dim"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input(case, backend):
    _, fn, exc_type, fragments = case
    with polyops.use_backend(backend):
        with pytest.raises(exc_type) as info:
            fn()
    assert type(info.value) is exc_type or isinstance(info.value, exc_type)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_kernel_failure_on_valid_input_names_op_and_backend():
    """A kernel that fails on input the rule accepts raises KernelError naming both."""
    from polyops._op import OPS, make_entry
    from polyops._registry import get_backend

    def broken(x1, x2):
        raise RuntimeError("boom")

    entry = make_entry(OPS["add"], broken, get_backend("numpy"))
    with pytest.raises(polyops.KernelError, match=r"add: the numpy kernel failed.*boom"):
        entry(X, X)
