"""Dtype names, standardization and the one promotion lattice.

Every dtype inside polyops is a canonical string ("float32", "bfloat16", "int32",
"bool", ...).  `standardize_dtype` turns any framework's dtype object into one by
duck typing, so this module imports no framework.

`result_type` is the JAX-style lattice that Keras 3 uses: Python ``int`` and
``float`` are *weak* (they adopt the other operand's kind and width), and 64-bit
results are demoted to 32-bit (JAX's default with x64 off).  We apply the
demotion on every backend, tensorflow included, so one call gives one dtype
everywhere.  All entry points are cached: the eager path pays a dict lookup.
"""

from __future__ import annotations

import functools

from . import config

BOOL_TYPES = ("bool",)
UINT_TYPES = ("uint8", "uint16", "uint32", "uint64")
SINT_TYPES = ("int8", "int16", "int32", "int64")
INT_TYPES = UINT_TYPES + SINT_TYPES
FLOAT_TYPES = ("bfloat16", "float16", "float32", "float64")
HALF_FLOATS = ("float16", "bfloat16")  # widened by ops that declare a compute dtype
COMPLEX_TYPES = ("complex64", "complex128")
REAL_OF = {"complex64": "float32", "complex128": "float64"}  # a complex dtype's parts
WEAK_TYPES = ("int", "float", "complex")
ALLOWED_DTYPES = BOOL_TYPES + INT_TYPES + FLOAT_TYPES + COMPLEX_TYPES

_ALIASES = {
    "float": "float32",  # Keras treats the string "float" as floatx; resolved below
    "double": "float64",
    "half": "float16",
    "int": "int32",
    "long": "int64",
    "bool_": "bool",
    "boolean": "bool",
    "bf16": "bfloat16",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "boolean_": "bool",
}

_PYTHON_TYPES = {bool: "bool", int: "int32", float: "float32", complex: "complex64"}


@functools.lru_cache(maxsize=None)
def numpy_dtype(name: str):
    """The ``numpy.dtype`` of canonical dtype ``name``.  bfloat16 is ml_dtypes', imported
    here on first use: importing ml_dtypes takes about half a second, which a user who
    never asks for bfloat16 should not pay."""
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def numpy_finfo(name: str):
    """``numpy.finfo`` of float dtype ``name`` (bfloat16's from ml_dtypes)."""
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.finfo(numpy_dtype(name))
    return np.finfo(name)


def _name_of(dtype) -> str:
    """The plain dtype name of any framework's dtype object, found by duck typing."""
    if isinstance(dtype, str):
        name = dtype
    elif hasattr(dtype, "as_numpy_dtype") and hasattr(dtype, "name"):  # tf.DType
        name = dtype.name
    elif type(dtype).__module__ == "torch":  # torch.dtype: str() is "torch.float32"
        name = str(dtype).rsplit(".", 1)[-1]
    elif hasattr(dtype, "type_name") and hasattr(dtype, "get_type_name"):  # openvino Type
        name = dtype.get_type_name()
        name = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
                "boolean": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
                "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                "u64": "uint64"}.get(name, name)
    elif hasattr(dtype, "name") and hasattr(dtype, "kind"):  # numpy / jax / ml_dtypes
        name = dtype.name
    elif isinstance(dtype, type) and hasattr(dtype, "dtype"):  # np.float32 scalar type
        name = getattr(dtype, "__name__", str(dtype))
        if name == "bool_":
            name = "bool"
    else:  # e.g. Array API namespaces' dtypes, whose str is "<library>.float32"
        name = getattr(dtype, "name", None) or str(dtype).rsplit(".", 1)[-1]
    return _ALIASES.get(name, name)


@functools.lru_cache(maxsize=1024)
def _standardize_cached(kind, dtype) -> str:
    # ``kind`` (type(dtype)) keeps equal-hashing dtype objects of different libraries
    # apart: array_api_strict's dtypes hash like numpy's and warn when compared with them.
    if dtype in _PYTHON_TYPES and isinstance(dtype, type):
        return _PYTHON_TYPES[dtype]
    name = _name_of(dtype)
    if name == "float32" and dtype == "float":
        return config.floatx()
    if name not in ALLOWED_DTYPES:
        raise TypeError(
            f"standardize_dtype: expected one of {ALLOWED_DTYPES}, got dtype={dtype!r}"
        )
    return name


def standardize_dtype(dtype=None) -> str:
    """Return the canonical dtype string for ``dtype``.

    Accepts canonical strings and their common aliases, Python ``bool``/``int``/
    ``float``/``complex``, and the dtype objects of numpy (ml_dtypes bfloat16
    included), jax, tensorflow, torch and openvino.  ``None`` means floatx.

    Raises:
        TypeError: ``dtype`` names no supported dtype.

    Example:
        >>> standardize_dtype("f32"), standardize_dtype(bool)
        ('float32', 'bool')
    """
    if dtype is None:
        return config.floatx()
    try:
        return _standardize_cached(type(dtype), dtype)
    except TypeError as exc:
        if "unhashable" in str(exc):
            return _standardize_cached.__wrapped__(type(dtype), dtype)
        raise


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_TYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_TYPES


def is_complex(dtype: str) -> bool:
    return dtype in COMPLEX_TYPES


# --- the lattice (adapted from JAX's jax/_src/dtypes.py, as Keras does) ----------------


def _lattice() -> dict[str, tuple[str, ...]]:
    return {
        "bool": ("int",),
        "int": ("uint8", "int8", "complex"),
        "uint8": ("int16", "uint16"),
        "uint16": ("int32", "uint32"),
        "uint32": ("int64", "uint64"),
        "uint64": ("float",),
        "int8": ("int16",),
        "int16": ("int32",),
        "int32": ("int64",),
        "int64": ("float",),
        "float": ("bfloat16", "float16", "complex"),
        "bfloat16": ("float32",),
        "float16": ("float32",),
        "float32": ("float64", "complex64"),
        "float64": ("complex128",),
        "complex": ("complex64",),
        "complex64": ("complex128",),
        "complex128": (),
    }


def _upper_bounds() -> dict[str, frozenset[str]]:
    lattice = _lattice()
    bounds = {}
    for node in lattice:
        seen, todo = {node}, [node]
        while todo:
            for up in lattice[todo.pop()]:
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        bounds[node] = frozenset(seen)
    return bounds


_UPPER = _upper_bounds()
_DEMOTE = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def _least_upper_bound(nodes: frozenset[str]) -> str:
    common = frozenset.intersection(*(_UPPER[n] for n in nodes))
    least = [c for c in common if common <= _UPPER[c]]
    return least[0]


@functools.lru_cache(maxsize=4096)
def _result_type(keys: tuple, floatx: str, x64: bool = False) -> str:
    # keys: canonical dtypes, or "int"/"float"/"complex" for weak Python scalars.
    strong = [k for k in keys if k not in WEAK_TYPES]
    if len(set(strong)) == 1 and len(strong) == len(keys):
        out = strong[0]
    else:
        out = _least_upper_bound(frozenset(keys))
        if out == "int":
            out = "int32"
        elif out == "float":
            out = floatx
        elif out == "complex":
            out = "complex64"
    return out if x64 else _DEMOTE.get(out, out)


_WEAK_OF = {bool: "bool", int: "int", float: "float", complex: "complex"}


def dtype_key(x):
    """Promotion key of one operand: canonical dtype, or a weak name for Python scalars."""
    weak = _WEAK_OF.get(type(x))
    if weak is not None:
        return weak
    if x is int or x is float or x is complex:
        return _WEAK_OF[x]
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return standardize_dtype(x)
    return standardize_dtype(dtype)


def result_type(*args) -> str:
    """The dtype of combining ``args`` under the promotion lattice.

    Each argument is a dtype (any form `standardize_dtype` accepts), a tensor, or
    a Python scalar; Python ``int``/``float`` values and the types ``int`` and
    ``float`` themselves are weak.  64-bit results demote to 32-bit, unless 64-bit mode
    is on (`polyops.config.enable_x64`).

    Example:
        >>> result_type("int8", 2.0), result_type("bfloat16", "float16")
        ('float32', 'float32')
    """
    if not args:
        return config.floatx()
    return _result_type(tuple(dtype_key(a) for a in args), config._FLOATX, config._x64())


def result_type_of_keys(keys: tuple) -> str:
    """`result_type` on already-computed keys (the eager path's cached form)."""
    return _result_type(keys, config._FLOATX, config._x64())


def canonical(dtype: str) -> str:
    """Apply the default 64-to-32-bit demotion to a canonical dtype (none in 64-bit mode)."""
    return dtype if config._X64 else _DEMOTE.get(dtype, dtype)
