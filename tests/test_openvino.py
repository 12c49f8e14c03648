"""OpenVINO specifics: eager calls reuse compiled models cached by op, shapes and dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import ops

pytestmark = pytest.mark.skipif(
    "openvino" not in polyops.available_backends(), reason="the openvino plugin is not installed"
)


def test_repeated_calls_do_not_recompile(monkeypatch):
    from collections import OrderedDict

    from polyops_openvino import _graph

    # a fresh cache: the dynamic models of other tests' calls (one per op, rank and dtypes)
    # would serve these shapes too
    cache = OrderedDict()
    for name, value in (("_cache", cache), ("_cache_touch", cache.move_to_end),
                        ("_warm", {}), ("_threaded", OrderedDict())):
        monkeypatch.setattr(_graph, name, value)
    with polyops.use_backend("openvino"):
        a = np.arange(7 * 13, dtype="float32").reshape(7, 13)
        ops.add(a, a)
        before = _graph.compiles
        for _ in range(5):
            ops.add(a, a)
        assert _graph.compiles == before
        ops.add(a[:1], a[:1])  # a new shape compiles once more
        assert _graph.compiles == before + 1
        ops.add(a.astype("int32"), a.astype("int32"))  # so does a new dtype
        assert _graph.compiles == before + 2
        ops.sum(a, axis=0), ops.sum(a, axis=1)  # static arguments are part of the key
        assert _graph.compiles == before + 4


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_extrema_of_only_infinities(dtype):
    """The CPU plugin's f32 ReduceMax/Min of a slice of only -inf/+inf gives the finite
    extreme; the kernel puts the infinity back (and nanmax/nanmin/ptp inherit it)."""
    ninf = np.array([[-np.inf, -np.inf], [-np.inf, 1.0]], dtype)
    pinf = -ninf
    with polyops.use_backend("openvino"):
        np.testing.assert_array_equal(ops.max(ninf, axis=1), [-np.inf, 1.0])
        np.testing.assert_array_equal(ops.min(pinf, axis=1), [np.inf, -1.0])
        np.testing.assert_array_equal(ops.nanmax(np.array([-np.inf, np.nan], dtype)), -np.inf)
        np.testing.assert_array_equal(ops.nanmin(np.array([np.inf, np.nan], dtype)), np.inf)
        assert np.isnan(ops.ptp(np.array([np.inf], dtype)))
        np.testing.assert_array_equal(ops.max(ninf), 1.0)


@pytest.mark.filterwarnings("ignore:polyops 64-bit mode on openvino")
@pytest.mark.parametrize("dtype", ["uint64", "int64"])
def test_64_bit_integer_sum_and_prod_are_exact(dtype):
    """The CPU plugin computes 64-bit ints in 32 bits (inputs saturated, sums wrapped:
    uint64 [2**32 + 1, 2] summed to 1): in 64-bit mode sum and prod run on the host,
    wrapping at 64 bits as NumPy; outside it the inputs are 32-bit, as on numpy."""
    x = np.array([[2**63 + 5, 2**40, 7], [2**32 + 1, 2**31, 3]], np.uint64).astype(dtype)
    with polyops.use_backend("openvino"):
        with polyops.config.x64_scope():
            for kw in ({}, {"axis": 0}, {"axis": 1, "keepdims": True}):
                got = ops.sum(x, **kw)
                assert ops.dtype(got) == dtype
                np.testing.assert_array_equal(got, np.sum(x, dtype=dtype, **kw))
                np.testing.assert_array_equal(ops.prod(x, **kw), np.prod(x, dtype=dtype, **kw))
        got = ops.sum(ops.convert_to_tensor(x))  # 32-bit: the same as the numpy backend
    with polyops.use_backend("numpy"):
        want = ops.sum(ops.convert_to_tensor(x))
    assert ops.dtype(got) == ops.dtype(want) == dtype[:-2] + "32"
    np.testing.assert_array_equal(got, want)
