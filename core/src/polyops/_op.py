"""The Operation machinery: op records, generated public functions, eager entries.

An op is declared once with `defop` (or a factory built on it).  The decorated
function *is* the op's shape/dtype rule and also fixes the public signature; from
it we generate:

* the public function, with the same signature, which does exactly one thing:
  ``(_current() or _default()).table[INDEX](*args)``;
* an `Operation` subclass (``Add``, ``Matmul``...), usable as ``Add()(x1, x2)``.

Per backend, the registry turns each op into an *entry*: a closure built on the op's
first call around the backend's kernel (or the op's reference implementation).
The entry sends symbolic inputs to the rule, converts and promotes concrete
inputs, and calls the kernel.  Ops whose operands are one tensor, two tensors, a
list of tensors or none (`fast_kind`) have a fast path for the common case (native
tensors of dtypes the op keeps as they are): type checks and a set lookup, inline in
the public function (generated in `_public`).  The `Operation` classes are in `_operation`.
"""

from __future__ import annotations

import importlib
import inspect
import operator
import re
from typing import Any, Callable

import numpy as np

from . import _dtypes, _promote, _sparse, _tree
from ._state import Variable
from ._symbolic import Node, SymbolicTensor

OPS: dict[str, "Op"] = {}
"""Every op defined so far, by name, in definition order; ``op.index`` is its slot in a
table.  The op modules load lazily (`polyops.ops._lazy`): read all through `every_op`, one
through `get_op`."""


def every_op() -> dict[str, "Op"]:
    """`OPS` with every op module loaded (``import polyops`` alone defines none, and
    ``polyops.ops`` loads a module on first use of one of its names)."""
    from .ops import _lazy

    if len(OPS) < _lazy.op_count():
        _lazy.load_all()
    return OPS


def get_op(name: str) -> "Op":
    """The op named ``name``, loading the module that defines it; KeyError if none does."""
    op = OPS.get(name)
    if op is None:
        from .ops import _lazy

        module = _lazy.module_of(name)
        if module is None:
            raise KeyError(name)
        importlib.import_module(f"polyops.ops.{module}")
        op = OPS[name]
    return op

_SCALARS = (bool, int, float, complex)
_SCALAR_TYPES = frozenset(_SCALARS)  # exact types: NumPy scalars are arrays, not weak
_SPEC_TYPES = frozenset((*_SCALARS, type(None), SymbolicTensor))  # values spec_of returns as they are


class KernelError(RuntimeError):
    """A backend's kernel failed on input that the op's rule accepts."""


class IndexOutOfRangeError(IndexError, ValueError):
    """An index (a gather's or scatter's index, a class label) outside its axis, found
    eagerly.  An IndexError, as NumPy raises, and a ValueError, as polyops raises for bad
    values, so either ``except`` catches it.  Under a trace the op's documented
    out-of-range result applies instead (docs/numerics.md)."""


class MissingKernelError(NotImplementedError):
    """The selected backend has neither a kernel nor a reference for the op."""


class SplitKernel:
    """A kernel with a fast variant for the dtypes its framework handles directly, and a
    general one for the rest (torch lacks most kernels for uint16/32/64, so its general
    ``add`` widens them).  The eager fast paths call ``fast`` with no wrapper frame when
    every operand has one of ``dtypes`` (canonical names); everything else calls
    ``general``, as does calling the object.  Plugins build these with
    `polyops.plugin.SplitKernel`."""

    __slots__ = ("fast", "general", "dtypes")

    def __init__(self, fast, general, dtypes):
        self.fast = fast
        self.general = general
        self.dtypes = frozenset(dtypes)

    def __call__(self, *args):
        return self.general(*args)


class AnyDtype:
    """A kernel that takes operands of every dtype as they are, and converts them itself as
    the op's promotion would (the logical ops: NumPy's, jax's and torch's ``logical_and``
    read any dtype as truth values; of an op with operands of several roles, ``where``,
    the first: the condition): the fast paths hand it native tensors of any one dtype
    without the cast to the promoted one (a second kernel call: 0.2-6 us).  Mixed dtypes
    and Python scalars take the general entry, which casts.  Plugins mark kernels with
    `polyops.plugin.any_dtype`."""

    __slots__ = ("kernel",)

    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, *args):
        return self.kernel(*args)


class NonEmpty:
    """A kernel that takes no zero-size operand: core answers a call with one itself, the
    result built from the op's rule (a zero-size result) or from the op's declared
    ``empty`` fill (see `defop`), and the kernel never sees it.  Plugins mark kernels
    with `polyops.plugin.nonempty`; a runtime with ``empty_tensors=False`` marks all."""

    __slots__ = ("kernel",)

    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, *args):
        return self.kernel(*args)


class EagerOnlyError(TypeError):
    """An op that computes on the host (or reads a data-dependent size) was called under
    a trace (jax.jit, tf.function), where tensor values do not exist yet."""


class NotDifferentiableError(NotImplementedError):
    """A gradient was asked through an op that cannot give it on this backend (its values
    come from a host computation outside the autodiff tape, or the math has no gradient
    there): raised instead of returning zeros."""


class Op:
    """The record of one op: its name, family, rule, reference and promotion kind."""

    def __init__(self, name, family, rule, tensors, promote, ref, prepare, elementwise,
                 tree=False, compute=None, empty=None, signature=None):
        self.name = name
        # the result's fill when an operand has zero size but the result has not (sum 0,
        # prod 1, det 1, mean NaN...), for backends whose kernels take no empty operand
        self.empty = empty
        # the dtype float16/bfloat16 operands compute in (None: their own), see `defop`
        self.compute = compute
        self.tree = tree  # arguments are nested structures (and callables): control flow
        self.family = family
        self.rule = rule
        self.ref = ref
        self.promote = promote
        self.prepare = prepare
        self.elementwise = elementwise  # "unary", "binary", "pair" (two dtypes: ldexp) or None
        self.host = False  # the reference computes on the host with numpy (eager only)
        self.signature = signature or inspect.signature(rule)
        params = list(self.signature.parameters.values())
        self.params = [p.name for p in params]
        self.varargs = next(
            (i for i, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), None
        )
        # keyword-only parameters (after *args, like meshgrid's indexing) travel positionally
        # after the variadic tensors: entries, kernels and references get (*x, indexing)
        self.kwonly = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
        self.tensors = tuple(tensors)  # names; "xs[]" marks a sequence of tensors
        self.tensor_slots = tuple(
            (self.params.index(t.rstrip("[]")), t.endswith("[]")) for t in self.tensors
        )
        self.optional = frozenset(
            p.name for p in params if p.default is None
        )  # tensor params that may be None (where's x1, x2)
        self.index = len(OPS)
        self.public: Callable[..., Any] = None  # type: ignore[assignment]
        self.operation: type = None  # type: ignore[assignment]

    @property
    def primitive(self) -> bool:
        return self.ref is None

    def __repr__(self):
        return f"<op {self.family}.{self.name}>"

    # -- symbolic path ---------------------------------------------------------
    def symbolic_call(self, args: tuple):
        """Infer the output spec(s) from the rule and record a graph node."""
        specs = args if _all_specs(self, args) else _map_tensors(self, args, spec_of)
        out = self.rule(*specs)
        if _sparse.SEEN[0]:  # (no sparse value or spec yet: nothing to mark)
            out = _sparse.mark(self, specs, out)
        node = Node(self, tuple(args), out)
        for t in _flat_outputs(out):
            t._node = node
        return out


def _flat_outputs(out):
    if isinstance(out, SymbolicTensor):
        return (out,)
    if isinstance(out, (tuple, list, dict)):
        return tuple(t for t in _tree.leaves(out) if isinstance(t, SymbolicTensor))
    return ()


def _slot_values(op, args):
    """(position, sub-index or None, value) for each tensor operand in ``args``."""
    for pos, is_seq in op.tensor_slots:
        if op.varargs is not None and pos == op.varargs:
            for j in range(pos, len(args) - len(op.kwonly)):
                yield j, None, args[j]
        elif pos < len(args):
            if is_seq:
                for j, v in enumerate(args[pos]):
                    yield pos, j, v
            else:
                yield pos, None, args[pos]


def _all_specs(op, args) -> bool:
    """Whether every tensor operand in ``args`` is already what `spec_of` would give
    (a SymbolicTensor, a Python scalar or None): then the rule takes ``args`` as they are."""
    for pos, is_seq in op.tensor_slots:
        if pos == op.varargs:
            vals = args[pos:len(args) - len(op.kwonly)]
        elif pos >= len(args):
            continue
        elif is_seq:
            vals = args[pos]
            if type(vals) is not list:  # rules get sequences of tensors as lists
                return False
        else:
            if type(args[pos]) not in _SPEC_TYPES:
                return False
            continue
        for v in vals:
            if type(v) not in _SPEC_TYPES:
                return False
    return True


def _map_tensors(op, args, fn):
    """A copy of ``args`` with ``fn`` applied to every tensor operand."""
    out = list(args)
    seqs: dict[int, list] = {}
    for pos, sub, v in _slot_values(op, args):
        if v is None:
            continue
        if sub is None:
            out[pos] = fn(v)
        else:
            seq = seqs.setdefault(pos, list(args[pos]))
            seq[sub] = fn(v)
    for pos, seq in seqs.items():
        out[pos] = seq
    return tuple(out)


def _any_symbolic_operand(op, args) -> bool:
    return any(isinstance(v, SymbolicTensor) for _, _, v in _slot_values(op, args))


def spec_of(x):
    """The SymbolicTensor spec of a value (SymbolicTensors and Python scalars pass through)."""
    if isinstance(x, SymbolicTensor) or type(x) in _SCALAR_TYPES:
        return x
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    if shape is None or dtype is None:
        arr = np.asarray(x)
        shape, dtype = arr.shape, infer_dtype(arr)
    else:
        dtype = _dtypes.canonical(_dtypes.standardize_dtype(dtype))
    spec = SymbolicTensor(tuple(shape), dtype, _sparse.SEEN[0] and _sparse.owner(x) is not None)
    spec._const = x
    return spec


def infer_dtype(x) -> str:
    """The polyops dtype a value converts to: its own dtype demoted, or bool/int32/floatx."""
    if isinstance(x, bool):
        return "bool"
    if isinstance(x, int):
        return "int32"
    if isinstance(x, float):
        return _dtypes.config.floatx()
    if isinstance(x, complex):
        return "complex64"
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        arr = np.asarray(x)
        if arr.dtype == object or arr.dtype.kind in "USV":
            raise TypeError(f"convert_to_tensor: expected numeric data, got {x!r}")
        dtype = arr.dtype
        if dtype.kind == "f" and arr.size == 0 or dtype == np.float64:
            return _dtypes.config.floatx()
    return _dtypes.canonical(_dtypes.standardize_dtype(dtype))


# -- eager entries ---------------------------------------------------------------


class _Never:
    """No value has this exact type: a fast-path spec that never applies."""

    __slots__ = ()


NO_FAST = (_Never, frozenset(), None)
"""The folded fast-path spec of an op that has none on a backend."""


def fast_kind(op: Op) -> str | None:
    """Which eager fast path ``op`` has: "unary", "binary", "single" (one tensor first,
    then static arguments: reductions, reshape, softmax...), "pair", "triple", "seq",
    "create" (see below) or None."""
    if op.tree:
        return None
    if op.promote is None:
        return "create" if op.tensor_slots == () and op.varargs is None else None
    if op.elementwise is not None:
        return op.elementwise
    if op.varargs is not None:
        return None
    if op.tensor_slots == ((0, False),):
        return "single"
    if op.tensor_slots == ((0, False), (1, False)):
        return "pair"  # two tensors first, of any dtypes the op keeps (products, take...)
    if op.tensor_slots == ((0, False), (1, False), (2, False)):
        return "triple"  # three tensors first (where, clip with tensor bounds)
    if op.tensor_slots == ((0, True),):
        return "seq"  # a list of tensors of one dtype first (joins)
    return None


class _Fast:
    """What the fast paths of ``op`` on a runtime need, computed once at load time."""

    def __init__(self, op: Op, fn: Callable, rt, x64: bool = False):
        self.kind = fast_kind(op)
        any_dtype = isinstance(fn, AnyDtype)
        if any_dtype:
            fn = fn.kernel
        # core answers calls with a zero-size operand (see `NonEmpty`)
        self.nonempty = isinstance(fn, NonEmpty) or not rt.empty_tensors
        if isinstance(fn, NonEmpty):
            fn = fn.kernel
        self.general_fn = fn
        self.fast_fn = fn
        fast_dtypes = None
        if isinstance(fn, SplitKernel):
            self.fast_fn, fast_dtypes, self.general_fn = fn.fast, fn.dtypes, fn.general
        self.T = rt.tensor_types[0]
        # the fast paths read a dtype *code*: ``x.dtype`` unless the runtime has a cheaper one
        self.code_of = rt.dtype_code
        codes = rt.dtype_codes if rt.dtype_code is not None else rt.dtypes
        # code -> canonical dtype, for the codes the fast kernel takes (all, unless split)
        self.codes = {k: c for k, c in codes.items() if fast_dtypes is None or c in fast_dtypes}
        n = {"unary": 1, "binary": 2, "single": 1, "seq": 2}.get(self.kind, 0)
        promote = op.promote
        # (16-bit floats of an op with a compute dtype take the general entry, which widens)
        half = _dtypes.HALF_FLOATS if op.compute is not None else ()
        # the dtypes promotion keeps differ between the 64-bit modes: the backend keeps
        # one entry and one spec per mode (`Backend.set_x64`), each made in its own
        with _dtypes.config._forced_x64(x64):
            self._tables(op, promote, half, n, x64, any_dtype)

    def _tables(self, op, promote, half, n, x64, any_dtype):
        if self.kind in ("pair", "triple"):
            # code pairs (the operands may differ: take, searchsorted) and triples (where),
            # decided on first sight: 14**2 and 14**3 of them (an `AnyDtype` kernel reads
            # the first operand, where's condition, as truth values)
            self.ok = _KeptCodes(self.codes, half, promote, x64, truth=any_dtype)
        elif any_dtype and self.kind in ("unary", "binary", "single"):
            self.ok = frozenset(self.codes)  # (the kernel converts each dtype itself)
        else:
            self.ok = frozenset(k for k, c in self.codes.items()
                                if n and c not in half and _keeps(promote, (c,) * n))
        # a native tensor with a Python float or int that the lattice casts to the tensor's
        # dtype (weak scalars: float32 + 2.0 stays float32)
        self.weak = {w: frozenset(k for k, c in self.codes.items()
                                  if n == 2 and c not in half and _keeps_weak(promote, c, key))
                     for w, key in ((float, "float"), (int, "int"))}

    def folded(self):
        """The spec the generated public function reads, ``(type, dtypes, kernel)``: its
        inline fast path reads ``x.dtype`` itself, so a runtime with a ``dtype_code`` has
        none there (its entries use the code)."""
        if self.kind == "create":  # no operand: no dtype to read, none empty
            return (None, None, self.fast_fn)
        if self.kind is None or self.code_of is not None or self.nonempty:
            return NO_FAST
        return (self.T, self.ok, self.fast_fn)


def make_entry(op: Op, fn: Callable, backend, fast: "_Fast | None" = None) -> Callable:
    """The eager callable for ``op`` on ``backend``: promotion + kernel ``fn``.  ``fast``:
    the op's `_Fast` on this backend, when the caller has it already (the registry, which
    also puts ``fast.folded()`` in the backend's table for the public function)."""
    rt = backend.runtime
    native = rt.tensor_types
    dtypes = rt.dtypes
    f = fast if fast is not None else _Fast(op, fn, rt, _dtypes.config._X64)
    fn, fast_fn = f.general_fn, f.fast_fn
    convert = rt.convert_to_tensor
    supported = frozenset(dtypes.values())
    promote = op.promote
    prepare = op.prepare
    slots = op.tensor_slots
    varargs = op.varargs
    symbolic = op.symbolic_call
    compute = op.compute
    half = _dtypes.HALF_FLOATS
    nonempty = f.nonempty
    _sparse.contract(rt)  # (a new backend's sparse classes: forget types thought dense)
    sparse_owner = _sparse.owner

    def fail(call, exc, kernel_args=None):
        return _rescued(op, backend, general, call, exc, kernel_args)

    def general(*args):
        # 1. symbolic inputs go to the rule
        for pos, is_seq in slots:
            if varargs is not None and pos == varargs:
                vals = args[pos:len(args) - len(op.kwonly)]
            elif pos >= len(args):
                continue
            else:
                vals = args[pos] if is_seq else (args[pos],)
            if is_seq and not isinstance(vals, (list, tuple)):
                raise TypeError(
                    f"{op.name}: expected a sequence of tensors for "
                    f"'{op.params[pos]}', got {type(vals).__name__}"
                )
            for v in vals:
                if isinstance(v, SymbolicTensor):
                    return symbolic(args)
        # 2. concrete inputs: find dtype keys, converting foreign values
        values = []
        keys = []
        for pos, sub, v in _slot_values(op, args):
            if type(v) is Variable:
                v = v.value
            if v is None:
                if sub is not None or op.params[min(pos, len(op.params) - 1)] not in op.optional:
                    raise TypeError(
                        f"{op.name}: expected a tensor for {op.params[min(pos, len(op.params) - 1)]!r}, got None"
                    )
                key = None
            elif type(v) in _SCALAR_TYPES:  # (np.float64 subclasses float: it is an array scalar)
                key = _dtypes._WEAK_OF[type(v)]
            elif isinstance(v, native):
                key = dtypes.get(v.dtype)
                if key is None:
                    key = late_dtype(rt, v.dtype, op.name)
            else:
                if sparse_owner(v) is not None:  # (sparse values are never native: free for dense)
                    return _sparse.call(op, backend, args, general)
                key = _checked_infer(op, v)
                if key not in supported:
                    raise TypeError(f"{op.name}: dtype {key} is not supported on backend {rt.name!r}")
                v = convert(v, key)
            values.append((pos, sub, v, key))
            keys.append(key)
        try:
            # no promotion: each operand keeps its dtype; a Python scalar takes its default
            targets = promote(tuple(keys)) if promote is not None else [
                _dtypes.result_type_of_keys((k,)) if k in _dtypes.WEAK_TYPES else k for k in keys]
        except _promote.PromotionError as exc:
            raise TypeError(f"{op.name}: {exc}") from None
        # 3. cast to the promoted dtypes (16-bit floats to the op's compute dtype, if any)
        out = list(args)
        low = None
        for (pos, sub, v, key), target in zip(values, targets):
            if compute is not None and target in half:
                low, target = target, compute
            if v is not None and target is not None:
                if key == "int" and type(v) is int:
                    _check_weak_int(op, v, target)
                if key != target or not isinstance(v, native):
                    v = convert(v, target)
            elif isinstance(v, _SCALARS):
                v = convert(v, _dtypes.result_type_of_keys((key,)))
            if sub is None:
                out[pos] = v
            else:
                if out[pos] is args[pos]:  # a new list: the caller's stays as it was
                    out[pos] = list(out[pos])
                out[pos][sub] = v
        pre = out
        if prepare is not None:
            out = prepare(*out)
        if nonempty and any(_has_zero(v) for _, _, v, _ in values):
            result = _answer_empty(op, pre, convert)
            if result is not _KERNEL:
                return result if low is None else _narrow(result, compute, low, dtypes, convert)
        try:
            result = fn(*out)
        except Exception as exc:
            return fail(args, exc, out)
        return result if low is None else _narrow(result, compute, low, dtypes, convert)

    if op.tree:
        return _tree_entry(op, fn, native)
    if f.kind is None:
        return general
    # Fast paths: the primary native type, inputs already of a dtype the op keeps as is.
    # (The public function checks the same inline first; entries serve the rest: runtimes
    # with a dtype_code, and Python scalars with a tensor.)
    T, ok, codes = f.T, f.ok, f.codes
    code = f.code_of or _DTYPE_ATTR

    if f.kind == "single":

        def single(x, *rest):
            if type(x) is T and code(x) in ok and not (nonempty and _has_zero(x)):
                args = (x, *rest) if prepare is None else prepare(x, *rest)
                try:
                    return fast_fn(*args)
                except Exception as exc:
                    return fail((x, *rest), exc, args)
            if type(x) is SymbolicTensor:
                return symbolic((x, *rest))
            return general(x, *rest)

        return single

    if f.kind == "unary":

        def unary(x):
            if type(x) is T and code(x) in ok and not (nonempty and _has_zero(x)):
                try:
                    return fast_fn(x)
                except Exception as exc:
                    return fail((x,), exc)
            if type(x) is SymbolicTensor:
                return symbolic((x,))
            return general(x)

        return unary

    if f.kind == "pair":

        def pair(x1, x2, *rest):
            if (type(x1) is T and type(x2) is T and ok[(code(x1), code(x2))]
                    and not (nonempty and (_has_zero(x1) or _has_zero(x2)))):
                args = (x1, x2, *rest) if prepare is None else prepare(x1, x2, *rest)
                try:
                    return fast_fn(*args)
                except Exception as exc:
                    return fail((x1, x2, *rest), exc, args)
            if type(x1) is SymbolicTensor or type(x2) is SymbolicTensor:
                return symbolic((x1, x2, *rest))
            return general(x1, x2, *rest)

        return pair

    if f.kind == "triple":
        # native tensors beside Python int/float operands (clip(x, 0, 1), where(c, x, 0.0)):
        # signature (code or scalar type per operand) -> the scalars' dtypes when promotion
        # keeps every tensor as it is, else None (the general entry); decided on first sight
        plans: dict = {}

        def triple(x1, x2, x3, *rest):
            if (type(x1) is T and type(x2) is T and type(x3) is T
                    and ok[(code(x1), code(x2), code(x3))]
                    and not (nonempty and (_has_zero(x1) or _has_zero(x2) or _has_zero(x3)))):
                args = (x1, x2, x3, *rest) if prepare is None else prepare(x1, x2, x3, *rest)
                try:
                    return fast_fn(*args)
                except Exception as exc:
                    return fail((x1, x2, x3, *rest), exc, args)
            call = (x1, x2, x3)
            if all(type(v) is T or type(v) in _WEAK_SCALARS for v in call):
                sig = tuple(code(v) if type(v) is T else type(v) for v in call)
                try:
                    plan = plans[sig]
                except KeyError:
                    plan = plans[sig] = _promote.scalar_plan(
                        promote, sig, f.codes, half if compute is not None else ())
                if plan is not None and not (nonempty and any(
                        type(v) is T and _has_zero(v) for v in call)):
                    vals = []
                    for v, target in zip(call, plan):
                        if target is not None:
                            if type(v) is int:
                                _check_weak_int(op, v, target)
                            v = convert(v, target)
                        vals.append(v)
                    args = (*vals, *rest) if prepare is None else prepare(*vals, *rest)
                    try:
                        return fast_fn(*args)
                    except Exception as exc:
                        return fail((x1, x2, x3, *rest), exc, args)
            return general(x1, x2, x3, *rest)

        return triple

    if f.kind == "seq":

        def seq(xs, *rest):
            if type(xs) in _SEQUENCES and _same_dtype(xs, T, code, ok) and not (
                    nonempty and any(_has_zero(v) for v in xs)):
                xs = xs if type(xs) is list else list(xs)
                args = (xs, *rest) if prepare is None else prepare(xs, *rest)
                try:
                    return fast_fn(*args)
                except Exception as exc:
                    return fail((xs, *rest), exc, args)
            return general(xs, *rest)

        return seq

    if f.kind == "create":

        def create(*args):
            call = args
            if prepare is not None:
                args = prepare(*args)
            try:
                return fast_fn(*args)
            except Exception as exc:
                return fail(call, exc, args)

        return create

    weak = f.weak

    def binary(x1, x2):
        t1, t2 = type(x1), type(x2)
        if nonempty and (_has_zero(x1) or _has_zero(x2)):  # core answers: the general entry
            return general(x1, x2)
        if t1 is T:
            d = code(x1)
            if t2 is T:
                if d == code(x2) and d in ok:
                    try:
                        return fast_fn(x1, x2)
                    except Exception as exc:
                        return fail((x1, x2), exc)
            elif (t2 is float or t2 is int) and d in weak[t2]:
                if t2 is int:
                    _check_weak_int(op, x2, codes[d])
                try:
                    return fast_fn(x1, convert(x2, codes[d]))
                except Exception as exc:
                    return fail((x1, x2), exc)
        elif t2 is T and (t1 is float or t1 is int) and (d := code(x2)) in weak[t1]:
            if t1 is int:
                _check_weak_int(op, x1, codes[d])
            try:
                return fast_fn(convert(x1, codes[d]), x2)
            except Exception as exc:
                return fail((x1, x2), exc)
        elif t1 is SymbolicTensor or t2 is SymbolicTensor:
            return symbolic((x1, x2))
        return general(x1, x2)

    return binary


class _KeptCodes(dict):
    """dtype-code tuple -> whether ``promote`` keeps those dtypes as they are, computed on
    first lookup (``ok[codes]``: a C dict lookup once known)."""

    def __init__(self, codes, half, promote, x64, truth=False):
        super().__init__()
        self._codes, self._half, self._promote, self._x64 = codes, half, promote, x64
        self._truth = truth  # (an `AnyDtype` kernel: it reads the first operand as truth values)

    def __missing__(self, key):
        names = tuple(self._codes.get(k) for k in key)
        if self._truth and names[0] is not None:
            names = ("bool", *names[1:])
        with _dtypes.config._forced_x64(self._x64):  # (see `_Fast`)
            kept = None not in names and not set(names) & set(self._half) and _keeps(self._promote, names)
        self[key] = kept
        return kept


_DTYPE_ATTR = operator.attrgetter("dtype")
_SEQUENCES = (list, tuple)


def _same_dtype(xs, T, code, ok) -> bool:
    """Whether ``xs`` is a non-empty sequence of exact ``T`` tensors of one dtype (code) in
    ``ok``: the joins' fast path."""
    d = None
    for v in xs:
        if type(v) is not T:
            return False
        c = code(v)
        if d is None:
            d = c
        elif c != d:
            return False
    return d is not None and d in ok
_KERNEL = object()  # `_answer_empty`: the kernel answers this call


def late_dtype(rt, dtype, where: str) -> str:
    """The canonical name of a framework dtype missing from ``rt.dtypes``: a mapping may
    learn dtypes late through ``__missing__`` (the numpy plugin learns bfloat16 once
    ml_dtypes is loaded); else a TypeError naming ``where``."""
    try:
        return rt.dtypes[dtype]
    except (KeyError, TypeError):
        raise TypeError(f"{where}: unsupported dtype {dtype!r} on {rt.name}") from None


def _has_zero(v) -> bool:
    """Whether ``v`` is a tensor with a zero-size dimension (Python scalars are not)."""
    return 0 in getattr(v, "shape", ())


def _answer_empty(op, args, convert):
    """The result of ``op`` on ``args`` (promoted, one operand of zero size) built by core:
    the rule's output specs, filled with the op's ``empty`` value where a result is not
    itself zero-size; `_KERNEL` where core cannot (no ``empty`` declared, or a dimension
    unknown under a trace)."""
    out = op.rule(*_map_tensors(op, args, spec_of))
    specs = _flat_outputs(out)
    if any(None in t.shape for t in specs):
        return _KERNEL
    fills = None
    if not all(0 in t.shape for t in specs):
        if op.empty is None:
            return _KERNEL
        fills = op.empty(out, *args) if callable(op.empty) else op.empty
    leaves = iter(fills if isinstance(fills, tuple) else (fills,) * len(specs))

    def build(t):
        return convert(np.full(t.shape, next(leaves) if fills is not None else 0), t.dtype)

    return _tree.map_structure(
        lambda t: build(t) if isinstance(t, SymbolicTensor) else t, out)


def _narrow(result, compute, low, dtypes, convert):
    """``result`` with its tensors of dtype ``compute`` cast back to ``low``: the op ran on
    16-bit operands widened to its compute dtype."""
    if isinstance(result, (tuple, list)):
        return type(result)(_narrow(r, compute, low, dtypes, convert) for r in result)
    if dtypes.get(getattr(result, "dtype", None)) == compute:
        return convert(result, low)
    return result


def _tree_entry(op, fn, native):
    """The entry of a control-flow op: arguments are nested structures and callables;
    symbolic leaves anywhere send the call to the rule, which traces the callables.
    Leaves must be tensors, arrays, numbers, None, Variables or callables: anything else
    (a string, an arbitrary object) is a TypeError naming the op, on every backend."""
    symbolic = op.symbolic_call
    prepare = op.prepare

    def tree_entry(*args):
        bad = None  # the first leaf that is none of those (a symbolic leaf still wins)
        for i, arg in enumerate(args):
            for leaf in _tree.leaves(arg):
                if isinstance(leaf, SymbolicTensor):
                    return symbolic(args)
                if bad is None and not (
                        leaf is None or type(leaf) in _SCALAR_TYPES or isinstance(leaf, native)
                        or callable(leaf) or type(leaf) is Variable or _numeric_array(leaf)):
                    bad = i, arg, leaf
        if bad is not None:
            i, arg, leaf = bad
            name = op.params[min(i, len(op.params) - 1)]
            where = f"{name}={leaf!r:.60}" if leaf is arg else f"{leaf!r:.60} in {name}"
            raise TypeError(f"{op.name}: expected tensors, arrays, numbers or callables, "
                            f"got {type(leaf).__name__} {where}")
        if prepare is not None:
            args = prepare(*args)
        return fn(*args)

    return tree_entry


def _numeric_array(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "biufc"


_INT_RANGE = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max))
              for d in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")}


def _check_weak_int(op, value, dtype) -> None:
    """A Python int operand must fit the integer dtype the lattice casts it to (as in JAX)."""
    bounds = _INT_RANGE.get(dtype)
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"{op.name}: the Python integer {value} is out of range for {dtype} "
                         f"(the dtype of the other operand); cast it or the tensor first")


_WEAK_SCALARS = _promote.WEAK_SCALARS


def _keeps_weak(promote, dtype, weak) -> bool:
    """Whether ``promote`` casts a weak Python scalar to ``dtype`` beside a ``dtype`` tensor."""
    try:
        return tuple(promote((dtype, weak))) == (dtype, dtype) and tuple(promote((weak, dtype))) == (dtype, dtype)
    except TypeError:
        return False


def _keeps(promote, keys) -> bool:
    """Whether ``promote`` leaves operands of these dtypes as they are."""
    try:
        return promote(keys) == keys
    except TypeError:  # a dtype the op rejects takes the general path, which raises
        return False


def _checked_infer(op, v):
    try:
        return infer_dtype(v)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{op.name}: expected a tensor, array or number, got {type(v).__name__} {v!r:.80}"
        ) from exc


def _rescued(op, backend, entry, call, exc, kernel_args=None):
    """After op's kernel raised ``exc`` on ``call`` (the op's own arguments; the kernel got
    ``kernel_args``, when its prepare hook changed them): a sparse tensor of a class the
    backend shares with dense tensors (torch's layouts) is answered by `polyops._sparse.call`
    (``entry``: the op's general entry there); anything else raises the op's own error."""
    if _sparse.SHARED[0] and _sparse.rescue(op, backend, call):
        return _sparse.call(op, backend, call, entry)
    raise _diagnose(op, backend, call if kernel_args is None else kernel_args, exc) from exc


def _diagnose(op, backend, args, exc):
    """Turn a kernel failure into the op's own error, the same type on every backend."""
    if isinstance(exc, (KernelError, MissingKernelError, EagerOnlyError, NotDifferentiableError,
                        IndexOutOfRangeError)):  # already the op's own error
        return exc
    try:
        specs = _map_tensors(op, args, spec_of)
        op.rule(*specs)
    except (TypeError, ValueError, IndexError) as rule_exc:
        return rule_exc
    except Exception:  # the rule itself could not cope; report the kernel's failure
        pass
    inputs = ", ".join(_describe(v, backend.runtime) for _, _, v in _slot_values(op, args))
    return KernelError(
        f"{op.name}: the {backend.name} kernel failed on inputs ({inputs}): "
        f"{type(exc).__name__}: {_framework_message(exc)}"
    )


def _describe(v, rt) -> str:
    """An operand in polyops' words: ``float32[2, 3]``, or a Python value's type."""
    dtype = getattr(v, "dtype", None)
    shape = getattr(v, "shape", None)
    if dtype is None or shape is None:
        return type(v).__name__
    try:
        name = rt.dtypes.get(dtype) or _dtypes.standardize_dtype(dtype)
    except (TypeError, ValueError):
        name = str(dtype)
    return f"{name}{list(shape)}"


# What frameworks wrap around their own message: tf's graph-function node path and op
# suffix, C++ source locations (openvino, torch inductor), and openvino's node names.
_INTERNALS = re.compile(
    r"\{\{function_node [^}]*\}\}\s*"
    r"|\s*\[Op:[^\]]*\](?: name: \S*)?"
    r"|(?:Exception from )?\S*/\S+\.(?:cpp|cc|hpp|h|c|py)(?::\d+)*[:,]?\s*"
    r"|Node \S+ of type \S+\s*|Check '.*?' failed at\s*"
)


def _framework_message(exc: BaseException) -> str:
    """``exc``'s message on one line, without the framework's internals (a reader cannot
    act on them; the chained exception keeps the original)."""
    lines = (_INTERNALS.sub(" ", line).strip() for line in str(exc).splitlines())
    text = " ".join(line for line in lines if line)
    return text[:400] + (" ..." if len(text) > 400 else "")


def missing_kernel(op: Op, backend) -> Callable:
    def missing(*args):
        if _any_symbolic_operand(op, args):  # inference needs no kernel
            return op.symbolic_call(args)
        raise MissingKernelError(
            f"{op.name}: backend {backend.name!r} has no kernel for this op and the op "
            f"has no reference implementation; install a plugin that provides it"
        )

    return missing


# -- declaring ops -----------------------------------------------------------------

def _set_ref(op: Op, ref: Callable, host: bool = False) -> Callable:
    """Give ``op`` its reference; ``host`` marks one that reads its inputs to numpy and
    computes there (eager only: under a trace it raises TypeError naming the op)."""
    op.ref = _positional(ref)
    op.host = host
    return ref


def _positional(fn: Callable) -> Callable:
    """``fn`` callable with its keyword-only parameters given positionally, last."""
    code = getattr(fn, "__code__", None)
    if code is not None and not code.co_kwonlyargcount:  # (signature() is slow: import time)
        return fn
    sig = inspect.signature(fn)
    kwonly = [p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
    if not kwonly:
        return fn
    n = len(kwonly)

    def call(*args):
        return fn(*args[:-n], **dict(zip(kwonly, args[-n:])))

    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


_NAMESPACE: dict = {}


def defop(family: str, *, tensors=("x",), promote=_promote.preserve, prepare=None,
          elementwise=None, name=None, tree=False, compute=None, empty=None):
    """Declare an op from its rule; returns the generated public function.

    Args:
        family: "numpy", "nn", "core", ... (its module under `polyops.ops`).
        tensors: names of the tensor parameters; "xs[]" for a sequence of tensors.
        promote: a promotion kind from `polyops._promote` (None: no conversion).
        prepare: optional eager hook ``(*args) -> args`` that validates and
            canonicalizes static arguments (axes, dtypes) before the kernel.
        elementwise: "unary" or "binary" to get the fast eager path.
        tree: the arguments are nested structures of tensors and callables (control flow):
            no conversion; a SymbolicTensor anywhere in them calls the rule.
        compute: the dtype that float16/bfloat16 operands compute in ("float32"), for ops
            whose 16-bit results would overflow or lose bits in between (exp, softmax,
            norms...).  The entry casts such operands up before the kernel or reference and
            casts the outputs of that dtype back, on every backend; kernels and references
            never widen by hand.  None: every dtype computes in itself.
        empty: the value of a result that is not zero-size although an operand is (0 for
            sum, 1 for prod and det, NaN for mean...): a number, a tuple with one per
            output, or ``(out_specs, *args) -> fill``.  Where a backend's kernel takes no
            zero-size operand (`polyops.plugin.nonempty`), core answers such calls: a
            zero-size result from the rule's spec, any other from this fill; with no
            fill the kernel is called.

    The decorated function is the shape/dtype rule: it receives SymbolicTensors for
    tensor operands (Python scalars stay scalars) and returns the output spec(s).
    Attach a reference implementation with ``@public.reference``.
    """
    from . import _operation, _public, _registry

    if not _NAMESPACE:
        _NAMESPACE.update(_current=_registry._CURRENT.get, _default=_registry.default_getter(),
                          _rescued=_rescued, _same_dtype=_same_dtype, _dtype=_DTYPE_ATTR)

    def decorate(rule):
        op_name = name or rule.__name__
        if op_name in OPS:
            raise ValueError(f"defop: op {op_name!r} is already defined")
        op = Op(op_name, family, _named_errors(_positional(rule), op_name), tensors, promote, None,
                prepare, elementwise, tree, compute, empty, signature=inspect.signature(rule))
        OPS[op_name] = op
        op.public = _public.generate(op, rule, _NAMESPACE)
        op.operation = _operation.make_class(op)
        _registry.grow(op)
        return op.public

    return decorate


def _named_errors(rule: Callable, name: str) -> Callable:
    """``rule`` with promotion errors prefixed by the op's name."""

    def checked(*args, **kwargs):
        try:
            return rule(*args, **kwargs)
        except _promote.PromotionError as exc:
            raise TypeError(f"{name}: {exc}") from None

    checked.__name__ = rule.__name__
    checked.__doc__ = rule.__doc__
    checked.__wrapped__ = rule
    return checked
