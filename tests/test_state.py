"""Tests of `polyops.Variable`, `DTypePolicy`, the global dtype policy and `AutocastScope`."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import _state, ops

from conftest import to_numpy


@pytest.fixture
def restore_policy():
    """Tests that set the global dtype policy restore it (unset, it follows floatx)."""
    before = _state._POLICY
    yield
    _state.set_dtype_policy(before)


# ----- Variable --------------------------------------------------------------------------------


def test_variable_value_and_assign(backend):
    with polyops.use_backend(backend):
        v = polyops.Variable(np.array([1.0, 2.0], np.float32), name="w")
        assert v.name == "w" and v.shape == (2,) and v.ndim == 1 and v.dtype == "float32"
        assert v.trainable and "w" in repr(v)
        assert ops.is_tensor(v.value)  # a tensor of the current backend
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
        v.assign([3, 4])  # converted to the variable's dtype
        assert ops.dtype(v.value) == "float32"
        np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
        v.assign_add(np.array([1.0, 1.0], np.float32))
        v.assign_sub(ops.convert_to_tensor([0.5, 0.5]))
        np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
        v.assign(polyops.Variable([7.0, 8.0]))  # another Variable's value
        np.testing.assert_array_equal(np.asarray(v), [7.0, 8.0])
        with pytest.raises(ValueError, match="'w'.*shape"):
            v.assign(np.zeros((3,), np.float32))
        with pytest.raises(ValueError, match="shape"):
            v.assign_add(np.zeros((2, 2), np.float32))
        with pytest.raises(TypeError, match="SymbolicTensor"):
            v.assign(polyops.SymbolicTensor((2,)))


def test_variable_in_ops_and_operators(backend):
    with polyops.use_backend(backend):
        v = polyops.Variable(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
        m = v.numpy()
        np.testing.assert_array_equal(to_numpy(ops.sum(v, axis=0)), m.sum(0))
        np.testing.assert_array_equal(to_numpy(ops.matmul(v, v)), m @ m)
        np.testing.assert_array_equal(to_numpy(v + 1), m + 1)
        np.testing.assert_array_equal(to_numpy(2 * v), 2 * m)
        np.testing.assert_array_equal(to_numpy(v - v), np.zeros((2, 2)))
        np.testing.assert_array_equal(to_numpy(v / 2), m / 2)
        np.testing.assert_array_equal(to_numpy(1 - v), 1 - m)
        np.testing.assert_array_equal(to_numpy(v @ v), m @ m)
        np.testing.assert_array_equal(to_numpy(v ** 2), m ** 2)
        np.testing.assert_array_equal(to_numpy(-v), -m)
        np.testing.assert_array_equal(to_numpy(abs(v)), np.abs(m))
        np.testing.assert_array_equal(to_numpy(v > 0), m > 0)
        np.testing.assert_array_equal(to_numpy(v[1]), m[1])
        assert len(v) == 2
        i = polyops.Variable(5, dtype="int32")
        assert i.dtype == "int32" and int(i.numpy()) == 5
        assert bool(polyops.Variable(1.0))


def test_variable_initializers(backend):
    def init(shape, dtype):
        return np.full(shape, 0.5, dtype)

    with polyops.use_backend(backend):
        v = polyops.Variable(init, shape=(2, 3))
        assert v.shape == (2, 3) and v.dtype == "float32"
        np.testing.assert_array_equal(v.numpy(), np.full((2, 3), 0.5))
        v = polyops.Variable(init, shape=(4,), dtype="float16")
        assert v.dtype == "float16"
        v = polyops.Variable(lambda shape, dtype: ops.zeros(shape, dtype), shape=(3,), dtype="int8")
        assert v.dtype == "int8" and ops.dtype(v.value) == "int8"
        with pytest.raises(ValueError, match="shape"):
            polyops.Variable(init)  # a callable needs shape=
        with pytest.raises(ValueError, match="shape"):
            polyops.Variable(np.zeros((2,)), shape=(3,))
        assert polyops.Variable(1.5).dtype == "float32"  # Python floats: floatx
        assert polyops.Variable(np.zeros((2,), np.float16)).dtype == "float16"


# ----- DTypePolicy ----------------------------------------------------------------------------


@pytest.mark.parametrize("name,compute,variable", [
    ("float32", "float32", "float32"),
    ("float16", "float16", "float16"),
    ("bfloat16", "bfloat16", "bfloat16"),
    ("mixed_float16", "float16", "float32"),
    ("mixed_bfloat16", "bfloat16", "float32"),
])
def test_dtype_policy_names(name, compute, variable):
    p = polyops.DTypePolicy(name)
    assert (p.name, p.compute_dtype, p.variable_dtype) == (name, compute, variable)
    assert p == polyops.DTypePolicy(p) and hash(p) == hash(polyops.DTypePolicy(name))
    assert name in repr(p)


def test_dtype_policy_errors_and_default():
    for bad in ("mixed_int8", "float", "int32", ""):
        with pytest.raises(ValueError, match="DTypePolicy"):
            polyops.DTypePolicy(bad)
    assert polyops.DTypePolicy().name == polyops.config.floatx()
    assert polyops.DTypePolicy("float16") != polyops.DTypePolicy("mixed_float16")


def test_set_dtype_policy(restore_policy):
    polyops.config.set_dtype_policy("mixed_bfloat16")
    assert polyops.config.dtype_policy() == polyops.DTypePolicy("mixed_bfloat16")
    v = polyops.Variable(1.0)  # Python floats are stored in the policy's variable dtype
    assert v.dtype == "float32"
    polyops.config.set_dtype_policy(polyops.DTypePolicy("float16"))
    assert polyops.Variable([1.0, 2.0]).dtype == "float16"
    assert polyops.Variable(np.ones(2, np.float32)).dtype == "float32"  # arrays keep theirs
    with pytest.raises(ValueError, match="DTypePolicy"):
        polyops.config.set_dtype_policy("nope")
    polyops.config.set_dtype_policy(None)  # back to following floatx
    assert polyops.config.dtype_policy().name == polyops.config.floatx()


# ----- mixed precision -------------------------------------------------------------------------


@pytest.mark.parametrize("policy_name", ["mixed_float16", "mixed_bfloat16"])
def test_mixed_precision_autocast(backend, policy_name, restore_policy):
    polyops.config.set_dtype_policy(policy_name)
    policy = polyops.config.dtype_policy()
    compute = policy.compute_dtype
    w0 = np.array([[0.5, -1.25], [2.0, 0.125]], np.float32)
    with polyops.use_backend(backend):
        w = polyops.Variable(w0.tolist())
        fixed = polyops.Variable(w0, autocast=False)
        steps = polyops.Variable(3, dtype="int32")
        assert w.dtype == "float32" and ops.dtype(w.value) == "float32"
        x = ops.convert_to_tensor(np.ones((1, 2)), compute)
        with polyops.AutocastScope(compute):
            assert ops.dtype(w.value) == compute
            y = ops.matmul(x, w)
            assert ops.dtype(y) == compute  # the op runs in the compute dtype
            np.testing.assert_allclose(to_numpy(y).astype(np.float32), np.ones((1, 2)) @ w0)
            assert ops.dtype(fixed.value) == "float32"  # autocast=False
            assert ops.dtype(steps.value) == "int32"  # only float variables are cast
            with polyops.AutocastScope(None):
                assert ops.dtype(w.value) == "float32"
            assert ops.dtype(w.value) == compute
            w.assign_add(np.full((2, 2), 1e-3, np.float32))  # updates stay in float32
        assert ops.dtype(w.value) == "float32" and w.dtype == "float32"
        np.testing.assert_allclose(w.numpy(), w0 + 1e-3, rtol=1e-6)  # not rounded to 16 bits
        with pytest.raises(ValueError, match="AutocastScope"):
            polyops.AutocastScope("int32")
