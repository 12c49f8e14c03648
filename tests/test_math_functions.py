"""Targeted tests of `polyops.ops.math.functions`: options, edge values, errors, symbolic calls."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy

NAN, INF = np.nan, np.inf


def test_segment_ops_num_segments_none_and_dropped_ids(backend):
    data = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    ids = np.array([0, 0, 2, -1], np.int32)
    with polyops.use_backend(backend):
        d, i = tensor(data), tensor(ids, "int32")
        np.testing.assert_allclose(to_numpy(ops.segment_sum(d, i)), [[4, 6], [0, 0], [5, 6]])
        np.testing.assert_allclose(to_numpy(ops.segment_max(d, i)), [[3, 4], [-INF, -INF], [5, 6]])
        np.testing.assert_allclose(to_numpy(ops.segment_min(d, i, num_segments=2)), [[1, 2], [INF, INF]])
        np.testing.assert_allclose(to_numpy(ops.segment_prod(d, i, 4, sorted=False)), [[3, 8], [1, 1], [5, 6], [1, 1]])
        got = ops.segment_max(tensor([1, 5, 2], "int8"), tensor([0, 2, 2], "int32"), 3)
        assert ops.dtype(got) == "int8"
        np.testing.assert_array_equal(to_numpy(got), [1, -128, 5])
        np.testing.assert_array_equal(to_numpy(ops.segment_min(tensor([1, 5], "uint8"), tensor([1, 1], "int32"), 2)), [255, 1])


def test_segment_errors(backend):
    with polyops.use_backend(backend):
        d = tensor(np.ones((3, 2)))
        with pytest.raises(ValueError, match="segment_sum"):
            ops.segment_sum(d, tensor([0, 1], "int32"), 2)
        with pytest.raises(ValueError, match="segment_max"):
            ops.segment_max(d, tensor([[0, 1, 2]], "int32"), 3)
        with pytest.raises(TypeError, match="segment_min"):
            ops.segment_min(d, tensor([0.0, 1.0, 2.0]), 3)
        with pytest.raises(ValueError, match="segment_prod"):
            ops.segment_prod(d, tensor([0, 1, 2], "int32"), -1)
        with pytest.raises(TypeError, match="segment_sum"):
            ops.segment_sum(d, tensor([0, 1, 2], "int32"), 3, sorted="yes")


def test_segment_symbolic():
    out = ops.segment_sum(SymbolicTensor((None, 3), "float16"), SymbolicTensor((None,), "int32"))
    assert out.shape == (None, 3) and out.dtype == "float16"
    out = ops.segment_max(SymbolicTensor((5, 2), "int8"), SymbolicTensor((5,), "int64"), num_segments=4)
    assert out.shape == (4, 2) and out.dtype == "int8"
    with pytest.raises(ValueError, match="segment_sum"):
        ops.segment_sum(SymbolicTensor((5, 2), "float32"), SymbolicTensor((4,), "int32"), 2)


def test_top_k_ties_nan_and_dtypes(backend):
    x = np.array([[1.0, NAN, 3.0, 3.0, -INF, INF]], np.float32)
    with polyops.use_backend(backend):
        v, i = ops.top_k(tensor(x), 4)
        assert ops.dtype(i) == "int32"
        np.testing.assert_array_equal(to_numpy(i), [[1, 5, 2, 3]])
        np.testing.assert_allclose(to_numpy(v), [[NAN, INF, 3.0, 3.0]])
        v, i = ops.top_k(tensor([5, 2, 7, 1, 9, 3], "int32"), k=3, sorted=False)
        np.testing.assert_array_equal(to_numpy(v), [9, 7, 5])
        np.testing.assert_array_equal(to_numpy(i), [4, 2, 0])
        with pytest.raises(ValueError, match="top_k"):
            ops.top_k(tensor([1.0, 2.0]), 3)
        with pytest.raises(ValueError, match="top_k"):
            ops.top_k(tensor(1.0), 1)
        with pytest.raises(TypeError, match="top_k"):
            ops.top_k(tensor([1.0, 2.0]), 1.5)


def test_in_top_k(backend):
    p = np.array([[0.1, 0.4, 0.6, 0.9, 0.5], [0.1, 0.7, 0.9, 0.8, 0.3], [0.1, 0.6, 0.9, 0.9, 0.5]], np.float32)
    with polyops.use_backend(backend):
        got = ops.in_top_k(tensor([2, 5, 3], "int32"), tensor(p), k=3)
        assert ops.dtype(got) == "bool"
        np.testing.assert_array_equal(to_numpy(got), [True, False, True])
        # a tie at the k-th place counts; NaN at the target is -inf
        q = tensor([[1.0, 1.0, 0.0], [NAN, 0.0, 1.0]])
        np.testing.assert_array_equal(to_numpy(ops.in_top_k(tensor([1, 0], "int32"), q, 1)), [True, False])
        with pytest.raises(TypeError, match="in_top_k"):
            ops.in_top_k(tensor([1.0]), tensor([[1.0, 2.0]]), 1)
        with pytest.raises(ValueError, match="in_top_k"):
            ops.in_top_k(tensor([1, 0], "int32"), tensor([[1.0, 2.0]]), 1)


def test_logsumexp_stability(backend):
    with polyops.use_backend(backend):
        x = tensor([[1000.0, 1000.0], [-INF, -INF], [-1000.0, -INF], [INF, 1.0]])
        np.testing.assert_allclose(to_numpy(ops.logsumexp(x, axis=1)), [1000 + np.log(2), -INF, -1000.0, INF])
        np.testing.assert_allclose(to_numpy(ops.logsumexp(tensor([1.0, 2.0, 3.0]))), 3.4076059, rtol=1e-6)
        out = ops.logsumexp(tensor(np.zeros((2, 3)), "int32"), axis=-1, keepdims=True)
        assert ops.dtype(out) == polyops.config.floatx() and tuple(ops.shape(out)) == (2, 1)
        with pytest.raises(ValueError, match="logsumexp"):
            ops.logsumexp(x, axis=2)


def test_cdist_and_errors(backend):
    with polyops.use_backend(backend):
        got = ops.cdist(tensor([[0.0, 0.0], [1.0, 1.0]]), tensor([[1.0, 0.0], [0.0, 1.0]]))
        np.testing.assert_allclose(to_numpy(got), [[1.0, 1.0], [1.0, 1.0]], rtol=1e-6)  # (Keras's docstring says sqrt(2): a typo)
        with pytest.raises(ValueError, match="cdist"):
            ops.cdist(tensor([1.0, 2.0]), tensor([[1.0, 2.0]]))
        with pytest.raises(ValueError, match="cdist"):
            ops.cdist(tensor(np.ones((2, 3))), tensor(np.ones((2, 2))))
    out = ops.cdist(SymbolicTensor((None, 4, 3), "int32"), SymbolicTensor((5, 3), "float16"))
    assert out.shape == (None, 4, 5) and out.dtype == "float16"


def test_extract_sequences(backend):
    with polyops.use_backend(backend):
        got = ops.extract_sequences(tensor([1, 2, 3, 4, 5, 6], "int32"), 3, 2)
        np.testing.assert_array_equal(to_numpy(got), [[1, 2, 3], [3, 4, 5]])
        assert tuple(ops.shape(ops.extract_sequences(tensor(np.ones((2, 2))), 3, 1))) == (2, 0, 3)
        with pytest.raises(ValueError, match="extract_sequences"):
            ops.extract_sequences(tensor([1.0, 2.0]), 0, 1)
        with pytest.raises(ValueError, match="extract_sequences"):
            ops.extract_sequences(tensor(1.0), 1, 1)
    out = ops.extract_sequences(SymbolicTensor((2, None), "bool"), sequence_length=4, sequence_stride=2)
    assert out.shape == (2, None, 4) and out.dtype == "bool"


def test_logdet(backend):
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(ops.logdet(tensor(a))), np.log(11.0), rtol=1e-6)
        with pytest.raises(ValueError, match="logdet"):
            ops.logdet(tensor(np.ones((2, 3))))
    assert ops.logdet(SymbolicTensor((None, 3, 3), "float32")).shape == (None,)


def test_special_function_edges(backend):
    import scipy.special as sp

    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(ops.erf(tensor([-INF, INF, NAN, 0.0]))), [-1, 1, NAN, 0])
        np.testing.assert_allclose(to_numpy(ops.erfc(tensor([-INF, INF, NAN, 0.0, 10.0]))), [2, 0, NAN, 1, 0])
        x = np.array([1.0, 3.0, 5.0, 8.0, 9.0], np.float32)  # erfc without cancellation
        np.testing.assert_allclose(to_numpy(ops.erfc(tensor(x))), sp.erfc(x.astype(np.float64)), rtol=2e-6)
        np.testing.assert_allclose(to_numpy(ops.erfinv(tensor([-1.0, 1.0, 1.5, -2.0, 0.0]))), [-INF, INF, NAN, NAN, 0])
        np.testing.assert_allclose(to_numpy(ops.rsqrt(tensor([0.0, -1.0, 4.0]))), [INF, NAN, 0.5])
        assert ops.dtype(ops.erf(tensor([1], "int32"))) == polyops.config.floatx()
        assert ops.dtype(ops.erfinv(tensor([0.5], "bfloat16"))) == "bfloat16"
        got = to_numpy(ops.gammainc(tensor([1.0, 0.0, -1.0, 2.0, 3.0]), tensor([INF, 1.0, 1.0, -1.0, 0.0])))
        np.testing.assert_allclose(got, [1.0, NAN, NAN, NAN, 0.0])
        got = to_numpy(ops.gammainc(2.5, tensor([0.5, 2.0, 10.0])))
        np.testing.assert_allclose(got, sp.gammainc(2.5, [0.5, 2.0, 10.0]), rtol=1e-5)
        with pytest.raises(TypeError, match="erf"):
            ops.erf(tensor([1 + 0j], "complex64")) if backend != "openvino" else ops.erf("a")


def test_erf_traces_under_jit():
    jax = pytest.importorskip("jax")
    with polyops.use_backend("jax"):
        f = jax.jit(lambda x: (ops.erf(x), ops.gammainc(2.0, x), ops.top_k(x, 2)[1]))
        e, g, i = f(np.array([0.5, 2.0, 1.0], np.float32))
        np.testing.assert_allclose(np.asarray(e), [0.5204999, 0.9953223, 0.8427008], rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(i), [1, 2])
        with pytest.raises(polyops.EagerOnlyError, match="segment_sum"):
            jax.jit(lambda d, s: ops.segment_sum(d, s))(np.ones(3, np.float32), np.zeros(3, np.int32))
