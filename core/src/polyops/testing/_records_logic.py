"""Op records of `polyops.ops.numpy.logic` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
_NP = {"bfloat16": _BF16}
_SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -np.nan])
_FMAX = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0,
         "bfloat16": float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)}


def _np_dtype(dtype):
    return _NP.get(dtype, np.dtype(dtype))


def _values(dtype, rng, shape=(3, 4), special=True):
    """Random values of ``dtype``; floats get NaN, +-inf, +-0.0 and a negative NaN."""
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), shape, endpoint=True).astype(dtype)
    a = rng.normal(0, 3, shape).astype(np.float32)
    if special:
        a.flat[:len(_SPECIAL)] = _SPECIAL
    return a.astype(_np_dtype(dtype))


def _special_make(dtype, rng):
    return [_values(dtype, rng)]


# -- predicates ------------------------------------------------------------------------
RECORDS += [
    OpRecord("logical_xor", shapes=((3, 4), (4,)), dtypes=("bool", "float32", "int32")),
    OpRecord("logical_xor", shapes=((), (2, 0)), dtypes=("bool",), id="logical_xor-0d-empty"),
]
for _name in ("isfinite", "isinf", "isnan", "isneginf", "isposinf"):
    RECORDS.append(OpRecord(_name, make=_special_make,
                            dtypes=("float32", "float16", "bfloat16", "int32", "bool")))
RECORDS += [
    OpRecord("isnan", shapes=((),), id="isnan-0d"),
    OpRecord("isfinite", shapes=((0, 3),), id="isfinite-empty"),
    OpRecord("isreal", make=_special_make, dtypes=("float32", "int32", "bool")),
    OpRecord("signbit", make=_special_make,
             dtypes=("float32", "float16", "bfloat16", "int32", "int8", "bool")),
]


def _close_make(dtype, rng):
    """x1 and x2 with exact, close, far, NaN and inf pairs."""
    if dtype.startswith("int"):
        a = rng.integers(-5, 6, (4, 6)).astype(dtype)
        return [a, (a + rng.integers(0, 2, a.shape)).astype(dtype)]
    x = rng.normal(0, 3, (4, 6)).astype(np.float32)
    rel = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}[dtype]
    y = x * (1 + rng.choice([0.0, rel, -rel, 1e-1], x.shape)).astype(np.float32)
    pairs = [(np.nan, np.nan), (np.inf, np.inf), (np.inf, -np.inf), (1.0, np.inf),
             (np.nan, 1.0), (0.0, -0.0), (0.0, 1e-9), (1e-9, 0.0), (-np.inf, -np.inf)]
    for i, (p, q) in enumerate(pairs):
        x.flat[i], y.flat[i] = p, q
    return [x.astype(_np_dtype(dtype)), y.astype(_np_dtype(dtype))]


def _allclose_make(dtype, rng):
    x = rng.normal(0, 3, (3, 4)).astype(np.float32)
    x[0, 0] = np.nan
    return [x, x * np.float32(1 + 1e-6)]


RECORDS += [
    OpRecord("isclose", make=_close_make, dtypes=("float32", "float16", "bfloat16", "int32"),
             np_fn=np.isclose),
    OpRecord("isclose", make=_close_make, kwargs=dict(equal_nan=True), id="isclose-equal_nan",
             np_fn=lambda a, b, equal_nan: np.isclose(a, b, equal_nan=equal_nan)),
    OpRecord("isclose", make=_close_make, kwargs=dict(rtol=0.05, atol=0.5), id="isclose-tol",
             np_fn=lambda a, b, rtol, atol: np.isclose(a, b, rtol=rtol, atol=atol)),
    OpRecord("isclose", shapes=((3, 1), (4,)), dtypes=("float32", "bool"), id="isclose-broadcast",
             np_fn=np.isclose),
    OpRecord("allclose", make=_allclose_make, kwargs=dict(equal_nan=True),
             np_fn=lambda a, b, equal_nan: np.allclose(a, b, equal_nan=equal_nan)),
    OpRecord("allclose", make=_allclose_make, id="allclose-nan-false", np_fn=np.allclose),
    OpRecord("allclose", shapes=((2, 3), (3,)), id="allclose-far", dtypes=("float32", "int32"),
             np_fn=np.allclose),
    OpRecord("allclose", shapes=((0, 3), (3,)), id="allclose-empty", np_fn=np.allclose),
]


# -- nan_to_num ----------------------------------------------------------------------


def _nan_to_num_np(dtype):
    def fn(x, nan=0.0, posinf=None, neginf=None):
        # the largest finite value of the input's dtype (float64 in 64-bit mode)
        big = float(np.finfo(x.dtype).max) if x.dtype == np.float64 else _FMAX.get(dtype, 0.0)
        return np.nan_to_num(x, nan=nan, posinf=big if posinf is None else posinf,
                             neginf=-big if neginf is None else neginf)

    return fn


RECORDS += [
    OpRecord("nan_to_num", make=_special_make, dtypes=(d,), id=f"nan_to_num-{d}",
             np_fn=_nan_to_num_np(d))
    for d in ("float32", "float16", "bfloat16")
]
RECORDS += [
    OpRecord("nan_to_num", make=_special_make, dtypes=("int32", "bool"), id="nan_to_num-int",
             np_fn=np.nan_to_num),
    OpRecord("nan_to_num", make=_special_make, dtypes=("float32", "float16"), id="nan_to_num-values",
             kwargs=dict(nan=1.5, posinf=100, neginf=-100.0), np_fn=_nan_to_num_np("float32")),
]


# -- nextafter -----------------------------------------------------------------------


def _nextafter_make(dtype, rng):
    x1 = _values(dtype, rng, (4, 5)).astype(np.float32)
    x2 = rng.normal(0, 3, (4, 5)).astype(np.float32)
    # +-0 both ways, equal operands, infinities, NaN in x2, the largest finite value
    x1[1, :] = [0.0, -0.0, 0.0, -0.0, 2.5]
    x2[1, :] = [1.0, 1.0, -1.0, 0.0, 2.5]
    x1[2, :] = [np.inf, -np.inf, 1.0, _FMAX[dtype], -_FMAX[dtype]]
    x2[2, :] = [0.0, 0.0, np.nan, np.inf, -np.inf]
    return [x1.astype(_np_dtype(dtype)), x2.astype(_np_dtype(dtype))]


def _nextafter_np(dtype):
    t = _np_dtype(dtype)
    # (64-bit inputs step in float64: 64-bit mode keeps them)
    return lambda a, b: np.nextafter(*(v.astype(np.float64 if v.dtype == np.float64 else t) for v in (a, b)))


RECORDS += [
    OpRecord("nextafter", make=_nextafter_make, dtypes=(d,), id=f"nextafter-{d}",
             np_fn=_nextafter_np(d), tol={d: dict(rtol=0, atol=0)})
    for d in ("float32", "float16", "bfloat16")
]
RECORDS += [
    OpRecord("nextafter", shapes=((3, 1), (4,)), dtypes=("int32", "bool"), id="nextafter-int",
             np_fn=_nextafter_np("float32"), tol={"float32": dict(rtol=0, atol=0)}),
]


# -- complex parts (real input) --------------------------------------------------------
RECORDS += [
    OpRecord("real", make=_special_make, dtypes=("float32", "int32", "bool", "float16")),
    OpRecord("imag", make=_special_make, dtypes=("float32", "int32", "bool", "float16")),
    OpRecord("conjugate", make=_special_make, dtypes=("float32", "int32", "bool")),
    OpRecord("angle", make=_special_make, dtypes=("float32", "float16", "int32", "bool"),
             np_fn=lambda x: np.angle(x.astype(np.float32))),
]


# -- bitwise primitives ----------------------------------------------------------------


def _bits_make(dtype, rng):
    return [_values(dtype, rng, (3, 4)), _values(dtype, rng, (4,))]


for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    RECORDS.append(OpRecord(_name, make=_bits_make, dtypes=("int32", "int8", "uint8", "int16", "bool")))
RECORDS += [
    OpRecord("bitwise_and", shapes=((2, 3), ()), dtypes=("int32",), kwargs={}, id="bitwise_and-0d"),
    OpRecord("bitwise_invert", make=lambda dtype, rng: [_values(dtype, rng)], np_fn=np.invert,
             dtypes=("int32", "int8", "uint8", "int16", "bool")),
]


def _shift_make(dtype, rng):
    bits = 32 if dtype == "bool" else np.dtype(dtype).itemsize * 8
    x = _values(dtype, rng, (4, 6))
    counts = np.arange(24) % (bits + 3) if dtype != "bool" else rng.random(24) > 0.5
    return [x, counts.reshape(4, 6).astype(dtype)]


def _shift_np(left):
    def fn(x, y):
        if x.dtype == bool:
            x, y = x.astype(np.int32), y.astype(np.int32)
        bits = x.dtype.itemsize * 8
        shifted = (np.left_shift if left else np.right_shift)(x, np.minimum(y, bits - 1).astype(x.dtype))
        over = np.zeros_like(x) if left else np.where(x < 0, -1, 0).astype(x.dtype)
        return np.where(y >= bits, over, shifted)

    return fn


RECORDS += [
    OpRecord("left_shift", make=_shift_make, np_fn=_shift_np(True),
             dtypes=("int32", "int8", "uint8", "int16", "bool")),
    OpRecord("right_shift", make=_shift_make, np_fn=_shift_np(False),
             dtypes=("int32", "int8", "uint8", "int16", "bool")),
]


# -- view ------------------------------------------------------------------------------


def _view_make(shape):
    def make(dtype, rng):
        return [_values(dtype, rng, shape, special=dtype != "bool")]

    return make


def _view_np(src):
    t = _np_dtype(src)
    return lambda x, dtype=None: x.astype(t).view(_np_dtype(dtype or src))


RECORDS += [
    OpRecord("view", make=_view_make((2, 3)), dtypes=("float32",), kwargs=dict(dtype="int32"),
             np_fn=_view_np("float32")),
    OpRecord("view", make=lambda dtype, rng: [rng.normal(0, 3, (2, 3)).astype(np.float32).view(np.int32)],
             dtypes=("int32",), kwargs=dict(dtype="float32"), id="view-int32-float32",
             np_fn=_view_np("int32")),
    OpRecord("view", make=_view_make((2, 3)), dtypes=("float32",), kwargs=dict(dtype="int16"),
             id="view-float32-int16", np_fn=_view_np("float32")),
    OpRecord("view", make=_view_make((2, 4)), dtypes=("int16",), kwargs=dict(dtype="uint32"),
             id="view-int16-uint32", np_fn=_view_np("int16")),
    OpRecord("view", make=_view_make((3, 2)), dtypes=("float16",), kwargs=dict(dtype="int16"),
             id="view-float16-int16", np_fn=_view_np("float16")),
    OpRecord("view", make=_view_make((3, 2)), dtypes=("bfloat16",), kwargs=dict(dtype="uint16"),
             id="view-bfloat16-uint16", np_fn=_view_np("bfloat16")),
    OpRecord("view", make=_view_make((3, 2)), dtypes=("bfloat16",), kwargs=dict(dtype="float16"),
             id="view-bfloat16-float16", np_fn=_view_np("bfloat16")),
    OpRecord("view", make=_view_make((3, 4)), dtypes=("uint8",), kwargs=dict(dtype="int8"),
             id="view-uint8-int8", np_fn=_view_np("uint8")),
    OpRecord("view", make=_view_make((3, 4)), dtypes=("bool",), kwargs=dict(dtype="uint8"),
             id="view-bool-uint8", np_fn=_view_np("bool")),
    OpRecord("view", make=_view_make((2, 3)), dtypes=("int32", "float32"), id="view-same",
             np_fn=lambda x: x),
    OpRecord("view", make=_view_make(()), dtypes=("float32",), kwargs=dict(dtype="uint32"),
             id="view-0d", np_fn=_view_np("float32")),
]
