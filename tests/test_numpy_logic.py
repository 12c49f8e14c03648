"""Targeted tests of `polyops.ops.numpy.logic`: predicates on IEEE specials, isclose edge
cases, nan_to_num defaults, bit-exact nextafter and signbit, complex parts, shifts past the
bit width, bit views, and clear errors.  Every test runs on every installed backend."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops._registry import get_backend

from conftest import to_numpy

BF16 = np.dtype(ml_dtypes.bfloat16)
NP = {"bfloat16": BF16, "float16": np.dtype("float16"), "float32": np.dtype("float32")}
BITS = {"float32": np.int32, "float16": np.int16, "bfloat16": np.int16}
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.0, -np.nan]
FLOATS = ("float32", "float16", "bfloat16")


def t(values, dtype):
    return ops.convert_to_tensor(np.asarray(values).astype(NP.get(dtype, dtype)), dtype)


def bits(a, dtype):
    return np.asarray(a).astype(NP[dtype]).view(BITS[dtype])


def supports(backend, dtype):
    return dtype in set(get_backend(backend).runtime.dtypes.values())


# -- aliases ---------------------------------------------------------------------------


def test_aliases_are_the_same_function():
    assert ops.conj is ops.conjugate
    assert ops.bitwise_not is ops.bitwise_invert
    assert ops.bitwise_left_shift is ops.left_shift
    assert ops.bitwise_right_shift is ops.right_shift
    assert polyops.ops.numpy.conj is polyops.ops.numpy.conjugate


# -- predicates --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_predicates_on_ieee_specials(backend, dtype):
    x = np.array(SPECIALS, np.float32)
    with polyops.use_backend(backend):
        xt = t(x, dtype)
        for fn, want in ((ops.isnan, np.isnan(x)), (ops.isinf, np.isinf(x)),
                         (ops.isfinite, np.isfinite(x)), (ops.isposinf, np.isposinf(x)),
                         (ops.isneginf, np.isneginf(x)), (ops.isreal, np.ones(x.shape, bool)),
                         (ops.signbit, np.signbit(x))):
            out = fn(xt)
            assert ops.dtype(out) == "bool", fn.__name__
            np.testing.assert_array_equal(to_numpy(out), want, err_msg=fn.__name__)


@pytest.mark.parametrize("dtype", ("int32", "uint8", "int8", "bool"))
def test_predicates_of_ints_and_bools(backend, dtype):
    x = np.array([0, 1, 1, 0]).astype(dtype) if dtype == "bool" else np.array([0, 1, 5, 100]).astype(dtype)
    if dtype.startswith("int"):
        x[0] = -3
    with polyops.use_backend(backend):
        xt = t(x, dtype)
        for fn, want in ((ops.isnan, False), (ops.isinf, False), (ops.isfinite, True),
                         (ops.isposinf, False), (ops.isneginf, False), (ops.isreal, True)):
            np.testing.assert_array_equal(to_numpy(fn(xt)), np.full(4, want), err_msg=fn.__name__)
        np.testing.assert_array_equal(to_numpy(ops.signbit(xt)), np.signbit(x))


def test_predicates_keep_0d_and_zero_size(backend):
    with polyops.use_backend(backend):
        for fn in (ops.isnan, ops.isinf, ops.isfinite, ops.signbit, ops.isreal):
            out = fn(t(np.float32(-0.0), "float32"))
            assert tuple(ops.shape(out)) == () and ops.dtype(out) == "bool"
            out = fn(t(np.zeros((0, 3)), "float32"))
            assert tuple(ops.shape(out)) == (0, 3)


def test_signbit_negative_zero_and_negative_nan(backend):
    x = np.array([-0.0, 0.0, np.nan, -np.nan, -1e-30, 1e-30], np.float32)
    with polyops.use_backend(backend):
        for dtype in FLOATS:
            got = to_numpy(ops.signbit(t(x, dtype)))
            np.testing.assert_array_equal(got, np.signbit(x.astype(NP[dtype])), err_msg=dtype)


def test_logical_xor(backend):
    with polyops.use_backend(backend):
        out = ops.logical_xor(t([0.0, 2.0, np.nan, 0.0], "float32"), t([1, 1, 0, 0], "int32"))
        assert ops.dtype(out) == "bool"
        np.testing.assert_array_equal(to_numpy(out), [True, False, True, False])
        np.testing.assert_array_equal(to_numpy(ops.logical_xor(True, t([True, False], "bool"))),
                                      [False, True])


# -- isclose / allclose ------------------------------------------------------------------


def test_isclose_matches_numpy_on_specials(backend):
    a = np.array([1.0, np.inf, np.inf, np.nan, np.nan, 0.0, 1e-9, 1.0, -np.inf], np.float32)
    b = np.array([1.0 + 1e-6, np.inf, -np.inf, np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf], np.float32)
    with polyops.use_backend(backend):
        for equal_nan in (False, True):
            got = to_numpy(ops.isclose(t(a, "float32"), t(b, "float32"), equal_nan=equal_nan))
            np.testing.assert_array_equal(got, np.isclose(a, b, equal_nan=equal_nan))
        got = to_numpy(ops.isclose(t(a, "float32"), t(b, "float32"), rtol=0.0, atol=0.0))
        np.testing.assert_array_equal(got, np.isclose(a, b, rtol=0.0, atol=0.0))


def test_isclose_ints_bools_scalars_and_broadcast(backend):
    with polyops.use_backend(backend):
        out = ops.isclose(t([[1], [3]], "int32"), t([1, 2, 3], "int32"))
        assert ops.dtype(out) == "bool" and tuple(ops.shape(out)) == (2, 3)
        np.testing.assert_array_equal(to_numpy(out), [[True, False, False], [False, False, True]])
        np.testing.assert_array_equal(to_numpy(ops.isclose(t([True, False], "bool"), True)), [True, False])
        np.testing.assert_array_equal(
            to_numpy(ops.isclose(t([1.0, 1.001], "float16"), 1.0, rtol=1e-3)), [True, True])
        assert to_numpy(ops.isclose(1.0, 1.0 + 1e-7)).item() is True


def test_isclose_low_precision_compares_in_float32(backend):
    # 1 and 1 + 2**-10 in float16: |diff| = 9.8e-4 > rtol * 1 for rtol = 9e-4, in float32
    with polyops.use_backend(backend):
        x = t([1.0], "float16")
        y = t([1.0 + 2 ** -10], "float16")
        assert not to_numpy(ops.isclose(x, y, rtol=9e-4, atol=0.0))[0]
        assert to_numpy(ops.isclose(x, y, rtol=1e-3, atol=0.0))[0]


def test_allclose_is_a_0d_bool_tensor(backend):
    x = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    with polyops.use_backend(backend):
        out = ops.allclose(t(x, "float32"), t(x, "float32"))
        assert ops.dtype(out) == "bool" and tuple(ops.shape(out)) == ()
        assert to_numpy(out).item() is False  # NaN != NaN
        assert to_numpy(ops.allclose(t(x, "float32"), t(x, "float32"), equal_nan=True)).item() is True
        assert to_numpy(ops.allclose(t(np.zeros((0, 2)), "float32"), 5.0)).item() is True
        assert to_numpy(ops.allclose(t([1, 2], "int32"), t([1, 2], "int32"))).item() is True


def test_isclose_symbolic():
    a, b = SymbolicTensor((None, 3), "float16"), SymbolicTensor((4, 1, 1), "int8")
    assert ops.isclose(a, b).shape == (4, None, 3) and ops.isclose(a, b).dtype == "bool"
    out = ops.allclose(a, b)
    assert out.shape == () and out.dtype == "bool"
    with pytest.raises(ValueError, match="allclose"):
        ops.allclose(SymbolicTensor((2, 3)), SymbolicTensor((4,)))


@pytest.mark.parametrize("name", ("isclose", "allclose"))
def test_isclose_bad_static_arguments(backend, name):
    fn = getattr(ops, name)
    with polyops.use_backend(backend):
        x = t([1.0], "float32")
        with pytest.raises(TypeError, match=f"{name}.*rtol='a'"):
            fn(x, x, rtol="a")
        with pytest.raises(TypeError, match=f"{name}.*atol=None"):
            fn(x, x, atol=None)
        with pytest.raises(TypeError, match=f"{name}.*equal_nan='yes'"):
            fn(x, x, equal_nan="yes")


# -- nan_to_num --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_to_num_defaults_follow_the_dtype(backend, dtype):
    big = float(ml_dtypes.finfo(NP[dtype]).max)
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 2.5], np.float32)
    with polyops.use_backend(backend):
        out = ops.nan_to_num(t(x, dtype))
        assert ops.dtype(out) == dtype
        got = to_numpy(out).astype(np.float32)
        np.testing.assert_array_equal(got, np.array([0.0, big, -big, -0.0, 2.5], np.float32))
        assert np.signbit(got[3])
        got = to_numpy(ops.nan_to_num(t(x, dtype), nan=-1, posinf=7.0, neginf=-8)).astype(np.float32)
        np.testing.assert_array_equal(got, [-1.0, 7.0, -8.0, -0.0, 2.5])


def test_nan_to_num_ints_and_errors(backend):
    with polyops.use_backend(backend):
        out = ops.nan_to_num(t([1, -2], "int8"), nan=5.0)
        assert ops.dtype(out) == "int8"
        np.testing.assert_array_equal(to_numpy(out), [1, -2])
        for kw, frag in ((dict(nan="0"), "nan='0'"), (dict(posinf=[1.0]), "posinf=[1.0]"),
                         (dict(neginf="x"), "neginf='x'")):
            with pytest.raises(TypeError, match="nan_to_num") as info:
                ops.nan_to_num(t([1.0], "float32"), **kw)
            assert frag in str(info.value)


# -- nextafter ---------------------------------------------------------------------------

# jax and tensorflow compare float32 / bfloat16 with denormals-are-zero on CPU: a subnormal
# *input* steps as if it were zero.  Results from normal and zero inputs are exact everywhere.
DAZ = {("jax", "float32"), ("jax", "bfloat16"), ("tensorflow", "float32"),
       ("tensorflow", "bfloat16")}


def _np_nextafter(a, b, dtype):
    if dtype == "bfloat16":  # step the bits by hand: numpy's ufunc has no bfloat16 loop
        return _bf16_nextafter(a, b)
    a, b = a.astype(NP[dtype]), b.astype(NP[dtype])
    # C's nextafter (NumPy's float32/64) returns y where x == y; NumPy's float16 loop returns
    # x, so nextafter(0.0, -0.0) differs in sign.  polyops gives y in every dtype.
    return np.where(a == b, b, np.nextafter(a, b))


def _bf16_nextafter(a, b):
    a, b = a.astype(np.float32), b.astype(np.float32)
    ab = a.astype(BF16).view(np.int16).astype(np.int32)
    out = np.where((b > a) == (a > 0), ab + 1, ab - 1)
    out = np.where(a == 0, np.where(b > a, 1, -32767), out)
    out = out.astype(np.int16).view(BF16).astype(np.float32)
    out = np.where(a == b, b, out)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out).astype(BF16)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nextafter_is_bit_exact(backend, dtype):
    big = float(ml_dtypes.finfo(NP[dtype]).max)
    x1 = np.array([0.0, 0.0, -0.0, -0.0, 0.0, -0.0, 1.0, 1.0, -1.0, -1.0, np.inf, -np.inf,
                   big, -big, np.nan, 1.0, 3.0, 2.5, np.inf], np.float32)
    x2 = np.array([1.0, -1.0, 1.0, -1.0, -0.0, 0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0,
                   np.inf, -np.inf, 1.0, np.nan, 3.0, -np.inf, np.inf], np.float32)
    want = _np_nextafter(x1, x2, dtype)
    with polyops.use_backend(backend):
        out = ops.nextafter(t(x1, dtype), t(x2, dtype))
        assert ops.dtype(out) == dtype
        got = to_numpy(out)
    nan = np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(got.astype(np.float32)), nan)
    np.testing.assert_array_equal(bits(got, dtype)[~nan], bits(want, dtype)[~nan])


def test_nextafter_zero_gives_the_smallest_subnormal(backend):
    with polyops.use_backend(backend):
        for dtype in FLOATS:
            got = bits(to_numpy(ops.nextafter(t([0.0, -0.0, 0.0], dtype), t([1.0, 1.0, -1.0], dtype))), dtype)
            sign = np.iinfo(BITS[dtype]).min
            np.testing.assert_array_equal(got, [1, 1, sign + 1], err_msg=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nextafter_subnormal_inputs(backend, dtype):
    """Exact where the backend keeps subnormals; read as zero where it compares with DAZ."""
    it = BITS[dtype]
    x1 = np.array([1, 2, 1, 5], it).view(NP[dtype])
    x2 = np.array([0.0, 0.0, 1.0, -1.0], np.float32).astype(NP[dtype])
    with polyops.use_backend(backend):
        got = bits(to_numpy(ops.nextafter(t(x1, dtype), t(x2, dtype))), dtype)
    if (backend, dtype) in DAZ:
        np.testing.assert_array_equal(got, [0, 0, 1, np.iinfo(it).min + 1])
    else:
        np.testing.assert_array_equal(got, [0, 1, 2, 4])


def test_nextafter_promotes_and_rejects_complex(backend):
    with polyops.use_backend(backend):
        out = ops.nextafter(t([1, 2], "int32"), 3)
        assert ops.dtype(out) == "float32"
        np.testing.assert_array_equal(to_numpy(out), np.nextafter(np.float32([1, 2]), np.float32(3)))
        assert ops.dtype(ops.nextafter(t([1.0], "float16"), 2.0)) == "float16"
    with pytest.raises(TypeError, match="nextafter.*complex"):
        ops.nextafter(SymbolicTensor((2,), "complex64"), 1.0)


# -- complex parts -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ("float32", "float16", "int32", "int8", "bool"))
def test_complex_parts_of_real_input(backend, dtype):
    x = np.array([-0.0, 1.0, -2.0, np.nan, np.inf, -np.inf]) if dtype.startswith("float") else (
        np.array([0, 1, 1, 0]) if dtype == "bool" else np.array([-3, 0, 1, 4]))
    x = x.astype(dtype)
    angle_dtype = dtype if dtype.startswith("float") else "float32"
    with polyops.use_backend(backend):
        xt = t(x, dtype)
        for fn, want, want_dtype in ((ops.real, x, dtype), (ops.imag, np.zeros_like(x), dtype),
                                     (ops.conjugate, x, dtype), (ops.conj, x, dtype),
                                     (ops.angle, np.angle(x.astype(np.float32)), angle_dtype)):
            out = fn(xt)
            assert ops.dtype(out) == want_dtype, fn.__name__
            got = to_numpy(out)
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=1e-3 if want_dtype == "float16" else 1e-7,
                                       equal_nan=True, err_msg=fn.__name__)


def test_angle_of_signed_zero_and_nan(backend):
    with polyops.use_backend(backend):
        got = to_numpy(ops.angle(t([-0.0, 0.0, np.nan, -np.nan, -1e-30], "float32")))
    np.testing.assert_array_equal(got, np.float32([np.pi, 0.0, np.nan, np.nan, np.pi]))


def test_complex_rules():
    c = SymbolicTensor((2, None), "complex64")
    assert ops.real(c).dtype == "float32" and ops.imag(c).dtype == "float32"
    assert ops.angle(c).dtype == "float32" and ops.conjugate(c).dtype == "complex64"
    assert ops.real(c).shape == (2, None)
    assert ops.isnan(c).dtype == "bool" and ops.isreal(c).dtype == "bool"
    assert ops.nan_to_num(c).dtype == "complex64"
    assert ops.isclose(c, 1.0).dtype == "bool"
    for name in ("isneginf", "isposinf", "signbit"):
        with pytest.raises(TypeError, match=f"{name}.*complex"):
            getattr(ops, name)(c)
    assert ops.angle(SymbolicTensor((2,), "int8")).dtype == "float32"
    assert ops.angle(SymbolicTensor((2,), "bfloat16")).dtype == "bfloat16"


COMPLEX_OPS = {
    "real": np.real, "imag": np.imag, "conjugate": np.conjugate, "angle": np.angle,
    "isreal": np.isreal, "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "nan_to_num": np.nan_to_num, "isclose": lambda x: np.isclose(x, x),
    "allclose": lambda x: np.allclose(x, x),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_OPS))
def test_complex_input_needs_a_native_kernel(backend, name):
    """The references are real-only: complex input raises MissingKernelError naming the op,
    unless the backend has a native kernel, whose values must then be NumPy's."""
    if not supports(backend, "complex64"):
        pytest.skip(f"{backend} has no complex64")
    x = np.array([1 + 2j, -3.5 - 0j, np.inf + 1j], np.complex64)
    fn = getattr(ops, name)
    args = (lambda v: (v, v)) if name in ("isclose", "allclose") else (lambda v: (v,))
    with polyops.use_backend(backend):
        xt = ops.convert_to_tensor(x, "complex64")
        if get_backend(backend).sources[name] == "native":
            got = to_numpy(fn(*args(xt)))
            np.testing.assert_allclose(np.asarray(got), COMPLEX_OPS[name](x), rtol=1e-6)
            return
        with pytest.raises(polyops.MissingKernelError, match=f"{name}.*native kernel.*complex"):
            fn(*args(xt))


# -- bitwise primitives ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ("int8", "uint8", "int16", "int32"))
def test_shifts_past_the_bit_width(backend, dtype):
    width = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    x = np.array([1, info.max, info.min, -1 if info.min else 7, 5]).astype(dtype)
    with polyops.use_backend(backend):
        for count in (width - 1, width, width + 1, 100):
            xt = t(x, dtype)
            left = to_numpy(ops.left_shift(xt, count))
            right = to_numpy(ops.right_shift(xt, t(np.full(5, count), dtype)))
            want_left = np.left_shift(x, width - 1) if count == width - 1 else np.zeros_like(x)
            want_right = np.right_shift(x, width - 1) if count == width - 1 else np.where(x < 0, -1, 0).astype(dtype)
            np.testing.assert_array_equal(left, want_left, err_msg=f"{dtype} << {count}")
            np.testing.assert_array_equal(right, want_right, err_msg=f"{dtype} >> {count}")


def test_shifts_wrap_and_sign_fill(backend):
    with polyops.use_backend(backend):
        out = ops.left_shift(t([100, -100, 1], "int8"), t([1, 2, 7], "int8"))
        assert ops.dtype(out) == "int8"
        np.testing.assert_array_equal(to_numpy(out), np.left_shift(np.int8([100, -100, 1]), np.int8([1, 2, 7])))
        np.testing.assert_array_equal(to_numpy(ops.right_shift(t([-7, 7, -128], "int8"), 1)), [-4, 3, -64])
        np.testing.assert_array_equal(to_numpy(ops.right_shift(t([255, 128], "uint8"), 7)), [1, 1])
        out = ops.left_shift(t([True, False], "bool"), t([True, True], "bool"))
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), [2, 0])
        assert ops.dtype(ops.bitwise_left_shift(t([1], "int16"), t([1], "uint8"))) == "int16"


def test_bitwise_ops(backend):
    a = np.array([0b1100, -1, 0, 127], np.int8)
    b = np.array([0b1010, 5, -128, 1], np.int8)
    with polyops.use_backend(backend):
        at, bt = t(a, "int8"), t(b, "int8")
        np.testing.assert_array_equal(to_numpy(ops.bitwise_and(at, bt)), a & b)
        np.testing.assert_array_equal(to_numpy(ops.bitwise_or(at, bt)), a | b)
        np.testing.assert_array_equal(to_numpy(ops.bitwise_xor(at, bt)), a ^ b)
        np.testing.assert_array_equal(to_numpy(ops.bitwise_not(at)), ~a)
        np.testing.assert_array_equal(to_numpy(ops.bitwise_invert(t([True, False], "bool"))), [False, True])
        np.testing.assert_array_equal(to_numpy(ops.bitwise_invert(t([0, 200], "uint8"))), [255, 55])
        out = ops.bitwise_and(at, 3)
        assert ops.dtype(out) == "int8"
        np.testing.assert_array_equal(to_numpy(out), a & 3)
        assert ops.dtype(ops.bitwise_or(t([1], "uint8"), t([1], "int8"))) == "int16"
        assert ops.dtype(ops.bitwise_xor(t([True], "bool"), t([False], "bool"))) == "bool"


@pytest.mark.parametrize("name", ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                                  "right_shift"))
def test_bitwise_ops_reject_floats(backend, name):
    with polyops.use_backend(backend):
        with pytest.raises(TypeError, match=f"{name}.*float32"):
            getattr(ops, name)(t([1.0], "float32"), t([1], "int32"))
        with pytest.raises(TypeError, match=f"{name}.*float"):
            getattr(ops, name)(t([1], "int32"), 1.5)
    with pytest.raises(TypeError, match="bitwise_invert.*float16"):
        ops.bitwise_invert(SymbolicTensor((2,), "float16"))


# -- view --------------------------------------------------------------------------------


def test_view_bit_patterns(backend):
    with polyops.use_backend(backend):
        out = ops.view(t([1.0, -0.0, -2.0], "float32"), "int32")
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), np.float32([1.0, -0.0, -2.0]).view(np.int32))
        out = ops.view(t([[1065353216, -1073741824]], "int32"), dtype="float32")
        np.testing.assert_array_equal(to_numpy(out), [[1.0, -2.0]])
        half = ops.view(t([1.0, -2.0], "bfloat16"), "int16")
        np.testing.assert_array_equal(to_numpy(half), np.array([1.0, -2.0], BF16).view(np.int16))
        out = ops.view(t([15360, -16384], "int16"), "float16")
        np.testing.assert_array_equal(to_numpy(out), np.float16([1.0, -2.0]))


def test_view_changes_the_last_dim(backend):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with polyops.use_backend(backend):
        out = ops.view(t(x, "float32"), "int16")
        assert tuple(ops.shape(out)) == (2, 6)
        np.testing.assert_array_equal(to_numpy(out), x.view(np.int16))
        back = ops.view(out, "float32")
        assert tuple(ops.shape(back)) == (2, 3)
        np.testing.assert_array_equal(to_numpy(back), x)
        out = ops.view(t(np.arange(8, dtype=np.uint8).reshape(2, 4), "uint8"), "int32")
        np.testing.assert_array_equal(to_numpy(out), np.arange(8, dtype=np.uint8).reshape(2, 4).view(np.int32))


def test_view_0d_and_zero_size(backend):
    with polyops.use_backend(backend):
        out = ops.view(t(np.float32(1.0), "float32"), "int32")
        assert tuple(ops.shape(out)) == () and to_numpy(out).item() == 1065353216
        out = ops.view(t(np.zeros((3, 0)), "float32"), "int8")
        assert tuple(ops.shape(out)) == (3, 0)
        out = ops.view(t(np.zeros((0,), bool), "bool"), "int16")
        assert tuple(ops.shape(out)) == (0,) and ops.dtype(out) == "int16"
        with pytest.raises(ValueError, match="view.*0-d"):
            ops.view(t(np.float32(1.0), "float32"), "int8")
        with pytest.raises(ValueError, match=r"view.*\(2, 3\)"):
            ops.view(t(np.zeros((2, 3)), "int8"), "int16")
        with pytest.raises(TypeError, match="view.*float33"):
            ops.view(t([1.0], "float32"), "float33")


def test_view_symbolic():
    assert ops.view(SymbolicTensor((2, None), "float32"), "int16").shape == (2, None)
    assert ops.view(SymbolicTensor((None, 4), "int8"), "float32").shape == (None, 1)
    assert ops.view(SymbolicTensor((3,), "int64"), "float64").dtype == "float64"
    with pytest.raises(ValueError, match="view"):
        ops.view(SymbolicTensor((3,), "int8"), "int16")
