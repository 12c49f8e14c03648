"""OpenVINO runtime (tensor types, dtypes, conversion, jit) and core-family kernels.

OpenVINO is inference-only: the backend's tensors are numpy arrays, and every
kernel runs a small compiled OpenVINO model on them (see ``_graph``).  Under
``polyops.jit`` they are `Lazy` nodes of one recorded model instead (see ``_jit``).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

from polyops.plugin import state_scope, tree_flatten, tree_map, tree_unflatten
from polyops.plugin import Runtime, reference

from ._quiet import openvino  # first: openvino without its import-time telemetry (see there)
from . import _jit
from ._graph import LATE as _LATE
from ._graph import OV_TYPES, Lazy, T, TracedValueError, const, constant, narrow_dtype, ops, run1
from ._graph import _node as _graph_node
from ._graph import run1_dyn, to

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
)
# OpenVINO has no complex element types; bfloat16 is learned late (see _graph.LATE)
NP_DTYPES = _LATE.names((name, np.dtype(name)) for name in _NAMES)
DTYPES = _LATE.dtypes((nd, name) for name, nd in NP_DTYPES.items())


def _learn(bf16):
    dict.__setitem__(NP_DTYPES, "bfloat16", bf16)
    dict.__setitem__(DTYPES, bf16, "bfloat16")


_LATE.on_learn.append(_learn)
_LATE.learn_if_loaded()


def _np_dtype(dtype):
    try:
        return NP_DTYPES[dtype]
    except KeyError:
        raise TypeError(f"openvino backend: unsupported dtype {dtype!r}") from None


def convert_to_tensor(x, dtype):
    nd = _np_dtype(dtype)
    if type(x) is Lazy:
        return x if x.dtype == nd else cast(x, dtype)
    if isinstance(x, np.ndarray):
        return x if x.dtype == nd else x.astype(nd)
    return np.asarray(x, dtype=nd)


def convert_to_numpy(x):
    return np.asarray(x)  # a Lazy raises TracedValueError: its value does not exist yet


_X64_WARNED = False
X64_MESSAGE = (
    "polyops 64-bit mode on openvino: int64, uint64 and float64 keep their dtypes, but "
    "OpenVINO's CPU plugin has no 64-bit arithmetic: float64 is computed in float32 (about 7 "
    "significant digits, range 3.4e38) and int64/uint64 in 32 bits (inputs outside the int32 "
    "range saturate); casts and data movement keep every bit (docs/numerics.md, 64-bit mode)")


def _set_x64(enabled: bool) -> None:
    """`Runtime.set_x64`: warn once, when 64-bit mode is first on with openvino loaded."""
    global _X64_WARNED
    if enabled and not _X64_WARNED:
        _X64_WARNED = True
        warnings.warn(X64_MESSAGE, UserWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The stacklevel of the first frame outside polyops (and contextlib's scope)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
            ("polyops", "contextlib")):
        frame, level = frame.f_back, level + 1
    return level


def _version():
    v = getattr(openvino, "__version__", None)
    return v if v else openvino.get_version()


RUNTIME = Runtime(
    name="openvino",
    version=_version(),
    tensor_types=(np.ndarray, np.generic, Lazy),
    dtypes=DTYPES,
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    devices=lambda: ["cpu:0"],  # host memory, named as jax, tensorflow and torch name it
    jit=_jit.jit,
    # OpenVINO's engine rejects zero-size tensors: core answers every call that has a
    # zero-size operand (from the op's rule, or its declared empty fill)
    empty_tensors=False,
    set_x64=_set_x64,
)

_FLOAT_IN = frozenset({T.f16, T.bf16, T.f32, T.f64})
_WIDE_IN = frozenset({T.i32, T.u32, T.i64, T.u64})
_F32, _I32 = T.f32, T.i32
_WIDE_NP = frozenset(np.dtype(d) for d in ("float64", "int64", "uint64"))
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
    if type(x) is Lazy:
        return _cast_lazy(x, dtype, nd)
    x = np.asarray(x)
    if x.dtype == nd:
        return x.copy()
    if x.dtype in _WIDE_NP:
        # the CPU plugin narrows 64-bit inputs (_graph._NARROW): NumPy's own cast on the
        # host keeps every bit of them (x86 NumPy is what the graphs below reproduce)
        with np.errstate(all="ignore"):
            return x.astype(nd)
    if nd == np.float64:  # exact from every narrower dtype (a model would compute in f32)
        return x.astype(nd)
    # (a wide int result is built of i32 words: static models, as for int inputs)
    run = run1_dyn if nd.kind in "fbV" or nd.itemsize < 4 else run1
    out = run(("cast", dtype), _cast_graph(OV_TYPES[nd]), x)
    if nd.itemsize == 8 and nd.kind in "iu":
        return out.view(nd).reshape(x.shape)
    return out


def _cast_lazy(x, dtype, nd):
    """`cast` recorded under polyops.jit: the eager graph, minus its host steps."""
    if x.dtype == nd:
        return x
    if nd.kind in "iu" and nd.itemsize == 8:
        # eager casts build int64 from i32 word pairs on the host; the CPU plugin narrows i64
        raise TracedValueError(f"cast: to {dtype} is exact only eagerly (on the host); "
                               "it cannot be recorded in one OpenVINO model")
    build = _cast_graph(OV_TYPES[nd])
    if nd == np.float64:  # f32 values, as eager; the jit output widens them on the host
        return run1_dyn(("cast", dtype), lambda p: ops.convert(build(p), T.f64), x)
    return run1_dyn(("cast", dtype), build, x)


def saturate_cast(x, dtype):
    nd = _np_dtype(dtype)
    if np.dtype(x.dtype) == np.float64 and nd.kind in "iu":
        # on the host: core's reference clips to bounds exact in float64 (2**31 - 1...),
        # which the CPU plugin's float32 rounds out of the target's range
        if type(x) is Lazy:
            if nd.itemsize < 4:  # (bounds exact in float32)
                return reference("saturate_cast")(x, dtype)
            raise TracedValueError(f"saturate_cast: float64 to {dtype} is exact only eagerly "
                                   "(on the host)")
        info = np.iinfo(nd)
        hi = float(info.max)
        if int(hi) > info.max:  # the largest float64 below 2**63 (2**64)
            hi = float(np.nextafter(hi, 0.0))
        x = np.asarray(x)
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(x), 0.0, np.clip(x, float(info.min), hi)).astype(nd)
    return reference("saturate_cast")(x, dtype)


def stop_gradient(variable):
    return variable  # nothing differentiates on openvino


# ===== control flow =====
# With a concrete predicate (or index), cond and switch call one branch, as core's
# reference.  With a Lazy one (under polyops.jit) no branch can be chosen while the model
# is recorded: every branch is recorded and each output leaf (and each Variable a branch
# assigns) is selected by the predicate.


def _branch_outputs(calls):
    """Call each branch with the Variables' values as before it; returns the outputs and
    each branch's Variable values (None outside polyops.jit)."""
    scope = state_scope()
    before = None if scope is None else dict(scope.values)
    outs, states = [], []
    for call in calls:
        if scope is not None:
            scope.values.clear()
            scope.values.update(before)
        outs.append(call())
        states.append(None if scope is None else dict(scope.values))
    return outs, states, scope


def _leaves(op, outs):
    """The leaves of every branch's output, as tensors; the structure of branch 0."""
    leaves0, td = _tensor_leaves(outs[0])
    result = [leaves0]
    for k, out in enumerate(outs[1:], 1):
        result.append(_check_same(op, f"branch {k}'s output (compared with branch 0's)",
                                  leaves0, td, out))
    return result, td


def _tensor_leaves(tree):
    from polyops.ops import core as pcore

    leaves, td = tree_flatten(tree)
    return [None if v is None else pcore.convert_to_tensor(v) for v in leaves], td


def _check_same(op, what, expected, td, got):
    """``got``'s leaves as tensors; TypeError (as core's references) unless they have the
    structure ``td`` and the shapes and dtypes of the ``expected`` leaves."""
    leaves, gtd = _tensor_leaves(got)
    if gtd != td:
        raise TypeError(f"{op}: {what} must have the structure {td!r}, got {gtd!r}")
    for e, g in zip(expected, leaves):
        e = None if e is None else (tuple(e.shape), RUNTIME.dtypes[e.dtype])
        g = None if g is None else (tuple(g.shape), RUNTIME.dtypes[g.dtype])
        if (e is None) != (g is None):
            raise TypeError(f"{op}: {what}: expected {e}, got {g}")
        if e is not None and e != g:
            raise TypeError(f"{op}: {what}: expected shape {e[0]} dtype {e[1]}, "
                            f"got shape {g[0]} dtype {g[1]}")
    return leaves


def _select(selectors, values):
    """``values[k]`` for the first ``k`` whose selector is true, else the last one."""
    from polyops.ops import numpy as pnp

    out = values[-1]
    for sel, v in zip(reversed(selectors), reversed(values[:-1])):
        if v is not out:
            out = pnp.where(sel, v, out)
    return out


def _lazy_branches(op, selectors, calls):
    outs, states, scope = _branch_outputs(calls)
    leaves, td = _leaves(op, outs)
    picked = [None if leaves[0][i] is None else _select(selectors, [ls[i] for ls in leaves])
              for i in range(len(leaves[0]))]
    if scope is not None:  # a Variable takes the value of the branch taken
        changed = {v for st in states for v in st if any(st.get(v) is not s.get(v) for s in states)}
        scope.values.clear()
        scope.values.update(states[-1])
        for var in changed:
            scope.values[var] = _select(selectors, [st.get(var, var._value) for st in states])
    return tree_unflatten(td, picked)


def _scalar(op, what, x):
    if x.size != 1:
        raise ValueError(f"{op}: expected a scalar {what}, got shape {x.shape}")
    return x.reshape(())


def cond(pred, true_fn, false_fn):
    if type(pred) is not Lazy:
        return reference("cond")(pred, true_fn, false_fn)
    for name, f in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(f):
            raise TypeError(f"cond: expected a callable {name}, got {type(f).__name__}")
    if pred.shape not in ((), (1,)):
        raise ValueError(f"cond: expected a scalar predicate, got shape {pred.shape}")
    p = convert_to_tensor(pred.reshape(()), "bool")
    return _lazy_branches("cond", [p], [true_fn, false_fn])


def switch(index, branches, *operands):
    if type(index) is not Lazy:
        return reference("switch")(index, branches, *operands)
    if not branches:
        raise ValueError("switch: expected at least one branch")
    for b in branches:
        if not callable(b):
            raise TypeError(f"switch: expected a callable branch, got {type(b).__name__}")
    from polyops.ops import numpy as pnp

    i = convert_to_tensor(_scalar("switch", "index", index), "int32")
    # index <= k picks branch k for the first such k: indices below 0 take branch 0 and
    # above the last take the last, as the reference's clamp
    selectors = [pnp.less_equal(i, k) for k in range(len(branches) - 1)]
    return _lazy_branches("switch", selectors, [lambda b=b: b(*operands) for b in branches])


# ----- while_loop, fori_loop: an OpenVINO Loop for a Lazy predicate -----
# While the predicate is concrete the loop runs step by step, as core's reference (under
# polyops.jit a Python counter unrolls).  Once it is Lazy, the rest of the loop becomes one
# Loop node: its body is a sub-model traced once on Lazy Parameters (one per carried leaf),
# and values the body captures from the enclosing graph become its invariant inputs.


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    from polyops.ops import core as pcore

    for name, f in (("cond", cond), ("body", body)):
        if not callable(f):
            raise TypeError(f"while_loop: expected a callable {name}, got {type(f).__name__}")
    is_seq = isinstance(loop_vars, (tuple, list))
    values = tree_map(lambda v: None if v is None else pcore.convert_to_tensor(v),
                                 tuple(loop_vars) if is_seq else (loop_vars,))
    i = 0
    while maximum_iterations is None or i < maximum_iterations:
        pred = cond(*values)
        if type(pred) is Lazy:
            left = None if maximum_iterations is None else maximum_iterations - i
            values = _loop(cond, body, values, pred, left, is_seq)
            break
        if not _truth(pred):
            break
        values = _body_step(body, values, is_seq)
        i += 1
    if isinstance(loop_vars, list):
        return list(values)
    return values if is_seq else values[0]


def fori_loop(lower, upper, body_fun, init_val):
    if type(lower) is not Lazy and type(upper) is not Lazy:
        return reference("fori_loop")(lower, upper, body_fun, init_val)
    if not callable(body_fun):
        raise TypeError(f"fori_loop: expected a callable body_fun, got {type(body_fun).__name__}")
    for name, v in (("lower", lower), ("upper", upper)):
        a = _as_array(v)
        if a.size != 1 or a.dtype.kind not in "iu":
            raise TypeError(f"fori_loop: expected an integer {name}, got {a.dtype} of shape "
                            f"{a.shape}")
    lo = convert_to_tensor(_as_array(lower).reshape(()), "int32")
    step = lambda i, v: (i + 1, body_fun(i, v))  # noqa: E731
    try:
        return while_loop(lambda i, v: i < upper, step, (lo, init_val))[1]
    except TypeError as exc:
        if isinstance(exc, TracedValueError):
            raise
        # The Loop's counter is an int32 tensor where the eager loop's is a Python int,
        # which is weak (an int8 carry + i stays int8): polyops.jit runs it eagerly.
        raise TracedValueError(f"fori_loop: body_fun needs its counter i as a Python int (it "
                               f"failed on the Loop's int32 i, the bounds being tensors): "
                               f"{exc}") from exc


def _as_array(x):
    return x if type(x) is Lazy else np.asarray(x)


def _truth(pred) -> bool:
    a = np.asarray(pred)
    if a.size != 1:
        raise ValueError(f"while_loop: expected a scalar predicate, got shape {a.shape}")
    return bool(a.reshape(()))


def _body_step(body, values, is_seq):
    """``body(*values)`` as a tuple of tensors, checked against ``values``."""
    out = body(*values)
    out = tuple(out) if is_seq and isinstance(out, (tuple, list)) else (out,)
    expected, td = tree_flatten(values)
    return tree_unflatten(td, _check_same("while_loop", "the loop_vars body returns",
                                           expected, td, out))


def _loop(cond, body, values, pred, left, is_seq):
    """The rest of a while_loop as one Loop node; returns the final values (Lazy)."""
    import openvino.opset5 as ops5
    leaves, td = tree_flatten(values)
    carried = [k for k, v in enumerate(leaves) if v is not None]
    # (64-bit values as their 32-bit stand-ins, see _graph._NARROW)
    params = [ops.parameter(list(leaves[k].shape), OV_TYPES[narrow_dtype(leaves[k].dtype)])
              for k in carried]
    inner = list(leaves)
    for k, p in zip(carried, params):
        inner[k] = Lazy(p, leaves[k].dtype)
    inner = tree_unflatten(td, inner)
    scope = state_scope()
    before = None if scope is None else dict(scope.values)
    new = _body_step(body, inner, is_seq)
    go = cond(*new)
    if scope is not None and any(scope.values.get(v) is not x for v, x in before.items()):
        raise TracedValueError("while_loop: a loop body that assigns Variables cannot be "
                               "recorded as one OpenVINO Loop")
    new_leaves = tree_flatten(new)[0]
    outs = [_node(new_leaves[k]) for k in carried]
    go = convert_to_tensor(_scalar("while_loop", "predicate", _as_array(go)), "bool")
    results, invariants = _make_self_contained([_node(go)] + outs, params)
    body_model = openvino.Model(results, params + [p for p, _ in invariants])
    trip = constant(np.int64(-1 if left is None else left))
    start = convert_to_tensor(_scalar("while_loop", "predicate", pred), "bool")
    loop = ops5.loop(trip, start.node)
    loop.set_function(body_model)
    loop.set_special_body_ports([-1, 0])  # no iteration input; result 0 is the condition
    for k, p, out in zip(carried, params, results[1:]):
        loop.set_merged_input(p, _node(leaves[k]).output(0), out)
    for p, outer in invariants:
        loop.set_invariant_input(p, outer)
    final = list(leaves)
    for k, out in zip(carried, results[1:]):
        final[k] = Lazy(loop.get_iter_value(out, -1), leaves[k].dtype)
    return tree_unflatten(td, final)


_node = _graph_node  # a Lazy's node, or a Constant (64-bit values narrowed)


def _make_self_contained(results, params):
    """Cut the body graph (ending in the ``results`` nodes) loose from the enclosing graph:
    every value a body node (or result) takes from an enclosing node that depends on an
    enclosing Parameter comes from a new body Parameter instead.  Returns the result
    outputs and [(new Parameter, enclosing output)], the Loop's invariant inputs."""
    own = {p.get_instance_id() for p in params}
    nodes: dict = {}
    deps: dict = {}  # node id -> (depends on a body Parameter, on an enclosing Parameter)
    stack = [(r, False) for r in results]
    while stack:  # iterative post-order: unrolled graphs are deep
        node, ready = stack.pop()
        nid = node.get_instance_id()
        if nid in deps:
            continue
        inputs = [v.get_node() for v in node.input_values()]
        if not ready:
            stack.append((node, True))
            stack.extend((n, False) for n in inputs if n.get_instance_id() not in deps)
            continue
        nodes[nid] = node
        sub = [deps[n.get_instance_id()] for n in inputs]
        outer_param = node.get_type_name() == "Parameter" and nid not in own
        deps[nid] = (nid in own or any(d[0] for d in sub), outer_param or any(d[1] for d in sub))
    invariants: list = []
    made: dict = {}

    def inside(output):
        body_dep, outer_dep = deps[output.get_node().get_instance_id()]
        if body_dep or not outer_dep:
            return output  # a body value, or a constant one
        key = (output.get_node().get_instance_id(), output.get_index())
        if key not in made:
            made[key] = ops.parameter(output.get_partial_shape(), output.get_element_type())
            invariants.append((made[key], output))
        return made[key].output(0)

    for nid, node in nodes.items():
        if deps[nid][0]:
            for inp in node.inputs():
                source = inp.get_source_output()
                new = inside(source)
                if new is not source:
                    inp.replace_source_output(new)
    return [inside(r.output(0)) for r in results], invariants
