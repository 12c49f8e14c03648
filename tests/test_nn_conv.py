"""Targeted tests of `polyops.ops.nn.conv`: options, shapes, padding rules, errors."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy


def test_conv_same_ones(backend):
    with polyops.use_backend(backend):
        y = to_numpy(ops.conv(tensor(np.ones((1, 5, 5, 2))), tensor(np.ones((3, 3, 2, 4))), padding="same"))
    assert y.shape == (1, 5, 5, 4)
    assert y[0, 2, 2, 0] == 18 and y[0, 0, 0, 0] == 8 and y[0, 0, 2, 1] == 12


def test_conv_same_asymmetric_pad_goes_right(backend):
    # n=4, k=2, s=1: total pad 1, all on the right (TF); PyTorch's "same" would differ.
    x = np.arange(4, dtype=np.float32).reshape(1, 4, 1)
    k = np.array([1.0, 10.0], np.float32).reshape(2, 1, 1)
    with polyops.use_backend(backend):
        y = to_numpy(ops.conv(tensor(x), tensor(k), padding="same"))
    np.testing.assert_allclose(y[0, :, 0], [10, 21, 32, 3])


def test_conv_strided_same_shape_and_channels_first(backend):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 7, 6, 3)).astype(np.float32)
    k = rng.normal(size=(3, 2, 3, 4)).astype(np.float32)
    with polyops.use_backend(backend):
        a = to_numpy(ops.conv(tensor(x), tensor(k), strides=2, padding="SAME", data_format="channels_last"))
        b = to_numpy(ops.conv(tensor(np.moveaxis(x, -1, 1)), tensor(k), strides=(2, 2), padding="same",
                         data_format="channels_first"))
    assert a.shape == (2, 4, 3, 4)
    np.testing.assert_allclose(np.moveaxis(b, 1, -1), a, rtol=1e-5, atol=1e-5)


def test_data_format_none_follows_config(backend):
    old = polyops.config.image_data_format()
    try:
        polyops.config.set_image_data_format("channels_first")
        with polyops.use_backend(backend):
            y = ops.max_pool(tensor(np.ones((1, 3, 4, 4))), 2)
            assert tuple(ops.shape(y)) == (1, 3, 2, 2)
            s = ops.conv(SymbolicTensor((None, 3, 8, 8), "float32"), SymbolicTensor((3, 3, 3, 5), "float32"))
            assert s.shape == (None, 5, 6, 6)
    finally:
        polyops.config.set_image_data_format(old)


def test_grouped_conv_matches_split(backend):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(1, 5, 4)).astype(np.float32)
    k = rng.normal(size=(3, 2, 6)).astype(np.float32)
    with polyops.use_backend(backend):
        y = to_numpy(ops.conv(tensor(x), tensor(k)))
        a = to_numpy(ops.conv(tensor(x[..., :2]), tensor(k[..., :3])))
        b = to_numpy(ops.conv(tensor(x[..., 2:]), tensor(k[..., 3:])))
    np.testing.assert_allclose(y, np.concatenate([a, b], -1), rtol=1e-5, atol=1e-5)


def test_depthwise_equals_grouped_conv(backend):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 5, 5, 3)).astype(np.float32)
    k = rng.normal(size=(2, 2, 3, 2)).astype(np.float32)
    with polyops.use_backend(backend):
        a = to_numpy(ops.depthwise_conv(tensor(x), tensor(k), padding="same"))
        b = to_numpy(ops.conv(tensor(x), tensor(k.reshape(2, 2, 1, 6)), padding="same"))
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding,output_padding,want", [
    ("valid", None, 7), ("same", None, 6), ("valid", 1, 8), ("same", 1, 6), ("same", 0, 5)])
def test_conv_transpose_shapes(backend, padding, output_padding, want):
    # n=3, k=3, s=2.  valid: (n-1)*s + k + op, op defaulting to max(k, s) - k = 0;
    # same: n*s without op, else (n-1)*s + k % 2 + op.
    with polyops.use_backend(backend):
        y = ops.conv_transpose(tensor(np.ones((1, 3, 3, 1))), tensor(np.ones((3, 3, 2, 1))), strides=2,
                               padding=padding, output_padding=output_padding)
        assert tuple(ops.shape(y)) == (1, want, want, 2)
    s = ops.conv_transpose(SymbolicTensor((1, 3, 3, 1), "float32"), SymbolicTensor((3, 3, 2, 1), "float32"),
                           strides=2, padding=padding, output_padding=output_padding)
    assert s.shape == (1, want, want, 2)


def test_conv_transpose_is_conv_gradient_shape(backend):
    # ones through a transpose conv: each output counts the input pixels it touches
    with polyops.use_backend(backend):
        y = to_numpy(ops.conv_transpose(tensor(np.ones((1, 2, 1))), tensor(np.ones((2, 1, 1))), strides=2))
    np.testing.assert_allclose(y[0, :, 0], [1, 1, 1, 1])


def test_max_pool_same_pads_with_minus_inf(backend):
    x = -np.arange(1, 6, dtype=np.float32).reshape(1, 5, 1)
    with polyops.use_backend(backend):
        y = to_numpy(ops.max_pool(tensor(x), 2, padding="same"))
    np.testing.assert_allclose(y[0, :, 0], [-1, -3, -5])


def test_average_pool_same_excludes_padding(backend):
    with polyops.use_backend(backend):
        y = to_numpy(ops.average_pool(tensor(np.ones((1, 5, 4, 2))), (3, 2), strides=(2, 1), padding="same"))
    assert y.shape == (1, 3, 4, 2)
    np.testing.assert_allclose(y, 1.0)


def test_adaptive_pool_bins(backend):
    x = np.arange(5, dtype=np.float32).reshape(1, 5, 1)
    with polyops.use_backend(backend):
        mx = to_numpy(ops.adaptive_max_pool(tensor(x), 3))
        av = to_numpy(ops.adaptive_average_pool(tensor(x), 3))
    # bins [0, 2), [1, 4), [3, 5)
    np.testing.assert_allclose(mx[0, :, 0], [1, 3, 4])
    np.testing.assert_allclose(av[0, :, 0], [0.5, 2, 3.5])


def test_unfold_fold_round_trip(backend):
    x = np.arange(2 * 4 * 6, dtype=np.float32).reshape(1, 2, 4, 6)
    with polyops.use_backend(backend):
        p = ops.unfold(tensor(x), 2, stride=2)
        assert tuple(ops.shape(p)) == (1, 8, 6)
        np.testing.assert_allclose(to_numpy(ops.fold(p, (4, 6), 2, stride=2)), x)
        # overlapping blocks sum: fold(unfold(ones)) counts the blocks covering each pixel
        c = to_numpy(ops.fold(ops.unfold(tensor(np.ones((1, 1, 3, 3))), 2), 3, 2))
    np.testing.assert_allclose(c[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_depth_space_round_trip(backend):
    x = np.arange(64, dtype=np.int32).reshape(2, 4, 2, 4)
    with polyops.use_backend(backend):
        for fmt in ("channels_last", "channels_first"):
            y = ops.space_to_depth(ops.depth_to_space(tensor(x, "int32"), 2, fmt), 2, fmt)
            assert ops.dtype(y) == "int32"
            np.testing.assert_array_equal(to_numpy(y), x)
        y = to_numpy(ops.depth_to_space(tensor(np.arange(4).reshape(1, 1, 1, 4), "int32"), 2))
    np.testing.assert_array_equal(y[0, :, :, 0], [[0, 1], [2, 3]])


def test_int_inputs_promote_to_float(backend):
    with polyops.use_backend(backend):
        y = ops.conv(tensor(np.ones((1, 3, 1)), "int32"), tensor(np.ones((2, 1, 1)), "int32"))
        assert ops.dtype(y) == "float32"
        assert ops.dtype(ops.max_pool(tensor(np.ones((1, 4, 1)), "int8"), 2)) == "float32"


def test_symbolic_none_dims():
    x = SymbolicTensor((None, None, 7, 3), "float16")
    k = SymbolicTensor((3, 3, 3, 8), "float16")
    y = ops.conv(x, k, strides=2)
    assert y.shape == (None, None, 3, 8) and y.dtype == "float16"
    assert ops.conv_transpose(x, SymbolicTensor((3, 3, 4, 3), "float32"), 2, "same").shape == (None, None, 14, 4)
    assert ops.max_pool(x, 2, padding="same").shape == (None, None, 4, 3)
    assert ops.adaptive_average_pool(x, (2, 5)).shape == (None, 2, 5, 3)
    assert ops.unfold(SymbolicTensor((None, 3, None, 6), "float32"), 2).shape == (None, 12, None)
    assert ops.depth_to_space(SymbolicTensor((None, 2, None, 12), "bool"), 2).shape == (None, 4, None, 3)


@pytest.mark.parametrize("call,match", [
    (lambda o, x, k, m: o.conv(x, k, padding="full"), "conv: padding"),
    (lambda o, x, k, m: o.conv(x, k, strides=0), "conv: strides"),
    (lambda o, x, k, m: o.conv(x, k, data_format="NHWC"), "conv: data_format"),
    (lambda o, x, k, m: o.conv(x, m((3, 3, 3, 2))), "conv: the inputs' channels"),
    (lambda o, x, k, m: o.conv(x, m((3, 3, 4, 2))), "conv: the inputs' channels"),
    (lambda o, x, k, m: o.conv(x, m((3, 4, 2))), "conv: expected a kernel of rank"),
    (lambda o, x, k, m: o.conv(x, m((9, 3, 2, 2))), "conv: the window"),
    (lambda o, x, k, m: o.conv(m((2, 3)), k), "conv: expected inputs of rank"),
    (lambda o, x, k, m: o.max_pool(x, 9), "max_pool: the window"),
    (lambda o, x, k, m: o.average_pool(x, (2, 2, 2)), "average_pool: expected 2 values"),
    (lambda o, x, k, m: o.depthwise_conv(x, m((2, 2, 3, 1))), "depthwise_conv"),
    (lambda o, x, k, m: o.conv_transpose(x, m((2, 2, 1, 3))), "conv_transpose"),
    (lambda o, x, k, m: o.conv_transpose(x, m((2, 2, 1, 2)), 2, output_padding=2), "output_padding"),
    (lambda o, x, k, m: o.depth_to_space(x, 1), "block_size"),
    (lambda o, x, k, m: o.depth_to_space(x, 2), "depth_to_space: the channels"),
    (lambda o, x, k, m: o.space_to_depth(x, 3), "space_to_depth: the height"),
    (lambda o, x, k, m: o.fold(m((1, 8, 5)), (4, 4), 2, stride=2), "fold: the last dim"),
    (lambda o, x, k, m: o.unfold(m((1, 2, 4)), 2), "unfold: expected x of rank 4"),
    (lambda o, x, k, m: o.conv(m((1, 0, 5, 2)), k, padding="same"), "conv: expected non-empty"),
    (lambda o, x, k, m: o.max_pool(m((1, 5, 0, 2)), 2, padding="same"), "max_pool: expected non-empty"),
])
def test_errors(backend, call, match):
    with polyops.use_backend(backend):
        x, k = ops.ones((1, 4, 6, 2)), ops.ones((2, 2, 2, 3))
        with pytest.raises(ValueError, match=match):
            call(ops, x, k, ops.ones)
    sx, sk = SymbolicTensor((1, 4, 6, 2), "float32"), SymbolicTensor((2, 2, 2, 3), "float32")
    with pytest.raises(ValueError, match=match):
        call(ops, sx, sk, lambda shape: SymbolicTensor(shape, "float32"))


def test_zero_batch(backend):
    with polyops.use_backend(backend):
        x = tensor(np.zeros((0, 5, 5, 2)))
        assert tuple(ops.shape(ops.conv(x, tensor(np.ones((3, 3, 2, 4))), padding="same"))) == (0, 5, 5, 4)
        assert tuple(ops.shape(ops.conv_transpose(x, tensor(np.ones((3, 3, 4, 2))), 2))) == (0, 11, 11, 4)
        assert tuple(ops.shape(ops.max_pool(x, 2))) == (0, 2, 2, 2)
        assert tuple(ops.shape(ops.average_pool(x, 2, padding="same"))) == (0, 3, 3, 2)


def test_conv_under_jit_and_tf_function(backend):
    x = np.random.default_rng(3).normal(size=(1, 6, 6, 2)).astype(np.float32)
    k = np.random.default_rng(4).normal(size=(3, 3, 2, 3)).astype(np.float32)
    with polyops.use_backend(backend):
        want = to_numpy(ops.conv(tensor(x), tensor(k), strides=2, padding="same"))
        if backend == "jax":
            import jax
            got = np.asarray(jax.jit(lambda a, b: ops.conv(a, b, strides=2, padding="same"))(x, k))
        elif backend == "tensorflow":
            import tensorflow as tf
            got = tf.function(lambda a, b: ops.conv(a, b, strides=2, padding="same"))(
                tf.constant(x), tf.constant(k)).numpy()
        else:
            pytest.skip("no tracer")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
