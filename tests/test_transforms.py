"""Tests of `polyops.jit`, `polyops.grad`/`value_and_grad` and `polyops.device`.

jit: compiled results equal eager ones on every backend (numpy: the function itself), one
trace per input signature, static arguments, disable_jit, Variables.  Gradients: against
central finite differences of the same function computed with NumPy in float64, on the
differentiating backends (jax, tensorflow, torch); numpy and openvino raise
NotImplementedError.  torch.compile costs seconds per compile: the jit tests here compile
few functions.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import polyops
from polyops import ops

from conftest import to_numpy

DIFFERENTIATING = ("jax", "tensorflow", "torch")
RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3)).astype(np.float32)
W = RNG.normal(size=(3, 2)).astype(np.float32)
B = RNG.normal(size=(2,)).astype(np.float32)


def _traces(backend, n):
    """The expected trace count: numpy runs the function itself and never traces."""
    return 0 if backend == "numpy" else n


# ----- jit ----------------------------------------------------------------------------------


def _layer(x, w, b):
    # ops.add, not +: the arguments may be NumPy arrays next to native tensors
    h = ops.relu(ops.add(ops.matmul(x, w), b))
    return {"probs": ops.softmax(h, axis=-1), "total": ops.sum(h), "shape": h.shape[-1]}


def test_jit_equals_eager_and_traces_once_per_signature(backend):
    jitted = polyops.jit(_layer)
    with polyops.use_backend(backend):
        want = {k: to_numpy(v) for k, v in _layer(X, W, B).items() if k != "shape"}
        for _ in range(3):
            got = jitted(X, W, B)
            assert got["shape"] == 2  # a Python int output stays a Python int
            for k in want:
                np.testing.assert_allclose(to_numpy(got[k]), want[k], rtol=1e-5, atol=1e-6, err_msg=k)
        assert jitted.traces == _traces(backend, 1)
        # a new shape traces again; the old signature stays compiled
        x5 = np.concatenate([X, X[:1]])
        np.testing.assert_allclose(to_numpy(jitted(x5, W, B)["total"]), to_numpy(_layer(x5, W, B)["total"]),
                                   rtol=1e-5)
        jitted(X, W, B)
        assert jitted.traces == _traces(backend, 2)
        if backend != "numpy":
            assert jitted.cache_size() == 2


def test_jit_static_arguments(backend):
    """Python numbers are static (a new value traces again); static_argnums/static_argnames
    make whole arguments static; unhashable non-tensors are a TypeError."""

    def scale(x, factor, mode="sum"):
        return ops.sum(x) * factor if mode == "sum" else ops.max(x) * factor

    with polyops.use_backend(backend):
        by_num = polyops.jit(scale)
        assert float(to_numpy(by_num(X, 2.0))) == pytest.approx(float(X.sum()) * 2, rel=1e-5)
        assert float(to_numpy(by_num(X, 3.0))) == pytest.approx(float(X.sum()) * 3, rel=1e-5)
        by_num(X, 2.0)
        assert by_num.traces == _traces(backend, 2)

        by_name = polyops.jit(scale, static_argnums=(1,), static_argnames=("mode",))
        assert float(to_numpy(by_name(X, 2, mode="max"))) == pytest.approx(float(X.max()) * 2, rel=1e-6)
        assert float(to_numpy(by_name(X, 2, mode="max"))) == pytest.approx(float(X.max()) * 2, rel=1e-6)
        assert by_name.traces == _traces(backend, 1)

        if backend != "numpy":  # numpy calls the function as it is, with no signature
            with pytest.raises(TypeError, match="jit"):
                by_num(X, 2.0, mode={"a set"})  # neither a tensor nor hashable
            with pytest.raises(TypeError, match="jit"):
                by_name(X, [2.0])  # a static argument must be hashable


def test_disable_jit(backend):
    calls = []

    def f(x):
        calls.append(1)
        return x * 2.0

    jitted = polyops.jit(f)
    with polyops.use_backend(backend):
        with polyops.disable_jit():
            for _ in range(3):
                np.testing.assert_array_equal(to_numpy(jitted(X)), X * 2)
        assert jitted.traces == 0 and len(calls) == 3  # run eagerly, every time


def test_polyops_disable_jit_environment_variable():
    """POLYOPS_DISABLE_JIT=1 (read at import) makes jit functions run eagerly: on jax, a
    compiling backend, the Python function then runs on every call and is never traced."""
    if "jax" not in polyops.available_backends():
        pytest.skip("needs jax, a backend that compiles")
    code = (
        "import numpy as np, polyops\n"
        "calls = []\n"
        "def f(x):\n"
        "    calls.append(type(x).__name__)\n"
        "    return polyops.ops.sum(x)\n"
        "j = polyops.jit(f)\n"
        "with polyops.use_backend('jax'):\n"
        "    for _ in range(3): j(np.ones(3, 'float32'))\n"
        "print(j.traces, len(calls), 'Tracer' in ''.join(calls))\n"
    )
    env = {**os.environ, "POLYOPS_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "3", "False"]


def test_variables_assigned_inside_jit(backend):
    with polyops.use_backend(backend):
        v = polyops.Variable(np.zeros((3,), np.float32))
        count = polyops.Variable(0, dtype="int32")

        @polyops.jit
        def step(x):
            v.assign_add(x)
            count.assign(count.value + 1)
            return v.value * 2.0

        x = np.array([1.0, 2.0, 3.0], np.float32)
        out = None
        for _ in range(3):
            out = step(x)
        np.testing.assert_allclose(to_numpy(out), 6 * x)
        np.testing.assert_allclose(v.numpy(), 3 * x)
        assert int(count.numpy()) == 3
        v.assign(np.ones((3,), np.float32))  # an eager write is seen by the next call
        np.testing.assert_allclose(to_numpy(step(x)), 2 * (1 + x))
        assert int(count.numpy()) == 4


def test_each_signature_keeps_its_outputs_variables_and_fallback(backend):
    """What a trace decides holds for its signature alone: a new shape may return another
    structure, read a Variable the others do not, or need tensor values (and run eagerly),
    also where the compiler retraces by itself (jax: one compiled function serves every
    signature of native tensors).  Seen signatures are not traced again."""
    with polyops.use_backend(backend):
        v = polyops.Variable(np.full((), 2.0, np.float32))

        def fn(x):
            if x.shape[0] == 2:
                return ops.sin(x)
            if x.shape[0] == 3:  # another structure, and a Variable only this shape reads
                v.assign_add(1.0)
                return [ops.sin(x), ops.multiply(x, v.value)]
            if x.shape[0] == 4:
                return ops.sin(x) if bool(ops.sum(x) > 0) else x  # needs values
            return ops.sin(x)

        jitted = polyops.jit(fn)
        xs = {n: ops.convert_to_tensor(np.arange(1.0, n + 1, dtype=np.float32)) for n in (2, 3, 4)}
        for round_ in range(2):
            got2 = jitted(xs[2])
            np.testing.assert_allclose(to_numpy(got2), np.sin(np.arange(1.0, 3.0)), rtol=1e-6)
            got3 = jitted(xs[3])
            assert isinstance(got3, list) and len(got3) == 2
            np.testing.assert_allclose(to_numpy(got3[1]), np.arange(1.0, 4.0) * (3.0 + round_))
            if round_ == 0:
                traces = jitted.traces
                if backend == "numpy":
                    got4 = jitted(xs[4])
                else:
                    with pytest.warns(polyops.JitFallbackWarning, match="fn"):
                        got4 = jitted(xs[4])
            else:
                got4 = jitted(xs[4])
                assert jitted.traces == traces, "a seen signature was traced again"
            np.testing.assert_allclose(to_numpy(got4), np.sin(np.arange(1.0, 5.0)), rtol=1e-6)
        assert float(to_numpy(v.value)) == 4.0
        assert jitted.cache_size() == (0 if backend == "numpy" else 3)
        # more signatures of the same structure: one trace each, kept
        traces = jitted.traces
        for n in (5, 6, 5, 6, 2):
            x = ops.convert_to_tensor(np.arange(1.0, n + 1, dtype=np.float32))
            np.testing.assert_allclose(to_numpy(jitted(x)), np.sin(np.arange(1.0, n + 1)), rtol=1e-6)
        assert jitted.cache_size() == (0 if backend == "numpy" else 5)
        assert jitted.traces == traces + (0 if backend == "numpy" else 2)


def test_a_retracing_compiler_serves_every_signature_from_one_entry(backend):
    """jax.jit keys signatures itself (`Runtime.jit_retraces`): polyops.jit hands it native
    tensors of any shape without keying them per call (one entry serves them all), yet
    counts and keeps each signature as on the other backends; a signature whose trace
    returns another static output gets an entry of its own."""
    with polyops.use_backend(backend):
        plain = polyops.jit(lambda x, y: ops.add(x, y))
        sized = polyops.jit(lambda x, y: (ops.add(x, y), ops.shape(x)[0]))
        nested = polyops.jit(lambda x, pairs: ops.add(x, ops.multiply(*pairs[0])))  # (params)
        for n in (2, 3, 4, 3, 2):
            x = ops.convert_to_tensor(np.arange(n, dtype=np.float32))
            np.testing.assert_array_equal(to_numpy(plain(x, x)), 2 * np.arange(n))
            np.testing.assert_array_equal(to_numpy(nested(x, [(x, x)])), np.arange(n) * (1 + np.arange(n)))
            total, length = sized(x, x)
            np.testing.assert_array_equal(to_numpy(total), 2 * np.arange(n))
            assert length == n  # a static output, per signature
        if backend == "numpy":
            return
        retraces = polyops._registry.get_backend(backend).runtime.jit_retraces
        for jitted, entries in ((plain, 1 if retraces else 3), (nested, 1 if retraces else 3),
                                (sized, 3)):
            assert jitted.traces == 3 and jitted.cache_size() == 3
            assert len({id(e) for e in jitted._cache.values()}) == entries


# ----- gradients ---------------------------------------------------------------------------------


def _loss(params, x):
    """A small network with a scan inside: polyops ops, float32."""
    h = ops.tanh(ops.add(ops.matmul(x, params["w"]), params["b"]))
    _, ys = ops.scan(lambda c, r: (c * 0.5 + r, c * r), ops.zeros((2,)), h)
    return ops.mean(ys * ys) + ops.sum(ops.exp(-h * h)) * 0.1


def _loss_np(params, x):
    """The same function in float64 NumPy."""
    h = np.tanh(x @ params["w"] + params["b"])
    c, ys = np.zeros(2), []
    for r in h:
        c, y = c * 0.5 + r, c * r
        ys.append(y)
    ys = np.stack(ys)
    return np.mean(ys * ys) + np.sum(np.exp(-h * h)) * 0.1


def _central_differences(f, args, i, eps=1e-6):
    """d f / d args[i] (a dict of arrays or an array) by central differences in float64."""
    args = [{k: np.array(v, np.float64) for k, v in a.items()} if isinstance(a, dict)
            else np.array(a, np.float64) for a in args]
    target = args[i]
    leaves = target.items() if isinstance(target, dict) else [(None, target)]
    grads = {}
    for key, leaf in leaves:
        g = np.zeros_like(leaf)
        for idx in np.ndindex(leaf.shape):
            old = leaf[idx]
            leaf[idx] = old + eps
            up = f(*args)
            leaf[idx] = old - eps
            down = f(*args)
            leaf[idx] = old
            g[idx] = (up - down) / (2 * eps)
        grads[key] = g
    return grads if isinstance(target, dict) else grads[None]


def test_grad_matches_finite_differences(backend):
    params = {"w": W, "b": B}
    if backend not in DIFFERENTIATING:
        with polyops.use_backend(backend):
            with pytest.raises(NotImplementedError, match="jax, tensorflow, torch"):
                polyops.grad(_loss)(params, X)
            with pytest.raises(NotImplementedError, match=backend):
                polyops.value_and_grad(_loss)(params, X)
        return
    want_p = _central_differences(_loss_np, [params, X], 0)
    want_x = _central_differences(_loss_np, [params, X], 1)
    with polyops.use_backend(backend):
        value, g = polyops.value_and_grad(_loss)(params, X)
        assert isinstance(g, dict) and set(g) == {"w", "b"}  # the argument's structure
        gp, gx = polyops.grad(_loss, argnums=(0, 1))(params, X)
        value, g, gp, gx = to_numpy(value), {k: to_numpy(t) for k, t in g.items()}, gp, to_numpy(gx)
        gp = {k: to_numpy(t) for k, t in gp.items()}
    assert float(value) == pytest.approx(_loss_np(params, X), rel=1e-5)
    for k in ("w", "b"):
        np.testing.assert_allclose(g[k], want_p[k], rtol=1e-3, atol=1e-5, err_msg=k)
        np.testing.assert_allclose(gp[k], want_p[k], rtol=1e-3, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(gx, want_x, rtol=1e-3, atol=1e-5)


def test_grad_has_aux_and_errors(backend):
    def with_aux(x, y):
        return ops.sum(ops.multiply(x, y)), {"mean": ops.mean(x), "n": 3}

    with polyops.use_backend(backend):
        if backend not in DIFFERENTIATING:
            with pytest.raises(NotImplementedError, match="value_and_grad"):
                polyops.grad(with_aux, has_aux=True)(X, X * 2)
            return
        (value, aux), g = polyops.value_and_grad(with_aux, argnums=1, has_aux=True)(X, X * 2)
        assert float(to_numpy(value)) == pytest.approx(float((X * X * 2).sum()), rel=1e-5)
        assert float(to_numpy(aux["mean"])) == pytest.approx(float(X.mean()), rel=1e-5, abs=1e-6)
        assert aux["n"] == 3
        np.testing.assert_allclose(to_numpy(g), X)
        g, aux = polyops.grad(with_aux, has_aux=True)(X, X * 2)
        np.testing.assert_allclose(to_numpy(g), X * 2)
        assert float(to_numpy(aux["mean"])) == pytest.approx(float(X.mean()), rel=1e-5, abs=1e-6)
        with pytest.raises(TypeError, match="scalar"):
            polyops.grad(lambda x: x * 2.0)(X)
        with pytest.raises(TypeError, match="float"):
            polyops.grad(lambda x: ops.sum(x))(np.ones((3,), np.int32))
        with pytest.raises(ValueError, match="argnums"):
            polyops.grad(lambda x: ops.sum(x), argnums=2)(X)


def test_stop_and_custom_gradient_under_grad(backend):
    @ops.custom_gradient
    def no_grad_square(x):
        return ops.square(x), lambda upstream: ops.zeros_like(upstream)

    def f(x):
        x = ops.convert_to_tensor(x)
        return ops.sum(x * ops.stop_gradient(x)) + ops.sum(no_grad_square(x) * 0.0 + no_grad_square(x))

    with polyops.use_backend(backend):
        # forward: stop_gradient is the identity, custom_gradient gives f's output
        assert float(to_numpy(f(X))) == pytest.approx(float(2 * (X * X).sum()), rel=1e-5)
        if backend not in DIFFERENTIATING:
            return
        np.testing.assert_allclose(to_numpy(polyops.grad(f)(X)), X, rtol=1e-6)
        g = polyops.grad(lambda x: ops.sum(ops.stop_gradient(x) * 3.0))(X)
        np.testing.assert_array_equal(to_numpy(g), np.zeros_like(X))


# ----- devices ---------------------------------------------------------------------------------


def _placement(backend, t):
    """Where a tensor lives, as the framework says it ("cpu" for host memory)."""
    if backend == "jax":
        return {d.platform for d in t.devices()}.pop()
    if backend == "torch":
        return t.device.type
    if backend == "tensorflow":
        return t.device.rsplit("/", 1)[-1].split(":")[-2].lower()
    return "cpu" if isinstance(t, np.ndarray) else type(t).__name__


def test_devices_and_device_scope(backend):
    with polyops.use_backend(backend):
        devs = polyops.devices()
        assert devs and all(isinstance(d, str) for d in devs)
        assert any(d.lower().split(":")[0] == "cpu" for d in devs), devs
        for name in ("cpu", "cpu:0", "CPU:0", "/device:CPU:0"):
            with polyops.device(name):
                t = ops.ones((2,)) + ops.convert_to_tensor(np.ones(2, np.float32))
            assert _placement(backend, t) == "cpu", name
            np.testing.assert_array_equal(to_numpy(t), [2.0, 2.0])
        with pytest.raises(ValueError, match="device.*tpu:7"):
            with polyops.device("tpu:7"):
                pass
        with pytest.raises(TypeError, match="device"):
            with polyops.device(0):
                pass
