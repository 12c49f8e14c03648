"""Sparse tensors (issue 19, docs/sparse.md): tf.SparseTensor on tensorflow, BCOO on jax.

For each sparse-aware op: the values equal the same op on the densified operands (dtype
included), the result's sparseness is the one written here (Keras's semantics), and the
symbolic spec (shape, dtype, sparse) of the same call on SymbolicTensors matches the eager
result.  Other ops densify.  Bad input: another backend's sparse tensor, mixed shapes.
"""

from __future__ import annotations

import numpy as np
import polyops
import pytest
from conftest import BACKENDS, to_numpy
from polyops import SymbolicTensor, ops

SPARSE = [b for b in ("tensorflow", "jax") if b in BACKENDS]
DENSE_ONLY = [b for b in BACKENDS if b not in SPARSE]

pytestmark = pytest.mark.skipif(not SPARSE, reason="no backend with sparse tensors installed")

# a 3x4 matrix with a third of its entries stored, values in (0, 0.9) (every unary op's
# domain), one negative to tell abs/sign/maximum apart
D = np.array([[0.0, 0.5, 0.0, 0.25],
              [-0.75, 0.0, 0.0, 0.0],
              [0.0, 0.0, 0.125, 0.0]], np.float32)
E = np.array([[0.5, 0.0, 0.0, 0.25],
              [0.0, 0.0, 0.375, 0.0],
              [0.0, 0.0, 0.625, 0.0]], np.float32)
W = np.arange(1, 13, dtype=np.float32).reshape(3, 4) / 4  # dense, no zeros (a divisor)


@pytest.fixture(params=SPARSE)
def sb(request):
    with polyops.use_backend(request.param):
        yield request.param


def sp(values, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(values, dtype), sparse=True)


def dense(values, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(values, dtype))


def _densified(v):
    if isinstance(v, list):
        return [_densified(x) for x in v]
    return ops.convert_to_tensor(v, sparse=False) if ops.is_sparse(v) else v


def _spec(v):
    if isinstance(v, list):
        return [_spec(x) for x in v]
    if ops.is_tensor(v):
        return SymbolicTensor(ops.shape(v), ops.dtype(v), sparse=ops.is_sparse(v))
    return v


def check(fn, *args, sparse: bool):
    """``fn(*args)`` equals ``fn`` on the densified operands, is sparse iff ``sparse``, and
    its spec from SymbolicTensors matches it; returns it."""
    out = fn(*args)
    expect = fn(*_densified(list(args)))
    assert ops.is_sparse(out) is sparse
    assert ops.is_tensor(out)
    assert ops.dtype(out) == ops.dtype(expect)
    assert ops.shape(out) == ops.shape(expect)
    np.testing.assert_allclose(to_numpy(out), to_numpy(expect), rtol=1e-6, atol=1e-6)
    spec = fn(*_spec(list(args)))
    assert (spec.shape, spec.dtype, spec.sparse) == (ops.shape(out), ops.dtype(out), sparse)
    return out


UNARY_KEEP = ["abs", "negative", "sign", "square", "sqrt", "sin", "tan", "arcsin", "arctan",
              "sinh", "tanh", "arcsinh", "arctanh", "floor", "ceil", "trunc", "fabs",
              "expm1", "log1p", "deg2rad", "rad2deg", "real", "imag", "conjugate", "copy",
              "signbit"]
UNARY_DENSIFY = ["exp", "cos", "cosh", "reciprocal", "log", "logical_not", "sigmoid",
                 "ones_like", "isfinite"]


@pytest.mark.parametrize("name", UNARY_KEEP)
def test_zero_preserving_unary_ops_keep_the_pattern(sb, name):
    x = sp(np.abs(D) if name in ("sqrt", "log1p") else D)
    check(getattr(ops, name), x, sparse=True)


@pytest.mark.parametrize("name", UNARY_DENSIFY)
def test_other_unary_ops_densify(sb, name):
    with np.errstate(divide="ignore"):
        check(getattr(ops, name), sp(np.abs(D)), sparse=False)


def test_round_and_cast_keep_the_pattern(sb):
    x = sp(D * 10)
    check(lambda v: ops.round(v, 1), x, sparse=True)
    out = check(lambda v: ops.cast(v, "int32"), x, sparse=True)
    assert ops.dtype(out) == "int32"
    check(lambda v: ops.cast(v, "bool"), x, sparse=True)


@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "minimum"])
def test_union_ops_are_sparse_when_both_operands_are(sb, name):
    f = getattr(ops, name)
    check(f, sp(D), sp(E), sparse=True)
    check(f, sp(D), sp(D), sparse=True)  # (the same indices)
    check(f, sp(D), dense(W), sparse=False)
    check(f, dense(W), sp(D), sparse=False)
    check(f, sp(D), 1.5, sparse=False)
    check(f, sp(D), dense(W[0]), sparse=False)  # broadcasting a dense row


def test_union_promotes_like_the_dense_op(sb):
    out = check(ops.add, sp(D * 8, "int32"), sp(E), sparse=True)
    assert ops.dtype(out) == "float32"
    out = check(ops.subtract, sp(D * 8, "int8"), sp(E * 8, "int16"), sparse=True)
    assert ops.dtype(out) == "int16"


def test_multiply_is_sparse_when_either_operand_is(sb):
    check(ops.multiply, sp(D), sp(E), sparse=True)
    check(ops.multiply, sp(D), sp(np.zeros_like(D)), sparse=True)
    check(ops.multiply, sp(D), dense(W), sparse=True)
    check(ops.multiply, dense(W), sp(D), sparse=True)
    check(ops.multiply, sp(D), dense(W[1]), sparse=True)  # a dense row, broadcast
    check(ops.multiply, sp(D), dense(W[:, :1]), sparse=True)  # a dense column
    check(ops.multiply, sp(D), 3.0, sparse=True)
    check(ops.multiply, 2, sp(D, "int32"), sparse=True)
    check(ops.multiply, sp(D[0]), dense(W), sparse=True)  # the dense operand widens it


def test_divide_by_a_scalar_or_dense_tensor_keeps_the_dividend_sparse(sb):
    check(ops.divide, sp(D), 4.0, sparse=True)
    check(ops.divide, sp(D), dense(W), sparse=True)
    check(ops.divide, dense(W), sp(np.abs(D) + 1), sparse=False)


def test_matmul(sb):
    b = dense(W.T)
    check(ops.matmul, sp(D), b, sparse=False)
    check(ops.matmul, dense(W.T), sp(D), sparse=False)
    check(ops.matmul, sp(D), sp(E.T), sparse=True)
    check(ops.matmul, sp(D), dense(W[0]), sparse=False)  # a vector
    with pytest.raises(ValueError, match="matmul"):
        ops.matmul(sp(D), dense(W))


def test_shape_ops_keep_the_pattern(sb):
    x = sp(D)
    check(ops.transpose, x, sparse=True)
    check(lambda v: ops.transpose(v, (1, 0)), x, sparse=True)
    check(lambda v: ops.reshape(v, (2, -1)), x, sparse=True)
    check(lambda v: ops.reshape(v, (12,)), x, sparse=True)
    check(lambda v: ops.expand_dims(v, 0), x, sparse=True)
    check(lambda v: ops.expand_dims(v, -1), x, sparse=True)
    y = ops.expand_dims(x, 1)
    check(lambda v: ops.squeeze(v, 1), y, sparse=True)
    check(ops.squeeze, y, sparse=True)


def test_concatenate_is_sparse_when_every_part_is(sb):
    check(lambda a, b: ops.concatenate([a, b], axis=0), sp(D), sp(E), sparse=True)
    check(lambda a, b: ops.concatenate([a, b], axis=1), sp(D), sp(E), sparse=True)
    check(lambda a, b: ops.concatenate([a, b], axis=-1), sp(D), dense(W), sparse=False)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_mean_give_dense_results(sb, axis, keepdims):
    check(lambda v: ops.sum(v, axis=axis, keepdims=keepdims), sp(D), sparse=False)
    check(lambda v: ops.mean(v, axis=axis, keepdims=keepdims), sp(D), sparse=False)
    check(lambda v: ops.sum(v, axis=axis, keepdims=keepdims), sp(D * 8, "int8"), sparse=False)


@pytest.mark.parametrize("name", ["max", "argmax", "cumsum", "sort", "flip", "where"])
def test_every_other_op_densifies(sb, name):
    if name == "where":
        check(lambda v: ops.where(ops.greater(v, 0), v, -1.0), sp(D), sparse=False)
        return
    check(getattr(ops, name), sp(D), sparse=False)


def test_duplicate_indices_are_summed_before_a_nonlinear_op(sb):
    if sb == "tensorflow":
        import tensorflow as tf

        x = tf.SparseTensor([[0, 1], [0, 1], [2, 0]], [0.25, 0.5, -1.0], [3, 2])
    else:
        import jax.experimental.sparse as js
        import jax.numpy as jnp

        x = js.BCOO((jnp.array([0.25, 0.5, -1.0]), jnp.array([[0, 1], [0, 1], [2, 0]])),
                    shape=(3, 2))
    want = np.array([[0, 0.75], [0, 0], [-1.0, 0]], np.float32)
    np.testing.assert_allclose(ops.convert_to_numpy(x), want)
    for name in ("square", "sin", "sign", "negative"):
        out = getattr(ops, name)(x)
        assert ops.is_sparse(out)
        np.testing.assert_allclose(ops.convert_to_numpy(out), getattr(np, name)(want),
                                   rtol=1e-6, err_msg=name)


def test_convert_to_tensor_is_tensor_is_sparse_convert_to_numpy(sb):
    x = sp(D)
    assert ops.is_sparse(x) and ops.is_tensor(x)
    assert ops.shape(x) == (3, 4) and ops.dtype(x) == "float32"
    np.testing.assert_array_equal(ops.convert_to_numpy(x), D)
    assert ops.convert_to_tensor(x) is x
    assert ops.convert_to_tensor(x, sparse=True) is x
    d = ops.convert_to_tensor(x, sparse=False)
    assert not ops.is_sparse(d) and ops.is_tensor(d)
    np.testing.assert_array_equal(ops.convert_to_numpy(d), D)
    h = ops.convert_to_tensor(x, "float16")
    assert ops.is_sparse(h) and ops.dtype(h) == "float16"
    assert not ops.is_sparse(dense(D)) and not ops.is_sparse(D) and not ops.is_sparse(1.0)
    assert ops.is_sparse(ops.convert_to_tensor(dense(D), sparse=True))
    assert ops.is_sparse(SymbolicTensor((2, 3), sparse=True))
    assert not ops.is_sparse(SymbolicTensor((2, 3)))


def test_symbolic_sparse_specs():
    s = SymbolicTensor((None, 4), "float32", sparse=True)
    assert s.sparse and "sparse=True" in repr(s)
    assert ops.sin(s).sparse and not ops.exp(s).sparse
    assert ops.add(s, s).sparse and not ops.add(s, SymbolicTensor((None, 4))).sparse
    assert ops.multiply(s, SymbolicTensor((None, 4))).sparse and ops.multiply(2.0, s).sparse
    assert not ops.matmul(s, SymbolicTensor((4, 2))).sparse
    assert ops.matmul(s, SymbolicTensor((4, 2), sparse=True)).sparse
    assert ops.transpose(s).sparse and not ops.sum(s, axis=0).sparse
    assert not ops.sum(s).sparse  # (0-d: never sparse)
    with pytest.raises(TypeError, match="sparse"):
        SymbolicTensor((2,), sparse="yes")


def test_a_sparse_tensor_of_another_backend_is_a_clear_error():
    if len(SPARSE) < 2 and not DENSE_ONLY:
        pytest.skip("needs two backends, one with sparse tensors")
    owner = SPARSE[0]
    with polyops.use_backend(owner):
        x = sp(D)
    for other in [b for b in BACKENDS if b != owner]:
        with polyops.use_backend(other):
            for call in (lambda: ops.sin(x), lambda: ops.add(dense(D), x),
                         lambda: ops.concatenate([dense(D), x])):
                with pytest.raises(TypeError, match=f"{owner} sparse tensor") as info:
                    call()
                assert str(info.value).split(":")[0] in ("sin", "add", "concatenate")
            # convert_to_tensor moves it (densified), as it moves dense tensors
            d = ops.convert_to_tensor(x)
            assert ops.is_tensor(d) and not ops.is_sparse(d)
            np.testing.assert_array_equal(ops.convert_to_numpy(d), D)
        np.testing.assert_array_equal(ops.convert_to_numpy(x), D)


def test_mixed_shapes_are_a_clear_error(sb):
    with pytest.raises(ValueError, match="^add: .*(3, 4).*(4, 3)"):
        ops.add(sp(D), sp(D.T))
    with pytest.raises(ValueError, match="^multiply"):
        ops.multiply(sp(D), dense(W.T))
    with pytest.raises(ValueError, match="^concatenate"):
        ops.concatenate([sp(D), sp(D.T)], axis=0)


@pytest.mark.parametrize("name", DENSE_ONLY)
def test_sparse_true_on_a_backend_without_sparse_tensors(name):
    with polyops.use_backend(name):
        with pytest.raises(ValueError, match=f"convert_to_tensor: the {name} backend has no sparse"):
            ops.convert_to_tensor(D, sparse=True)
        assert not ops.is_sparse(ops.convert_to_tensor(D, sparse=False))

