"""Dtype promotion: every binary op on every backend returns the lattice's dtype."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

DTYPES = ["bool", "int8", "int16", "int32", "uint8", "float16", "bfloat16", "float32"]
SCALARS = {"pyint": 3, "pyfloat": 2.5, "pybool": True}
FLOATS = ("bfloat16", "float16", "float32", "float64")

SAME = lambda rt: rt  # noqa: E731
NUMERIC = lambda rt: "int32" if rt == "bool" else rt  # noqa: E731
FLOATING = lambda rt: rt if rt in FLOATS else polyops.config.floatx()  # noqa: E731
BOOL = lambda rt: "bool"  # noqa: E731

BINARY = {
    "add": SAME, "multiply": SAME, "maximum": SAME, "minimum": SAME,
    "subtract": NUMERIC, "floor_divide": NUMERIC, "mod": NUMERIC, "power": NUMERIC,
    "divide": FLOATING,
    "equal": BOOL, "not_equal": BOOL, "less": BOOL, "less_equal": BOOL,
    "greater": BOOL, "greater_equal": BOOL, "logical_and": BOOL, "logical_or": BOOL,
}

PAIRS = [(a, b) for a in DTYPES for b in DTYPES]
PAIRS += [(a, s) for a in DTYPES for s in SCALARS] + [(s, a) for a in DTYPES for s in SCALARS]


def _operand(name, shape=(2,)):
    if name in SCALARS:
        return SCALARS[name]
    return ops.ones(shape, dtype=name) if name != "bool" else ops.full(shape, True, dtype="bool")


def _lattice(a, b):
    return polyops.result_type(SCALARS.get(a, a), SCALARS.get(b, b))


@pytest.mark.parametrize("op_name", sorted(BINARY))
def test_binary_result_dtypes(op_name, backend):
    fn = getattr(ops, op_name)
    bad = []
    with polyops.use_backend(backend):
        for a, b in PAIRS:
            want = BINARY[op_name](_lattice(a, b))
            got = ops.dtype(fn(_operand(a), _operand(b)))
            sym_a = SCALARS.get(a) if a in SCALARS else SymbolicTensor((2,), a)
            sym_b = SCALARS.get(b) if b in SCALARS else SymbolicTensor((2,), b)
            sym = fn(sym_a, sym_b).dtype
            if got != want or sym != want:
                bad.append(f"{a} x {b}: eager {got}, symbolic {sym}, lattice {want}")
    assert not bad, f"{op_name} on {backend}:\n" + "\n".join(bad)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES + ["int", "float"])
def test_lattice_matches_jax(a, b):
    """Our lattice agrees with JAX's (x64 off), the reference Keras adapts."""
    jnp = pytest.importorskip("jax.numpy")
    other = {"int": 3, "float": 2.5}.get(b)  # a Python scalar is weak in JAX too
    if other is None:
        other = b
        want = jnp.result_type(jnp.zeros((), a), jnp.zeros((), b))
    else:
        want = jnp.result_type(jnp.zeros((), a), other)
    assert polyops.result_type(a, other) == np.dtype(want).name


def test_weak_scalars_keep_tensor_dtype():
    assert polyops.result_type("int8", 3) == "int8"
    assert polyops.result_type("float16", 2.5) == "float16"
    assert polyops.result_type("int8", 2.5) == "float32"
    assert polyops.result_type("bool", 1) == "int32"
    assert polyops.result_type(1, 2.0) == "float32"


def test_64_bit_demotes():
    assert polyops.result_type("int64", "int32") == "int32"
    assert polyops.result_type("float64", "float32") == "float32"
    assert polyops.result_type("uint64") == "uint32"


def test_result_type_is_cached():
    from polyops._dtypes import _result_type

    polyops.result_type("int8", "uint8")
    hits = _result_type.cache_info().hits
    polyops.result_type("int8", "uint8")
    assert _result_type.cache_info().hits == hits + 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_standardize_dtype_of_every_backend(dtype, backend):
    with polyops.use_backend(backend):
        x = ops.zeros((1,), dtype=dtype)
        assert polyops.standardize_dtype(x.dtype) == dtype
        assert ops.dtype(x) == dtype


def test_standardize_framework_dtype_objects():
    """Dtype objects of every installed framework map to canonical names."""
    import importlib.util

    pairs = [(np.float32, "float32"), (np.dtype("uint8"), "uint8"), (bool, "bool"), ("f16", "float16")]
    import ml_dtypes

    pairs.append((ml_dtypes.bfloat16, "bfloat16"))
    if importlib.util.find_spec("torch"):
        import torch

        pairs += [(torch.bfloat16, "bfloat16"), (torch.int16, "int16"), (torch.bool, "bool")]
    if importlib.util.find_spec("tensorflow"):
        import tensorflow as tf

        pairs += [(tf.bfloat16, "bfloat16"), (tf.uint8, "uint8"), (tf.float16, "float16")]
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        pairs += [(jnp.bfloat16, "bfloat16"), (jnp.int8, "int8")]
    if importlib.util.find_spec("openvino"):
        import openvino as ov

        pairs += [(ov.Type.bf16, "bfloat16"), (ov.Type.boolean, "bool"), (ov.Type.i32, "int32")]
    for obj, name in pairs:
        assert polyops.standardize_dtype(obj) == name, obj


def test_weak_int_out_of_range_is_a_value_error(backend):
    """A Python int must fit the integer dtype the lattice casts it to (JAX's rule); the
    error is the same ValueError on every backend, on the fast and the general path."""
    with polyops.use_backend(backend):
        i8 = ops.convert_to_tensor(np.ones(3, "int8"))
        u8 = ops.convert_to_tensor(np.ones(3, "uint8"))
        with pytest.raises(ValueError, match="subtract: the Python integer 300 is out of range for int8"):
            ops.subtract(i8, 300)
        with pytest.raises(ValueError, match="add: the Python integer -1 is out of range for uint8"):
            ops.add(-1, u8)
        with pytest.raises(ValueError, match="clip: the Python integer 1000 is out of range for int8"):
            ops.clip(i8, 0, 1000)
        # in range: the scalar takes the tensor's dtype, on either side
        assert ops.dtype(ops.subtract(i8, 127)) == "int8"
        assert ops.dtype(ops.add(255, u8)) == "uint8"
        assert ops.dtype(ops.add(i8, 2.5)) == "float32"
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.multiply(2, i8)), [2, 2, 2])
