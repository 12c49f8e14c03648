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
_WIDE_IN = frozenset({T.i32, T.u32, T.i64, T.u64})
_F32, _I32 = T.f32, T.i32
_INT_MIN = -(2**31)


def _f(v):
    return const(v, _F32)


def _trunc(x):
    return ops.select(ops.less(x, _f(0)), ops.ceiling(x), ops.floor(x))


def _float_to_i32_bits(x, unsigned):
    """float -> 32-bit pattern (i32), as x86 NumPy casts: out of range / NaN -> INT_MIN
    (signed), or the low 32 bits of the int64 conversion (unsigned)."""
    x = to(x, _F32)
    bad = ops.logical_or(ops.is_nan(x), ops.is_inf(x))
    if not unsigned:
        out = ops.logical_or(ops.greater_equal(x, _f(2.0**31)), ops.less(x, _f(-(2.0**31))))
        return ops.select(ops.logical_or(bad, out), const(_INT_MIN, _I32), ops.convert(x, _I32))
    t = _trunc(x)
    big = ops.greater_equal(ops.abs(t), _f(2.0**32))
    m = ops.subtract(t, ops.multiply(ops.floor(ops.multiply(t, _f(2.0**-32))), _f(2.0**32)))
    y = ops.select(big, m, t)
    y = ops.select(ops.greater_equal(y, _f(2.0**31)), ops.subtract(y, _f(2.0**32)),
                   ops.select(ops.less(y, _f(-(2.0**31))), ops.add(y, _f(2.0**32)), y))
    bad = ops.logical_or(bad, ops.greater_equal(ops.abs(t), _f(2.0**63)))
    return ops.select(bad, const(0, _I32), ops.convert(y, _I32))


def _int64_pair(x):
    """The int64 value of ``x`` as [low, high] i32 words on a new last axis."""
    src = x.get_output_element_type(0)
    if src in _FLOAT_IN:
        xf = to(x, _F32)
        t = _trunc(xf)
        small = ops.less(ops.abs(t), _f(2.0**31))
        lo_s = ops.convert(ops.select(small, t, _f(0)), _I32)
        hi_f = ops.floor(ops.multiply(t, _f(2.0**-32)))
        lo_f = ops.subtract(t, ops.multiply(hi_f, _f(2.0**32)))
        lo_b = ops.convert(ops.select(ops.greater_equal(lo_f, _f(2.0**31)),
                                      ops.subtract(lo_f, _f(2.0**32)), lo_f), _I32)
        hi_b = ops.convert(ops.minimum(ops.maximum(hi_f, _f(-(2.0**31))), _f(2.0**31 - 256)), _I32)
        lo = ops.select(small, lo_s, lo_b)
        hi = ops.select(small, ops.bitwise_right_shift(lo_s, const(31, _I32)), hi_b)
        bad = ops.logical_or(ops.is_nan(xf), ops.greater_equal(ops.abs(t), _f(2.0**63)))
        lo = ops.select(bad, const(0, _I32), lo)
        hi = ops.select(bad, const(_INT_MIN, _I32), hi)
    else:
        lo = ops.convert(x, _I32)
        if src == T.u32:
            hi = ops.multiply(lo, const(0, _I32))
        else:
            hi = ops.bitwise_right_shift(lo, const(31, _I32))
    axis = const(-1, T.i64)
    return ops.concat([ops.unsqueeze(lo, axis), ops.unsqueeze(hi, axis)], -1)


def _cast_graph(target):
    def build(x):
        src = x.get_output_element_type(0)
        if target == T.boolean:
            if src in _WIDE_IN:  # Convert to boolean mishandles some wide ints
                d = ops.convert(ops.convert(x, _I32), _F32)
                return ops.not_equal(d, _f(0))
            return ops.not_equal(x, const(0, src))  # NaN is truthy, as in numpy
        if target in (T.i64, T.u64):
            return _int64_pair(x)
        if target == T.f64:
            # the CPU plugin computes f64 in f32 and clamps inf on f64 outputs:
            # return f32, widened (exactly) by the kernel
            return ops.convert(x, _F32)
        if src in _FLOAT_IN and target not in _FLOAT_IN:
            bits = _float_to_i32_bits(x, target == T.u32)
            return ops.convert(bits, target)
        if src == T.f64:
            # f64 inputs reach the CPU plugin clamped to the f32 range: an f64 value
            # that lands on +-FLT_MAX overflowed (numpy: +-inf)
            x = ops.convert(x, _F32)
            fmax = float(np.finfo(np.float32).max)
            x = ops.select(ops.equal(ops.abs(x), _f(fmax)), ops.multiply(x, _f(2)), x)
        return ops.convert(x, target)

    return build


def cast(x, dtype):
    nd = _np_dtype(dtype)
    x = np.asarray(x)
    if x.dtype == nd:
        return x.copy()
    if x.size == 0:
        return np.empty(x.shape, nd)
    if nd.kind in "iu" and nd.itemsize == 8 and x.dtype.kind in "iu" and x.dtype.itemsize == 8:
        return np.ascontiguousarray(x).view(nd).copy()  # same bits: a reinterpretation
    from ._graph import OV_TYPES

    out = run1(("cast", dtype), _cast_graph(OV_TYPES[nd]), x)
    if nd.itemsize == 8 and nd.kind in "iu":
        return out.view(nd).reshape(x.shape)
    if nd == np.float64:
        return out.astype(np.float64)  # exact widening of the f32 result
    return out
