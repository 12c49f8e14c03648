"""Private argument and shape checks of `polyops.ops.numpy.indexing`, on static values
(Python numbers, shapes and specs; no tensor is computed): bools and counts, the result
shapes of take_along_axis, diag and diagonal, the arguments of geomspace/logspace,
vander, meshgrid and select, and pad's widths, modes and constant."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtypes, _promote
from ..._shapes import broadcast_shapes, canonicalize_axis, size_of
from ..._symbolic import SymbolicTensor
from .._base import check_tensor, dtype_arg, int_arg, key, memo, shape_of


def _bool_arg(op, name, value) -> bool:
    if not isinstance(value, (bool, int, np.bool_)) or isinstance(value, float):
        raise TypeError(f"{op}: expected a bool {name}, got {name}={value!r}")
    return bool(value)


def _nonneg_int(op, name, value) -> int:
    v = int_arg(op, name, value)
    if v < 0:
        raise ValueError(f"{op}: expected {name} >= 0, got {name}={v}")
    return v


def _size(shape):
    return size_of(tuple(shape))


def _take_along_axis_shape(xs, ish, axis):
    op = "take_along_axis"
    if axis is None:
        if len(ish) != 1:
            raise ValueError(f"{op}: expected 1-D indices with axis=None, got indices shape {tuple(ish)}")
        return tuple(ish), None
    axis = canonicalize_axis(axis, len(xs), op)
    if len(xs) != len(ish):
        raise ValueError(
            f"{op}: expected indices of the same rank as x, got shapes {tuple(xs)} and {tuple(ish)}"
        )
    base = list(xs)
    base[axis] = ish[axis]
    return broadcast_shapes(tuple(base), tuple(ish), op=op), axis


def _diag_len(n, m, k):
    if n is None or m is None:
        return None
    return max(0, min(n, m - k) if k >= 0 else min(n + k, m))


def _diag_shape(shape, k):
    if len(shape) == 1:
        d = None if shape[0] is None else shape[0] + abs(k)
        return (d, d)
    if len(shape) == 2:
        return (_diag_len(shape[0], shape[1], k),)
    raise ValueError(f"diag: expected a 1-D or 2-D tensor, got shape={tuple(shape)}")


@memo
def _diagonal_args(op, shape, offset, axis1, axis2):
    if len(shape) < 2:
        raise ValueError(f"{op}: expected a tensor of rank >= 2, got shape={tuple(shape)}")
    offset = int_arg(op, "offset", offset)
    a1 = canonicalize_axis(axis1, len(shape), op)
    a2 = canonicalize_axis(axis2, len(shape), op)
    if a1 == a2:
        raise ValueError(f"{op}: expected different axes, got axis1={axis1}, axis2={axis2}")
    rest = tuple(d for i, d in enumerate(shape) if i not in (a1, a2))
    return offset, a1, a2, rest + (_diag_len(shape[a1], shape[a2], offset),)


_ORD_FLOATING = _promote.ordered(_promote.floating)


def _space_args(op, start, stop, num, endpoint, dtype, axis):
    for name, v in (("start", start), ("stop", stop)):
        check_tensor(op, name, v)
    num = _nonneg_int(op, "num", num)
    endpoint = _bool_arg(op, "endpoint", endpoint)
    (computed, _) = _ORD_FLOATING((key(start), key(stop)))
    dtype = computed if dtype is None else dtype_arg(op, dtype)
    shape = broadcast_shapes(shape_of(start), shape_of(stop), op=op)
    axis = canonicalize_axis(axis, len(shape) + 1, op)
    out = shape[:axis] + (num,) + shape[axis:]
    return num, endpoint, dtype, axis, out


def _vander_args(shape, N, increasing):
    if len(shape) != 1:
        raise ValueError(f"vander: expected a 1-D tensor, got shape={tuple(shape)}")
    N = shape[0] if N is None else _nonneg_int("vander", "N", N)
    return N, _bool_arg("vander", "increasing", increasing)


def _meshgrid_args(shapes, indexing):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: expected indexing 'xy' or 'ij', got indexing={indexing!r}")
    sizes = [_size(s) for s in shapes]
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return tuple(sizes)


def _select_check(condlist, choicelist):
    for name, v in (("condlist", condlist), ("choicelist", choicelist)):
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"select: expected a list of tensors for {name}, got {type(v).__name__}")
    if not condlist or not choicelist:
        raise ValueError("select: expected non-empty condlist and choicelist, got an empty list")
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"select: expected condlist and choicelist of equal length, got "
            f"{len(condlist)} and {len(choicelist)}"
        )


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "circular", "maximum",
              "minimum", "mean", "median", "linear_ramp", "empty")


_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap", "circular")


_PAIRS = (tuple, list)


def _pad_widths(pad_width, ndim):
    """NumPy's pad_width forms (int, (n,), (before, after), per-axis pairs) as ndim pairs."""
    def as_int(v):
        if isinstance(v, (bool, np.bool_)) or isinstance(v, (float, np.floating)):
            raise TypeError(f"pad: expected integer pad widths, got pad_width={pad_width!r}")
        try:
            return int_arg("pad", "pad_width", v)
        except TypeError:
            raise TypeError(f"pad: expected integer pad widths, got pad_width={pad_width!r}") from None

    # the common forms first (the general parse below costs ~15 us: np.vectorize)
    if type(pad_width) is int and pad_width >= 0:
        return ((pad_width, pad_width),) * ndim
    if type(pad_width) in _PAIRS and len(pad_width) == ndim and all(
            type(p) in _PAIRS and len(p) == 2 and type(p[0]) is int and type(p[1]) is int
            and p[0] >= 0 and p[1] >= 0 for p in pad_width):
        return tuple((b, a) for b, a in pad_width)
    if isinstance(pad_width, SymbolicTensor):
        raise TypeError("pad: expected static integer pad widths, got a SymbolicTensor")
    try:
        arr = np.asarray(pad_width, dtype=object)
    except Exception:
        raise TypeError(f"pad: expected integer pad widths, got pad_width={pad_width!r}") from None
    if arr.ndim > 2 or arr.size == 0 and ndim:
        raise ValueError(f"pad: expected pad_width of shape (ndim, 2), got pad_width={pad_width!r}")
    ints = np.vectorize(as_int, otypes=[object])(arr) if arr.size else arr
    if ndim == 0:
        return ()
    try:
        pairs = np.broadcast_to(ints, (ndim, 2))
    except ValueError:
        raise ValueError(
            f"pad: expected pad_width broadcastable to ({ndim}, 2), got pad_width={pad_width!r}"
        ) from None
    out = tuple((int(b), int(a)) for b, a in pairs)
    for b, a in out:
        if b < 0 or a < 0:
            raise ValueError(f"pad: expected non-negative pad widths, got pad_width={pad_width!r}")
    return out


def _pad_args(shape, pad_width, mode, constant_values):
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise ValueError(f"pad: expected mode in {_PAD_MODES}, got mode={mode!r}")
    if constant_values is not None:
        if mode != "constant":
            raise ValueError(
                f"pad: constant_values is only valid with mode='constant', got mode={mode!r}"
            )
        if isinstance(constant_values, np.generic):
            constant_values = constant_values.item()
        if not isinstance(constant_values, (bool, int, float)):
            raise TypeError(
                f"pad: expected a Python number for constant_values, got "
                f"constant_values={constant_values!r}"
            )
    widths = _pad_widths(pad_width, len(shape))
    if mode not in ("constant", "empty"):
        for axis, (d, (b, a)) in enumerate(zip(shape, widths)):
            if d == 0 and (b or a):
                raise ValueError(
                    f"pad: cannot pad the empty axis {axis} with mode={mode!r} "
                    f"(only 'constant' and 'empty')"
                )
    out = tuple(None if d is None else d + b + a for d, (b, a) in zip(shape, widths))
    return widths, mode, constant_values, out


def _pad_constant(value, dtype):
    """``constant_values`` as a Python number the dtype holds (NumPy's assignment rules)."""
    if value is None:
        return 0
    if dtype == "bool":
        return bool(value)
    if dtype in _dtypes.INT_TYPES:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"pad: cannot pad {dtype} with constant_values={value!r}")
            value = math.trunc(value)
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"pad: constant_values={value!r} is out of range for {dtype}")
        return int(value)
    return value
