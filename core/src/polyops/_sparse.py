"""Sparse tensors: which results are sparse (one rule per op, by category), and the eager
dispatch of sparse operands.

**The rule.**  `RULES` maps an op's name to a function of its tensor operands' sparseness
(one bool per operand in slot order, a Python scalar counting as dense) that says whether
the result is sparse.  It is declared once here, by category, and applied both by the
symbolic path (`mark`, so ``SymbolicTensor.sparse`` predicts what eager returns) and by the
eager path (`call` makes the result's sparseness the rule's on every backend).  Every op not
in `RULES` densifies: its result is dense and equals the dense computation.  A 0-d result
is never sparse.

**The plugin contract** (``Runtime.sparse``, docs/plugins.md): a namespace, or the name of
a module imported on first use, with

* ``types``: the backend's sparse classes, a tuple or a function returning one (jax's BCOO
  module is imported by the user who makes one: the plugin need not import it before);
* ``to_dense(x)`` and ``from_dense(x)``: a sparse tensor to a native dense one and back;
* ``values(x)`` and ``with_values(x, values)``: the stored values (a native 1-D tensor,
  one per stored index) and a sparse tensor of the same indices with other values;
* ``sum_duplicates(x)``: ``x`` with each index stored once (duplicates summed);
* ``kernels``: ``{op name: kernel}``, kernels that take sparse operands.  They receive the
  operands promoted as for the dense kernel (sparse ones with their values cast) and may
  return ``NotImplemented`` for a case they do not cover: core then densifies.  The ops
  with a ``sparse=`` argument (`BY_ARGUMENT`: one_hot, multi_hot, bincount) may have one
  too, taking the dense kernel's arguments without ``sparse``: it builds the sparse result
  directly (else core converts the dense kernel's result with ``from_dense``);
* optionally ``dense_forms``: other classes of the backend that hold a dense tensor
  (``tf.IndexedSlices``): `polyops.jit` converts them to dense tensors on entry, as the
  backend's ``convert_to_tensor`` does;
* optionally ``trace_key(x)``: what of a sparse tensor besides its shape and dtype a
  compiled function's signature depends on (a BCOO's number of stored elements);
* optionally ``shared`` and ``is_sparse(x)``: classes whose instances are dense or sparse
  (``torch.Tensor``: a layout, not a class), and the test of one instance.  Those sparse
  tensors reach the op's dense kernel (no class tells them apart for free): one that fails
  on them is rescued (`rescue`: core then dispatches as below, at no cost to dense calls);
  one that would take them and answer otherwise than the rule (a sparse result where the
  rule says dense) is named in
* ``guarded`` (with ``shared``): op names whose kernels core wraps with a check of their
  operands (`guard`, as it wraps every reference there), so that a sparse one takes the
  path below.

**Eager dispatch.**  The general entry of every op (`polyops._op.make_entry`) looks for
sparse operands only where a value is not a native tensor (dense calls never pay), and a
kernel's failure looks for sparse tensors of a `shared` class (`rescue`); both call
`call`.  A backend without ``Runtime.sparse`` (openvino, a third-party plugin that declares
nothing) has no sparse tensors of its own: each sparse operand is densified on entry.  On
one with them, another backend's sparse tensor is a TypeError naming the op; the op's rule
validates the call (shapes, dtypes); then the backend's sparse kernel, else, for a
zero-preserving unary op, the dense kernel applied to the stored values, else the dense
computation on densified operands.  A result whose sparseness differs from the rule's is
converted (``from_dense`` / ``to_dense``), so a backend with no kernel for an op is still
right.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any, Callable

SEEN = [False]
"""Whether any sparse value or spec exists yet: until then the symbolic path skips `mark`."""

SHARED = [False]
"""Whether a loaded backend's sparse tensors share a class with its dense ones (torch's):
until then a kernel's failure is diagnosed without looking for them (`rescue`)."""

# -- the rule -----------------------------------------------------------------------

ZERO_PRESERVING = frozenset({
    "abs", "negative", "sign", "square", "sqrt", "sin", "tan", "arcsin", "arctan", "sinh",
    "tanh", "arcsinh", "arctanh", "floor", "ceil", "round", "trunc", "fabs", "expm1",
    "log1p", "deg2rad", "rad2deg", "real", "imag", "conjugate", "copy", "signbit",
})
"""Elementwise unary ops with ``f(0) == 0``: the result keeps the operand's indices (the
op applied to the stored values).  Those with ``f(0) != 0`` (exp, cos, log, reciprocal...)
densify."""

LINEAR = frozenset({"negative", "real", "imag", "conjugate", "copy", "deg2rad", "rad2deg"})
"""Zero-preserving ops with ``f(a + b) == f(a) + f(b)``: stored duplicates may stay; the
others sum them first (Keras's jax backend does the same)."""


def _first(flags) -> bool:  # the result has the layout of the first operand
    return flags[0]


def _every(flags) -> bool:  # a union of indices: sparse only if every operand is
    return all(flags)


def _some(flags) -> bool:  # an intersection: any sparse operand bounds the indices
    return any(flags)


def _dividend(flags) -> bool:  # a sparse dividend over a divisor that is not sparse
    return flags[0] and not flags[1]


RULES: dict[str, Callable[[list], bool]] = {
    **dict.fromkeys(ZERO_PRESERVING, _first),
    **dict.fromkeys(("cast", "transpose", "reshape", "expand_dims", "squeeze", "digitize"),
                    _first),
    **dict.fromkeys(("add", "subtract", "maximum", "minimum", "fmax", "fmin"), _every),
    **dict.fromkeys(("matmul", "concatenate"), _every),
    "multiply": _some,
    **dict.fromkeys(("divide", "divide_no_nan"), _dividend),
}
"""op name -> (sparseness of each tensor operand) -> whether the result is sparse.  Ops not
listed (sum, mean, exp, every other op) give dense results."""


BY_ARGUMENT = {"one_hot": 4, "multi_hot": 4, "bincount": 3}
"""Ops whose own rule says whether the result is sparse, from their ``sparse=`` argument
(and, for bincount, a sparse ``x``, as Keras): op name -> the position of ``sparse`` among
the kernel's arguments (after the op's prepare hook).  `by_argument` wraps their kernels."""


def sparse_result(name: str, flags) -> bool:
    """Whether op ``name`` on operands of sparseness ``flags`` gives a sparse result."""
    rule = RULES.get(name)
    return rule is not None and any(flags) and rule(flags)


def _flags(op, args) -> list:
    from ._op import _slot_values

    return [getattr(v, "sparse", False) is True for _, _, v in _slot_values(op, args)]


def mark(op, specs, out):
    """``out`` (the rule's output spec for ``specs``) with ``sparse`` set by `RULES`."""
    from ._symbolic import SymbolicTensor

    if isinstance(out, SymbolicTensor) and out.shape and op.name not in BY_ARGUMENT:
        flags = _flags(op, specs)
        if any(flags):
            sparse = sparse_result(op.name, flags)
            if sparse is not out.sparse:
                if any(out is v for v in specs) or any(
                        isinstance(v, list) and any(out is w for w in v) for v in specs):
                    out = SymbolicTensor(out.shape, out.dtype)  # (never mark an input)
                out.sparse = sparse
    return out


# -- the plugin contract --------------------------------------------------------------

_CONTRACTS: dict = {}  # id(runtime) -> (runtime, resolved Runtime.sparse or None)
_OWNERS: dict = {}  # type -> the name of the backend whose sparse class it is, or None
_NEEDED = ("types", "to_dense", "from_dense", "values", "with_values", "sum_duplicates")


def contract(rt) -> Any:
    """``rt.sparse`` resolved (a module name imported), checked, and cached; None for a
    backend without sparse tensors."""
    hit = _CONTRACTS.get(id(rt))
    if hit is not None and hit[0] is rt:
        return hit[1]
    hook = getattr(rt, "sparse", None)
    if isinstance(hook, str):
        hook = importlib.import_module(hook)
    if hook is not None:
        missing = [n for n in _NEEDED if not hasattr(hook, n)]
        if missing:
            raise TypeError(f"backend {rt.name!r}: Runtime.sparse lacks {', '.join(missing)}")
        shared = tuple(getattr(hook, "shared", ()))
        is_sparse = getattr(hook, "is_sparse", None)
        if shared and is_sparse is None:
            raise TypeError(f"backend {rt.name!r}: Runtime.sparse has shared classes and no "
                            "is_sparse(x)")
        hook = SimpleNamespace(**{n: getattr(hook, n) for n in _NEEDED},
                               kernels=dict(getattr(hook, "kernels", None) or {}),
                               dense_forms=getattr(hook, "dense_forms", ()),
                               trace_key=getattr(hook, "trace_key", None),
                               shared=shared, is_sparse=is_sparse,
                               guarded=frozenset(getattr(hook, "guarded", ()) if shared else ()))
        if shared:
            SHARED[0] = SEEN[0] = True  # (any tensor of theirs may be sparse)
    _CONTRACTS[id(rt)] = (rt, hook)
    # a type seen before this backend's classes were known may be one of them
    for t in [t for t, name in _OWNERS.items() if name is None]:
        del _OWNERS[t]
    return hook


def dense_forms(rt) -> tuple:
    """The classes the backend of ``rt`` declares hold dense tensors (``tf.IndexedSlices``),
    densified on entry; () for most."""
    c = contract(rt)
    return () if c is None else tuple(c.dense_forms)


def _types(c) -> tuple:
    t = c.types
    return t if isinstance(t, tuple) else tuple(t())


def _holds(c, v) -> bool:
    """Whether ``v`` is a sparse tensor of contract ``c``'s backend."""
    return isinstance(v, _types(c)) or (
        bool(c.shared) and isinstance(v, c.shared) and c.is_sparse(v))


def owner(v) -> str | None:
    """The name of the backend whose sparse tensor ``v`` is, or None (a dense value, or a
    sparse one of a backend not loaded).  A dict lookup once ``type(v)`` was seen."""
    t = type(v)
    try:
        name = _OWNERS[t]
    except KeyError:
        name = _OWNERS[t] = _owner_of(v)
    if type(name) is tuple:  # a class holding dense and sparse tensors: ask the value
        return name[0] if name[1](v) else None
    return name


def _owner_of(v):
    """`owner`'s answer for ``type(v)``: a backend name, None, or (name, is_sparse) for a
    `shared` class."""
    for b in _loaded():
        c = contract(b.runtime)
        if c is None:
            continue
        if isinstance(v, _types(c)):
            SEEN[0] = True
            return b.name
        if c.shared and isinstance(v, c.shared):
            return (b.name, c.is_sparse)
    return None


def _loaded():
    from ._registry import _discover, current

    found = [b for b in _discover().values() if b.status == "loaded" and b.runtime is not None]
    b = current()
    if b.runtime is not None and b not in found:  # (a backend registered by hand)
        found.append(b)
    return found


def backend_of(name: str):
    """The loaded backend named ``name`` (an `owner` answer) and its resolved contract."""
    for b in _loaded():
        if b.name == name:
            return b, contract(b.runtime)
    raise LookupError(name)  # (owner only names loaded backends)


def densify(v):
    """``v`` as a native dense tensor of its own backend if it is sparse, else ``v``."""
    name = owner(v)
    if name is None:
        return v
    return backend_of(name)[1].to_dense(v)


def _to_host(v):
    """``v`` densified, as numpy data, if it is a sparse tensor (of any loaded backend)."""
    from ._state import Variable

    if type(v) is Variable:
        v = v.value
    name = owner(v)
    if name is None:
        return v
    b, c = backend_of(name)
    return b.runtime.convert_to_numpy(c.to_dense(v))


def foreign_error(where: str, what: str, v, name: str, rt) -> TypeError:
    """The error for ``v``, a sparse tensor of backend ``name``, given to the backend of
    ``rt``: the op names it, and says how to bring it over."""
    how = (f"polyops.ops.convert_to_tensor({what}) (dense: the {rt.name} backend has no "
           f"sparse tensors)" if contract(rt) is None else
           f"polyops.ops.convert_to_tensor({what}, sparse=True) (or sparse=False: dense)")
    return TypeError(
        f"{where}: expected a tensor of the {rt.name} backend for {what!r}, got a {name} "
        f"sparse tensor ({type(v).__name__}); convert it first with {how} under the "
        f"{rt.name} backend")


# -- eager dispatch ---------------------------------------------------------------------


def call(op, backend, args, dense: Callable):
    """``op`` on ``args``, some of them sparse, on ``backend``; ``dense`` is the op's general
    entry there (it takes native and foreign dense values)."""
    from ._op import _map_tensors, _slot_values, spec_of
    from ._state import Variable

    rt = backend.runtime
    c = contract(rt)
    if c is None:  # a backend without sparse tensors: each sparse operand densified on entry
        return dense(*_map_tensors(op, args, _to_host))
    flags = []
    for pos, sub, v in _slot_values(op, args):
        if type(v) is Variable:
            v = v.value
        name = owner(v)
        if name is not None and name != rt.name:
            what = op.params[min(pos, len(op.params) - 1)] + (f"[{sub}]" if sub is not None else "")
            raise foreign_error(op.name, what, v, name, rt)
        flags.append(name is not None)
    # the rule validates the call (shapes, dtypes, axes) and names the op in its errors
    out = op.rule(*_map_tensors(op, args, spec_of))
    from ._symbolic import SymbolicTensor

    want = isinstance(out, SymbolicTensor) and bool(out.shape) and (
        out.sparse if op.name in BY_ARGUMENT else sparse_result(op.name, flags))
    result = NotImplemented
    # (a by-argument op's sparse kernel is `by_argument`'s: it takes no sparse operand)
    kernel = None if op.name in BY_ARGUMENT else c.kernels.get(op.name)
    if kernel is None and op.name in _RESHAPES and "reshape" in c.kernels and flags[0]:
        # expand_dims, squeeze: the backend's sparse reshape to the shape the rule gives
        return _finish(c, c.kernels["reshape"](args[0], out.shape), want)
    if kernel is not None:
        promoted = _promoted(op, backend, c, args)
        if promoted is not None:
            try:
                result = kernel(*promoted)
            except Exception as exc:
                from ._op import _diagnose

                raise _diagnose(op, backend, promoted, exc) from exc
    elif op.name in ZERO_PRESERVING or op.name == "cast":
        x = args[0]
        if op.name not in LINEAR:
            x = c.sum_duplicates(x)
        result = c.with_values(x, dense(c.values(x), *args[1:]))
    elif op.name == "digitize" and flags == [True, False]:
        result = _digitize(c, args, dense)
    if result is NotImplemented:
        result = dense(*_map_tensors(op, args, lambda v: c.to_dense(v) if owner(v) else v))
    return _finish(c, result, want)


_RESHAPES = frozenset(("expand_dims", "squeeze"))


def _digitize(c, args, dense):
    """digitize of a sparse ``x``: the stored values' bins where ``digitize(0) == 0`` (every
    bin edge above zero, as in Keras, which always maps the stored values); otherwise, or
    under a trace (where that is not known), the dense computation, made sparse."""
    x, bins = c.sum_duplicates(args[0]), args[1]
    try:
        keep = not bool(dense(0, bins))
    except TypeError:  # a traced value (jax's ConcretizationTypeError, tf's graph error)
        return NotImplemented
    return c.with_values(x, dense(c.values(x), bins)) if keep else NotImplemented


def _finish(c, result, want: bool):
    """``result`` sparse or dense, as the rule says (``want``)."""
    if _holds(c, result):
        return result if want else c.to_dense(result)
    return c.from_dense(result) if want else result


def _promoted(op, backend, c, args):
    """``args`` converted and promoted as the general entry does for the dense kernel
    (sparse operands' values cast), then prepared; None where the op computes 16-bit
    floats in a wider dtype (the dense path does that)."""
    from . import _dtypes, _promote
    from ._op import _SCALAR_TYPES, _check_weak_int, _checked_infer, _slot_values, late_dtype
    from ._state import Variable

    rt = backend.runtime
    convert = rt.convert_to_tensor
    values, keys = [], []
    for pos, sub, v in _slot_values(op, args):
        if type(v) is Variable:
            v = v.value
        if v is None:
            key = None
        elif type(v) in _SCALAR_TYPES:
            key = _dtypes._WEAK_OF[type(v)]
        elif isinstance(v, rt.tensor_types) or _holds(c, v):
            key = rt.dtypes.get(v.dtype) or late_dtype(rt, v.dtype, op.name)
        else:
            key = _checked_infer(op, v)
            v = convert(v, key)
        values.append((pos, sub, v, key))
        keys.append(key)
    try:
        targets = op.promote(tuple(keys)) if op.promote is not None else keys
    except _promote.PromotionError as exc:
        raise TypeError(f"{op.name}: {exc}") from None
    if op.compute is not None and set(targets) & set(_dtypes.HALF_FLOATS):
        return None
    out = list(args)
    for (pos, sub, v, key), target in zip(values, targets):
        if v is not None and target is not None and target not in _dtypes.WEAK_TYPES:
            if key == "int" and type(v) is int:
                _check_weak_int(op, v, target)
            if _holds(c, v):
                if key != target:
                    v = c.with_values(v, convert(c.values(v), target))
            elif key != target or not isinstance(v, rt.tensor_types):
                v = convert(v, target)
        elif type(v) in _SCALAR_TYPES:
            v = convert(v, _dtypes.result_type_of_keys((key,)))
        if sub is None:
            out[pos] = v
        else:
            if out[pos] is args[pos]:
                out[pos] = list(out[pos])
            out[pos][sub] = v
    return out if op.prepare is None else list(op.prepare(*out))


# -- ops with a sparse= argument ------------------------------------------------------


def require(op: str) -> None:
    """ValueError naming op ``op`` and the backend in effect where it has no sparse tensors
    (``sparse=True`` asked of it)."""
    from ._registry import current

    rt = current().runtime
    if rt is not None and contract(rt) is None:
        raise ValueError(f"{op}: the {rt.name} backend has no sparse tensors (sparse=True); "
                         f"use a backend that has them (tensorflow, jax, torch, numpy with SciPy)")


def by_argument(op, kernel, backend):
    """``kernel`` (the backend's kernel or the reference of ``op``), wrapped where ``op``
    takes ``sparse=`` (`BY_ARGUMENT`): ``sparse=True`` calls the backend's sparse kernel for
    the op, else converts the dense kernel's result; the kernel itself always sees
    ``sparse=False``.  Other ops' kernels are returned as they are."""
    pos = BY_ARGUMENT.get(op.name)
    if pos is None:
        return kernel
    from ._op import NonEmpty, SplitKernel

    if isinstance(kernel, (NonEmpty, SplitKernel)):
        return _rewrap(kernel, lambda k: by_argument(op, k, backend))

    def sparse_kernel(*args):
        if not args[pos]:
            return kernel(*args)
        c = contract(backend.runtime)
        args = list(args)
        args[pos] = False
        build = c.kernels.get(op.name)
        if build is not None:
            result = build(*args[:pos], *args[pos + 1:])
            if result is not NotImplemented:
                return result
        return c.from_dense(kernel(*args))

    sparse_kernel.__name__ = getattr(kernel, "__name__", op.name)
    sparse_kernel.__wrapped__ = kernel
    return sparse_kernel


def _rewrap(kernel, wrap):
    """A `NonEmpty` or `SplitKernel` with ``wrap`` applied to the kernels it holds."""
    from ._op import NonEmpty, SplitKernel

    if isinstance(kernel, NonEmpty):
        return NonEmpty(wrap(kernel.kernel))
    return SplitKernel(wrap(kernel.fast), wrap(kernel.general), kernel.dtypes)


# -- sparse tensors of a class shared with dense ones (torch's) -----------------------


class SparseOperand(TypeError):
    """Raised by a `guard`ed kernel given a sparse tensor: `rescue` takes the call over."""


def rescue(op, backend, args) -> bool:
    """Whether the call ``args`` of ``op``, whose kernel failed on ``backend``, holds a
    sparse tensor of one of the backend's `shared` classes: then `call` answers it."""
    c = contract(backend.runtime)
    if c is None or not c.shared:
        return False
    from ._op import _slot_values

    try:
        slots = list(_slot_values(op, args))
    except Exception:  # (arguments the op's own error will explain)
        return False
    return any(_holds(c, v) for _, _, v in slots)


def guard(op, kernel, backend):
    """``kernel``, checking its operands first where the backend has `shared` sparse
    classes and names ``op`` in ``guarded`` (its framework function would take a sparse
    tensor and answer otherwise than the rule), or ``kernel`` is the op's reference (a
    composition of ops would carry the sparse tensor through them): a sparse operand
    raises `SparseOperand`, then `rescue`."""
    c = contract(backend.runtime)
    if kernel is None or c is None or not c.shared or op.tree or not op.tensor_slots:
        # (control flow hands its operands to the user's functions as they are; creation
        # ops take no tensor to check)
        return kernel
    if op.name not in c.guarded and getattr(kernel, "__wrapped__", kernel) is not op.ref:
        return kernel
    from ._op import NonEmpty, SplitKernel

    if isinstance(kernel, (NonEmpty, SplitKernel)):
        return _rewrap(kernel, lambda k: guard(op, k, backend))
    shared, test = c.shared, c.is_sparse

    def guarded(*args):
        for v in args:
            if isinstance(v, shared):
                if test(v):
                    raise SparseOperand(f"{op.name}: a sparse operand")
            elif type(v) is list and any(isinstance(w, shared) and test(w) for w in v):
                raise SparseOperand(f"{op.name}: a sparse operand")
        return kernel(*args)

    guarded.__name__ = getattr(kernel, "__name__", op.name)
    guarded.__wrapped__ = kernel
    return guarded
