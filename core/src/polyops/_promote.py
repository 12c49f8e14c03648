"""Promotion kinds: how an op maps its operands' dtype keys to the dtypes its kernel gets.

An op declares one of these once; kernels then receive inputs already cast, and
the op's shape/dtype rule uses the same function, so the symbolic dtype and the
eager dtype cannot drift apart.  Keys are canonical dtypes or the weak names
"int"/"float"/"complex" of Python scalars; ``None`` marks an absent operand.
Every function returns one target dtype (or None: leave as is) per key.
"""

from __future__ import annotations

from . import _dtypes, config

_CACHE: dict = {}


class PromotionError(TypeError):
    """An operand dtype the op does not accept; the op adds its name to the message."""


def cached(fn):
    """Memoize a promotion kind on (keys, floatx, 64-bit mode); the eager slow path calls
    it per call."""

    def promote(keys: tuple) -> tuple:
        k = (fn, keys, config._FLOATX, config._x64())
        try:
            return _CACHE[k]
        except KeyError:
            out = _CACHE[k] = fn(keys)
            return out

    promote.__name__ = fn.__name__
    promote.__doc__ = fn.__doc__
    promote.kind = fn  # type: ignore[attr-defined]
    return promote


def _present(keys):
    return [k for k in keys if k is not None]


def _each(keys, target):
    return tuple(None if k is None else target for k in keys)


@cached
def same(keys):
    """All operands to their common lattice dtype (add, maximum, where's branches...)."""
    present = tuple(_present(keys))
    if not present:  # e.g. concatenate([]): the op's own check reports it
        return keys
    return _each(keys, _dtypes.result_type_of_keys(present))


@cached
def floating(keys):
    """Common dtype, then ints and bools to floatx (divide, exp, sqrt, mean...)."""
    out = _dtypes.result_type_of_keys(tuple(_present(keys)))
    if out not in _dtypes.FLOAT_TYPES and out not in _dtypes.COMPLEX_TYPES:
        out = config.floatx()
    return _each(keys, out)


@cached
def boolean(keys):
    """Every operand to bool (logical_and, logical_not...)."""
    return _each(keys, "bool")


@cached
def preserve(keys):
    """Each operand keeps its own dtype, demoted to 32-bit outside 64-bit mode (reshape,
    transpose, argmax...)."""
    return tuple(None if k is None else _dtypes.result_type_of_keys((k,)) for k in keys)


@cached
def exact(keys):
    """Each operand keeps its own dtype, 64-bit included; only Python scalars resolve (view)."""
    return tuple(k if k is None or k not in _dtypes.WEAK_TYPES else _dtypes.result_type_of_keys((k,))
                 for k in keys)


@cached
def numeric(keys):
    """Like `same`, but bool becomes int32 (sign, abs, negative accept no bool in Keras)."""
    out = _dtypes.result_type_of_keys(tuple(_present(keys)))
    return _each(keys, "int32" if out == "bool" else out)


_SUM_WIDEN = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


@cached
def accumulate(keys):
    """Sums and products: bool and narrow ints widen to 32 bits, as JAX and Keras do."""
    (out,) = preserve(keys)
    return (_SUM_WIDEN.get(out, out),)


@cached
def matmul(keys):
    """Matrix products: the common dtype, with int8 x int8 accumulating in int32 (Keras)."""
    out = _dtypes.result_type_of_keys(tuple(keys))
    return _each(keys, "int32" if out in ("int8", "uint8") else out)


def ordered(kind):
    """``kind`` for ops that need ordered (real) dtypes: complex operands raise.

    Complex numbers have no order, and frameworks disagree on what max, floor or
    sign of a complex number mean; we reject them everywhere instead.
    """

    def check(keys):
        for k in keys:
            if k in _dtypes.COMPLEX_TYPES or k == "complex":
                raise PromotionError(f"expected real dtypes (complex has no order), got {k}")
        return kind(keys)

    check.__name__ = f"ordered_{kind.__name__}"
    return cached(check)


def integral(kind):
    """``kind`` for bit-level ops (bitwise_and, left_shift...): only bools and integers.

    Floats have no portable bit operations, so every backend rejects them alike.
    """

    def check(keys):
        for k in keys:
            if k is not None and (k in _dtypes.FLOAT_TYPES or k in _dtypes.COMPLEX_TYPES
                                  or k in ("float", "complex")):
                raise PromotionError(f"expected integer or bool dtypes, got {k}")
        return kind(keys)

    check.__name__ = f"integral_{kind.__name__}"
    return cached(check)


def clear() -> None:
    _CACHE.clear()


WEAK_SCALARS = frozenset((int, float))


def scalar_plan(promote, sig, codes, half):
    """For operands of signature ``sig`` (a tensor's dtype code, or the type of a Python
    int/float; ``codes`` maps codes to dtypes), the dtype each scalar is cast to (None for
    the tensors) when ``promote`` keeps every tensor's dtype and no scalar stays weak; else
    None.  (The three-operand ops' fast path with Python scalars, `polyops._op.make_entry`.)"""
    if all(s in WEAK_SCALARS for s in sig):
        return None  # (no tensor: the general entry decides)
    try:
        keys = tuple(_dtypes._WEAK_OF[s] if s in WEAK_SCALARS else codes[s] for s in sig)
        targets = tuple(promote(keys)) if promote is not None else None
    except (KeyError, TypeError, PromotionError):
        return None  # (a dtype the fast kernel lacks, or the op's error: the general entry)
    if targets is None or any(t in half for t in targets):
        return None
    plan = []
    for s, key, target in zip(sig, keys, targets):
        if s in WEAK_SCALARS:
            if target is None or target in _dtypes.WEAK_TYPES:
                return None
            plan.append(target)
        elif target != key:
            return None
        else:
            plan.append(None)
    return tuple(plan)
