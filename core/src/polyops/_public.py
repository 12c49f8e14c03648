"""The public function of each op, generated from its rule's signature.

The public function checks the op's fast path inline (see `polyops._op.fast_kind`): one
Python frame from the caller to the framework's kernel; anything else goes to the entry of
the backend in effect.  Its code points at the op's rule (`locate`), so tracebacks, editors
and ``inspect.getsourcefile`` open the rule, not generated text.

Two mistakes get the op's own error instead of Python's or a framework's:

- Other frameworks' names for the op's parameters (``ops.sum(x, dim=1)``): the function
  has hidden parameters named ``dim``, ``keepdim``, ``input``, ``other`` (those that map to
  one of the op's parameters; ``__signature__`` shows the op's own), defaulting to ``...``,
  and checks them first: about 8 ns a call (``ops.add(a, b)`` on numpy arrays: 384 -> 393
  ns).  (A ``**kwargs`` catch-all costs a dict and CPython's call specialization on every
  call: about 30 ns.)
- An operand another framework will not hand over (a torch tensor that requires grad, on
  another backend): the entry's failure is caught (``try`` costs nothing until it raises)
  and explained by `foreign_error`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import marshal
import os
import sys
from typing import Callable

from ._op import Op, _set_ref, fast_kind

# The public function of an op with a fast path checks it inline (one Python frame
# from the caller to the framework's kernel) and calls the entry for everything else.
# ``_k`` is the fast kernel of the backend in effect, from its ``fast`` table; locals
# start with an underscore so that no op parameter (tril's ``k``) is shadowed.
_PLAIN = """\
def _make(_index, _prepare, _op):
    def op({params}):
{guard}        try:
            return (_current() or _default()).table[_index]({call})
        except Exception as _exc:
            _e = _explain(_op, _exc, {args}{given})
            if _e is None:
                raise
            raise _e from _exc
    return op
"""
_FOLDED = """\
def _make(_index, _prepare, _op):
    def op({params}):
{guard}        _b = _current() or _default()
        _T, _ok, _k = _b.fast[_index]
        if {check}:
{body}
        try:
            return _b.table[_index]({call})
        except Exception as _exc:
            _e = _explain(_op, _exc, {args}{given})
            if _e is None:
                raise
            raise _e from _exc
    return op
"""
# the hidden parameters' check: any of them given is a mistake (see the module's docstring)
_GUARD = """\
        if {given}:
            raise _unexpected(_op, {values}, {args})
"""
# the kernel takes the call's own arguments (the tuple is built only if it fails) ...
_DIRECT = """\
            try:
                return _k({call})
            except Exception as _exc:
                return _rescued(_op, _b, _b.table[_index], ({call},), _exc)"""
# ... or those the op's prepare hook returns
_PREPARED = """\
            _args = _prepare({call})
            try:
                return _k(*_args)
            except Exception as _exc:
                return _rescued(_op, _b, _b.table[_index], ({call},), _exc, _args)"""
_ONE_TENSOR = "type({x}) is _T and {x}.dtype in _ok"
_CHECKS = {
    "binary": "type({x}) is _T and type({y}) is _T and (_d := {x}.dtype) is {y}.dtype and _d in _ok",
    "unary": _ONE_TENSOR,
    "single": _ONE_TENSOR,
    "pair": "type({x}) is _T and type({y}) is _T and _ok[({x}.dtype, {y}.dtype)]",
    "triple": ("type({x}) is _T and type({y}) is _T and type({z}) is _T "
               "and _ok[({x}.dtype, {y}.dtype, {z}.dtype)]"),
    # (tuples take the entry, which passes kernels a list)
    "seq": "type({x}) is list and _same_dtype({x}, _T, _dtype, _ok)",
    "create": "_k is not None",
}
_MAKERS: dict[tuple, Callable] = {}


def generate(op: Op, rule: Callable, namespace: dict) -> Callable:
    """The public function: the rule's signature, the op's inline fast path (see
    `fast_kind`), else one table lookup and one call of the entry.

    Code is compiled once per distinct (template, parameter list) (import time matters)
    and the op's table index, prepare hook and record are bound in closure cells.
    """
    params = []
    call = []
    hidden = aliases(op)
    for p in op.signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            params.append("*" + p.name)
            call.append("*" + p.name)
        elif p.kind is p.KEYWORD_ONLY:
            if not any(s.startswith("*") for s in params):
                params.append("*")
            params.append(p.name)
            call.append(p.name)
        elif p.kind is p.VAR_KEYWORD:
            raise TypeError(f"{op.name}: ops take no **kwargs")
        else:
            params.append(p.name)
            call.append(p.name)
    kind = fast_kind(op)
    if any(n.startswith("_") or (n == "type" and kind is not None) for n in op.params):
        raise ValueError(f"{op.name}: parameter names must not start with '_' nor be 'type' "
                         "(the public function's locals)")
    args = f"({', '.join(call)},)" if call else "()"
    guard = given = ""
    if hidden:
        params += [f"{n}=..." for n in hidden]
        # one identity test per hidden parameter but the first: they all default to the
        # same ``...``, so any one given breaks the chain (unless every one of them is given
        # the same object: ``ops.add(a, b, c, c)`` goes unnoticed)
        names = list(hidden)
        chain = " or ".join(f"{a} is not {b}" for a, b in zip(names, names[1:]))
        values = "{" + ", ".join(f"{n!r}: {n}" for n in hidden) + "}"
        guard = _GUARD.format(given=chain or f"{names[0]} is not ...", values=values, args=args)
        given = ", " + values  # (a failure explains hidden parameters given the same object)
    key = (kind, op.prepare is not None, tuple(params), tuple(call))
    if "_explain" not in namespace:
        namespace.update(_explain=explain, _unexpected=unexpected)
    make = _MAKERS.get(key)
    if make is None:
        if kind is None:
            src = _PLAIN.format(params=", ".join(params), call=", ".join(call), guard=guard,
                                args=args, given=given)
        else:
            x, y, z = (call + ["", ""])[:3]
            body = (_DIRECT if op.prepare is None else _PREPARED).format(call=", ".join(call))
            src = _FOLDED.format(params=", ".join(params), call=", ".join(call), body=body,
                                 check=_CHECKS[kind].format(x=x, y=y, z=z), guard=guard,
                                 args=args, given=given)
        exec(_code(src), namespace)
        make = _MAKERS[key] = namespace.pop("_make")
    fn = make(op.index, op.prepare, op)
    code = rule.__code__
    locate(fn, op.name, code.co_filename, code.co_firstlineno)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__defaults__ = rule.__defaults__
    if hidden:  # (the source's "=..." only made the function compile; these are its defaults)
        # required tensors default to ``...`` too, so that ``ops.add(x, other=y)`` reaches
        # the check: a tensor left out fails the entry, which `explain` reports as missing
        filled = _unfilled(op)
        fn.__defaults__ = (...,) * len(filled) + (rule.__defaults__ or ()) + (...,) * len(hidden)
        fn.__signature__ = op.signature
    fn.__kwdefaults__ = rule.__kwdefaults__
    fn.__doc__ = rule.__doc__
    fn.__module__ = rule.__module__
    fn.op = op
    fn.reference = lambda ref: _set_ref(op, ref)
    fn.host_reference = lambda ref: _set_ref(op, ref, host=True)
    return fn


# -- generated code, cached on disk ------------------------------------------------------
# Compiling the ~150 distinct public-function sources costs ~30 ms of every start-up; like
# Python's own .pyc files, the code objects are kept in the package's __pycache__ (keyed
# by their source text, for this interpreter's cache tag), read in one marshal load, and
# written (when bytecode may be written there) after each op module has loaded.
_CACHE_VERSION = 1
_cache: dict | None = None  # source -> code object, from the file
_used: dict = {}  # source -> code object, of this process
_cache_dirty = False


_compiled = 0  # sources compiled (not found in the cache) by this process


def _cache_path() -> str | None:
    """Where the cache lives: beside this module's own .pyc (``__pycache__``, or the tree
    under ``sys.pycache_prefix`` when that is set, as for .pyc files)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    folder = (os.path.join(here, "__pycache__") if sys.pycache_prefix is None
              else os.path.join(sys.pycache_prefix, here.lstrip(os.sep)))
    return os.path.join(folder, f"_public_generated.{tag}.marshal")


def _code(src: str):
    """The code object of a generated source: from the cache, else compiled."""
    global _cache, _cache_dirty, _compiled
    if _cache is None:
        _cache = _read_cache()
    code = _used.get(src) or _cache.get(src)
    if code is None:
        if _FLAT_LINES:  # `locate` maps the whole body to the rule's first line
            code = compile(src, "<polyops generated op>", "exec")
        else:  # Python 3.10: the same through the AST (slower: import time matters)
            tree = ast.parse(src)
            for node in ast.walk(tree):
                if "lineno" in node._attributes:
                    node.lineno = node.end_lineno = 1
            code = compile(tree, "<polyops generated op>", "exec")
        _cache_dirty = True
        _compiled += 1
    _used[src] = code
    return code


def _read_cache() -> dict:
    path = _cache_path()
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            version, table = marshal.load(f)
    except Exception:  # none yet, unreadable, or written by another build: compile
        return {}
    return table if version == (_CACHE_VERSION, _version()) and type(table) is dict else {}


def save_cache() -> None:
    """Write the generated code this process used, when any of it was compiled here and
    bytecode may be written (``PYTHONDONTWRITEBYTECODE`` unset, the folder writable)."""
    global _cache_dirty
    path = _cache_path()
    if not _cache_dirty or path is None or sys.dont_write_bytecode:
        return
    _cache_dirty = False
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            # (the file's code too: a process that loaded a few op modules keeps the rest)
            marshal.dump(((_CACHE_VERSION, _version()), {**(_cache or {}), **_used}), f)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new
    except OSError:
        pass  # a read-only install: compile on each start, as before


def _version() -> str:
    from . import __version__

    return __version__


def aliases(op: Op) -> dict[str, str]:
    """Other frameworks' names for ``op``'s parameters, ``{alias: the op's parameter}``:
    torch's ``dim``, ``keepdim``, ``input`` and ``other`` (tensorflow's ``axis`` and
    ``keepdims`` are Keras's too).  None for ops with ``*args`` or keyword-only parameters
    (hidden parameters would have to be keyword-only: slower calls).  ``_more`` comes first
    where ``input`` does not, to catch extra positional arguments."""
    kinds = {p.kind for p in op.signature.parameters.values()}
    if kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY}:
        return {}
    params = op.params
    tensors = [params[pos] for pos, seq in op.tensor_slots if not seq]
    out = {}
    # Extra positional arguments land in the first hidden parameter: ``input`` (which an
    # error then names as either), else ``_more``, so that ``dim`` and ``keepdim`` only
    # ever come as keywords.
    if tensors:  # torch's input; in a loss, torch's input is the prediction
        out["input"] = "output" if "output" in params else tensors[0]
    if len(tensors) > 1 and tensors[1] in ("x2", "y", "b"):
        out["other"] = tensors[1]
    if "axis" in params:
        out["dim"] = "axis"
    if "keepdims" in params:
        out["keepdim"] = "keepdims"
    out = {a: p for a, p in out.items() if a not in params}
    return out if not out or "input" in out else {"_more": "", **out}


def _unfilled(op: Op) -> tuple[str, ...]:
    """The required parameters a public function with hidden parameters defaults to ``...``:
    all of them when they are all tensors (which never take ``...``), else none."""
    required = tuple(p.name for p in op.signature.parameters.values() if p.default is p.empty)
    tensors = {op.params[pos] for pos, seq in op.tensor_slots if not seq}
    return required if not op.tree and set(required) <= tensors else ()


def unexpected(op: Op, given: dict, args: tuple) -> TypeError:
    """The error for hidden parameters given a value (see `aliases`): the op, the parameters
    meant, and the op's own signature."""
    names = aliases(op)
    got = [a for a, v in given.items() if v is not ...]
    sig = f"polyops takes Keras's names: {op.name}{op.signature}"
    if got[0] == "_more":
        return TypeError(f"{op.name}: got more positional arguments than it takes "
                         f"({op.name}{op.signature})")
    meant = ", ".join(repr(names[a]) for a in got)
    if got[0] == "input" and not any(a is ... for a in args):
        # extra positional arguments land in ``input``: either mistake is possible
        return TypeError(f"{op.name}: got more positional arguments than it takes, or an "
                         f"unexpected keyword argument 'input' (did you mean {meant}?); {sig}")
    what = (f"an unexpected keyword argument {got[0]!r}" if len(got) == 1 else
            "unexpected keyword arguments " + ", ".join(map(repr, got)))
    return TypeError(f"{op.name}: got {what}; did you mean {meant}? ({sig})")


def explain(op: Op, exc: BaseException, args: tuple, given: dict | None = None) -> TypeError | None:
    """The op's own error for a failed call that Python or the framework would explain
    badly, else None (``exc`` stands): hidden parameters given (``given``: see `aliases`),
    a required tensor left out (see `_unfilled`), or an operand another framework will not
    hand over (a torch tensor that requires grad)."""
    if given and any(v is not ... for v in given.values()):
        return unexpected(op, given, args)
    filled = _unfilled(op) if aliases(op) else ()
    missing = [n for n, v in zip(op.params, args) if v is ... and n in filled]
    if missing:
        return TypeError(f"{op.name}: missing required argument "
                         f"{', '.join(map(repr, missing))} ({op.name}{op.signature})")
    if str(exc).startswith(f"{op.name}:"):  # already the op's own error
        return None
    return foreign_error(op.name, op.params, args)


def foreign_error(name: str, params, args) -> TypeError | None:
    """The error of function ``name`` (parameters ``params``) given ``args`` when one of them
    is a tensor the backend in effect cannot read because its framework will not hand it
    over (a torch tensor that requires grad), else None."""
    from ._registry import current
    from ._state import Variable

    backend = current()
    native = backend.runtime.tensor_types if backend.runtime is not None else ()
    for pos, arg in enumerate(args):
        seq = isinstance(arg, (list, tuple))
        for i, v in enumerate(arg if seq else (arg,)):
            if type(v) is Variable:
                v = v.value
            if getattr(v, "requires_grad", False) is True and not isinstance(v, native):
                what = params[min(pos, len(params) - 1)] + (f"[{i}]" if seq else "")
                framework = type(v).__module__.split(".")[0]
                return TypeError(
                    f"{name}: expected a tensor the {backend.name} backend can read for "
                    f"{what!r}, got a {framework}.{type(v).__name__} that requires grad; pass "
                    f"{what}.detach() (gradients do not flow across frameworks), or compute on "
                    f"the {framework} backend")
    return None


def locate(fn: Callable, name: str, filename: str, line: int) -> None:
    """Name a generated public function's code ``name`` and point it at its op's source
    (``filename``, ``line``): tracebacks, ``inspect.getsourcefile`` and editors then open the
    op's rule, not generated text."""
    code = fn.__code__.replace(co_name=name, co_qualname=name, co_filename=filename,
                               co_firstlineno=line)
    if _FLAT_LINES:
        code = code.replace(co_linetable=_flat_linetable(len(code.co_code) // 2))
    fn.__code__ = code


# Python >= 3.11 location tables (Objects/locations.md): one entry per up to 8 code units,
# "no columns" form (code 13) with a line delta of 0 from co_firstlineno
_FLAT_LINES = sys.version_info >= (3, 11)


@functools.lru_cache(maxsize=None)
def _flat_linetable(units: int) -> bytes:
    """A location table mapping ``units`` code units, all of them, to ``co_firstlineno``."""
    out = bytearray()
    while units > 0:
        n = min(units, 8)
        out += bytes((0x80 | (13 << 3) | (n - 1), 0))
        units -= n
    return bytes(out)
