"""Sparse tensors on the numpy backend (issue 19, docs/sparse.md): SciPy COO arrays, the
``sparse`` extra of polyops-numpy.

For each sparse-aware op: the values equal the same op on the densified operands (dtype
included), the result's sparseness is the rule's, and the symbolic spec (shape, dtype,
sparse) of the same call matches.  Beyond tests/test_sparse.py's 2-D cases: n-D arrays,
SciPy's other formats as inputs, arrays too large to densify (the kernels must not), SciPy's
dtype limits, and SciPy imported only when a sparse value is first made.  torch has no
sparse tensors yet: ``sparse=True`` there is tests/test_sparse.py's ValueError.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import polyops
import pytest
from _sparse_util import D, E, W
from _sparse_util import check as _check  # noqa: E402
from _sparse_util import dense as d  # noqa: E402
from _sparse_util import sp as s
from conftest import BACKENDS
from polyops import ops

pytestmark = pytest.mark.skipif("numpy" not in BACKENDS,
                                reason="the numpy backend is not installed")
sp = pytest.importorskip("scipy.sparse", reason="polyops-numpy[sparse] (scipy) not installed")

C = np.zeros((2, 3, 4), np.float32)  # 3-D, a few entries
C[0, 1, 2], C[1, 0, 0], C[1, 2, 3], C[0, 2, 1] = 0.5, -0.25, 0.75, 0.125
F = np.zeros((2, 3, 4), np.float32)
F[0, 1, 2], F[0, 0, 0], F[1, 2, 3] = 0.25, 0.5, -0.5


@pytest.fixture(autouse=True)
def _numpy():
    with polyops.use_backend("numpy"):
        yield


def check(fn, *args, sparse: bool):
    """`_sparse_util.check`, the sparse results COO arrays and the dense ones ndarrays."""
    return _check(fn, *args, sparse=sparse, kind=lambda out: isinstance(
        out, sp.coo_array) if sparse else isinstance(out, (np.ndarray, np.generic)))


def test_scipy_is_imported_only_when_a_sparse_value_is_made():
    code = (
        "import sys, numpy as np, polyops\n"
        "from polyops import ops\n"
        "polyops.set_backend('numpy')\n"
        "x = ops.add(ops.ones((2, 3)), 1.0)\n"
        "ops.sum(ops.sin(x), axis=0); ops.convert_to_numpy(x); ops.is_sparse(x); ops.is_tensor(x)\n"
        "ops.convert_to_tensor(np.eye(2), sparse=False)\n"
        "assert 'scipy' not in sys.modules, sorted(m for m in sys.modules if 'scipy' in m)\n"
        "y = ops.convert_to_tensor(np.eye(2), sparse=True)\n"
        "assert 'scipy.sparse' in sys.modules and ops.is_sparse(y)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


UNARY_KEEP = ["abs", "negative", "sign", "square", "sqrt", "sin", "tan", "arcsin", "arctan",
              "sinh", "tanh", "arcsinh", "arctanh", "floor", "ceil", "trunc", "fabs",
              "expm1", "log1p", "deg2rad", "rad2deg", "real", "imag", "conjugate", "copy",
              "signbit"]


@pytest.mark.parametrize("x", [D, C], ids=["2d", "3d"])
@pytest.mark.parametrize("name", UNARY_KEEP)
def test_zero_preserving_unary_ops_keep_the_pattern(name, x):
    check(getattr(ops, name), s(np.abs(x) if name in ("sqrt", "log1p") else x), sparse=True)


@pytest.mark.parametrize("name", ["exp", "cos", "reciprocal", "logical_not", "isfinite"])
def test_other_unary_ops_densify(name):
    with np.errstate(divide="ignore"):
        check(getattr(ops, name), s(np.abs(C)), sparse=False)


def test_cast_keeps_the_pattern_and_changes_the_values_dtype():
    assert ops.dtype(check(lambda v: ops.cast(v, "int32"), s(D * 10), sparse=True)) == "int32"
    assert ops.dtype(check(lambda v: ops.cast(v, "bool"), s(D), sparse=True)) == "bool"
    assert ops.dtype(check(lambda v: ops.cast(v, "complex64"), s(C), sparse=True)) == "complex64"


@pytest.mark.parametrize("a, b", [(D, E), (C, F)], ids=["2d", "3d"])
@pytest.mark.parametrize("name", ["add", "subtract", "maximum", "minimum"])
def test_union_ops_are_sparse_when_both_operands_are(name, a, b):
    f = getattr(ops, name)
    check(f, s(a), s(b), sparse=True)
    check(f, s(a), s(a), sparse=True)
    check(f, s(a), d(np.ones_like(a)), sparse=False)
    check(f, 2.5, s(b), sparse=False)
    check(f, s(a * 8, "int8"), s(b * 8, "int16"), sparse=True)  # promoted as dense: int16
    check(f, s(a * 8, "int32"), s(b), sparse=True)  # int32 and float32: float32


def test_add_of_bools_is_or():
    out = check(ops.add, s(D != 0, "bool"), s(E != 0, "bool"), sparse=True)
    assert ops.dtype(out) == "bool"


def test_multiply_is_sparse_when_either_operand_is():
    check(ops.multiply, s(D), s(E), sparse=True)
    check(ops.multiply, s(C), s(F), sparse=True)
    check(ops.multiply, s(C), d(np.arange(4) + 1.0), sparse=True)  # a broadcast row
    check(ops.multiply, d(W), s(D), sparse=True)
    check(ops.multiply, s(D), d(W[:, :1]), sparse=True)  # a broadcast column
    check(ops.multiply, 3, s(D, "int32"), sparse=True)
    check(ops.multiply, s(D[0]), d(W), sparse=True)  # the dense operand widens it


def test_divide_keeps_a_sparse_dividend():
    check(ops.divide, s(C), 4.0, sparse=True)
    check(ops.divide, s(D), d(W), sparse=True)
    check(ops.divide, d(W), s(np.abs(D) + 1), sparse=False)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0 where D stores nothing: nan
        out = check(ops.divide, s(D), d(np.where(W > 2, 0.0, W)), sparse=True)
    assert np.isnan(ops.convert_to_numpy(out)).any()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64", "bool"])
def test_matmul(dtype):
    a, b = (D * 4).astype(dtype), (E.T * 4).astype(dtype)
    check(ops.matmul, s(a, dtype), d(W.T * 4, dtype), sparse=False)
    check(ops.matmul, d(W * 4, dtype), s(b, dtype), sparse=False)
    check(ops.matmul, s(a, dtype), s(b, dtype), sparse=True)
    check(ops.matmul, s(a, dtype), d(W[0] * 4, dtype), sparse=False)  # a vector: dense
    check(ops.matmul, s(C), s(np.swapaxes(F, 1, 2)), sparse=True)  # batched: computed densely


def test_matmul_int8_accumulates_in_int32():
    out = check(ops.matmul, s(D * 8, "int8"), d(W.T * 4, "int8"), sparse=False)
    assert ops.dtype(out) == "int32"


def test_shape_ops_keep_the_pattern():
    check(ops.transpose, s(C), sparse=True)
    check(lambda v: ops.transpose(v, (1, 2, 0)), s(C), sparse=True)
    check(lambda v: ops.reshape(v, (4, -1)), s(C), sparse=True)
    check(lambda v: ops.reshape(v, (24,)), s(C), sparse=True)
    check(lambda v: ops.expand_dims(v, 1), s(C), sparse=True)
    check(lambda v: ops.squeeze(v, 0), s(C[:1]), sparse=True)
    check(lambda a, b: ops.concatenate([a, b, a], axis=1), s(C), s(F), sparse=True)
    check(lambda a, b: ops.concatenate([a, b], axis=-1), s(C), d(F), sparse=False)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_and_mean_are_dense(axis, keepdims):
    check(lambda v: ops.sum(v, axis=axis, keepdims=keepdims), s(C), sparse=False)
    check(lambda v: ops.mean(v, axis=axis, keepdims=keepdims), s(C), sparse=False)
    check(lambda v: ops.sum(v, axis=axis, keepdims=keepdims), s(C * 8, "int8"), sparse=False)
    check(lambda v: ops.sum(v, axis=axis, keepdims=keepdims), s(C, "bool"), sparse=False)


def test_duplicate_indices_are_summed_before_a_nonlinear_op():
    x = sp.coo_array((np.array([0.25, 0.5, -1.0], np.float32),
                      (np.array([0, 0, 2]), np.array([1, 1, 0]))), shape=(3, 2))
    want = np.array([[0, 0.75], [0, 0], [-1.0, 0]], np.float32)
    np.testing.assert_array_equal(ops.convert_to_numpy(x), want)
    for name in ("square", "sin", "sign", "negative", "abs"):
        out = getattr(ops, name)(x)
        assert ops.is_sparse(out)
        np.testing.assert_allclose(ops.convert_to_numpy(out), getattr(np, name)(want), rtol=1e-6)
    y = sp.coo_array((np.array([1.0, 2.0], np.float32), (np.array([1, 1]), np.array([0, 0]))),
                     shape=(3, 2))
    for name in ("add", "subtract", "maximum", "minimum", "multiply"):
        out = getattr(ops, name)(x, y)
        assert ops.is_sparse(out)
        np.testing.assert_allclose(ops.convert_to_numpy(out), getattr(np, name)(want, y.toarray()))
    np.testing.assert_allclose(ops.sum(x, axis=0), want.sum(0))


def test_other_scipy_formats_are_taken_and_give_coo_arrays():
    for x in (sp.csr_array(D), sp.csc_array(D), sp.coo_matrix(D), sp.csr_matrix(D)):
        assert ops.is_sparse(x) and ops.is_tensor(x)
        np.testing.assert_array_equal(ops.convert_to_numpy(x), D)
        out = check(ops.sin, x, sparse=True)
        np.testing.assert_allclose(ops.convert_to_numpy(out), np.sin(D))
        check(ops.multiply, x, s(E), sparse=True)
        check(lambda v: ops.sum(v, axis=1), x, sparse=False)
        check(ops.matmul, x, d(W.T), sparse=False)


def test_arrays_too_large_to_densify_stay_sparse():
    # 10^9 x 10^9 (dense: 4 EB): any densification would fail, so each op here ran sparse
    n = 10**9
    x = sp.coo_array((np.array([0.5, -2.0, 3.0], np.float32),
                      (np.array([0, 7, n - 1]), np.array([n - 1, 3, 0]))), shape=(n, n))
    y = sp.coo_array((np.array([1.0, 4.0], np.float32), (np.array([7, 5]), np.array([3, 5]))),
                     shape=(n, n))
    for out in (ops.add(x, y), ops.subtract(x, y), ops.maximum(x, y), ops.minimum(x, y),
                ops.multiply(x, y), ops.multiply(x, 2.0), ops.divide(x, 4.0), ops.sin(x),
                ops.cast(x, "int32"), ops.transpose(x), ops.reshape(x, (n * 1000, n // 1000)),
                ops.expand_dims(x, 0), ops.concatenate([x, y], axis=0)):
        assert isinstance(out, sp.coo_array) and out.nnz <= 5
    got = ops.add(x, y)
    entries: dict = {}
    for i, j, v in zip(*got.coords, got.data, strict=True):  # (add may keep duplicates: they sum)
        entries[int(i), int(j)] = entries.get((int(i), int(j)), 0.0) + float(v)
    assert entries == {(0, n - 1): 0.5, (7, 3): -1.0, (n - 1, 0): 3.0, (5, 5): 4.0}
    assert float(ops.sum(x)) == 1.5
    wide = ops.reshape(x, (4, n * n // 4))
    np.testing.assert_allclose(ops.sum(wide, axis=1), [-1.5, 0.0, 0.0, 3.0])


def test_conversions_and_queries():
    x = s(C)
    assert isinstance(x, sp.coo_array) and ops.is_sparse(x) and ops.is_tensor(x)
    assert ops.shape(x) == (2, 3, 4) and ops.dtype(x) == "float32"
    np.testing.assert_array_equal(ops.convert_to_numpy(x), C)
    assert ops.convert_to_tensor(x) is x and ops.convert_to_tensor(x, sparse=True) is x
    dense = ops.convert_to_tensor(x, sparse=False)
    assert type(dense) is np.ndarray
    np.testing.assert_array_equal(dense, C)
    h = ops.convert_to_tensor(x, "float64")
    assert ops.is_sparse(h) and ops.dtype(h) == "float64"
    assert ops.dtype(s(np.arange(3) % 2, "int64")) == "int32"  # 64-bit demoted, as dense


def test_scipy_limits_are_clear_errors():
    with pytest.raises(TypeError, match="scipy.sparse.*float16"):
        ops.convert_to_tensor(D.astype(np.float16), sparse=True)
    with pytest.raises(TypeError, match="scipy.sparse.*bfloat16"):
        ops.cast(s(D), "bfloat16")
    with pytest.raises(ValueError, match="^convert_to_tensor: .*0-d"):
        ops.convert_to_tensor(1.0, sparse=True)


def test_mixed_shapes_are_the_ops_errors():
    with pytest.raises(ValueError, match="^add: .*(3, 4).*(4, 3)"):
        ops.add(s(D), s(D.T))
    with pytest.raises(ValueError, match="^matmul"):
        ops.matmul(s(D), d(W))
    with pytest.raises(ValueError, match="^concatenate"):
        ops.concatenate([s(D), s(D.T)], axis=0)


@pytest.mark.parametrize("other", [b for b in BACKENDS if b != "numpy"])
def test_a_numpy_sparse_array_on_another_backend_is_a_clear_error(other):
    """... where that backend has sparse tensors; one without (openvino) densifies it."""
    x = s(D)
    with polyops.use_backend(other):
        if polyops._sparse.contract(polyops._registry.current().runtime) is None:
            out = ops.sin(x)
            assert not ops.is_sparse(out)
            np.testing.assert_allclose(ops.convert_to_numpy(out), np.sin(D), rtol=1e-6)
        else:
            with pytest.raises(TypeError, match="^sin: .*numpy sparse tensor"):
                ops.sin(x)
        moved = ops.convert_to_tensor(x)  # densified and moved, as dense tensors are
        assert ops.is_tensor(moved) and not ops.is_sparse(moved)
        np.testing.assert_array_equal(ops.convert_to_numpy(moved), D)
