"""Op records of `polyops.ops.numpy.elementwise` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
F = ("float32", "float16", "bfloat16")
FI = ("float32", "float16", "int32", "bool")  # float-valued functions: ints/bools give floatx
INTS = ("int32", "int8", "uint8", "int16")


def _as(a, dtype):
    return np.asarray(a, np.float32).astype(_BF16) if dtype == "bfloat16" else np.asarray(a).astype(dtype)


def _f64(fn):
    """The NumPy function computed in float64 (ints and bools included), rounded to float32
    (so that a result beyond float32's range is inf, as the op's float32 result)."""
    return lambda *xs: np.float32(fn(*(np.asarray(x).astype(np.float64) for x in xs)))


def _specials(values):
    """make(): one 1-D input of fixed special values (NaN, inf, tiny, huge...) in ``dtype``."""
    return lambda dtype, rng: [_as(values, dtype)]


_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.5]

# -- unary, float-valued -----------------------------------------------------------------
for _name in ("arctan", "arcsinh", "cbrt", "cosh", "sinh", "tan", "deg2rad", "rad2deg", "exp2",
              "expm1", "sinc", "i0"):
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), dtypes=FI))
for _name in ("arcsin", "arccos", "arctanh"):
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), dtypes=F, domain="unit"))
for _name in ("log10", "log2", "log1p"):
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), dtypes=F + ("int32",),
                            domain="positive"))
RECORDS += [
    OpRecord("fabs", np_fn=_f64(np.fabs), dtypes=FI),
    OpRecord("trunc", np_fn=lambda x: x if x.dtype.kind in "biu" else np.trunc(x),
             dtypes=("float32", "float16", "int32", "uint8", "bool")),
    OpRecord("reciprocal", np_fn=lambda x: 1.0 / x.astype(np.float64), dtypes=("float32", "float16", "int32")),
    OpRecord("arccosh", np_fn=_f64(np.arccosh), dtypes=F + ("int32",),
             make=lambda dtype, rng: [_as(1 + rng.uniform(0, 6, (2, 3)), dtype)]),
]

# special values, tiny and huge magnitudes (float32), 0-d and zero-size
_TINY_HUGE = _SPECIAL + [1e-30, -1e-30, 1e-7, -3e-6, 80.0, -80.0, 89.0, -89.0, 1e20, -1e30, 3e38]
for _name in ("expm1", "log1p", "sinh", "cosh", "arcsinh", "arctan", "cbrt", "exp2", "log2",
              "log10", "i0", "trunc", "fabs", "reciprocal"):
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), id=f"{_name}-special",
                            make=_specials(_TINY_HUGE)))
for _name in ("tan", "sinc"):  # moderate arguments: pi * 3e38 overflows float32
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), id=f"{_name}-special",
                            make=_specials(_SPECIAL + [1e-30, -1e-7, 1.5, 7.25, -100.5])))
for _name in ("arcsin", "arccos", "arctanh"):
    RECORDS.append(OpRecord(_name, np_fn=_f64(getattr(np, _name)), id=f"{_name}-special",
                            make=_specials(_SPECIAL + [1e-30, -1e-6, 0.9999999, -0.9999999, 1.5])))
RECORDS += [
    OpRecord("arccosh", np_fn=_f64(np.arccosh), id="arccosh-special",
             make=_specials(_SPECIAL + [1.0000001, 1e5, 1e20, 3e38, 0.5])),
    OpRecord("expm1", shapes=((),), np_fn=_f64(np.expm1), id="expm1-0d"),
    OpRecord("sinh", shapes=((0, 3),), np_fn=_f64(np.sinh), id="sinh-empty"),
]

# -- binary ------------------------------------------------------------------------------
for _name in ("arctan2", "logaddexp", "logaddexp2", "hypot"):
    RECORDS.append(OpRecord(_name, shapes=((2, 3), (3,)), np_fn=_f64(getattr(np, _name)), dtypes=FI))
RECORDS += [
    OpRecord("heaviside", shapes=((2, 3), (3,)), np_fn=_f64(np.heaviside), dtypes=FI,
             make=lambda dtype, rng: [_as(rng.integers(-2, 3, (2, 3)), dtype) if dtype != "bool"
                                      else rng.random((2, 3)) > 0.5,
                                      _as(rng.uniform(0, 1, (3,)), dtype) if dtype != "bool"
                                      else np.array([True, False, True])]),
    OpRecord("fmax", shapes=((2, 3), (3,)), dtypes=("float32", "float16", "int32", "bool")),
    OpRecord("fmin", shapes=((2, 3), (3,)), dtypes=("float32", "int8", "uint8")),
    OpRecord("fmod", shapes=((4, 3), (3,)), domain="divisor", dtypes=("float32", "float16", "int32", "uint8")),
    OpRecord("fmod", id="fmod-negative", dtypes=("int32", "int8", "float32"),
             make=lambda dtype, rng: [_as(rng.integers(-20, 21, (4, 5)), dtype),
                                      _as(rng.choice([-7, -3, -1, 1, 2, 5], (4, 5)), dtype)]),
    OpRecord("gcd", shapes=((2, 3), (3,)), dtypes=INTS),
    OpRecord("gcd", id="gcd-signed", dtypes=("int32", "int16"),
             make=lambda dtype, rng: [_as(rng.integers(-1000, 1001, (3, 4)), dtype),
                                      _as(rng.integers(-1000, 1001, (3, 4)) * 6, dtype)]),
    OpRecord("lcm", shapes=((2, 3), (3,)), dtypes=INTS),
    OpRecord("lcm", id="lcm-signed", dtypes=("int32",),
             make=lambda dtype, rng: [_as(rng.integers(-300, 301, (3, 4)), dtype),
                                      _as(rng.integers(-300, 301, (3, 4)), dtype)]),
    OpRecord("ldexp", np_fn=lambda x1, x2: np.ldexp(x1.astype(np.float64), x2),
             dtypes=("float32", "float16", "bfloat16", "int32"),
             make=lambda dtype, rng: [_as(rng.normal(0, 2, (2, 3)), dtype) if dtype != "int32"
                                      else rng.integers(-5, 6, (2, 3)).astype(np.int32),
                                      rng.integers(-8, 9, (3,)).astype(np.int32)]),
    OpRecord("ldexp", id="ldexp-extreme", np_fn=lambda x1, x2: np.ldexp(x1, x2),
             make=lambda dtype, rng: [np.array([1e-30, 3e38, 1.5, 1.5, 7.0, -2.0, 0.0, np.inf, np.nan], np.float32),
                                      np.array([200, -250, 127, -140, 1000, -1000, 50, -5, 3], np.int32)]),
    OpRecord("divide_no_nan", np_fn=lambda a, b: np.where(b == 0, 0.0, a / np.where(b == 0, 1, b).astype(np.float64)),
             dtypes=("float32", "float16", "int32"),
             make=lambda dtype, rng: [_as(rng.normal(0, 2, (2, 3)) if dtype != "int32" else rng.integers(-5, 6, (2, 3)), dtype),
                                      _as([0, 2, -1] if dtype == "int32" else [0.0, 2.0, -0.5], dtype)]),
]

# special values of the binary ops: every pair of [nan, inf, -inf, 0, -0, 1, -2.5]
_PAIR = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5], np.float32)
_PA, _PB = np.meshgrid(_PAIR, _PAIR, indexing="ij")


def _pairs(dtype, rng):
    return [_as(_PA.ravel(), dtype), _as(_PB.ravel(), dtype)]


for _name in ("arctan2", "logaddexp", "logaddexp2", "hypot", "heaviside", "fmax", "fmin", "fmod"):
    RECORDS.append(OpRecord(_name, id=f"{_name}-special", np_fn=getattr(np, _name), make=_pairs,
                            dtypes=("float32", "bfloat16")))
RECORDS += [
    OpRecord("divide_no_nan", id="divide_no_nan-special", make=_pairs,
             np_fn=lambda a, b: np.where(b == 0, np.float32(0), a / np.where(b == 0, 1, b))),
    OpRecord("logaddexp", id="logaddexp-far", np_fn=_f64(np.logaddexp),
             make=lambda dtype, rng: [np.array([0.0, 1e30, -1e30, 50.0, -120.0], np.float32),
                                      np.array([-40.0, 1e30, 1e30, 50.0, -100.0], np.float32)]),
    OpRecord("hypot", id="hypot-huge-tiny", np_fn=_f64(np.hypot),
             make=lambda dtype, rng: [np.array([3e38, 3e-30, 1e20, 0.0], np.float32),
                                      np.array([3e38, 4e-30, 1.0, 0.0], np.float32)]),
    OpRecord("fmod", id="fmod-int-by-zero", dtypes=("int32", "uint8"),
             np_fn=lambda a, b: np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b))),
             make=lambda dtype, rng: [_as([5, 7, 0, 3], dtype), _as([0, 3, 0, 2], dtype)]),
    OpRecord("gcd", id="gcd-zero", np_fn=np.gcd, dtypes=("int32", "uint8"),
             make=lambda dtype, rng: [_as([0, 0, 12, 255, 1], dtype), _as([0, 9, 0, 85, 200], dtype)]),
    OpRecord("arctan2", shapes=((), (2, 0)), id="arctan2-0d-empty", np_fn=np.arctan2),
]
