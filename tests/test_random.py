"""Tests of `polyops.random`: shapes and dtypes, reproducibility, SeedGenerator, statistics,
the same numbers on every backend, and fresh numbers inside `polyops.jit`.

Statistical checks use tolerances derived from the sample size: a mean within 6 standard
errors (sigma / sqrt(n)), a variance within 6 standard errors of the sample variance
(sqrt((m4 - var**2) / n), m4 the sample's fourth central moment).  With fixed seeds the
checks are deterministic; 6 standard errors keep them valid for any other seed with
probability > 1 - 1e-8.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops import random as prandom

from conftest import to_numpy

# One sample size for every 1-d draw: each new shape costs compilations on jax and openvino.
N = 20_000


LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))

# name -> draw(seed, n, dtype): n numbers (or n per row) of the function with fixed parameters
DRAWS = {
    "normal": lambda seed, n, dtype=None: prandom.normal((n,), 2.0, 3.0, dtype=dtype, seed=seed),
    "uniform": lambda seed, n, dtype=None: prandom.uniform((n,), -2.0, 3.0, dtype=dtype, seed=seed),
    "truncated_normal": lambda seed, n, dtype=None: prandom.truncated_normal(
        (n,), 1.0, 2.0, dtype=dtype, seed=seed),
    "gamma": lambda seed, n, dtype=None: prandom.gamma((n,), 2.5, dtype=dtype, seed=seed),
    "beta": lambda seed, n, dtype=None: prandom.beta((n,), 2.0, 5.0, dtype=dtype, seed=seed),
    "binomial": lambda seed, n, dtype=None: prandom.binomial((n,), 10, 0.3, dtype=dtype, seed=seed),
    "randint": lambda seed, n, dtype=None: prandom.randint((n,), -3, 7, dtype=dtype or "int32",
                                                           seed=seed),
    "categorical": lambda seed, n, dtype=None: prandom.categorical(
        LOGITS, n, dtype=dtype or "int32", seed=seed),
    "dropout": lambda seed, n, dtype=None: prandom.dropout(
        ops.ones((n,), dtype or "float32"), 0.3, seed=seed),
    "shuffle": lambda seed, n, dtype=None: prandom.shuffle(
        ops.arange(n, dtype=dtype or "int32"), seed=seed),
}
FLOAT_FUNCS = ("normal", "uniform", "truncated_normal", "gamma", "beta", "binomial")


def _mean_var(x, mean, var, name):
    """The sample mean and variance of ``x`` within 6 standard errors of ``mean``/``var``."""
    x = np.asarray(x, np.float64).ravel()
    n = x.size
    m, v = x.mean(), x.var()
    assert abs(m - mean) < 6 * math.sqrt(var / n), f"{name}: mean {m}, expected {mean}"
    m4 = np.mean((x - m) ** 4)
    se = math.sqrt(max(m4 - v * v, 0.0) / n)
    assert abs(v - var) < 6 * se, f"{name}: variance {v}, expected {var} (standard error {se:.3g})"


def _freq(hits, p, n, what):
    f = float(np.mean(hits))
    assert abs(f - p) < 6 * math.sqrt(p * (1 - p) / n), f"{what}: frequency {f}, expected {p}"


# ----- shapes and dtypes -------------------------------------------------------------------


def test_shapes_and_default_dtypes(backend):
    with polyops.use_backend(backend):
        for name in FLOAT_FUNCS:
            out = DRAWS[name](1, N)
            assert tuple(ops.shape(out)) == (N,) and ops.dtype(out) == "float32", name
        out = prandom.normal((2, 0, 3), seed=1)
        assert tuple(ops.shape(out)) == (2, 0, 3)
        assert ops.dtype(DRAWS["randint"](1, N)) == "int32"
        out = DRAWS["categorical"](1, N)
        assert tuple(ops.shape(out)) == (2, N) and ops.dtype(out) == "int32"
        out = prandom.dropout(np.ones((2, 3), np.float16), 0.5, seed=1)
        assert tuple(ops.shape(out)) == (2, 3) and ops.dtype(out) == "float16"
        out = prandom.shuffle(np.ones((4, 2), np.int8), axis=1, seed=1)
        assert tuple(ops.shape(out)) == (4, 2) and ops.dtype(out) == "int8"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_float_dtype_argument(backend, dtype):
    with polyops.use_backend(backend):
        for name in FLOAT_FUNCS:
            out = DRAWS[name](1, N, dtype)
            assert ops.dtype(out) == dtype, name
        assert ops.dtype(DRAWS["randint"](1, N, "int8")) == "int8"
        assert ops.dtype(DRAWS["categorical"](1, N, "int16")) == "int16"


def test_default_dtype_follows_floatx(backend):
    before = polyops.config.floatx()
    polyops.config.set_floatx("float16")
    try:
        with polyops.use_backend(backend):
            for name in FLOAT_FUNCS:
                assert ops.dtype(DRAWS[name](1, N)) == "float16", name
    finally:
        polyops.config.set_floatx(before)


def test_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="randint"):
            prandom.randint((3,), 5, 5, seed=1)
        with pytest.raises(ValueError, match="dropout"):
            prandom.dropout(ops.ones((3,)), 1.0, seed=1)
        with pytest.raises(ValueError, match="float dtype"):
            prandom.normal((3,), dtype="int32", seed=1)
        with pytest.raises(ValueError, match="integer dtype"):
            prandom.randint((3,), 0, 4, dtype="float32", seed=1)
        with pytest.raises(TypeError, match="seed"):
            prandom.normal((3,), seed=True)
        with pytest.raises(TypeError, match="seed"):
            prandom.normal((3,), seed="7")
        with pytest.raises(ValueError, match="categorical"):
            prandom.categorical(np.zeros((3,), np.float32), 2, seed=1)


# ----- reproducibility and SeedGenerator ------------------------------------------------------


def test_int_seeds_are_reproducible_and_distinct(backend):
    with polyops.use_backend(backend):
        for name, draw in DRAWS.items():
            a, b, c = to_numpy(draw(7, N)), to_numpy(draw(7, N)), to_numpy(draw(8, N))
            np.testing.assert_array_equal(a, b, err_msg=name)
            assert not np.array_equal(a, c), f"{name}: seeds 7 and 8 gave the same numbers"
        # seeds that differ only above 32 bits differ too
        assert not np.array_equal(to_numpy(prandom.uniform((N,), seed=1)),
                                  to_numpy(prandom.uniform((N,), seed=1 + 2**32)))


def test_seed_generator(backend):
    """Each draw advances the state: fresh numbers, and the same stream from the same seed."""
    with polyops.use_backend(backend):
        gen = prandom.SeedGenerator(42)
        first = [to_numpy(prandom.normal((N,), seed=gen)) for _ in range(3)]
        assert not np.array_equal(first[0], first[1])
        assert not np.array_equal(first[1], first[2])
        again = prandom.SeedGenerator(42)
        for want in first:
            np.testing.assert_array_equal(to_numpy(prandom.normal((N,), seed=again)), want)
        assert not np.array_equal(to_numpy(prandom.normal((N,), seed=prandom.SeedGenerator(43))), first[0])
        # seed=None draws from the backend's global generator: fresh on every call
        assert not np.array_equal(to_numpy(prandom.uniform((N,))), to_numpy(prandom.uniform((N,))))
        # an int32 (2,) seed tensor is used as it is: the generator's first seed is its state
        key = ops.convert_to_tensor([42, 0], "int32")
        np.testing.assert_array_equal(to_numpy(prandom.normal((N,), seed=key)), first[0])
    with pytest.raises(TypeError, match="SeedGenerator"):
        prandom.SeedGenerator(1.5)


# ----- statistics -----------------------------------------------------------------------------


def test_normal_uniform_truncated_statistics(backend):
    with polyops.use_backend(backend):
        x = to_numpy(DRAWS["normal"](3, N))
        _mean_var(x, 2.0, 9.0, "normal")
        u = to_numpy(DRAWS["uniform"](3, N))
        assert u.min() >= -2.0 and u.max() < 3.0
        _mean_var(u, 0.5, 25.0 / 12.0, "uniform")
        _freq(u < 0.0, 0.4, N, "uniform below 0")
        t = to_numpy(DRAWS["truncated_normal"](3, N))
        assert t.min() >= 1.0 - 4.0 and t.max() <= 1.0 + 4.0  # within 2 stddev of the mean
        # the variance of a standard normal truncated to [-2, 2]
        phi2 = math.exp(-2.0) / math.sqrt(2 * math.pi)
        factor = 1 - 4 * phi2 / math.erf(2 / math.sqrt(2))
        _mean_var(t, 1.0, 4.0 * factor, "truncated_normal")
        _freq(np.abs(t - 1.0) < 2.0, math.erf(1 / math.sqrt(2)) / math.erf(2 / math.sqrt(2)),
              N, "truncated_normal within 1 stddev")


def test_randint_statistics(backend):
    with polyops.use_backend(backend):
        r = to_numpy(DRAWS["randint"](5, N))
    assert r.dtype.kind == "i" and r.min() == -3 and r.max() == 6
    for v in range(-3, 7):
        _freq(r == v, 0.1, N, f"randint value {v}")


def test_categorical_frequencies(backend):
    with polyops.use_backend(backend):
        c = to_numpy(DRAWS["categorical"](11, N))
    p = np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True)
    assert c.min() >= 0 and c.max() <= 2
    for row in range(2):
        for k in range(3):
            _freq(c[row] == k, float(p[row, k]), N, f"categorical row {row} class {k}")


def test_dropout(backend):
    rate = 0.3
    with polyops.use_backend(backend):
        d = to_numpy(DRAWS["dropout"](13, N))
        shared = to_numpy(prandom.dropout(ops.ones((N // 4, 4)), rate, noise_shape=(N // 4, 1), seed=13))
        kept = to_numpy(prandom.dropout(ops.ones((5,)), 0.0, seed=13))
    _freq(d == 0, rate, N, "dropout zeros")
    np.testing.assert_allclose(d[d != 0], 1 / (1 - rate), rtol=1e-6)  # survivors scaled
    assert (shared == shared[:, :1]).all()  # one mask value per row
    _freq(shared[:, 0] == 0, rate, N // 4, "dropout zeros with noise_shape")
    np.testing.assert_array_equal(kept, np.ones(5))


def test_shuffle_is_a_permutation(backend):
    with polyops.use_backend(backend):
        s = to_numpy(DRAWS["shuffle"](17, N))
        m = np.arange(12, dtype=np.float32).reshape(3, 4)
        cols = to_numpy(prandom.shuffle(m, axis=1, seed=17))
    np.testing.assert_array_equal(np.sort(s), np.arange(N))
    assert (s != np.arange(N)).mean() > 0.99  # not (nearly) the identity
    perm = cols[0].astype(int)  # each row moved by the same column permutation
    np.testing.assert_array_equal(cols, m[:, perm])
    np.testing.assert_array_equal(np.sort(perm), np.arange(4))


def test_gamma_beta_binomial_statistics(backend):
    with polyops.use_backend(backend):
        g = to_numpy(DRAWS["gamma"](19, N))
        small = to_numpy(prandom.gamma((N,), 0.5, seed=19))  # alpha < 1 takes the boost path
        b = to_numpy(DRAWS["beta"](19, N))
        k = to_numpy(DRAWS["binomial"](19, N))
        per = to_numpy(prandom.binomial((2, N // 2), np.array([[4.0], [20.0]], np.float32),
                                   np.array([[0.5], [0.1]], np.float32), seed=19))
    assert g.min() > 0 and small.min() > 0
    _mean_var(g, 2.5, 2.5, "gamma(2.5)")
    _mean_var(small, 0.5, 0.5, "gamma(0.5)")
    assert b.min() > 0 and b.max() < 1
    a_, b_ = 2.0, 5.0
    _mean_var(b, a_ / (a_ + b_), a_ * b_ / ((a_ + b_) ** 2 * (a_ + b_ + 1)), "beta(2, 5)")
    assert (k == np.round(k)).all() and k.min() >= 0 and k.max() <= 10
    _mean_var(k, 3.0, 2.1, "binomial(10, 0.3)")
    # counts and probabilities as tensors broadcast per row
    assert per[0].max() <= 4 and per[1].max() <= 20
    _mean_var(per[0], 2.0, 1.0, "binomial(4, 0.5)")
    _mean_var(per[1], 2.0, 1.8, "binomial(20, 0.1)")


# ----- one generator on every backend ------------------------------------------------------------


def test_same_numbers_on_every_backend(backend):
    """The references are one counter-based generator written in polyops int32 ops: an int
    seed gives the numpy backend's numbers on every backend (floats up to rounding)."""
    results = {}
    for b in dict.fromkeys(["numpy", backend]):
        with polyops.use_backend(b):
            results[b] = {name: to_numpy(draw(123, N)) for name, draw in DRAWS.items()}
    for name in DRAWS:
        got, want = results[backend][name], results["numpy"][name]
        if got.dtype.kind in "iub":
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6, err_msg=name)


# ----- inside polyops.jit ---------------------------------------------------------------------


def test_seed_generator_inside_jit(backend):
    """A SeedGenerator inside a compiled function gives fresh numbers on every call, the
    same stream as eager draws, and its state advances; later calls do not compile again."""
    with polyops.use_backend(backend):
        gen = prandom.SeedGenerator(5)

        @polyops.jit
        def noisy(x):
            return x + prandom.normal((4,), seed=gen)

        x = np.zeros((4,), np.float32)
        got = [to_numpy(noisy(x))]
        traces = noisy.traces
        got += [to_numpy(noisy(x)) for _ in range(2)]
        eager = prandom.SeedGenerator(5)
        want = [to_numpy(prandom.normal((4,), seed=eager)) for _ in range(3)]
        state = to_numpy(gen.state.value)
    assert not np.array_equal(got[0], got[1]) and not np.array_equal(got[1], got[2])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(state, [5, 3])
    assert noisy.traces == traces, "the compiled function was traced again"
    assert (noisy.traces > 0) == (backend != "numpy")
    if backend != "numpy":
        assert noisy.cache_size() == 1
