"""The standard's dtype objects, its promotion rules and the data type functions.

One `DType` object per dtype, shared by every backend's namespace (``xp.float32 is
polyops.array_api.float32``); each wraps the canonical polyops name that the ops take.

Promotion is polyops' lattice in 64-bit mode (`polyops.result_type` with
`polyops.config.x64_scope`): on every pair the standard defines (its promotion table,
Python scalars weak), that lattice gives the standard's answer, and the namespace runs
its calls in 64-bit mode, so nothing is demoted.  Pairs the standard leaves undefined
(mixed kinds, uint64 with a signed int) get the lattice's answer, as the ops compute
them; docs/array_api.md has the table of differences from polyops' default rules.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import _dtypes as _core_dtypes
from .. import config as _config

BOOL = ("bool",)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGRAL = SIGNED + UNSIGNED
REAL_FLOATING = ("float32", "float64")
COMPLEX_FLOATING = ("complex64", "complex128")
NUMERIC = INTEGRAL + REAL_FLOATING + COMPLEX_FLOATING
ALL = BOOL + NUMERIC

KINDS = {
    "bool": BOOL,
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGRAL,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": NUMERIC,
}

_WEAK = {bool: "bool", int: "int", float: "float", complex: "complex"}


class DType:
    """A dtype of the namespace: ``xp.float32``.  Compares by identity; ``name`` is the
    canonical polyops dtype string, so ``ops`` functions take it as a dtype too."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"polyops.array_api.{self.name}"

    __str__ = __repr__

    def __reduce__(self):
        return (_by_name, (self.name,))


DTYPES = {name: DType(name) for name in ALL}


def _by_name(name: str) -> DType:
    return DTYPES[name]


def name_of(dtype, op: str) -> str:
    """The canonical name of a dtype argument: a `DType`, or anything
    `polyops.standardize_dtype` takes (a dtype name, a framework dtype)."""
    if type(dtype) is DType:
        return dtype.name
    if dtype is None or isinstance(dtype, (bool, int, float, complex)) and type(dtype) is not type:
        raise TypeError(f"{op}: expected a dtype, got {dtype!r}")
    try:
        name = _core_dtypes.standardize_dtype(dtype)
    except TypeError:
        raise TypeError(f"{op}: expected a dtype, got {dtype!r}") from None
    if name not in DTYPES:
        raise TypeError(f"{op}: dtype {name} is not an Array API dtype")
    return name


@functools.cache
def promote(a: str, b: str) -> str:
    """The result dtype of two operands (canonical names, or "int"/"float"/"complex"/"bool"
    for Python scalars): polyops' lattice in 64-bit mode (see the module docstring)."""
    keys = tuple(_WEAK.get(k, k) if isinstance(k, type) else k for k in (a, b))
    return _core_dtypes._result_type(keys, _config.floatx(), True)


def kind_ok(name: str, scalar) -> bool:
    """Whether a Python scalar may combine with an array of dtype ``name`` (the standard:
    bool with bool; int with integer and floating arrays; float with floating; complex with
    complex, and with real floating, giving complex)."""
    t = type(scalar)
    if t is bool:
        return name == "bool"
    if t is int:
        return name != "bool"
    if t is float:
        return name in REAL_FLOATING or name in COMPLEX_FLOATING
    if t is complex:
        return name in REAL_FLOATING or name in COMPLEX_FLOATING
    return False


def isdtype(dtype, kind) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ("integral", "real floating"...)
    or a tuple of them."""
    name = name_of(dtype, "isdtype")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        members = KINDS.get(kind)
        if members is None:
            raise ValueError(f"isdtype: expected a dtype or one of {sorted(KINDS)}, "
                             f"got kind={kind!r}")
        return name in members
    return name == name_of(kind, "isdtype")


def can_cast(from_name: str, to_name: str) -> bool:
    """Whether the promotion rules turn ``from`` into ``to`` (same kind only: the standard
    defines no casts across kinds)."""
    if from_name == to_name:
        return True
    kind = _kind(from_name)
    if kind != _kind(to_name) and not (kind == "float" and _kind(to_name) == "complex"):
        return False
    return promote(from_name, to_name) == to_name


def _kind(name: str) -> str:
    if name == "bool":
        return "bool"
    if name in INTEGRAL:
        return "int"
    if name in REAL_FLOATING:
        return "float"
    return "complex"


class finfo_object:
    """What ``finfo`` returns: bits, eps, max, min, smallest_normal (Python floats), dtype."""

    def __init__(self, name: str):
        real = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        info = np.finfo(real)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = DTYPES[real]

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"dtype={self.dtype})")


class iinfo_object:
    """What ``iinfo`` returns: bits, max, min (Python ints), dtype."""

    def __init__(self, name: str):
        info = np.iinfo(name)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = DTYPES[name]

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"
