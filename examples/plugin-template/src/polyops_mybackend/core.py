"""The Runtime (tensor types, dtypes, conversions) and the ``core`` family kernels.

This template stores tensors as numpy arrays so that it loads; replace them
with your framework's.
"""

from __future__ import annotations

import numpy as np

from polyops.plugin import Runtime

DTYPES = {name: np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "uint8", "float16", "float32")}


def convert_to_tensor(x, dtype):
    return np.asarray(x, dtype=DTYPES[dtype])


def convert_to_numpy(x):
    return np.asarray(x)


RUNTIME = Runtime(
    name="mybackend",
    version="0.1.0",
    tensor_types=(np.ndarray,),
    dtypes={d: name for name, d in DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
)

# Kernels of the core family, named after the ops, e.g.:
# def cast(x, dtype): ...
