"""Complex special values (C99 Annex G) of the elementwise ops, on every backend with complex
dtypes, against NumPy (which follows Annex G); and the sign of zero, slogdet of complex
matrices and float32 linspace, where the jax backend differed from the others.

The grid: every pair of real and imaginary parts from ``PARTS`` (zeros of both signs,
+-1, +-2 past the branch points, infinities, NaN), complex64 and complex128 (64-bit
mode).  NaN parts must be NaN where NumPy's are, infinities and zeros equal with their
sign (except where Annex G leaves the sign unspecified: `free_signs`), other finite
parts within a few ulps.  exp, log, sqrt, tanh, sin and cos are ``polyops.ops``
functions of complex tensors; the others (their promotion takes real dtypes) are the
Array API namespace's functions, which run the backend's kernel on complex arrays.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import BACKENDS, tensor, to_numpy

import polyops
import polyops.array_api
from polyops import ops

INF, NAN = math.inf, math.nan
PARTS = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, INF, -INF, NAN)
# the ops on complex tensors (polyops.ops), and the namespace's (standard name: NumPy name)
OPS = ("exp", "log", "sqrt", "tanh", "sin", "cos")
NAMESPACE = {"sinh": "sinh", "cosh": "cosh", "tan": "tan", "asin": "arcsin", "acos": "arccos",
             "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}
NO_COMPLEX = {"openvino"}  # no complex dtypes (tests/xfails.py, view_as_complex)
COMPLEX_BACKENDS = [b for b in BACKENDS if b not in NO_COMPLEX]
RTOL = {"complex64": 2e-6, "complex128": 1e-14}

# (backend, function, dtype or None for both) -> reason: strict xfails, one per entry
XFAILS: dict[tuple[str, str, str | None], str] = {
    ("tensorflow", "sqrt", None):
        "tf.sqrt loses csqrt(conj z) = conj csqrt(z) where y is -0, and at x = +-inf with "
        "y < 0: sqrt(0 - 0j) is +0 + 0j, sqrt(-inf - 1j) is +inf j (Annex G: -0j, -inf j)",
    ("torch", "arccos", "complex128"):
        "torch.acos of complex128 gives x + 0j (|x| <= 1) the imaginary part +0 (Annex G: "
        "-0, cacos(conj z) = conj cacos(z)); its complex64 kernel is right",
}


def grid(dtype: str) -> np.ndarray:
    re = np.array([a for a in PARTS for _ in PARTS])
    im = np.array([b for _ in PARTS for b in PARTS])
    z = np.empty(re.shape, dtype)
    z.real, z.imag = re, im  # (re + 1j * im would lose the zeros' signs)
    return z


def _kind(v: float) -> str:
    return "nan" if math.isnan(v) else "inf" if math.isinf(v) else "0" if v == 0 else "f"


# Annex G's "the sign of ... is unspecified": (real part, imaginary part) of the result
# may take either sign, keyed by the kinds of |x| and |y| (the functions are odd or even
# and conj-symmetric, so every sign of the operand has the same freedom).
_FREE = {
    "exp": {("inf-", "inf"): (1, 1), ("inf-", "nan"): (1, 1),
            ("inf+", "inf"): (1, 0), ("inf+", "nan"): (1, 0)},
    "sqrt": {("inf-", "nan"): (0, 1)},
    "tanh": {("inf", "inf"): (0, 1), ("inf", "nan"): (0, 1)},
    "sinh": {("0", "inf"): (1, 0), ("0", "nan"): (1, 0), ("inf", "inf"): (1, 0),
             ("inf", "nan"): (1, 0)},
    "cosh": {("0", "inf"): (0, 1), ("0", "nan"): (0, 1), ("inf", "inf"): (1, 0),
             ("nan", "0"): (0, 1)},
    "arccos": {("inf", "nan"): (0, 1)},
    "arccosh": {("0", "nan"): (0, 1)},
    "arcsinh": {("nan", "inf"): (1, 0)},
    "arctanh": {("nan", "inf"): (1, 0)},
}
# Annex G defines these through the hyperbolic ones: f(z) = -i g(iz), cos(z) = cosh(iz)
_ROTATED = {"sin": "sinh", "tan": "tanh", "arcsin": "arcsinh", "arctan": "arctanh"}


def free_signs(name: str, x: float, y: float) -> tuple[bool, bool]:
    """Whether Annex G leaves the sign of the real and of the imaginary part of
    ``name(x + iy)`` unspecified."""
    if name in _ROTATED:  # iz = -y + ix; -i (a + ib) = b - ia: the parts swap
        re, im = free_signs(_ROTATED[name], -y, x)
        return im, re
    if name == "cos":
        return free_signs("cosh", -y, x)
    kx = _kind(x)
    if name in ("exp", "sqrt") and kx == "inf":  # not even or odd: the sign of x counts
        kx += "-" if x < 0 else "+"
    re, im = _FREE.get(name, {}).get((kx, _kind(y)), (0, 0))
    return bool(re), bool(im)


def _part_ok(want: float, got: float, free: bool, rtol: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if want == 0 or math.isinf(want):
        return abs(want) == abs(got) and (free or math.copysign(1, want) == math.copysign(1, got))
    return math.isfinite(got) and abs(got - want) <= rtol * abs(want)


def mismatches(name: str, z: np.ndarray, got: np.ndarray, rtol: float) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's invalid-value warnings)
        want = getattr(np, name)(z)
    bad = []
    for a, w, g in zip(z, want, got, strict=True):
        free_re, free_im = free_signs(name, a.real, a.imag)
        if not (_part_ok(w.real, g.real, free_re, rtol) and _part_ok(w.imag, g.imag, free_im, rtol)):
            bad.append(f"{name}({a.real!r} + {a.imag!r}j): expected {w!r}, got {g!r}")
    return bad


def _xfail(request, backend, name, dtype):
    reason = XFAILS.get((backend, name, dtype)) or XFAILS.get((backend, name, None))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def test_free_signs_follow_annex_g():
    """The table's own check: the rotated functions inherit the hyperbolic freedoms."""
    assert free_signs("sinh", 0.0, INF) == (True, False)
    assert free_signs("sin", INF, 0.0) == (False, True)  # sin(inf + 0j) = nan +- 0j
    assert free_signs("cos", INF, 0.0) == (False, True)  # cos(inf + 0j) = nan +- 0j
    assert free_signs("exp", INF, NAN) == (True, False)
    assert free_signs("exp", -INF, NAN) == (True, True)
    assert free_signs("sqrt", INF, NAN) == (False, False)
    assert free_signs("log", -INF, NAN) == (False, False)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("backend_name", COMPLEX_BACKENDS)
def test_ops_complex_special_values(request, backend_name, name, dtype):
    backend = backend_name
    _xfail(request, backend, name, dtype)
    z = grid(dtype)
    with polyops.use_backend(backend), polyops.config.x64_scope(dtype == "complex128"):
        out = to_numpy(getattr(ops, name)(tensor(z, None)))
    assert out.dtype == np.dtype(dtype)
    assert mismatches(name, z, out, RTOL[dtype]) == []


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("std", sorted(NAMESPACE))
@pytest.mark.parametrize("backend_name", COMPLEX_BACKENDS)
def test_namespace_complex_special_values(request, backend_name, std, dtype):
    backend = backend_name
    name = NAMESPACE[std]
    _xfail(request, backend, name, dtype)
    xp = polyops.array_api.namespace(backend)
    z = grid(dtype)
    out = np.asarray(getattr(xp, std)(xp.asarray(z)))
    assert out.dtype == np.dtype(dtype)
    assert mismatches(name, z, out, RTOL[dtype]) == []


def test_jax_real_dtypes_keep_the_jnp_kernels():
    """The complex fix-ups cost real operands nothing: their eager fast path calls the
    jnp function itself."""
    pytest.importorskip("jax")
    import jax.numpy as jnp
    from polyops_jax.numpy import base, elementwise

    for module, name in [(base, n) for n in OPS] + [(elementwise, n) for n in NAMESPACE.values()]:
        kernel = getattr(module, name)
        assert kernel.fast is getattr(jnp, name), name
        assert "float32" in kernel.dtypes and "complex64" not in kernel.dtypes, name


# ----- sign of zero ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_sign_of_zero_is_plus_zero(backend, dtype):
    """sign(-0.0) is +0.0 on every backend (NumPy's; jnp.sign kept -0.0), NaN stays NaN."""
    with polyops.use_backend(backend):
        out = to_numpy(ops.sign(tensor([-0.0, 0.0, NAN, -2.5, 3.0, -INF], dtype)))
    assert np.array_equal(out, np.array([0, 0, NAN, -1, 1, -1], dtype), equal_nan=True)
    assert not np.signbit(out[:2]).any(), out


# ----- slogdet of complex matrices ------------------------------------------------------

_MATRICES = np.array([[[1 + 2j, 3 - 1j], [0.5j, 2 + 0j]],
                      [[0, 1j], [-1j, 0]],
                      [[2 - 1j, 0], [0, -3 + 4j]]], "complex64")


@pytest.mark.parametrize("backend_name", COMPLEX_BACKENDS)
def test_slogdet_of_complex_matrices(request, backend_name):
    backend = backend_name
    """NumPy's sign (a complex number of modulus 1) and log|det|, real (the rule's dtypes)."""
    sign, logdet = np.linalg.slogdet(_MATRICES.astype("complex128"))
    with polyops.use_backend(backend):
        s, v = to_numpy(ops.slogdet(tensor(_MATRICES, "complex64")))
    np.testing.assert_allclose(s, sign, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, logdet, rtol=1e-5, atol=1e-6)
    assert (s.dtype, v.dtype) == (np.complex64, np.float32)


# ----- linspace -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_linspace_agrees_with_the_numpy_backend(backend, dtype):
    """Bit for bit: i * step + start rounded after each operation (jax compiled it into
    one fused multiply-add, 1 ulp off for about a third of float32 values)."""
    args = [(-45.17649780812676, 0.7712400436045705, 464, False),
            (-1.1748121995916947, 8.14926491005787, 1038, False),
            (0.03193076894096363, 0.000560326452653939, 898, True)]
    for start, stop, num, endpoint in args:
        with polyops.use_backend("numpy"):
            want = to_numpy(ops.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))
        with polyops.use_backend(backend):
            got = to_numpy(ops.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))
        assert got.dtype == want.dtype
        assert np.array_equal(got.view(np.uint16 if got.itemsize == 2 else np.uint32),
                              want.view(np.uint16 if want.itemsize == 2 else np.uint32))
