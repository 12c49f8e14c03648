"""Targeted tests of `polyops.ops.nn.activations`: options, stability, NaN, errors, symbolic."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import tensor, to_numpy

NAN, INF = np.nan, np.inf

ELEMENTWISE = ("relu6", "sparse_sigmoid", "softplus", "softsign", "soft_shrink", "sparse_plus",
               "silu", "squareplus", "log_sigmoid", "leaky_relu", "hard_sigmoid", "hard_silu",
               "elu", "selu", "gelu", "celu", "tanh_shrink", "hard_tanh", "hard_shrink")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- signatures and aliases ---------------------------------------------------------------


def test_signatures_follow_keras():
    want = {
        "soft_shrink": "(x, threshold=0.5)", "squareplus": "(x, b=4)",
        "leaky_relu": "(x, negative_slope=0.2)", "elu": "(x, alpha=1.0)",
        "gelu": "(x, approximate=True)", "celu": "(x, alpha=1.0)", "glu": "(x, axis=-1)",
        "hard_shrink": "(x, threshold=0.5)", "threshold": "(x, threshold, default_value)",
        "log_softmax": "(x, axis=-1)", "sparsemax": "(x, axis=-1)", "relu6": "(x)",
    }
    for name, sig in want.items():
        assert str(inspect.signature(getattr(ops, name))) == sig, name


def test_aliases():
    assert ops.swish is ops.silu and ops.nn.swish is ops.nn.silu
    assert ops.hard_swish is ops.hard_silu


# -- values ----------------------------------------------------------------------------------


def test_keras_docstring_examples(backend):
    with polyops.use_backend(backend):
        x = tensor([-1.0, 0.0, 1.0])
        cases = {
            "relu6": (tensor([-3.0, 0.0, 0.1, 0.2, 6.0, 7.0]), [0.0, 0.0, 0.1, 0.2, 6.0, 6.0]),
            "sparse_sigmoid": (tensor([-6.0, 1.0, 0.0, 1.0, 6.0]), [0.0, 1.0, 0.5, 1.0, 1.0]),
            "softplus": (tensor([-0.555, 0.0, 0.555]), [0.45366603, 0.6931472, 1.008666]),
            "softsign": (tensor([-0.10, -10.0, 1.0, 0.0, 100.0]), [-0.09090909, -0.90909094, 0.5, 0.0, 0.990099]),
            "soft_shrink": (x, [-0.5, 0.0, 0.5]),
            "sparse_plus": (x, [0.0, 0.25, 1.0]),
            "silu": (tensor([-6.0, 1.0, 0.0, 1.0, 6.0]), [-0.0148357, 0.7310586, 0.0, 0.7310586, 5.9851646]),
            "squareplus": (x, [0.618034, 1.0, 1.618034]),
            "log_sigmoid": (tensor([-0.541391, 0.0, 0.50, 5.0]), [-1.0000418, -0.6931472, -0.474077, -0.00671535]),
            "leaky_relu": (x, [-0.2, 0.0, 1.0]),
            "hard_sigmoid": (tensor([-1.2, 0.0, 1.2]), [0.3, 0.5, 0.7]),
            "hard_silu": (tensor([-3.0, -1.0, 0.0, 1.0, 3.0]), [0.0, -0.3333333, 0.0, 0.6666667, 3.0]),
            "elu": (x, [-0.63212055, 0.0, 1.0]),
            "selu": (x, [-1.11133055, 0.0, 1.05070098]),
            "celu": (x, [-0.63212056, 0.0, 1.0]),
            "tanh_shrink": (x, [-0.23840584, 0.0, 0.23840584]),
            "hard_tanh": (tensor([-2.0, 0.5, 2.0]), [-1.0, 0.5, 1.0]),
            "hard_shrink": (tensor([-0.5, 0.0, 1.0]), [0.0, 0.0, 1.0]),
        }
        for name, (arg, want) in cases.items():
            np.testing.assert_allclose(to_numpy(getattr(ops, name)(arg)), want, rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(to_numpy(ops.gelu(x, approximate=False)), [-0.15865525, 0.0, 0.84134475], rtol=1e-5)
        np.testing.assert_allclose(to_numpy(ops.gelu(x)), [-0.158808, 0.0, 0.841192], rtol=1e-5)
        np.testing.assert_allclose(to_numpy(ops.glu(tensor([-1.0, 0.0, 1.0, 1.0]))), [-0.73105858, 0.0], rtol=1e-5)
        np.testing.assert_allclose(to_numpy(ops.threshold(tensor([-1.0, 0.5, 2.0]), 1.0, 0.0)), [0.0, 0.0, 2.0])


def test_static_arguments(backend):
    with polyops.use_backend(backend):
        x = tensor([-2.0, -0.5, 0.5, 2.0])
        np.testing.assert_allclose(to_numpy(ops.soft_shrink(x, threshold=1.0)), [-1.0, 0.0, 0.0, 1.0])
        np.testing.assert_allclose(to_numpy(ops.hard_shrink(x, 1)), [-2.0, 0.0, 0.0, 2.0])
        np.testing.assert_allclose(to_numpy(ops.leaky_relu(x, negative_slope=2.0)), [-4.0, -1.0, 0.5, 2.0])
        np.testing.assert_allclose(to_numpy(ops.elu(x, alpha=2)), [2 * np.expm1(-2.0), 2 * np.expm1(-0.5), 0.5, 2.0],
                                   rtol=1e-6)
        np.testing.assert_allclose(to_numpy(ops.celu(x, alpha=0.5)),
                                   [0.5 * np.expm1(-4.0), 0.5 * np.expm1(-1.0), 0.5, 2.0], rtol=1e-6)
        np.testing.assert_allclose(to_numpy(ops.squareplus(x, b=0)), [0.0, 0.0, 0.5, 2.0], atol=1e-7)
        np.testing.assert_allclose(to_numpy(ops.threshold(x, threshold=-1, default_value=7)), [7.0, -0.5, 0.5, 2.0])


def test_nan_propagates(backend):
    with polyops.use_backend(backend):
        x = tensor([NAN, 1.0])
        for name in ELEMENTWISE:
            got = to_numpy(_quiet(getattr(ops, name), x))
            assert np.isnan(got[0]), name
        assert np.isnan(to_numpy(ops.threshold(x, 0.0, 5.0))[0])
        assert np.isnan(to_numpy(ops.gelu(x, approximate=False))[0])


def test_infinities(backend):
    with polyops.use_backend(backend):
        x = tensor([-INF, INF])
        want = {"relu6": [0, 6], "sparse_sigmoid": [0, 1], "softplus": [0, INF], "log_sigmoid": [-INF, 0],
                "sparse_plus": [0, INF], "hard_sigmoid": [0, 1], "elu": [-1, INF], "celu": [-1, INF],
                "hard_tanh": [-1, 1], "hard_shrink": [-INF, INF], "soft_shrink": [-INF, INF],
                "leaky_relu": [-INF, INF], "tanh_shrink": [-INF, INF]}
        for name, w in want.items():
            np.testing.assert_array_equal(to_numpy(_quiet(getattr(ops, name), x)), np.float32(w), err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_softplus_log_sigmoid_stable(backend, dtype):
    big = 30000.0 if dtype != "float32" else 1e30
    with polyops.use_backend(backend):
        x = tensor([-big, -100.0, 100.0, big], dtype)
        sp = to_numpy(ops.softplus(x)).astype(np.float64)
        ls = to_numpy(ops.log_sigmoid(x)).astype(np.float64)
        xf = np.asarray(to_numpy(x), np.float64)
        assert np.isfinite(sp).all() and np.isfinite(ls).all()
        np.testing.assert_allclose(sp, np.logaddexp(xf, 0), rtol=1e-2, atol=1e-30)
        np.testing.assert_allclose(ls, -np.logaddexp(-xf, 0), rtol=1e-2, atol=1e-30)


def test_log_softmax_stable(backend):
    with polyops.use_backend(backend):
        x = tensor([[1e4, 0.0, -1e4], [1.0, 2.0, 3.0]])
        got = to_numpy(ops.log_softmax(x))
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got[0], [0.0, -1e4, -2e4], rtol=1e-6)
        np.testing.assert_allclose(np.exp(got[1]).sum(), 1.0, rtol=1e-6)
        got = to_numpy(ops.log_softmax(x, axis=0))
        np.testing.assert_allclose(np.exp(got).sum(axis=0), 1.0, rtol=1e-5)


def test_sparsemax_is_a_projection(backend):
    with polyops.use_backend(backend):
        # Keras 3's backends give [0, 0.5, 0, 0.25] here (tau from the sum of the cumsums)
        x = tensor([[0.0, 1.0, -1.0, 0.5], [3.0, 0.0, 0.0, 0.0]])
        got = to_numpy(ops.sparsemax(x))
        np.testing.assert_allclose(got, [[0.0, 0.75, 0.0, 0.25], [1.0, 0.0, 0.0, 0.0]], atol=1e-6)
        got = to_numpy(ops.sparsemax(tensor(np.random.default_rng(0).normal(0, 1, (3, 6))), axis=0))
        np.testing.assert_allclose(got.sum(axis=0), 1.0, rtol=1e-5)
        assert (got >= 0).all()
        np.testing.assert_allclose(to_numpy(ops.sparsemax(tensor([1.0, 1.0, 1.0, 1.0]))), [0.25] * 4, rtol=1e-6)


def test_glu_halves(backend):
    with polyops.use_backend(backend):
        x = np.arange(12, dtype=np.float32).reshape(2, 6) / 4 - 1
        got = to_numpy(ops.glu(tensor(x), axis=1))
        want = x[:, :3] / (1 + np.exp(-x[:, 3:]))
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert ops.shape(ops.glu(tensor(np.zeros((4, 0))), axis=0)) == (2, 0)


def test_dtypes(backend):
    with polyops.use_backend(backend):
        i = ops.convert_to_tensor(np.array([-7, 2, 9], np.int32), "int32")
        out = ops.relu6(i)
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), [0, 2, 6])
        assert ops.dtype(ops.relu6(ops.convert_to_tensor(np.array([1, 200], np.uint8), "uint8"))) == "uint8"
        for name in ELEMENTWISE[1:]:
            assert ops.dtype(getattr(ops, name)(i)) == "float32", name
        np.testing.assert_allclose(to_numpy(ops.leaky_relu(i)), [-1.4, 2.0, 9.0], rtol=1e-6)
        np.testing.assert_allclose(to_numpy(ops.hard_tanh(i)), [-1.0, 1.0, 1.0])
        for dt in ("float16", "bfloat16"):
            x = tensor([-1.0, 0.5], dt)
            for name in ELEMENTWISE + ("log_softmax", "sparsemax"):
                assert ops.dtype(getattr(ops, name)(x)) == dt, (name, dt)
        b = ops.convert_to_tensor(np.array([True, False]), "bool")
        assert ops.dtype(ops.relu6(b)) == "int32" and ops.dtype(ops.gelu(b)) == "float32"


def test_python_scalar_input():
    np.testing.assert_allclose(to_numpy(ops.softplus(0.0)), np.log(2), rtol=1e-6)
    assert ops.dtype(ops.elu(1)) == "float32"


# -- errors ------------------------------------------------------------------------------------


def test_glu_odd_axis(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=r"glu.*axis=-1.*\(2, 3\)"):
            ops.glu(tensor(np.zeros((2, 3))))
        with pytest.raises(ValueError, match="glu.*axis=0"):
            ops.glu(tensor(np.zeros((3, 2))), axis=0)
        with pytest.raises(ValueError, match="glu"):
            ops.glu(tensor(np.zeros((2, 4))), axis=2)
        with pytest.raises(ValueError, match="glu"):
            ops.glu(tensor(1.0))
    with pytest.raises(ValueError, match="glu.*axis=1"):
        ops.glu(SymbolicTensor((None, 5), "float32"), axis=1)


def test_bad_static_arguments(backend):
    with polyops.use_backend(backend):
        x = tensor([1.0, -1.0])
        for fn, exc, frag in (
            (lambda: ops.leaky_relu(x, negative_slope="a"), TypeError, "leaky_relu.*negative_slope='a'"),
            (lambda: ops.elu(x, alpha=None), TypeError, "elu.*alpha=None"),
            (lambda: ops.celu(x, alpha=0), ValueError, "celu.*alpha=0"),
            (lambda: ops.gelu(x, approximate="yes"), TypeError, "gelu.*approximate='yes'"),
            (lambda: ops.soft_shrink(x, threshold=[1.0]), TypeError, r"soft_shrink.*threshold=\[1.0\]"),
            (lambda: ops.hard_shrink(x, threshold="1"), TypeError, "hard_shrink.*threshold='1'"),
            (lambda: ops.squareplus(x, b=object()), TypeError, "squareplus.*b="),
            (lambda: ops.threshold(x, 0.0, "z"), TypeError, "threshold.*default_value='z'"),
            (lambda: ops.threshold(x, 0.0), TypeError, "default_value"),
            (lambda: ops.log_softmax(x, axis=1), ValueError, "log_softmax.*axis=1"),
            (lambda: ops.sparsemax(x, axis=-2), ValueError, "sparsemax.*axis=-2"),
            (lambda: ops.sparsemax(tensor(1.0)), ValueError, "sparsemax"),
        ):
            with pytest.raises(exc, match=frag):
                fn()


def test_complex_rejected():
    z = SymbolicTensor((2,), "complex64")
    for name in ELEMENTWISE:
        with pytest.raises(TypeError, match=f"{name}.*complex"):
            getattr(ops, name)(z)
    with pytest.raises(TypeError, match="sparsemax.*complex"):
        ops.sparsemax(z)


def test_symbolic_calls():
    x = SymbolicTensor((None, 4, None), "float16")
    for name in ELEMENTWISE + ("log_softmax", "sparsemax"):
        out = getattr(ops, name)(x)
        assert out.shape == (None, 4, None) and out.dtype == "float16", name
    out = ops.glu(x, axis=1)
    assert out.shape == (None, 2, None) and out.dtype == "float16"
    assert ops.glu(x, axis=-1).shape == (None, 4, None)
    assert ops.threshold(SymbolicTensor((3,), "int8"), 0, 1).dtype == "float32"
    assert ops.relu6(SymbolicTensor((3,), "int8")).dtype == "int8"
    with pytest.raises(TypeError, match="celu"):
        ops.celu(x, alpha="a")
    with pytest.raises(ValueError, match="celu.*alpha=0"):
        ops.celu(x, alpha=0.0)


@pytest.mark.parametrize("backend_name", [b for b in ("jax", "tensorflow")
                                          if b in polyops.available_backends()])
def test_traced(backend_name):
    """The references (sort-based sparsemax, exact gelu through erf) trace."""
    x = np.array([[0.0, 1.0, -1.0, 0.5], [NAN, 2.0, 1.0, -3.0]], np.float32)

    def body(t):
        return (ops.sparsemax(t[:1]), ops.gelu(t, approximate=False), ops.softplus(t),
                ops.glu(t), ops.log_softmax(t[:1]), ops.soft_shrink(t))

    with polyops.use_backend(backend_name):
        eager = [to_numpy(o) for o in body(ops.convert_to_tensor(x))]
        if backend_name == "jax":
            import jax

            traced = jax.jit(body)(ops.convert_to_tensor(x))
        else:
            import tensorflow as tf

            traced = tf.function(body)(ops.convert_to_tensor(x))
        for e, t in zip(eager, traced):
            np.testing.assert_allclose(to_numpy(t), e, rtol=1e-6, equal_nan=True)
