"""Rearranging, joining and splitting tensors: roll, tile, repeat, hstack, split...

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.

Every op here has a reference built from base primitives (reshape, transpose,
take, concatenate, get_item, flip, broadcast_to); index arrays are computed in
Python from static shapes.  Each ``prepare`` canonicalizes the static arguments,
and the comment above it states what a native kernel receives.
"""

from __future__ import annotations

import builtins
import math
import operator

from ... import _promote
from ..._op import defop
from ..._shapes import canonicalize_axis
from ..._shapes import size_of as _size_of
from ..._symbolic import SymbolicTensor
from .._base import check_tensor as _check_tensor
from .._base import finish as _finish
from .._base import int_arg, key, memo, shape_of, spec
from ..core import convert_to_tensor as _convert_to_tensor
from ..core import dtype as _dtype_of
from ..core import shape as _shape_of
from ._shapes import _concat_shape
from .base import (
    arange,
    broadcast_to,
    concatenate,
    flip,
    get_item,
    not_equal,
    reshape,
    subtract,
    take,
    transpose,
)

_bsum, _bmax = builtins.sum, builtins.max  # ops shadow the builtins


def _preserve(x) -> str:
    return _promote.preserve((key(x),))[0]


def _rank_at_least(op, shape, n):
    if len(shape) < n:
        raise ValueError(f"{op}: expected a tensor of rank >= {n}, got shape={tuple(shape)}")


def _index_tensor(indices):
    """A static list of indices as an int32 tensor of the current backend."""
    return _convert_to_tensor(list(indices), "int32") if indices else arange(0)


def _ints(op, name, value) -> tuple:
    """An int or a sequence of ints as a tuple of Python ints (TypeError naming ``name``)."""
    try:
        return (operator.index(value),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"{op}: expected an int or a sequence of ints, got {name}={value!r}") from None


# ===== ops ===========================================================================

# ----- flattening, flipping, axes -------------------------------------------------

# Kernel contract: ravel(x); returns the 1-D row-major flattening (0-d gives shape (1,)).
@defop("numpy", tensors=("x",))
def ravel(x):
    """Return a contiguous flattened (1-D, row-major) tensor.  NumPy: ``np.ravel``.

    The length is None when any input dim is unknown; a 0-d input gives shape (1,).

    Example:
        >>> polyops.ops.ravel(polyops.ops.zeros((2, 3))).shape
        (6,)
    """
    _check_tensor("ravel", "x", x)
    return spec((_size_of(shape_of(x)),), _preserve(x))


@ravel.reference
def _ravel_ref(x):
    return reshape(x, (math.prod(_shape_of(x)),))


def _flip_prepare(op, rank):
    def prepare(x):
        _rank_at_least(op, tuple(x.shape), rank)
        return (x,)

    return prepare


def _flip_spec(op, x, rank):
    _check_tensor(op, "x", x)
    _rank_at_least(op, shape_of(x), rank)
    return spec(shape_of(x), _preserve(x))


# Kernel contract: fliplr(x) with x of rank >= 2; reverse axis 1.
@defop("numpy", tensors=("x",), prepare=_flip_prepare("fliplr", 2))
def fliplr(x):
    """Reverse the order of elements along axis 1 (left/right).  NumPy: ``np.fliplr``.

    Needs rank >= 2 (ValueError otherwise).

    Example:
        >>> polyops.ops.fliplr(polyops.ops.reshape(polyops.ops.arange(4), (2, 2)))
        array([[1, 0],
               [3, 2]], dtype=int32)
    """
    return _flip_spec("fliplr", x, 2)


@fliplr.reference
def _fliplr_ref(x):
    return flip(x, 1)


# Kernel contract: flipud(x) with x of rank >= 1; reverse axis 0.
@defop("numpy", tensors=("x",), prepare=_flip_prepare("flipud", 1))
def flipud(x):
    """Reverse the order of elements along axis 0 (up/down).  NumPy: ``np.flipud``.

    Needs rank >= 1 (ValueError otherwise).

    Example:
        >>> polyops.ops.flipud(polyops.ops.arange(3))
        array([2, 1, 0], dtype=int32)
    """
    return _flip_spec("flipud", x, 1)


@flipud.reference
def _flipud_ref(x):
    return flip(x, 0)


def _swapaxes_args(shape, axis1, axis2):
    ndim = len(shape)
    return canonicalize_axis(axis1, ndim, "swapaxes"), canonicalize_axis(axis2, ndim, "swapaxes")


def _swapaxes_prepare(x, axis1, axis2):
    return (x, *_swapaxes_args(tuple(x.shape), axis1, axis2))


# Kernel contract: swapaxes(x, axis1, axis2) with non-negative int axes (possibly equal).
@defop("numpy", tensors=("x",), prepare=_swapaxes_prepare)
def swapaxes(x, axis1, axis2):
    """Interchange two axes of a tensor.  NumPy: ``np.swapaxes``.

    Example:
        >>> polyops.ops.swapaxes(polyops.ops.zeros((2, 3, 4)), 0, -1).shape
        (4, 3, 2)
    """
    _check_tensor("swapaxes", "x", x)
    shape = list(shape_of(x))
    a, b = _swapaxes_args(shape, axis1, axis2)
    shape[a], shape[b] = shape[b], shape[a]
    return spec(tuple(shape), _preserve(x))


@swapaxes.reference
def _swapaxes_ref(x, axis1, axis2):
    perm = list(range(len(_shape_of(x))))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(x, tuple(perm))


def _axis_tuple(op, name, value, ndim) -> tuple:
    """An int or a sequence of ints as a tuple of distinct non-negative axes."""
    if isinstance(value, (list, tuple)):
        axes = tuple(canonicalize_axis(a, ndim, op) for a in value)
    else:
        axes = (canonicalize_axis(value, ndim, op),)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: expected distinct axes, got {name}={value!r}")
    return axes


def _moveaxis_args(shape, source, destination):
    ndim = len(shape)
    src = _axis_tuple("moveaxis", "source", source, ndim)
    dst = _axis_tuple("moveaxis", "destination", destination, ndim)
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: expected source and destination of the same length, got "
            f"source={source!r} and destination={destination!r}"
        )
    return src, dst


def _moveaxis_perm(ndim, src, dst):
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return tuple(order)


def _moveaxis_prepare(x, source, destination):
    return (x, *_moveaxis_args(tuple(x.shape), source, destination))


# Kernel contract: moveaxis(x, source, destination): two tuples of the same length of
# distinct non-negative int axes.
@defop("numpy", tensors=("x",), prepare=_moveaxis_prepare)
def moveaxis(x, source, destination):
    """Move axes to new positions; the other axes keep their order.  NumPy: ``np.moveaxis``.

    ``source`` and ``destination`` are ints or sequences of the same length.

    Example:
        >>> polyops.ops.moveaxis(polyops.ops.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
    """
    _check_tensor("moveaxis", "x", x)
    shape = shape_of(x)
    src, dst = _moveaxis_args(shape, source, destination)
    return spec(tuple(shape[a] for a in _moveaxis_perm(len(shape), src, dst)), _preserve(x))


@moveaxis.reference
def _moveaxis_ref(x, source, destination):
    perm = _moveaxis_perm(len(_shape_of(x)), source, destination)
    return x if perm == tuple(range(len(perm))) else transpose(x, perm)


def _rot90_args(shape, k, axes):
    _rank_at_least("rot90", shape, 2)
    k = int_arg("rot90", "k", k)
    try:
        axes_t = tuple(axes)
    except TypeError:
        raise TypeError(f"rot90: expected a pair of axes, got axes={axes!r}") from None
    if len(axes_t) != 2:
        raise ValueError(f"rot90: expected two axes, got axes={axes!r}")
    a = tuple(canonicalize_axis(v, len(shape), "rot90") for v in axes_t)
    if a[0] == a[1]:
        raise ValueError(f"rot90: expected two different axes, got axes={axes!r}")
    return k % 4, a


def _rot90_prepare(array, k=1, axes=(0, 1)):
    return (array, *_rot90_args(tuple(array.shape), k, axes))


# Kernel contract: rot90(array, k, axes) with k in {0, 1, 2, 3} and axes a pair of
# distinct non-negative ints; rank >= 2.
@defop("numpy", tensors=("array",), prepare=_rot90_prepare)
def rot90(array, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the first axis
    towards the second.  NumPy: ``np.rot90``.

    The two dims swap when ``k`` is odd (Keras's rule swaps them for every ``k``;
    we follow NumPy).

    Example:
        >>> polyops.ops.rot90(polyops.ops.reshape(polyops.ops.arange(4), (2, 2)))
        array([[1, 3],
               [0, 2]], dtype=int32)
    """
    _check_tensor("rot90", "array", array)
    shape = list(shape_of(array))
    k, (a, b) = _rot90_args(shape, k, axes)
    if k % 2:
        shape[a], shape[b] = shape[b], shape[a]
    return spec(tuple(shape), _preserve(array))


@rot90.reference
def _rot90_ref(array, k=1, axes=(0, 1)):
    a, b = axes
    if k == 0:
        return array
    if k == 2:
        return flip(array, (a, b))
    perm = list(range(len(_shape_of(array))))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose(flip(array, b), tuple(perm))
    return flip(transpose(array, tuple(perm)), b)


# ----- joining ----------------------------------------------------------------------


def _append_shape(s1, s2, axis):
    if axis is None:
        n1, n2 = _size_of(s1), _size_of(s2)
        return (None if n1 is None or n2 is None else n1 + n2,), None
    if s1:  # the axis is checked first, against x1's rank
        canonicalize_axis(axis, len(s1), "append")
    return _concat_shape([tuple(s1), tuple(s2)], axis, "append")


def _append_prepare(x1, x2, axis=None):
    return x1, x2, _append_shape(tuple(x1.shape), tuple(x2.shape), axis)[1]


# Kernel contract: append(x1, x2, axis): same-dtype tensors; axis None (flatten both,
# then join) or a non-negative int (equal ranks, equal dims off the axis).
@defop("numpy", tensors=("x1", "x2"), promote=_promote.same, prepare=_append_prepare)
def append(x1, x2, axis=None):
    """Append ``x2`` to ``x1``: flattened when ``axis`` is None, else joined along ``axis``.

    NumPy: ``np.append``.  Dtypes promote together as in ``concatenate``.

    Example:
        >>> polyops.ops.append(polyops.ops.zeros((2, 2)), polyops.ops.ones((3,))).shape
        (7,)
    """
    _check_tensor("append", "x1", x1)
    _check_tensor("append", "x2", x2)
    shape, _ = _append_shape(shape_of(x1), shape_of(x2), axis)
    return spec(shape, _promote.same((key(x1), key(x2)))[0])


@append.reference
def _append_ref(x1, x2, axis=None):
    if axis is None:
        x1 = reshape(x1, (math.prod(_shape_of(x1)),))
        x2 = reshape(x2, (math.prod(_shape_of(x2)),))
        axis = 0
    return concatenate([x1, x2], axis)


def _lift(op, shape):
    """The shape a stacking op gives an input before joining (NumPy's atleast_nd)."""
    shape = tuple(shape)
    n = len(shape)
    if op == "hstack":
        return shape if n else (1,)
    if op == "vstack":
        return shape if n >= 2 else (1,) * (2 - n) + shape
    if op == "column_stack":
        return shape if n >= 2 else (shape[0], 1) if n == 1 else (1, 1)
    # dstack
    if n == 0:
        return (1, 1, 1)
    if n == 1:
        return (1, shape[0], 1)
    return shape + (1,) if n == 2 else shape


_JOIN_AXIS = {"vstack": 0, "column_stack": 1, "dstack": 2}


@memo
def _stack_shapes(op, shapes):
    if not shapes:
        raise ValueError(f"{op}: expected at least one tensor, got none")
    lifted = tuple(_lift(op, s) for s in shapes)
    axis = _JOIN_AXIS.get(op, 0 if len(lifted[0]) == 1 else 1)
    shape, axis = _concat_shape(lifted, axis, op)
    return shape, lifted, axis


def _stacker(op, doc):
    def prepare(xs):
        _stack_shapes(op, tuple([tuple(x.shape) for x in xs]))
        return (xs,)

    def rule(xs):
        if not isinstance(xs, (list, tuple)):
            raise TypeError(f"{op}: expected a sequence of tensors for 'xs', got {type(xs).__name__}")
        for x in xs:
            _check_tensor(op, "xs", x)
        shape, _, _ = _stack_shapes(op, tuple([shape_of(x) for x in xs]))
        return spec(shape, _promote.same(tuple(key(x) for x in xs))[0])

    def reference(xs):
        _, lifted, axis = _stack_shapes(op, tuple([tuple(_shape_of(x)) for x in xs]))
        parts = [x if tuple(_shape_of(x)) == s else reshape(x, s) for x, s in zip(xs, lifted)]
        return parts[0] if len(parts) == 1 else concatenate(parts, axis)

    rule.__name__ = rule.__qualname__ = op
    rule.__doc__ = doc
    rule.__module__ = __name__
    public = defop("numpy", tensors=("xs[]",), promote=_promote.same, prepare=prepare)(rule)
    public.reference(reference)
    return public


# Kernel contract (hstack, vstack, dstack, column_stack): xs is a non-empty list of
# same-dtype tensors of any rank (0-d included), already checked to be joinable after
# NumPy's lifting (atleast_1d / atleast_2d / atleast_3d / column vectors).
hstack = _stacker("hstack", """Stack tensors horizontally (column-wise).  NumPy: ``np.hstack``.

    0-d inputs become 1-D; 1-D inputs join along axis 0, others along axis 1.
    Dtypes promote together as in ``concatenate``.

    Example:
        >>> polyops.ops.hstack([polyops.ops.zeros((2, 1)), polyops.ops.ones((2, 3))]).shape
        (2, 4)
    """)
vstack = _stacker("vstack", """Stack tensors vertically (row-wise).  NumPy: ``np.vstack``.

    Inputs of rank < 2 become rows ((n,) -> (1, n), 0-d -> (1, 1)), then join along
    axis 0.  Dtypes promote together as in ``concatenate``.

    Example:
        >>> polyops.ops.vstack([polyops.ops.zeros((3,)), polyops.ops.ones((3,))]).shape
        (2, 3)
    """)
dstack = _stacker("dstack", """Stack tensors depth-wise (along axis 2).  NumPy: ``np.dstack``.

    Inputs become at least 3-D first: 0-d -> (1, 1, 1), (n,) -> (1, n, 1),
    (m, n) -> (m, n, 1).  Dtypes promote together as in ``concatenate``.

    Example:
        >>> polyops.ops.dstack([polyops.ops.zeros((2, 3)), polyops.ops.ones((2, 3))]).shape
        (2, 3, 2)
    """)
column_stack = _stacker("column_stack", """Stack 1-D tensors as columns of a 2-D tensor.  NumPy: ``np.column_stack``.

    Inputs of rank < 2 become columns ((n,) -> (n, 1), 0-d -> (1, 1)); all then join
    along axis 1.  Dtypes promote together as in ``concatenate``.  Not in Keras 3.15;
    the parameter is named ``xs`` like its siblings.

    Example:
        >>> polyops.ops.column_stack([polyops.ops.zeros((3,)), polyops.ops.ones((3, 2))]).shape
        (3, 3)
    """)


# ----- differences --------------------------------------------------------------


def _diff_args(shape, n, axis):
    n = int_arg("diff", "n", n)
    if n < 0:
        raise ValueError(f"diff: expected a non-negative order, got n={n}")
    if not shape:
        raise ValueError(f"diff: expected a tensor of rank >= 1, got shape={tuple(shape)}")
    return n, canonicalize_axis(axis, len(shape), "diff")


def _diff_prepare(a, n=1, axis=-1):
    return (a, *_diff_args(tuple(a.shape), n, axis))


# Kernel contract: diff(a, n, axis): n a non-negative int (0: a unchanged; n >= the axis
# size: an empty axis), axis a non-negative int; bool differences are not_equal, ints wrap.
@defop("numpy", tensors=("a",), prepare=_diff_prepare)
def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``: ``a[i+1] - a[i]``, ``n`` times.

    NumPy: ``np.diff``.  The dtype is the input's (ints wrap; for bool the
    difference is ``not_equal``).  The axis shrinks by ``n`` (to 0 at least).

    Example:
        >>> polyops.ops.diff(polyops.ops.convert_to_tensor([1, 4, 9, 16]))
        array([3, 5, 7], dtype=int32)
    """
    _check_tensor("diff", "a", a)
    shape = list(shape_of(a))
    n, axis = _diff_args(shape, n, axis)
    if shape[axis] is not None:
        shape[axis] = _bmax(shape[axis] - n, 0)
    return spec(tuple(shape), _preserve(a))


@diff.reference
def _diff_ref(a, n=1, axis=-1):
    size = _shape_of(a)[axis]
    lead = (slice(None),) * axis
    if n == 0:
        return a
    if n >= size:
        return get_item(a, lead + (slice(0, 0),))
    op = not_equal if _dtype_of(a) == "bool" else subtract
    for _ in range(n):
        a = op(get_item(a, lead + (slice(1, None),)), get_item(a, lead + (slice(None, -1),)))
    return a


# ----- repeating ------------------------------------------------------------------


def _counts(op, name, value, host):
    """Static counts of ``repeats``: an int, a tuple of ints, or None (a tensor, in the rule).

    With ``host`` (eager), a tensor is read once on the host.
    """
    if isinstance(value, SymbolicTensor):
        if host:
            raise TypeError(f"{op}: expected concrete {name} with a concrete x, got a SymbolicTensor")
        return None
    try:
        return _nonneg(op, name, operator.index(value))
    except TypeError:
        pass
    if not isinstance(value, (list, tuple)):
        if not hasattr(value, "shape") or not hasattr(value, "dtype"):
            raise TypeError(f"{op}: expected an int, a sequence of ints or a tensor, got {name}={value!r}")
        if not host and not _is_numpy(value):
            return None  # a concrete tensor when x is symbolic: its values are data
        from ..core import convert_to_numpy

        arr = convert_to_numpy(value)
        if arr.dtype.kind not in "iub":
            raise TypeError(f"{op}: expected integer {name}, got dtype {arr.dtype}")
        if arr.ndim > 1:
            raise ValueError(f"{op}: expected {name} of rank <= 1, got shape {arr.shape}")
        value = arr.tolist()
        if arr.ndim == 0:
            return _nonneg(op, name, value)
    try:
        counts = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"{op}: expected an int or a sequence of ints, got {name}={value!r}") from None
    for c in counts:
        _nonneg(op, name, c)
    return counts


def _is_numpy(value):
    import numpy as np

    return isinstance(value, (np.ndarray, np.generic))


def _nonneg(op, name, c):
    if c < 0:
        raise ValueError(f"{op}: expected non-negative {name}, got {name}={c}")
    return c


def _repeat_args(shape, repeats, axis, host):
    counts = _counts("repeat", "repeats", repeats, host)
    if isinstance(counts, tuple) and len(counts) == 1:
        counts = counts[0]
    if axis is None:
        n = _size_of(shape)
    else:
        axis = canonicalize_axis(axis, len(shape), "repeat")
        n = shape[axis]
    if isinstance(counts, tuple) and n is not None and len(counts) != n:
        where = "the flattened x" if axis is None else f"axis {axis}"
        raise ValueError(
            f"repeat: expected one count per element of {where} ({n}), got {len(counts)} "
            f"counts in repeats={repeats!r}"
        )
    return counts, axis, n


def _repeat_prepare(x, repeats, axis=None):
    counts, axis, _ = _repeat_args(tuple(x.shape), repeats, axis, host=True)
    return x, counts, axis


# Kernel contract: repeat(x, repeats, axis): repeats a non-negative Python int or a
# tuple of non-negative ints, one per element along the axis (a tensor was read on the
# host already); axis None (repeat the flattened x) or a non-negative int.
@defop("numpy", tensors=("x",), prepare=_repeat_prepare)
def repeat(x, repeats, axis=None):
    """Repeat each element ``repeats`` times along ``axis`` (None: of the flattened x).

    NumPy: ``np.repeat``.  ``repeats`` is an int or a sequence or 1-D tensor of
    per-element counts.  With a tensor of counts the output size depends on its
    values: symbolically that dim is None, and eagerly the counts are read once on
    the host (eager only).

    Example:
        >>> polyops.ops.repeat(polyops.ops.arange(3), [1, 0, 2])
        array([0, 2, 2], dtype=int32)
    """
    _check_tensor("repeat", "x", x)
    shape = shape_of(x)
    counts, axis, n = _repeat_args(shape, repeats, axis, host=False)
    if counts is None or n is None:
        size = None
    else:
        size = n * counts if isinstance(counts, int) else _bsum(counts)
    if axis is None:
        return spec((size,), _preserve(x))
    return spec(shape[:axis] + (size,) + shape[axis + 1:], _preserve(x))


@repeat.reference
def _repeat_ref(x, repeats, axis=None):
    shape = tuple(_shape_of(x))
    if axis is None:
        shape = (math.prod(shape),)
        x = reshape(x, shape)
        axis = 0
    n = shape[axis]
    if isinstance(repeats, int):
        if repeats == 1:
            return x
        pre, post = shape[:axis + 1], shape[axis + 1:]
        wide = broadcast_to(reshape(x, pre + (1,) + post), pre + (repeats,) + post)
        return reshape(wide, shape[:axis] + (n * repeats,) + post)
    idx = [i for i, c in enumerate(repeats) for _ in range(c)]
    return take(x, _index_tensor(idx), axis)


def _tile_args(shape, repeats, host):
    counts = _counts("tile", "repeats", repeats, host)
    if isinstance(counts, int):
        counts = (counts,)
    return counts


def _tile_prepare(x, repeats):
    return x, _tile_args(tuple(x.shape), repeats, host=True)


# Kernel contract: tile(x, repeats): repeats a tuple of non-negative Python ints of any
# length (shorter than the rank: leading 1s; longer: x gets leading 1-dims), as np.tile.
@defop("numpy", tensors=("x",), prepare=_tile_prepare)
def tile(x, repeats):
    """Repeat the whole tensor ``repeats`` times along each axis.  NumPy: ``np.tile``.

    ``repeats`` is an int or a sequence of non-negative ints; the result has rank
    ``max(x.ndim, len(repeats))``.  A tensor of repeats is read once on the host
    (eager only); symbolically its dims are None.

    Example:
        >>> polyops.ops.tile(polyops.ops.arange(2), (2, 2))
        array([[0, 1, 0, 1],
               [0, 1, 0, 1]], dtype=int32)
    """
    _check_tensor("tile", "x", x)
    shape = shape_of(x)
    counts = _tile_args(shape, repeats, host=False)
    if counts is None:  # a tensor of repeats: its length fixes the rank, its values the dims
        rshape = tuple(repeats.shape)
        k = rshape[0] if rshape else 1
        if len(rshape) > 1 or k is None:
            raise ValueError(f"tile: expected repeats of rank <= 1 and known length, got shape {rshape}")
        return spec((None,) * _bmax(len(shape), k), _preserve(x))
    nd = _bmax(len(shape), len(counts))
    shape = (1,) * (nd - len(shape)) + tuple(shape)
    counts = (1,) * (nd - len(counts)) + counts
    return spec(tuple(None if s is None else s * c for s, c in zip(shape, counts)), _preserve(x))


@tile.reference
def _tile_ref(x, repeats):
    shape = tuple(_shape_of(x))
    nd = _bmax(len(shape), len(repeats))
    shape = (1,) * (nd - len(shape)) + shape
    repeats = (1,) * (nd - len(repeats)) + tuple(repeats)
    if all(r == 1 for r in repeats):
        return x if len(shape) == len(_shape_of(x)) else reshape(x, shape)
    split, wide, out = [], [], []
    for s, r in zip(shape, repeats):
        if r != 1:
            split.append(1)
            wide.append(r)
        split.append(s)
        wide.append(s)
        out.append(s * r)
    return reshape(broadcast_to(reshape(x, tuple(split)), tuple(wide)), tuple(out))


def _roll_args(shape, shift, axis):
    shifts = _ints("roll", "shift", shift)
    if axis is None:
        return _bsum(shifts), None
    if isinstance(axis, (list, tuple)):
        axes = tuple(canonicalize_axis(a, len(shape), "roll") for a in axis)
    else:
        axes = (canonicalize_axis(axis, len(shape), "roll"),)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(
            f"roll: expected shift and axis of the same length, got shift={shift!r} and axis={axis!r}"
        )
    total: dict = {}
    for a, s in zip(axes, shifts):  # repeated axes add up, as in NumPy
        total[a] = total.get(a, 0) + s
    keys_ = tuple(sorted(total))
    return tuple(total[a] for a in keys_), keys_


def _roll_prepare(x, shift, axis=None):
    return (x, *_roll_args(tuple(x.shape), shift, axis))


# Kernel contract: roll(x, shift, axis): axis None with shift a Python int (roll the
# flattened x, restore the shape), or axis a sorted tuple of distinct non-negative ints
# with shift a tuple of Python ints of the same length (any sign, not reduced).
@defop("numpy", tensors=("x",), prepare=_roll_prepare)
def roll(x, shift, axis=None):
    """Roll elements along ``axis``: those shifted past the end come back at the start.

    NumPy: ``np.roll``.  ``shift`` and ``axis`` are ints or sequences (broadcast
    together; shifts of a repeated axis add up); ``axis=None`` rolls the flattened
    tensor and restores its shape.

    Example:
        >>> polyops.ops.roll(polyops.ops.arange(5), 2)
        array([3, 4, 0, 1, 2], dtype=int32)
    """
    _check_tensor("roll", "x", x)
    _roll_args(shape_of(x), shift, axis)
    return spec(shape_of(x), _preserve(x))


@roll.reference
def _roll_ref(x, shift, axis=None):
    shape = tuple(_shape_of(x))
    if axis is None:
        n = math.prod(shape)
        if n == 0 or shift % n == 0:
            return x
        flat = take(reshape(x, (n,)), _index_tensor([(i - shift) % n for i in range(n)]), 0)
        return reshape(flat, shape)
    for a, s in zip(axis, shift):
        n = shape[a]
        if n and s % n:
            x = take(x, _index_tensor([(i - s) % n for i in range(n)]), a)
    return x


# ----- splitting ------------------------------------------------------------------


def _split_plan(op, shape, ios, axis, exact):
    """(canonical argument for a kernel, [(start, stop) or None per piece], [size per piece]).

    ``ios`` an int: that many pieces (``exact``: equal sizes, else NumPy's array_split
    sizes); a sequence: NumPy's split points (negative from the end, clamped).
    """
    n = shape[axis]
    try:
        sections = operator.index(ios)
    except TypeError:
        sections = None
    if sections is not None:
        if sections <= 0:
            raise ValueError(f"{op}: expected a positive number of sections, got indices_or_sections={sections}")
        if n is None:
            return sections, [None] * sections, [None] * sections
        if exact and n % sections:
            raise ValueError(
                f"{op}: expected an axis size divisible by the number of sections, got size {n} "
                f"on axis {axis} and indices_or_sections={sections}"
            )
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds, start = [], 0
        for s in sizes:
            bounds.append((start, start + s))
            start += s
        return sections, bounds, sizes
    try:
        points = tuple(operator.index(i) for i in ios)
    except TypeError:
        raise TypeError(
            f"{op}: expected an int or a sequence of ints, got indices_or_sections={ios!r}"
        ) from None
    if n is None:
        return None, [None] * (len(points) + 1), [None] * (len(points) + 1)
    points = tuple(range(n)[p:].start if p < n else n for p in points)  # canonical, in [0, n]
    edges = (0,) + points + (n,)
    bounds = list(zip(edges[:-1], edges[1:]))
    return points, bounds, [_bmax(b - a, 0) for a, b in bounds]


def _split_axis(op, shape, axis):
    if op == "hsplit":
        _rank_at_least(op, shape, 1)
        return 1 if len(shape) > 1 else 0
    if op == "vsplit":
        _rank_at_least(op, shape, 2)
        return 0
    if op == "dsplit":
        _rank_at_least(op, shape, 3)
        return 2
    return canonicalize_axis(axis, len(shape), op)


def _splitter(op, exact, signature, doc):
    takes_axis = "axis" in signature

    def plan(shape, ios, axis=0):
        axis = _split_axis(op, tuple(shape), axis)
        return (axis, *_split_plan(op, tuple(shape), ios, axis, exact))

    def rule(x, indices_or_sections, axis=0):
        _check_tensor(op, "x", x)
        shape = shape_of(x)
        axis, _, _, sizes = plan(shape, indices_or_sections, axis)
        dtype = _preserve(x)
        return [spec(shape[:axis] + (s,) + shape[axis + 1:], dtype) for s in sizes]

    def reference(x, indices_or_sections, axis=0):
        shape = tuple(_shape_of(x))
        axis, _, bounds, _ = plan(shape, indices_or_sections, axis)
        lead = (slice(None),) * axis
        return [get_item(x, lead + (slice(a, b),)) for a, b in bounds]

    if takes_axis:
        def prepare(x, indices_or_sections, axis=0):
            axis, canon, _, _ = plan(tuple(x.shape), indices_or_sections, axis)
            return x, canon, axis

        public_rule = rule
        ref = reference
    else:
        def prepare(x, indices_or_sections):
            _, canon, _, _ = plan(tuple(x.shape), indices_or_sections)
            return x, canon

        def public_rule(x, indices_or_sections):
            return rule(x, indices_or_sections)

        def ref(x, indices_or_sections):
            return reference(x, indices_or_sections)

    public_rule.__name__ = public_rule.__qualname__ = op
    public_rule.__doc__ = doc
    public_rule.__module__ = __name__
    public = defop("numpy", tensors=("x",), prepare=prepare)(public_rule)
    public.reference(ref)
    return public


# Kernel contract (split, array_split, hsplit, vsplit, dsplit): returns a list of
# tensors.  indices_or_sections is either a positive Python int (split/hsplit/vsplit/
# dsplit: it divides the axis size; array_split: NumPy's uneven sizes, the first
# size % n pieces one longer) or a tuple of split points already resolved to [0, size]
# (NumPy semantics: piece i is x[p[i-1]:p[i]] along the axis, with p[-1] = 0 and a final
# piece x[p[-1]:]; a point below its predecessor gives an empty piece).  axis (split,
# array_split) is a non-negative int; hsplit/vsplit/dsplit split axis 1 (0 for 1-D),
# 0 and 2.
split = _splitter("split", True, ("x", "indices_or_sections", "axis"), """Split a tensor into a list of sub-tensors along ``axis``.  NumPy: ``np.split``.

    ``indices_or_sections``: an int N (N equal pieces; ValueError when N does not
    divide the axis) or a sequence of split points (NumPy semantics: negative points
    count from the end, out-of-range points give empty pieces).  Returns a list.

    Example:
        >>> [t.shape for t in polyops.ops.split(polyops.ops.zeros((6, 2)), [1, 4])]
        [(1, 2), (3, 2), (2, 2)]
    """)
array_split = _splitter("array_split", False, ("x", "indices_or_sections", "axis"), """Split into a list of sub-tensors, allowing unequal pieces.  NumPy: ``np.array_split``.

    With an int N, the first ``size % N`` pieces get one extra element; a sequence
    gives split points as in ``split``.  Returns a list.

    Example:
        >>> [t.shape for t in polyops.ops.array_split(polyops.ops.arange(5), 3)]
        [(2,), (2,), (1,)]
    """)
hsplit = _splitter("hsplit", True, ("x", "indices_or_sections"), """Split horizontally: along axis 1 (axis 0 for 1-D).  NumPy: ``np.hsplit``.

    As ``split``; needs rank >= 1.  Returns a list.

    Example:
        >>> [t.shape for t in polyops.ops.hsplit(polyops.ops.zeros((2, 4)), 2)]
        [(2, 2), (2, 2)]
    """)
vsplit = _splitter("vsplit", True, ("x", "indices_or_sections"), """Split vertically: along axis 0.  NumPy: ``np.vsplit``.

    As ``split``; needs rank >= 2.  Returns a list.

    Example:
        >>> [t.shape for t in polyops.ops.vsplit(polyops.ops.zeros((4, 2)), 2)]
        [(2, 2), (2, 2)]
    """)
dsplit = _splitter("dsplit", True, ("x", "indices_or_sections"), """Split depth-wise: along axis 2.  NumPy: ``np.dsplit``.

    As ``split``; needs rank >= 3.  Returns a list.

    Example:
        >>> [t.shape for t in polyops.ops.dsplit(polyops.ops.zeros((1, 2, 4)), [1])]
        [(1, 2, 1), (1, 2, 3)]
    """)


__all__ = [
    "Append", "ArraySplit", "ColumnStack", "Diff", "Dsplit", "Dstack", "Fliplr", "Flipud",
    "Hsplit", "Hstack", "Moveaxis", "Ravel", "Repeat", "Roll", "Rot90", "Split", "Swapaxes",
    "Tile", "Vsplit", "Vstack", "append", "array_split", "column_stack", "diff", "dsplit",
    "dstack", "fliplr", "flipud", "hsplit", "hstack", "moveaxis", "ravel", "repeat", "roll",
    "rot90", "split", "swapaxes", "tile", "vsplit", "vstack",
]

_finish(globals())
