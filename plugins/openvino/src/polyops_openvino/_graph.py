"""Build, compile, cache and run small OpenVINO models on numpy arrays.

A kernel calls ``run(key, build, *arrays)``: ``build(*parameters)`` returns the
output node(s) of a model whose Parameters have the arrays' exact static shapes
and element types.  The compiled model is cached under ``(key, shapes, dtypes)``
with one reusable infer request, so a repeated call only binds the inputs and
infers.  Results come back as fresh numpy arrays (bfloat16 as ml_dtypes).
"""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset16 as ops

__all__ = ["ops", "run", "run1", "const", "to", "etype", "axes_const", "BF16", "OV_TYPES", "NP_TYPES", "T"]

T = ov.Type
BF16 = np.dtype(ml_dtypes.bfloat16)
_U16 = np.dtype(np.uint16)

OV_TYPES = {
    np.dtype(np.bool_): T.boolean,
    np.dtype(np.int8): T.i8,
    np.dtype(np.int16): T.i16,
    np.dtype(np.int32): T.i32,
    np.dtype(np.int64): T.i64,
    np.dtype(np.uint8): T.u8,
    np.dtype(np.uint16): T.u16,
    np.dtype(np.uint32): T.u32,
    np.dtype(np.uint64): T.u64,
    np.dtype(np.float16): T.f16,
    np.dtype(np.float32): T.f32,
    np.dtype(np.float64): T.f64,
    BF16: T.bf16,
}
NP_TYPES = {ot.get_type_name(): nd for nd, ot in OV_TYPES.items()}
FLOATS = frozenset({T.f16, T.bf16, T.f32, T.f64})

# f32 inference precision: the CPU plugin's default on bf16-capable hosts is bf16.
_CONFIG = {
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
    "PERFORMANCE_HINT": "LATENCY",
    "NUM_STREAMS": "1",
}
_MAX_ENTRIES = 4096

_core = None
_cache: dict = {}
compiles = 0  # models compiled so far in this process (the cache may also evict)
_compile_lock = threading.Lock()


class _Entry:
    __slots__ = ("compiled", "request", "lock", "in_types", "out_dtypes")

    def __init__(self, compiled, in_types):
        self.compiled = compiled
        self.request = compiled.create_infer_request()
        self.lock = threading.Lock()
        self.in_types = in_types
        self.out_dtypes = [NP_TYPES[o.get_element_type().get_type_name()] for o in compiled.outputs]


def _get_core():
    global _core
    if _core is None:
        _core = ov.Core()
    return _core


def _outputs(out):
    outs = out if isinstance(out, (list, tuple)) else (out,)
    return [o.output(0) if isinstance(o, ov.Node) else o for o in outs]


def _compile(k, build, arrays):
    with _compile_lock:
        entry = _cache.get(k)
        if entry is not None:
            return entry
        in_types = [OV_TYPES[a.dtype] for a in arrays]
        params = [ops.parameter(list(a.shape), t) for a, t in zip(arrays, in_types)]
        model = ov.Model(_outputs(build(*params)), params, "polyops")
        entry = _Entry(_get_core().compile_model(model, "CPU", _CONFIG), in_types)
        global compiles
        compiles += 1
        if len(_cache) >= _MAX_ENTRIES:
            del _cache[next(iter(_cache))]
        _cache[k] = entry
        return entry


def _infer(request, entry, arrays):
    for i, (a, t) in enumerate(zip(arrays, entry.in_types)):
        request.set_input_tensor(i, ov.Tensor(a.view(_U16) if t == T.bf16 else a, a.shape, t))
    request.infer()
    results = []
    for i, dt in enumerate(entry.out_dtypes):
        data = request.get_output_tensor(i).data
        out = np.array(data, copy=True)
        if out.dtype != dt:
            out = out.view(dt)
        results.append(out)
    return results


def run(key, build, *inputs):
    """Run the model ``build`` makes for ``inputs``; returns a list of numpy arrays.

    ``key`` names the op and its static arguments: everything ``build`` depends
    on apart from the inputs' shapes and dtypes, which are added here.
    """
    arrays = []
    for x in inputs:
        if type(x) is not np.ndarray or not x.flags.c_contiguous:
            x = np.asarray(x)
            if not x.flags.c_contiguous:
                x = x.copy(order="C")
        arrays.append(x)
    k = (key, tuple((a.shape, a.dtype) for a in arrays))
    entry = _cache.get(k)
    if entry is None:
        entry = _compile(k, build, arrays)
    if entry.lock.acquire(blocking=False):
        try:
            return _infer(entry.request, entry, arrays)
        finally:
            entry.lock.release()
    # another thread is using the shared request: use a private one
    return _infer(entry.compiled.create_infer_request(), entry, arrays)


def run1(key, build, *inputs):
    """`run` for a model with one output: returns that array."""
    return run(key, build, *inputs)[0]


# -- graph-building helpers ------------------------------------------------------


def etype(node):
    """The element type of a node's (first) output."""
    return node.get_output_element_type(0) if isinstance(node, ov.Node) else node.get_element_type()


def to(node, t):
    """``node`` converted to element type ``t`` (no node when it already is)."""
    return node if etype(node) == t else ops.convert(node, t)


def const(value, t):
    """A constant of element type ``t`` (any shape ``value`` has)."""
    if t == T.bf16:
        return ops.convert(ops.constant(np.asarray(value, np.float32)), T.bf16)
    if t == T.boolean:
        return ops.constant(np.asarray(value, np.bool_))
    return ops.constant(np.asarray(value, NP_TYPES[t.get_type_name()]))


def axes_const(axes):
    return ops.constant(np.asarray(axes, dtype=np.int64).reshape(-1))
