"""Targeted tests of `polyops.ops.linalg`: options, conventions, errors, jvp."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy

RNG = np.random.default_rng(0)
A = (RNG.normal(size=(2, 3, 3)) + 4 * np.eye(3)).astype(np.float32)
R = RNG.normal(size=(2, 5, 3)).astype(np.float32)
SYM = (A + np.swapaxes(A, -1, -2)).astype(np.float32)


def test_qr_reconstructs_with_nonnegative_diagonal(backend):
    with polyops.use_backend(backend):
        for x in (R, np.swapaxes(R, -1, -2).copy()):
            for mode in ("reduced", "complete"):
                q, r = (to_numpy(t) for t in ops.qr(x, mode=mode))
                np.testing.assert_allclose(q @ r, x, atol=1e-4)
                np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), atol=1e-4)
                assert (np.diagonal(r, axis1=-2, axis2=-1) >= 0).all()
                assert np.allclose(np.tril(r, -1), 0)


def test_svd_reconstructs(backend):
    with polyops.use_backend(backend):
        for full in (True, False):
            u, s, vh = (to_numpy(t) for t in ops.svd(R, full_matrices=full))
            k = s.shape[-1]
            np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], R, atol=1e-4)
            assert (np.diff(s, axis=-1) <= 0).all()


def test_eigh_ascending_and_reconstructs(backend):
    with polyops.use_backend(backend):
        w, v = (to_numpy(t) for t in ops.eigh(SYM))
    assert (np.diff(w, axis=-1) >= 0).all()
    np.testing.assert_allclose(SYM @ v, v * w[..., None, :], atol=1e-4)


def test_eig(backend):
    with polyops.use_backend(backend):
        if backend == "openvino":  # expected failure: no complex dtypes on openvino
            with pytest.raises(TypeError, match="eig.*openvino"):
                ops.eig(A)
            return
        w, v = ops.eig(A)
        assert ops.dtype(w) == "complex64" and ops.dtype(v) == "complex64"
        w, v = to_numpy(w), to_numpy(v)
    np.testing.assert_allclose(A @ v, v * w[..., None, :], atol=1e-4)


def test_lu_factor_pivots(backend):
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with polyops.use_backend(backend):
        lu, piv = ops.lu_factor(x)
        assert ops.dtype(piv) == "int32"
        np.testing.assert_allclose(to_numpy(lu), [[3, 4], [1 / 3, 2 / 3]], rtol=1e-5)
        np.testing.assert_array_equal(to_numpy(piv), [1, 1])


def test_det_singular_and_empty(backend):
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(ops.det(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))), 0.0)
        np.testing.assert_allclose(to_numpy(ops.det(np.zeros((2, 0, 0), np.float32))), [1.0, 1.0])


def test_norm_orders(backend):
    x = R[0]
    with polyops.use_backend(backend):
        for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
            np.testing.assert_allclose(to_numpy(ops.norm(x, ord=o)), np.linalg.norm(x, ord=o), rtol=1e-4)
        for o in (None, 0, 1, 2, 0.5, -1, np.inf, -np.inf):
            np.testing.assert_allclose(to_numpy(ops.norm(x, ord=o, axis=0)), np.linalg.norm(x, ord=o, axis=0), rtol=1e-4)


def test_matrix_power_and_int_promotion(backend):
    x = np.array([[1, 1], [0, 1]], np.int32)
    with polyops.use_backend(backend):
        out = ops.matrix_power(x, 5)
        assert ops.dtype(out) == polyops.config.floatx()
        np.testing.assert_allclose(to_numpy(out), [[1, 5], [0, 1]])
        np.testing.assert_allclose(to_numpy(ops.matrix_power(x, -1)), [[1, -1], [0, 1]], atol=1e-6)


def test_low_precision_keeps_dtype(backend):
    with polyops.use_backend(backend):
        for name in ("inv", "det", "cholesky", "norm"):
            x = SYM @ np.swapaxes(SYM, -1, -2) + np.eye(3) if name == "cholesky" else A
            out = getattr(ops, name)(x.astype(np.float16))
            assert ops.dtype(out) == "float16", name


@pytest.mark.parametrize("call,match", [
    (lambda: ops.inv(np.ones((2, 3), np.float32)), "inv.*square"),
    (lambda: ops.det(np.ones((3,), np.float32)), "det.*rank"),
    (lambda: ops.cholesky(np.ones((2, 3), np.float32)), "cholesky.*square"),
    (lambda: ops.solve(np.eye(3, dtype=np.float32), np.ones((4, 2), np.float32)), "solve"),
    (lambda: ops.solve_triangular(np.eye(3, dtype=np.float32), np.ones((4,), np.float32)), "solve_triangular"),
    (lambda: ops.qr(np.ones((3, 3), np.float32), mode="r"), "qr.*mode"),
    (lambda: ops.norm(np.ones((3, 3), np.float32), ord="bad"), "norm.*ord"),
    (lambda: ops.norm(np.ones((3,), np.float32), ord="fro"), "norm.*fro"),
    (lambda: ops.norm(np.ones((3, 3), np.float32), ord=3), "norm.*ord=3"),
    (lambda: ops.norm(np.ones((3, 3, 3), np.float32), ord=1), "norm.*rank"),
    (lambda: ops.lstsq(np.ones((3, 2), np.float32), np.ones((4,), np.float32)), "lstsq"),
    (lambda: ops.matrix_power(np.ones((2, 3), np.float32), 2), "matrix_power.*square"),
])
def test_value_errors(call, match, backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=match):
            call()


def test_type_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(TypeError, match="matrix_power"):
            ops.matrix_power(np.eye(2, dtype=np.float32), 1.5)
        with pytest.raises(TypeError, match="pinv"):
            ops.pinv(np.eye(2, dtype=np.float32), rcond="x")


def test_symbolic_none_dims():
    x = SymbolicTensor((None, None, 3), "float32")
    assert ops.inv(x).shape == (None, None, 3)
    assert ops.det(x).shape == (None,)
    q, r = ops.qr(SymbolicTensor((None, 5, 3), "int32"))
    assert (q.shape, r.shape, q.dtype) == ((None, 5, 3), (None, 3, 3), polyops.config.floatx())
    u, s, vh = ops.svd(SymbolicTensor((2, None, 3), "float32"), full_matrices=False)
    assert (u.shape, s.shape, vh.shape) == ((2, None, None), (2, None), (2, None, 3))
    assert ops.solve(x, SymbolicTensor((None, 3), "float32")).shape == (None, 3)
    assert ops.matrix_rank(x).dtype == "int32"
    assert ops.norm(x, axis=(1, 2), keepdims=True).shape == (None, 1, 1)
    lu, piv = ops.lu_factor(SymbolicTensor((4, 2), "float16"))
    assert (lu.dtype, piv.shape, piv.dtype) == ("float16", (2,), "int32")
    with pytest.raises(ValueError, match="inv"):
        ops.inv(SymbolicTensor((None, 2, 3), "float32"))


def test_references_trace_under_jit():
    jax = pytest.importorskip("jax")
    with polyops.use_backend("jax"):
        f = jax.jit(lambda x: (ops.det(x), ops.inv(x), ops.qr(x)[1], ops.cholesky(x @ x.T)))
        d, i, r, c = f(A[0])
        np.testing.assert_allclose(np.asarray(d), np.linalg.det(A[0]), rtol=1e-4)
        np.testing.assert_allclose(np.asarray(i), np.linalg.inv(A[0]), atol=1e-5)


def test_jvp_matches_finite_differences(backend):
    x = np.array([0.3, -0.7, 1.1], np.float32)
    t = np.array([1.0, 0.5, -2.0], np.float32)

    def f(v):
        return ops.sum(ops.sin(v) * v)

    with polyops.use_backend(backend):
        if backend in ("numpy", "openvino"):
            with pytest.raises(NotImplementedError, match=f"jvp.*{backend}"):
                ops.jvp(f, (ops.convert_to_tensor(x),), (ops.convert_to_tensor(t),))
            return
        out, tan = ops.jvp(f, (ops.convert_to_tensor(x),), (ops.convert_to_tensor(t),))
        eps = 1e-3
        x64, t64 = x.astype(np.float64), t.astype(np.float64)
        fd = (np.sum(np.sin(x64 + eps * t64) * (x64 + eps * t64)) - np.sum(np.sin(x64 - eps * t64) * (x64 - eps * t64))) / (2 * eps)
        np.testing.assert_allclose(to_numpy(out), np.sum(np.sin(x) * x), rtol=1e-5)
        np.testing.assert_allclose(to_numpy(tan), fd, rtol=1e-3)
        out, tan, aux = ops.jvp(lambda v: (f(v), v * 2), (ops.convert_to_tensor(x),),
                                (ops.convert_to_tensor(t),), has_aux=True)
        np.testing.assert_allclose(to_numpy(aux), 2 * x)
        np.testing.assert_allclose(to_numpy(tan), fd, rtol=1e-3)
