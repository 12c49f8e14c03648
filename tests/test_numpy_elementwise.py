"""Targeted tests of `polyops.ops.numpy.elementwise` that the op table cannot express:
special values (NaN, +-inf, -0.0), extreme magnitudes, integer edge cases (division by
zero, INT_MIN, wrap-around, Euclid's worst case), dtype rules and errors."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops._registry import get_backend

nan, inf = np.nan, np.inf
F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)


def run(backend, name, *arrays, **kwargs):
    """ops.<name> on ``arrays`` (numpy arrays become tensors; Python scalars pass as they are)."""
    with polyops.use_backend(backend):
        args = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype))
                if isinstance(a, np.ndarray) else a for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = getattr(ops, name)(*args, **kwargs)
        return ops.convert_to_numpy(out), ops.dtype(out)


def same(got, want, rtol=2e-5):
    """NaN where NaN, infinities and signs of zeros exact, finite values within rtol."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[ok & (want == 0)]), np.signbit(want[ok & (want == 0)]))
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=0)


# ----- special values and extreme magnitudes -----------------------------------------

_X = np.array([nan, inf, -inf, 0.0, -0.0, 1e-30, -1e-30, 1e-6, -2e-7, 0.5, -0.75, 1.0, -1.0,
               3.0, -20.5, 88.0, 89.3, -89.3, 1e10, -1e20, 3e38], F32)
_UNARY = {
    "expm1": np.expm1, "log1p": np.log1p, "sinh": np.sinh, "cosh": np.cosh, "arcsinh": np.arcsinh,
    "arccosh": np.arccosh, "arctanh": np.arctanh, "arcsin": np.arcsin, "arccos": np.arccos,
    "arctan": np.arctan, "cbrt": np.cbrt, "exp2": np.exp2, "log2": np.log2, "log10": np.log10,
    "trunc": np.trunc, "fabs": np.fabs, "reciprocal": np.reciprocal, "deg2rad": np.deg2rad,
    "rad2deg": np.rad2deg,
}


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_special_and_extreme_values(backend, name):
    """NumPy's value (computed in float64, rounded to float32) for NaN, +-inf, +-0.0, tiny and
    huge inputs: the references neither overflow early (sinh(89.3), cosh) nor lose tiny values
    (expm1(1e-30) is 1e-30) and keep the sign of zero (sinh(-0.0) is -0.0)."""
    # 1/3e38 is subnormal, which jax and tensorflow flush to zero on CPUs
    x = _X[:-1] if name == "reciprocal" else _X
    got, dtype = run(backend, name, x)
    with np.errstate(all="ignore"):
        want = _UNARY[name](x.astype(np.float64)).astype(F32)
    assert dtype == "float32"
    same(got, want)


def test_i0_and_sinc(backend):
    x = np.array([nan, inf, -inf, 0.0, -0.0, 0.5, -3.75, 3.75, 10.0, -50.0, 91.0], F32)
    got, _ = run(backend, "i0", x)
    same(got, np.i0(x.astype(np.float64)).astype(F32), rtol=2e-6)  # i0(+-inf) is NaN, as NumPy
    s = np.array([nan, inf, 0.0, -0.0, 1.0, -2.0, 0.5, 1e-30, 7.25], F32)
    got, _ = run(backend, "sinc", s)
    assert got[2] == 1 and got[3] == 1
    np.testing.assert_allclose(got, np.sinc(s.astype(np.float64)), atol=1e-6, equal_nan=True)


def test_low_precision_floats_keep_their_dtype(backend):
    """float16/bfloat16 compute in float32 inside the references and round once."""
    x = np.array([0.5, -1.5, 3.0, 1e-3], np.float16)
    for name in ("expm1", "sinh", "arcsinh", "cbrt", "i0", "log1p"):
        got, dtype = run(backend, name, np.abs(x) if name == "log1p" else x)
        assert dtype == "float16"
        want = _UNARY.get(name, np.i0)(np.abs(x).astype(np.float64) if name == "log1p" else x.astype(np.float64))
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-3)
    got, dtype = run(backend, "cosh", np.array([11.0, -11.0], BF16))
    assert dtype == "bfloat16" and np.isfinite(got.astype(F32)).all()


def test_logaddexp_infinities_and_far_values(backend):
    a = np.array([-inf, inf, inf, -inf, nan, 1e30, 0.0, 1000.0, -120.0], F32)
    b = np.array([-inf, inf, -inf, 3.0, 1.0, 1e30, -40.0, 1000.0, -100.0], F32)
    got, _ = run(backend, "logaddexp", a, b)
    same(got, np.logaddexp(a.astype(np.float64), b.astype(np.float64)).astype(F32))
    got, _ = run(backend, "logaddexp2", a, b)
    same(got, np.logaddexp2(a.astype(np.float64), b.astype(np.float64)).astype(F32))


def test_hypot_scales_and_inf_wins_over_nan(backend):
    a = np.array([inf, nan, -inf, nan, 0.0, 1e30, 3e-30, 3e38, 3.0], F32)
    b = np.array([nan, -inf, 1.0, 1.0, -0.0, 1e30, 4e-30, 3e38, -4.0], F32)
    got, _ = run(backend, "hypot", a, b)
    same(got, np.hypot(a.astype(np.float64), b.astype(np.float64)).astype(F32))


def test_fmax_fmin_ignore_nan(backend):
    a = np.array([nan, nan, 1.0, -inf, 2.0], F32)
    b = np.array([nan, 3.0, nan, 5.0, -1.0], F32)
    got, _ = run(backend, "fmax", a, b)
    same(got, np.fmax(a, b))
    got, _ = run(backend, "fmin", a, b)
    same(got, np.fmin(a, b))


def test_heaviside_and_divide_no_nan(backend):
    x = np.array([-2.0, -0.0, 0.0, 3.0, nan, -inf, inf], F32)
    got, _ = run(backend, "heaviside", x, 0.5)
    same(got, np.heaviside(x, F32(0.5)))
    num = np.array([1.0, nan, inf, -2.0, 0.0], F32)
    den = np.array([0.0, 0.0, -0.0, 4.0, 0.0], F32)
    got, dtype = run(backend, "divide_no_nan", num, den)
    assert dtype == "float32"
    same(got, [0.0, 0.0, 0.0, -0.5, 0.0])


def test_ldexp_extreme_exponents_round_once(backend):
    x1 = np.array([1e-30, 3e38, 1.5, 1.5, 7.0, -2.0, 0.0, -0.0, inf, nan, 1.0], F32)
    x2 = np.array([200, -250, 127, -126, 1000, -1000, 50, 3, -5, 3, 2147483647], np.int32)
    got, dtype = run(backend, "ldexp", x1, x2)
    assert dtype == "float32"
    same(got, np.ldexp(x1, x2), rtol=0)


# ----- fmod, gcd, lcm: integer edge cases ---------------------------------------------


def test_fmod_takes_the_sign_of_x1(backend):
    a = np.array([-7, 7, -7, 7, 0, 5, -128, -128], np.int8)
    b = np.array([3, -3, -3, 3, 4, 0, -1, 7], np.int8)
    got, dtype = run(backend, "fmod", a, b)
    assert dtype == "int8"
    # integer fmod(x, 0) is 0 (docs/numerics.md); INT_MIN fmod -1 is 0
    np.testing.assert_array_equal(got, [-1, 1, -1, 1, 0, 0, 0, -2])
    f = np.array([-7.5, 7.5, -0.0, 0.0, 1.0, inf, -3.0, 5.0], F32)
    g = np.array([2.0, -2.0, 3.0, 0.0, inf, 2.0, -inf, -0.0], F32)
    got, _ = run(backend, "fmod", f, g)
    same(got, np.fmod(f, g))


def test_fmod_bool_computes_in_int32(backend):
    got, dtype = run(backend, "fmod", np.array([True, False, True]), np.array([True, True, False]))
    assert dtype == "int32"
    np.testing.assert_array_equal(got, [0, 0, 0])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32"])
def test_gcd_lcm_signs_zeros_and_worst_case(backend, dtype):
    info = np.iinfo(dtype)
    fib = [1, 1]
    while fib[-1] + fib[-2] <= info.max:
        fib.append(fib[-1] + fib[-2])
    signed = info.min < 0
    a = np.array([0, 0, 12, fib[-1], 9, 4] + ([-12, int(info.min), int(info.min)] if signed else [255 % (info.max + 1)]), dtype)
    b = np.array([0, 7, 0, fib[-2], 6, 6] + ([18, 0, 6] if signed else [85]), dtype)
    got, d = run(backend, "gcd", a, b)
    assert d == dtype
    np.testing.assert_array_equal(got, np.gcd(a, b))  # Euclid's worst case: consecutive Fibonacci
    got, d = run(backend, "lcm", a[:6], b[:6])
    np.testing.assert_array_equal(got, np.lcm(a[:6], b[:6]))


def test_lcm_wraps_like_numpy(backend):
    a = np.array([50, 100, -50, 7], np.int8)
    b = np.array([3, 3, 3, -9], np.int8)
    got, _ = run(backend, "lcm", a, b)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got, np.lcm(a, b))


def test_gcd_bool_and_scalars(backend):
    got, dtype = run(backend, "gcd", np.array([True, False]), True)
    assert dtype == "int32"
    np.testing.assert_array_equal(got, [1, 1])
    got, dtype = run(backend, "lcm", np.array([4, 6], np.uint8), 10)
    assert dtype == "uint8"
    np.testing.assert_array_equal(got, [20, 30])


# ----- dtype rules, shapes, errors --------------------------------------------------------

_DTYPES = [
    ("trunc", ("int8",), "int8"), ("trunc", ("bool",), "bool"), ("trunc", ("bfloat16",), "bfloat16"),
    ("fabs", ("int8",), "float32"), ("fabs", ("bool",), "float32"), ("reciprocal", ("int32",), "float32"),
    ("expm1", ("uint8",), "float32"), ("i0", ("float16",), "float16"), ("sinc", ("int16",), "float32"),
    ("fmax", ("bool", "bool"), "bool"), ("fmin", ("int8", "uint8"), "int16"),
    ("fmod", ("bool", "bool"), "int32"), ("fmod", ("int8", "float16"), "float16"),
    ("heaviside", ("int8", "int8"), "float32"), ("hypot", ("int32", "float16"), "float16"),
    ("logaddexp", ("float16", "bfloat16"), "float32"), ("ldexp", ("float16", "int32"), "float16"),
    ("ldexp", ("int8", "int8"), "float32"), ("ldexp", ("bfloat16", "bool"), "bfloat16"),
    ("gcd", ("int8", "uint8"), "int16"), ("lcm", ("bool", "int8"), "int8"),
    ("divide_no_nan", ("int32", "int32"), "float32"), ("arctan2", ("uint8", "int8"), "float32"),
]


@pytest.mark.parametrize("name,dtypes,want", _DTYPES, ids=[f"{n}-{'-'.join(d)}" for n, d, _ in _DTYPES])
def test_result_dtypes(backend, name, dtypes, want):
    arrays = [np.ones((2,), np.float32).astype(BF16 if d == "bfloat16" else d) for d in dtypes]
    assert getattr(ops, name)(*[SymbolicTensor((2,), d) for d in dtypes]).dtype == want
    _, dtype = run(backend, name, *arrays)
    assert dtype == want


def test_python_scalars_are_weak(backend):
    x = np.array([1.0, nan], np.float16)
    assert run(backend, "fmax", x, 2.0)[1] == "float16"
    assert run(backend, "ldexp", x, 3)[1] == "float16"
    assert run(backend, "fmod", np.array([5, -5], np.int8), 3)[1] == "int8"
    got, _ = run(backend, "hypot", 3, 4.0)
    assert got == 5.0


def test_shapes_unknown_dims_zero_size_and_0d(backend):
    assert ops.hypot(SymbolicTensor((None, 3), "float32"), SymbolicTensor((2, 1), "float32")).shape == (2, 3)
    assert ops.gcd(SymbolicTensor((None,), "int32"), SymbolicTensor((None, 1), "int32")).shape == (None, None)
    got, dtype = run(backend, "gcd", np.zeros((0, 3), np.int32), np.ones((3,), np.int32))
    assert got.shape == (0, 3) and dtype == "int32"
    got, dtype = run(backend, "arcsinh", np.zeros((2, 0), np.float16))
    assert got.shape == (2, 0) and dtype == "float16"
    got, _ = run(backend, "logaddexp", np.array(0.0, F32), np.array(0.0, F32))
    assert got.shape == () and abs(float(got) - np.log(2)) < 1e-6


@pytest.mark.parametrize("name,arrays,fragment", [
    ("gcd", [np.ones(2, F32), np.ones(2, np.int32)], "float32"),
    ("lcm", [np.ones(2, np.int32), 1.5], "float"),
    ("ldexp", [np.ones(2, F32), np.ones(2, F32)], "exponent"),
    ("ldexp", [np.ones(2, F32), 2.0], "exponent"),
    ("fabs", [np.ones(2, np.complex64)], "complex"),
    ("fmax", [np.ones(2, np.complex64), np.ones(2, F32)], "complex"),
    ("fmod", [np.ones(2, np.complex64), np.ones(2, F32)], "complex"),
    ("arcsinh", [np.ones(2, np.complex64)], "complex"),
])
def test_rejected_dtypes_name_the_op(backend, name, arrays, fragment):
    supported = set(get_backend(backend).runtime.dtypes.values())
    if any(isinstance(a, np.ndarray) and polyops.standardize_dtype(a.dtype) not in supported for a in arrays):
        pytest.skip(f"{backend} has no {fragment} tensors (convert_to_tensor refuses them first)")
    with pytest.raises(TypeError, match=f"{name}.*{fragment}"):
        run(backend, name, *arrays)
    specs = [SymbolicTensor(a.shape, polyops.standardize_dtype(a.dtype)) if isinstance(a, np.ndarray) else a
             for a in arrays]
    with pytest.raises(TypeError, match=name):
        getattr(ops, name)(*specs)


def test_incompatible_shapes(backend):
    with pytest.raises(ValueError, match="hypot"):
        run(backend, "hypot", np.ones((2, 3), F32), np.ones((4,), F32))
    with pytest.raises(ValueError, match="gcd"):
        run(backend, "gcd", np.ones((2, 3), np.int32), np.ones((4,), np.int32))
