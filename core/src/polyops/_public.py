"""The public function of each op, generated from its rule's signature.

The public function checks the op's fast path inline (see `polyops._op.fast_kind`): one
Python frame from the caller to the framework's kernel; anything else goes to the entry of
the backend in effect.  Its code points at the op's rule (`locate`), so tracebacks, editors
and ``inspect.getsourcefile`` open the rule, not generated text.
"""

from __future__ import annotations

import ast
import functools
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
        return (_current() or _default()).table[_index]({call})
    return op
"""
_FOLDED = """\
def _make(_index, _prepare, _op):
    def op({params}):
        _b = _current() or _default()
        _T, _ok, _k = _b.fast[_index]
        if {check}:
{body}
        return _b.table[_index]({call})
    return op
"""
# the kernel takes the call's own arguments (the tuple is built only if it fails) ...
_DIRECT = """\
            try:
                return _k({call})
            except Exception as _exc:
                raise _diagnose(_op, _b, ({call},), _exc) from _exc"""
# ... or those the op's prepare hook returns
_PREPARED = """\
            _args = _prepare({call})
            try:
                return _k(*_args)
            except Exception as _exc:
                raise _diagnose(_op, _b, _args, _exc) from _exc"""
_ONE_TENSOR = "type({x}) is _T and {x}.dtype in _ok"
_CHECKS = {
    "binary": "type({x}) is _T and type({y}) is _T and (_d := {x}.dtype) is {y}.dtype and _d in _ok",
    "unary": _ONE_TENSOR,
    "single": _ONE_TENSOR,
    "pair": "type({x}) is _T and type({y}) is _T and ({x}.dtype, {y}.dtype) in _ok",
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
    if kind is not None and any(n.startswith("_") or n == "type" for n in op.params):
        raise ValueError(f"{op.name}: parameter names must not start with '_' nor be 'type' "
                         "(the public function's locals)")
    key = (kind, op.prepare is not None, tuple(params), tuple(call))
    make = _MAKERS.get(key)
    if make is None:
        if kind is None:
            src = _PLAIN.format(params=", ".join(params), call=", ".join(call))
        else:
            x, y, z = (call + ["", ""])[:3]
            body = (_DIRECT if op.prepare is None else _PREPARED).format(call=", ".join(call))
            src = _FOLDED.format(params=", ".join(params), call=", ".join(call), body=body,
                                 check=_CHECKS[kind].format(x=x, y=y, z=z))
        if _FLAT_LINES:  # `locate` maps the whole body to the rule's first line
            exec(compile(src, "<polyops generated op>", "exec"), namespace)
        else:  # Python 3.10: the same through the AST (slower: import time matters)
            tree = ast.parse(src)
            for node in ast.walk(tree):
                if "lineno" in node._attributes:
                    node.lineno = node.end_lineno = 1
            exec(compile(tree, "<polyops generated op>", "exec"), namespace)
        make = _MAKERS[key] = namespace.pop("_make")
    fn = make(op.index, op.prepare, op)
    code = rule.__code__
    locate(fn, op.name, code.co_filename, code.co_firstlineno)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__defaults__ = rule.__defaults__
    fn.__kwdefaults__ = rule.__kwdefaults__
    fn.__doc__ = rule.__doc__
    fn.__module__ = rule.__module__
    fn.op = op
    fn.reference = lambda ref: _set_ref(op, ref)
    fn.host_reference = lambda ref: _set_ref(op, ref, host=True)
    return fn


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
