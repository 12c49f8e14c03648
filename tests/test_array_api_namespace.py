"""polyops.array_api: the namespace object, its arrays, dtypes, info and promotion rules.

The standard's own suite runs in tests/test_array_api_conformance.py; these are the fast
checks of what the namespace adds over ``polyops.ops``: its dtype objects and defaults,
the promotion rules where the standard differs from polyops' (docs/array_api.md), the
array object's operators and indexing, and its errors.
"""

from __future__ import annotations

import math

import numpy as np
import polyops
import polyops.array_api as aa
import pytest
from polyops import config


@pytest.fixture
def xp(backend):
    return aa.namespace(backend)


def values(x):
    return np.asarray(x)


# -- the namespace object ---------------------------------------------------------------


def test_namespace_is_cached_and_named(xp, backend):
    assert aa.namespace(backend) is xp
    assert xp.__name__ == f"polyops.array_api.{backend}"
    expected = "2021.12" if backend == "openvino" else "2024.12"
    assert xp.__array_api_version__ == expected
    assert xp.asarray(1).__array_namespace__() is xp
    assert xp.linalg.__name__ == f"polyops.array_api.{backend}.linalg"


def test_unknown_backend():
    with pytest.raises(polyops.BackendNotFoundError, match="pytorch"):
        aa.namespace("pytorch")
    with pytest.raises(TypeError, match="namespace: expected a backend name"):
        aa.namespace(3)


def test_calls_leave_polyops_mode_and_backend_as_they_were(xp, backend):
    before_mode, before_backend = config.is_x64_enabled(), polyops.backend()
    x = xp.asarray([1.0, 2.0])
    assert (x + x).dtype is xp.__array_namespace_info__().default_dtypes()["real floating"]
    assert config.is_x64_enabled() == before_mode
    assert polyops.backend() == before_backend


def test_threads_all_run_in_64_bit_mode():
    """Calls from several threads at once: each keeps float64 (the first call in flight turns
    64-bit mode on, the last one out turns it off)."""
    import threading

    xp = aa.namespace("numpy")
    bad = []

    def work():
        x = xp.asarray([1.0, 2.0], dtype=xp.float64)
        for _ in range(200):
            if xp.exp(x).dtype is not xp.float64 or xp.asarray(1).dtype is not xp.int64:
                bad.append(1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
    assert not config.is_x64_enabled()


# -- dtypes and defaults ----------------------------------------------------------------


def test_dtype_objects_are_shared(xp):
    assert xp.float32 is aa.namespace("numpy").float32
    assert repr(xp.int8) == "polyops.array_api.int8"
    assert xp.asarray([1, 2], dtype=xp.int16).dtype is xp.int16
    assert xp.isdtype(xp.int8, "signed integer") and not xp.isdtype(xp.uint8, "signed integer")
    assert xp.isdtype(xp.float64, ("integral", "real floating"))
    with pytest.raises(ValueError, match="isdtype: expected a dtype or one of"):
        xp.isdtype(xp.float32, "floats")


def test_default_dtypes(xp, backend):
    narrow = backend == "openvino"  # computes 64-bit dtypes in 32 bits: 32-bit defaults
    info = xp.__array_namespace_info__()
    defaults = info.default_dtypes()
    assert defaults["integral"] is (xp.int32 if narrow else xp.int64)
    assert defaults["real floating"] is (xp.float32 if narrow else xp.float64)
    assert xp.asarray(1).dtype is defaults["integral"]
    assert xp.asarray(1.5).dtype is defaults["real floating"]
    assert xp.asarray([True]).dtype is xp.bool
    assert xp.arange(3).dtype is defaults["integral"]
    assert xp.zeros(2).dtype is defaults["real floating"]


def test_info(xp, backend):
    info = xp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] and caps["data-dependent shapes"]
    assert info.default_device() in info.devices()
    assert xp.asarray(1).device == info.default_device()
    ints = info.dtypes(kind="signed integer")
    assert list(ints) == ["int8", "int16", "int32", "int64"]
    complex_ = info.dtypes(kind="complex floating")
    assert (complex_ == {}) == (backend == "openvino")
    with pytest.raises(ValueError, match="dtypes: expected a kind"):
        info.dtypes(kind="float")


def test_finfo_iinfo(xp):
    f = xp.finfo(xp.float32)
    assert f.bits == 32 and isinstance(f.eps, float) and f.dtype is xp.float32
    assert xp.iinfo(xp.asarray([1], dtype=xp.int8)).max == 127
    with pytest.raises(TypeError, match="finfo: expected a floating dtype"):
        xp.finfo(xp.int32)


# -- promotion: where the standard differs from polyops' default rules --------------------


def test_64_bit_dtypes_are_kept(xp, backend):
    x = xp.asarray([1.0, 2.0], dtype=xp.float64)
    assert xp.exp(x).dtype is xp.float64
    assert (xp.asarray([1], dtype=xp.int64) + 1).dtype is xp.int64
    if backend != "openvino":  # (which computes int64 in 32 bits: docs/numerics.md)
        assert xp.sum(xp.asarray([2**40, 1], dtype=xp.int64)) == 2**40 + 1


def test_promotion_table(xp):
    def rt(a, b):
        return (xp.zeros(1, dtype=a) + xp.zeros(1, dtype=b)).dtype

    assert rt(xp.int8, xp.uint8) is xp.int16
    assert rt(xp.uint16, xp.int32) is xp.int32
    assert rt(xp.float32, xp.float32) is xp.float32
    assert xp.result_type(xp.int8, xp.uint8) is xp.int16
    assert xp.result_type(xp.uint32, xp.int32) is xp.int64
    assert xp.result_type(xp.float32, 1.0) is xp.float32
    assert xp.result_type(xp.int8, 1) is xp.int8
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.int16, xp.int8)
    assert not xp.can_cast(xp.int32, xp.float64)  # no cross-kind casts in the standard
    with pytest.raises(TypeError, match="result_type: expected at least one array or dtype"):
        xp.result_type(1, 2.0)


def test_python_scalars_are_weak(xp):
    x = xp.asarray([1.0], dtype=xp.float32)
    assert (x + 1.5).dtype is xp.float32 and (2 * x).dtype is xp.float32
    i = xp.asarray([1], dtype=xp.uint8)
    assert (i + 1).dtype is xp.uint8 and (1 - i).dtype is xp.uint8


def test_integer_reductions_accumulate_in_the_default_int(xp):
    default = xp.__array_namespace_info__().default_dtypes()["integral"]
    x = xp.asarray([100, 100, 100], dtype=xp.int8)
    assert xp.sum(x).dtype is default and int(xp.sum(x)) == 300
    assert xp.prod(xp.asarray([2, 3], dtype=xp.int16)).dtype is default
    assert xp.cumulative_sum(x).dtype is default
    assert xp.sum(x, dtype=xp.float32).dtype is xp.float32
    assert xp.sum(xp.asarray([1.0], dtype=xp.float32)).dtype is xp.float32


def test_functions_that_keep_the_dtype(xp):
    a = xp.asarray([[1, 2], [3, 4]], dtype=xp.int8)
    assert (a @ a).dtype is xp.int8  # polyops' matmul accumulates int8 in int32
    assert xp.ceil(a).dtype is xp.int8 and xp.round(a).dtype is xp.int8
    assert xp.clip(a, 2, 3).dtype is xp.int8
    assert values(xp.clip(a, min=2)).tolist() == [[2, 2], [3, 4]]


# -- the array object ------------------------------------------------------------------


def test_operators(xp):
    x = xp.asarray([1.0, 2.0, 4.0], dtype=xp.float32)
    i = xp.asarray([6, 7, 8], dtype=xp.int32)
    assert values(x + x).tolist() == [2, 4, 8]
    assert values(1 - x).tolist() == [0, -1, -3]
    assert values(x / 2).tolist() == [0.5, 1, 2]
    assert values(2.0 ** x).tolist() == [2, 4, 16]
    assert values(i // 4).tolist() == [1, 1, 2] and values(i % 4).tolist() == [2, 3, 0]
    assert values(i & 3).tolist() == [2, 3, 0] and values(1 << i).tolist() == [64, 128, 256]
    assert values(~xp.asarray([True, False])).tolist() == [False, True]
    assert values(-x).tolist() == [-1, -2, -4] and values(abs(-x)).tolist() == [1, 2, 4]
    assert values(x == 2.0).tolist() == [False, True, False]
    assert values(x >= 2).tolist() == [False, True, True]
    assert (x == "a") is False  # not an array: Python's fallback
    m = xp.reshape(x, (3, 1))
    assert (m.T @ m).shape == (1, 1) and m.mT.shape == (1, 3)


def test_in_place_operators_rebind_the_array(xp):
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    y = x
    x += 1
    assert x is y and values(x).tolist() == [2, 3]
    i = xp.asarray([1, 2], dtype=xp.int32)
    with pytest.raises(TypeError, match="__iadd__: the result's dtype"):
        i += 0.5


def test_attributes_and_conversions(xp):
    x = xp.reshape(xp.arange(6), (2, 3))
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6
    assert int(x[1, 2]) == 5 and float(x[0, 1]) == 1.0 and bool(x[0, 1])
    assert [0, 1, 2][x[0, 2]] == 2  # __index__
    with pytest.raises(TypeError, match="__bool__: expected a 0-d array, got shape"):
        bool(x)
    with pytest.raises(TypeError, match="__index__: expected an integer array"):
        xp.asarray(1.0).__index__()
    assert x.to_device(x.device) is x
    assert "Array(" in repr(x)


def test_getitem(xp):
    x = xp.reshape(xp.arange(12), (3, 4))
    assert values(x[1]).tolist() == [4, 5, 6, 7]
    assert values(x[..., 1::2]).tolist() == [[1, 3], [5, 7], [9, 11]]
    assert x[None, 1:, -1].shape == (1, 2)
    assert values(x[x > 8]).tolist() == [9, 10, 11]
    rows, cols = xp.asarray([0, 2]), xp.asarray([3, -1])
    assert values(x[rows, cols]).tolist() == [3, 11]
    assert values(x[xp.asarray([2, 0])]).tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="mask of shape"):
        x[xp.asarray([True, False])]


def test_setitem_is_functional_on_every_backend(xp):
    x = xp.zeros((2, 3), dtype=xp.int32)
    y = xp.asarray(x, copy=True)
    x[0, 1:] = 7
    x[x == 0] = 1
    x[xp.asarray([1]), xp.asarray([2])] = 5
    assert values(x).tolist() == [[1, 7, 7], [1, 1, 5]]
    assert values(y).tolist() == [[0, 0, 0], [0, 0, 0]]  # the copy is untouched


def test_dlpack_round_trip(xp):
    x = xp.asarray([1.0, 2.0, 3.0], dtype=xp.float32)
    assert np.from_dlpack(x).tolist() == [1, 2, 3]
    assert values(xp.from_dlpack(x)).tolist() == [1, 2, 3]
    assert x.__dlpack_device__()[0] == 1  # kDLCPU


# -- functions that compose ops ---------------------------------------------------------


def test_sorting_and_sets(xp, backend):
    x = xp.asarray([3, 1, 3, 2], dtype=xp.int32)
    assert values(xp.sort(x, descending=True)).tolist() == [3, 3, 2, 1]
    assert values(xp.argsort(x, descending=True)).tolist() == [0, 2, 3, 1]  # stable
    u = xp.unique_all(x)
    assert values(u.values).tolist() == [1, 2, 3] and values(u.counts).tolist() == [1, 1, 2]
    assert values(u.indices).tolist() == [1, 3, 0]
    f = xp.asarray([1.0, math.nan, math.nan], dtype=xp.float32)
    assert xp.unique_values(f).shape == (3,)  # NaNs are distinct


def test_statistics_and_linalg(xp):
    x = xp.asarray([[1.0, 2.0], [3.0, 5.0]], dtype=xp.float32)
    assert math.isclose(float(xp.var(x, correction=1)), float(np.var(values(x), ddof=1)),
                        rel_tol=1e-5)
    assert math.isclose(float(xp.linalg.det(x)), -1.0, rel_tol=1e-5)
    assert xp.linalg.vector_norm(x, axis=(0, 1)).shape == ()
    v = xp.linalg.solve(x, xp.asarray([1.0, 2.0], dtype=xp.float32))
    assert np.allclose(values(x) @ values(v), [1, 2], atol=1e-5)


def test_fft(xp, backend):
    if backend == "openvino":
        assert not hasattr(xp, "fft")  # the FFTs return complex arrays
        return
    x = xp.asarray([1.0, 2.0, 0.0, -1.0], dtype=xp.complex64)
    assert np.allclose(values(xp.fft.fft(x)), np.fft.fft(values(x)), atol=1e-5)
    assert np.allclose(values(xp.fft.ifft(xp.fft.fft(x))), values(x), atol=1e-5)
    r = xp.asarray([1.0, 2.0, 0.0], dtype=xp.float64)
    assert xp.fft.rfft(r).dtype is xp.complex128
    assert values(xp.fft.fftfreq(4)).tolist() == [0, 0.25, -0.5, -0.25]


def test_complex_functions_polyops_ops_reject(xp, backend):
    if backend == "openvino":  # no complex dtypes: the namespace names them, cannot make them
        with pytest.raises(TypeError, match="asarray: the openvino backend has no complex"):
            xp.asarray(1j)
        with pytest.raises(TypeError, match="zeros: dtype complex64 is not supported"):
            xp.zeros(2, dtype=xp.complex64)
        return
    z = xp.asarray([0.5 + 0.25j], dtype=xp.complex128)
    for name, ref in (("acos", np.arccos), ("cosh", np.cosh), ("expm1", np.expm1),
                      ("log1p", np.log1p), ("sign", lambda v: v / abs(v))):
        assert np.allclose(values(getattr(xp, name)(z)), ref(values(z))), name


# -- errors ----------------------------------------------------------------------------


def test_errors_name_the_function(xp):
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="add: expected an array for 'x2', got str"):
        xp.add(x, "a")
    with pytest.raises(TypeError, match="sin: expected an array for 'x', got list"):
        xp.sin([1.0])
    with pytest.raises(TypeError, match="astype: expected a dtype, got 3"):
        xp.astype(x, 3)
    with pytest.raises(ValueError, match="squeeze: axis 0 has size 2, not 1"):
        xp.squeeze(x, axis=0)
    with pytest.raises(ValueError, match="asarray: copy=False"):
        xp.asarray(x, dtype=xp.int32, copy=False)
    with pytest.raises(ValueError, match="arange: expected a non-zero step"):
        xp.arange(0, 3, 0)


def test_arrays_of_two_namespaces_do_not_mix():
    a = aa.namespace("numpy").asarray([1.0])
    other = next((b for b in polyops.available_backends() if b != "numpy"), None)
    if other is None:
        pytest.skip("one backend installed")
    b = aa.namespace(other).asarray([1.0])
    with pytest.raises(TypeError, match=f"of the {other} namespace"):
        aa.namespace("numpy").add(a, b)
