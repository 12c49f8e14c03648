"""Targeted tests of `polyops.ops.image.basic`: options, inverses, data formats, errors, specs."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops.ops import image

from conftest import tensor, to_numpy


RNG = np.random.default_rng(7)
IMG = RNG.uniform(0, 1, (2, 6, 8, 3)).astype(np.float32)


# -- color ------------------------------------------------------------------------------


def test_hsv_round_trip_and_colorsys(backend):
    with polyops.use_backend(backend):
        hsv = image.rgb_to_hsv(tensor(IMG))
        np.testing.assert_allclose(to_numpy(image.hsv_to_rgb(hsv)), IMG, atol=1e-5)
        want = np.array([colorsys.rgb_to_hsv(*p) for p in IMG.reshape(-1, 3)]).reshape(IMG.shape)
        np.testing.assert_allclose(to_numpy(hsv), want, atol=1e-5)
        # hue wraps modulo 1
        np.testing.assert_allclose(to_numpy(image.hsv_to_rgb(tensor([[[1.25, 1.0, 1.0]]]))),
                                   [[colorsys.hsv_to_rgb(0.25, 1.0, 1.0)]], atol=1e-6)


def test_grayscale_dtypes_and_formats(backend):
    with polyops.use_backend(backend):
        u8 = (IMG * 255).astype(np.uint8)
        g = image.rgb_to_grayscale(u8)
        assert ops.dtype(g) == "uint8" and tuple(g.shape) == (2, 6, 8, 1)
        cf = image.rgb_to_grayscale(np.moveaxis(IMG, -1, 1), data_format="channels_first")
        np.testing.assert_allclose(to_numpy(cf)[:, 0], to_numpy(image.rgb_to_grayscale(IMG))[..., 0], rtol=1e-6)
        one = IMG[..., :1]
        np.testing.assert_array_equal(to_numpy(image.rgb_to_grayscale(one)), one)


def test_default_data_format_follows_config(backend):
    x = np.moveaxis(IMG, -1, 1)  # channels first
    old = polyops.config.image_data_format()
    try:
        polyops.config.set_image_data_format("channels_first")
        with polyops.use_backend(backend):
            assert tuple(image.rgb_to_grayscale(x).shape) == (2, 1, 6, 8)
            assert tuple(image.pad_images(x, 1, 1, 1, 1).shape) == (2, 3, 8, 10)
    finally:
        polyops.config.set_image_data_format(old)


@pytest.mark.parametrize("name", ["rgb_to_hsv", "hsv_to_rgb"])
def test_hsv_rejects_ints(backend, name):
    with polyops.use_backend(backend):
        with pytest.raises(TypeError, match=name):
            getattr(image, name)(np.ones((2, 2, 3), np.uint8))
    with pytest.raises(TypeError, match=name):
        getattr(image, name)(SymbolicTensor((2, 2, 3), "int32"))


def test_color_channel_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="rgb_to_grayscale.*channels"):
            image.rgb_to_grayscale(np.ones((2, 2, 4), np.float32))
        with pytest.raises(ValueError, match="rgb_to_hsv.*3 channels"):
            image.rgb_to_hsv(np.ones((2, 2, 2), np.float32))
        with pytest.raises(ValueError, match="hsv_to_rgb.*rank"):
            image.hsv_to_rgb(np.ones((2, 3), np.float32))
        with pytest.raises(ValueError, match="data_format"):
            image.rgb_to_hsv(IMG, data_format="NHWC")
        with pytest.raises(TypeError, match="rgb_to_grayscale"):
            image.rgb_to_grayscale(np.ones((2, 2, 3), bool))


# -- pad / crop -------------------------------------------------------------------------


def test_pad_then_crop_is_identity(backend):
    with polyops.use_backend(backend):
        p = image.pad_images(IMG, 1, 2, target_height=9, target_width=11)
        assert tuple(p.shape) == (2, 9, 11, 3)
        assert float(to_numpy(p)[:, 0].sum()) == 0.0
        c = image.crop_images(p, 1, 2, target_height=6, target_width=8)
        np.testing.assert_array_equal(to_numpy(c), IMG)
        c2 = image.crop_images(p, top_cropping=1, bottom_cropping=2, left_cropping=2, right_cropping=1)
        np.testing.assert_array_equal(to_numpy(c2), IMG)


def test_pad_crop_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="pad_images.*exactly two"):
            image.pad_images(IMG, 1, 1)
        with pytest.raises(ValueError, match="pad_images.*exactly two"):
            image.pad_images(IMG, 1, 1, 1, 1, target_height=9)
        with pytest.raises(ValueError, match="pad_images.*top_padding"):
            image.pad_images(IMG, -1, 0, 0, 0)
        with pytest.raises(ValueError, match="pad_images.*bottom_padding=-1"):
            image.pad_images(IMG, 2, 0, target_height=7, right_padding=0)
        with pytest.raises(ValueError, match="crop_images.*does not fit"):
            image.crop_images(IMG, 3, 0, target_height=4, target_width=8)
        with pytest.raises(ValueError, match="crop_images.*rank"):
            image.crop_images(IMG[0, 0], 0, 0, 0, 0)
        with pytest.raises(TypeError, match="crop_images.*1.5"):
            image.crop_images(IMG, 1.5, 0, 0, 0)


def test_pad_crop_symbolic_unknown_dims():
    x = SymbolicTensor((None, None, 5, 3), "float32")
    assert image.pad_images(x, 1, 1, 1, 1).shape == (None, None, 7, 3)
    assert image.pad_images(x, 1, 1, target_height=8, target_width=9).shape == (None, 8, 9, 3)
    assert image.crop_images(x, 1, 1, target_height=2, target_width=3).shape == (None, 2, 3, 3)
    assert image.crop_images(x, 1, 1, 1, 1).shape == (None, None, 3, 3)
    with pytest.raises(ValueError, match="crop_images"):
        image.crop_images(x, 0, 4, target_height=1, target_width=2)


# -- patches ----------------------------------------------------------------------------


def test_patches_round_trip_and_keras_shapes(backend):
    with polyops.use_backend(backend):
        p = image.extract_patches(IMG, (2, 4))
        assert tuple(p.shape) == (2, 3, 2, 24)
        np.testing.assert_array_equal(to_numpy(image.reconstruct_patches(p, (2, 4))), IMG)
        # the first patch's features: positions row-major, channels innermost
        np.testing.assert_array_equal(to_numpy(p)[0, 0, 0], IMG[0, :2, :4].reshape(-1))
        x = np.zeros((20, 20, 3), np.float32)
        assert tuple(image.extract_patches(x, (3, 3), (1, 1)).shape) == (18, 18, 27)
        v = np.arange(2 * 4 * 4 * 4 * 2, dtype=np.float32).reshape(2, 4, 4, 4, 2)
        p3 = image.extract_patches_3d(v, 2)
        assert tuple(p3.shape) == (2, 2, 2, 2, 16)
        np.testing.assert_array_equal(to_numpy(image.extract_patches(v, (2, 2, 2))), to_numpy(p3))
        np.testing.assert_array_equal(to_numpy(image.reconstruct_patches(p3, (2, 2, 2))), v)
        cf = image.extract_patches(np.moveaxis(IMG, -1, 1), 2, data_format="channels_first")
        np.testing.assert_array_equal(np.moveaxis(to_numpy(cf), 1, -1), to_numpy(image.extract_patches(IMG, 2)))


def test_patches_same_padding_keeps_the_grid(backend):
    with polyops.use_backend(backend):
        p = image.extract_patches(IMG, 3, strides=1, padding="same")
        assert tuple(p.shape) == (2, 6, 8, 27)
        # the centre tap of each patch is the pixel itself
        np.testing.assert_array_equal(to_numpy(p)[..., 4 * 3:5 * 3], IMG)


def test_patches_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="extract_patches.*larger than"):
            image.extract_patches(IMG, 7)
        with pytest.raises(ValueError, match="extract_patches.*padding"):
            image.extract_patches(IMG, 2, padding="full")
        with pytest.raises(ValueError, match="extract_patches.*length 2 or 3"):
            image.extract_patches(IMG, (1, 2, 3, 4))
        with pytest.raises(ValueError, match="extract_patches.*strides"):
            image.extract_patches(IMG, 2, strides=(1, 2, 3))
        with pytest.raises(ValueError, match="extract_patches.*size must be >= 1"):
            image.extract_patches(IMG, 0)
        with pytest.raises(TypeError, match="extract_patches.*size"):
            image.extract_patches(IMG, "2")
        with pytest.raises(ValueError, match="extract_patches_3d.*rank"):
            image.extract_patches_3d(IMG[0], 2)
        with pytest.raises(ValueError, match="reconstruct_patches.*multiple"):
            image.reconstruct_patches(np.ones((2, 2, 5), np.float32), 2)


def test_patches_symbolic_unknown_dims():
    x = SymbolicTensor((None, None, 9, 3), "bfloat16")
    out = image.extract_patches(x, 2)
    assert out.shape == (None, None, 4, 12) and out.dtype == "bfloat16"
    assert image.extract_patches(x, 2, strides=1, padding="same").shape == (None, None, 9, 12)
    assert image.reconstruct_patches(out, 2).shape == (None, None, 8, 3)
    assert image.extract_patches_3d(SymbolicTensor((4, None, 5, 2)), 2).shape == (2, None, 2, 16)


# -- filters ----------------------------------------------------------------------------


def test_gaussian_blur_properties(backend):
    with polyops.use_backend(backend):
        const = np.ones((1, 7, 7, 1), np.float32)
        out = to_numpy(image.gaussian_blur(const, kernel_size=3))
        assert abs(out[0, 3, 3, 0] - 1.0) < 1e-6 and out[0, 0, 0, 0] < 1.0  # zero padding
        delta = np.zeros((9, 9, 1), np.float32)
        delta[4, 4] = 1
        k = to_numpy(image.gaussian_blur(delta, kernel_size=(3, 5), sigma=(1.0, 2.0)))[..., 0]
        assert k[2:7, 3:6].sum() == pytest.approx(1.0, abs=1e-6)  # 5 rows x 3 columns
        assert k[2, 4] > 0 and k[4, 3] > 0 and k[4, 2] == 0 and k[1, 4] == 0
        u8 = image.gaussian_blur((IMG * 255).astype(np.uint8))
        assert ops.dtype(u8) == "uint8"
        bf = image.gaussian_blur(IMG.astype("float16"))
        assert ops.dtype(bf) == "float16"


def test_gaussian_blur_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="gaussian_blur.*sigma"):
            image.gaussian_blur(IMG, sigma=(0.0, 1.0))
        with pytest.raises(ValueError, match="gaussian_blur.*kernel_size"):
            image.gaussian_blur(IMG, kernel_size=(3, 0))
        with pytest.raises(ValueError, match="gaussian_blur.*kernel_size"):
            image.gaussian_blur(IMG, kernel_size=(3, 3, 3))
        with pytest.raises(ValueError, match="gaussian_blur.*rank"):
            image.gaussian_blur(IMG[None])


def test_sobel_edges(backend):
    x = np.zeros((1, 6, 6, 1), np.float32)
    x[0, :, 3:] = 1.0  # vertical edge: dx > 0 there, dy == 0 away from the borders
    with polyops.use_backend(backend):
        e = to_numpy(image.sobel_edges(x))
        assert e.shape == (1, 6, 6, 1, 2)
        np.testing.assert_array_equal(e[0, 1:-1, :, 0, 0], 0)
        np.testing.assert_array_equal(e[0, 2, :, 0, 1], [0, 0, 4, 4, 0, -4])  # zero padding
        with pytest.raises(ValueError, match="sobel_edges.*rank"):
            image.sobel_edges(x[0])
        with pytest.raises(TypeError, match="sobel_edges"):
            image.sobel_edges(x.astype(np.int32))
    assert image.sobel_edges(SymbolicTensor((None, 3, None, None), "float16"),
                             data_format="channels_first").shape == (None, 3, None, None, 2)


# -- ssim -------------------------------------------------------------------------------


def test_ssim(backend):
    with polyops.use_backend(backend):
        same = to_numpy(image.ssim(IMG, IMG, filter_size=5))
        np.testing.assert_allclose(same, [1.0, 1.0], rtol=1e-5)
        assert tuple(image.ssim(IMG[0], IMG[1], filter_size=3).shape) == ()
        noisy = np.clip(IMG + RNG.normal(0, 0.2, IMG.shape), 0, 1).astype(np.float32)
        v = to_numpy(image.ssim(IMG, noisy, filter_size=5))
        assert np.all(v < 0.99) and np.all(v > -1)
        u8 = image.ssim((IMG * 255).astype(np.uint8), (noisy * 255).astype(np.uint8), 255.0, 5)
        assert ops.dtype(u8) == "float32"
        with pytest.raises(ValueError, match="ssim.*same shape"):
            image.ssim(IMG, IMG[:1])
        with pytest.raises(ValueError, match="ssim.*filter_size=11"):
            image.ssim(IMG, IMG)
        with pytest.raises(ValueError, match="ssim.*filter_sigma"):
            image.ssim(IMG, IMG, filter_size=3, filter_sigma=-1.0)


def test_ssim_symbolic():
    a = SymbolicTensor((None, 16, 16, 3), "float16")
    out = image.ssim(a, a)
    assert out.shape == (None,) and out.dtype == "float16"
    assert image.ssim(SymbolicTensor((None, None, 3)), SymbolicTensor((None, None, 3))).shape == ()
    with pytest.raises(ValueError, match="ssim"):
        image.ssim(SymbolicTensor((8, 8, 3)), SymbolicTensor((8, 8, 3)))


def test_jit_traces(backend):
    """References trace: jax.jit and tf.function run the composed ops."""
    if backend == "jax":
        import jax

        fn = jax.jit(lambda x: image.sobel_edges(image.gaussian_blur(x)))
        with polyops.use_backend("jax"):
            want = to_numpy(image.sobel_edges(image.gaussian_blur(IMG)))
            np.testing.assert_allclose(np.asarray(fn(IMG)), want, rtol=1e-5, atol=1e-6)
    elif backend == "tensorflow":
        import tensorflow as tf

        fn = tf.function(lambda x: image.extract_patches(image.rgb_to_hsv(x), 2))
        with polyops.use_backend("tensorflow"):
            want = to_numpy(image.extract_patches(image.rgb_to_hsv(IMG), 2))
            np.testing.assert_allclose(fn(tf.constant(IMG)).numpy(), want, rtol=1e-6)
    else:
        pytest.skip("tracing is checked on jax and tensorflow")
