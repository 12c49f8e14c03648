"""OpenVINO runtime (tensor types, dtypes, conversion) and core-family kernels.

OpenVINO is inference-only: the backend's tensors are numpy arrays, and every
kernel runs a small compiled OpenVINO model on them (see ``_graph``).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino

from polyops.plugin import Runtime

from ._graph import T, const, ops, run1, to

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
)
NP_DTYPES = {name: np.dtype(name) for name in _NAMES}
NP_DTYPES["bfloat16"] = np.dtype(ml_dtypes.bfloat16)
# OpenVINO has no complex element types.


def _np_dtype(dtype):
    try:
        return NP_DTYPES[dtype]
    except KeyError:
        raise TypeError(f"openvino backend: unsupported dtype {dtype!r}") from None


def convert_to_tensor(x, dtype):
    nd = _np_dtype(dtype)
    if isinstance(x, np.ndarray):
        return x if x.dtype == nd else x.astype(nd)
    return np.asarray(x, dtype=nd)


def convert_to_numpy(x):
    return np.asarray(x)


def _version():
    v = getattr(openvino, "__version__", None)
    return v if v else openvino.get_version()


RUNTIME = Runtime(
    name="openvino",
    version=_version(),
    tensor_types=(np.ndarray, np.generic),
    dtypes={nd: name for name, nd in NP_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
)

_FLOAT_IN = frozenset({T.f16, T.bf16, T.f32, T.f64})


def _cast_graph(target):
    def build(x):
        src = x.get_output_element_type(0)
        if src in _FLOAT_IN:
            if target == T.boolean:  # NaN is truthy, as in numpy
                return ops.not_equal(x, const(0, src))
            if target == T.u32:
                # the CPU plugin saturates f32 -> u32 at 2**31: go through i32 bits
                xf = to(x, T.f32)
                hi = ops.greater_equal(xf, const(2.0**31, T.f32))
                xf = ops.select(hi, ops.subtract(xf, const(2.0**32, T.f32)), xf)
                return ops.convert(ops.convert(xf, T.i32), T.u32)
        return ops.convert(x, target)

    return build


def cast(x, dtype):
    nd = _np_dtype(dtype)
    x = np.asarray(x)
    if x.dtype == nd:
        return x.copy()
    if x.size == 0:
        return np.empty(x.shape, nd)
    from ._graph import OV_TYPES

    return run1(("cast", dtype), _cast_graph(OV_TYPES[nd]), x)
