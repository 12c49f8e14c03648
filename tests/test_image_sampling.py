"""Targeted tests of `polyops.ops.image.sampling`: options, errors, symbolic calls."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops.ops import image as I

from conftest import to_numpy


def test_resize_identity_and_nearest(backend):
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(I.resize(x, (2, 4))), x)
        got = to_numpy(I.resize(x, (4, 4), interpolation="nearest"))
    np.testing.assert_array_equal(got, x[[0, 0, 1, 1]])


def test_resize_keeps_uint8_and_saturates(backend):
    x = np.full((2, 2, 1), 255, np.uint8)
    with polyops.use_backend(backend):
        y = I.resize(x, (5, 5), interpolation="bicubic")
        assert ops.dtype(y) == "uint8"
        np.testing.assert_array_equal(to_numpy(y), 255)


def test_scale_and_translate_keras_example(backend):
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    s = np.array([2.0, 2.0], np.float32)
    with polyops.use_backend(backend):
        y = to_numpy(I.scale_and_translate(x, (5, 5), s, -(s / 2 - 0.5), (0, 1), "linear"))
    np.testing.assert_allclose(y[0], [0.0, 0.5, 1.0, 1.5, 2.0], atol=1e-6)
    np.testing.assert_allclose(y[:, 0], [0.0, 1.5, 3.0, 4.5, 6.0], atol=1e-6)


def test_scale_and_translate_int_gives_floatx():
    x = SymbolicTensor((3, 3), "int32")
    s = SymbolicTensor((2,), "float32")
    assert I.scale_and_translate(x, (4, 4), s, s, (0, 1), "cubic").dtype == "float32"


def test_affine_translation_and_fill(backend):
    x = np.ones((3, 4, 1), np.float32)
    t = np.array([1, 0, 1, 0, 1, 0, 0, 0], np.float32)  # x_in = x + 1
    with polyops.use_backend(backend):
        y = to_numpy(I.affine_transform(x, t, interpolation="nearest", fill_value=7.0))
    np.testing.assert_array_equal(y[:, :3, 0], 1.0)
    np.testing.assert_array_equal(y[:, 3, 0], 7.0)


def test_perspective_identity(backend):
    x = np.random.default_rng(0).normal(size=(2, 4, 5, 2)).astype(np.float32)
    p = np.array([[0, 0], [4, 0], [4, 3], [0, 3]], np.float32)
    with polyops.use_backend(backend):
        y = to_numpy(I.perspective_transform(x, np.stack([p, p]), np.stack([p, p])))
    np.testing.assert_allclose(y, x, atol=1e-5)


def test_map_coordinates_example_and_nonfinite(backend):
    x = np.array([0.0, 10.0, 20.0], np.float32)
    c = np.array([[0.5, 1.25, np.nan, np.inf]], np.float32)
    with polyops.use_backend(backend):
        y = to_numpy(I.map_coordinates(x, c, 1, fill_mode="nearest", fill_value=-1.0))
    np.testing.assert_allclose(y, [5.0, 12.5, -1.0, -1.0])


def test_elastic_reproducible_and_alpha_zero(backend):
    x = np.random.default_rng(1).uniform(size=(5, 6, 2)).astype(np.float32)
    with polyops.use_backend(backend):
        a = to_numpy(I.elastic_transform(x, alpha=3.0, sigma=1.0, seed=4))
        b = to_numpy(I.elastic_transform(x, alpha=3.0, sigma=1.0, seed=4))
        c = to_numpy(I.elastic_transform(x, alpha=0.0, sigma=1.0, seed=4))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(c, x, atol=1e-6)
    assert not np.allclose(a, x)


@pytest.mark.parametrize("call, exc, match", [
    (lambda x: I.resize(x, (0, 2)), ValueError, "resize.*size"),
    (lambda x: I.resize(x, (2, 2), interpolation="area"), ValueError, "resize.*interpolation"),
    (lambda x: I.resize(x, (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
     ValueError, "resize"),
    (lambda x: I.resize(x[0], (2, 2)), ValueError, r"resize.*\(4, 5\)"),
    (lambda x: I.resize(x, (2, 2), data_format="nhwc"), ValueError, "resize.*nhwc"),
    (lambda x: I.resize(x if isinstance(x, SymbolicTensor) else x.astype(bool), (2, 2)),
     TypeError, "resize.*bool"),
    (lambda x: I.affine_transform(x, np.zeros((3, 8), np.float32)), ValueError, "affine_transform"),
    (lambda x: I.affine_transform(x, np.zeros((7,), np.float32)), ValueError, "affine_transform"),
    (lambda x: I.affine_transform(x, np.zeros((8,), np.float32), fill_mode="edge"), ValueError,
     "affine_transform.*edge"),
    (lambda x: I.perspective_transform(x, np.zeros((4, 2)), np.zeros((3, 2))), ValueError,
     "perspective_transform"),
    (lambda x: I.map_coordinates(x, np.zeros((2, 3)), 1), ValueError, "map_coordinates"),
    (lambda x: I.map_coordinates(x, np.zeros((3, 3)), 3), ValueError, "map_coordinates.*order"),
    (lambda x: I.elastic_transform(x, sigma=0.0), ValueError, "elastic_transform.*sigma"),
    (lambda x: I.elastic_transform(x, seed="a"), TypeError, "elastic_transform.*seed"),
    (lambda x: I.scale_and_translate(x, (3, 4, 5), np.ones(1), np.ones(1), (0,), "nearest"),
     ValueError, "scale_and_translate.*method"),
    (lambda x: I.scale_and_translate(x, (3, 9, 5), np.ones(1), np.ones(1), (0,), "linear"),
     ValueError, "scale_and_translate"),
])
def test_bad_input(call, exc, match, backend):
    x = np.ones((3, 4, 5), np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(exc, match=match):
            call(x)
    with pytest.raises(exc, match=match):  # symbolic calls raise the same
        call(SymbolicTensor(x.shape, "bool" if "bool" in match else "float32"))


def test_symbolic_none_dims():
    x = SymbolicTensor((None, None, None, 3), "float16")
    assert I.resize(x, (5, 6)).shape == (None, 5, 6, 3)
    assert I.resize(x, (5, 6)).dtype == "float16"
    y = SymbolicTensor((None, 3, None, None), "uint8")
    assert I.resize(y, (2, 2), data_format="channels_first").shape == (None, 3, 2, 2)
    assert I.affine_transform(x, SymbolicTensor((None, 8), "float32")).shape == x.shape
    c = SymbolicTensor((2, None, 4), "float32")
    out = I.map_coordinates(SymbolicTensor((None, None), "int16"), c, 0)
    assert out.shape == (None, 4) and out.dtype == "int16"
    assert I.elastic_transform(x, seed=1).shape == x.shape
