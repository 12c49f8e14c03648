"""Targeted tests of `polyops.ops.nn.normalization`: options, errors, symbolic calls, polar."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy


def test_moments_values(backend):
    with polyops.use_backend(backend):
        m, v = ops.moments(tensor([[1, 3], [5, 7]]), axes=[0, 1], keepdims=True)
        assert ops.shape(m) == (1, 1)
        np.testing.assert_allclose(to_numpy(m), [[4.0]])
        np.testing.assert_allclose(to_numpy(v), [[5.0]])
        m, v = ops.moments(tensor([1, 2], "int32"), axes=0)
        assert ops.dtype(m) == "float32"


def test_batch_normalization_errors():
    with pytest.raises(ValueError, match="batch_normalization"):
        ops.batch_normalization(SymbolicTensor((2, 3)), SymbolicTensor((2,)), SymbolicTensor((3,)), axis=-1)
    with pytest.raises(ValueError, match="axis=5"):
        ops.batch_normalization(SymbolicTensor((2, 3)), SymbolicTensor((3,)), SymbolicTensor((3,)), axis=5)
    out = ops.batch_normalization(SymbolicTensor((None, 3)), SymbolicTensor((None,)), SymbolicTensor((3,)), axis=1)
    assert out.shape == (None, 3)


def test_normalize_options(backend):
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(ops.normalize(tensor([3, 4]))), [0.6, 0.8], rtol=1e-6)
        np.testing.assert_allclose(to_numpy(ops.normalize(tensor([3, -1]), order=1)), [0.75, -0.25], rtol=1e-6)
        np.testing.assert_allclose(to_numpy(ops.normalize(tensor([0.0, 0.0]))), [0.0, 0.0])
        with pytest.raises(ValueError, match="order"):
            ops.normalize(tensor([1.0]), order=0)
        with pytest.raises(TypeError, match="order"):
            ops.normalize(tensor([1.0]), order=1.5)


def test_psnr(backend):
    with polyops.use_backend(backend):
        out = ops.psnr(ops.zeros((4,)), ops.full((4,), 0.1), 1.0)
        assert ops.shape(out) == ()
        np.testing.assert_allclose(to_numpy(out), 20.0, rtol=1e-5)
        with pytest.raises(ValueError, match="psnr"):
            ops.psnr(ops.zeros((4,)), ops.zeros((3,)), 1.0)


def test_attention_mask_and_gqa(backend):
    rng = np.random.default_rng(0)
    q = rng.normal(size=(1, 2, 4, 3)).astype(np.float32)
    k = rng.normal(size=(1, 3, 2, 3)).astype(np.float32)
    v = rng.normal(size=(1, 3, 2, 3)).astype(np.float32)
    mask = np.array([[True, False, True], [False, False, True]])
    want = np.zeros((1, 2, 4, 3))
    for n in range(4):
        logits = q[0, :, n] @ k[0, :, n // 2].T / np.sqrt(3)
        logits = np.where(mask, logits, -np.inf)
        p = np.exp(logits - logits.max(-1, keepdims=True))
        want[0, :, n] = (p / p.sum(-1, keepdims=True)) @ v[0, :, n // 2]
    with polyops.use_backend(backend):
        got = to_numpy(ops.dot_product_attention(tensor(q), tensor(k), tensor(v), mask=tensor(mask, "bool")))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_attention_errors_and_symbolic():
    out = ops.dot_product_attention(SymbolicTensor((None, None, 4, 8), "float16"),
                                    SymbolicTensor((None, None, 2, 8), "float16"),
                                    SymbolicTensor((None, None, 2, 8), "float16"))
    assert out.shape == (None, None, 4, 8) and out.dtype == "float16"
    with pytest.raises(ValueError, match="multiple"):
        ops.dot_product_attention(SymbolicTensor((1, 2, 3, 8)), SymbolicTensor((1, 2, 2, 8)),
                                  SymbolicTensor((1, 2, 2, 8)))
    with pytest.raises(ValueError, match="4-d"):
        ops.dot_product_attention(SymbolicTensor((2, 3, 8)), SymbolicTensor((2, 3, 8)), SymbolicTensor((2, 3, 8)))


def test_rms_and_layer_normalization(backend):
    with polyops.use_backend(backend):
        out = ops.layer_normalization(ops.arange(5, dtype="float32"))
        np.testing.assert_allclose(to_numpy(out), [-1.4142135, -0.70710677, 0.0, 0.7071067, 1.4142135], rtol=1e-5, atol=1e-6)
        out = ops.rms_normalization(tensor([3.0, 4.0]), scale=tensor([1.0, 2.0]))
        r = np.sqrt(12.5 + 1e-7)
        np.testing.assert_allclose(to_numpy(out), [3 / r, 8 / r], rtol=1e-6)
        x = tensor(np.ones((2, 3), np.float16), "float16")
        assert ops.dtype(ops.layer_normalization(x)) == "float16"
    with pytest.raises(ValueError, match="layer_normalization"):
        ops.layer_normalization(SymbolicTensor((2, 3)), gamma=SymbolicTensor((4,)))


def test_polar(backend):
    with polyops.use_backend(backend):
        if backend == "openvino":
            with pytest.raises(TypeError, match="complex"):
                ops.polar(ops.ones((2,)), ops.zeros((2,)))
            return
        out = ops.polar(tensor([2.0, 1.0]), tensor([0.0, np.pi / 2]))
        assert ops.dtype(out) == "complex64"
        np.testing.assert_allclose(to_numpy(out), [2 + 0j, 1j], atol=1e-6)
    assert ops.polar(SymbolicTensor((None, 3)), SymbolicTensor((3,))).dtype == "complex64"
