"""OpenVINO: one model serves every shape of a rank (dynamic dims, the default), so a loop
over new shapes compiles nothing; hot signatures, integer and bfloat16 inputs, the ops whose
dynamic model computes differently (_graph.STATIC_OPS), models that write into earlier
inputs and builds that need static shapes get static models; dynamic and static models
agree bit for bit on special values; the model cache is bounded.  Structure (compile
counts, values), not timings."""

from __future__ import annotations

import os
import subprocess
import sys

import ml_dtypes
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

    # the default, unless POLYOPS_OPENVINO_DYNAMIC=0 turned it off (see _graph.DYNAMIC)
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


_SWEEP = ("import numpy as np, polyops\n"
          "from polyops import ops\n"
          "from polyops_openvino import _graph\n"
          "with polyops.use_backend('openvino'):\n"
          "    before = _graph.compiles\n"
          "    for n in range(2, 12):\n"
          "        ops.add(np.ones(n, 'float32'), np.ones(n, 'float32'))\n"
          "    print(_graph.DYNAMIC, _graph.compiles - before)\n")


@pytest.mark.parametrize("value, want", [(None, "True 1"), ("1", "True 1"), ("0", "False 10")])
def test_dynamic_models_are_the_default_and_the_environment_turns_them_off(value, want):
    env = {k: v for k, v in os.environ.items() if k != "POLYOPS_OPENVINO_DYNAMIC"}
    if value is not None:
        env["POLYOPS_OPENVINO_DYNAMIC"] = value
    out = subprocess.run([sys.executable, "-c", _SWEEP], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.split("\n")[-2] == want


# special values: every pair of them for binary ops, each for unary ones
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -0.5, 1e-40, -1e-40,
                     3e38, -3e38, 1e-7, 0.3, 100.0, -7.0, -2.0 / 3], np.float64)
_X1 = np.repeat(_SPECIAL, _SPECIAL.size).reshape(_SPECIAL.size, -1)
_X2 = np.tile(_SPECIAL, _SPECIAL.size).reshape(_SPECIAL.size, -1)
AGREE = {  # op -> call on float arrays (unary ops take _X1's column 0 as rows of 3)
    "add": lambda a, b: ops.add(a, b), "subtract": lambda a, b: ops.subtract(a, b),
    "multiply": lambda a, b: ops.multiply(a, b), "divide": lambda a, b: ops.divide(a, b),
    "maximum": lambda a, b: ops.maximum(a, b), "fmod": lambda a, b: ops.fmod(a, b),
    "floor_divide": lambda a, b: ops.floor_divide(a, b), "mod": lambda a, b: ops.mod(a, b),
    "power": lambda a, b: ops.power(a, b), "arctan2": lambda a, b: ops.arctan2(a, b),
    "logaddexp2": lambda a, b: ops.logaddexp2(a, b), "where": lambda a, b: ops.where(a < b, a, b),
    "matmul": lambda a, b: ops.matmul(a, b),
    "negative": lambda a: ops.negative(a), "exp": lambda a: ops.exp(a),
    "tanh": lambda a: ops.tanh(a),
    "deg2rad": lambda a: ops.deg2rad(a), "sqrt": lambda a: ops.sqrt(a), "abs": lambda a: ops.abs(a),
    "sum": lambda a: ops.sum(a, axis=1), "max": lambda a: ops.max(a, axis=0),
    "softmax": lambda a: ops.softmax(a, axis=-1), "relu": lambda a: ops.nn.relu(a),
    "cast_bf16": lambda a: ops.cast(a, "bfloat16"), "cast_f64": lambda a: ops.cast(a, "float64"),
}


def _bits(x):
    """Values with NaN normalized and the sign of zero kept, comparable with ==."""
    x = np.asarray(x, np.float64)
    return np.where(np.isnan(x), np.inf, x), np.signbit(x) & ~np.isnan(x)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(AGREE))
def test_dynamic_and_static_models_agree_on_special_values(graph, monkeypatch, name, dtype):
    fn = AGREE[name]
    nd = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    unary = fn.__code__.co_argcount == 1
    args = (_X1[:, :6].astype(nd),) if unary else (_X1.astype(nd), _X2.astype(nd))
    got = {}
    for dynamic in (True, False):
        monkeypatch.setattr(graph, "DYNAMIC", dynamic)
        graph._cache.clear(), graph._warm.clear(), graph._static_only.clear()
        with np.errstate(all="ignore"):
            got[dynamic] = ops.convert_to_numpy(fn(*args))
        if dynamic and not unary and name not in ("matmul",):  # a second shape, same model
            fn(*(a[:5] for a in args))
    assert got[True].dtype == got[False].dtype
    for d, s in zip(_bits(got[True]), _bits(got[False])):
        np.testing.assert_array_equal(d, s)


@pytest.mark.parametrize("op, dtype", sorted({(op, str(dt)) for op, dt in __import__(
    "polyops_openvino._graph", fromlist=["STATIC_OPS"]).STATIC_OPS} if "openvino" in
    polyops.available_backends() else []))
def test_the_ops_that_differ_keep_static_models(graph, op, dtype):
    assert graph.STATIC_OPS[(op, np.dtype(dtype))].startswith(op + ": ")  # with its reason
    fn = getattr(ops, op)
    arity = 1 if op in ("negative", "deg2rad", "rad2deg") else 2
    # lengths no other case of this test uses: each compiles its own static models
    first = 3 + 3 * ("float16", "float32", "float64").index(dtype)
    x = np.array([-0.0, 0.0, 1.0, -1.0, 3.0, -2.0, 0.5, -0.0, 0.0, 7.0, -0.0, 2.0], dtype)
    y = np.array([0.0, -0.0, 1.0, -1.0, -1.0, 3.0, -2.0, 1.0, -1.0, 2.0, 5.0, -0.5], dtype)
    with polyops.config.x64_scope():  # (float64 as it is, not demoted to float32)
        before = graph.compiles
        for n in (first, first + 1, first + 2):
            fn(*(x[:n], y[:n])[:arity])
        if dtype != "float64":  # (float64 runs some of these ops as compositions)
            assert graph.compiles - before == 3  # one static model per shape
        with np.errstate(all="ignore"):
            want = getattr(np, op)(*(x, y)[:arity])
            got = ops.convert_to_numpy(fn(*(x, y)[:arity]))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-3)  # (computed in float32)
    np.testing.assert_array_equal(_bits(got)[1], _bits(want)[1])  # the signs of zeros too


def test_a_model_that_writes_into_earlier_inputs_gets_static_models(graph):
    # the CPU plugin ran this dynamic graph in place: its third call wrote the third input
    # into the second call's array (so did polyops' cast of float32 to float64)
    def build(p):
        return graph.ops.convert(graph.ops.convert(p, graph.T.f64), graph.T.f32)

    key = ("test_in_place",)
    arrays = [np.full((2, 3), v, np.float32) for v in (1.0, 2.0, 3.0)]
    before = graph.compiles
    for a in arrays:
        np.testing.assert_array_equal(graph.run1_dyn(key, build, a), a)
    assert [a[0, 0] for a in arrays] == [1.0, 2.0, 3.0]  # (the dynamic model wrote 3.0 in)
    assert (key, "dyn", False, ((False, False), np.dtype("float32"))) in graph._static_only
    assert graph.compiles - before == 2  # the dynamic model (refused), then a static one
    assert not graph._writes_old_inputs(graph._cache[(key, ((2, 3), np.dtype("float32")))], arrays)


def test_large_calls_run_a_threaded_model_and_few_are_kept(graph, monkeypatch):
    """Inputs of _THREADED_MIN bytes or more run a model with executor threads (one stream),
    a second model of the op's pattern; at most _THREADED_MAX of those are kept."""
    from collections import OrderedDict

    cache = OrderedDict()  # (a fresh cache: earlier tests' models are not this test's)
    for name, value in (("_THREADED_MAX", 2), ("_threaded", OrderedDict()), ("_cache", cache),
                        ("_cache_touch", cache.move_to_end), ("_warm", {})):
        monkeypatch.setattr(graph, name, value)
    rng = np.random.default_rng(3)
    n = 256  # two 256x256 float32 inputs: 512 KiB
    assert 2 * n * n * 4 >= graph._THREADED_MIN > 2 * 16 * 16 * 4
    small = rng.standard_normal((2, 16, 16)).astype(np.float32)
    np.testing.assert_allclose(ops.matmul(small[0], small[1]), small[0] @ small[1], rtol=1e-5)
    for m in (n, n + 8, n + 16):  # one threaded model serves the pattern's large calls
        a, b = rng.standard_normal((2, m, m)).astype(np.float32)
        np.testing.assert_allclose(ops.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)
    assert [k[:3] for k in graph._threaded] == [(("matmul",), "dyn", True)]
    a, b = rng.standard_normal((2, n, n)).astype(np.float32)
    for op, want in ((ops.add, a + b), (ops.subtract, a - b)):  # two more: the oldest goes
        np.testing.assert_array_equal(op(a, b), want)
    keys = list(graph._threaded)
    assert len(keys) == 2 and all(k in graph._cache for k in keys)
    assert not any(k[0] == ("matmul",) for k in graph._cache if len(k) > 2 and k[2] is True)


@pytest.mark.parametrize("sizes", [(8, 10_000, 8, 12), (10_000, 6, 10_000, 6)])
def test_small_inputs_are_copied_large_ones_bound(graph, sizes):
    """The shared request copies inputs of up to _COPY_MAX bytes into tensors of its own and
    binds larger ones: a sequence of both through one model computes each call's inputs."""
    assert 8 * 4 <= graph._COPY_MAX < 10_000 * 4
    rng = np.random.default_rng(5)
    for n in sizes:
        a, b = rng.standard_normal((2, n)).astype(np.float32)
        keep = a.copy()
        got = ops.add(a, b)
        np.testing.assert_array_equal(got, a + b)
        a[:] = 0  # the result is the caller's own, and the input was read before
        np.testing.assert_array_equal(got, keep + b)


def test_matmul_and_softmax_pad_rows_to_a_few_shapes(graph, monkeypatch):
    """The CPU plugin prepares a dynamic model anew for each shape it meets (a matmul: 20x
    the call): matmul's rows and softmax's slices across its axis are padded up to four
    sizes an octave, with the same bits as the unpadded call."""
    from polyops_openvino.nn import _softmax_build
    from polyops_openvino.numpy.base import _matmul_build

    seen = []
    real = graph._infer_shared
    monkeypatch.setattr(graph, "_infer_shared", lambda e, a: seen.append(a[0].shape) or real(e, a))
    lengths = range(9, 200)
    got = [(ops.matmul(_ROWS[:n], _W), ops.softmax(_ROWS[:n], axis=-1)) for n in lengths]
    rows = {s[0] for s in seen}
    assert rows == {graph.bucket(n) for n in lengths} and len(rows) == 19  # of 191 lengths
    monkeypatch.setattr(graph, "_infer_shared", real)
    for n, (mm, sm) in zip(lengths, got):
        x = np.ascontiguousarray(_ROWS[:n])
        np.testing.assert_array_equal(mm, graph.run1_dyn(("matmul",), _matmul_build, x, _W))
        np.testing.assert_array_equal(sm, graph.run1_dyn(("softmax", -1), _softmax_build(-1), x))
        assert mm.shape == (n, 5) and sm.shape == (n, 7)
