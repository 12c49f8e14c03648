"""Targeted tests of `polyops.ops.numpy.products`: the 2 x 2 cross product, IEEE specials
(no ``0 * inf`` from padding), integer dtypes and wrap-around, slogdet on singular and
special matrices, window edge cases, vectorize, and clear errors for bad static arguments.
Every test that takes ``backend`` runs on every installed backend."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy

INF, NAN = np.inf, np.nan


def t(values, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(values).astype(dtype), dtype)


def np_cross(a, b, **kw):
    with warnings.catch_warnings():  # NumPy 2 deprecates 2-component vectors
        warnings.simplefilter("ignore", DeprecationWarning)
        return np.cross(a, b, **kw)


# -- cross ---------------------------------------------------------------------------------


def test_cross_of_2_vectors_is_the_z_component(backend):
    a = np.array([[1, 2], [3, -4], [0.5, 2]], np.float32)
    b = np.array([[3, 4], [1, 1], [2, 8]], np.float32)
    with polyops.use_backend(backend):
        out = ops.cross(t(a), t(b))
        assert ops.shape(out) == (3,) and ops.dtype(out) == "float32"
        np.testing.assert_array_equal(to_numpy(out), np_cross(a, b))
        # axisc is ignored without a vector axis; axis moves the vectors of both operands
        np.testing.assert_array_equal(to_numpy(ops.cross(t(a), t(b), axisc=5)), np_cross(a, b))
        out = ops.cross(t(a.T), t(b.T), axis=0)
        np.testing.assert_array_equal(to_numpy(out), np_cross(a.T, b.T, axis=0))
    spec = ops.cross(SymbolicTensor((3, 2)), SymbolicTensor((1, 2)))
    assert spec.shape == (3,)
    assert ops.cross(SymbolicTensor((None, 2)), SymbolicTensor((None, 3))).shape == (None, 3)


def test_cross_takes_no_product_with_the_implicit_zero(backend):
    # [inf, 1] x [0, 0, 1]: NumPy's formulas never multiply the missing z of a by anything
    a = np.array([[INF, 1.0], [1.0, NAN]], np.float32)
    b = np.array([[0.0, 0.0, 1.0], [2.0, 1.0, 0.0]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.cross(t(a), t(b))), np_cross(a, b))
        np.testing.assert_array_equal(to_numpy(ops.cross(t(b), t(a))), np_cross(b, a))


def test_cross_dtypes_and_wrap_around(backend):
    a = np.array([100, -7, 3], np.int8)
    b = np.array([5, 100, 2], np.int8)
    with polyops.use_backend(backend):
        out = ops.cross(t(a, "int8"), t(b, "int8"))
        assert ops.dtype(out) == "int8"
        np.testing.assert_array_equal(to_numpy(out), np.cross(a, b))  # wraps in int8
        out = ops.cross(t([True, False, True], "bool"), t([False, True, True], "bool"))
        assert ops.dtype(out) == "int32"
        np.testing.assert_array_equal(to_numpy(out), np.cross([1, 0, 1], [0, 1, 1]))


def test_cross_errors(backend):
    x3, x4 = np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="cross: .*2 or 3.* 4 on axis 1"):
            ops.cross(x3, x4)
        with pytest.raises(ValueError, match="cross: .*axis=3"):
            ops.cross(x3, x3, axisc=3)
        with pytest.raises(ValueError, match="cross: .*rank >= 1"):
            ops.cross(np.float32(1), x3)
        with pytest.raises(ValueError, match="cross: .*broadcast"):
            ops.cross(np.ones((2, 3), np.float32), np.ones((4, 3), np.float32))
        with pytest.raises(TypeError, match="axis='1'"):
            ops.cross(x3, x3, axisa="1")


# -- outer, kron, inner, vdot, tensordot ------------------------------------------------------


def test_products_of_int8_accumulate_in_int32(backend):
    a = np.array([[100, -100], [50, 7]], np.int8)
    with polyops.use_backend(backend):
        x = t(a, "int8")
        for name, want in (("outer", np.outer), ("kron", np.kron), ("inner", np.inner),
                           ("vdot", np.vdot), ("tensordot", np.tensordot)):
            out = getattr(ops, name)(x, x)
            assert ops.dtype(out) == "int32", name
            np.testing.assert_array_equal(to_numpy(out), want(a.astype(np.int64), a.astype(np.int64)),
                                          err_msg=name)


def test_products_of_bools_are_bools(backend):
    a = np.array([True, False, True])
    b = np.array([False, False, True])
    with polyops.use_backend(backend):
        for name, want in (("outer", np.outer(a, b)), ("kron", np.outer(a, b).ravel()),
                           ("inner", np.inner(a, b)), ("vdot", np.vdot(a, b)),
                           ("tensordot", np.tensordot(a, b, 1))):
            fn = getattr(ops, name)
            out = fn(t(a, "bool"), t(b, "bool"), axes=1) if name == "tensordot" else fn(t(a, "bool"), t(b, "bool"))
            assert ops.dtype(out) == "bool", name
            np.testing.assert_array_equal(to_numpy(out), want, err_msg=name)


def test_products_propagate_ieee_specials(backend):
    a = np.array([[INF, 1.0, 0.0], [NAN, -0.0, 2.0]], np.float32)
    b = np.array([[0.0, 1.0, 2.0], [1.0, INF, -1.0]], np.float32)
    with polyops.use_backend(backend):
        np.testing.assert_array_equal(to_numpy(ops.inner(t(a), t(b))), np.inner(a, b))
        np.testing.assert_array_equal(to_numpy(ops.outer(t(a), t(b))), np.outer(a, b))
        np.testing.assert_array_equal(to_numpy(ops.kron(t(a), t(b))), np.kron(a, b))
        np.testing.assert_array_equal(to_numpy(ops.vdot(t(a[0]), t(b[1]))), np.vdot(a[0], b[1]))
        np.testing.assert_array_equal(to_numpy(ops.tensordot(t(a), t(b.T), 1)), np.tensordot(a, b.T, 1))


def test_products_with_python_scalars_and_zero_size(backend):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with polyops.use_backend(backend):
        out = ops.inner(2, t(x))
        assert ops.dtype(out) == "float32" and ops.shape(out) == (2, 3)
        np.testing.assert_array_equal(to_numpy(out), 2 * x)
        np.testing.assert_array_equal(to_numpy(ops.kron(t(x), 3)), np.kron(x, 3))
        out = ops.tensordot(t(np.ones((2, 0))), t(np.ones((0, 3))), 1)
        np.testing.assert_array_equal(to_numpy(out), np.zeros((2, 3)))
        assert ops.shape(ops.outer(t(np.ones((0, 2))), t(x))) == (0, 6)
        assert float(to_numpy(ops.vdot(t(np.ones(0)), t(np.ones(0))))) == 0.0


def test_low_precision_products_accumulate_in_float32(backend):
    # 2048 + 1 + 1 + 1 + 1: float16 additions one by one would stay at 2048
    a = np.array([2048, 1, 1, 1, 1], np.float16)
    b = np.ones(5, np.float16)
    with polyops.use_backend(backend):
        for name in ("inner", "vdot"):
            out = getattr(ops, name)(t(a, "float16"), t(b, "float16"))
            assert ops.dtype(out) == "float16"
            assert float(to_numpy(out)) == 2052.0, name
        out = ops.tensordot(t(a, "float16"), t(b, "float16"), 1)
        assert float(to_numpy(out)) == 2052.0


def test_tensordot_axes_forms(backend):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3, 4)).astype(np.float32)
    b = rng.normal(size=(4, 3, 5)).astype(np.float32)
    with polyops.use_backend(backend):
        for axes in (([1, 2], [1, 0]), ((-2, -1), (-2, 0)), [[2], [0]], (2, 0), 0):
            bb = b if axes != 0 else b[:2, 0, 0]
            got = to_numpy(ops.tensordot(t(a), t(bb), axes=axes))
            np.testing.assert_allclose(got, np.tensordot(a, bb, axes=axes), rtol=2e-5, atol=2e-6,
                                       err_msg=str(axes))


def test_product_errors(backend):
    a, b = np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="inner: .*(2, 3).*(4, 2)"):
            ops.inner(a, b)
        with pytest.raises(ValueError, match="vdot: .*same size"):
            ops.vdot(a, b)
        with pytest.raises(ValueError, match="tensordot: .*axes=3"):
            ops.tensordot(a, b, 3)
        with pytest.raises(ValueError, match="tensordot: .*axes=-1"):
            ops.tensordot(a, b, -1)
        with pytest.raises(ValueError, match="tensordot: .*equal sizes"):
            ops.tensordot(a, b, 1)
        with pytest.raises(ValueError, match="tensordot: .*as many axes"):
            ops.tensordot(a, b, ((0, 1), (1,)))
        with pytest.raises(ValueError, match="tensordot: .*axis=5"):
            ops.tensordot(a, b, ((5,), (0,)))
        with pytest.raises(TypeError, match="tensordot: .*axes='a'"):
            ops.tensordot(a, b, "a")
        with pytest.raises(TypeError, match="outer: .*str"):
            ops.outer("ab", a)


def test_vdot_conjugates_a_complex_first_operand():
    a = np.array([1 + 2j, 3 - 1j], np.complex64)
    b = np.array([2 - 1j, 1j], np.complex64)
    with polyops.use_backend("numpy"):
        try:
            out = ops.vdot(a, b)
        except polyops.MissingKernelError as exc:  # conj of complex needs a native kernel
            pytest.skip(str(exc))
        assert ops.dtype(out) == "complex64"
        np.testing.assert_allclose(to_numpy(out), np.vdot(a, b))


# -- trapezoid --------------------------------------------------------------------------------


def test_trapezoid_values_and_dtypes(backend):
    y = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    with polyops.use_backend(backend):
        out = ops.trapezoid(t(y, "int32"), axis=1)
        assert ops.dtype(out) == "float32"
        np.testing.assert_array_equal(to_numpy(out), [4.0, 10.0])  # Keras's docstring example
        out = ops.trapezoid(t(y, "float16"), x=t([0, 1, 3], "float16"))
        assert ops.dtype(out) == "float16"
        np.testing.assert_array_equal(to_numpy(out).astype(np.float32), np.trapezoid(y, [0, 1, 3]))
        out = ops.trapezoid(t(y, "bfloat16"), x=t([0, 1, 3], "int8"))
        assert ops.dtype(out) == "bfloat16"
        # an axis of one sample integrates to 0; NaN and inf propagate
        np.testing.assert_array_equal(to_numpy(ops.trapezoid(t(np.ones((3, 1))))), np.zeros(3))
        got = to_numpy(ops.trapezoid(t([[1, NAN, 2], [INF, 1, 1]]), dx=2))
        np.testing.assert_array_equal(got, np.trapezoid(np.array([[1, NAN, 2], [INF, 1, 1]]), dx=2))


def test_trapezoid_errors(backend):
    y = np.ones((2, 3), np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="trapezoid: .*same length"):
            ops.trapezoid(y, x=np.ones(4, np.float32))
        with pytest.raises(ValueError, match="trapezoid: .*rank 1 or of y's rank"):
            ops.trapezoid(y, x=np.ones((1, 2, 3), np.float32))
        with pytest.raises(TypeError, match="trapezoid: .*dx="):
            ops.trapezoid(y, dx="1")
        with pytest.raises(ValueError, match="trapezoid: .*axis=2"):
            ops.trapezoid(y, axis=2)
        with pytest.raises(ValueError, match="trapezoid: .*axis=-1"):
            ops.trapezoid(np.float32(1))


# -- correlate --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["valid", "same", "full"])
def test_correlate_modes_and_lengths(backend, mode):
    rng = np.random.default_rng(1)
    with polyops.use_backend(backend):
        for m, n in ((5, 3), (3, 5), (4, 4), (1, 6), (6, 1), (2, 7)):
            a = rng.normal(size=m).astype(np.float32)
            v = rng.normal(size=n).astype(np.float32)
            got = to_numpy(ops.correlate(t(a), t(v), mode=mode))
            np.testing.assert_allclose(got, np.correlate(a, v, mode), rtol=2e-5, atol=2e-6,
                                       err_msg=f"{m}, {n}")


def test_correlate_multiplies_only_overlapping_samples(backend):
    a = np.array([INF, 1.0, 2.0, 3.0], np.float32)
    v = np.array([1.0, 0.5], np.float32)
    with polyops.use_backend(backend):
        for mode in ("valid", "same", "full"):
            got = to_numpy(ops.correlate(t(a), t(v), mode=mode))
            np.testing.assert_array_equal(got, np.correlate(a, v, mode), err_msg=mode)
            got = to_numpy(ops.correlate(t(v), t(a), mode=mode))
            np.testing.assert_array_equal(got, np.correlate(v, a, mode), err_msg=mode)
        out = ops.correlate(t([1, 2, 3], "int8"), t([1, 1], "bool"))
        assert ops.dtype(out) == "float32"
        np.testing.assert_array_equal(to_numpy(out), [3.0, 5.0])


def test_correlate_errors(backend):
    x = np.ones(3, np.float32)
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="correlate: .*mode='circular'"):
            ops.correlate(x, x, mode="circular")
        with pytest.raises(TypeError, match="correlate: .*mode=1"):
            ops.correlate(x, x, mode=1)
        with pytest.raises(ValueError, match=r"correlate: .*1-D.*\(2, 3\)"):
            ops.correlate(np.ones((2, 3), np.float32), x)
        with pytest.raises(ValueError, match="correlate: .*non-empty"):
            ops.correlate(np.ones(0, np.float32), x)
    assert ops.correlate(SymbolicTensor((None,)), SymbolicTensor((3,)), mode="full").shape == (None,)


# -- slogdet ----------------------------------------------------------------------------------


def test_slogdet_signs_singular_and_batches(backend):
    x = np.array([
        [[2.0, 0.0], [0.0, -3.0]],  # negative determinant
        [[0.0, 1.0], [1.0, 0.0]],  # a row swap: -1
        [[1.0, 2.0], [2.0, 4.0]],  # singular
        [[0.0, 0.0], [0.0, 0.0]],  # zero matrix
        [[INF, 1.0], [1.0, 1.0]],  # NumPy: (1, inf)
        [[1e-30, 1e-30], [0.0, 1e-30]],  # tiny: the log stays finite
    ], np.float32)
    with polyops.use_backend(backend):
        sign, logdet = ops.slogdet(t(x))
        assert ops.shape(sign) == (6,) and ops.dtype(sign) == "float32"
        want_sign, want_log = np.linalg.slogdet(x.astype(np.float64))
        np.testing.assert_array_equal(to_numpy(sign), want_sign)
        np.testing.assert_allclose(to_numpy(logdet), want_log, rtol=2e-5)


def test_slogdet_dtypes_and_sizes(backend):
    with polyops.use_backend(backend):
        sign, logdet = ops.slogdet(t([[3, 1], [1, 2]], "int32"))
        assert ops.dtype(sign) == ops.dtype(logdet) == "float32" and ops.shape(sign) == ()
        assert float(to_numpy(sign)) == 1.0
        assert math.isclose(float(to_numpy(logdet)), math.log(5), rel_tol=1e-6)
        sign, logdet = ops.slogdet(t([[4, 1], [2, 2]], "float16"))
        assert ops.dtype(sign) == ops.dtype(logdet) == "float16"
        assert float(to_numpy(logdet)) == pytest.approx(math.log(6), rel=1e-3)
        sign, logdet = ops.slogdet(t(np.zeros((3, 0, 0))))
        np.testing.assert_array_equal(to_numpy(sign), np.ones(3))
        np.testing.assert_array_equal(to_numpy(logdet), np.zeros(3))
        sign, logdet = ops.slogdet(t([[-2.5]]))
        assert float(to_numpy(sign)) == -1.0
        with pytest.raises(ValueError, match="slogdet: .*square.*(2, 3)"):
            ops.slogdet(np.ones((2, 3), np.float32))
        with pytest.raises(ValueError, match="slogdet: .*rank >= 2"):
            ops.slogdet(np.ones((3,), np.float32))
    sign, logdet = ops.slogdet(SymbolicTensor((None, 4, 4), "int8"))
    assert sign.shape == logdet.shape == (None,) and sign.dtype == "float32"


def test_slogdet_matches_numpy_on_random_matrices(backend):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 5, 5)).astype(np.float32)
    with polyops.use_backend(backend):
        sign, logdet = ops.slogdet(t(x))
        want_sign, want_log = np.linalg.slogdet(x.astype(np.float64))
        np.testing.assert_array_equal(to_numpy(sign), want_sign)
        np.testing.assert_allclose(to_numpy(logdet), want_log, rtol=1e-4, atol=1e-5)


# -- windows ----------------------------------------------------------------------------------

WINDOWS = ("bartlett", "blackman", "hamming", "hanning")


def test_windows_edge_lengths(backend):
    with polyops.use_backend(backend):
        for name in WINDOWS:
            fn = getattr(ops, name)
            for m in (-3, 0):
                out = fn(m)
                assert ops.shape(out) == (0,) and ops.dtype(out) == "float32", name
            np.testing.assert_array_equal(to_numpy(fn(1)), [1.0])
            np.testing.assert_allclose(to_numpy(fn(np.int64(12))), getattr(np, name)(12),
                                       rtol=2e-5, atol=2e-6, err_msg=name)
        np.testing.assert_array_equal(to_numpy(ops.kaiser(0, 5.0)), np.zeros(0))
        np.testing.assert_array_equal(to_numpy(ops.kaiser(1, 5.0)), [1.0])


def test_windows_follow_floatx(backend):
    old = polyops.config.floatx()
    try:
        polyops.config.set_floatx("float16")
        with polyops.use_backend(backend):
            for name in WINDOWS:
                out = getattr(ops, name)(5)
                assert ops.dtype(out) == "float16", name
                assert getattr(ops, name).op.rule(5).dtype == "float16"
            assert ops.dtype(ops.kaiser(5, 2.0)) == "float16"
    finally:
        polyops.config.set_floatx(old)


def test_kaiser_large_beta_does_not_overflow(backend):
    with polyops.use_backend(backend):
        for m, beta in ((9, 100.0), (16, 250.0), (5, -14.0), (3, 1e-3)):
            got = to_numpy(ops.kaiser(m, beta))
            want = np.kaiser(m, beta)
            np.testing.assert_allclose(got, want, rtol=3e-5, atol=1e-30, err_msg=f"{m}, {beta}")


def test_window_errors(backend):
    with polyops.use_backend(backend):
        for name in WINDOWS + ("kaiser",):
            fn = getattr(ops, name)
            args = (3.0,) if name == "kaiser" else ()
            for bad, frag in ((5.5, "x=5.5"), ("5", "x='5'"), (True, "x=True")):
                with pytest.raises(TypeError, match=f"{name}: .*{frag}"):
                    fn(bad, *args)
            with pytest.raises(TypeError, match=f"{name}: .*SymbolicTensor"):
                fn(SymbolicTensor((), "int32"), *args)
        with pytest.raises(TypeError, match="kaiser: .*beta='a'"):
            ops.kaiser(5, "a")
        with pytest.raises(ValueError, match="kaiser: .*beta=nan"):
            ops.kaiser(5, math.nan)


# -- vectorize --------------------------------------------------------------------------------


def test_vectorize_elementwise_broadcasts(backend):
    calls = []

    def f(a, b):
        calls.append(ops.shape(a))
        return a + b

    with polyops.use_backend(backend):
        out = ops.vectorize(f)([1, 2, 3, 4], 2)  # Keras's docstring example
        np.testing.assert_array_equal(to_numpy(out), [3, 4, 5, 6])
        assert ops.dtype(out) == "int32" and all(c == () for c in calls)
        out = ops.vectorize(lambda a, b: a * b)(t(np.ones((2, 1))), t([1.0, 2.0, 3.0]))
        assert ops.shape(out) == (2, 3)
        np.testing.assert_array_equal(to_numpy(out), [[1, 2, 3], [1, 2, 3]])


def test_vectorize_signature_excluded_and_tuples(backend):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    w = np.array([1.0, -1.0, 2.0], np.float32)
    with polyops.use_backend(backend):
        dot = ops.vectorize(lambda a, b: ops.sum(a * b), signature="(n),(n)->()")
        out = dot(t(x), t(w))
        assert ops.shape(out) == (4,)
        np.testing.assert_allclose(to_numpy(out), x @ w)
        # excluded positions and names pass through unchanged (here a Python list and a str)
        f = ops.vectorize(lambda a, table, op="add": a + table[1] if op == "add" else a,
                          excluded={1, "op"})
        np.testing.assert_array_equal(to_numpy(f(t([1.0, 2.0]), [0, 10], op="add")), [11.0, 12.0])
        # a tuple result gives a tuple of tensors; a new core dim comes from the output
        split = ops.vectorize(lambda a: (a[:2], ops.sum(a)), signature="(n)->(m),()")
        head, total = split(t(x))
        assert ops.shape(head) == (4, 2) and ops.shape(total) == (4,)
        np.testing.assert_array_equal(to_numpy(head), x[:, :2])
        np.testing.assert_allclose(to_numpy(total), x.sum(1))


def test_vectorize_zero_size_and_symbolic(backend):
    with polyops.use_backend(backend):
        out = ops.vectorize(lambda a: ops.cast(a, "int8") * 2)(t(np.ones((0, 3))))
        assert ops.shape(out) == (0, 3) and ops.dtype(out) == "int8"
        out = ops.vectorize(lambda a: ops.sum(a), signature="(n)->()")(t(np.ones((2, 0, 3))))
        assert ops.shape(out) == (2, 0) and ops.dtype(out) == "float32"
    sym = ops.vectorize(lambda a, b: ops.maximum(a, b))(SymbolicTensor((2, 3)), SymbolicTensor((3,), "int32"))
    assert isinstance(sym, SymbolicTensor) and sym.shape == (2, 3) and sym.dtype == "float32"
    sym = ops.vectorize(lambda a: ops.sum(a), signature="(n)->()")(SymbolicTensor((5, 3)))
    assert sym.shape == (5,)
    with pytest.raises(ValueError, match="vectorize: .*known batch dims"):
        ops.vectorize(lambda a: a)(SymbolicTensor((None, 3)))


def test_vectorize_errors():
    with pytest.raises(TypeError, match="vectorize: .*callable"):
        ops.vectorize(3)
    with pytest.raises(ValueError, match=re.escape("signature='(n)->'")):
        ops.vectorize(lambda a: a, signature="(n)->")
    with pytest.raises(TypeError, match="vectorize: .*excluded"):
        ops.vectorize(lambda a: a, excluded={1.5})
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="vectorize: .*2 vectorized arguments, got 1"):
        ops.vectorize(lambda a, b: a, signature="(n),(n)->()")(x)
    with pytest.raises(ValueError, match="vectorize: core dim 'n'"):
        ops.vectorize(lambda a, b: ops.sum(a), signature="(n),(n)->()")(x, np.ones(4, np.float32))
    with pytest.raises(ValueError, match="vectorize: .*core shape"):
        ops.vectorize(lambda a: a, signature="(n)->()")(x)
    assert "vectorize" in polyops.ops.numpy.__all__ and "vectorize" not in polyops._op.OPS
