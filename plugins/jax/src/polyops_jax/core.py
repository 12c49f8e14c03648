"""JAX runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import operator
from functools import partial

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from polyops import EagerOnlyError
from polyops._dtypes import HALF_FLOATS
from polyops.plugin import Runtime, error_chain, nonempty

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
_NP = {name: np.dtype(name) for name in _NAMES}
_NP["bfloat16"] = np.dtype(ml_dtypes.bfloat16)

# canonical name -> the numpy dtype object jax arrays of that name carry.  With
# x64 disabled (the default) jax cannot hold 64-bit values: core's promotion
# already demotes 64-bit results, so only an explicit cast / convert_to_tensor
# to "int64"/"float64"/... asks for one, and it gets the 32-bit dtype instead
# (what jax itself would do, minus jax's UserWarning about truncation).
_X64 = bool(jax.config.jax_enable_x64)
_DEMOTE = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
JAX_DTYPES = {
    name: (nd if _X64 else _NP[_DEMOTE.get(name, name)]) for name, nd in _NP.items()
}
HALF_JAX = tuple(JAX_DTYPES[d] for d in HALF_FLOATS)  # float16, bfloat16


def _set_x64(enabled: bool) -> None:
    """polyops's 64-bit mode switches jax's (a user's own ``jax_enable_x64`` stays on)."""
    on = enabled or _X64
    jax.config.update("jax_enable_x64", on)
    for name, nd in _NP.items():  # in place: the kernels' modules hold this dict
        JAX_DTYPES[name] = nd if on else _NP[_DEMOTE.get(name, name)]

from ._compat import ARRAY_IMPL as _ARRAY_IMPL  # noqa: E402

# (by name, so that loading the backend starts no XLA backend: `_compat.ARRAY_IMPL`;
# else a transfer, not jnp.zeros: that compiles a computation, ~90 ms of the cold start)
_ArrayImpl = _ARRAY_IMPL or type(jax.device_put(np.zeros((), np.float32)))
_Tracer = jax.core.Tracer
_NATIVE = (_ArrayImpl, jax.Array, _Tracer)
_SCALARS = frozenset((bool, int, float, complex))
# what x.astype does, minus its checks; jitted: an eager convert_element_type binds the
# primitive through jax's Python dispatch (~30us), the compiled call is one C++ dispatch
# (~10us), and every cast core makes before a kernel (logical_and of floats...) goes here
_convert = jax.jit(jax.lax.convert_element_type, static_argnums=1)


def _complex_to_real(x, target):
    # jax (like numpy) warns when casting complex -> real; drop the imaginary part first.
    if x.dtype.kind == "c" and target.kind != "c":
        return jnp.real(x)
    return x


# Python scalar -> jax array, by (value, type, dtype).  Making a device array from a
# scalar costs ~30us, which would dominate ``add(x, 2.0)``; jax arrays are immutable,
# so the eager path can reuse them.  Only concrete arrays are kept (under jit the
# conversion gives a tracer), never NaN (nan != nan) nor complex zeros; a float zero's key
# carries its sign (-0.0 == 0.0).
_SCALAR_CACHE: dict = {}
_SCALAR_CACHE_SIZE = 512


def _scalar(x, jd):
    key = (x, type(x), jd) if x or type(x) is not float else (x, float, jd, str(x))
    try:
        return _SCALAR_CACHE[key]
    except KeyError:
        pass
    out = jnp.asarray(x, dtype=jd)
    if type(out) is _ArrayImpl and x == x and (x != 0 or type(x) is not complex):
        if len(_SCALAR_CACHE) >= _SCALAR_CACHE_SIZE:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[key] = out
    return out


_FLOATS = frozenset(_NP[n] for n in ("bfloat16", "float16", "float32", "float64"))
_INT_MIN = np.int32(-(2**31))
_UINT32 = _NP["uint32"]
_INT64 = _NP["int64"]
_INT64_MIN = np.int64(-(2**63))
# targets whose float -> int casts follow x86-64 (NumPy, torch, tensorflow, openvino there)
_X86_TARGETS = frozenset(_NP[n] for n in ("int8", "int16", "int32", "uint8", "uint16", "uint32"))


@partial(jax.jit, static_argnums=1)
def _float_to_int(x, jd):
    """float -> int as the x86-64 conversion NumPy and the other backends use: truncate
    into int32, where NaN, +-inf and values outside int32 give INT_MIN ("integer
    indefinite"), then wrap to the target width (XLA saturates instead).  uint32 keeps
    XLA's exact conversion for [0, 2**32) and wraps negatives through int32."""
    bad = jnp.isnan(x) | (x >= 2.0**31) | (x < -(2.0**31))
    i = jnp.where(bad, _INT_MIN, _convert(x, jnp.int32))
    if jd == _UINT32:
        return jnp.where(x < 0, _convert(i, jd), _convert(x, jd))
    return _convert(i, jd)


@jax.jit
def _float_to_int64(x):
    """float -> int64 as x86-64 NumPy: NaN and values outside int64 give INT64_MIN."""
    bad = jnp.isnan(x) | (x >= 2.0**63) | (x < -(2.0**63))
    return jnp.where(bad, _INT64_MIN, _convert(x, jnp.int64))


def _cast(x, jd):
    if x.dtype in _FLOATS:
        if jd in _X86_TARGETS:
            return _float_to_int(x, jd)
        if jd == _INT64:  # (64-bit mode)
            return _float_to_int64(x)
    return _convert(_complex_to_real(x, jd), jd)


def convert_to_tensor(x, dtype):
    jd = JAX_DTYPES[dtype]
    if isinstance(x, _NATIVE):
        if x.dtype == jd:
            return x
        return _cast(x, jd)
    if type(x) in _SCALARS:
        return _scalar(x, jd)
    if not isinstance(x, np.ndarray):
        try:
            x = np.asarray(x)
        except (TypeError, RuntimeError, ValueError):
            # e.g. a torch bfloat16 tensor, which numpy cannot view: go through dlpack.
            return convert_to_tensor(jnp.from_dlpack(x), dtype)
    if x.dtype != jd:
        if x.dtype.kind == "c" and jd.kind != "c":
            x = x.real
        x = x.astype(jd)
    return _to_device(x)


# numpy -> jax array: a jitted identity copies the array in in jax's C++ dispatch (~9us),
# where jnp.asarray walks its Python constructor (~25-35us: a take's numpy indices)
_to_device = jax.jit(lambda x: x)


def convert_to_numpy(x):
    return np.asarray(x)


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``jax.jvp``."""
    return jax.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)


from ._compat import AD_TRACERS as _AD_TRACERS  # noqa: E402


def _value_and_grad(fun, primals):
    """Reverse-mode autodiff (`polyops.value_and_grad`) through ``jax.value_and_grad``."""
    argnums = tuple(range(len(primals)))
    return jax.value_and_grad(fun, argnums=argnums, has_aux=True)(*primals)


def _on_tape(x) -> bool:
    """Whether ``x`` is being differentiated (a JVP or linearize tracer of jax.grad, jvp)."""
    return isinstance(x, _AD_TRACERS)


def _custom_gradient(f):
    """`polyops.ops.custom_gradient` through ``jax.custom_gradient``: the grad function
    gets the output's cotangent and returns one gradient per argument."""

    @jax.custom_gradient
    def wrapped(*args):
        out, grad_fn = f(*args)

        def vjp(upstream):
            grads = grad_fn(upstream)
            return tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)

        return out, vjp

    return wrapped


def _device_scope(name):
    kind, _, index = name.partition(":")
    platform = {"cuda": "gpu"}.get(kind, kind)
    return jax.default_device(jax.devices(platform)[int(index or 0)])


def _devices():
    return [f"{'cuda' if d.platform == 'gpu' else d.platform}:{d.id}" for d in jax.devices()]


def _jit(fn):
    """``jax.jit``; a trace that needs concrete values (``bool``/``float`` of a tracer, a
    data-dependent shape such as ``unique``'s, a host computation) raises `EagerOnlyError`,
    on which core runs the function eagerly (its one policy, see polyops._transforms)."""

    def traced(*args):  # (the errors arise while tracing: jax.jit itself is what runs later)
        try:
            return fn(*args)
        except Exception as exc:
            if not _needs_values(exc):
                raise
            raise EagerOnlyError(f"the trace needs tensor values ({_reason(exc)})") from exc

    return jax.jit(traced)


def _needs_values(exc) -> bool:
    """Whether jax's error (or one it caused: kernels wrap theirs in KernelError) is a
    tracer asked for its value."""
    return any(isinstance(e, _CONCRETE_ERRORS) for e in error_chain(exc))


def _reason(exc) -> str:
    """The error's first line: KernelError names the op; jax's own messages run long."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]


RUNTIME = Runtime(
    name="jax",
    version=jax.__version__,
    tensor_types=_NATIVE,
    dtypes={nd: name for name, nd in _NP.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
    value_and_grad=_value_and_grad,
    custom_gradient=_custom_gradient,
    on_tape=_on_tape,
    jit=_jit,
    jit_signature=operator.attrgetter("aval"),  # (shape, dtype, weak type: one cached read)
    jit_retraces=True,  # (jax.jit keys its signatures in C++)
    device_scope=_device_scope,
    devices=_devices,
    set_x64=_set_x64,
    distribution="polyops_jax._distribution",  # imported on first use of polyops.distribution
    sparse="polyops_jax._sparse",  # BCOO (docs/sparse.md)
)


def cast(x, dtype):
    # "float64"/"int64"/... give the 32-bit dtype while jax runs with x64 disabled.
    jd = JAX_DTYPES[dtype]
    if x.dtype == jd:
        return x
    return _cast(x, jd)


stop_gradient = jax.lax.stop_gradient


# ----- control flow --------------------------------------------------------------------
# Under jax.jit / polyops.jit and vmap loops go through jax.lax and stay rolled.  Where
# values are concrete (eager, or polyops.grad eagerly) scan/map/while_loop/fori_loop run
# core's references, Python loops: an eager lax loop traces and compiles its body on every
# call (a 100-step scan: ~140ms, where the reference loop takes ~50ms), caching that per
# callable would bake in the values of the Variables it reads, and lax.while_loop cannot
# be reverse-differentiated while the reference can.  Checks mirror the references' (same
# error types).

# whether values are concrete here: no transformation, or only autodiff over eager values
from ._compat import concrete as _concrete  # noqa: E402


def _reference(name):
    from polyops.plugin import reference

    return reference(name)


def _is_none(x):
    return x is None


def _tmap(fn, tree):
    return jax.tree_util.tree_map(fn, tree, is_leaf=_is_none)


def _tensors(tree):
    """Every leaf as a jax array (Python int -> int32, float -> floatx), None kept.  Weak
    types (a Python scalar traced by jax.jit) become strong: lax requires the carry a
    body returns to match the one it got, weak type included."""
    from polyops.ops import convert_to_tensor as to_tensor

    def leaf(x):
        if x is None:
            return None
        x = to_tensor(x)
        return _convert(x, x.dtype) if x.weak_type else x

    return _tmap(leaf, tree)


def _signature(tree):
    leaves, td = jax.tree_util.tree_flatten(tree, is_leaf=_is_none)
    return td, [None if x is None else (tuple(x.shape), str(x.dtype)) for x in leaves]


def _check_same(op, what, expected, got):
    """TypeError unless ``got`` has the structure, shapes and dtypes of ``expected``."""
    (etd, especs), (gtd, gspecs) = _signature(expected), _signature(got)
    if etd != gtd:
        raise TypeError(f"{op}: {what} must have the structure {etd}, got {gtd}")
    for e, g in zip(especs, gspecs):
        if e != g:
            raise TypeError(f"{op}: {what}: expected (shape, dtype) {e}, got {g}")


def _leading(op, xs, length=None):
    n = None
    for x in jax.tree_util.tree_leaves(xs):
        if not x.shape:
            raise ValueError(f"{op}: expected tensors with a leading axis to loop over, got a scalar")
        if n is not None and n != x.shape[0]:
            raise ValueError(f"{op}: leading dims differ: {n} and {x.shape[0]}")
        n = x.shape[0]
    if length is not None and n is not None and n != length:
        raise ValueError(f"{op}: length={length} but the inputs have leading dim {n}")
    return n if length is None else length


def _scalar_pred(op, p):
    """A traced predicate as a bool scalar (nonzero is true, as in the references)."""
    p = _tensors(p)
    if p is None or p.size != 1:
        raise ValueError(f"{op}: expected a scalar predicate, got shape "
                         f"{None if p is None else tuple(p.shape)}")
    p = jnp.reshape(p, ())
    return p if p.dtype == bool else p != 0


def _callable(op, name, f):
    if not callable(f):
        raise TypeError(f"{op}: expected a callable {name}, got {type(f).__name__}")


# jax turns its tracer-to-value errors (a body that needs concrete values) into these.
# polyops raises EagerOnlyError (a TypeError) for a host computation under a trace.
_CONCRETE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                    jax.errors.TracerIntegerConversionError, EagerOnlyError)


def map(f, xs):
    if _concrete(xs):
        return _reference("map")(f, xs)
    _callable("map", "f", f)
    xs = _tensors(xs)
    _leading("map", xs)
    return jax.lax.map(lambda x: _tensors(f(x)), xs)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    if _concrete(init, xs):
        return _reference("scan")(f, init, xs, length, reverse, unroll)
    _callable("scan", "f", f)
    if xs is None and length is None:
        raise ValueError("scan: expected xs or length, got neither")
    xs = _tensors(xs)
    carry = _tensors(init)
    n = _leading("scan", xs, length)

    def body(c, x):
        out = f(c, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"scan: f must return a pair (carry, y), got {type(out).__name__}")
        new = _tensors(out[0])
        _check_same("scan", "the carry f returns", c, new)
        return new, _tensors(out[1])

    return jax.lax.scan(body, carry, xs, length=n, reverse=reverse, unroll=unroll)


# eagerly, up to this many rows the reference's loop (n - 1 calls of f, ~16us a row) beats
# lax's O(log n) levels, whose vmapped calls of f cost ~250us each (measured: 5 rows 0.1 ms
# against 1.4 ms, 256 rows 4.3 ms against 5.5 ms, 512 rows 8.5 ms against 6.4 ms)
_SCAN_LOOP_MAX = 256


def associative_scan(f, elems, reverse=False, axis=0):
    # Native eagerly too past _SCAN_LOOP_MAX rows: O(log n) calls of f on whole slices,
    # nothing compiled.  f is vmapped so that it sees single rows, as in the reference (lax
    # passes batches).
    _callable("associative_scan", "f", f)
    elems = _tensors(elems)
    leaves = jax.tree_util.tree_leaves(elems)
    if not leaves:
        return elems
    first = leaves[0]
    if (first.ndim and -first.ndim <= axis < first.ndim and first.shape[axis] <= _SCAN_LOOP_MAX
            and _concrete(elems)):
        return _reference("associative_scan")(f, elems, reverse, axis)
    moved = _tmap(lambda t: jnp.moveaxis(t, axis, 0), elems)
    _leading("associative_scan", moved)
    row_f = jax.vmap(lambda a, b: _tensors(f(a, b)))
    # lax's reverse scans the flipped elements with fn(later, earlier); the reference
    # computes f(elems[i], f(elems[i + 1], ...)): swap the operands back.
    fn = (lambda a, b: row_f(b, a)) if reverse else row_f
    try:
        out = jax.lax.associative_scan(fn, moved, reverse=reverse, axis=0)
    except _CONCRETE_ERRORS:
        return _reference("associative_scan")(f, elems, reverse, axis)
    return _tmap(lambda t: jnp.moveaxis(t, 0, axis), out)


def _branch(op, fn, outputs, k, what):
    """``fn`` with its outputs as tensors, checked against the first branch traced."""

    def call(*args):
        out = _tensors(fn(*args))
        if outputs:
            _check_same(op, what.format(k), outputs[0], out)
        else:
            outputs.append(out)
        return out

    return call


def switch(index, branches, *operands):
    if not branches:
        raise ValueError("switch: expected at least one branch")
    for b in branches:
        _callable("switch", "branch", b)
    if _concrete(index) or not isinstance(index, _Tracer):
        return _reference("switch")(index, branches, *operands)
    index = jnp.reshape(index, ())
    index = index.astype(jnp.int32) if index.dtype != jnp.int32 else index  # lax clamps it
    outs: list = []
    what = "branch {}'s output (compared with branch 0's)"
    return jax.lax.switch(index, [_branch("switch", b, outs, k, what) for k, b in
                                  enumerate(branches)], *_tensors(operands))


def cond(pred, true_fn, false_fn):
    _callable("cond", "true_fn", true_fn)
    _callable("cond", "false_fn", false_fn)
    if _concrete(pred) or not isinstance(pred, _Tracer):  # a known predicate
        return _reference("cond")(pred, true_fn, false_fn)
    outs: list = []
    what = "branch {}'s output (compared with branch 0's)"
    return jax.lax.cond(_scalar_pred("cond", pred), _branch("cond", true_fn, outs, 0, what),
                        _branch("cond", false_fn, outs, 1, what))


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    if _concrete(loop_vars):
        return _reference("while_loop")(cond, body, loop_vars, maximum_iterations)
    _callable("while_loop", "cond", cond)
    _callable("while_loop", "body", body)
    # Keras's containers: a tuple/list of loop vars is passed as separate arguments and
    # comes back as the same container type; anything else is one value.
    is_seq = isinstance(loop_vars, (tuple, list))
    values = _tensors(tuple(loop_vars) if is_seq else (loop_vars,))

    def test(vals):
        return _scalar_pred("while_loop", cond(*vals))

    def step(vals):
        out = body(*vals)
        new = _tensors(tuple(out) if is_seq and isinstance(out, (tuple, list)) else (out,))
        _check_same("while_loop", "the loop_vars body returns", vals, new)
        return new

    if any(_on_tape(v) for v in jax.tree_util.tree_leaves(values)):
        # lax.while_loop has no reverse-mode derivative; a scan of a bounded loop has one
        if not isinstance(maximum_iterations, int):
            from polyops import NotDifferentiableError

            raise NotDifferentiableError(
                "while_loop: expected maximum_iterations (a Python int) to differentiate "
                "a traced while_loop on the jax backend, got None; jax cannot "
                "reverse-differentiate lax.while_loop (eager polyops.grad can)")
        out, _ = jax.lax.scan(lambda v, _: (jax.lax.cond(test(v), step, lambda v: v, v), None),
                              values, None, length=maximum_iterations)
    elif maximum_iterations is None:
        out = jax.lax.while_loop(test, step, values)
    else:  # a counter in the carry
        limit = jnp.asarray(maximum_iterations, jnp.int32)
        _, out = jax.lax.while_loop(lambda s: (s[0] < limit) & test(s[1]),
                                    lambda s: (s[0] + 1, step(s[1])), (jnp.int32(0), values))
    if isinstance(loop_vars, list):
        return list(out)
    return tuple(out) if is_seq else out[0]


def _bound(name, v):
    """A loop bound: a Python int as is, a tensor as an int32 scalar."""
    if isinstance(v, int):
        return v
    v = _tensors(v)
    if v.size != 1 or v.dtype.kind not in "iu":
        raise TypeError(f"fori_loop: expected an integer {name}, got {v.dtype} of shape "
                        f"{tuple(v.shape)}")
    return jnp.reshape(v, ()).astype(jnp.int32)


def fori_loop(lower, upper, body_fun, init_val):
    if _concrete(lower, upper, init_val):
        return _reference("fori_loop")(lower, upper, body_fun, init_val)
    _callable("fori_loop", "body_fun", body_fun)
    lo, hi = _bound("lower", lower), _bound("upper", upper)

    def step(i, val):
        # with Python bounds, lax's counter is weakly typed, as the Python int i of the
        # eager loop: jnp arithmetic on it keeps the other operand's dtype
        new = _tensors(body_fun(i, val))
        _check_same("fori_loop", "the value body_fun returns", val, new)
        return new

    try:
        return jax.lax.fori_loop(lo, hi, step, _tensors(init_val))
    except TypeError as exc:
        return _weak_counter_loop(lower, upper, body_fun, init_val, lo, hi, exc)


def _weak_counter_loop(lower, upper, body_fun, init_val, lo, hi, exc):
    """A body that fails with a traced counter: polyops ops promote a traced int32
    counter as a strong int32 (``int8 carry + i`` gives int32) where the eager loop's
    Python int is weak.  With static bounds the loop unrolls with Python ints, exactly
    as eagerly (a genuine error of the body is raised again from there); with tensor
    bounds the counter's values are needed: polyops.jit runs the function eagerly."""
    if isinstance(lo, int) and isinstance(hi, int):
        return _reference("fori_loop")(lower, upper, body_fun, init_val)
    raise EagerOnlyError(f"fori_loop: body_fun needs its counter i as a Python int (it "
                         f"failed on a traced int32 i, the bounds being tensors): {exc}") from exc


def vectorized_map(function, elements):
    _callable("vectorized_map", "function", function)
    elements = _tensors(elements)
    _leading("vectorized_map", elements)
    try:
        return jax.vmap(lambda e: _tensors(function(e)))(elements)
    except _CONCRETE_ERRORS:  # a function that needs concrete values: the row-by-row loop
        return _reference("vectorized_map")(function, elements)


# ----- scatter / slice -------------------------------------------------------------------


def _rows(indices, dims):
    """(columns, ok): the index columns of ``indices`` (N, k) into ``dims``, negatives
    wrapped once, and which rows are in range.  Rows out of range get ``dims`` itself, a
    position ``mode="drop"`` drops (jax would wrap a still-negative index a second time)."""
    d = jnp.asarray(dims, indices.dtype)
    idx = jnp.where(indices < 0, indices + d, indices)
    ok = jnp.all((idx >= 0) & (idx < d), axis=1)
    idx = jnp.where(ok[:, None], idx, d)
    return tuple(idx[:, j] for j in range(len(dims))), ok


def scatter(indices, values, shape):
    shape = tuple(shape)
    k = indices.shape[-1]
    if k == 0:  # rows that index nothing: the reference's sum
        return _reference("scatter")(indices, values, shape)
    idx = jnp.reshape(indices, (-1, k))
    vals = jnp.reshape(values, idx.shape[:1] + shape[k:])
    cols, _ = _rows(idx, shape[:k])
    if values.dtype == bool:  # logical or of the duplicates
        return jnp.zeros(shape, jnp.int32).at[cols].max(vals.astype(jnp.int32), mode="drop") != 0
    return jnp.zeros(shape, values.dtype).at[cols].add(vals, mode="drop")


# a gather from an inputs dim of size 0 fails under a trace (core builds those empty results)
@nonempty
def scatter_update(inputs, indices, updates, reduction=None):
    target = tuple(inputs.shape)
    k = indices.shape[-1]
    if k == 0:
        return _reference("scatter_update")(inputs, indices, updates, reduction)
    n = indices.shape[0]
    cols, ok = _rows(indices, target[:k])
    if reduction is None:
        # .set leaves the order of duplicates to XLA: keep only the last row of each
        # position (the largest row number there) and drop the others.
        lin = jnp.ravel_multi_index(cols, target[:k], mode="clip")
        rows = jnp.arange(n, dtype=jnp.int32)
        last = jnp.full((int(np.prod(target[:k])),), -1, jnp.int32).at[lin].max(
            jnp.where(ok, rows, -1))
        keep = ok & (last[lin] == rows)
        cols = tuple(jnp.where(keep, c, d) for c, d in zip(cols, target))
        return inputs.at[cols].set(updates, mode="drop")
    if reduction == "mul" and (_on_tape(inputs) or _on_tape(updates)):
        # jax's scatter-multiply differentiates only with unique indices: multiply by
        # each position's product of updates, a differentiable segmented product
        from .math import _product_by_scan

        lin = jnp.where(ok, jnp.ravel_multi_index(cols, target[:k], mode="clip"), -1)
        size = int(np.prod(target[:k]))
        u = jnp.reshape(updates, (n,) + target[k:]).astype(inputs.dtype)
        return inputs * jnp.reshape(_product_by_scan(u, lin, size), target)
    is_bool = inputs.dtype == bool
    x = inputs.astype(jnp.int32) if is_bool else inputs
    u = updates.astype(jnp.int32) if is_bool else updates
    at = x.at[cols]
    out = {"add": at.add, "max": at.max, "min": at.min, "mul": at.multiply}[reduction](
        u, mode="drop")
    return out != 0 if is_bool else out


def _starts(start_indices):
    """Python ints for ints and concrete arrays, else int32 scalar tracers (their count
    checked by the op's prepare)."""
    if isinstance(start_indices, _Tracer):
        starts = [start_indices[i] for i in range(start_indices.shape[0])]
    elif isinstance(start_indices, (list, tuple)):
        starts = list(start_indices)
    else:
        starts = list(np.asarray(start_indices).reshape(-1))
    return [s.astype(jnp.int32) if isinstance(s, _Tracer) else int(s) for s in starts]


def slice(inputs, start_indices, shape):
    starts = _starts(start_indices)
    sizes = []
    for s, d, n in zip(starts, inputs.shape, shape):
        if n == -1:
            if isinstance(s, _Tracer):
                raise ValueError(f"slice: a size of -1 needs static start indices, got {s}")
            n = d - min(max(s, 0), d)
        sizes.append(n)
    if all(isinstance(s, int) for s in starts):  # clamp here: a static slice
        lo = [min(max(s, 0), d - n) for s, d, n in zip(starts, inputs.shape, sizes)]
        return jax.lax.slice(inputs, lo, [a + n for a, n in zip(lo, sizes)])
    # XLA clamps the starts as the contract says; jax would first wrap negative ones
    return jax.lax.dynamic_slice(inputs, starts, sizes, allow_negative_indices=False)


def slice_update(inputs, start_indices, updates):
    starts = _starts(start_indices)
    # static starts clamp here (lax rejects negative ones), traced ones in XLA
    starts = [s if isinstance(s, _Tracer) else min(max(s, 0), d - u)
              for s, d, u in zip(starts, inputs.shape, updates.shape)]
    return jax.lax.dynamic_update_slice(inputs, updates, starts, allow_negative_indices=False)
