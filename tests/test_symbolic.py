"""SymbolicTensor, shape rules with None dims, Operation classes and Function."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import Function, SymbolicTensor as S, ops
from polyops.ops.numpy import Add, Concatenate, Matmul, Reshape, Sum

from conftest import to_numpy


def test_spec_basics():
    x = S((None, 3), "f32", name="x")
    assert x.shape == (None, 3) and x.dtype == "float32" and x.ndim == 2 and x.name == "x"
    assert S((2,)).dtype == "float32"
    with pytest.raises(ValueError, match="SymbolicTensor: expected non-negative"):
        S((-1, 2))
    with pytest.raises(TypeError, match="standardize_dtype"):
        S((2,), "float33")


@pytest.mark.parametrize("expr, shape, dtype", [
    (lambda x, y: x + 1, (None, 3), "float32"),
    (lambda x, y: 2.0 - x, (None, 3), "float32"),
    (lambda x, y: x * y, (4, 3), "float32"),
    (lambda x, y: x / 2, (None, 3), "float32"),
    (lambda x, y: y // 2, (4, 3), "int8"),
    (lambda x, y: y % 3, (4, 3), "int8"),
    (lambda x, y: x ** 2, (None, 3), "float32"),
    (lambda x, y: -y, (4, 3), "int8"),
    (lambda x, y: x < y, (4, 3), "bool"),
    (lambda x, y: x >= 1.0, (None, 3), "bool"),
    (lambda x, y: x == y, (4, 3), "bool"),
    (lambda x, y: x != 0, (None, 3), "bool"),
    (lambda x, y: x @ ops.transpose(y), (None, 4), "float32"),
    (lambda x, y: x[:, 1], (None,), "float32"),
    (lambda x, y: y[1:, None, ::2], (3, 1, 2), "int8"),
    (lambda x, y: y[..., -1], (4,), "int8"),
])
def test_operators_infer(expr, shape, dtype):
    x, y = S((None, 3)), S((4, 3), "int8")
    out = expr(x, y)
    assert (out.shape, out.dtype) == (shape, dtype)


def test_misuse_of_symbolic_values_is_a_clear_type_error():
    x = S((None, 3))
    with pytest.raises(TypeError, match="bool: expected a concrete tensor"):
        bool(x > 0)
    with pytest.raises(TypeError, match="convert_to_numpy: expected a concrete tensor"):
        ops.convert_to_numpy(x)
    with pytest.raises(TypeError, match="convert_to_numpy"):
        np.asarray(x)
    with pytest.raises(TypeError, match="len: expected a known leading dim"):
        len(x)


@pytest.mark.parametrize("shape, newshape, want", [
    ((None, 3), (-1,), (None,)),
    ((2, 3), (-1,), (6,)),
    ((2, 6), (3, -1), (3, 4)),
    ((None, 4), (2, -1, 2), (2, None, 2)),
    ((2, 3), (None, 3), (None, 3)),
    ((None, None), (4, 5), (4, 5)),
])
def test_reshape_rule(shape, newshape, want):
    assert ops.reshape(S(shape), newshape).shape == want


@pytest.mark.parametrize("a, b, want", [
    ((3,), (3,), ()),
    ((2, 3), (3,), (2,)),
    ((3,), (3, 4), (4,)),
    ((None, 2, 3), (3, 4), (None, 2, 4)),
    ((5, 1, 2, 3), (4, 3, None), (5, 4, 2, None)),
    ((None, 3), (None, 4), (None, 4)),
    ((3,), (2, 3, 4), (2, 4)),
])
def test_matmul_rule(a, b, want):
    assert ops.matmul(S(a), S(b)).shape == want


def test_concatenate_rule():
    assert ops.concatenate([S((2, 3)), S((4, 3))]).shape == (6, 3)
    assert ops.concatenate([S((2, 3)), S((None, 3))]).shape == (None, 3)
    assert ops.concatenate([S((2, None)), S((4, 3))], axis=0).shape == (6, 3)
    assert ops.concatenate([S((2, 3), "int8"), S((2, 3), "float16")], axis=1).dtype == "float16"


@pytest.mark.parametrize("subscripts, shapes, want", [
    ("ij,jk->ik", [(2, 3), (3, 4)], (2, 4)),
    ("ij,jk", [(2, 3), (3, 4)], (2, 4)),
    ("ii->i", [(3, 3)], (3,)),
    ("ii", [(3, 3)], ()),
    ("bij,bjk->bik", [(None, 2, 3), (None, 3, 5)], (None, 2, 5)),
    ("...ij,...jk->...ik", [(7, 1, 2, 3), (4, 3, 5)], (7, 4, 2, 5)),
    ("i,j->ij", [(2,), (None,)], (2, None)),
])
def test_einsum_rule(subscripts, shapes, want):
    assert ops.einsum(subscripts, *[S(s) for s in shapes]).shape == want


def test_broadcast_with_none():
    assert polyops.broadcast_shapes((None, 3), (2, 1, 1)) == (2, None, 3)
    assert polyops.broadcast_shapes((None,), (1,)) == (None,)
    assert polyops.broadcast_shapes((None,), (5,)) == (5,)
    with pytest.raises(ValueError, match="broadcast-compatible"):
        polyops.broadcast_shapes((2, 3), (4, 3))


def test_operation_classes(backend):
    x = np.arange(6, dtype="float32").reshape(2, 3)
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(Add()(x, x)), x + x)
        np.testing.assert_allclose(to_numpy(Sum(axis=1)(x)), x.sum(1))
        np.testing.assert_allclose(to_numpy(Reshape((3, 2))(x)), x.reshape(3, 2))
        np.testing.assert_allclose(to_numpy(Matmul().call(x, x.T)), x @ x.T)
    spec = Sum(axis=1, keepdims=True).compute_output_spec(S((None, 3)))
    assert spec.shape == (None, 1)
    sym = Concatenate(axis=1)([S((2, 3)), S((2, None))])
    assert sym.shape == (2, None)
    assert repr(Sum(axis=1)) == "Sum(axis=1)"
    with pytest.raises(TypeError, match="unexpected argument 'axes'"):
        Sum(axes=1)


def test_function_runs_a_recorded_graph_on_every_backend(backend):
    x = S((None, 3), name="x")
    w = np.array([[1.0], [2.0], [3.0]], np.float32)
    h = ops.relu(x @ w - 4.0)
    out = [ops.sum(h, axis=0), ops.softmax(x)]
    f = Function(x, out)
    data = np.arange(6, dtype="float32").reshape(2, 3)
    with polyops.use_backend(backend):
        total, soft = f(ops.convert_to_tensor(data))
        np.testing.assert_allclose(to_numpy(total), np.maximum(data @ w - 4, 0).sum(0))
        e = np.exp(data - data.max(1, keepdims=True))
        np.testing.assert_allclose(to_numpy(soft), e / e.sum(1, keepdims=True), rtol=1e-5)


def test_function_rejects_unconnected_outputs():
    x, y = S((2,)), S((2,))
    with pytest.raises(ValueError, match="not an input"):
        Function(x, x + y)


def test_public_functions_mirror_keras_signatures():
    import inspect

    assert list(inspect.signature(ops.sum).parameters) == ["x", "axis", "keepdims"]
    assert list(inspect.signature(ops.arange).parameters) == ["start", "stop", "step", "dtype"]
    assert list(inspect.signature(ops.einsum).parameters) == ["subscripts", "operands"]
    assert list(inspect.signature(ops.linspace).parameters) == [
        "start", "stop", "num", "endpoint", "retstep", "dtype", "axis"]
    assert ops.sum.__doc__ and "np.sum" in ops.sum.__doc__
    assert ops.sum.__module__ == "polyops.ops.numpy.base"  # the submodule that declares it
