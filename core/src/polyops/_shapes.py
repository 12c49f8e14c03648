"""Pure shape arithmetic with ``None`` for unknown dimensions.

Every function takes the op name so that its error names the op, following the
one template ``"<op>: expected <what>, got <value>"`` (ValueError for shapes and
axes, TypeError for dtypes and argument types).
"""

from __future__ import annotations

import operator


def broadcast_shapes(*shapes, op: str = "broadcast_shapes") -> tuple:
    """NumPy broadcasting of shapes whose dims may be ``None`` (unknown).

    An unknown dim against 1 or against another unknown stays unknown; against a
    known size ``n > 1`` it becomes ``n`` (the only value that can broadcast).

    Example:
        >>> broadcast_shapes((None, 3), (2, 1, 1))
        (2, None, 3)
    """
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        dim = 1
        for s in shapes:
            if -i > len(s):
                continue
            d = s[i]
            if d == 1:
                continue
            if dim == 1:
                dim = d
            elif d is None:
                continue
            elif dim is None:
                dim = d
            elif d != dim:
                raise ValueError(
                    f"{op}: expected broadcast-compatible shapes, got "
                    f"{', '.join(str(tuple(s)) for s in shapes)}"
                )
        out.append(dim)
    return tuple(out)


def canonicalize_axis(axis, ndim: int, op: str) -> int:
    """One axis as a non-negative int, or a ValueError naming the op."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{op}: expected an integer axis, got axis={axis!r}") from None
    if not -ndim <= a < ndim:
        raise ValueError(f"{op}: expected axis in [{-ndim}, {ndim}) for rank {ndim}, got axis={axis}")
    return a % ndim if ndim else a


def canonicalize_axes(axis, ndim: int, op: str):
    """``None`` or an int or a sequence of ints, as ``None`` or a sorted tuple of ints."""
    if axis is None:
        return None
    try:  # the eager path asks the same question again and again
        return _AXES_CACHE[(axis, ndim, op)]
    except (KeyError, TypeError):  # not seen yet, or a list (unhashable)
        pass
    out = _canonicalize_axes(axis, ndim, op)
    if len(_AXES_CACHE) > 4096:
        _AXES_CACHE.clear()
    try:
        _AXES_CACHE[(axis, ndim, op)] = out
    except TypeError:
        pass
    return out


_AXES_CACHE: dict = {}


def _canonicalize_axes(axis, ndim: int, op: str):
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(a, ndim, op) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{op}: expected distinct axes, got axis={tuple(axis)}")
        return tuple(sorted(axes))
    return (canonicalize_axis(axis, ndim, op),)


def reduce_shape(shape: tuple, axes, keepdims: bool) -> tuple:
    """The shape after reducing canonical ``axes`` (None = all)."""
    if axes is None:
        return (1,) * len(shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def normalize_shape(shape, op: str) -> tuple:
    """A user-given shape (int or sequence of int/None) as a tuple; checks types and signs."""
    if type(shape) is tuple:  # the usual case, checked in one loop (creation ops' fast path)
        for d in shape:
            if type(d) is not int or d < 0:
                break
        else:
            return shape
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{op}: expected a shape (a tuple of ints), got {shape!r}") from None
    out = []
    for d in dims:
        if d is None:
            out.append(None)
            continue
        try:
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"{op}: expected a shape of ints, got {shape!r}") from None
        if d < 0:
            raise ValueError(f"{op}: expected non-negative dimensions, got shape={dims}")
        out.append(d)
    return tuple(out)


def square_batch(shape, op: str) -> tuple:
    """The batch dims of a stack of square matrices ``(..., n, n)``; ValueError otherwise."""
    if len(shape) < 2:
        raise ValueError(f"{op}: expected a tensor of rank >= 2, got shape {tuple(shape)}")
    if shape[-1] is not None and shape[-2] is not None and shape[-1] != shape[-2]:
        raise ValueError(f"{op}: expected square matrices, got shape {tuple(shape)}")
    return tuple(shape[:-2])


def size_of(shape: tuple):
    """Number of elements, or None when a dim is unknown."""
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n
