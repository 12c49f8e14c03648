"""Targeted tests of `polyops.ops.numpy.statistics`: NaN rules, quantile arguments, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy

NAN, INF = np.nan, np.inf


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- NaN behaviour --------------------------------------------------------------------------


def test_all_nan_slices(backend):
    rows = np.array([[NAN, NAN, NAN], [1.0, NAN, 3.0]], np.float32)
    with polyops.use_backend(backend):
        x = tensor(rows)
        for name, want in (("nanmax", [NAN, 3.0]), ("nanmin", [NAN, 1.0]), ("nanmean", [NAN, 2.0]),
                           ("nanmedian", [NAN, 2.0]), ("nanvar", [NAN, 1.0]), ("nanstd", [NAN, 1.0]),
                           ("nansum", [0.0, 4.0]), ("nanprod", [1.0, 3.0])):
            np.testing.assert_allclose(to_numpy(getattr(ops, name)(x, axis=1)), want, err_msg=name)
        np.testing.assert_allclose(to_numpy(ops.nanquantile(x, [0.0, 0.5], axis=1)), [[NAN, 1.0], [NAN, 2.0]])
        np.testing.assert_allclose(to_numpy(ops.nanpercentile(x, 100, axis=1)), [NAN, 3.0])
        # all-NaN slices give -1 on every backend (NumPy raises, JAX gives -1)
        for name in ("nanargmax", "nanargmin"):
            got = getattr(ops, name)(x, axis=1)
            assert ops.dtype(got) == "int32"
            np.testing.assert_array_equal(to_numpy(got), [-1, 2 if name == "nanargmax" else 0])
        assert int(to_numpy(ops.nanargmax(tensor([NAN, NAN])))) == -1


def test_nan_propagates_without_nan_prefix(backend):
    x = np.array([[1.0, NAN, 3.0], [1.0, 2.0, 3.0]], np.float32)
    with polyops.use_backend(backend):
        t = tensor(x)
        np.testing.assert_allclose(to_numpy(ops.median(t, axis=1)), [NAN, 2.0])
        np.testing.assert_allclose(to_numpy(ops.quantile(t, 0.5, axis=1)), [NAN, 2.0])
        np.testing.assert_allclose(to_numpy(ops.ptp(t, axis=1)), [NAN, 2.0])


def test_numpy_nanarg_tie_rule(backend):
    """NaN counts as -inf (nanargmax): a NaN ahead of an only -inf wins, as NumPy and JAX."""
    x = np.array([[NAN, -INF], [2.0, NAN]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.nanargmax(tensor(x), axis=1)), [0, 0])
        np.testing.assert_array_equal(to_numpy(ops.nanargmin(tensor(x), axis=1)), [1, 0])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_infinities_follow_numpy(backend, method):
    """NumPy's interpolation, infinities included: [1, 2, inf] at 0.5 is nan for 'linear'."""
    x = np.array([[1.0, 2.0, INF], [-INF, 1.0, 2.0], [1.0, INF, NAN]], np.float32)
    q = [0.0, 0.1, 0.5, 0.9, 1.0]
    with polyops.use_backend(backend):
        got = to_numpy(ops.quantile(tensor(x), q, axis=1, method=method))
        np.testing.assert_allclose(got, _quiet(np.quantile, x, q, axis=1, method=method))
        got = to_numpy(ops.nanquantile(tensor(x), q, axis=1, method=method))
        np.testing.assert_allclose(got, _quiet(np.nanquantile, x, q, axis=1, method=method))


def test_median_means_the_two_middle_values(backend):
    x = np.array([[1.0, INF], [-INF, INF], [3e38, 3e38]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(ops.median(tensor(x), axis=1)), _quiet(np.median, x, axis=1))
        np.testing.assert_allclose(to_numpy(ops.nanmedian(tensor(x), axis=1)), _quiet(np.nanmedian, x, axis=1))


def test_integer_q_takes_the_exact_element(backend):
    """An int q (0 or 1) takes the element as NumPy does; the float 1.0 interpolates."""
    x = np.array([1.0, INF], np.float32)
    with polyops.use_backend(backend):
        assert float(to_numpy(ops.quantile(tensor(x), 1))) == INF
        assert np.isnan(to_numpy(ops.quantile(tensor(x), 1.0)))
        # only 'linear' takes the element: NumPy's 'midpoint' interpolates even an int q
        y = np.array([-INF, 1.0], np.float32)
        assert np.isnan(to_numpy(ops.quantile(tensor(y), [0], method="midpoint")))[0]
        assert float(to_numpy(ops.nanquantile(tensor(y), 0))) == -INF


# -- dtypes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,dtype,want", [
    ("nansum", "int8", "int32"), ("nansum", "bool", "int32"), ("nanprod", "uint8", "uint32"),
    ("nanmax", "int8", "int8"), ("nanmin", "float16", "float16"), ("ptp", "uint8", "uint8"),
    ("ptp", "bool", "bool"), ("nanmean", "int32", "float32"), ("nanvar", "float16", "float16"),
    ("median", "int32", "float32"), ("nanmedian", "bool", "float32"), ("nanargmax", "float16", "int32"),
    ("corrcoef", "int8", "float32"), ("average", "uint8", "float32"),
])
def test_result_dtypes(backend, name, dtype, want):
    x = np.arange(6).reshape(2, 3) % 3
    with polyops.use_backend(backend):
        got = getattr(ops, name)(ops.convert_to_tensor(x.astype(dtype), dtype))
        assert ops.dtype(got) == want
        assert getattr(ops, name)(SymbolicTensor((2, 3), dtype)).dtype == want


def test_quantile_dtype_and_int_overflow(backend):
    with polyops.use_backend(backend):
        x = ops.convert_to_tensor(np.array([120, 127, -128, -100], np.int8), "int8")
        assert ops.dtype(ops.quantile(x, 0.5)) == "float32"
        assert float(to_numpy(ops.median(x))) == 10.0  # no int8 overflow on the way
        got = ops.ptp(x)  # wraps like the dtype, as NumPy: 127 - -128 = -1 in int8
        assert ops.dtype(got) == "int8" and int(to_numpy(got)) == -1
        h = tensor([1.0, 2.0, 3.0, 60000.0, 60000.0, 65504.0], "float16")
        assert ops.dtype(ops.quantile(h, [0.5])) == "float16"
        # the two middle float16 values average in float32 (NumPy's mean of float16 does too)
        want = np.median(np.array([1, 2, 3, 60000, 60000, 65504], np.float16))
        assert float(to_numpy(ops.median(h))) == float(want)


# -- shapes: q in front, keepdims, 0-d, zero-size, unknown dims -----------------------------------


def test_q_shapes(backend):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with polyops.use_backend(backend):
        t = tensor(x)
        assert ops.shape(ops.quantile(t, 0.5, axis=-1)) == (2, 3)
        assert ops.shape(ops.quantile(t, [0.5], axis=-1)) == (1, 2, 3)
        assert ops.shape(ops.quantile(t, ops.convert_to_tensor([0.1, 0.9]), axis=(0, 2), keepdims=True)) == (2, 1, 3, 1)
        assert ops.shape(ops.percentile(t, ops.convert_to_tensor(50.0))) == ()
        np.testing.assert_allclose(to_numpy(ops.percentile(t, [25, 75], axis=-2)),
                                   np.percentile(x, [25, 75], axis=-2))


def test_symbolic_shapes():
    x = SymbolicTensor((None, 5, 3), "float32")
    assert ops.quantile(x, [0.1, 0.2], axis=1).shape == (2, None, 3)
    assert ops.nanpercentile(x, 50, axis=(0, 2), keepdims=True).shape == (1, 5, 1)
    assert ops.median(x).shape == ()
    assert ops.corrcoef(SymbolicTensor((None, 4))).shape == (None, None)
    assert ops.corrcoef(SymbolicTensor((4,))).shape == ()
    assert ops.average(x, axis=1, weights=SymbolicTensor((None,), "int32")).shape == (None, 3)
    assert ops.nanargmax(x, axis=-1, keepdims=True).shape == (None, 5, 1)


def test_zero_d_and_empty(backend):
    with polyops.use_backend(backend):
        s = tensor(3.0)
        for name in ("median", "nanmedian", "nanmax", "nansum", "nanmean", "ptp"):
            got = getattr(ops, name)(s)
            assert ops.shape(got) == ()
        assert float(to_numpy(ops.quantile(s, 0.3))) == 3.0
        assert int(to_numpy(ops.nanargmin(s))) == 0
        e = ops.zeros((2, 0))
        np.testing.assert_array_equal(to_numpy(ops.nansum(e, axis=1)), [0.0, 0.0])
        np.testing.assert_array_equal(to_numpy(ops.nanprod(e, axis=1)), [1.0, 1.0])
        assert np.isnan(to_numpy(ops.nanmean(e, axis=1))).all()
        assert np.isnan(to_numpy(ops.median(e, axis=1))).all()
        assert np.isnan(to_numpy(ops.nanquantile(e, [0.5], axis=1))).all()
        assert ops.shape(ops.median(e, axis=0)) == (0,)


# -- average ---------------------------------------------------------------------------------------


def test_average_weights(backend):
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    w = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]], np.float32)
    with polyops.use_backend(backend):
        got = to_numpy(ops.average(tensor(x), axis=1, weights=tensor(w)))
        np.testing.assert_allclose(got, [2.0, NAN])  # zero total weight: NaN (NumPy raises)
        got = to_numpy(ops.average(tensor(x), axis=0, weights=tensor([1.0, 3.0])))
        np.testing.assert_allclose(got, np.average(x, axis=0, weights=[1.0, 3.0]))
        got = ops.average(ops.convert_to_tensor(np.array([1, 2, 3], np.int32)), weights=tensor([1.0, 1.0, 2.0], "float16"))
        assert ops.dtype(got) == "float16" and float(to_numpy(got)) == 2.25
        with pytest.raises(ValueError, match=r"average.*\(3,\)"):
            ops.average(tensor(x), weights=tensor([1.0, 2.0, 3.0]))  # 1-D weights need an axis
        with pytest.raises(ValueError, match=r"average.*\(2, 2\)"):
            ops.average(tensor(x), axis=1, weights=ops.ones((2, 2)))


# -- corrcoef --------------------------------------------------------------------------------------


def test_corrcoef(backend):
    x = np.array([[1.0, 2.0, 3.0, 5.0], [4.0, 1.0, 0.0, 2.0], [2.0, 2.0, 2.0, 2.0]], np.float32)
    with polyops.use_backend(backend):
        got = to_numpy(ops.corrcoef(tensor(x)))
        np.testing.assert_allclose(got, _quiet(np.corrcoef, x), rtol=2e-5, atol=2e-6)  # constant row: NaN
        assert ops.shape(ops.corrcoef(tensor(x[0]))) == ()
        assert float(to_numpy(ops.corrcoef(tensor(x[0])))) == pytest.approx(1.0)
        with pytest.raises(ValueError, match=r"corrcoef.*\(2, 2, 2\)"):
            ops.corrcoef(ops.ones((2, 2, 2)))


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,q,frag", [
    ("quantile", 1.5, "q=1.5"), ("quantile", -0.1, "q=-0.1"), ("quantile", [0.2, 2], "q=[0.2, 2]"),
    ("nanquantile", float("nan"), "q=nan"), ("percentile", 101, "q=101"),
    ("nanpercentile", [50, -1], "q=[50, -1]"),
])
def test_q_out_of_range(backend, name, q, frag):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=name) as info:
            getattr(ops, name)(ops.ones((3,)), q)
        assert frag in str(info.value)
    with pytest.raises(ValueError, match=name):
        getattr(ops, name)(SymbolicTensor((3,)), q)


def test_bad_quantile_arguments(backend):
    with polyops.use_backend(backend):
        x = ops.ones((2, 3))
        with pytest.raises(ValueError, match=r"quantile.*method='cubic'"):
            ops.quantile(x, 0.5, method="cubic")
        with pytest.raises(ValueError, match=r"nanquantile.*\(2, 2\)"):
            ops.nanquantile(x, [[0.1, 0.2], [0.3, 0.4]])
        with pytest.raises(TypeError, match=r"percentile.*'50'"):
            ops.percentile(x, "50")
        with pytest.raises(TypeError, match="quantile.*SymbolicTensor"):
            ops.quantile(x, SymbolicTensor((2,)))
        with pytest.raises(ValueError, match="axis=2"):
            ops.median(x, axis=2)
        with pytest.raises(TypeError, match="complex"):
            ops.median(ops.convert_to_tensor(np.ones(3, np.complex64)))


@pytest.mark.parametrize("name", ["ptp", "nanmax", "nanmin", "nanargmax", "nanargmin"])
def test_empty_reductions_raise(backend, name):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=rf"{name}.*\(2, 0\)"):
            getattr(ops, name)(ops.zeros((2, 0)), axis=1)
        assert ops.shape(getattr(ops, name)(ops.zeros((2, 0)), axis=0)) == (0,)
    with pytest.raises(ValueError, match=name):
        getattr(ops, name)(SymbolicTensor((0, 3)))


def test_negative_axes(backend):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    x[0, 1, 2] = NAN
    with polyops.use_backend(backend):
        t = tensor(x)
        np.testing.assert_allclose(to_numpy(ops.nanmedian(t, axis=(-1, -3))), np.nanmedian(x, axis=(-1, -3)), rtol=2e-5)
        np.testing.assert_allclose(to_numpy(ops.nanstd(t, axis=-2, keepdims=True)),
                                   np.nanstd(x, axis=-2, keepdims=True), rtol=2e-5, atol=2e-6)
        np.testing.assert_array_equal(to_numpy(ops.nanargmax(t, axis=-2)), np.nanargmax(x, axis=-2))
