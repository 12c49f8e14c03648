"""Targeted tests of the tensor ops of `polyops.ops.core`: scatter, scatter_update, slice,
slice_update (edge cases and errors), saturate_cast of NaN and inf, unstack, rearrange and
custom_gradient.  Plain values are in the op table (`polyops.testing._records_core`)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy

DIFFERENTIATING = ("jax", "tensorflow", "torch")
RNG = np.random.default_rng(0)


# ----- scatter / scatter_update ---------------------------------------------------------------


def test_scatter_edge_cases(backend):
    with polyops.use_backend(backend):
        empty = ops.scatter(np.zeros((0, 1), np.int32), np.zeros((0, 2), np.float32), (3, 2))
        np.testing.assert_array_equal(to_numpy(empty), np.zeros((3, 2)))
        assert ops.dtype(empty) == "float32"
        # bool values at a duplicated index OR together
        out = ops.scatter(np.array([[1], [1], [1]], np.int32), np.array([True, False, True]), (3,))
        assert ops.dtype(out) == "bool"
        np.testing.assert_array_equal(to_numpy(out), [False, True, False])
        # int8 values keep their dtype; many duplicates add
        out = ops.scatter(np.zeros((40, 1), np.int32), np.ones((40,), np.int8), (2,))
        assert ops.dtype(out) == "int8"
        np.testing.assert_array_equal(to_numpy(out), [40, 0])


def test_scatter_errors(backend):
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="scatter"):  # values (3,) for rows of (2, 3)
            ops.scatter(np.array([[0], [1]], np.int32), np.ones((3,), np.float32), (4, 3))
        with pytest.raises(ValueError, match="scatter"):  # index depth 3 into rank 2
            ops.scatter(np.array([[0, 1, 2]], np.int32), np.ones((1,), np.float32), (4, 3))
        with pytest.raises(ValueError, match="scatter"):
            ops.scatter(np.int32(0), np.ones((), np.float32), (4,))
        with pytest.raises(ValueError, match="scatter"):
            ops.scatter(np.array([[0]], np.int32), np.ones((1,), np.float32), (-4,))
        with pytest.raises(TypeError, match="scatter"):
            ops.scatter(np.array([[0.5]], np.float32), np.ones((1,), np.float32), (4,))


def test_scatter_update_last_duplicate_wins(backend):
    """reduction=None: with many writes to one index, the last one wins on every backend."""
    n = 64
    updates = np.arange(n, dtype=np.float32)
    with polyops.use_backend(backend):
        out = ops.scatter_update(np.full((3,), -1.0, np.float32), np.zeros((n, 1), np.int32), updates)
        np.testing.assert_array_equal(to_numpy(out), [n - 1, -1, -1])
        idx = np.array([[0, 1], [1, 1], [0, -1], [0, 1]], np.int32)  # (0, 1) twice, last: 40
        out = ops.scatter_update(np.zeros((2, 2), np.int32), idx, np.array([10, 20, 30, 40], np.int32))
        np.testing.assert_array_equal(to_numpy(out), [[0, 40], [0, 20]])


def test_scatter_update_edge_cases_and_errors(backend):
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    with polyops.use_backend(backend):
        same = ops.scatter_update(x, np.zeros((0, 1), np.int32), np.zeros((0, 3), np.float32))
        np.testing.assert_array_equal(to_numpy(same), x)
        out = ops.scatter_update(x, np.array([[1], [1]], np.int32), np.ones((2, 3), np.float32),
                                 reduction="ADD")  # the reduction name is case-insensitive
        np.testing.assert_allclose(to_numpy(out)[1], x[1] + 2, rtol=1e-6)
        with pytest.raises(ValueError, match="scatter_update"):
            ops.scatter_update(x, np.array([[1]], np.int32), np.ones((1, 3)), reduction="mean")
        with pytest.raises(ValueError, match="scatter_update"):
            ops.scatter_update(x, np.array([[1]], np.int32), np.ones((1, 4), np.float32))
        with pytest.raises(ValueError, match="scatter_update"):
            ops.scatter_update(x, np.array([[1, 0, 0]], np.int32), np.ones((1,), np.float32))


# ----- slice / slice_update ---------------------------------------------------------------------


def test_slice_edge_cases_and_errors(backend):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.slice(x, [0, 0], [4, 6])), x)
        assert tuple(ops.shape(ops.slice(x, [2, 3], [0, 2]))) == (0, 2)
        # -1 with a start beyond the dim: the rest is empty
        assert tuple(ops.shape(ops.slice(x, [9, 0], [-1, 6]))) == (0, 6)
        np.testing.assert_array_equal(to_numpy(ops.slice(x, np.array([3, 5], np.int32), [2, 2])),
                                      x[2:4, 4:6])  # clamped tensor starts
        with pytest.raises(ValueError, match="slice"):
            ops.slice(x, [0], [2, 2])  # one start per dim
        with pytest.raises(ValueError, match="slice"):
            ops.slice(x, [0, 0], [2])  # one size per dim
        with pytest.raises(ValueError, match="slice"):
            ops.slice(x, [0, 0], [5, 2])  # larger than the dim
        with pytest.raises(ValueError, match="slice"):
            ops.slice(x, [0, 0], [-2, 2])


def test_slice_update_edge_cases_and_errors(backend):
    x = np.zeros((3, 4), np.int32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.slice_update(x, [1, 1], np.zeros((0, 2), np.int32))), x)
        full = ops.slice_update(x, [2, 2], np.ones((3, 4), np.float32))  # cast, start clamped to 0
        assert ops.dtype(full) == "int32"
        np.testing.assert_array_equal(to_numpy(full), np.ones((3, 4)))
        with pytest.raises(ValueError, match="slice_update"):
            ops.slice_update(x, [0, 0], np.ones((4,), np.int32))  # rank
        with pytest.raises(ValueError, match="slice_update"):
            ops.slice_update(x, [0, 0], np.ones((4, 1), np.int32))  # larger than the dim
        with pytest.raises(ValueError, match="slice_update"):
            ops.slice_update(x, [0], np.ones((1, 1), np.int32))  # one start per dim


def test_slice_symbolic():
    x = SymbolicTensor((None, 5))
    assert ops.slice(x, [1, 2], [3, 2]).shape == (3, 2)
    assert ops.slice(x, [1, 2], [-1, -1]).shape == (None, 3)
    assert ops.slice(x, SymbolicTensor((2,), "int32"), [2, -1]).shape == (2, None)
    assert ops.slice_update(x, [0, 0], SymbolicTensor((2, 2), "int8")).dtype == "float32"


# ----- saturate_cast --------------------------------------------------------------------------

def _supported(backend):
    from polyops._registry import get_backend

    return get_backend(backend).runtime.dtypes.values()


_SPECIAL = [np.nan, np.inf, -np.inf, 1e10, -1e10, 2.5]
_I32_TOP = 2147483520.0  # the largest float32 below 2**31
_BF16_I32_TOP = 2139095040.0  # the largest bfloat16 below 2**31
_BF16_F16_TOP = 65280.0  # the largest bfloat16 below float16's 65504


@pytest.mark.parametrize("src,dst,want", [
    # NaN -> 0 for integer targets; +-inf and out-of-range values -> the target's bounds
    ("float32", "int32", [0, _I32_TOP, -2**31, _I32_TOP, -2**31, 2]),
    ("float32", "uint8", [0, 255, 0, 255, 0, 2]),
    ("float32", "int8", [0, 127, -128, 127, -128, 2]),
    ("float32", "float16", [np.nan, 65504, -65504, 65504, -65504, 2.5]),
    # float16's range fits in int32: inf still clips to float16's largest finite value
    ("float16", "int32", [0, 65504, -65504, 65504, -65504, 2]),
    ("bfloat16", "int32", [0, _BF16_I32_TOP, -2**31, _BF16_I32_TOP, -2**31, 2]),
    ("bfloat16", "float16", [np.nan, _BF16_F16_TOP, -_BF16_F16_TOP, _BF16_F16_TOP, -_BF16_F16_TOP, 2.5]),
])
def test_saturate_cast_nan_and_inf(backend, src, dst, want):
    a = np.array(_SPECIAL, np.float32).astype(ml_dtypes.bfloat16 if src == "bfloat16" else src)
    with polyops.use_backend(backend):
        if src not in {polyops.standardize_dtype(d) for d in _supported(backend)}:
            pytest.skip(f"{backend} has no {src}")  # a backend declares its dtypes
        out = ops.saturate_cast(ops.convert_to_tensor(a, src), dst)
        assert ops.dtype(out) == dst
        got = to_numpy(out).astype(np.float64)
    np.testing.assert_array_equal(got, np.array(want, np.float64))


def test_saturate_cast_errors():
    with pytest.raises((TypeError, ValueError), match="saturate_cast"):
        ops.saturate_cast(np.ones(2, np.float32), "float99")


def test_cast_of_python_numbers(backend):
    """fori_loop's reference passes its index as a Python int: casting it must work."""
    with polyops.use_backend(backend):
        assert float(to_numpy(ops.cast(3, "float32"))) == 3.0
        assert ops.dtype(ops.cast(3, "float16")) == "float16"
        assert int(to_numpy(ops.cast(2.7, "int32"))) == 2
        assert bool(to_numpy(ops.cast(True, "float32")) == 1.0)


# ----- unstack / rearrange ----------------------------------------------------------------------


def test_unstack(backend):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with polyops.use_backend(backend):
        parts = ops.unstack(x)
        assert isinstance(parts, list) and len(parts) == 2
        np.testing.assert_array_equal(to_numpy(parts[1]), x[1])
        parts = ops.unstack(x, axis=-1)
        assert len(parts) == 4 and tuple(ops.shape(parts[0])) == (2, 3)
        np.testing.assert_array_equal(to_numpy(parts[3]), x[..., 3])
        assert len(ops.unstack(x, num=3, axis=1)) == 3
        with pytest.raises(ValueError, match="unstack"):
            ops.unstack(x, num=4, axis=1)
        with pytest.raises(ValueError, match="unstack"):
            ops.unstack(x, axis=3)


def test_unstack_symbolic():
    x = SymbolicTensor((None, 3))
    with pytest.raises(ValueError, match="unstack.*num"):
        ops.unstack(x)
    parts = ops.unstack(x, num=2)
    assert len(parts) == 2 and parts[0].shape == (3,)
    assert [p.shape for p in ops.unstack(x, axis=1)] == [(None,)] * 3


def test_rearrange_keras_examples(backend):
    """The examples of keras.ops.rearrange's docstring: reorder, merge, split with lengths."""
    x = RNG.normal(size=(4, 6, 5, 3)).astype(np.float32)
    with polyops.use_backend(backend):
        y = to_numpy(ops.rearrange(x, "b h w c -> b c h w"))
        np.testing.assert_array_equal(y, x.transpose(0, 3, 1, 2))
        y = to_numpy(ops.rearrange(x, "b h w c -> (b h) w c"))
        np.testing.assert_array_equal(y, x.reshape(24, 5, 3))
        y = to_numpy(ops.rearrange(x, "b (h1 h) w c -> (b h1) h w c", h1=2))
        np.testing.assert_array_equal(y, x.reshape(4, 2, 3, 5, 3).reshape(8, 3, 5, 3))
        y = to_numpy(ops.rearrange(x, "b h w c -> b (c h w)"))
        np.testing.assert_array_equal(y, x.transpose(0, 3, 1, 2).reshape(4, 90))
        y = to_numpy(ops.rearrange(x, "b (h1 h2) w c -> b h2 (w h1) c", h2=3))
        want = x.reshape(4, 2, 3, 5, 3).transpose(0, 2, 3, 1, 4).reshape(4, 3, 10, 3)
        np.testing.assert_array_equal(y, want)


def test_rearrange_symbolic_and_errors():
    x = SymbolicTensor((None, 6, 5))
    assert ops.rearrange(x, "b (g h) w -> b g (h w)", g=2).shape == (None, 2, 15)
    assert ops.rearrange(x, "b h w -> (b h) w").shape == (None, 5)
    a = np.ones((2, 6, 5), np.float32)
    for pattern, lengths in [
        ("b h w", {}),                      # no arrow
        ("b h -> b h", {}),                 # rank 2 pattern for a rank-3 tensor
        ("b h w -> b h", {}),               # w dropped
        ("b h w -> b h h", {}),             # a name twice
        ("b (h1 h2) w -> b h1 h2 w", {}),   # a group with two unknown lengths
        ("b (h1 h) w -> b h1 h w", {"h1": 4}),  # 6 does not split by 4
        ("b h w -> b w h", {"q": 2}),       # a length for an unknown name
        ("b h w -> b w h", {"h": 7}),       # a length that contradicts the dim
    ]:
        with pytest.raises(ValueError, match="rearrange"):
            ops.rearrange(a, pattern, **lengths)


# ----- custom_gradient ---------------------------------------------------------------------------


@ops.custom_gradient
def _log1pexp(x):
    """Keras's example: a numerically stable gradient of log(1 + exp(x))."""
    e = ops.exp(x)

    def grad(*args, upstream=None):
        if upstream is None:
            (upstream,) = args
        return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

    return ops.log(1 + e), grad


@ops.custom_gradient
def _scaled_product(x, y):
    """Two arguments: the custom gradients are (3 * upstream * y, upstream) on purpose."""

    def grad(upstream):
        return upstream * y * 3.0, upstream

    return x * y, grad


def test_custom_gradient(backend):
    """The forward value on every backend; the custom gradient where backends differentiate."""
    x = np.array([1.0, 100.0], np.float32)
    y = np.array([2.0, -1.0], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_allclose(to_numpy(_log1pexp(x))[0], np.log1p(np.e), rtol=1e-6)
        np.testing.assert_allclose(to_numpy(_scaled_product(x, y)), x * y)
        if backend not in DIFFERENTIATING:
            return
        g = to_numpy(polyops.grad(lambda t: ops.sum(_log1pexp(t)))(x))
        np.testing.assert_allclose(g, [1 / (1 + np.exp(-1.0)), 1.0], rtol=1e-6)  # not NaN at 100
        gx, gy = polyops.grad(lambda a, b: ops.sum(_scaled_product(a, b) * 2.0), argnums=(0, 1))(x, y)
        np.testing.assert_allclose(to_numpy(gx), 2.0 * 3.0 * y)
        np.testing.assert_allclose(to_numpy(gy), [2.0, 2.0])


def test_custom_gradient_symbolic():
    """On SymbolicTensors it infers the forward's spec."""
    out = _log1pexp(SymbolicTensor((None, 3), "float16"))
    assert out.shape == (None, 3) and out.dtype == "float16"
    with pytest.raises(TypeError, match="custom_gradient"):
        ops.custom_gradient(3)
