"""Targeted tests of `polyops.ops.numpy.indexing` that the op table cannot express."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy


def test_take_along_axis_sorts_with_argsort_and_negative_indices(backend):
    x = np.array([[3.0, np.nan, -1.0], [0.0, -0.0, np.inf]], np.float32)
    with polyops.use_backend(backend):
        t = ops.convert_to_tensor(x)
        got = to_numpy(ops.take_along_axis(t, ops.argsort(t, axis=1), axis=1))
        neg = to_numpy(ops.take_along_axis(t, ops.convert_to_tensor(np.array([[-1], [-3]], np.int32)), axis=-1))
    np.testing.assert_array_equal(got, np.sort(x, axis=1))
    np.testing.assert_array_equal(neg, [[-1.0], [0.0]])


def test_take_along_axis_errors(backend):
    with polyops.use_backend(backend):
        x = ops.zeros((2, 3))
        with pytest.raises(ValueError, match="take_along_axis.*same rank"):
            ops.take_along_axis(x, ops.zeros((2,), "int32"), axis=1)
        with pytest.raises(ValueError, match="take_along_axis.*1-D"):
            ops.take_along_axis(x, ops.zeros((2, 1), "int32"))
        with pytest.raises(ValueError, match="axis=2"):
            ops.take_along_axis(x, ops.zeros((2, 1), "int32"), axis=2)
        with pytest.raises(TypeError, match="take_along_axis.*integer"):
            ops.take_along_axis(x, ops.zeros((2, 1)), axis=1)


def test_array_and_copy_make_new_tensors(backend):
    with polyops.use_backend(backend):
        x = ops.arange(3)
        for y in (ops.copy(x), ops.array(x)):
            assert y is not x
            assert ops.dtype(y) == "int32"
            np.testing.assert_array_equal(to_numpy(y), [0, 1, 2])
        assert ops.dtype(ops.array([1.5, 2])) == "float32"
        assert ops.dtype(ops.array(np.arange(3, dtype=np.int64))) == "int32"
        assert ops.dtype(ops.array([True], dtype="int8")) == "int8"


def test_empty_is_deterministic_zeros(backend):
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.empty((2, 2), "int8")), np.zeros((2, 2), np.int8))
        y = ops.empty_like(ops.ones((3,), "bool"))
        assert ops.dtype(y) == "bool" and not to_numpy(y).any()


def test_creation_errors():
    with pytest.raises(ValueError, match="identity.*n=-1"):
        ops.identity(-1)
    with pytest.raises(TypeError, match="tri.*N=2.5"):
        ops.tri(2.5)
    with pytest.raises(TypeError, match="empty.*'float128'"):
        ops.empty((2,), "float128")


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_zero_nan_and_need_rank_2(backend, name):
    x = np.full((2, 2), np.nan, np.float32)
    with polyops.use_backend(backend):
        got = to_numpy(getattr(ops, name)(x))
        with pytest.raises(ValueError, match=f"{name}.*rank >= 2"):
            getattr(ops, name)(ops.ones((3,)))
    np.testing.assert_array_equal(got, getattr(np, name)(x))


def test_diagonal_errors_and_none_dims():
    with pytest.raises(ValueError, match="diagonal.*axis1=1, axis2=-1"):
        ops.diagonal(ops.ones((2, 2)), axis1=1, axis2=-1)
    with pytest.raises(ValueError, match="trace.*rank >= 2"):
        ops.trace(ops.ones((2,)))
    with pytest.raises(ValueError, match="diag.*1-D or 2-D"):
        ops.diag(ops.ones((2, 2, 2)))
    s = ops.diagonal(SymbolicTensor((None, 3, 4)), 1, 1, 2)
    assert s.shape == (None, 3)
    assert ops.diagonal(SymbolicTensor((None, 3)), 0).shape == (None,)
    assert ops.trace(SymbolicTensor((3, 3, None), "int8")).dtype == "int32"


def test_trace_integer_overflow_wraps_like_int32(backend):
    x = np.diag(np.array([2**31 - 1, 1], np.int32))
    with polyops.use_backend(backend):
        got = to_numpy(ops.trace(x))
    assert got == np.int32(-2**31)


def test_vander_wraps_and_bool(backend):
    x = np.array([3, -2], np.int8)
    with polyops.use_backend(backend):
        got = to_numpy(ops.vander(x, 7))
        b = ops.vander(np.array([True, False]), 3)
        bv = to_numpy(b)
        nan = to_numpy(ops.vander(np.array([np.nan], np.float32), 2))
    np.testing.assert_array_equal(got, np.vander(x, 7).astype(np.int8))
    assert ops.dtype(b) == "int32"
    np.testing.assert_array_equal(bv, [[1, 1, 1], [0, 0, 1]])
    np.testing.assert_array_equal(nan, [[np.nan, 1.0]])


def test_geomspace_and_logspace(backend):
    with polyops.use_backend(backend):
        g = to_numpy(ops.geomspace(-1.0, -1000.0, 4))
        mixed = to_numpy(ops.geomspace(-1.0, 1.0, 3))
        lg = to_numpy(ops.logspace(np.array([0.0, 1.0], np.float32), 2.0, 3, axis=1, base=2))
        as_int = ops.geomspace(1, 8, 4, dtype="int32")
    np.testing.assert_allclose(g, [-1, -10, -100, -1000], rtol=2e-6)
    np.testing.assert_array_equal(mixed[[0, 2]], [-1.0, 1.0])
    assert np.isnan(mixed[1])
    np.testing.assert_allclose(lg, np.logspace([0.0, 1.0], 2.0, 3, axis=1, base=2), rtol=2e-6)
    assert ops.dtype(as_int) == "int32"
    with pytest.raises(ValueError, match="geomspace.*num=-1"):
        ops.geomspace(1.0, 2.0, -1)
    with pytest.raises(TypeError, match="logspace.*base="):
        ops.logspace(0.0, 1.0, 3, base="2")


def test_meshgrid(backend):
    a, b = np.arange(3, dtype=np.int8), np.array([1.5, 2.5], np.float32)
    with polyops.use_backend(backend):
        gx, gy = ops.meshgrid(a, b)
        ij = ops.meshgrid(a, b, indexing="ij")
        assert isinstance(ij, list)
        assert (ops.dtype(gx), ops.dtype(gy)) == ("int8", "float32")
        want = np.meshgrid(a, b)
        np.testing.assert_array_equal(to_numpy(gx), want[0])
        np.testing.assert_array_equal(to_numpy(gy), want[1])
        np.testing.assert_array_equal(to_numpy(ij[1]), np.meshgrid(a, b, indexing="ij")[1])
    with pytest.raises(ValueError, match="meshgrid.*indexing='yx'"):
        ops.meshgrid(a, indexing="yx")
    specs = ops.meshgrid(SymbolicTensor((None,)), SymbolicTensor((2, 2)))
    assert [s.shape for s in specs] == [(4, None), (4, None)]


def test_ndim_and_size():
    assert ops.ndim(ops.zeros((2, 3))) == 2 and ops.ndim(1.0) == 0
    assert ops.size(ops.zeros((2, 3))) == 6 and ops.size([1, 2, 3]) == 3
    assert ops.size(SymbolicTensor((None, 3))) is None
    assert isinstance(ops.size(ops.zeros((2,))), int)


def test_unravel_index(backend):
    with polyops.use_backend(backend):
        r, c = ops.unravel_index(np.array([5, 7], np.int32), (3, 3))
        (z,) = ops.unravel_index(3, (4,))
        assert ops.dtype(r) == "int32"
        np.testing.assert_array_equal(to_numpy(r), [1, 2])
        np.testing.assert_array_equal(to_numpy(c), [2, 1])
        assert int(to_numpy(z)) == 3
        with pytest.raises(TypeError, match="unravel_index.*integer"):
            ops.unravel_index(np.array([1.0], np.float32), (3,))
        with pytest.raises(ValueError, match="unravel_index.*size 0"):
            ops.unravel_index(np.array([0], np.int32), (2, 0))


def test_select(backend):
    x = np.arange(6, dtype=np.int32)
    with polyops.use_backend(backend):
        got = ops.select([x < 3, x > 3], [x, x * x], 42)
        assert ops.dtype(got) == "int32"
        np.testing.assert_array_equal(to_numpy(got), [0, 1, 2, 42, 16, 25])
        assert ops.dtype(ops.select([x < 3], [x.astype(np.int8)], 1.5)) == "float32"
        with pytest.raises(ValueError, match="select.*equal length"):
            ops.select([x < 3, x > 1], [x])
        with pytest.raises(ValueError, match="select.*non-empty"):
            ops.select([], [])


PAD_MODES = ["constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean",
             "median", "linear_ramp"]


@pytest.mark.parametrize("mode", PAD_MODES)
def test_pad_large_widths_and_nan(backend, mode):
    """Widths larger than the axis (NumPy repeats reflections), NaN in the statistics."""
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -6.0]], np.float32)
    width = ((3, 1), (4, 5))
    with polyops.use_backend(backend):
        got = to_numpy(ops.pad(x, width, mode=mode))
    np.testing.assert_allclose(got, np.pad(x, width, mode=mode), rtol=2e-6, equal_nan=True)


def test_pad_int_statistics_round_half_even(backend):
    x = np.array([1, 2, 4, 3], np.int32)  # median 2.5 -> 2, mean 2.5 -> 2
    y = np.array([-7], np.int32)  # linear_ramp floors: -7/3 -> -3
    with polyops.use_backend(backend):
        for mode in ("mean", "median"):
            np.testing.assert_array_equal(to_numpy(ops.pad(x, 1, mode=mode)), np.pad(x, 1, mode=mode))
        np.testing.assert_array_equal(to_numpy(ops.pad(y, 3, mode="linear_ramp")),
                                      np.pad(y, 3, mode="linear_ramp"))


def test_pad_errors():
    x = ops.zeros((2, 3))
    with pytest.raises(ValueError, match="pad.*mode='bogus'"):
        ops.pad(x, 1, mode="bogus")
    with pytest.raises(ValueError, match="pad.*constant_values.*mode='edge'"):
        ops.pad(x, 1, mode="edge", constant_values=1)
    with pytest.raises(ValueError, match="pad.*non-negative"):
        ops.pad(x, -1)
    with pytest.raises(TypeError, match="pad.*integer pad widths"):
        ops.pad(x, 1.5)
    with pytest.raises(ValueError, match="pad.*broadcastable"):
        ops.pad(x, ((1, 2), (3, 4), (5, 6)))
    with pytest.raises(ValueError, match="pad.*empty axis 0.*'reflect'"):
        ops.pad(ops.zeros((0, 2)), 1, mode="reflect")
    with pytest.raises(ValueError, match="pad.*constant_values=-1.*uint8"):
        ops.pad(ops.zeros((2,), "uint8"), 1, constant_values=-1)
    assert ops.pad(SymbolicTensor((None, 3)), ((1, 1), (0, 2))).shape == (None, 5)


def test_pad_circular_is_wrap_and_empty_is_zeros(backend):
    x = np.arange(1, 4, dtype=np.int32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.pad(x, 2, mode="circular")), np.pad(x, 2, mode="wrap"))
        np.testing.assert_array_equal(to_numpy(ops.pad(x, 1, mode="empty")), [0, 1, 2, 3, 0])
        np.testing.assert_array_equal(to_numpy(ops.pad(x, 1, constant_values=2.7)), [2, 1, 2, 3, 2])
