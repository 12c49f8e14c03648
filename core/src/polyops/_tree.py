"""Nested structures (lists, tuples, namedtuples, dicts) of tensors, as ``keras.tree``.

Everything that is not a list, tuple or dict is a leaf (None included).  Dicts flatten in
sorted key order, as in JAX and Keras.
"""

from __future__ import annotations

_LEAF = None


class TreeDef:
    """The shape of a nested structure: rebuild it from its leaves with `unflatten`."""

    __slots__ = ("kind", "meta", "children", "num_leaves", "_hash")

    def __init__(self, kind, meta, children):
        self.kind = kind  # "leaf", "list", "tuple", "namedtuple", "dict"
        self.meta = meta  # the namedtuple type, or the dict's sorted keys
        self.children = children
        self.num_leaves = 1 if kind == "leaf" else sum(c.num_leaves for c in children)
        self._hash = hash((kind, meta if kind != "dict" else tuple(meta), children))

    def __eq__(self, other):
        return (isinstance(other, TreeDef) and self._hash == other._hash and self.kind == other.kind
                and self.meta == other.meta and self.children == other.children)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children)) + "}"
        return f"[{inner}]" if self.kind == "list" else f"({inner})"


LEAF = TreeDef("leaf", None, ())


def flatten(tree) -> tuple[list, TreeDef]:
    """``(leaves, treedef)`` of a nested structure."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(x, leaves):
    if isinstance(x, list):
        return TreeDef("list", None, tuple(_flatten(y, leaves) for y in x))
    if isinstance(x, tuple):
        if hasattr(x, "_fields"):
            return TreeDef("namedtuple", type(x), tuple(_flatten(y, leaves) for y in x))
        return TreeDef("tuple", None, tuple(_flatten(y, leaves) for y in x))
    if isinstance(x, dict):
        keys = sorted(x)
        return TreeDef("dict", tuple(keys), tuple(_flatten(x[k], leaves) for k in keys))
    leaves.append(x)
    return LEAF


def unflatten(treedef: TreeDef, leaves) -> object:
    """The structure ``treedef`` describes, with ``leaves`` in flatten's order."""
    it = iter(leaves)
    out = _build(treedef, it)
    return out


def _build(td, it):
    if td.kind == "leaf":
        return next(it)
    items = [_build(c, it) for c in td.children]
    if td.kind == "list":
        return items
    if td.kind == "tuple":
        return tuple(items)
    if td.kind == "namedtuple":
        return td.meta(*items)
    return dict(zip(td.meta, items))


def map_structure(fn, tree, *rest):
    """``fn`` applied to the leaves of ``tree`` (and of the same-shaped ``rest``)."""
    leaves, td = flatten(tree)
    if not rest:
        return unflatten(td, [fn(x) for x in leaves])
    others = []
    for r in rest:
        lv, rtd = flatten(r)
        if rtd != td:
            raise ValueError(f"map_structure: structures differ: {td!r} and {rtd!r}")
        others.append(lv)
    return unflatten(td, [fn(*xs) for xs in zip(leaves, *others)])


def leaves(tree) -> list:
    return flatten(tree)[0]
