"""Build, compile, cache and run small OpenVINO models on numpy arrays.

A kernel calls ``run_dyn(key, build, *arrays)`` or ``run(key, build, *arrays)``:
``build(*parameters)`` returns the output node(s) of a model on Parameters of the
arrays' element types.  The compiled model is cached with one reusable infer request,
so a repeated call only binds the inputs and infers.  Results come back as fresh numpy
arrays (bfloat16 as ml_dtypes).

- ``run_dyn``: ``build`` reads nothing of the inputs' shapes but their rank and which
  dims are 1 (from its Parameters, or by closure).  Its Parameters have dynamic dims
  except those equal to 1 (broadcasting depends on them), so one model, cached under
  ``(key, dtypes, pattern of 1s)``, serves every shape of that pattern: a loop over
  new shapes compiles nothing.  With ``HOT_CALLS`` set (default None: off), an exact
  signature called that often gets a static model of its own.
  Static models instead (one per shape), decided once per pattern key: a ``build`` that
  fails on dynamic dims (reads ``get_shape()``, or the CPU plugin rejects them:
  convolution weights), integer and bfloat16 inputs and the ops of ``STATIC_OPS``
  (where the CPU plugin's dynamic model computes differently, see ``DYNAMIC``), and a
  model that writes into earlier inputs (``_writes_old_inputs``).
  ``POLYOPS_OPENVINO_DYNAMIC=0`` turns dynamic models off.
- ``run``: ``build`` may depend on the exact shapes (closures of ``x.shape``, a static
  shape plan): one static model per ``(key, shapes, dtypes)``.

The cache holds at most ``POLYOPS_OPENVINO_CACHE_SIZE`` compiled models (default 1024,
~0.4 MiB each; ``set_cache_size``), evicting the least recently used; each model keeps
what the CPU plugin prepares for at most ``POLYOPS_OPENVINO_SHAPE_CACHE`` input shapes
(default 64).

Under ``polyops.jit`` (see ``_jit``) the inputs may be `Lazy` tensors: nodes of the
model being recorded.  ``run`` then compiles nothing: it calls ``build`` on the
inputs' nodes (numpy inputs become Constants) and returns the outputs as `Lazy`.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

import polyops
import numpy as np
import openvino as ov
import openvino.opset16 as ops
from polyops._dtypes import HALF_FLOATS
from polyops.plugin import LateBfloat16

from ._compat import request_infer as _request_infer

__all__ = ["ops", "run", "run1", "run_dyn", "run1_dyn", "set_cache_size", "const", "to", "padded",
           "etype", "axes_const", "BF16", "OV_TYPES", "NP_TYPES", "HALF_TYPES", "T", "Lazy",
           "TracedValueError", "is_lazy", "copy", "constant", "narrow_dtype"]

T = ov.Type
_U16 = np.dtype(np.uint16)


def _learn(bf16):
    OV_TYPES[bf16] = T.bf16
    dict.__setitem__(NP_TYPES, "bf16", bf16)


# ml_dtypes (half a second to import) only when bfloat16 is first asked for or met: until
# then BF16 is a placeholder dtype that no array has (polyops.plugin.LateBfloat16)
LATE = LateBfloat16(__package__, _learn)
BF16 = LATE.placeholder

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
class _NpTypes(dict):
    """OpenVINO type name -> numpy dtype; "bf16" imports ml_dtypes on first lookup."""

    def __missing__(self, name):
        if name != "bf16" or LATE.learned:
            raise KeyError(name)
        LATE.learn()
        return self[name]


NP_TYPES = _NpTypes((ot.get_type_name(), nd) for nd, ot in OV_TYPES.items() if nd is not BF16)
HALF_TYPES = frozenset({"float16": T.f16, "bfloat16": T.bf16}[name] for name in HALF_FLOATS)
FLOATS = frozenset({T.f16, T.bf16, T.f32, T.f64})

# f32 inference precision: the CPU plugin's default on bf16-capable hosts is bf16.
# NUM_STREAMS 0: a model infers on the calling thread.  With one stream each compiled
# model kept its own executor threads (2 on this machine), so a cache of a few thousand
# models held thousands of threads, and destroying them took minutes.  It also halves a
# small model's latency (35 us against 61 us for a 256-element add+sin).
# CPU_RUNTIME_CACHE_CAPACITY: the shapes a model keeps the CPU plugin's prepared primitives
# for (its default, 5000, let a dynamic matmul of 1 MiB inputs with weights as an input grow
# the process by ~1 MiB a new shape: 420 MiB over 1,000 shapes); a shape evicted from it is
# prepared again, as a new one (POLYOPS_OPENVINO_SHAPE_CACHE, default 64 a model).
_CONFIG = {
    "INFERENCE_PRECISION_HINT": "f32",
    "EXECUTION_MODE_HINT": "ACCURACY",
    "PERFORMANCE_HINT": "LATENCY",
    "NUM_STREAMS": "0",
    "CPU_RUNTIME_CACHE_CAPACITY": str(int(os.environ.get("POLYOPS_OPENVINO_SHAPE_CACHE", "")
                                          or 64)),
}
# Large calls (inputs of _THREADED_MIN bytes or more: a 256x256 float32 matmul) run a model
# compiled with one stream, whose executor threads share the work (matmul 256x256: 180 us
# against 268 us on the calling thread alone, on 2 cores).  A static model is that for
# its one shape; run_dyn's pattern keeps a second, threaded model for its large calls.  At
# most _THREADED_MAX such models are kept (their threads are the reason for NUM_STREAMS 0
# above); a further one evicts the least recently compiled.
_THREADED_MIN = 1 << 19
_THREADED_MAX = 16
_THREADED_CONFIG = {**_CONFIG, "NUM_STREAMS": "1"}
_threaded: OrderedDict = OrderedDict()  # keys of the cached threaded models, oldest first
_MAX_ENTRIES = int(os.environ.get("POLYOPS_OPENVINO_CACHE_SIZE", "") or 1024)
# Calls of one exact signature after which run_dyn compiles it a static model (a dynamic
# model's call costs ~1-3 us more on small inputs).  None (the default): never, since a
# compile in the middle of a steady loop breaks the promise that later calls of a
# signature compile nothing (tests/test_repeated_calls.py); set an int to trade that.
HOT_CALLS = None

_core = None
# compiled models: exact signature (static) or pattern key (dynamic) -> _Entry
_cache: OrderedDict = OrderedDict()  # least recently used first: a full cache evicts that
_cache_touch = _cache.move_to_end  # (evicting the oldest insertion instead recompiled models
# in use: a later call of the same signature compiled again, tests/test_repeated_calls.py)
# exact signatures run_dyn serves with a dynamic model -> _Warm (plain insertion order:
# a full index forgets its oldest signature, which only restarts that one's count)
_warm: dict = {}
_static_only: set = set()  # pattern keys whose build cannot take dynamic dims
compiles = 0  # models compiled so far in this process (the cache may also evict)
_compile_lock = threading.Lock()


def set_cache_size(models: int) -> None:
    """Keep at most ``models`` compiled models (least recently used evicted first); also
    set by the environment variable ``POLYOPS_OPENVINO_CACHE_SIZE`` (default 1024)."""
    global _MAX_ENTRIES
    if int(models) < 1:
        raise ValueError(f"set_cache_size: expected a positive number of models, got {models}")
    with _compile_lock:
        _MAX_ENTRIES = int(models)
        while len(_cache) > _MAX_ENTRIES:
            _cache.popitem(last=False)


class _Warm:
    """An exact signature served by a dynamic model: its pattern key and its calls."""

    __slots__ = ("pkey", "calls")

    def __init__(self, pkey):
        self.pkey = pkey
        self.calls = 1


class _Entry:
    __slots__ = ("compiled", "request", "lock", "in_types", "bf16_in", "out_views", "narrow",
                 "widen", "own", "own_views", "own_shapes", "bound")

    def __init__(self, compiled, in_types, narrow=None, widen=None):
        self.compiled = compiled
        self.request = compiled.create_infer_request()
        self.lock = threading.Lock()
        self.in_types = in_types
        self.narrow = narrow  # per input: the 32-bit dtype a 64-bit array travels as (or None)
        self.widen = widen  # per output: the 64-bit dtype it is widened to on the host (or None)
        # bfloat16 travels as its uint16 bit pattern (numpy has no bf16 buffer format)
        self.bf16_in = tuple(t == T.bf16 for t in in_types)
        outs = [NP_TYPES[o.get_element_type().get_type_name()] for o in compiled.outputs]
        self.out_views = tuple(BF16 if d == BF16 else None for d in outs)
        # the shared request's inputs of up to _COPY_MAX bytes are copied into tensors of
        # its own (see _infer_shared); per input: that tensor (None: none yet), its buffer
        # as numpy, the shape of the last call, and whether our tensor is the one bound
        n = len(in_types)
        self.own = [None] * n
        self.own_views = [None] * n
        self.own_shapes = [None] * n
        self.bound = [False] * n


def _get_core():
    global _core
    if _core is None:
        _core = ov.Core()
    return _core


def _outputs(out):
    outs = out if isinstance(out, (list, tuple)) else (out,)
    return [o.output(0) if isinstance(o, ov.Node) else o for o in outs]


def _large(arrays) -> bool:
    return sum(a.nbytes for a in arrays) >= _THREADED_MIN


def _compile(k, build, arrays, shapes=None, threaded=None):
    """The cached model ``k``, compiled on Parameters of ``shapes`` (default: the arrays');
    ``threaded`` (default: whether the arrays are large) with executor threads."""
    with _compile_lock:
        entry = _cache.get(k)
        if entry is not None:
            return entry
        dynamic = shapes is not None
        if not dynamic:
            shapes = [list(a.shape) for a in arrays]
        model, in_types, narrow, widen = _model(build, arrays, shapes)
        if dynamic and any(o.get_element_type() == T.bf16 for n in model.get_ordered_ops()
                           for o in n.outputs()):
            raise _NotDynamic(k)  # (bfloat16 anywhere, a cast's result too: see DYNAMIC)
        if threaded is None:
            threaded = _large(arrays)
        config = _THREADED_CONFIG if threaded else _CONFIG
        entry = _Entry(_get_core().compile_model(model, "CPU", config), in_types, narrow, widen)
        global compiles
        compiles += 1
        if dynamic and _writes_old_inputs(entry, arrays):
            raise _NotDynamic(k)
        while len(_cache) >= _MAX_ENTRIES:
            old, _ = _cache.popitem(last=False)
            _threaded.pop(old, None)
        if threaded:
            while len(_threaded) >= _THREADED_MAX:
                _cache.pop(_threaded.popitem(last=False)[0], None)
            _threaded[k] = None
        _cache[k] = entry
        return entry


class _NotDynamic(Exception):
    """A dynamic model that would not compute as the static one: bfloat16 in its graph
    (see DYNAMIC), or writing into an earlier call's input buffers (see below)."""


def _writes_old_inputs(entry, arrays):
    """Whether the compiled dynamic model writes into the input buffers of an earlier call.

    The CPU plugin runs some dynamic graphs in place: where an output is its input
    converted to the same element type (a cast to float64 of float32, whose f64 the plugin
    narrows back), the node keeps the memory of the input bound on the previous call and
    copies the next call's input into it, over the caller's array (or freed memory).
    Static models never did.  Three calls on fresh arrays of distinct values tell."""
    calls = []
    for v in (1, 2, 3):
        bufs = []
        for a, t in zip(arrays, entry.in_types):
            nd = np.dtype(np.uint16) if t == T.bf16 else NP_TYPES[t.get_type_name()]
            bufs.append(np.full(a.shape, v % 2 if nd == np.bool_ else v, nd))
        calls.append(bufs)
    kept = [[b.copy() for b in bufs] for bufs in calls]
    request = entry.compiled.create_infer_request()
    for bufs in calls:
        _request_infer(request, {i: _Tensor(b, b.shape, t) for i, (b, t)
                                 in enumerate(zip(bufs, entry.in_types))}, False, False)
    return any(not np.array_equal(b, c) for bufs, keep in zip(calls, kept)
               for b, c in zip(bufs, keep))


# 64-bit inputs.  The CPU plugin has no 64-bit arithmetic: it narrows f64 Parameters,
# Constants and results to f32 by saturating conversions (+-inf and 1e300 become
# +-3.4e38) and i64/u64 ones to 32 bits by wrapping.  So a model never holds a 64-bit
# Parameter: a 64-bit array is narrowed on the host (NumPy's conversion, where inf stays
# inf and overflow gives inf; ints saturate, which keeps their order and sign: an int64
# min/max identity stays the smallest/largest value), the model is the one ``build`` makes for the 32-bit dtype
# (the kernels' float32/int32 graphs, constants included), and each result is widened
# on the host to the element type ``build`` gives it on 64-bit Parameters (read from a
# second, never compiled, build; where that build fails, as the f32-only float helpers
# do, a result of an input's narrowed type widens back to that input's type).  Float64
# is computed as float32 and int64 as int32 (docs/numerics.md, "64-bit mode"), with
# 64-bit dtypes.
_NARROW = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
           np.dtype(np.uint64): np.dtype(np.uint32)}
_WIDE_TYPES = {T.f64: T.f32, T.i64: T.i32, T.u64: T.u32}


def _model(build, arrays, shapes):
    """``build``'s model for the arrays: (model, Parameter types, narrow, widen), the last
    two None unless an array is 64-bit (see _NARROW)."""
    types = [OV_TYPES[a.dtype] for a in arrays]
    narrow = tuple(_NARROW.get(a.dtype) for a in arrays)
    if all(n is None for n in narrow):
        params = [ops.parameter(s, t) for s, t in zip(shapes, types)]
        return ov.Model(_outputs(build(*params)), params, "polyops"), types, None, None
    ntypes = [t if n is None else OV_TYPES[n] for t, n in zip(types, narrow)]
    params = [ops.parameter(s, t) for s, t in zip(shapes, ntypes)]
    outs, wide = _narrow_outputs(build, shapes, types, params)
    widen = tuple(None if w == o.get_element_type() else NP_TYPES[w.get_type_name()]
                  for o, w in zip(outs, wide))
    return ov.Model(outs, params, "polyops"), ntypes, narrow, widen


def _narrow_outputs(build, shapes, types, nodes):
    """``build``'s outputs on ``nodes``, the 32-bit stand-ins of inputs of element
    ``types``, none left 64-bit; and the element type each has on the 64-bit inputs."""
    try:
        wide = [o.get_element_type() for o in _outputs(
            build(*[ops.parameter(s, t) for s, t in zip(shapes, types)]))]
    except Exception:  # noqa: BLE001  (a graph of f32 constants on f64 nodes...)
        wide = None
    back = {_WIDE_TYPES[t]: t for t in types if t in _WIDE_TYPES}
    outs = _outputs(build(*nodes))
    if wide is not None and len(wide) != len(outs):
        wide = None
    types_out = []
    for i, o in enumerate(outs):
        t = t0 = o.get_element_type()
        if t0 in _WIDE_TYPES:  # (an explicit 64-bit node: its result would be narrowed)
            t = _WIDE_TYPES[t0]
            outs[i] = ops.convert(o, t).output(0)
        types_out.append(wide[i] if wide is not None else t0 if t0 in _WIDE_TYPES
                         else back.get(t, t))
    return outs, types_out


def _narrowed(arrays, narrow):
    out = list(arrays)
    with np.errstate(over="ignore", invalid="ignore"):  # (float64 overflow: inf, as f32)
        for i, n in enumerate(narrow):
            if n is None:
                continue
            a = arrays[i]
            if n.kind != "f":
                info = _INFO[n]
                a = np.clip(a, info.min, info.max)
            out[i] = np.asarray(a.astype(n))  # (np.clip of a 0-d array gives a scalar)
    return out


_INFO = {n: np.iinfo(n) for n in (np.dtype(np.int32), np.dtype(np.uint32))}


# Dynamic-shape models are the default; POLYOPS_OPENVINO_DYNAMIC=0 (or DYNAMIC = False)
# gives every shape its own static model.  They are used only where they compute what the
# static model of the same graph computes, bit for bit (tests/test_openvino_shapes.py
# compares the two on special values).  The CPU plugin's dynamic models differ in:
# - integers: some int32 graphs computed in f32 (left_shift's clamp and select lost the
#   low bits of int32 values its static model kept exact): integer inputs stay static;
# - bfloat16: results are converted from f32 by truncation, not rounding (exp(2.5) gave
#   12.125, not 12.1875; 1 / 2.5 gave 0.3984, not 0.4004): graphs with a bfloat16 input,
#   node or result (a cast to bfloat16: logspace, geomspace) stay static;
# - the sign of a zero result (a scale-shift node's "+ 0"): the graphs of STATIC_OPS.
DYNAMIC = os.environ.get("POLYOPS_OPENVINO_DYNAMIC", "") != "0"
_DYN_DTYPES = frozenset(np.dtype(d) for d in ("float16", "float32", "float64", "bool"))
_ZERO_SIGN = ("the dynamic model gives +0.0 where the static model (and NumPy) give -0.0: "
              "the CPU plugin turns a subtraction or a product with a constant into a "
              "scale-shift node that adds +0.0")
# (op, input dtype) -> why its dynamic model differs: static models, one per shape (the
# first element of a kernel's key names its op; float64 computes in float32: the same graph)
_FLOATS = tuple(np.dtype(d) for d in ("float16", "float32", "float64"))
STATIC_OPS = {
    **{(op, dt): f"{op}: {_ZERO_SIGN} ({example})"
       for op, example in (("negative", "negative(0.0)"), ("subtract", "-0.0 - 0.0"),
                           ("deg2rad", "deg2rad(-0.0)"), ("rad2deg", "rad2deg(-0.0)"),
                           ("fmod", "fmod(-0.0, 1.0)"), ("floor_divide", "0.0 // -1.0"))
       for dt in _FLOATS},
    **{("logaddexp2", dt): "logaddexp2: the dynamic model divides by log(2) as a product "
       "with its reciprocal, one ulp off (logaddexp2(1, -1) gave 1.321928, not 1.3219281)"
       for dt in _FLOATS},
}


def _pattern(shape):
    """A Parameter shape for any shape like ``shape``: dims of 1 static, the others dynamic
    (zero-size inputs never reach kernels: the runtime has empty_tensors=False)."""
    return ov.PartialShape([1 if d == 1 else -1 for d in shape])


def _dynamic(k, key, build, arrays):
    """``run_dyn``'s first call of the exact signature ``k``: the dynamic model of its
    pattern (compiled if needed), or a static one when ``build`` cannot be dynamic."""
    large = _large(arrays)
    pkey = (key, "dyn", large, *[(tuple(d == 1 for d in a.shape), a.dtype) for a in arrays])
    if (DYNAMIC and pkey not in _static_only and all(a.dtype in _DYN_DTYPES for a in arrays)
            and not any((key[0], a.dtype) in STATIC_OPS for a in arrays)):
        entry = _cache.get(pkey)
        if entry is None:
            try:
                entry = _compile(pkey, build, arrays, [_pattern(a.shape) for a in arrays], large)
            except Exception:  # noqa: BLE001  (get_shape() on a dynamic dim, the CPU
                # plugin rejecting one, or _NotDynamic): static models for this pattern from
                # now on; a build that fails statically too raises from _compile below
                _static_only.add(pkey)
                if len(_static_only) > 4 * _MAX_ENTRIES:
                    _static_only.clear()
        if entry is not None:
            while len(_warm) >= 4 * _MAX_ENTRIES:
                del _warm[next(iter(_warm))]
            _warm[k] = _Warm(pkey)
            return entry
    return _compile(k, build, arrays)


# ``_request_infer`` is the compiled request's own infer (see ``_compat``: the public
# InferRequest.infer adds a data dispatcher and an OVDict around it).  Inputs are bound by
# index in the same call; outputs come back as fresh numpy arrays (share_outputs=False), in
# the model's output order.
_Tensor = ov.Tensor


def _infer(request, entry, arrays):
    if entry.narrow is not None:
        arrays = _narrowed(arrays, entry.narrow)
    tensors = {}
    for i, (a, t, bf16) in enumerate(zip(arrays, entry.in_types, entry.bf16_in)):
        tensors[i] = _Tensor(a.view(_U16) if bf16 else a, a.shape, t)
    outs = list(_request_infer(request, tensors, False, False).values())
    for i, view in enumerate(entry.out_views):
        if view is not None and outs[i].dtype != view:
            outs[i] = outs[i].view(view)
    if entry.widen is not None:
        outs = [o if w is None else o.astype(w) for o, w in zip(outs, entry.widen)]
    return outs


# Binding a new ov.Tensor costs ~3 us an input (making it, and the plugin taking in new
# memory): a small add of two inputs was 14.7 us bound, 7.2 us copied into tensors the
# request keeps.  So the shared request copies inputs of up to _COPY_MAX bytes into
# tensors of its own, made on the second call in a row of a shape (a sweep of new shapes
# binds each, which costs less than making a tensor), and binds larger ones in place (a
# copy there costs more than the binding).
_COPY_MAX = 1 << 14
_copyto = np.copyto


def _infer_shared(entry, arrays):
    """``_infer`` on the entry's shared request (its lock held), copying small inputs."""
    if entry.narrow is not None:
        arrays = _narrowed(arrays, entry.narrow)
    tensors = {}
    own, views, shapes, bound = entry.own, entry.own_views, entry.own_shapes, entry.bound
    for i, a in enumerate(arrays):
        if entry.bf16_in[i]:
            a = a.view(_U16)
        if a.nbytes > _COPY_MAX or shapes[i] != a.shape:  # (large, or a shape new here)
            tensors[i] = _Tensor(a, a.shape, entry.in_types[i])
            bound[i] = False
            if shapes[i] != a.shape:
                own[i], shapes[i] = None, a.shape
            continue
        if own[i] is None:  # (the shape's second call in a row: a tensor of ours for it)
            own[i] = t = _Tensor(entry.in_types[i], a.shape)
            views[i] = t.data.view(_U16) if entry.bf16_in[i] else t.data
        _copyto(views[i], a)
        if not bound[i]:
            tensors[i] = own[i]
    outs = list(_request_infer(entry.request, tensors, False, False).values())
    for i, t in tensors.items():  # (only once bound: a failed call binds them again)
        bound[i] = t is own[i]
    for i, view in enumerate(entry.out_views):
        if view is not None and outs[i].dtype != view:
            outs[i] = outs[i].view(view)
    if entry.widen is not None:
        outs = [o if w is None else o.astype(w) for o, w in zip(outs, entry.widen)]
    return outs


def _arrays(inputs):
    """The inputs as C-contiguous numpy arrays, or None when one is `Lazy` (recording)."""
    arrays = []
    for x in inputs:
        if type(x) is not np.ndarray or not x.flags.c_contiguous:
            if type(x) is Lazy:
                return None
            x = np.asarray(x)
            if not x.flags.c_contiguous:
                x = x.copy(order="C")
        arrays.append(x)
    return arrays


def _touch(k):
    try:
        _cache_touch(k)
    except KeyError:  # another thread evicted it meanwhile: this call still has it
        pass


def _run(entry, arrays):
    if entry.lock.acquire(blocking=False):
        try:
            return _infer_shared(entry, arrays)
        finally:
            entry.lock.release()
    # another thread is using the shared request: use a private one
    return _infer(entry.compiled.create_infer_request(), entry, arrays)


def run(key, build, *inputs):
    """Run the model ``build`` makes for ``inputs``; returns a list of numpy arrays.

    ``key`` names the op and its static arguments: everything ``build`` depends
    on apart from the inputs' shapes and dtypes, which are added here.
    """
    arrays = _arrays(inputs)
    if arrays is None:
        return _record(build, inputs)
    k = (key, *[(a.shape, a.dtype) for a in arrays])
    entry = _cache.get(k)
    if entry is None:
        entry = _compile(k, build, arrays)
    else:
        _touch(k)
    return _run(entry, arrays)


def run1(key, build, *inputs):
    """`run` for a model with one output: returns that array."""
    return run(key, build, *inputs)[0]


def run_dyn(key, build, *inputs):
    """`run` for a ``build`` that needs no dims of its inputs but which are 1: one model
    serves every shape of a rank (see the module); returns a list of numpy arrays."""
    arrays = _arrays(inputs)
    if arrays is None:
        return _record(build, inputs)
    k = (key, *[(a.shape, a.dtype) for a in arrays])
    entry = _cache.get(k)  # a static model: a hot signature, or a build that needs one
    if entry is not None:
        _touch(k)
    else:
        w = _warm.get(k)
        if w is None:
            entry = _dynamic(k, key, build, arrays)
        elif HOT_CALLS is not None and w.calls >= HOT_CALLS:
            entry = _compile(k, build, arrays)
            _warm.pop(k, None)
        else:
            w.calls += 1
            entry = _cache.get(w.pkey)
            if entry is None:  # evicted: compile the pattern's model again
                entry = _dynamic(k, key, build, arrays)
            else:
                _touch(w.pkey)
    return _run(entry, arrays)


def run1_dyn(key, build, *inputs):
    """`run_dyn` for a model with one output: returns that array."""
    return run_dyn(key, build, *inputs)[0]


# The CPU plugin prepares a dynamic model's nodes anew for each input shape it has not met
# (a MatMul of 200x64 by 64x48: 0.5 ms, 20x the call; SoftMax 5x), and a shape met before
# costs nothing more.  So the kernels whose slices along a dim are computed apart (matmul's
# rows, softmax's slices across its axis) may pad that dim with zeros up to a bucket of
# four sizes an octave, and drop the extra slices of the result: a sweep of sizes meets a
# few shapes, at up to 25% more work.  Not for inputs over PAD_MAX bytes, whose compute
# outweighs the preparation, and whose copy into the padded array shows in every call (a
# (4001, 64) @ (64, 32) matmul: 256 us, padded 410 us; at (2001, 64), 512 KiB, 177 us
# either way, and a new shape costs 5x that unpadded, 1.0x padded).
PAD_MAX = 1 << 19


def bucket(n):
    """``n`` rounded up to 4, 5, 6 or 7 times a power of two (at most 25% more)."""
    e = max(n.bit_length() - 3, 0)
    return -(-n >> e) << e


def padded(x, dim):
    """``x`` with slices of zeros appended along ``dim`` up to ``bucket``, or None where it
    is that size already, small (up to 8), over PAD_MAX bytes, static (see DYNAMIC) or a
    `Lazy` tensor."""
    n = x.shape[dim]
    if n <= 8 or type(x) is not np.ndarray or x.nbytes > PAD_MAX or not DYNAMIC:
        return None
    m = bucket(n)
    if m == n:
        return None
    out = np.zeros(x.shape[:dim] + (m,) + x.shape[dim + 1:], x.dtype)
    out[(slice(None),) * dim + (slice(0, n),)] = x
    return out


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


# -- recording (polyops.jit) -------------------------------------------------------


class TracedValueError(polyops.EagerOnlyError):
    """A step needs a tensor's value (or a host computation) while ``polyops.jit`` records
    an OpenVINO model, where values do not exist yet.  An `EagerOnlyError`: core passes it
    through kernels unchanged, and ``polyops.jit`` then runs the function eagerly."""


class Lazy:
    """A tensor of the OpenVINO model that ``polyops.jit`` is recording: one node output,
    with numpy's static metadata (``shape``, ``dtype``, ``ndim``, ``size``) and no data.
    A 64-bit ``dtype`` has a node of its 32-bit stand-in (see _NARROW): the model's
    outputs are widened on the host, as the eager kernels' results.

    Operators and indexing go through polyops ops, as on a SymbolicTensor; reading a value
    (``numpy.asarray``, ``bool``, ``int``, ``item``, ``tolist``) raises `TracedValueError`.
    """

    __slots__ = ("node", "shape", "dtype")
    __array_priority__ = 1000  # numpy defers to our reflected operators

    def __init__(self, output, dtype=None):
        if isinstance(output, ov.Node):
            output = output.output(0)
        node = output.get_node()
        if node.get_output_size() > 1:  # keep one node per tensor, so builds get a Node
            node = ops.convert(output, output.get_element_type())
        self.node = node
        pshape = output.get_partial_shape()
        if not pshape.is_static:
            raise TracedValueError(f"jit: a recorded node has a dynamic shape {pshape}")
        self.shape = tuple(pshape.to_shape())
        t = NP_TYPES[output.get_element_type().get_type_name()]
        self.dtype = t if dtype is None else np.dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return f"<openvino Lazy shape={self.shape} dtype={self.dtype}>"

    def _unknown(self, what):
        raise TracedValueError(
            f"{what}: the value of a {self.shape} {self.dtype} tensor is unknown while "
            "polyops.jit records the OpenVINO model; use polyops ops on it (or polyops.ops.cond "
            "for a tensor predicate)")

    def __array__(self, *args, **kwargs):
        self._unknown("convert_to_numpy")

    def __bool__(self):
        self._unknown("bool")

    def __int__(self):
        self._unknown("int")

    def __float__(self):
        self._unknown("float")

    def __index__(self):
        self._unknown("index")

    def item(self, *args):
        self._unknown("item")

    def tolist(self):
        self._unknown("tolist")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):  # the leading dim is static: iterate as numpy does
        return (self[i] for i in range(len(self)))

    __hash__ = object.__hash__

    # numpy methods the kernels use on their inputs, as graph nodes
    def copy(self, order="C"):
        return self  # the recorded model's tensors are immutable

    def reshape(self, *shape, order="C", copy=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return Lazy(ops.reshape(self.node, axes_const([int(d) for d in shape]), False), self.dtype)

    def astype(self, dtype, copy=True):
        from .core import RUNTIME

        return RUNTIME.convert_to_tensor(self, RUNTIME.dtypes[np.dtype(dtype)])

    def view(self, dtype=None):
        raise TracedValueError(
            f"view: a bit cast to {dtype} runs on the host (OpenVINO has no bitcast node); it "
            "cannot be recorded by polyops.jit")

    @property
    def T(self):
        return polyops.ops.transpose(self)

    # operators go through the ops, as on a SymbolicTensor
    def __getitem__(self, key):
        return polyops.ops.get_item(self, key)

    def __neg__(self):
        return polyops.ops.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return polyops.ops.abs(self)

    def __invert__(self):  # numpy's ~: logical on bool
        if self.dtype == np.bool_:
            return polyops.ops.logical_not(self)
        return polyops.ops.bitwise_invert(self)


def _operator(name, reflected=False):
    def method(self, other):
        fn = getattr(polyops.ops, name)
        return fn(other, self) if reflected else fn(self, other)

    return method


for _dunder, _name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                       ("truediv", "divide"), ("floordiv", "floor_divide"), ("mod", "mod"),
                       ("pow", "power"), ("matmul", "matmul"), ("and", "bitwise_and"),
                       ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                       ("lshift", "left_shift"), ("rshift", "right_shift")):
    setattr(Lazy, f"__{_dunder}__", _operator(_name))
    setattr(Lazy, f"__r{_dunder}__", _operator(_name, reflected=True))
for _dunder, _name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                       ("gt", "greater"), ("ge", "greater_equal")):
    setattr(Lazy, f"__{_dunder}__", _operator(_name))


def is_lazy(x) -> bool:
    return type(x) is Lazy


def copy(x):
    """A copy of a numpy array (kernels never return their input); a `Lazy` as it is."""
    return x if type(x) is Lazy else np.array(x, copy=True)


def constant(a):
    """A numpy array (bfloat16 included) as a Constant node."""
    a = np.asarray(a)
    if not a.flags.c_contiguous:
        a = a.copy(order="C")
    if a.dtype == BF16:  # (exact; a Constant of an ov.Tensor would not own its memory)
        return ops.convert(ops.constant(a.astype(np.float32)), T.bf16)
    return ops.constant(a)


def _record(build, inputs):
    """``run`` under polyops.jit: add ``build``'s nodes to the recorded model (64-bit
    values as their 32-bit stand-ins, see _NARROW and `Lazy`)."""
    nodes, wide = [], False
    for x in inputs:
        if type(x) is Lazy:
            wide = wide or x.dtype in _NARROW
        else:
            x = np.asarray(x)
            wide = wide or x.dtype in _NARROW
        nodes.append(_node(x))
    if not wide:
        return [_lazy(o) for o in _outputs(build(*nodes))]
    shapes = [list(np.shape(x)) for x in inputs]
    types = [OV_TYPES[x.dtype if type(x) is Lazy else np.asarray(x).dtype] for x in inputs]
    outs, types = _narrow_outputs(build, shapes, types, nodes)
    return [Lazy(o, NP_TYPES[t.get_type_name()]) for o, t in zip(outs, types)]


def _lazy(output):
    """A `Lazy` of ``output``; a 64-bit one (an explicit cast) as its 32-bit stand-in."""
    t = output.get_element_type()
    if t in _WIDE_TYPES:
        return Lazy(ops.convert(output, _WIDE_TYPES[t]), NP_TYPES[t.get_type_name()])
    return Lazy(output)


def narrow_dtype(dtype):
    """The dtype a model computes ``dtype`` in: 64-bit ones in 32 bits (see _NARROW)."""
    return _NARROW.get(dtype, dtype)


def _node(x):
    """A `Lazy`'s node, or a numpy value as a Constant (64-bit ones narrowed)."""
    if type(x) is Lazy:
        return x.node
    x = np.asarray(x)
    n = _NARROW.get(x.dtype)
    return constant(x if n is None else _narrowed([x], [n])[0])
