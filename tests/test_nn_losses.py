"""Targeted tests of `polyops.ops.nn.losses`: options, errors, symbolic calls, CTC decoding."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy


def test_one_hot_out_of_range_and_axis(backend):
    with polyops.use_backend(backend):
        out = ops.one_hot(tensor([1, 3, 0, 2], "int32"), 4, axis=0, dtype="int32")
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), np.array(
            [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]))
        # out of range: an error eagerly, zero rows under jit (tests/test_indices.py)
        with pytest.raises(polyops.IndexOutOfRangeError, match="one_hot: .*got 7"):
            ops.one_hot(tensor([1, 3, -1, 7], "int32"), 4, axis=0)


def test_one_hot_errors(backend):
    with polyops.use_backend(backend):
        x = tensor([0, 1], "int32")
        with pytest.raises(TypeError, match="one_hot"):
            ops.one_hot(tensor([0.0, 1.0]), 3)
        if polyops.backend() == "openvino":  # (no sparse tensors: tests/test_sparse.py)
            with pytest.raises(ValueError, match="one_hot: the .* backend has no sparse tensors"):
                ops.one_hot(x, 3, sparse=True)
        else:
            assert ops.is_sparse(ops.one_hot(x, 3, sparse=True))
        with pytest.raises(ValueError, match="num_classes=-1"):
            ops.one_hot(x, -1)
        with pytest.raises(ValueError, match="axis=2"):
            ops.one_hot(x, 3, axis=2)


def test_multi_hot_values(backend):
    with polyops.use_backend(backend):
        out = ops.multi_hot(tensor([[0, 4, 4], [1, 1, 2]], "int32"), 5)
        np.testing.assert_array_equal(to_numpy(out), [[1, 0, 0, 0, 1], [0, 1, 1, 0, 0]])
        with pytest.raises(ValueError, match="num_classes"):
            ops.multi_hot(tensor([0], "int32"))


def test_crossentropy_errors_and_symbolic():
    with pytest.raises(ValueError, match="binary_crossentropy"):
        ops.binary_crossentropy(SymbolicTensor((2, 3)), SymbolicTensor((2, 4)))
    with pytest.raises(ValueError, match="categorical_crossentropy"):
        ops.categorical_crossentropy(SymbolicTensor(()), SymbolicTensor(()))
    out = ops.categorical_crossentropy(SymbolicTensor((None, 5)), SymbolicTensor((None, 5)), axis=0)
    assert out.shape == (5,) and out.dtype == "float32"
    out = ops.sparse_categorical_crossentropy(SymbolicTensor((None, 1), "int32"), SymbolicTensor((None, 4)))
    assert out.shape == (None,)
    with pytest.raises(ValueError, match="sparse_categorical_crossentropy"):
        ops.sparse_categorical_crossentropy(SymbolicTensor((3,), "int32"), SymbolicTensor((2, 4)))
    with pytest.raises(TypeError, match="sparse_categorical_crossentropy"):
        ops.sparse_categorical_crossentropy(SymbolicTensor((2,), "float32"), SymbolicTensor((2, 4)))


def test_crossentropy_keras_examples(backend):
    with polyops.use_backend(backend):
        out = ops.binary_crossentropy(tensor([0, 1, 1, 0]), tensor([0.1, 0.9, 0.8, 0.2]))
        np.testing.assert_allclose(to_numpy(out), [0.10536054, 0.10536054, 0.22314355, 0.22314355], rtol=1e-5)
        t = tensor([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        o = tensor([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])
        np.testing.assert_allclose(to_numpy(ops.categorical_crossentropy(t, o)), [0.10536054, 0.22314355, 0.6931472], rtol=1e-5)
        np.testing.assert_allclose(to_numpy(ops.sparse_categorical_crossentropy(tensor([0, 1, 2], "int32"), o)),
                                   [0.10536056, 0.22314355, 0.6931472], rtol=1e-5)
        # logits: stable for large values
        big = ops.binary_crossentropy(tensor([1.0, 0.0]), tensor([100.0, -100.0]), from_logits=True)
        np.testing.assert_allclose(to_numpy(big), [0.0, 0.0], atol=1e-6)


def test_ctc_loss_uniform(backend):
    with polyops.use_backend(backend):
        out = ops.ctc_loss(tensor([[1]], "int32"), ops.zeros((1, 3, 3)), tensor([1], "int32"), tensor([3], "int32"))
        assert ops.dtype(out) == "float32"
        np.testing.assert_allclose(to_numpy(out), [-np.log(6 / 27)], rtol=1e-5)


def test_ctc_errors_and_symbolic():
    out = ops.ctc_loss(SymbolicTensor((None, 4), "int32"), SymbolicTensor((None, None, 5), "float16"),
                       SymbolicTensor((None,), "int32"), SymbolicTensor((None,), "int32"))
    assert out.shape == (None,) and out.dtype == "float32"
    with pytest.raises(ValueError, match="mask_index=5"):
        ops.ctc_loss(SymbolicTensor((2, 4), "int32"), SymbolicTensor((2, 3, 5)),
                     SymbolicTensor((2,), "int32"), SymbolicTensor((2,), "int32"), mask_index=5)
    with pytest.raises(ValueError, match="ctc_loss"):
        ops.ctc_loss(SymbolicTensor((2, 4), "int32"), SymbolicTensor((3, 3, 5)),
                     SymbolicTensor((2,), "int32"), SymbolicTensor((2,), "int32"))
    paths, scores = ops.ctc_decode(SymbolicTensor((None, 7, 4)), SymbolicTensor((None,), "int32"),
                                   strategy="beam_search", beam_width=3, top_paths=2)
    assert paths.shape == (2, None, 7) and paths.dtype == "int32" and scores.shape == (None, 2)
    with pytest.raises(ValueError, match="strategy"):
        ops.ctc_decode(SymbolicTensor((1, 2, 3)), SymbolicTensor((1,), "int32"), strategy="best")


def test_ctc_decode_greedy(backend):
    x = np.log(np.array([[[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]], np.float32))
    with polyops.use_backend(backend):
        paths, scores = ops.ctc_decode(tensor(x), tensor([4], "int32"))
        np.testing.assert_array_equal(to_numpy(paths), [[[1, 2, -1, -1]]])
        np.testing.assert_allclose(to_numpy(scores), [[-4 * np.log(0.8)]], rtol=1e-5)
        paths, _ = ops.ctc_decode(tensor(x), tensor([4], "int32"), merge_repeated=False)
        np.testing.assert_array_equal(to_numpy(paths), [[[1, 1, 2, -1]]])


def test_ctc_decode_beam_search(backend):
    # two frames, blank 0: P("1") = 0.4*0.4 + 0.4*0.3 + 0.3*0.4 = 0.4 beats P("") = 0.09... the
    # most likely labelling is not the greedy path's (greedy: argmax frames -> "1" too; check score)
    p = np.array([[[0.3, 0.4, 0.3], [0.3, 0.4, 0.3]]], np.float32)
    with polyops.use_backend(backend):
        paths, scores = ops.ctc_decode(tensor(np.log(p)), tensor([2], "int32"), strategy="beam_search",
                                       beam_width=4, top_paths=2)
        paths, scores = to_numpy(paths), to_numpy(scores)
    assert paths.shape == (2, 1, 2)
    np.testing.assert_array_equal(paths[0, 0], [1, -1])
    # P("1") = 0.4*0.4 + 0.3*0.4 + 0.4*0.3
    np.testing.assert_allclose(scores[0, 0], np.log(0.16 + 0.12 + 0.12), rtol=1e-5)


def test_ctc_decode_beam_search_is_eager_only():
    jax = pytest.importorskip("jax")
    with polyops.use_backend("jax"):
        fn = jax.jit(lambda x, n: ops.ctc_decode(x, n, strategy="beam_search", beam_width=2))
        with pytest.raises(polyops.EagerOnlyError, match="ctc_decode.*eager only"):
            fn(np.zeros((1, 2, 3), np.float32), np.array([2], np.int32))
        greedy = jax.jit(lambda x, n: ops.ctc_decode(x, n))
        paths, _ = greedy(np.zeros((1, 2, 3), np.float32), np.array([2], np.int32))
        assert paths.shape == (1, 1, 2)
