"""Control flow (``keras.ops.core``): map, scan, associative_scan, switch, cond, while_loop,
fori_loop, vectorized_map.

These ops take Python callables and nested structures (lists, tuples, dicts) of tensors.
Their rules trace the callables on SymbolicTensors to infer the output specs.  Their
references are Python loops and branches: they run eagerly on every backend and, under a
tracer, unroll (a loop over a static length) or need a concrete value (a tensor
predicate).  Native kernels (``jax.lax.scan``, ``tf.while_loop``...) take the same
arguments and keep loops rolled under their framework's compiler.

Kernel contract: a kernel gets the public arguments positionally, as given (callables,
structures; tensors are not converted); it returns what the reference returns: the
structure the callables produce, with stacked outputs on a new leading axis.
"""

from __future__ import annotations

from ... import _tree
from ..._op import defop, infer_dtype
from ..._symbolic import SymbolicTensor
from .._base import finish as _finish


def _np():
    from ... import ops

    return ops


def _spec(x):
    """The SymbolicTensor of a leaf (tensors, arrays and Python scalars)."""
    if isinstance(x, SymbolicTensor):
        return x
    if x is None:
        return None
    from ..._op import spec_of

    s = spec_of(x)
    return SymbolicTensor((), infer_dtype(x)) if not isinstance(s, SymbolicTensor) else s


def _specs(tree):
    return _tree.map_structure(_spec, tree)


def _fresh(tree):
    """New SymbolicTensors with the specs of ``tree``'s leaves (outputs of this op)."""
    return _tree.map_structure(
        lambda t: None if t is None else SymbolicTensor(_spec(t).shape, _spec(t).dtype), tree)


def _tensors(tree):
    """Every leaf as a tensor of the current backend (None stays None)."""
    convert = _np().convert_to_tensor
    return _tree.map_structure(lambda x: None if x is None else convert(x), tree)


def _signature(tree):
    leaves, td = _tree.flatten(tree)
    return td, [None if x is None else (tuple(_spec(x).shape), _spec(x).dtype) for x in leaves]


def _check_same(op, what, expected, got):
    """Raise TypeError unless structures, shapes (None matches anything) and dtypes agree."""
    etd, especs = _signature(expected)
    gtd, gspecs = _signature(got)
    if etd != gtd:
        raise TypeError(f"{op}: {what} must have the structure {_tree.describe(etd)}, "
                        f"got {_tree.describe(gtd)}")
    for e, g in zip(especs, gspecs):
        if (e is None) != (g is None):
            raise TypeError(f"{op}: {what}: expected {e}, got {g}")
        if e is None:
            continue
        same_shape = len(e[0]) == len(g[0]) and all(
            a is None or b is None or a == b for a, b in zip(e[0], g[0]))
        if not same_shape or e[1] != g[1]:
            raise TypeError(f"{op}: {what}: expected shape {e[0]} dtype {e[1]}, "
                            f"got shape {g[0]} dtype {g[1]}")


def _leading(op, xs, length=None):
    """The common leading dim of the leaves of ``xs`` (None when unknown)."""
    n = None
    for x in _tree.leaves(xs):
        if x is None:
            continue
        shape = _spec(x).shape
        if not shape:
            raise ValueError(f"{op}: expected tensors with a leading axis to loop over, got a scalar")
        if shape[0] is not None:
            if n is not None and n != shape[0]:
                raise ValueError(f"{op}: leading dims differ: {n} and {shape[0]}")
            n = shape[0]
    if length is not None:
        if n is not None and n != length:
            raise ValueError(f"{op}: length={length} but the inputs have leading dim {n}")
        n = length
    return n


def _row(xs, i):
    get = _np().get_item  # (the op: a backend's own indexing may want every axis named)
    return _tree.map_structure(lambda t: None if t is None else get(t, i), xs)


def _row_spec(xs):
    return _tree.map_structure(
        lambda t: None if t is None else SymbolicTensor(_spec(t).shape[1:], _spec(t).dtype), xs)


def _stack(ys, n, spec_tree, op):
    """Stack a list of per-step structures on a new leading axis (zeros when n == 0)."""
    ops = _np()
    if n == 0:
        return _tree.map_structure(
            lambda s: None if s is None else ops.zeros((0,) + tuple(
                0 if d is None else d for d in s.shape), s.dtype), spec_tree)
    first = ys[0]
    return _tree.map_structure(
        lambda *ts: None if ts[0] is None else ops.stack(list(ts), axis=0), first, *ys[1:])


def _stacked(n, t):
    """The spec of ``n`` steps of ``t`` stacked on a new leading axis."""
    return None if t is None else SymbolicTensor((n,) + _spec(t).shape, _spec(t).dtype)


def _stacked_rule(op, name, f, xs):
    """The rule of map and vectorized_map: ``f`` traced on one row's specs, its outputs
    stacked along a new leading axis of ``xs``'s length."""
    _callable(op, name, f)
    n = _leading(op, xs)
    return _fresh(_tree.map_structure(lambda t: _stacked(n, t), f(_row_spec(_specs(xs)))))


def _callable(op, name, f):
    if not callable(f):
        raise TypeError(f"{op}: expected a callable {name}, got {type(f).__name__}")


# ----- map -----------------------------------------------------------------------------


@defop("core", tensors=(), promote=None, tree=True)
def map(f, xs):
    """Apply ``f`` to each slice of ``xs`` along the leading axis and stack the results.

    ``xs`` may be a nested structure of tensors with the same leading dim; ``f`` gets the
    same structure of slices.  Keras: ``keras.ops.map``.  JAX: ``jax.lax.map``.

    Example:
        >>> polyops.ops.map(lambda x: x * 2, polyops.ops.arange(3))
        array([0, 2, 4], dtype=int32)
    """
    return _stacked_rule("map", "f", f, xs)


@map.reference
def _map_ref(f, xs):
    xs = _tensors(xs)
    n = _leading("map", xs)
    ys = [f(_row(xs, i)) for i in range(n)]
    spec = None if n else map(f, _specs(xs))
    return _stack(ys, n, _tree.map_structure(lambda t: SymbolicTensor(t.shape[1:], t.dtype), spec)
                  if spec is not None else None, "map")


# ----- scan ----------------------------------------------------------------------------


def _scan_rule(f, init, xs, length, reverse, unroll):
    _callable("scan", "f", f)
    if xs is None and length is None:
        raise ValueError("scan: expected xs or length, got neither")
    n = _leading("scan", xs, length)
    carry = _specs(init)
    out = f(carry, None if xs is None else _row_spec(_specs(xs)))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"scan: f must return a pair (carry, y), got {type(out).__name__}")
    new_carry, y = out
    _check_same("scan", "the carry f returns", carry, new_carry)
    return carry, _tree.map_structure(lambda t: _stacked(n, t), y)


@defop("core", tensors=(), promote=None, tree=True)
def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; return the final carry
    and the ``y``s stacked.

    ``init`` and the carry may be nested structures; the carry ``f`` returns must keep the
    structure, shapes and dtypes of ``init`` (TypeError otherwise).  ``xs=None`` loops
    ``length`` times with ``x=None``; ``reverse`` loops from the end (the ``y``s keep their
    positions).  ``unroll`` is a hint for compilers.  Keras: ``keras.ops.scan``; JAX:
    ``jax.lax.scan``.

    Example:
        >>> def step(c, x):
        ...     return c + x, c
        >>> polyops.ops.scan(step, 0.0, polyops.ops.array([1.0, 2.0, 3.0]))
        (np.float32(6.0), array([0., 1., 3.], dtype=float32))
    """
    carry, ys = _scan_rule(f, init, xs, length, reverse, unroll)
    return _fresh(carry), _fresh(ys)


@scan.reference
def _scan_ref(f, init, xs=None, length=None, reverse=False, unroll=1):
    if xs is None and length is None:
        raise ValueError("scan: expected xs or length, got neither")
    xs = _tensors(xs)
    carry = _tensors(init)
    n = _leading("scan", xs, length)
    ys = []
    expected = _signature(carry)
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        out = f(carry, None if xs is None else _row(xs, i))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"scan: f must return a pair (carry, y), got {type(out).__name__}")
        new = _tensors(out[0])
        if _signature(new) != expected:
            _check_same("scan", "the carry f returns", carry, new)
        carry = new
        ys.append(out[1])
    if reverse:
        ys.reverse()
    spec = None
    if n == 0:
        spec = _tree.map_structure(lambda t: None if t is None else SymbolicTensor(
            t.shape[1:], t.dtype), _scan_rule(f, _specs(init), _specs(xs), length, reverse, unroll)[1])
    return carry, _stack(ys, n, spec, "scan")


# ----- associative_scan --------------------------------------------------------------


def _associative_scan_prepare(f, elems, reverse=False, axis=0):
    from ..._shapes import canonicalize_axis

    for t in _tree.leaves(elems):
        if t is not None:
            canonicalize_axis(axis, len(_spec(t).shape), "associative_scan")
    return f, elems, reverse, axis


@defop("core", tensors=(), promote=None, tree=True, prepare=_associative_scan_prepare)
def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive scan of an associative binary ``f`` along ``axis``: output ``i`` is
    ``f(... f(elems[0], elems[1]) ..., elems[i])`` (from the end with ``reverse``).

    ``elems`` may be a nested structure of tensors of the same length along ``axis``; ``f``
    takes two such structures of slices and returns one.  Keras:
    ``keras.ops.associative_scan``; JAX: ``jax.lax.associative_scan``.

    Example:
        >>> polyops.ops.associative_scan(lambda a, b: a + b, polyops.ops.arange(4))
        array([0, 1, 3, 6], dtype=int32)
    """
    _callable("associative_scan", "f", f)
    _associative_scan_prepare(f, elems, reverse, axis)
    return _fresh(_specs(elems))


@associative_scan.reference
def _associative_scan_ref(f, elems, reverse=False, axis=0):
    ops = _np()
    elems = _tensors(elems)
    leaves = _tree.leaves(elems)
    if not leaves:
        return elems
    moved = _tree.map_structure(lambda t: ops.moveaxis(t, axis, 0), elems)
    n = _leading("associative_scan", moved)
    order = range(n - 1, -1, -1) if reverse else range(n)
    out = []
    acc = None
    for i in order:
        x = _row(moved, i)
        acc = x if acc is None else (f(x, acc) if reverse else f(acc, x))
        out.append(acc)
    if reverse:
        out.reverse()
    spec = _tree.map_structure(lambda t: SymbolicTensor(tuple(t.shape)[1:], ops.dtype(t)), moved)
    stacked = _stack(out, n, spec, "associative_scan")
    return _tree.map_structure(lambda t: ops.moveaxis(t, 0, axis), stacked)


# ----- switch / cond ------------------------------------------------------------------------


def _branch_specs(op, branches, call):
    outs = [call(b) for b in branches]
    for k, o in enumerate(outs[1:], 1):
        _check_same(op, f"branch {k}'s output (compared with branch 0's)", outs[0], o)
    return _fresh(outs[0])


def _switch_prepare(index, branches, *operands):
    _scalar_arg("switch", "an integer index", index)
    return (index, branches, *operands)


def _scalar_arg(op, what, value):
    """A predicate or index is one tensor or number, not None or a structure."""
    if value is None or isinstance(value, (list, tuple, dict, str)):
        raise TypeError(f"{op}: expected {what}, got {type(value).__name__} {value!r:.60}")


@defop("core", tensors=(), promote=None, tree=True, prepare=_switch_prepare)
def switch(index, branches, *operands):
    """Call ``branches[index](*operands)``; ``index`` is clamped to the valid range.

    Every branch must return the same structure, shapes and dtypes.  Keras:
    ``keras.ops.switch``; JAX: ``jax.lax.switch``.

    Example:
        >>> polyops.ops.switch(1, [lambda x: x + 1, lambda x: x * 10], 2.0)
        20.0
    """
    _switch_prepare(index, branches)
    if not branches:
        raise ValueError("switch: expected at least one branch")
    for b in branches:
        _callable("switch", "branch", b)
    specs = _specs(operands)
    return _branch_specs("switch", branches, lambda b: b(*specs))


@switch.reference
def _switch_ref(index, branches, *operands):
    if not branches:
        raise ValueError("switch: expected at least one branch")
    i = int(_np().convert_to_numpy(index)) if not isinstance(index, int) else index
    return branches[min(max(i, 0), len(branches) - 1)](*operands)


def _cond_prepare(pred, true_fn, false_fn):
    _scalar_arg("cond", "a scalar predicate", pred)
    return pred, true_fn, false_fn


@defop("core", tensors=(), promote=None, tree=True, prepare=_cond_prepare)
def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``; both must return the same structure,
    shapes and dtypes.  Keras: ``keras.ops.cond``; JAX: ``jax.lax.cond``.

    Example:
        >>> polyops.ops.cond(polyops.ops.array(True), lambda: 1.0, lambda: 0.0)
        1.0
    """
    _cond_prepare(pred, true_fn, false_fn)
    _callable("cond", "true_fn", true_fn)
    _callable("cond", "false_fn", false_fn)
    p = _spec(pred)
    if p.shape not in ((), (1,)):
        raise ValueError(f"cond: expected a scalar predicate, got shape {p.shape}")
    return _branch_specs("cond", (true_fn, false_fn), lambda b: b())


@cond.reference
def _cond_ref(pred, true_fn, false_fn):
    return true_fn() if _truth("cond", pred) else false_fn()


def _truth(op, value) -> bool:
    if isinstance(value, (bool, int, float)):
        return bool(value)
    from .._base import to_host

    a = to_host(op, value)
    if a.size != 1:
        raise ValueError(f"{op}: expected a scalar predicate, got shape {a.shape}")
    return bool(a.reshape(()))


# ----- loops ------------------------------------------------------------------------------


def _loop_vars(loop_vars):
    is_seq = isinstance(loop_vars, (tuple, list))
    return is_seq, (tuple(loop_vars) if is_seq else (loop_vars,))


def _repack(loop_vars, values):
    if isinstance(loop_vars, list):
        return list(values)
    if isinstance(loop_vars, tuple):
        return tuple(values)
    return values[0]


@defop("core", tensors=(), promote=None, tree=True)
def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)``, at most
    ``maximum_iterations`` times.

    ``loop_vars`` is a tuple/list of values (the callables take them as separate
    arguments) or one value; ``body`` returns the same structure, shapes and dtypes.
    Keras: ``keras.ops.while_loop``; JAX: ``jax.lax.while_loop``.

    Example:
        >>> polyops.ops.while_loop(lambda i: i < 5, lambda i: i + 2, 0)
        np.int32(6)
    """
    _callable("while_loop", "cond", cond)
    _callable("while_loop", "body", body)
    is_seq, values = _loop_vars(loop_vars)
    specs = _specs(values)
    p = _spec(cond(*specs))
    if p is None or p.shape not in ((), (1,)):
        raise ValueError(f"while_loop: cond must return a scalar, got {p!r}")
    out = body(*specs)
    out = tuple(out) if is_seq and isinstance(out, (tuple, list)) else (out,)
    _check_same("while_loop", "the loop_vars body returns", specs, out)
    return _repack(loop_vars, list(_fresh(specs)))


@while_loop.reference
def _while_loop_ref(cond, body, loop_vars, maximum_iterations=None):
    is_seq, values = _loop_vars(loop_vars)
    values = _tensors(values)
    expected = _signature(values)
    i = 0
    while (maximum_iterations is None or i < maximum_iterations) and _truth(
            "while_loop", cond(*values)):
        out = body(*values)
        new = _tensors(tuple(out) if is_seq and isinstance(out, (tuple, list)) else (out,))
        if _signature(new) != expected:
            _check_same("while_loop", "the loop_vars body returns", values, new)
        values = new
        i += 1
    return _repack(loop_vars, list(values))


@defop("core", tensors=(), promote=None, tree=True)
def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; returns ``val``.

    ``i`` is an int32 scalar (a Python int in eager references); ``body_fun`` returns
    the structure, shapes and dtypes of ``init_val``.  Keras: ``keras.ops.fori_loop``;
    JAX: ``jax.lax.fori_loop``.

    Example:
        >>> polyops.ops.fori_loop(0, 4, lambda i, v: v + i, 0)
        np.int32(6)
    """
    _callable("fori_loop", "body_fun", body_fun)
    specs = _specs(init_val)
    out = body_fun(SymbolicTensor((), "int32"), specs)
    _check_same("fori_loop", "the value body_fun returns", specs, out)
    return _fresh(specs)


@fori_loop.reference
def _fori_loop_ref(lower, upper, body_fun, init_val):
    lo = _index("fori_loop", "lower", lower)
    hi = _index("fori_loop", "upper", upper)
    val = _tensors(init_val)
    expected = _signature(val)
    for i in range(lo, hi):
        new = _tensors(body_fun(i, val))
        if _signature(new) != expected:
            _check_same("fori_loop", "the value body_fun returns", val, new)
        val = new
    return val


def _index(op, name, v) -> int:
    if isinstance(v, int):
        return v
    from .._base import to_host

    a = to_host(op, v)
    if a.size != 1 or a.dtype.kind not in "iu":
        raise TypeError(f"{op}: expected an integer {name}, got {a.dtype} of shape {a.shape}")
    return int(a.reshape(()))


@defop("core", tensors=(), promote=None, tree=True)
def vectorized_map(function, elements):
    """``function`` applied to each slice of ``elements`` along the leading axis, results
    stacked; as `map`, but a backend may vectorize it (``jax.vmap``, ``torch.vmap``,
    ``tf.vectorized_map``).  Keras: ``keras.ops.vectorized_map``.

    Example:
        >>> polyops.ops.vectorized_map(lambda r: polyops.ops.sum(r), polyops.ops.ones((3, 2)))
        array([2., 2., 2.], dtype=float32)
    """
    return _stacked_rule("vectorized_map", "function", function, elements)


@vectorized_map.reference
def _vectorized_map_ref(function, elements):
    return _map_ref(function, elements)


__all__ = [
    "AssociativeScan", "Cond", "ForiLoop", "Map", "Scan", "Switch", "VectorizedMap",
    "WhileLoop", "associative_scan", "cond", "fori_loop", "map", "scan", "switch",
    "vectorized_map", "while_loop",
]

_finish(globals())
