"""Numerical consistency: NaN/inf propagation, integer division by zero, integer
overflow and out-of-range casts, on every backend, against NumPy's semantics.

What is the same everywhere is checked against NumPy; where backends differ on
purpose (out-of-range float -> int casts, see docs/numerics.md), each backend's
own behaviour is pinned so that a change is noticed.
"""

from __future__ import annotations

import platform
import warnings

import ml_dtypes
import numpy as np
import pytest

import polyops
from polyops import ops

from conftest import to_numpy

nan, inf = np.nan, np.inf
F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
X86 = platform.machine().lower() in ("x86_64", "amd64")
_NP_FLOAT = {"float32": np.dtype(F32), "float16": np.dtype(np.float16), "bfloat16": BF16,
             "float64": np.dtype(np.float64)}


def _dtype_name(a):
    return polyops.standardize_dtype(np.asarray(a).dtype)


def run(backend, fn, *arrays):
    """``fn`` on the arrays as tensors of ``backend``: (numpy result, canonical dtype)."""
    with polyops.use_backend(backend):
        tensors = [ops.convert_to_tensor(a, _dtype_name(a)) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's divide/overflow warnings
            out = fn(*tensors)
        return to_numpy(out), ops.dtype(out)


def expect(np_fn, *arrays):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np_fn(*arrays))


def check(backend, fn, np_fn, *arrays, tol=None):
    """Values (NaN == NaN, signs of infinities exact), shape and dtype as NumPy's."""
    got, got_dtype = run(backend, fn, *arrays)
    want = expect(np_fn, *arrays)
    assert got.shape == want.shape
    assert got_dtype == _dtype_name(want)
    want = want.astype(got.dtype)
    if got.dtype == BF16:  # numpy's NaN-aware comparison does not know bfloat16
        got, want = got.astype(F32), want.astype(F32)
    if tol is None:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=tol, atol=tol, equal_nan=True)


# ===== NaN and inf propagation ======================================================

# element-wise pairs: NaN on either side, both, with infinities and signed zeros
X1 = np.array([nan, 1.0, nan, inf, -inf, 0.0, nan, -2.0], F32)
X2 = np.array([1.0, nan, nan, nan, 1.0, -0.0, -inf, 3.0], F32)
# reduction input: NaN first, NaN later, two NaNs, no NaN (ties), infinities only
A = np.array([
    [nan, 1.0, 3.0, -1.0],
    [1.0, -inf, nan, 2.0],
    [2.0, nan, nan, -5.0],
    [5.0, 5.0, -1.0, -1.0],
    [inf, -inf, inf, -inf],
], F32)
SPECIALS = np.array([nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 2.5, -0.5], F32)

_COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
BINARY_NAN = {
    "maximum": (ops.maximum, np.maximum),
    "minimum": (ops.minimum, np.minimum),
    "equal": (ops.equal, np.equal),
    "not_equal": (ops.not_equal, np.not_equal),
    "less": (ops.less, np.less),
    "less_equal": (ops.less_equal, np.less_equal),
    "greater": (ops.greater, np.greater),
    "greater_equal": (ops.greater_equal, np.greater_equal),
    "add": (ops.add, np.add),
    "subtract": (ops.subtract, np.subtract),
    "multiply": (ops.multiply, np.multiply),
    "divide": (ops.divide, np.divide),
    "power": (ops.power, np.power),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(BINARY_NAN))
def test_binary_nan_inf(backend, name, dtype):
    fn, np_fn = BINARY_NAN[name]
    nd = _NP_FLOAT[dtype]
    out = np.bool_ if name in _COMPARISONS else nd

    def want(x, y):  # half floats compute in float32 and round once, as NumPy's loops do
        return np_fn(x.astype(F32), y.astype(F32)).astype(out)

    check(backend, fn, want, X1.astype(nd), X2.astype(nd))


def test_comparisons_with_nan_are_false_except_not_equal(backend):
    x = np.array([nan, nan, 1.0, -inf], F32)
    y = np.array([nan, 1.0, nan, nan], F32)
    for fn in (ops.equal, ops.less, ops.less_equal, ops.greater, ops.greater_equal):
        got, _ = run(backend, fn, x, y)
        assert not got.any(), fn.__name__
    got, _ = run(backend, ops.not_equal, x, y)
    assert got.all()


@pytest.mark.parametrize("scalar", [0.0, nan, inf])
def test_maximum_minimum_with_scalar(backend, scalar):
    check(backend, lambda x: ops.maximum(x, scalar), lambda x: np.maximum(x, F32(scalar)), X1)
    check(backend, lambda x: ops.minimum(x, scalar), lambda x: np.minimum(x, F32(scalar)), X1)


REDUCTIONS = {
    "max": (ops.max, np.max),
    "min": (ops.min, np.min),
    "sum": (ops.sum, np.sum),
    "mean": (ops.mean, np.mean),
    "prod": (ops.prod, np.prod),
    "std": (ops.std, np.std),
    "var": (ops.var, np.var),
}


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions_propagate_nan(backend, name, axis):
    fn, np_fn = REDUCTIONS[name]
    tol = 1e-6 if name in ("mean", "std", "var") else None
    check(backend, lambda x: fn(x, axis=axis), lambda x: np_fn(x, axis=axis), A, tol=tol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["max", "min", "sum", "mean", "prod"])
def test_half_float_reductions_propagate_nan(backend, name, dtype):
    fn, np_fn = REDUCTIONS[name]
    a = A.astype(_NP_FLOAT[dtype])
    got, got_dtype = run(backend, lambda x: fn(x, axis=1), a)
    want = expect(lambda x: np_fn(x.astype(F32), axis=1), a)
    assert got_dtype == dtype
    np.testing.assert_array_equal(np.isnan(got.astype(F32)), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got.astype(F32)), np.isinf(want))


@pytest.mark.parametrize("initial", [-10.0, 10.0, nan])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_initial_with_nan(backend, name, initial):
    fn, np_fn = REDUCTIONS[name]
    check(backend, lambda x: fn(x, axis=1, initial=initial),
          lambda x: np_fn(x, axis=1, initial=initial), A)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_first_nan_wins(backend, name, axis, keepdims):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    check(backend, lambda x: fn(x, axis=axis, keepdims=keepdims),
          lambda x: np_fn(x, axis=axis, keepdims=keepdims).astype(np.int32), A)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_nan_in_half_floats(backend, name):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    for dtype in (np.float16, BF16):
        a = A.astype(dtype)
        check(backend, lambda x: fn(x, axis=1), lambda x: np_fn(x.astype(F32), axis=1).astype(np.int32), a)


def test_clip_keeps_nan(backend):
    check(backend, lambda x: ops.clip(x, -1.0, 1.0), lambda x: np.clip(x, F32(-1), F32(1)), SPECIALS)
    check(backend, lambda x: ops.clip(x, -inf, inf), lambda x: np.clip(x, F32(-inf), F32(inf)), SPECIALS)


def test_clip_nan_bounds(backend):
    lo = np.full(SPECIALS.shape, nan, F32)
    hi = np.full(SPECIALS.shape, 1.0, F32)
    check(backend, ops.clip, np.clip, SPECIALS, lo, hi)
    check(backend, ops.clip, np.clip, SPECIALS, -hi, lo)


def test_where_with_nan_branches(backend):
    cond = np.array([True, False, True, False, True, False, True, False])
    check(backend, ops.where, np.where, cond, X1, X2)
    check(backend, lambda c, x: ops.where(c, x, nan), lambda c, x: np.where(c, x, F32(nan)), cond, X1)


UNARY_SPECIAL = {
    "sign": (ops.sign, np.sign),
    "round": (ops.round, np.round),
    "floor": (ops.floor, np.floor),
    "ceil": (ops.ceil, np.ceil),
    "abs": (ops.abs, np.abs),
    "negative": (ops.negative, np.negative),
    "square": (ops.square, np.square),
    "exp": (ops.exp, np.exp),
    "log": (ops.log, np.log),
    "sqrt": (ops.sqrt, np.sqrt),
    "tanh": (ops.tanh, np.tanh),
    "sin": (ops.sin, np.sin),
    "cos": (ops.cos, np.cos),
    "relu": (ops.relu, lambda x: np.maximum(x, F32(0))),
    "sigmoid": (ops.sigmoid, lambda x: F32(1) / (F32(1) + np.exp(-x))),
}


@pytest.mark.parametrize("name", list(UNARY_SPECIAL))
def test_unary_nan_inf(backend, name):
    fn, np_fn = UNARY_SPECIAL[name]
    tol = 1e-6 if name in ("tanh", "sigmoid", "exp", "log", "sin", "cos") else None
    check(backend, fn, np_fn, SPECIALS, tol=tol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["sign", "round", "floor", "ceil", "exp", "log", "sqrt", "relu", "sigmoid"])
def test_unary_nan_inf_half(backend, name, dtype):
    fn, np_fn = UNARY_SPECIAL[name]
    x = SPECIALS.astype(_NP_FLOAT[dtype])
    got, got_dtype = run(backend, fn, x)
    want = expect(lambda v: np_fn(v.astype(F32)), x)
    assert got_dtype == dtype
    g = got.astype(F32)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(g), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(g), np.isneginf(want))


def test_named_special_values(backend):
    """The values the issue names, spelled out."""
    def one(fn, *vals):
        got, _ = run(backend, fn, *(np.array(v, F32) for v in vals))
        return got.item()

    assert np.isnan(one(ops.sign, nan))
    assert one(ops.sigmoid, inf) == 1.0 and one(ops.sigmoid, -inf) == 0.0
    assert np.isnan(one(ops.sigmoid, nan))
    assert np.isnan(one(ops.relu, nan)) and one(ops.relu, -inf) == 0.0 and one(ops.relu, inf) == inf
    assert one(ops.exp, -inf) == 0.0 and np.isnan(one(ops.exp, nan)) and one(ops.exp, inf) == inf
    assert one(ops.log, 0.0) == -inf and np.isnan(one(ops.log, -1.0)) and np.isnan(one(ops.log, nan))
    assert np.isnan(one(ops.sqrt, -1.0)) and one(ops.sqrt, inf) == inf
    assert one(ops.divide, 1.0, 0.0) == inf and one(ops.divide, -1.0, 0.0) == -inf
    assert np.isnan(one(ops.divide, 0.0, 0.0)) and one(ops.divide, 1.0, -0.0) == -inf
    for f in (ops.round, ops.floor, ops.ceil):
        assert np.isnan(one(f, nan)) and one(f, inf) == inf and one(f, -inf) == -inf


@pytest.mark.parametrize("decimals", [1, -1, 2])
def test_round_decimals_nan_inf(backend, decimals):
    x = np.array([nan, inf, -inf, 0.25, -0.35, 15.0], F32)
    check(backend, lambda v: ops.round(v, decimals), lambda v: np.round(v, decimals), x, tol=1e-6)


def _np_softmax(x, axis=-1):  # the NumPy formula: exp(x - max) / sum(exp(x - max))
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


SOFTMAX_ROWS = np.array([
    [0.0, inf, 1.0],        # +inf -> inf - inf: NaN row
    [-inf, 0.0, 1.0],       # -inf -> probability 0
    [-inf, -inf, -inf],     # all -inf: NaN row (max is -inf)
    [inf, inf, 0.0],        # NaN row
    [nan, 0.0, 1.0],        # NaN row
    [-inf, -inf, 5.0],      # one-hot
    [1.0, 2.0, 3.0],
    [1e30, -1e30, 0.0],     # huge finite values are still stable
], F32)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_with_inf_entries(backend, axis):
    check(backend, lambda x: ops.softmax(x, axis=axis), lambda x: _np_softmax(x, axis), SOFTMAX_ROWS, tol=1e-6)


def test_divide_by_zero_floats(backend):
    x = np.array([1.0, -1.0, 0.0, -0.0, inf, -inf, nan], F32)
    for zero in (0.0, -0.0):
        z = np.full(x.shape, zero, F32)
        check(backend, ops.divide, np.divide, x, z)
        check(backend, lambda a: ops.divide(a, zero), lambda a: np.divide(a, F32(zero)), x)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["floor_divide", "mod"])
def test_float_floor_divide_mod_by_zero(backend, name, dtype):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    nd = _NP_FLOAT[dtype]
    x = np.array([1.0, -1.0, 0.0, 2.5, -2.5, inf, -inf, nan], F32).astype(nd)
    z = np.zeros(x.shape, nd)
    check(backend, fn, lambda a, b: np_fn(a.astype(F32), b.astype(F32)).astype(nd), x, z)
    check(backend, lambda a: fn(a, 0.0), lambda a: np_fn(a.astype(F32), F32(0)).astype(nd), x)


@pytest.mark.parametrize("name", ["floor_divide", "mod"])
def test_float_floor_divide_mod_nan_inf_operands(backend, name):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    x = np.array([nan, 1.0, inf, -inf, inf, 5.0, 0.0, 5.0, -5.0, 5.0, -5.0, 0.0, -inf], F32)
    y = np.array([2.0, nan, 2.0, 2.0, inf, -2.0, 3.0, inf, inf, -inf, -inf, inf, -3.0], F32)
    check(backend, fn, np_fn, x, y)
    for dtype in (np.float16, BF16):
        a, b = x.astype(dtype), y.astype(dtype)
        check(backend, fn, lambda u, v: np_fn(u.astype(F32), v.astype(F32)).astype(dtype), a, b)


# ===== float casts: NaN, inf and overflow ===========================================

CAST_FLOATS = np.array([nan, inf, -inf, 1e5, -1e5, 65504.0, 65520.0, 3.4e38, -3.4e38, 1.5, -0.0], F32)


@pytest.mark.parametrize("src,dst", [
    ("float32", "float16"), ("float32", "bfloat16"), ("float16", "float32"),
    ("bfloat16", "float32"), ("bfloat16", "float16"), ("float16", "bfloat16"),
])
def test_cast_between_floats_keeps_nan_inf_and_overflows_to_inf(backend, src, dst):
    x = expect(lambda v: v.astype(_NP_FLOAT[src]), CAST_FLOATS)
    check(backend, lambda v: ops.cast(v, dst), lambda v: v.astype(_NP_FLOAT[dst]), x)


def test_cast_named_float_overflow(backend):
    got, dtype = run(backend, lambda v: ops.cast(v, "float16"), np.array([1e5, -1e5, nan, inf], F32))
    assert dtype == "float16"
    assert got[0] == inf and got[1] == -inf and np.isnan(got[2]) and got[3] == inf


def test_cast_nan_to_bool_is_true(backend):
    check(backend, lambda v: ops.cast(v, "bool"), lambda v: v.astype(bool), SPECIALS)


def test_float_overflow_in_arithmetic(backend):
    big = np.array([60000.0, -60000.0, 3e38], F32)
    check(backend, lambda v: ops.add(v, v), lambda v: v + v, big)
    check(backend, lambda v: ops.multiply(v, 10.0), lambda v: v * F32(10), big)
    h = big[:2].astype(np.float16)
    check(backend, lambda v: ops.add(v, v), lambda v: v + v, h)
    check(backend, ops.sum, lambda v: np.sum(v.astype(F32)).astype(np.float16), np.array([60000.0, 60000.0], np.float16))


# ===== integer division by zero: x // 0 == 0 and x % 0 == 0 =========================

INT_DIV = {
    "int8": ([7, -7, 0, 127, -128, 5, -5, 9], [0, 0, 0, 0, 0, 2, -2, -4]),
    "int16": ([7, -7, 0, 32767, -32768, 5, -5, 9], [0, 0, 0, 0, 0, 2, -2, -4]),
    "int32": ([7, -7, 0, 2**31 - 1, -(2**31), 5, -5, 9], [0, 0, 0, 0, 0, 2, -2, -4]),
    "uint8": ([7, 255, 0, 128, 1, 5, 250, 9], [0, 0, 0, 0, 0, 2, 7, 4]),
    "uint16": ([7, 65535, 0, 128, 1, 5, 250, 9], [0, 0, 0, 0, 0, 2, 7, 4]),
    "uint32": ([7, 2**32 - 1, 0, 2**31, 1, 5, 250, 9], [0, 0, 0, 0, 0, 2, 7, 4]),
}


@pytest.mark.parametrize("dtype", list(INT_DIV))
@pytest.mark.parametrize("name", ["floor_divide", "mod"])
def test_integer_division_by_zero_is_zero(backend, name, dtype):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    x, y = (np.array(v, dtype) for v in INT_DIV[dtype])
    check(backend, fn, np_fn, x, y)
    # the answer is 0, whatever the numerator
    got, _ = run(backend, fn, x, np.zeros_like(x))
    np.testing.assert_array_equal(got, np.zeros_like(x))
    # a Python 0 divisor, and a broadcast one
    check(backend, lambda a: fn(a, 0), lambda a: np_fn(a, np.zeros((), a.dtype)), x)
    x2 = np.stack([x, x[::-1]])
    check(backend, fn, np_fn, x2, y)


@pytest.mark.parametrize("name", ["floor_divide", "mod"])
def test_bool_floor_divide_mod_by_false(backend, name):
    """bool operands compute in int32 (core's promotion): x // False == x % False == 0."""
    fn, np_fn = getattr(ops, name), getattr(np, name)
    a = np.array([True, False, True, False])
    b = np.array([False, False, True, True])
    check(backend, fn, lambda x, y: np_fn(x.astype(np.int32), y.astype(np.int32)), a, b)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_integer_min_floor_divide_by_minus_one_wraps(backend, dtype):
    x = np.array([np.iinfo(dtype).min, np.iinfo(dtype).min, 5], dtype)
    y = np.array([-1, 1, -1], dtype)
    check(backend, ops.floor_divide, np.floor_divide, x, y)
    check(backend, ops.mod, np.mod, x, y)


# ===== integer overflow wraps in the dtype ==========================================

I8, U8, I32, U32 = np.int8, np.uint8, np.int32, np.uint32
IMAX, IMIN = 2**31 - 1, -(2**31)

WRAP_BINARY = [
    ("add", "int8", [127, -128, 100], [1, -1, 100]),
    ("add", "uint8", [255, 0, 200], [1, 0, 100]),
    ("add", "int16", [32767, -32768], [1, -1]),
    ("add", "int32", [IMAX, IMIN, IMAX], [1, -1, IMAX]),
    ("add", "uint32", [2**32 - 1, 2**31], [1, 2**31]),
    ("subtract", "uint8", [0, 1], [1, 255]),
    ("subtract", "int8", [-128, 127], [1, -1]),
    ("subtract", "int32", [IMIN, IMAX], [1, -1]),
    ("subtract", "uint32", [0, 5], [1, 2**32 - 1]),
    ("multiply", "int8", [100, -128, 16], [3, -1, 16]),
    ("multiply", "uint8", [16, 255], [16, 255]),
    ("multiply", "int32", [65536, 46341, IMIN, 123456789], [65536, 46341, -1, 987654321]),
    ("multiply", "uint32", [65536, 2**32 - 1], [65536, 2**32 - 1]),
    ("power", "int8", [2, 3, -2], [7, 5, 7]),
    ("power", "int32", [2, 3, 7], [31, 21, 40]),
    ("power", "uint8", [2, 3], [8, 6]),
]


@pytest.mark.parametrize("name,dtype,a,b", WRAP_BINARY,
                         ids=[f"{n}-{d}-{i}" for i, (n, d, _, _) in enumerate(WRAP_BINARY)])
def test_integer_overflow_wraps(backend, name, dtype, a, b):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    check(backend, fn, np_fn, np.array(a, dtype), np.array(b, dtype))


def test_named_integer_wraps(backend):
    got, _ = run(backend, lambda v: ops.add(v, 1), np.array([127], I8))
    assert got.item() == -128
    got, _ = run(backend, lambda v: ops.add(v, 1), np.array([255], U8))
    assert got.item() == 0
    got, dtype = run(backend, ops.sum, np.array([IMAX, 1], I32))
    assert dtype == "int32" and got.item() == IMIN


@pytest.mark.parametrize("dtype,values", [
    ("int8", [-128, 127]), ("int16", [-32768]), ("int32", [IMIN, IMAX]),
])
def test_negative_abs_square_wrap(backend, dtype, values):
    x = np.array(values, dtype)
    check(backend, ops.negative, np.negative, x)
    check(backend, ops.abs, np.abs, x)
    check(backend, ops.square, np.square, x)


WRAP_REDUCE = [
    ("sum", "int32", [[IMAX, 1, 0], [IMIN, -1, 5], [IMAX, IMAX, IMAX]]),
    ("sum", "uint32", [[2**32 - 1, 1, 0], [2**31, 2**31, 7], [1, 2, 3]]),
    ("prod", "int32", [[65536, 65536, 1], [46341, 46341, 1], [IMIN, -1, 1]]),
    ("prod", "uint32", [[65536, 65536, 3], [2**31, 2, 1], [5, 6, 7]]),
    ("sum", "int8", [[127, 127, 127], [-128, -128, 1], [1, 2, 3]]),     # accumulates in int32
    ("sum", "uint8", [[255, 255, 255], [0, 1, 2], [128, 128, 0]]),      # accumulates in uint32
    ("prod", "int8", [[16, 16, 16], [-128, 2, 1], [127, 127, 127]]),    # int32, wraps there
    ("prod", "int16", [[256, 256, 256], [-32768, 2, 2], [1, 2, 3]]),
]


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("name,dtype,values", WRAP_REDUCE,
                         ids=[f"{n}-{d}-{i}" for i, (n, d, _) in enumerate(WRAP_REDUCE)])
def test_integer_reductions_wrap(backend, name, dtype, values, axis):
    fn, np_fn = getattr(ops, name), getattr(np, name)
    x = np.array(values, dtype)
    acc = {"int8": I32, "int16": I32, "uint8": U32, "uint16": U32}.get(dtype, np.dtype(dtype))
    check(backend, lambda v: fn(v, axis=axis), lambda v: np_fn(v, axis=axis, dtype=acc), x)


@pytest.mark.parametrize("dtype", ["int32", "int8"])
def test_integer_matmul_wraps(backend, dtype):
    if dtype == "int32":
        a = np.array([[65536, 1], [IMAX, IMAX]], I32)
        b = np.array([[65536, 2], [1, 1]], I32)
        ref = lambda x, y: np.matmul(x, y)  # noqa: E731
    else:  # int8 x int8 accumulates in int32
        a = np.array([[127, 127], [-128, -128]], I8)
        b = np.array([[127, -128], [127, -128]], I8)
        ref = lambda x, y: np.matmul(x.astype(I32), y.astype(I32))  # noqa: E731
    check(backend, ops.matmul, ref, a, b)
    check(backend, lambda x, y: ops.einsum("ij,jk->ik", x, y), ref, a, b)


def test_integer_casts_wrap(backend):
    x = np.array([300, -1, -129, 2**31 - 1, 65535, -(2**31)], I32)
    for dst in ("int8", "uint8", "int16", "uint16", "uint32"):
        check(backend, lambda v: ops.cast(v, dst), lambda v: v.astype(dst), x)
    u = np.array([2**32 - 1, 2**31, 255, 256], U32)
    for dst in ("int32", "int8", "uint8"):
        check(backend, lambda v: ops.cast(v, dst), lambda v: v.astype(dst), u)


# ===== float -> int casts ===========================================================
#
# Three bands (docs/numerics.md):
#   1. values representable in the target truncate toward zero: the same everywhere;
#   2. values inside int32 but outside an 8/16-bit target (300.0 -> int8, -1.0 ->
#      uint8): truncate into int32, then wrap, as an int32 -> int8 cast does;
#   3. NaN, +-inf and values outside int32: undefined in C.  On x86-64 NumPy, torch
#      and tensorflow give the CPU's "integer indefinite" INT_MIN (then wrapped:
#      0 in an 8/16-bit target); jax and openvino emulate that on any CPU.  Other
#      CPUs (aarch64 saturates) and GPUs differ; uint32/int64/uint64 targets differ
#      even between NumPy builds, so only their dtype is checked.

FLOAT_SOURCES = ["float32", "float16", "bfloat16", "float64"]


def _exact(values, src):
    """The values that ``src`` (and float32, which jax uses for float64) hold exactly."""
    return np.array([v for v in values
                     if float(np.array(v).astype(_NP_FLOAT[src])) == v and float(F32(v)) == v],
                    _NP_FLOAT[src])


@pytest.mark.parametrize("src", FLOAT_SOURCES)
@pytest.mark.parametrize("dst", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
def test_cast_float_to_int_truncates_in_range(backend, src, dst):
    """Band 1: representable values truncate toward zero on every backend."""
    info = np.iinfo(dst)
    lo, hi = int(info.min), int(min(info.max, 2**31 - 128))
    candidates = [0.0, -0.0, 1.5, 2.75, 0.75, -0.75, 100.5, 127.0, 255.0, 32767.0, 65535.0,
                  60000.0, 32640.0, 65280.0, 2.0**24 - 1, 2.0**24 - 0.5, 2.0**30, 2.0**31 - 128,
                  2.0**31, 2.0**32 - 256, float(lo), -1.5, -2.75, -100.5, -128.0, -32768.0]
    values = [v for v in candidates if lo <= np.trunc(v) <= info.max]
    x = _exact(values, src)
    check(backend, lambda v: ops.cast(v, dst), lambda v: v.astype(np.float64).astype(dst), x)


@pytest.mark.parametrize("src", FLOAT_SOURCES)
@pytest.mark.parametrize("dst", ["int8", "uint8", "int16", "uint16", "uint32"])
def test_cast_float_to_int_wraps_inside_int32(backend, src, dst):
    """Band 2: inside int32 but outside the target: truncate, then wrap modulo 2**n."""
    vals = [300.0, -1.0, -129.0, 255.5, -2.75, 70000.0, -70000.0, 1e6, -1e6, 2.0**30, -(2.0**31)]
    x = _exact(vals, src)
    x = x[(np.trunc(x.astype(np.float64)) < np.iinfo(dst).min)
          | (np.trunc(x.astype(np.float64)) > np.iinfo(dst).max)]
    want = np.trunc(x.astype(np.float64)).astype(np.int64).astype(dst)
    got, dtype = run(backend, lambda v: ops.cast(v, dst), x)
    assert dtype == dst
    np.testing.assert_array_equal(got, want)


def test_cast_named_values(backend):
    def cast(values, dst):
        got, dtype = run(backend, lambda v: ops.cast(v, dst), np.array(values, F32))
        assert dtype == dst
        return got.tolist()

    assert cast([300.0, -129.0, 2.9, -2.9], "int8") == [44, 127, 2, -2]
    assert cast([-1.0, 256.0, 255.9], "uint8") == [255, 0, 255]


OUT_OF_RANGE = np.array([nan, inf, -inf, 1e10, -1e10, 3e9, -3e9], F32)
INDEFINITE = {"int8": 0, "uint8": 0, "int16": 0, "uint16": 0, "int32": IMIN}
EMULATED = ("jax", "openvino")  # give x86-64's results on any CPU


@pytest.mark.parametrize("src", FLOAT_SOURCES)
@pytest.mark.parametrize("dst", list(INDEFINITE))
def test_cast_float_to_int_out_of_range_x86(backend, src, dst):
    """Band 3 (undefined in C), pinned: x86-64's INT_MIN, wrapped to the target."""
    if not X86 and backend not in EMULATED:
        pytest.skip("NumPy, torch and tensorflow give the CPU's own result; pinned for x86-64")
    x = OUT_OF_RANGE.astype(_NP_FLOAT[src]) if src != "float16" else np.array([nan, inf, -inf], np.float16)
    got, dtype = run(backend, lambda v: ops.cast(v, dst), x)
    assert dtype == dst
    np.testing.assert_array_equal(got, np.full(x.shape, INDEFINITE[dst], dst))


@pytest.mark.parametrize("dst", ["uint32", "int64", "uint64"])
def test_cast_float_to_wide_int_out_of_range_gives_the_dtype(backend, dst):
    """Band 3 for wide targets: unpinned (NumPy's own result depends on its SIMD path)."""
    got, dtype = run(backend, lambda v: ops.cast(v, dst), OUT_OF_RANGE)
    assert got.shape == OUT_OF_RANGE.shape
    # jax without x64 gives the 32-bit dtype for an explicit 64-bit cast (README)
    assert dtype == (dst.replace("64", "32") if backend == "jax" and dtype != dst else dst)


# ===== traced graphs take the guarded paths too =====================================


@pytest.mark.parametrize(
    "backend_name", [b for b in ("jax", "tensorflow", "torch") if b in polyops.available_backends()]
)
def test_guards_hold_when_traced(backend_name):
    """Under jax.jit / tf.function / torch.compile the kernels cannot look at (or
    catch errors from) the values: the NaN, inf and division-by-zero guards must be
    part of the graph."""
    x = np.array([[0.0, inf, 1.0], [nan, 0.0, 1.0], [-inf, 0.0, 1.0]], F32)
    fx = np.array([inf, -5.0, 5.0, 7.0], F32)
    fy = np.array([2.0, inf, -inf, 2.0], F32)
    ix = np.array([7, -7, 0, 9], I32)
    iy = np.array([0, 0, 0, -4], I32)

    # float -> int casts: bands 1 and 2, and band 3 (pinned for x86-64) where the
    # target is 8/16/32-bit; uint32 only in bands 1 and 2
    cx = np.array([300.0, -1.0, -129.0, 2.5, -2.5, 70000.0] + ([nan, inf, 1e10] if X86 else []), F32)
    ux = np.array([-1.0, -129.0, 2.5, 3e9, 4e9], F32)
    narrow = ("int8", "uint8", "int16", "int32")

    def body(x, fx, fy, ix, iy, cx, ux):
        return (ops.softmax(x, axis=-1), ops.floor_divide(fx, fy), ops.mod(fx, fy),
                ops.floor_divide(ix, iy), ops.mod(ix, iy), ops.argmax(x, axis=1), ops.max(x, axis=1),
                ops.cast(ux, "uint32"), *(ops.cast(cx, d) for d in narrow))

    want = [expect(_np_softmax, x), expect(np.floor_divide, fx, fy), expect(np.mod, fx, fy),
            expect(np.floor_divide, ix, iy), expect(np.mod, ix, iy),
            np.argmax(x, axis=1).astype(np.int32), np.max(x, axis=1),
            np.trunc(ux.astype(np.float64)).astype(np.int64).astype(U32),
            *(expect(lambda v: v.astype(d), cx) for d in narrow)]
    with polyops.use_backend(backend_name):
        args = [ops.convert_to_tensor(a) for a in (x, fx, fy, ix, iy, cx, ux)]
        if backend_name == "jax":
            import jax

            outs = jax.jit(body)(*args)
        elif backend_name == "tensorflow":
            import tensorflow as tf

            outs = tf.function(body)(*args)
        elif backend_name == "torch":
            import torch

            torch._dynamo.reset()
            with warnings.catch_warnings():
                # torch's own deprecations, and Dynamo's note on core's lru_cache'd
                # standardize_dtype (which cast's dtype argument goes through)
                warnings.simplefilter("ignore", DeprecationWarning)
                warnings.filterwarnings("ignore", "Dynamo detected a call to a `functools.lru_cache`")
                outs = torch.compile(body)(*args)
        got = [to_numpy(o) for o in outs]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6, equal_nan=True)
