"""Nested structures (lists, tuples, namedtuples, dicts) of tensors, as ``keras.tree``.

Everything that is not a list, tuple or dict is a leaf (None included).  Dicts flatten in
sorted key order, as in JAX and Keras.

A *treedef* is a plain nested tuple, cheap to build, hash and compare (`polyops.jit`
flattens its arguments on every call): `LEAF` for a leaf, ``(list, *children)``,
``(tuple, *children)``, ``(NamedTupleType, *children)`` or ``(dict, keys, *children)``.
"""

from __future__ import annotations

LEAF = "*"


def flatten(tree) -> tuple[list, object]:
    """``(leaves, treedef)`` of a nested structure."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


_NODES = (tuple, list, dict)


def _flatten(x, leaves):
    t = type(x)
    if t is tuple or t is list:
        out = [t]
        for y in x:  # leaves inline: a call per leaf would double the cost
            if isinstance(y, _NODES):
                out.append(_flatten(y, leaves))
            else:
                leaves.append(y)
                out.append(LEAF)
        return tuple(out)
    if t is dict:
        keys = tuple(sorted(x))
        return (dict, keys, *[_flatten(x[k], leaves) for k in keys])
    if isinstance(x, tuple):  # a namedtuple, or another tuple subclass
        kind = t if hasattr(x, "_fields") else tuple
        return (kind, *[_flatten(y, leaves) for y in x])
    if isinstance(x, list):
        return (list, *[_flatten(y, leaves) for y in x])
    if isinstance(x, dict):
        keys = tuple(sorted(x))
        return (dict, keys, *[_flatten(x[k], leaves) for k in keys])
    leaves.append(x)
    return LEAF


def unflatten(treedef, leaves) -> object:
    """The structure ``treedef`` describes, with ``leaves`` in flatten's order."""
    return _build(treedef, iter(leaves))


def _build(td, it):
    if td is LEAF:
        return next(it)
    kind = td[0]
    if kind is dict:
        return dict(zip(td[1], [_build(c, it) for c in td[2:]]))
    items = [_build(c, it) for c in td[1:]]
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    return kind(*items)  # a namedtuple


def num_leaves(treedef) -> int:
    if treedef is LEAF:
        return 1
    return sum(num_leaves(c) for c in treedef[2 if treedef[0] is dict else 1:])


def describe(treedef) -> str:
    """A readable form of ``treedef`` for messages: ``(*, [*, *], {'a': *})``."""
    if treedef is LEAF:
        return "*"
    kind = treedef[0]
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {describe(c)}" for k, c in zip(treedef[1], treedef[2:])) + "}"
    inner = ", ".join(describe(c) for c in treedef[1:])
    if kind is list:
        return f"[{inner}]"
    if kind is tuple:
        return f"({inner}{',' if len(treedef) == 2 else ''})"
    return f"{kind.__name__}({inner})"


def map_structure(fn, tree, *rest):
    """``fn`` applied to the leaves of ``tree`` (and of the same-shaped ``rest``)."""
    leaves, td = flatten(tree)
    if not rest:
        return unflatten(td, [fn(x) for x in leaves])
    others = []
    for r in rest:
        lv, rtd = flatten(r)
        if rtd != td:
            raise ValueError(f"map_structure: structures differ: {describe(td)} and {describe(rtd)}")
        others.append(lv)
    return unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


def leaves(tree) -> list:
    return flatten(tree)[0]
