"""OpenVINO: one model serves every shape of a rank (dynamic dims), so a loop over new
shapes compiles nothing; hot signatures, integer inputs and builds that need static shapes
get static models; the model cache is bounded.  Structure (compile counts), not timings."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import ops

pytestmark = pytest.mark.skipif(
    "openvino" not in polyops.available_backends(), reason="the openvino plugin is not installed"
)


@pytest.fixture
def graph(monkeypatch):
    from polyops_openvino import _graph

    # dynamic-shape models are opt-in (POLYOPS_OPENVINO_DYNAMIC=1): see _graph.DYNAMIC
    monkeypatch.setattr(_graph, "DYNAMIC", True)
    with polyops.use_backend("openvino"):
        yield _graph


_RNG = np.random.default_rng(17)
_VEC = _RNG.standard_normal(300).astype("float32")
_ROWS = _RNG.standard_normal((300, 7)).astype("float32")
_W = _RNG.standard_normal((7, 5)).astype("float32")

SWEEPS = {
    "add": (lambda n: ops.add(_VEC[:n], _VEC[:n]), lambda n: _VEC[:n] + _VEC[:n]),
    "add_scalar": (lambda n: ops.add(_VEC[:n], 2.0), lambda n: _VEC[:n] + np.float32(2.0)),
    "sum": (lambda n: ops.sum(_VEC[:n]), lambda n: _VEC[:n].sum()),
    "softmax": (lambda n: ops.softmax(_ROWS[:n], axis=0), None),
    "matmul": (lambda n: ops.matmul(_ROWS[:n], _W), lambda n: _ROWS[:n] @ _W),
}


@pytest.mark.parametrize("name", list(SWEEPS))
def test_a_sweep_of_200_lengths_compiles_a_handful(graph, name):
    fn, want = SWEEPS[name]
    before = graph.compiles
    for n in range(2, 202):  # (length 1 is another pattern: its dim is static)
        got = fn(n)
        if want is not None and n % 37 == 0:
            np.testing.assert_allclose(got, want(n), rtol=1e-5, atol=1e-5)
    assert graph.compiles - before <= 3


def test_hot_signature_gets_a_static_model(graph, monkeypatch):
    assert graph.HOT_CALLS is None  # off by default: later calls compile nothing
    monkeypatch.setattr(graph, "HOT_CALLS", 8)
    x = _RNG.standard_normal((5, 11)).astype("float32")
    ops.exp(_RNG.standard_normal((6, 12)).astype("float32"))  # the (?, ?) model exists
    before = graph.compiles
    for _ in range(graph.HOT_CALLS):
        np.testing.assert_allclose(ops.exp(x), np.exp(x), rtol=1e-6)
    assert graph.compiles == before  # served by the dynamic model
    for _ in range(3):
        np.testing.assert_allclose(ops.exp(x), np.exp(x), rtol=1e-6)
    assert graph.compiles == before + 1  # one static model, then reused


def test_integer_inputs_keep_exact_static_models(graph):
    # the CPU plugin computes some dynamic int32 graphs in f32: ints stay static and exact
    a = _RNG.integers(-2**31, 2**31 - 1, (2, 3), dtype=np.int32)
    b = _RNG.integers(0, 40, (2, 3), dtype=np.int32)
    want = np.where(b < 32, np.left_shift(a.astype(np.int64), np.minimum(b, 31)), 0).astype(np.int32)
    before = graph.compiles
    np.testing.assert_array_equal(ops.left_shift(a, b), want)
    np.testing.assert_array_equal(ops.left_shift(a[:1], b[:1]), want[:1])
    np.testing.assert_array_equal(ops.left_shift(a[:, :2], b[:, :2]), want[:, :2])
    assert graph.compiles - before <= 3


def test_a_build_that_needs_static_shapes_falls_back_once(graph):
    calls = []

    def build(p):  # reads the static shape: fails on dynamic dims
        calls.append(1)
        n = p.get_output_partial_shape(0).to_shape()[0]
        return graph.ops.multiply(p, graph.const(float(n), graph.T.f32))

    key = ("test_static_fallback",)
    for n in (3, 4, 5):
        x = np.ones(n, np.float32)
        np.testing.assert_array_equal(graph.run1_dyn(key, build, x), np.full(n, n, np.float32))
    assert len(calls) == 1 + 3  # one failed dynamic build, then one static build per shape


def test_the_cache_is_bounded(graph):
    size = graph._MAX_ENTRIES
    try:
        graph.set_cache_size(4)
        for n in range(2, 10):  # int32: a static model per shape
            ops.add(np.arange(n, dtype=np.int32), np.int32(1))
        assert len(graph._cache) <= 4
        with pytest.raises(ValueError):
            graph.set_cache_size(0)
    finally:
        graph.set_cache_size(size)
