"""Targeted tests of the control-flow ops of `polyops.ops.core`: nested structures, reverse,
empty loops, errors, symbolic inference, and loops inside `polyops.jit`.

The op table (`polyops.testing._records_core`) checks plain values on every backend; here
are the cases a record cannot express (structures, errors, tracing).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy

RNG = np.random.default_rng(0)
XS = RNG.normal(size=(5, 3)).astype(np.float32)
WS = RNG.normal(size=(5,)).astype(np.float32)


def _tree_np(tree):
    if isinstance(tree, dict):
        return {k: _tree_np(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_tree_np(v) for v in tree)
    return None if tree is None else to_numpy(tree)


# ----- scan ------------------------------------------------------------------------------


def _dict_step(carry, x):
    a, w = x
    new = {"total": carry["total"] + a * w, "steps": carry["steps"] + 1}
    return new, {"scaled": a * w, "running": new["total"]}


def _dict_scan_np(xs, ws, reverse=False):
    total, steps = np.zeros(3, np.float32), 0
    scaled, running = [None] * 5, [None] * 5
    for i in (range(4, -1, -1) if reverse else range(5)):
        total = total + xs[i] * ws[i]
        steps += 1
        scaled[i], running[i] = xs[i] * ws[i], total
    return total, steps, np.stack(scaled), np.stack(running)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_nested_carry_and_xs(backend, reverse):
    """A dict carry, a tuple of xs and a dict of ys keep their structure and container types;
    reverse runs from the end and keeps each y at its step's position."""
    with polyops.use_backend(backend):
        init = {"total": ops.zeros((3,)), "steps": ops.convert_to_tensor(0, "int32")}
        carry, ys = ops.scan(_dict_step, init, (XS, WS[:, None]), reverse=reverse)
        assert isinstance(carry, dict) and set(carry) == {"total", "steps"}
        assert isinstance(ys, dict) and set(ys) == {"scaled", "running"}
        assert ops.dtype(carry["steps"]) == "int32"
        carry, ys = _tree_np(carry), _tree_np(ys)
    total, steps, scaled, running = _dict_scan_np(XS, WS[:, None], reverse)
    np.testing.assert_allclose(carry["total"], total, rtol=1e-5, atol=1e-6)
    assert int(carry["steps"]) == steps
    np.testing.assert_allclose(ys["scaled"], scaled, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ys["running"], running, rtol=1e-5, atol=1e-6)


def test_scan_tuple_carry_and_no_xs(backend):
    """xs=None with length: x is None; a tuple carry comes back as a tuple (Fibonacci)."""

    def fib(c, x):
        assert x is None
        a, b = c
        return (b, a + b), a

    with polyops.use_backend(backend):
        init = (ops.convert_to_tensor(0, "int32"), ops.convert_to_tensor(1, "int32"))
        carry, ys = ops.scan(fib, init, length=10)
        assert isinstance(carry, tuple) and len(carry) == 2
        assert [int(to_numpy(c)) for c in carry] == [55, 89]
        np.testing.assert_array_equal(to_numpy(ys), [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
        assert ops.dtype(ys) == "int32"


def test_scan_reverse_order_of_steps(backend):
    """With reverse=True the carry passes the xs from last to first."""

    def concat_digit(c, x):
        return c * 10 + x, c

    with polyops.use_backend(backend):
        carry, ys = ops.scan(concat_digit, ops.convert_to_tensor(0, "int32"),
                             np.array([1, 2, 3], np.int32), reverse=True)
        assert int(to_numpy(carry)) == 321
        np.testing.assert_array_equal(to_numpy(ys), [32, 3, 0])


def test_scan_length_zero(backend):
    """An empty scan returns init and ys with a leading 0 of the y's shape and dtype."""

    def step(c, x):
        return c + ops.sum(x), ops.cast(x, "int32") * 2

    with polyops.use_backend(backend):
        carry, ys = ops.scan(step, ops.ones((), "float32"), np.zeros((0, 4), np.float32))
        assert float(to_numpy(carry)) == 1.0
        assert tuple(ops.shape(ys)) == (0, 4) and ops.dtype(ys) == "int32"
        carry, ys = ops.scan(lambda c, x: (c + 1.0, c), ops.zeros((2,)), length=0)
        np.testing.assert_array_equal(to_numpy(carry), [0.0, 0.0])
        assert tuple(ops.shape(ys)) == (0, 2) and ops.dtype(ys) == "float32"


def test_scan_errors(backend):
    """A carry that changes dtype, shape or structure is a TypeError naming scan."""
    xs = np.ones((3, 2), np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(TypeError, match="scan"):
            ops.scan(lambda c, x: (ops.cast(c, "int32"), x), ops.zeros((2,)), xs)
        with pytest.raises(TypeError, match="scan"):
            ops.scan(lambda c, x: (ops.concatenate([c, x]), x), ops.zeros((2,)), xs)
        with pytest.raises(TypeError, match="scan"):
            ops.scan(lambda c, x: ((c, c), x), ops.zeros((2,)), xs)
        with pytest.raises(TypeError, match="scan"):
            ops.scan(lambda c, x: c + x, ops.zeros((2,)), xs)  # not a (carry, y) pair
        with pytest.raises(ValueError, match="scan"):
            ops.scan(lambda c, x: (c, x), ops.zeros((2,)))  # neither xs nor length
        with pytest.raises(ValueError, match="scan"):
            ops.scan(lambda c, x: (c, x), ops.zeros(()), (np.ones((3,)), np.ones((4,))))


# ----- map, associative_scan, vectorized_map -----------------------------------------------


def test_map_nested(backend):
    """map over a dict of xs: f gets a dict of rows and its tuple result is stacked."""
    with polyops.use_backend(backend):
        out = ops.map(lambda d: (ops.sum(d["x"]) * d["w"], d["x"][0]), {"x": XS, "w": WS})
        assert isinstance(out, tuple) and len(out) == 2
        np.testing.assert_allclose(to_numpy(out[0]), XS.sum(1) * WS, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(to_numpy(out[1]), XS[:, 0])


def test_vectorized_map_matches_map(backend):
    def f(row):
        return ops.softmax(row) * ops.max(row)

    with polyops.use_backend(backend):
        v = to_numpy(ops.vectorized_map(f, XS))
        m = to_numpy(ops.map(f, XS))
    e = np.exp(XS - XS.max(1, keepdims=True))
    np.testing.assert_allclose(v, e / e.sum(1, keepdims=True) * XS.max(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(v, m, rtol=1e-6)


def test_associative_scan_nested(backend):
    """A tuple of elems: a running (sum, product) pair along axis 1, and reversed."""

    def f(a, b):
        return a[0] + b[0], a[1] * b[1]

    x = RNG.uniform(0.5, 1.5, (2, 6)).astype(np.float32)
    with polyops.use_backend(backend):
        s, p = _tree_np(ops.associative_scan(f, (x, x), axis=1))
        rs, rp = _tree_np(ops.associative_scan(f, (x, x), reverse=True, axis=1))
    np.testing.assert_allclose(s, np.cumsum(x, 1), rtol=1e-5)
    np.testing.assert_allclose(p, np.cumprod(x, 1), rtol=1e-5)
    np.testing.assert_allclose(rs, np.cumsum(x[:, ::-1], 1)[:, ::-1], rtol=1e-5)
    np.testing.assert_allclose(rp, np.cumprod(x[:, ::-1], 1)[:, ::-1], rtol=1e-5)


# ----- branches -----------------------------------------------------------------------------


def test_cond_and_switch_with_tensor_predicates(backend):
    x = ops.convert_to_numpy(XS)
    with polyops.use_backend(backend):
        for pred, want in ((True, x * 2), (False, -x)):
            out = ops.cond(ops.convert_to_tensor(pred), lambda: ops.multiply(x, 2.0),
                           lambda: ops.negative(x))
            np.testing.assert_allclose(to_numpy(out), want, rtol=1e-6)
        out = ops.cond(ops.sum(x) > 1e9, lambda: {"a": ops.zeros((2,))}, lambda: {"a": ops.ones((2,))})
        assert isinstance(out, dict)
        np.testing.assert_array_equal(to_numpy(out["a"]), [1.0, 1.0])
        branches = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b]
        for i, want in ((0, x + 1), (1, x - 1), (2, x), (5, x), (-3, x + 1)):
            out = ops.switch(ops.convert_to_tensor(i, "int32"), branches, x, np.float32(1.0))
            np.testing.assert_allclose(to_numpy(out), want, rtol=1e-6, err_msg=f"index {i}")


def test_branch_mismatch_is_a_type_error():
    """The rule checks every branch: a different dtype or structure is a TypeError naming
    the op (eagerly only the chosen branch runs, so this is the symbolic check)."""
    p = SymbolicTensor((), "bool")
    with pytest.raises(TypeError, match="cond"):
        ops.cond(p, lambda: ops.zeros((2,)), lambda: ops.zeros((2,), "int32"))
    with pytest.raises(TypeError, match="cond"):
        ops.cond(p, lambda: ops.zeros((2,)), lambda: (ops.zeros((2,)),))
    with pytest.raises(TypeError, match="switch"):
        ops.switch(SymbolicTensor((), "int32"), [lambda x: x, lambda x: x[0]], SymbolicTensor((3,)))
    with pytest.raises(ValueError, match="cond"):
        ops.cond(SymbolicTensor((2,), "bool"), lambda: 1.0, lambda: 0.0)
    with pytest.raises(ValueError, match="switch"):
        ops.switch(0, [], SymbolicTensor((3,)))


# ----- loops ------------------------------------------------------------------------------


def test_while_loop_structures(backend):
    """Keras's containers: a tuple of loop vars comes back as a tuple, a list as a list, a
    single value alone; maximum_iterations stops the loop early."""
    with polyops.use_backend(backend):
        i, acc = ops.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * 2),
                                (ops.convert_to_tensor(0, "int32"), ops.ones((2,))))
        assert int(to_numpy(i)) == 10
        np.testing.assert_array_equal(to_numpy(acc), [1024.0, 1024.0])
        out = ops.while_loop(lambda i, a: i < 10, lambda i, a: [i + 1, a * 2],
                             [ops.convert_to_tensor(0, "int32"), ops.ones((2,))],
                             maximum_iterations=3)
        assert isinstance(out, list) and int(to_numpy(out[0])) == 3
        np.testing.assert_array_equal(to_numpy(out[1]), [8.0, 8.0])
        one = ops.while_loop(lambda v: ops.sum(v) < 50.0, lambda v: v * 3.0, ops.ones((2,)))
        np.testing.assert_array_equal(to_numpy(one), [27.0, 27.0])
        none = ops.while_loop(lambda v: ops.sum(v) < 0.0, lambda v: v * 3.0, ops.ones((2,)))
        np.testing.assert_array_equal(to_numpy(none), [1.0, 1.0])


def test_fori_loop_bounds_and_structures(backend):
    with polyops.use_backend(backend):
        total = ops.fori_loop(2, 7, lambda i, v: v + ops.convert_to_tensor(i, "int32"),
                              ops.convert_to_tensor(0, "int32"))
        assert int(to_numpy(total)) == 2 + 3 + 4 + 5 + 6
        # tensor bounds and a dict value
        out = ops.fori_loop(ops.convert_to_tensor(0, "int32"), ops.convert_to_tensor(3, "int32"),
                            lambda i, d: {"x": d["x"] * 2.0, "n": d["n"] + 1},
                            {"x": ops.ones((2,)), "n": ops.convert_to_tensor(0, "int32")})
        assert isinstance(out, dict)
        np.testing.assert_array_equal(to_numpy(out["x"]), [8.0, 8.0])
        assert int(to_numpy(out["n"])) == 3
        # an empty range returns init_val
        np.testing.assert_array_equal(to_numpy(ops.fori_loop(5, 2, lambda i, v: v * 0.0, ops.ones((2,)))),
                                      [1.0, 1.0])


def test_loop_errors(backend):
    """A body that changes dtype, shape or structure is a TypeError naming the op."""
    with polyops.use_backend(backend):
        with pytest.raises(TypeError, match="while_loop"):
            ops.while_loop(lambda v: ops.sum(v) < 5.0, lambda v: ops.cast(v, "int32"), ops.ones((2,)))
        with pytest.raises(TypeError, match="while_loop"):
            ops.while_loop(lambda v: ops.sum(v) < 5.0, lambda v: ops.concatenate([v, v]), ops.ones((2,)))
        with pytest.raises(TypeError, match="fori_loop"):
            ops.fori_loop(0, 3, lambda i, v: ops.cast(v, "float16"), ops.ones((2,)))
        with pytest.raises(TypeError, match="fori_loop"):
            ops.fori_loop(0, 3, lambda i, v: (v, v), ops.ones((2,)))
        with pytest.raises(TypeError, match="fori_loop"):
            ops.fori_loop(0.5, 3, lambda i, v: v, ops.ones((2,)))  # a float bound


# ----- symbolic inference ----------------------------------------------------------------------


def _sym_step(c, x):
    return c + ops.sum(x, axis=0), x * 2.0


def test_symbolic_inference_with_unknown_dims():
    xs = SymbolicTensor((None, 4, 3), "float32")
    carry, ys = ops.scan(_sym_step, SymbolicTensor((3,), "float32"), xs)
    assert carry.shape == (3,) and ys.shape == (None, 4, 3) and ys.dtype == "float32"
    carry, ys = ops.scan(lambda c, x: (c + 1, c), SymbolicTensor((None,), "int32"), length=6)
    assert carry.shape == (None,) and ys.shape == (6, None) and ys.dtype == "int32"
    out = ops.map(lambda r: ops.cast(ops.sum(r), "float16"), SymbolicTensor((None, 7)))
    assert out.shape == (None,) and out.dtype == "float16"
    out = ops.vectorized_map(lambda r: {"m": ops.max(r, axis=-1)}, SymbolicTensor((5, None, 2)))
    assert out["m"].shape == (5, None)
    out = ops.associative_scan(lambda a, b: a + b, SymbolicTensor((None, 3), "int8"), axis=1)
    assert out.shape == (None, 3) and out.dtype == "int8"
    i, v = ops.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0),
                          (SymbolicTensor((), "int32"), SymbolicTensor((None, 2))))
    assert i.shape == () and v.shape == (None, 2) and v.dtype == "float32"
    v = ops.fori_loop(0, 3, lambda i, v: v + 1.0, SymbolicTensor((None,), "float16"))
    assert v.shape == (None,) and v.dtype == "float16"
    out = ops.cond(SymbolicTensor((), "bool"), lambda: ops.zeros((2,)), lambda: ops.ones((2,)))
    assert out.shape == (2,) and out.dtype == "float32"
    with pytest.raises(TypeError, match="scan"):
        ops.scan(lambda c, x: (ops.cast(c, "int32"), x), SymbolicTensor((3,)), xs)
    with pytest.raises(ValueError, match="scan"):
        ops.scan(_sym_step, SymbolicTensor((3,)), (SymbolicTensor((4, 3)), SymbolicTensor((5, 3))))


def test_function_replays_a_graph_with_scan(backend):
    """A graph built on SymbolicTensors (scan inside) runs on concrete inputs of any length."""
    xs = SymbolicTensor((None, 3), "float32")
    carry, ys = ops.scan(lambda c, x: (c + x, ops.sum(c * x)), ops.zeros((3,)), xs)
    fn = polyops.Function(xs, [ops.exp(carry), ys])
    for n in (5, 2):
        data = XS[:n]
        with polyops.use_backend(backend):
            c, y = (to_numpy(t) for t in fn(data))
        want = np.cumsum(data, 0)
        prev = np.concatenate([np.zeros((1, 3), np.float32), want[:-1]])
        np.testing.assert_allclose(c, np.exp(want[-1]), rtol=1e-5)
        np.testing.assert_allclose(y, (prev * data).sum(1), rtol=1e-5, atol=1e-6)


# ----- inside polyops.jit -----------------------------------------------------------------------


def _all_control(xs, x, pred, index):
    carry, ys = ops.scan(lambda c, r: (c + r, c * r), ops.zeros((3,)), xs)
    rev, _ = ops.scan(lambda c, r: (c * 0.5 + r, c), ops.zeros((3,)), xs, reverse=True)
    f = ops.fori_loop(0, 4, lambda i, v: v * 1.5 + ops.convert_to_tensor(i, "float32"), x)
    c = ops.cond(pred, lambda: x * 2.0, lambda: x - 1.0)
    s = ops.switch(index, [lambda a: a + 1.0, lambda a: a * a, lambda a: -a], x)
    m = ops.map(lambda r: ops.sum(r * r), xs)
    a = ops.associative_scan(lambda p, q: ops.maximum(p, q), xs, axis=0)
    return {"carry": carry, "ys": ys, "rev": rev, "fori": f, "cond": c, "switch": s, "map": m,
            "assoc": a}


def test_control_flow_inside_jit_equals_eager(backend):
    """One compiled function with every static-length control-flow op (one compile per
    backend: torch.compile is slow) against the eager run, for two predicates/indices."""
    jitted = polyops.jit(_all_control)
    x = XS[0]
    with polyops.use_backend(backend), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for pred, index in ((True, 1), (False, 2)):
            args = (XS, x, ops.convert_to_tensor(pred), ops.convert_to_tensor(index, "int32"))
            got = _tree_np(jitted(*args))
            with polyops.disable_jit():
                want = _tree_np(jitted(*args))
            for k in want:
                np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
        # torch: cond/switch read a tensor predicate on the host, which make_fx cannot
        # trace: the function runs eagerly, with one JitFallbackWarning naming the reason
        if backend != "torch":
            assert jitted.traces == (0 if backend == "numpy" else 1)
    for w in caught:
        assert backend == "torch" and issubclass(w.category, polyops.JitFallbackWarning), \
            str(w.message)
    assert len(caught) <= 1


def test_while_loop_inside_jit_equals_eager(backend):
    """A data-dependent while_loop inside jit: jax and tensorflow compile a loop, openvino a
    Loop node; torch runs such a function eagerly and says so with a JitFallbackWarning."""

    def collatz_steps(n):
        def body(n, steps):
            even = ops.equal(ops.mod(n, 2), 0)
            return ops.where(even, n // 2, 3 * n + 1), steps + 1

        return ops.while_loop(lambda n, steps: n > 1, body, (n, ops.zeros((), "int32")))[1]

    jitted = polyops.jit(collatz_steps)
    with polyops.use_backend(backend):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = [int(to_numpy(jitted(ops.convert_to_tensor(n, "int32")))) for n in (27, 6)]
    assert got == [111, 8]
    for w in caught:
        assert backend == "torch" and issubclass(w.category, polyops.JitFallbackWarning), \
            str(w.message)


def _count(counter, fn):
    def wrapped(*args):
        counter.append(1)
        return fn(*args)

    return wrapped


@pytest.mark.parametrize("backend_name", ["jax", "tensorflow"])
def test_loop_bodies_traced_once_under_jit(backend_name):
    """jax and tensorflow keep loops rolled in the compiled graph: each body is called once
    (at trace time), not once per step, and not again on a second call of the compiled
    function.  (torch and openvino unroll the references: their results are tested above.)"""
    if backend_name not in polyops.available_backends():
        pytest.skip(f"{backend_name} is not installed")
    calls = {"scan": [], "while": [], "fori": []}
    scan_body = _count(calls["scan"], lambda c, x: (c + x, c))
    while_body = _count(calls["while"], lambda i, v: (i + 1, v * 1.01))
    fori_body = _count(calls["fori"], lambda i, v: v + 1.0)

    def loops(xs, v):
        c, _ = ops.scan(scan_body, ops.zeros((3,)), xs)
        _, w = ops.while_loop(lambda i, v: i < 50, while_body, (ops.zeros((), "int32"), v))
        f = ops.fori_loop(0, 50, fori_body, v)
        return c, w, f

    jitted = polyops.jit(loops)
    xs = np.ones((50, 3), np.float32)
    with polyops.use_backend(backend_name):
        for _ in range(2):
            c, w, f = (to_numpy(t) for t in jitted(xs, np.ones((3,), np.float32)))
    np.testing.assert_allclose(c, [50.0] * 3)
    np.testing.assert_allclose(w, [1.01 ** 50] * 3, rtol=1e-5)
    np.testing.assert_allclose(f, [51.0] * 3)
    assert jitted.traces == 1
    assert {k: len(v) for k, v in calls.items()} == {"scan": 1, "while": 1, "fori": 1}
