"""Shared pieces of the op families: spec helpers and the elementwise factories."""

from __future__ import annotations

import inspect
import operator
import re
from typing import Callable

from .. import _dtypes, _promote, config
from .._op import defop
from .._shapes import broadcast_shapes
from .._symbolic import SymbolicTensor

_WEAK = {bool: "bool", int: "int", float: "float", complex: "complex"}


def key(x) -> str:
    """Promotion key of a rule operand: its dtype, or a weak name for a Python scalar."""
    if isinstance(x, SymbolicTensor):
        return x.dtype
    return _WEAK[type(x)]


def shape_of(x) -> tuple:
    return x.shape if isinstance(x, SymbolicTensor) else ()


def ndim_of(x) -> int:
    return len(shape_of(x))


def spec(shape, dtype) -> SymbolicTensor:
    return SymbolicTensor(shape, dtype)


def check_tensor(op: str, name: str, x) -> None:
    if not isinstance(x, (SymbolicTensor, bool, int, float, complex)):
        raise TypeError(f"{op}: expected a tensor for {name!r}, got {type(x).__name__}")


def memo(fn: Callable, size: int = 512) -> Callable:
    """``fn`` of static arguments (shapes, axes, offsets: hashable), its results kept by
    the arguments and their types (``1`` and ``True`` differ).  Eager prepare hooks of view
    ops and joins call it with the same arguments on every step of a loop, and their checks
    cost more than the view itself.  A failing call raises each time (nothing is kept);
    unhashable arguments are not kept either."""
    kept: dict = {}

    def cached(*args):
        key = (*args, *map(type, args))
        try:
            return kept[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument
            return fn(*args)
        out = fn(*args)
        if len(kept) < size:
            kept[key] = out
        return out

    cached.__wrapped__ = fn
    cached.__name__ = fn.__name__
    cached.__doc__ = fn.__doc__
    return cached


def unary(name, *, family="numpy", promote=_promote.preserve, out=None, doc="", compute=None):
    """Declare a one-operand elementwise op; ``out`` fixes the output dtype (e.g. "bool");
    ``compute``: see `defop`."""

    def rule(x):
        check_tensor(name, "x", x)
        (dtype,) = promote((key(x),))
        return SymbolicTensor(shape_of(x), out or dtype)

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    return defop(family, tensors=("x",), promote=promote, elementwise="unary",
                 compute=compute)(rule)


def binary(name, *, family="numpy", promote=_promote.same, out=None, doc="", params=("x1", "x2"),
           compute=None, fast="binary"):
    """Declare a two-operand broadcasting elementwise op (``params`` names its operands);
    ``compute``: see `defop`; ``fast="pair"``: the eager fast path takes operands of two
    dtypes that promotion keeps (ldexp's float and int exponent), not one dtype."""
    a, b = params

    def rule(x1, x2):
        if type(x1) is SymbolicTensor and type(x2) is SymbolicTensor:  # the common case
            dtype, _ = promote((x1.dtype, x2.dtype))
            shape = x1.shape
            if x2.shape != shape:
                shape = broadcast_shapes(shape, x2.shape, op=name)
            return SymbolicTensor(shape, out or dtype)
        check_tensor(name, a, x1)
        check_tensor(name, b, x2)
        dtype, _ = promote((key(x1), key(x2)))
        return SymbolicTensor(broadcast_shapes(shape_of(x1), shape_of(x2), op=name), out or dtype)

    if params != ("x1", "x2"):  # the rule's parameter names are the public keywords
        ns: dict = {}
        exec(f"def rule({a}, {b}):\n    return _rule({a}, {b})", {"_rule": rule}, ns)
        rule = ns["rule"]
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    return defop(family, tensors=params, promote=promote, elementwise=fast,
                 compute=compute)(rule)


def dtype_arg(op: str, dtype, default=None):
    """A ``dtype=`` argument as a canonical string (None -> ``default`` or floatx)."""
    if dtype is None:
        return default or config.floatx()
    try:
        return _dtypes.standardize_dtype(dtype)
    except TypeError:
        raise TypeError(f"{op}: expected a dtype, got dtype={dtype!r}") from None


def int_arg(op: str, name: str, value) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}: expected an integer {name}, got {name}={value!r}") from None


def to_host(op: str, x):
    """Read a concrete tensor into a ``numpy.ndarray`` for a host computation.

    Host computations (an op whose reference is declared with ``@op.host_reference``)
    are eager only: under a trace (jax.jit, tf.function) the framework cannot hand
    over values, and this raises `polyops.EagerOnlyError` (a TypeError) naming the op and
    the backend.  Under differentiation (``x`` on the framework's autodiff tape) the host
    result would be a constant with zero gradient: this raises
    `polyops.NotDifferentiableError` naming the op and the backend instead.  Kernels that
    give a host computation a gradient of their own run it with ``x`` off the tape.
    """
    from .._op import EagerOnlyError, NotDifferentiableError

    if isinstance(x, SymbolicTensor):
        raise EagerOnlyError(f"{op}: computes on the host (eager only); got a SymbolicTensor")
    from .._registry import current
    from .core import convert_to_numpy

    backend = current()
    on_tape = backend.runtime.on_tape
    if on_tape is not None and on_tape(x):
        raise NotDifferentiableError(
            f"{op}: computes on the host with numpy on the {backend.name} backend, outside "
            f"its autodiff: it cannot be differentiated there (the gradient would be zeros)")

    try:
        return convert_to_numpy(x)
    except Exception as exc:  # a tracer: jax ConcretizationTypeError, tf symbolic tensor...
        raise EagerOnlyError(
            f"{op}: computes on the host with numpy (eager only) on the {backend.name} "
            f"backend, and cannot run under a trace ({type(exc).__name__})") from exc


def from_host(value, dtype: str):
    """A host result (numpy array or scalar) as a tensor of the current backend, in ``dtype``."""
    from .core import convert_to_tensor

    import numpy as np

    return convert_to_tensor(np.asarray(value), dtype)


_ASSIGNMENT = re.compile(r"^(\w+)\s*=", re.MULTILINE)


def _assignment_lines(path: str) -> dict[str, int]:
    """name -> the line of its first top-level ``name = ...`` in the file (one pass: a
    pattern per op cost a regex compile each, ~30 ms of start-up)."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    lines: dict[str, int] = {}
    line, pos = 1, 0
    for m in _ASSIGNMENT.finditer(source):
        line += source.count("\n", pos, m.start())
        pos = m.start()
        lines.setdefault(m.group(1), line)
    return lines


def finish(namespace: dict) -> None:
    """End an op module: claim the ops its static ``__all__`` lists, add their Operation
    classes (``Add``, ``Sum``...) to it, and publish its names (`polyops.ops._lazy`).

    An op declared through a factory (``abs = unary("abs", ...)``) has a rule written inside
    the factory; here it gets the declaring module as ``__module__`` and the line of its
    ``name = factory(...)`` statement as the source location of its public function.
    """
    from .._public import locate

    here, path = namespace["__name__"], namespace["__file__"]
    lines = None
    for name in namespace["__all__"]:
        fn = namespace.get(name)
        op = getattr(fn, "op", None)
        if op is None or op.public is not fn or op.name != name:
            continue  # an Operation class (added below), an alias or a plain function
        code = inspect.unwrap(op.rule).__code__  # the rule as written
        if "<locals>" in code.co_qualname or code.co_filename != path:
            if lines is None:
                lines = _assignment_lines(path)
            line = lines.get(name)
            if line is not None:
                locate(fn, name, path, line)
        fn.__module__ = op.operation.__module__ = here
        namespace[op.operation.__name__] = op.operation
    from ._lazy import publish

    publish(namespace)
