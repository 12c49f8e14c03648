"""Array API runtime (tensor types, dtypes, conversion) and core-family kernels (``cast``).

Everything is built from a namespace ``xp``: `make_runtime(name, xp)` for the
`polyops.plugin.Runtime`, `make_kernels(xp)` for the kernels.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np

from polyops.plugin import Runtime

CANONICAL = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)


@functools.cache
def namespace_dtypes(xp) -> dict:
    """``{canonical name: the namespace's dtype object}`` for the dtypes ``xp`` has.

    The standard defines no float16 or bfloat16; a namespace that has them anyway
    (as an extension) gets them listed too.
    """
    found = {}
    for name in CANONICAL:
        dtype = getattr(xp, name, None)
        if dtype is None:
            continue
        try:
            xp.empty((0,), dtype=dtype)
        except Exception:  # an attribute of that name that is not a dtype
            continue
        found[name] = dtype
    return found


@functools.cache
def array_dtypes(xp) -> dict:
    """``{dtype object as arrays report it: canonical name}``.

    What ``x.dtype`` returns can differ from the namespace's attribute
    (``array_api_compat.dask.array.float32`` is ``numpy.float32``, dask arrays
    report ``numpy.dtype('float32')``), so the keys come from real arrays.
    """
    return {xp.empty((0,), dtype=d).dtype: name for name, d in namespace_dtypes(xp).items()}


def dtype_of(xp, name: str):
    """The namespace's dtype for canonical ``name``; TypeError when it has none."""
    try:
        return namespace_dtypes(xp)[name]
    except KeyError:
        raise TypeError(
            f"the Array API namespace {xp.__name__} has no {name} dtype "
            f"(it has {', '.join(namespace_dtypes(xp))})"
        ) from None


def to_numpy(x) -> np.ndarray:
    """Any array-like (this or another framework's tensor, a list, a scalar) as numpy."""
    if isinstance(x, np.ndarray):
        return x
    compute = getattr(x, "compute", None)  # dask: run the graph
    if callable(compute) and hasattr(x, "dask"):
        return np.asarray(compute())
    if hasattr(x, "__dlpack__") and not isinstance(x, np.generic):
        try:
            return np.from_dlpack(x)
        except Exception:  # e.g. a tensor that requires grad, or on another device
            pass
    return np.asarray(x)


def _framework_version(xp) -> str:
    version = getattr(xp, "__version__", None)
    if version is None:  # array_api_compat.<lib>: report <lib>'s version
        top = xp.__name__.removeprefix("array_api_compat.").split(".")[0]
        version = getattr(importlib.import_module(top), "__version__", "unknown")
    return str(version)


def _devices(xp):
    def devices():
        try:
            return [str(d) for d in xp.__array_namespace_info__().devices()]
        except Exception:
            return ["cpu"]

    return devices


def make_runtime(name: str, xp) -> Runtime:
    """The Runtime of backend ``name`` on namespace ``xp``."""
    array_type = type(xp.asarray(0))

    def convert_to_tensor(x, dtype):
        target = dtype_of(xp, dtype)
        if isinstance(x, array_type):
            return x if x.dtype == target else xp.astype(x, target)
        # numpy arrays, scalars, nested lists, other frameworks' tensors: through numpy
        if isinstance(x, (bool, int, float, complex, list, tuple)):
            a = np.asarray(x, dtype=np.dtype(dtype))
        else:
            a = to_numpy(x)
            if a.dtype != np.dtype(dtype):
                a = a.astype(np.dtype(dtype))
        return xp.asarray(a)

    return Runtime(
        name=name,
        version=_framework_version(xp),
        tensor_types=(array_type,),
        dtypes=array_dtypes(xp),
        convert_to_tensor=convert_to_tensor,
        convert_to_numpy=to_numpy,
        devices=_devices(xp),
    )


def make_kernels(xp) -> dict:
    """The ``core`` family kernels over ``xp``."""

    def cast(x, dtype):
        return xp.astype(x, dtype_of(xp, dtype))

    return {"cast": cast}
