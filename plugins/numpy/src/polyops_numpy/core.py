"""NumPy runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from polyops.plugin import Runtime

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
NP_DTYPES = {name: np.dtype(name) for name in _NAMES}
NP_DTYPES["bfloat16"] = np.dtype(ml_dtypes.bfloat16)


def convert_to_tensor(x, dtype):
    nd = NP_DTYPES[dtype]
    if isinstance(x, np.ndarray):
        return x if x.dtype == nd else x.astype(nd)
    return np.asarray(x, dtype=nd)


def convert_to_numpy(x):
    return np.asarray(x)


RUNTIME = Runtime(
    name="numpy",
    version=np.__version__,
    tensor_types=(np.ndarray, np.generic),
    dtypes={nd: name for name, nd in NP_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
)


def cast(x, dtype):
    return np.asarray(x).astype(NP_DTYPES[dtype])
