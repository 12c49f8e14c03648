"""Targeted tests of the sorting group (sort, search, count, cumulative ops) on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy

NAN = np.nan


def test_sort_nan_last_and_axes(backend):
    x = np.array([[3.0, NAN, -np.inf, 1.0], [NAN, 0.0, np.inf, -1.0]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.sort(tensor(x, None))), np.sort(x))
        np.testing.assert_array_equal(to_numpy(ops.sort(tensor(x, None), axis=-2)), np.sort(x, axis=0))
        np.testing.assert_array_equal(to_numpy(ops.sort(tensor(x, None), axis=None)), np.sort(x, axis=None))
        np.testing.assert_array_equal(to_numpy(ops.argsort(tensor(x, None))), np.argsort(x, kind="stable"))
        assert to_numpy(ops.sort(tensor(np.float32(2.0), None), axis=None)).shape == (1,)
        with pytest.raises(ValueError, match="sort.*axis=-1"):
            ops.sort(tensor(np.float32(2.0), None))


def test_argpartition_is_a_valid_stable_partition(backend):
    x = np.array([5, 1, 4, 1, 3, 9, 2], np.int32)
    with polyops.use_backend(backend):
        for kth in (0, 3, -1, [1, 4]):
            idx = to_numpy(ops.argpartition(tensor(x, None), kth))
            np.testing.assert_array_equal(idx, np.argsort(x, kind="stable"))
            for k in np.atleast_1d(kth):
                part = x[idx]
                assert (part[:k] <= part[k]).all() and (part[k:] >= part[k]).all()
        with pytest.raises(ValueError, match="argpartition.*kth=7"):
            ops.argpartition(tensor(x, None), 7)
        with pytest.raises(TypeError, match="argpartition.*kth=1.5"):
            ops.argpartition(tensor(x, None), 1.5)


def test_searchsorted_and_digitize_nan(backend):
    seq = np.array([1.0, 2.0, 2.0, NAN], np.float32)
    v = np.array([NAN, 2.0, -np.inf, np.inf], np.float32)
    bins = np.array([0.0, 1.0, 1.0, 3.0], np.float32)
    with polyops.use_backend(backend):
        for side in ("left", "right"):
            np.testing.assert_array_equal(to_numpy(ops.searchsorted(tensor(seq, None), tensor(v, None), side=side)),
                                          np.searchsorted(seq, v, side=side))
        out = ops.searchsorted(tensor(seq, None), 2.0)
        assert ops.dtype(out) == "int32" and to_numpy(out) == 1
        np.testing.assert_array_equal(to_numpy(ops.digitize(tensor(v, None), tensor(bins, None))), np.digitize(v, bins))
        np.testing.assert_array_equal(to_numpy(ops.digitize(tensor(v, None), tensor(bins[::-1].copy(), None))),
                                      np.digitize(v, bins[::-1]))
        with pytest.raises(ValueError, match="searchsorted.*side='middle'"):
            ops.searchsorted(tensor(seq, None), tensor(v, None), side="middle")
        with pytest.raises(ValueError, match=r"searchsorted.*\(2, 2\)"):
            ops.searchsorted(tensor(np.ones((2, 2), np.float32), None), tensor(v, None))
        with pytest.raises(ValueError, match=r"digitize.*\(2, 2\)"):
            ops.digitize(tensor(v, None), tensor(np.ones((2, 2), np.float32), None))


def test_bincount_lengths_weights_and_errors(backend):
    x = np.array([1, 3, 3, 0], np.uint8)
    with polyops.use_backend(backend):
        out = ops.bincount(tensor(x, None))
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), [1, 1, 0, 2])
        np.testing.assert_array_equal(to_numpy(ops.bincount(tensor(x, None), minlength=6)), [1, 1, 0, 2, 0, 0])
        w = ops.bincount(tensor(x, None), weights=tensor(np.array([0.5, 1, 2, 4], np.float16), None))
        assert ops.dtype(w) == "float16"
        np.testing.assert_array_equal(to_numpy(w).astype(np.float32), [4, 0.5, 0, 3])
        assert to_numpy(ops.bincount(tensor(np.zeros(0, np.int32), None))).shape == (0,)
        with pytest.raises(ValueError, match="bincount.*min\\(x\\)=-2"):
            ops.bincount(tensor(np.array([1, -2], np.int32), None))
        with pytest.raises(TypeError, match="bincount.*float32"):
            ops.bincount(tensor(np.array([1.0], np.float32), None))
        with pytest.raises(ValueError, match="bincount.*minlength=-1"):
            ops.bincount(tensor(x, None), minlength=-1)
        if polyops.backend() == "openvino":  # (no sparse tensors: tests/test_sparse.py)
            with pytest.raises(ValueError, match="bincount: the .* backend has no sparse tensors"):
                ops.bincount(tensor(x, None), sparse=True)
        else:
            assert ops.is_sparse(ops.bincount(tensor(x, None), sparse=True))
    spec = ops.bincount(SymbolicTensor((None,), "int32"))
    assert spec.shape == (None,) and spec.dtype == "int32"


def test_histogram_edges_and_closed_last_bin(backend):
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 7.0], np.float32)
    with polyops.use_backend(backend):
        hist, edges = ops.histogram(tensor(x, None), bins=3, range=(0, 3))
        want_h, want_e = np.histogram(x, bins=3, range=(0, 3))
        np.testing.assert_array_equal(to_numpy(hist), want_h)
        np.testing.assert_allclose(to_numpy(edges), want_e)
        hist, edges = ops.histogram(tensor(np.array([4, 4], np.int32), None), bins=2)
        assert ops.dtype(hist) == "float32" and ops.dtype(edges) == "float32"
        np.testing.assert_array_equal(to_numpy(edges), [3.5, 4.0, 4.5])
        np.testing.assert_array_equal(to_numpy(hist), [0, 2])
        with pytest.raises(ValueError, match="histogram.*bins=0"):
            ops.histogram(tensor(x, None), bins=0)
        with pytest.raises(ValueError, match=r"histogram.*range=\(2, 1\)"):
            ops.histogram(tensor(x, None), range=(2, 1))


def test_unique_nan_size_and_inverse(backend):
    x = np.array([[3.0, NAN, 1.0], [3.0, NAN, -0.0]], np.float32)
    with polyops.use_backend(backend):
        vals, idx, inv, counts = ops.unique(tensor(x, None), return_index=True, return_inverse=True,
                                            return_counts=True)
        want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
        for got, w in zip((vals, idx, inv, counts), want):
            np.testing.assert_array_equal(to_numpy(got), w)
        assert to_numpy(inv).shape == x.shape
        vals, counts = ops.unique(tensor(np.array([3, 1, 2, 1], np.int8), None), size=5, return_counts=True)
        np.testing.assert_array_equal(to_numpy(vals), [1, 2, 3, 0, 0])
        np.testing.assert_array_equal(to_numpy(counts), [2, 1, 1, 0, 0])
        assert ops.dtype(vals) == "int8"
        np.testing.assert_array_equal(to_numpy(ops.unique(tensor(np.array([3, 1], np.int32), None), size=1)), [1])
        with pytest.raises(ValueError, match="unique.*axis=0"):
            ops.unique(tensor(x, None), axis=0)
        with pytest.raises(ValueError, match="unique.*size=-1"):
            ops.unique(tensor(x, None), size=-1)
    spec = ops.unique(SymbolicTensor((2, 3), "float32"), return_inverse=True)
    assert spec[0].shape == (None,) and spec[1].shape == (2, 3)
    assert ops.unique(SymbolicTensor((2, 3), "float32"), size=4).shape == (4,)


def test_nonzero_and_count_nonzero(backend):
    x = np.array([[0.0, NAN, -0.0], [2.0, 0.0, np.inf]], np.float32)
    with polyops.use_backend(backend):
        got = ops.nonzero(tensor(x, None))
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, np.nonzero(x)):
            assert ops.dtype(g) == "int32"
            np.testing.assert_array_equal(to_numpy(g), w)
        assert [to_numpy(g).shape for g in ops.nonzero(tensor(np.zeros((2, 3), bool), None))] == [(0,), (0,)]
        out = ops.count_nonzero(tensor(x, None), axis=-1)
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), [1, 2])
        assert to_numpy(ops.count_nonzero(tensor(x, None))) == 3
        with pytest.raises(ValueError, match="nonzero.*shape=\\(\\)"):
            ops.nonzero(tensor(np.float32(1), None))
    assert ops.nonzero(SymbolicTensor((2, 3), "int32"))[1].shape == (None,)


def test_isin_nan_bool_and_invert(backend):
    with polyops.use_backend(backend):
        a = np.array([0.0, NAN, 2.0, -0.0], np.float32)
        b = np.array([[NAN, 0.0]], np.float32)
        np.testing.assert_array_equal(to_numpy(ops.isin(tensor(a, None), tensor(b, None))), np.isin(a, b))
        np.testing.assert_array_equal(to_numpy(ops.isin(tensor(a, None), tensor(b, None), invert=True)),
                                      np.isin(a, b, invert=True))
        np.testing.assert_array_equal(to_numpy(ops.isin(tensor(np.array([True, False]), None), 1)), [True, False])
        assert to_numpy(ops.isin(tensor(a, None), tensor(np.zeros(0, np.float32), None))).tolist() == [False] * 4


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
def test_cumulative_dtypes_wrap_and_specials(backend, name):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    x = np.array([[1.0, NAN, np.inf, 2.0], [-np.inf, 3.0, 0.0, -0.0]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(fn(tensor(x, None), axis=1)), np_fn(x, axis=1))
        np.testing.assert_array_equal(to_numpy(fn(tensor(x, None))), np_fn(x))
        # bool and narrow ints accumulate in 32 bits; dtype= overrides and wraps
        assert ops.dtype(fn(tensor(np.array([True, True]), None))) == "int32"
        assert ops.dtype(fn(tensor(np.array([1, 2], np.uint8), None))) == "uint32"
        big = np.array([100, 100, 100, 100, 100], np.int8)
        got = fn(tensor(big, None), dtype="int8")
        assert ops.dtype(got) == "int8"
        np.testing.assert_array_equal(to_numpy(got), np_fn(big, dtype=np.int8))
        assert to_numpy(fn(tensor(np.float32(3), None))).shape == (1,)
        assert to_numpy(fn(tensor(np.zeros((0, 2), np.float32), None), axis=0)).shape == (0, 2)
        with pytest.raises(ValueError, match=f"{name}.*axis=2"):
            fn(tensor(x, None), axis=2)
        with pytest.raises(TypeError, match="float33"):
            fn(tensor(x, None), dtype="float33")
    assert fn(SymbolicTensor((None, 3), "int8")).shape == (None,)
    assert fn(SymbolicTensor((2, 3), "int8"), axis=0, dtype="float16").dtype == "float16"
