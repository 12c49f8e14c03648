"""Core's reference implementations where the op table's cases do not reach them: 64-bit
results asked for outside (and inside) 64-bit mode, and complex variance.

Each reference runs through a backend's table (`polyops._op.make_entry`, as
`assert_reference_matches` does), on every installed backend, whether or not the backend
has a native kernel for the op; the result must have the public op's dtype and NumPy's
values at that dtype's tolerance.  A reference composes ops whose own promotion would
demote a 64-bit computation to 32 bits outside 64-bit mode (float64 + float64 -> float32),
so ``dtype="float64"`` there must still compute in float64, as the native kernels do.
"""

from __future__ import annotations

import numpy as np
import polyops
import pytest
from polyops import config, ops
from polyops._op import OPS, make_entry
from polyops._registry import get_backend

# openvino's CPU plugin computes float64 in float32 (docs/numerics.md): float32 tolerance
TIGHT = dict(rtol=1e-12, atol=0)
LOOSE = dict(rtol=2e-6, atol=1e-6)
NO_COMPLEX = {"openvino": "openvino has no complex dtype (TypeError naming the op)"}


def reference(name, *args, **kwargs):
    """``ops.<name>(*args, **kwargs)`` computed by core's reference on the current backend."""
    op = OPS[name]
    bound = op.signature.bind(*args, **kwargs)
    bound.apply_defaults()
    entry = make_entry(op, op.ref, get_backend(polyops.backend()))
    return entry(*bound.args, *bound.kwargs.values())


def check(name, want, *args, dtype=None, **kwargs):
    """The reference's result has ``dtype`` (None: the public op's) and ``want``'s values."""
    got = reference(name, *args, **kwargs)
    dtype = dtype or ops.dtype(getattr(ops, name)(*args, **kwargs))
    assert ops.dtype(got) == dtype, f"{name}: reference gave {ops.dtype(got)}, the op {dtype}"
    tight = dtype in ("float64", "complex128") and polyops.backend() != "openvino"
    values = ops.convert_to_numpy(got)
    if dtype.startswith(("int", "uint")):
        np.testing.assert_array_equal(values, want.astype(dtype))
    else:
        np.testing.assert_allclose(values, want, **(TIGHT if tight else LOOSE))
    return values


@pytest.fixture(params=[False, True], ids=["x64-off", "x64-on"])
def mode(request, backend):
    with polyops.use_backend(backend), config.x64_scope(request.param):
        yield request.param


# Endpoints exact in float32, so that the inputs are the same in both modes (a float64
# tensor converts to float32 outside 64-bit mode) and only the computation can differ.
def test_linspace_float64(mode):
    check("linspace", np.linspace(0.1, 1.7, 7), 0.1, 1.7, 7, 1, 0, "float64")
    check("linspace", np.linspace(0.1, 1.7, 6, endpoint=False), 0.1, 1.7, 6, False, 0, "float64")


def test_linspace_int64_computes_in_float64(mode):
    """NumPy's linspace computes in float64 for an integer dtype: 2**39 + 1 is exact there
    and not in float32."""
    if polyops.backend() == "openvino":
        pytest.xfail("openvino computes int64 in 32 bits")
    if polyops.backend() == "jax" and not polyops.config.is_x64_enabled():
        # (documented: jax holds no 64-bit values outside 64-bit mode)
        assert ops.dtype(ops.linspace(1, 2, 2, dtype="int64")) == "int32"
        return
    want = np.linspace(1, 2 ** 40 + 1, 3, dtype=np.int64)
    got = check("linspace", want, 1, 2 ** 40 + 1, 3, True, False, "int64")
    assert got[1] == 2 ** 39 + 1
    # and the backend's own kernel (native or the reference) agrees
    public = ops.convert_to_numpy(ops.linspace(1, 2 ** 40 + 1, 3, dtype="int64"))
    np.testing.assert_array_equal(public, want)


@pytest.mark.parametrize("start,stop", [(0.5, 3.25), ([0.5, -1.0], [3.25, 2.0])])
def test_logspace_float64(mode, start, stop):
    s, e = ops.convert_to_tensor(np.asarray(start, "float32")), ops.convert_to_tensor(np.asarray(stop, "float32"))
    want = np.logspace(np.asarray(start, "float64"), np.asarray(stop, "float64"), 7, base=2.5)
    check("logspace", want, s, e, 7, True, 2.5, "float64")


@pytest.mark.parametrize("start,stop", [(1.5, 3000.25), (-2.0, -1000.5), ([1.5, -2.0], [0.125, -6.5])])
def test_geomspace_float64(mode, start, stop):
    s, e = ops.convert_to_tensor(np.asarray(start, "float32")), ops.convert_to_tensor(np.asarray(stop, "float32"))
    want = np.geomspace(np.asarray(start, "float64"), np.asarray(stop, "float64"), 9)
    check("geomspace", want, s, e, 9, True, "float64")


def test_array_keeps_64_bits(mode):
    """array(x, dtype) with x already of that 64-bit dtype: a copy, not a demoted one."""
    x = ops.convert_to_tensor([0.1, 1 / 3], "float64")
    check("array", ops.convert_to_numpy(x).astype("float64"), x, "float64")
    if polyops.backend() == "openvino":
        pytest.xfail("openvino computes int64 in 32 bits")
    i = ops.convert_to_tensor(np.array([2 ** 40 + 1, -3]), "int64")
    check("array", ops.convert_to_numpy(i).astype("int64"), i, "int64")


C = np.array([[1 + 2j, 3 - 1j, -2 + 0.5j], [0.25 - 4j, 2 + 2j, -1 - 1j]], "complex64")


NATIVE_COMPLEX_VAR = {
    "tensorflow": "tf.math.reduce_variance/reduce_std of complex values are real: the "
                  "kernel returns float32 where the rule says complex64",
}


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, ()])
@pytest.mark.parametrize("native", [False, True], ids=["reference", "native"])
def test_complex_var_std(backend, name, axis, native, request):
    """The variance of complex values is real, mean(|x - mean|^2) (NumPy's), not the mean
    of the centered values squared; polyops returns it in the complex dtype (the rule's,
    as Keras does), with a zero imaginary part."""
    if backend in NO_COMPLEX:
        pytest.xfail(NO_COMPLEX[backend])
    if (native or name == "std") and backend in NATIVE_COMPLEX_VAR:  # std's reference calls var
        request.applymarker(pytest.mark.xfail(reason=NATIVE_COMPLEX_VAR[backend], strict=True))
    rule = getattr(ops, name)(polyops.SymbolicTensor(C.shape, "complex64"), axis).dtype
    want = getattr(np, name)(C.astype("complex128"), axis=axis)
    with polyops.use_backend(backend):
        x = ops.convert_to_tensor(C)
        if native:
            got = getattr(ops, name)(x, axis)
            assert ops.dtype(got) == rule, f"{name}: the kernel gave {ops.dtype(got)}, the rule {rule}"
            got = ops.convert_to_numpy(got)
            np.testing.assert_allclose(got, want, **LOOSE)
        else:
            got = check(name, want, x, axis, dtype=rule)
        assert np.all(got.imag == 0)


# ----- sorting large inputs ---------------------------------------------------------------
# The numpy kernels take NumPy's default (unstable, much faster) sort from a few thousand
# elements on, where its result cannot differ from the stable one; these cases are where it
# could: ties, -0.0 with 0.0, NaNs with other bit patterns (NumPy's default sort rewrites
# every NaN as the default quiet one).


def _big(dtype, kind, shape=(48, 96)):
    rng = np.random.default_rng(17)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if kind == "ties" or dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype.startswith("uint") else -4, 4, shape).astype(dtype)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    if kind == "specials":
        flat = x.reshape(-1)
        flat[::5], flat[::7], flat[::17], flat[::19] = 0.0, -0.0, np.inf, -np.inf
        bits = np.dtype(f"uint{8 * flat.dtype.itemsize}")
        nan = np.array(np.nan, dtype).view(bits)
        flat[::11] = np.nan
        flat[3::13] = np.array(nan | (nan >> 1) >> 1, bits).view(dtype)  # another payload
        flat[6::23] = -np.array(np.nan, dtype)
    elif kind == "signed-zeros":
        x[::3] = -0.0
        x[1::3] = 0.0
    return x


SORT_CASES = [(d, k) for d in ("float32", "float16", "float64", "int32", "uint32", "int8", "bool")
              for k in ("plain", "ties", "specials", "signed-zeros")
              if d.startswith("float") or k in ("plain", "ties")]


@pytest.mark.parametrize("axis", [-1, 0, None])
@pytest.mark.parametrize("dtype,kind", SORT_CASES, ids=[f"{d}-{k}" for d, k in SORT_CASES])
def test_numpy_sort_large_is_stable(dtype, kind, axis):
    """sort is NumPy's stable sort bit for bit (signed zeros in input order, NaN bit
    patterns kept); argsort is the stable argsort."""
    x = _big(dtype, kind)
    bits = np.dtype(f"uint{8 * x.dtype.itemsize}")
    with polyops.use_backend("numpy"), config.x64_scope():  # (float64 stays float64)
        got = ops.sort(x, axis)
        order = ops.argsort(x, axis)
    want = np.sort(x, axis=axis, kind="stable")
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(bits), want.view(bits))
    np.testing.assert_array_equal(order, np.argsort(x, axis=axis, kind="stable"))
    assert order.dtype == np.int32
