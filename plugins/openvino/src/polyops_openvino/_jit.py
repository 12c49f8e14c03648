"""``Runtime.jit`` for OpenVINO: record the function into one model, compile it once.

The first call traces the function with `Lazy` Parameters of the arguments' static
shapes and dtypes: every kernel adds its nodes to the one graph instead of running
(``_graph.run``), and numpy values the function makes become Constants.  The outputs make
one ``ov.Model``, compiled as ``_graph`` compiles its small models; later calls only bind
the arrays and infer.  Core keeps one compiled function per input signature.

Control flow on tensor values records too: ``cond``/``switch`` select between their
branches, ``while_loop``/``fori_loop`` become an OpenVINO Loop (see ``core``).  A function
that needs a tensor's value while it is recorded (``bool(x)``, ``float(x)``, a host
computation such as ``svd``, a data-dependent shape such as ``unique``, a ``view`` bit cast,
a cast to int64) cannot be one model: the trace raises `TracedValueError` (an
`EagerOnlyError`), on which core runs that function eagerly, op by op, after one
`JitFallbackWarning` naming the op (core's one policy for every backend).
"""

from __future__ import annotations

import math
import threading
import weakref

import numpy as np
import openvino as ov

from . import _graph
from ._graph import OV_TYPES, Lazy, T, ops

_U16 = np.dtype(np.uint16)


class _Model:
    """The compiled model of one trace and how to map its results to the flat outputs."""

    __slots__ = ("compiled", "request", "views", "lock", "in_types", "out_dtypes", "plan", "widen",
                 "narrow", "__weakref__")

    def __init__(self, compiled, in_types, plan, widen, narrow):
        self.compiled = compiled  # None when no output needs the model
        self.lock = threading.Lock()
        self.in_types = in_types
        self.plan = plan  # per flat output: ("result", i) | ("input", i) | ("const", array)
        self.widen = widen  # result index -> the 64-bit dtype its 32-bit result widens to
        self.narrow = narrow  # per input: the 32-bit dtype of a 64-bit one, or None if none
        self.request = self.views = None
        if compiled is not None:
            self.request = compiled.create_infer_request()
            # Small inputs are copied into the request's own input memory (a numpy view held
            # here): binding a new ov.Tensor costs more than copying some kilobytes.
            self.views = [self.request.get_input_tensor(i).data
                          if _nbytes(p) <= _COPY_MAX else None
                          for i, p in enumerate(compiled.inputs)]
            self.out_dtypes = [_graph.NP_TYPES[o.get_element_type().get_type_name()]
                               for o in compiled.outputs]


_COPY_MAX = 32 * 1024  # bytes: inputs up to this size are copied rather than bound


def _nbytes(port):
    n = port.get_element_type().size
    for d in port.get_shape():
        n *= d
    return n


class Jit:
    """The compiled form of one pure function ``fn(*tensors) -> flat tuple of tensors``."""

    def __init__(self, fn):
        self.fn = fn
        self.models: dict = {}  # (shapes, dtypes) -> _Model
        self._lock = threading.Lock()

    def __call__(self, *args):
        arrays = [_contiguous(a) for a in args]
        key = tuple((a.shape, a.dtype) for a in arrays)
        model = self.models.get(key)
        if model is None:
            with self._lock:
                model = self.models.get(key)
                if model is None:
                    model = self._trace(arrays)  # TracedValueError: core runs fn eagerly
                    if model is None:  # a discarded trace (see _trace)
                        return self._last
                    self.models[key] = model
        return _infer(model, arrays)

    def _trace(self, arrays):
        # 64-bit inputs: Parameters of their 32-bit stand-ins (see _graph._NARROW)
        narrow = [_graph.narrow_dtype(a.dtype) for a in arrays]
        in_types = [OV_TYPES[n] for n in narrow]
        params = [ops.parameter(list(a.shape), t) for a, t in zip(arrays, in_types)]
        outs = self.fn(*[Lazy(p, a.dtype) for p, a in zip(params, arrays)])
        if _discarded():
            # Core traces again when the trace read Variables it was not given, and drops
            # this call's outputs: compiling this model would be wasted.
            self._last = tuple(outs)
            return None
        narrow = tuple(None if n == a.dtype else n for n, a in zip(narrow, arrays))
        return _compile(params, in_types, outs, None if narrow == (None,) * len(narrow) else narrow)


def _compile(params, in_types, outs, narrow=None):
    """One compiled model computing the `Lazy` ones of the flat outputs ``outs``."""
    plan, results, widen = [], [], {}
    param_index = {p.output(0): i for i, p in enumerate(params)}
    for o in outs:
        if type(o) is not Lazy:  # computed from constants only
            plan.append(("const", np.asarray(o)))
            continue
        out = o.node.output(0)
        i = param_index.get(out)
        if i is not None:  # an input returned as it is (a Variable nothing assigned)
            plan.append(("input", i))
            continue
        t = out.get_element_type()
        if t in _graph._WIDE_TYPES:  # (the CPU plugin would narrow it by saturation)
            out = ops.convert(out, _graph._WIDE_TYPES[t]).output(0)
        if _graph.NP_TYPES[out.get_element_type().get_type_name()] != o.dtype:
            # a 64-bit value's 32-bit stand-in, as the eager kernels': widened on the host
            widen[len(results)] = o.dtype
        plan.append(("result", len(results)))
        results.append(out)
    compiled = None
    threaded = False
    if results:
        model = ov.Model(results, params, "polyops_jit")
        core = _graph._get_core()
        # a large model (its inputs and constants: weights closed over) runs with executor
        # threads, as _graph's large calls do; at most _graph._THREADED_MAX of them live
        threaded = _THREADED[0] < _graph._THREADED_MAX and _data_bytes(model) >= \
            _graph._THREADED_MIN
        config = _graph._THREADED_CONFIG if threaded else _graph._CONFIG
        try:
            compiled = core.compile_model(model, "CPU", config)
        except RuntimeError:
            # The CPU plugin's fused elementwise kernels ("snippets") can run out of
            # registers on long chains (gammainc's series): compile without them.
            compiled = core.compile_model(model, "CPU", {**config, "SNIPPETS_MODE": "DISABLE"})
        _graph.compiles += 1
    out = _Model(compiled, in_types, plan, widen, narrow)
    if threaded:
        _THREADED[0] += 1
        weakref.finalize(out, _release)
    return out


_THREADED = [0]  # compiled jit models with executor threads, alive


def _release():
    _THREADED[0] -= 1


def _data_bytes(model) -> int:
    """Bytes of a model's inputs (static shapes) and constants."""
    total = 0
    for node in model.get_ordered_ops():
        kind = node.get_type_name()
        if kind == "Constant":
            total += node.get_byte_size()
        elif kind == "Parameter":
            shape = node.get_output_partial_shape(0)
            if shape.is_static:
                total += math.prod(shape.to_shape()) * node.get_element_type().size
    return total


def _contiguous(a):
    if type(a) is not np.ndarray or not a.flags.c_contiguous:
        a = np.asarray(a)
        if not a.flags.c_contiguous:
            a = a.copy(order="C")
    return a


def _discarded() -> bool:
    from polyops.plugin import trace_discarded

    return trace_discarded()


def _infer(model, arrays):
    results = []
    if model.compiled is not None:
        run = arrays if model.narrow is None else _graph._narrowed(arrays, model.narrow)
        if model.lock.acquire(blocking=False):
            try:
                results = _run(model, model.request, model.views, run)
            finally:
                model.lock.release()
        else:  # another thread is using the shared request: a private one, inputs bound
            request = model.compiled.create_infer_request()
            results = _run(model, request, [None] * len(run), run)
    out = []
    for kind, v in model.plan:
        if kind == "result":
            out.append(results[v])
        elif kind == "input":
            out.append(arrays[v])
        else:
            out.append(np.array(v, copy=True))
    return tuple(out)


def _run(model, request, views, arrays):
    for i, (a, view) in enumerate(zip(arrays, views)):
        if view is not None:
            np.copyto(view, a if a.dtype == view.dtype else a.view(view.dtype))
        else:
            t = model.in_types[i]
            request.set_input_tensor(i, ov.Tensor(a.view(_U16) if t == T.bf16 else a, a.shape, t))
    request.infer()
    results = []
    for i, dt in enumerate(model.out_dtypes):
        r = np.array(request.get_output_tensor(i).data, copy=True)
        if r.dtype != dt:
            r = r.view(dt)
        w = model.widen.get(i)
        if w is not None:
            r = r.astype(w)
        results.append(r)
    return results


def jit(fn):
    """``Runtime.jit``: ``fn`` recorded and compiled per input signature (see the module)."""
    return Jit(fn)
