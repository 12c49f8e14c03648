"""PyTorch runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import builtins
import contextlib
import math
import operator
import warnings

import numpy as np
import torch

from polyops.plugin import Runtime, numpy_dtype, reference

from ._compat import compile_session as _compile_session
from ._compat import is_compiling as _is_compiling
from ._compat import is_function_mode_enabled as _function_mode_on
from ._compat import make_fx_fake as _make_fx_fake
from ._compat import tree_flatten as _tree_flatten
from ._compat import tree_leaves as _tree_leaves
from ._compat import tree_map as _tree_map
from ._compat import tree_unflatten as _tree_unflatten


TORCH_DTYPES = {
    "bool": torch.bool,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "uint16": torch.uint16,
    "uint32": torch.uint32,
    "uint64": torch.uint64,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}

def _from_numpy(x):
    if x.dtype.kind == "V" and x.dtype.name == "bfloat16":  # ml_dtypes' (not imported here)
        # torch.from_numpy does not know ml_dtypes; the bits are the same.
        return _from_numpy(x.view(np.uint16)).view(torch.bfloat16)
    if not x.flags.writeable:
        # torch warns on (and could write through) a read-only buffer.
        x = x.copy()
    try:
        return torch.from_numpy(x)
    except ValueError:  # negative strides
        return torch.from_numpy(np.ascontiguousarray(x))


def convert_to_tensor(x, dtype):
    td = TORCH_DTYPES[dtype]
    if isinstance(x, torch.Tensor):
        return x if x.dtype == td else _cast(x, td)
    if isinstance(x, (bool, int, float, complex)):
        try:
            return torch.scalar_tensor(x, dtype=td)  # twice as fast as torch.tensor
        except RuntimeError:  # ints past int64 (uint64)
            return torch.tensor(x, dtype=td)
    if not isinstance(x, np.ndarray):
        # Nested lists, numpy scalars and other frameworks' tensors: numpy reads
        # them all (torch.tensor is slow and warns on lists of arrays).
        x = np.asarray(x)
    t = _from_numpy(x)
    if _function_mode_on():  # ~40ns; get_default_device ~3us
        # Inside polyops.device / torch.device (a torch function mode) factory functions
        # make tensors on that device; host data goes there too.
        device = torch.get_default_device()
        if device.type != "cpu":
            t = t.to(device)
    return t if t.dtype == td else t.to(td)


def convert_to_numpy(x):
    if type(x) is not torch.Tensor and hasattr(x, "full_tensor"):  # a DTensor: gathered
        x = x.full_tensor()
    if x.requires_grad:
        x = x.detach()
    x = x.cpu().resolve_conj().resolve_neg()
    if x.dtype == torch.bfloat16:
        return x.view(torch.int16).numpy().view(numpy_dtype("bfloat16"))
    return x.numpy()


@contextlib.contextmanager
def _no_jit_deprecation():
    """Silence torch's own use of the deprecated ``torch.jit`` (its first jvp registers
    decompositions with jit.script; inductor imports modules with jit.script_method)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"`torch\.jit\.\w+` is deprecated", DeprecationWarning)
        yield


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``torch.func.jvp``."""
    import torch.func

    with _no_jit_deprecation():
        return torch.func.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)


def _value_and_grad(fun, primals):
    """Reverse-mode autodiff (`polyops.value_and_grad`) through ``torch.autograd.grad``.

    Each primal becomes a fresh leaf so that the gradients are with respect to exactly
    it.  Inside an outer differentiation (a primal already requires grad: ``grad`` of
    ``grad``) the primal stays connected and the graph of the gradient is kept."""
    nested = torch.is_grad_enabled() and builtins.any(p.requires_grad for p in primals)
    with torch.enable_grad():
        primals = tuple(p.view_as(p) if nested and p.requires_grad
                        else p.detach().requires_grad_() for p in primals)
        loss, aux = fun(*primals)
        if loss.requires_grad:
            grads = torch.autograd.grad(loss, primals, allow_unused=True, create_graph=nested)
        else:  # loss does not depend on any primal
            grads = (None,) * len(primals)
    grads = tuple(torch.zeros_like(p) if g is None else g for p, g in zip(primals, grads))
    if not nested:
        loss = loss.detach()
        aux = _tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, aux)
    return (loss, aux), grads


def _on_tape(x) -> bool:
    """Whether autograd records operations on ``x`` now (inside an autograd.Function's
    forward, grad mode is off: its inputs are off the tape)."""
    return isinstance(x, torch.Tensor) and x.requires_grad and torch.is_grad_enabled()


class _CustomGradient(torch.autograd.Function):
    """``f(*args) -> (output, grad_fn)`` as one autograd node whose backward is
    ``grad_fn(upstream)`` (as Keras's torch backend does)."""

    @staticmethod
    def forward(ctx, f, *args):
        out, ctx.grad_fn = f(*args)
        ctx.single = isinstance(out, torch.Tensor)
        ctx.is_tensor = [isinstance(a, torch.Tensor) for a in args]
        return out

    @staticmethod
    def backward(ctx, *upstream):
        grads = ctx.grad_fn(upstream[0] if ctx.single else upstream)
        grads = iter(tuple(grads) if isinstance(grads, (tuple, list)) else (grads,))
        # one gradient per tensor argument; None for f and non-tensor arguments
        return (None,) + tuple(next(grads, None) if t else None for t in ctx.is_tensor)


def _custom_gradient(f):
    """`polyops.ops.custom_gradient`: the grad function gets the output's cotangent and
    returns one gradient per tensor argument."""

    def wrapped(*args):
        return _CustomGradient.apply(f, *args)

    return wrapped


def _devices():
    return ["cpu:0"] + [f"cuda:{i}" for i in range(torch.cuda.device_count())]


def _jit(fn):
    """`polyops.jit`: ``fn`` (core's pure function of one signature) traced on its first
    call into a graph of aten ops, which ``torch.compile`` compiles.

    Why not ``torch.compile(fn)`` directly: TorchDynamo cannot trace the ContextVars that
    polyops reads in every op (the state scope, autocast), so each op would be a graph
    break, and it replays the Python side effects of the trace (``Jitted.traces``) on every
    call.  ``make_fx`` instead runs the Python once with fake tensors, recording the aten
    ops, including those of ``torch.autograd.grad`` (a whole training step becomes one
    graph).  Python that needs tensor values (``bool(tensor)`` in a reference
    ``while_loop`` or ``cond``, ``.item()``, NumPy) cannot be traced, nor can inductor
    compile every graph: then this raises `EagerOnlyError`, on which core runs the
    function eagerly (its one policy for every backend, see polyops._transforms).

    DTensors (once `polyops.distribution`'s torch hook is loaded) are traced on their
    local tensors, each wrapped again in a DTensor inside the trace, so that DTensor's
    Python (sharding propagation, redistributions) becomes aten ops and functional
    collectives of the same one graph: ``polyops_torch._distribution.jit``.  Measured
    against ``torch.compile(fn)`` of a data-parallel training step on 2 processes: Dynamo
    breaks the graph at each ContextVar read (~40 breaks, 260 frames), compiles for ~50 s
    and runs the step slower than eager (17 ms against 12 ms); this way compiles in ~10 s
    and runs it in 3 ms.

    Options: ``dynamic`` left at its default: core compiles one function per signature
    (shapes and dtypes), so Dynamo never sees a second shape to generalize to, and
    ``dynamic=False`` would wrap every call in a config patch (~10 us); the default mode (no CUDA graphs,
    which would keep outputs in buffers that the next call overwrites; no
    "max-autotune", whose compile takes minutes); ``fullgraph=False`` only matters if
    Dynamo ever found something to break on in an aten graph, and then the result is
    still correct."""
    compiled = None

    def call(*args):
        nonlocal compiled
        if compiled is None:
            import sys

            # polyops.distribution's hook loaded: DTensors may flow, traced on their
            # local tensors (see polyops_torch._distribution.jit)
            distributed = sys.modules.get("polyops_torch._distribution")
            if distributed is not None:
                compiled = distributed.jit(fn, _compile_first)
                return compiled(*args)
            compiled, out = _compile_first(fn, args)
            return out
        return compiled(*args)

    return call


def _compile_first(fn, args):
    """``fn`` traced and compiled for ``args``, and its outputs for them: (compiled, out)."""
    with _no_jit_deprecation():  # compiling imports modules that use torch.jit
        traced = _trace(fn, args)
        try:  # inductor compiles on this first call
            out = traced(*args)
        except Exception as exc:
            # Inductor cannot compile everything (unsigned 16-64-bit ints in some
            # ops).  Not the traced graph: it took the kernels' compiled paths,
            # which eager aten may lack; core runs the function eagerly (errors of
            # the data itself are raised again from there).
            raise _cannot_compile(f"inductor failed ({_reason(exc)})") from exc
    return traced, out


def _cannot_compile(reason):
    from polyops import EagerOnlyError

    return EagerOnlyError(f"torch cannot compile it: {reason}"[:400])


def _reason(exc) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _trace(fn, args):
    # is_compiling() is True while tracing, so kernels take the paths that agree with
    # inductor (see _cast), as torch.export's make_fx tracing also does.
    try:
        with _compile_session():
            # fake tensors: a read of tensor values raises instead of baking in this call's
            # values; non-fake inputs: constants the function makes from NumPy data
            graph = _make_fx_fake(fn)(*args)
    except Exception as exc:  # data-dependent Python, or an error that eager raises again
        if _own_error(exc):
            raise
        raise _cannot_compile(f"the trace needs tensor values or an op fake tensors lack "
                              f"({_reason(exc)})") from exc
    # compiling graph.forward skips nn.Module.__call__ (~10us a call)
    return torch.compile(graph.forward)


def _own_error(exc) -> bool:
    """A polyops error of the arguments (a rule's TypeError/ValueError, raised before any
    kernel ran): raised as is, as on the other backends, not as a reason to run eagerly."""
    from polyops import EagerOnlyError

    return (isinstance(exc, (TypeError, ValueError, IndexError))
            and not isinstance(exc, EagerOnlyError)
            and not type(exc).__module__.startswith("torch")
            and exc.__cause__ is None and exc.__context__ is None)  # torch raised nothing


RUNTIME = Runtime(
    name="torch",
    version=torch.__version__,
    tensor_types=(torch.Tensor,),
    dtypes={td: name for name, td in TORCH_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
    value_and_grad=_value_and_grad,
    custom_gradient=_custom_gradient,
    on_tape=_on_tape,
    jit=_jit,
    # (one C call: sparse layouts are torch.Tensor too, so the layout is part of it)
    jit_signature=operator.attrgetter("shape", "dtype", "layout"),
    device_scope=torch.device,  # as a context manager: the default device of new tensors
    devices=_devices,
    distribution="polyops_torch._distribution",  # imported on first use of polyops.distribution
    sparse="polyops_torch._sparse",  # sparse layouts of torch.Tensor (docs/sparse.md)
)


# float -> int targets that eager CPU torch reaches through a wider int, as NumPy on
# x86-64 does: truncate into int32 (int64 for uint32), then wrap (300.0 -> int8 is 44).
# Inductor (torch.compile) and CUDA convert directly and saturate (300.0 -> 127).
_VIA = {
    torch.int8: torch.int32, torch.int16: torch.int32, torch.uint8: torch.int32,
    torch.uint16: torch.int32, torch.uint32: torch.int64,
}


def _cast(x, td):
    via = _VIA.get(td)
    if via is not None and x.is_floating_point() and (not x.is_cpu or _is_compiling()):
        x = x.to(via)
    return x.to(td)


def cast(x, dtype):
    return _cast(x, TORCH_DTYPES[dtype])


# ----- tensor ops of keras.ops.core --------------------------------------------------------


def stop_gradient(variable):
    return variable.detach()


# index_put_/scatter_reduce_ lack unsigned 16/32/64-bit kernels; copying, adding and
# multiplying are the same bits in the signed type of that width (two's complement).
_SIGNED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _as(x, dtype):
    # view(dtype) has no gradient, even to the same dtype: only view integers
    return x if x.dtype == dtype else x.view(dtype)


def _rows(indices, dims, m):
    """Row-major positions (int64, (N,)) of the rows of ``indices`` (N..., k) into ``dims``
    (the first k dims; negative entries wrap once); rows out of range get M = prod(dims),
    a dump row past the end, so that shapes stay static (no boolean masking)."""
    idx = indices.reshape(math.prod(indices.shape[:-1]), len(dims)).long()
    d = torch.tensor(dims, dtype=torch.int64, device=idx.device)
    idx = torch.where(idx < 0, idx + d, idx)
    ok = ((idx >= 0) & (idx < d)).all(-1)
    strides = [1] * len(dims)
    for j in range(len(dims) - 2, -1, -1):
        strides[j] = strides[j + 1] * dims[j + 1]
    lin = (idx * torch.tensor(strides, dtype=torch.int64, device=idx.device)).sum(-1)
    return torch.where(ok, lin, m)


def scatter(indices, values, shape):
    shape = tuple(int(d) for d in shape)
    k = indices.shape[-1]
    m = math.prod(shape[:k])
    lin = _rows(indices, shape[:k], m)
    vals = values.reshape((lin.shape[0],) + shape[k:])
    dtype = vals.dtype
    if dtype == torch.bool:  # duplicates: logical or
        vals = vals.to(torch.int32)
    vals = _as(vals, _SIGNED.get(dtype, vals.dtype))
    out = vals.new_zeros((m + 1,) + shape[k:])
    # index_put_'s accumulate is deterministic (sorted) on CUDA too, unlike index_add_
    out = out.index_put_((lin,), vals, accumulate=True)[:m].reshape(shape)
    return out != 0 if dtype == torch.bool else _as(out, dtype)


_REDUCE = {"max": "amax", "min": "amin", "mul": "prod"}


def scatter_update(inputs, indices, updates, reduction=None):
    dtype = inputs.dtype
    if reduction in ("max", "min") and (dtype in _SIGNED or dtype.is_complex):
        return reference("scatter_update")(inputs, indices, updates, reduction)
    target = tuple(inputs.shape)
    k = indices.shape[-1]
    m = math.prod(target[:k])
    lin = _rows(indices, target[:k], m)
    n = lin.shape[0]
    upd = updates.reshape((n,) + target[k:])
    flat = inputs.reshape((m,) + target[k:])
    if dtype == torch.bool and reduction is not None:
        flat, upd = flat.to(torch.int32), upd.to(torch.int32)
    work = _SIGNED.get(dtype, flat.dtype)
    flat, upd = _as(flat, work), _as(upd, work)
    out = torch.cat([flat, flat.new_zeros((1,) + target[k:])])  # the copy, plus a dump row
    if reduction is None:
        # The last of duplicate updates wins: index_put_ does not promise which one does,
        # so only each position's last row writes there (the others go to the dump row).
        pos = torch.arange(n, device=lin.device)
        last = torch.full((m + 1,), -1, dtype=torch.int64, device=lin.device)
        last = last.scatter_reduce(0, lin, pos, "amax")
        out.index_put_((torch.where(last[lin] == pos, lin, m),), upd)
    elif reduction == "add":
        out.index_put_((lin,), upd, accumulate=True)
    else:
        index = lin.reshape((n,) + (1,) * (len(target) - k)).expand(upd.shape)
        out.scatter_reduce_(0, index, upd, _REDUCE[reduction])
    out = out[:m].reshape(target)
    if dtype == torch.bool and reduction is not None:
        return out != 0
    return _as(out, dtype)


def _int_starts(start_indices):
    """The start indices as Python ints, or None when they are tensor values that tracing
    (torch.compile, polyops.jit) must keep symbolic: then the reference gathers."""
    if isinstance(start_indices, torch.Tensor):
        return None if _is_compiling() else start_indices.reshape(-1).tolist()
    if isinstance(start_indices, np.ndarray):
        return start_indices.reshape(-1).tolist()
    if _is_compiling() and builtins.any(isinstance(s, torch.Tensor) for s in start_indices):
        return None
    return [int(s) for s in start_indices]


def _clamped(start, dim, size):
    return min(max(start, 0), dim - size)


def slice(inputs, start_indices, shape):
    starts = _int_starts(start_indices)
    if starts is None:
        return reference("slice")(inputs, start_indices, shape)
    key = []
    for s, d, n in zip(starts, inputs.shape, shape):
        n = d - min(max(s, 0), d) if n == -1 else int(n)
        s = _clamped(s, d, n)
        key.append(builtins.slice(s, s + n))
    return inputs[tuple(key)]


def slice_update(inputs, start_indices, updates):
    starts = _int_starts(start_indices)
    if starts is None:
        return reference("slice_update")(inputs, start_indices, updates)
    key = tuple(builtins.slice(_clamped(s, d, u), _clamped(s, d, u) + u)
                for s, d, u in zip(starts, inputs.shape, updates.shape))
    out = inputs.clone()
    out[key] = updates
    return out


def vectorized_map(function, elements):
    """``torch.vmap``; the reference (a Python loop) when vmap cannot run ``function``
    (``.item()``, NumPy, an op without a batching rule while warnings are errors), the
    result holds Python numbers, or ``elements`` holds None or zero rows."""
    from polyops import ops

    xs = _tree_map(lambda t: t if t is None else ops.convert_to_tensor(t), elements)
    leaves = _tree_leaves(xs)  # a None leaf: vmap cannot map it, the reference can
    if leaves and builtins.all(t is not None and t.ndim > 0 and t.shape[0] > 0 for t in leaves):
        spec = []

        def flat(x):  # vmap returns tensors only: the structure and Nones go aside
            out, treedef = _tree_flatten(function(x))
            spec.append((treedef, [o is None for o in out]))
            return tuple(o for o in out if o is not None)

        try:
            ys = iter(torch.vmap(flat)(xs))
        except Exception:  # the reference gives the error, if there is one
            pass
        else:
            treedef, nones = spec[-1]
            return _tree_unflatten([None if n else next(ys) for n in nones], treedef)
    return reference("vectorized_map")(function, elements)
