"""Sorting, searching and counting: argsort, sort, searchsorted, unique, nonzero, cumsum...

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import builtins
import math

from ... import _dtypes, _promote
from ..._op import defop
from ..._shapes import canonicalize_axes, canonicalize_axis, reduce_shape
from .._base import dtype_arg, int_arg, key, shape_of, spec
from .._base import finish as _finish
from ..core import cast
from ..core import dtype as _dtype_of
from ..core import shape as _shape_of
from .base import (
    add, any, arange, concatenate, divide, equal, expand_dims, flip, floor_divide, full, get_item,
    greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or, max, min,
    minimum, mod, multiply, not_equal, reshape, stack, subtract, sum, take, where,
)

_bmax = builtins.max  # ops shadow the builtins

# ===== ops ===========================================================================

_ORD_PRESERVE = _promote.ordered(_promote.preserve)
_ORD_SAME = _promote.ordered(_promote.same)


def _argsort_prepare(x, axis=-1):
    if axis is not None:
        axis = canonicalize_axis(axis, len(x.shape), "argsort") if len(x.shape) else None
    return x, axis


@defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=_argsort_prepare)
def argsort(x, axis=-1):
    """Indices that sort ``x`` along ``axis`` (None: the flattened tensor), int32.  Primitive.

    The sort is stable and NaN sorts last, as in NumPy, on every backend.
    NumPy: ``np.argsort(x, axis, kind="stable")``.

    Example:
        >>> polyops.ops.argsort(polyops.ops.convert_to_tensor([3.0, 1.0, 2.0]))
        array([1, 2, 0], dtype=int32)
    """
    _ORD_PRESERVE((key(x),))
    shape = shape_of(x)
    if axis is None or not shape:
        return spec((_size_or_none(shape),), "int32")
    canonicalize_axis(axis, len(shape), "argsort")
    return spec(shape, "int32")


def _size_or_none(shape):
    from ..._shapes import size_of

    return size_of(tuple(shape))


# ----- private helpers of the references (polyops ops only) ---------------------------


def _is_float(x) -> bool:
    return _dtype_of(x) in _dtypes.FLOAT_TYPES


def _isnan(x):
    return not_equal(x, x)


def _flat(x):
    return reshape(x, (-1,))


def _count_before(seq, v, side):
    """For each value of ``v``: how many of the 1-D sorted ``seq`` sort before it.

    ``side="left"`` counts ``seq < v``, ``"right"`` counts ``seq <= v``, with NumPy's
    order (NaN after everything, NaN equal to NaN).  An O(len(seq) * v.size)
    broadcast comparison; the result is int32 with ``v``'s shape.
    """
    v2 = expand_dims(v, -1)
    if side == "left":
        c = less(seq, v2)
        if _is_float(seq):
            c = logical_or(c, logical_and(_isnan(v2), logical_not(_isnan(seq))))
    else:
        c = less_equal(seq, v2)
        if _is_float(seq):
            c = logical_or(c, _isnan(v2))
    return cast(sum(c, axis=-1), "int32")


def _take_along(x, indices, axis):
    """``take_along_axis`` (indexing group); a flat ``take`` while that op is missing."""
    try:
        from .indexing import take_along_axis
    except ImportError:
        take_along_axis = None
    if take_along_axis is not None:
        return take_along_axis(x, indices, axis)
    shape = tuple(_shape_of(x))
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    flat = multiply(indices, strides[axis])
    for i, d in enumerate(shape):
        if i != axis and d != 1:
            coord = reshape(arange(0, d, 1), tuple(d if j == i else 1 for j in range(len(shape))))
            flat = add(flat, multiply(coord, strides[i]))
    return take(_flat(x), flat)


def _scan(x, axis, combine, identity):
    """Inclusive scan of ``x`` along ``axis``: log2(n) Hillis-Steele steps, each adding a
    copy shifted by 1, 2, 4... (identity-padded).  Exact for int wrap-around; the float
    summation order is a tree's, not NumPy's left-to-right one."""
    shape = tuple(_shape_of(x))
    n = shape[axis]
    dtype = _dtype_of(x)
    lead = (slice(None),) * axis
    s = 1
    while s < n:
        pad = full(shape[:axis] + (s,) + shape[axis + 1:], identity, dtype)
        shifted = concatenate([pad, get_item(x, lead + (slice(0, n - s),))], axis)
        x = combine(x, shifted)
        s *= 2
    return x


# ===== sort and partition =============================================================


def _sort_prepare(x, axis=-1):
    if axis is not None:
        axis = canonicalize_axis(axis, len(x.shape), "sort")
    return x, axis


# Kernel contract: sort(x, axis): axis None (sort the flattened x) or a non-negative int
# (x is never 0-d then); ascending, NaN last, a real dtype (never complex).
@defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=_sort_prepare)
def sort(x, axis=-1):
    """Sorted copy of ``x`` along ``axis`` (None: the flattened tensor); NaN sorts last.

    NumPy: ``np.sort``.  A 0-d ``x`` needs ``axis=None``, as in NumPy.
    Reference: ``take_along_axis(x, argsort(x, axis), axis)``.

    Example:
        >>> polyops.ops.sort(polyops.ops.convert_to_tensor([3.0, 1.0, 2.0]))
        array([1., 2., 3.], dtype=float32)
    """
    (dtype,) = _ORD_PRESERVE((key(x),))
    shape = shape_of(x)
    if axis is None:
        return spec((_size_or_none(shape),), dtype)
    canonicalize_axis(axis, len(shape), "sort")
    return spec(shape, dtype)


@sort.reference
def _sort_ref(x, axis=-1):
    if axis is None:
        flat = _flat(x)
        return take(flat, argsort(flat, 0))
    return _take_along(x, argsort(x, axis), axis)


def _kth_check(kth, n):
    many = isinstance(kth, (list, tuple))
    values = kth if many else [kth]
    out = []
    for k in values:
        k = int_arg("argpartition", "kth", k)
        if n is not None and not -n <= k < n:
            raise ValueError(f"argpartition: expected kth in [{-n}, {n}) for an axis of size {n}, got kth={kth!r}")
        out.append(k)
    return out


def _argpartition_prepare(x, kth, axis=-1):
    shape = tuple(x.shape)
    if axis is not None and shape:
        axis = canonicalize_axis(axis, len(shape), "argpartition")
        _kth_check(kth, shape[axis])
    else:
        axis = None
        _kth_check(kth, math.prod(shape))
    return x, kth, axis


# Kernel contract: argpartition(x, kth, axis): kth an int or list of ints, already checked
# to lie in [-n, n); axis None (flattened; also for 0-d x) or a non-negative int.  The
# kernel must return the *stable argsort* along axis, int32 (see the docstring).
@defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=_argpartition_prepare)
def argpartition(x, kth, axis=-1):
    """Indices that partition ``x`` around its ``kth`` element along ``axis``, int32.

    NumPy: ``np.argpartition``.  NumPy leaves the order inside each partition
    unspecified, and frameworks differ; polyops returns the stable argsort
    (NaN last), which is a valid partition for every ``kth``, so every backend
    gives the same indices.  ``axis=None`` (or a 0-d ``x``) uses the flattened tensor.

    Example:
        >>> polyops.ops.argpartition(polyops.ops.convert_to_tensor([3.0, 1.0, 2.0]), 1)
        array([1, 2, 0], dtype=int32)
    """
    _ORD_PRESERVE((key(x),))
    shape = shape_of(x)
    if axis is None or not shape:
        _kth_check(kth, _size_or_none(shape))
        return spec((_size_or_none(shape),), "int32")
    axis = canonicalize_axis(axis, len(shape), "argpartition")
    _kth_check(kth, shape[axis])
    return spec(shape, "int32")


@argpartition.reference
def _argpartition_ref(x, kth, axis=-1):
    return argsort(x, axis)


# ===== searching ======================================================================

_SIDES = ("left", "right")


def _searchsorted_check(seq_shape, side):
    if side not in _SIDES:
        raise ValueError(f"searchsorted: expected side='left' or 'right', got side={side!r}")
    if len(seq_shape) != 1:
        raise ValueError(
            f"searchsorted: expected a 1-D sorted_sequence, got shape={tuple(seq_shape)}"
        )


def _searchsorted_prepare(sorted_sequence, values, side="left"):
    _searchsorted_check(tuple(sorted_sequence.shape), side)
    return sorted_sequence, values, side


# Kernel contract: searchsorted(sorted_sequence, values, side): a 1-D sorted_sequence and
# values of one common real dtype; side "left" or "right".  Returns int32 shaped like
# values, with NumPy's order (NaN after every number).
@defop("numpy", tensors=("sorted_sequence", "values"), promote=_ORD_SAME,
       prepare=_searchsorted_prepare, empty=0)
def searchsorted(sorted_sequence, values, side="left"):
    """Indices where ``values`` would be inserted into ``sorted_sequence`` to keep it sorted.

    NumPy: ``np.searchsorted`` (1-D ``sorted_sequence``; ``side`` "left" or "right").
    Operands promote to a common dtype; NaN sorts after every number, as in NumPy.
    The result is int32 with ``values``' shape.

    Example:
        >>> seq = polyops.ops.convert_to_tensor([1.0, 2.0, 3.0])
        >>> polyops.ops.searchsorted(seq, polyops.ops.convert_to_tensor([2.0, 5.0]))
        array([1, 3], dtype=int32)
    """
    _ORD_SAME((key(sorted_sequence), key(values)))
    _searchsorted_check(shape_of(sorted_sequence), side)
    return spec(shape_of(values), "int32")


@searchsorted.reference
def _searchsorted_ref(sorted_sequence, values, side="left"):
    return _count_before(sorted_sequence, values, side)


def _digitize_check(bins_shape):
    if len(bins_shape) != 1:
        raise ValueError(f"digitize: expected 1-D bins, got shape={tuple(bins_shape)}")


def _digitize_prepare(x, bins):
    _digitize_check(tuple(bins.shape))
    return x, bins


# Kernel contract: digitize(x, bins): x and 1-D monotonic bins of one common real dtype.
# Returns int32 shaped like x: NumPy's np.digitize(x, bins, right=False).
@defop("numpy", tensors=("x", "bins"), promote=_ORD_SAME, prepare=_digitize_prepare, empty=0)
def digitize(x, bins):
    """Index of the bin each value of ``x`` falls in, int32.  NumPy: ``np.digitize``.

    For increasing ``bins``, ``i`` with ``bins[i-1] <= x < bins[i]`` (NumPy's
    ``right=False``); decreasing bins are handled as NumPy does.  NaN goes past
    the last bin.

    Example:
        >>> bins = polyops.ops.convert_to_tensor([0.0, 3.0, 4.5, 7.0])
        >>> polyops.ops.digitize(polyops.ops.convert_to_tensor([0.0, 1.0, 3.0, 8.0]), bins)
        array([1, 1, 2, 4], dtype=int32)
    """
    _ORD_SAME((key(x), key(bins)))
    _digitize_check(shape_of(bins))
    return spec(shape_of(x), "int32")


@digitize.reference
def _digitize_ref(x, bins):
    n = _shape_of(bins)[0]
    increasing = _count_before(bins, x, "right")
    if n < 2:
        return increasing
    decreasing = subtract(n, _count_before(flip(bins), x, "right"))
    return where(less(get_item(bins, n - 1), get_item(bins, 0)), decreasing, increasing)


# ===== counting =======================================================================


def _bincount_promote_fn(keys):
    xk, wk = keys
    if xk not in _dtypes.INT_TYPES and xk not in ("bool", "int"):
        raise _promote.PromotionError(f"expected integer values in x, got {xk}")
    (xt,) = _promote.preserve((xk,))
    if wk is None:
        return xt, None
    return xt, _promote.numeric((xk, wk))[0]


_bincount_promote = _promote.cached(_bincount_promote_fn)


def _bincount_static(op_shape, w_shape, minlength, sparse):
    if len(op_shape) not in (1, 2):
        raise ValueError(f"bincount: expected a 1-D (or batched 2-D) x, got shape={tuple(op_shape)}")
    if w_shape is not None and tuple(w_shape) != tuple(op_shape):
        for a, b in zip(w_shape, op_shape):
            if a is not None and b is not None and a != b or len(w_shape) != len(op_shape):
                raise ValueError(
                    f"bincount: expected weights of x's shape {tuple(op_shape)}, got shape={tuple(w_shape)}"
                )
    minlength = int_arg("bincount", "minlength", minlength)
    if minlength < 0:
        raise ValueError(f"bincount: expected minlength >= 0, got minlength={minlength}")
    if sparse is not False and sparse is not True:
        raise TypeError(f"bincount: expected sparse=True or False, got sparse={sparse!r}")
    return minlength


def _bincount_prepare(x, weights=None, minlength=0, sparse=False):
    minlength = _bincount_static(tuple(x.shape), None if weights is None else tuple(weights.shape),
                                 minlength, sparse)
    length = minlength
    if math.prod(tuple(x.shape)):  # one host read: the output length depends on max(x)
        from .._indices import _bounds
        from ..core import convert_to_numpy

        b = _bounds(x, False)  # (the index checks' read: small x whole, else two reductions)
        if b is None:  # (no values here, under a trace: the reads below raise, eager only)
            b = convert_to_numpy(stack([cast(min(x), "int32"), cast(max(x), "int32")]))
        lo, hi = (int(v) for v in b)
        if lo < 0:
            raise ValueError(f"bincount: expected non-negative values in x, got min(x)={lo}")
        length = _bmax(hi + 1, minlength)
    if sparse:
        from ... import _sparse

        _sparse.require("bincount")
    return x, weights, length, sparse


# Kernel contract: bincount(x, weights, minlength, sparse): x a 1-D (or 2-D, counted per
# row) tensor of non-negative ints or bools, weights None or a tensor of x's shape already
# in the result dtype; minlength is the *final* output length (core has read max(x) + 1
# and checked that x has no negative value); sparse is always False (sparse=True, or a
# sparse x, is `_sparse.by_argument`'s and `_sparse.call`'s).  Returns int32 counts
# (no weights) or weight sums in weights' dtype, shape x.shape[:-1] + (minlength,).
@defop("numpy", tensors=("x", "weights"), promote=_bincount_promote, prepare=_bincount_prepare)
def bincount(x, weights=None, minlength=0, sparse=False):
    """Count occurrences of each non-negative integer in ``x``.  NumPy: ``np.bincount``.

    The result has ``max(max(x) + 1, minlength)`` entries (a 2-D ``x`` counts each row,
    as Keras does): int32 counts, or with ``weights`` the sums of the weights, in
    the promoted dtype of ``x`` and ``weights`` (bool as int32).  The length depends on
    the data: symbolically the last dim is None, and eagerly core reads ``max(x)``
    once (eager only).  Negative values raise ValueError.  ``sparse=True`` (or a sparse
    ``x``, as in Keras) gives a sparse result on backends that have them, ValueError
    naming the backend elsewhere; the counts are the dense computation's (docs/sparse.md).

    Example:
        >>> polyops.ops.bincount(polyops.ops.convert_to_tensor([1, 2, 2, 3]))
        array([0, 1, 2, 1], dtype=int32)
    """
    xt, wt = _bincount_promote((key(x), None if weights is None else key(weights)))
    xs = shape_of(x)
    _bincount_static(xs, None if weights is None else shape_of(weights), minlength, sparse)
    out = spec(tuple(xs[:-1]) + (None,), "int32" if wt is None else wt)
    out.sparse = sparse or getattr(x, "sparse", False) is True
    return out


@bincount.reference
def _bincount_ref(x, weights=None, minlength=0, sparse=False):
    hit = equal(expand_dims(x, -1), arange(0, minlength, 1))  # (..., n, length)
    if weights is None:
        return cast(sum(hit, axis=-2), "int32")
    out = sum(where(hit, expand_dims(weights, -1), 0), axis=-2)
    return cast(out, _dtype_of(weights))


def _histogram_static(bins, range):
    bins = int_arg("histogram", "bins", bins)
    if bins < 1:
        raise ValueError(f"histogram: expected a positive number of bins, got bins={bins}")
    if range is not None:
        try:
            lo, hi = range
            lo, hi = float(lo), float(hi)
        except (TypeError, ValueError):
            raise TypeError(f"histogram: expected range=(min, max) of two numbers, got range={range!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise ValueError(f"histogram: expected a finite range=(min, max) with min <= max, got range={range!r}")
        range = (lo, hi)
    return bins, range


def _histogram_prepare(x, bins=10, range=None):
    return (x, *_histogram_static(bins, range))


# Kernel contract: histogram(x, bins, range): bins a positive int, range None or a tuple of
# two finite Python floats lo <= hi.  x (any shape, flattened) arrives in its own dtype;
# return (hist, bin_edges) in the float dtype of x (ints and bools: floatx), with
# np.histogram's values: edges linspace(lo, hi, bins + 1) (range None: min/max of x; an
# empty x: (0, 1); lo == hi: widened by 0.5 each side), bins half-open, the last closed.
@defop("numpy", tensors=("x",), promote=_promote.ordered(_promote.preserve),
       prepare=_histogram_prepare)
def histogram(x, bins=10, range=None):
    """Histogram of ``x`` (flattened): ``(hist, bin_edges)``.  NumPy: ``np.histogram``.

    ``bins`` equal-width bins over ``range`` (default: min and max of ``x``), each
    half-open but the last, which includes its right edge; values outside are not
    counted.  Both results have the float dtype of ``x`` (floatx for ints and bools),
    as ``jnp.histogram``: ``(bins,)`` counts and ``(bins + 1,)`` edges.  Edges are
    computed in float32 (float64 for float64 ``x`` in 64-bit mode; NumPy: float64, then
    rounded), so a value within an ulp of an edge may fall in the neighbouring bin.  With ``range=None`` and NaN or inf in
    ``x``, NumPy raises; polyops gives NaN edges and unspecified counts.

    Example:
        >>> polyops.ops.histogram(polyops.ops.convert_to_tensor([0.0, 1.0, 1.0, 3.0]), bins=3)
        (array([1., 2., 1.], dtype=float32), array([0., 1., 2., 3.], dtype=float32))
    """
    (xd,) = _promote.ordered(_promote.preserve)((key(x),))
    bins, _ = _histogram_static(bins, range)
    fdt = _promote.floating((xd,))[0]
    return spec((bins,), fdt), spec((bins + 1,), fdt)


@histogram.reference
def _histogram_ref(x, bins=10, range=None):
    fdt = _promote.floating((_dtype_of(x),))[0]
    work = "float64" if fdt == "float64" else "float32"  # (float64: 64-bit mode only)
    flat = _flat(x)
    n = _shape_of(flat)[0]
    if range is not None or n == 0:
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = full((), lo, work), full((), hi, work)
    else:
        xw = cast(flat, work)
        lo_t, hi_t = min(xw), max(xw)
        same = equal(lo_t, hi_t)
        lo_t, hi_t = where(same, subtract(lo_t, 0.5), lo_t), where(same, add(hi_t, 0.5), hi_t)
    i = arange(0, bins + 1, 1, dtype=work)
    edges = add(lo_t, multiply(i, divide(subtract(hi_t, lo_t), bins)))
    edges = cast(where(equal(i, bins), hi_t, edges), fdt)
    values = cast(flat, fdt)
    # hist[j] = #(x >= e[j]) - #(x >= e[j+1]); the last bin is closed: #(x >= e[-2]) - #(x > e[-1])
    at_least = sum(greater_equal(expand_dims(values, -1), get_item(edges, slice(0, bins))), axis=0)
    beyond = reshape(sum(greater(values, get_item(edges, bins))), (1,))
    upper = concatenate([get_item(at_least, slice(1, None)), beyond], 0)
    return cast(subtract(at_least, upper), fdt), edges


def _unique_static(sorted, return_index, return_inverse, return_counts, axis, size, fill_value, ndim):
    if axis is not None:
        canonicalize_axis(axis, ndim, "unique")
        raise ValueError(f"unique: only axis=None (the flattened tensor) is supported, got axis={axis!r}")
    if size is not None:
        size = int_arg("unique", "size", size)
        if size < 0:
            raise ValueError(f"unique: expected size >= 0, got size={size}")
    if fill_value is not None and not isinstance(fill_value, (bool, int, float)):
        raise TypeError(f"unique: expected a Python number fill_value, got fill_value={fill_value!r}")
    return (bool(sorted), bool(return_index), bool(return_inverse), bool(return_counts), None,
            size, fill_value)


def _unique_prepare(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
                    axis=None, size=None, fill_value=None):
    return (x, *_unique_static(sorted, return_index, return_inverse, return_counts, axis, size,
                               fill_value, len(x.shape)))


# Kernel contract: unique(x, sorted, return_index, return_inverse, return_counts, axis,
# size, fill_value): flags are bools, axis is always None (x flattened), size None or an
# int >= 0, fill_value None (means 0) or a Python number.  Values come sorted (NaN last,
# all NaNs one value, -0.0 == 0.0) whatever `sorted` says; index (first occurrence),
# inverse (x's shape) and counts are int32.  With size: truncate, or pad values with
# fill_value, index with 1 and counts with 0 (Keras's numpy backend).
@defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=_unique_prepare)
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
           axis=None, size=None, fill_value=None):
    """Sorted unique elements of ``x`` (flattened).  NumPy: ``np.unique``.

    Optionally also returns, in this order, the index of each value's first
    occurrence, the inverse (indices into the values that rebuild ``x``, shaped like
    ``x``) and the counts, all int32.  NaNs count as one value, as in NumPy 2's
    default ``equal_nan=True``; results are always sorted (``sorted=False`` allows
    any order).  Only ``axis=None`` is supported.  ``size`` fixes the output length:
    fewer values are padded with ``fill_value`` (default 0; index pads with 1, counts
    with 0, as Keras's numpy backend), more are truncated.  Without ``size`` the
    length depends on the data: None symbolically, and the reference reads the count
    once (eager only).

    Example:
        >>> polyops.ops.unique(polyops.ops.convert_to_tensor([3, 1, 2, 1]))
        array([1, 2, 3], dtype=int32)
    """
    (dtype,) = _ORD_PRESERVE((key(x),))
    shape = shape_of(x)
    _, ri, rv, rc, _, size, _ = _unique_static(sorted, return_index, return_inverse,
                                               return_counts, axis, size, fill_value, len(shape))
    outs = [spec((size,), dtype)]
    if ri:
        outs.append(spec((size,), "int32"))
    if rv:
        outs.append(spec(shape, "int32"))
    if rc:
        outs.append(spec((size,), "int32"))
    return outs[0] if len(outs) == 1 else tuple(outs)


@unique.reference
def _unique_ref(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
                axis=None, size=None, fill_value=None):
    dtype = _dtype_of(x)
    shape = tuple(_shape_of(x))
    flat = _flat(x)
    n = _shape_of(flat)[0]
    fill = 0 if fill_value is None else fill_value
    if n == 0:
        m = size or 0
        outs = [full((m,), fill, dtype), full((m,), 1, "int32"), full(shape, 0, "int32"),
                full((m,), 0, "int32")]
    else:
        order = argsort(flat, 0)
        s = take(flat, order)
        new = full((1,), True, "bool")
        if n > 1:
            a, b = get_item(s, slice(1, None)), get_item(s, slice(0, n - 1))
            step = not_equal(a, b)
            if _is_float(s):
                step = logical_and(step, logical_not(logical_and(_isnan(a), _isnan(b))))
            new = concatenate([new, step], 0)
        group = subtract(cumsum(cast(new, "int32"), 0), 1)  # group id of each sorted element
        if size is None:
            from ..core import convert_to_numpy

            m = int(convert_to_numpy(get_item(group, n - 1))) + 1  # the one host read
        else:
            m = size
        # first sorted position of group j (n for the padding slots j >= the count)
        starts = sum(less(reshape(group, (1, n)), reshape(arange(0, m + 1, 1), (m + 1, 1))), axis=1)
        first = get_item(starts, slice(0, m))
        real = less(first, n)
        safe = minimum(first, n - 1)
        values = take(s, safe)
        if size is not None:
            values = where(real, values, full((m,), fill, dtype))
        outs = [values,
                where(real, take(order, safe), 1) if return_index else None,
                reshape(take(group, argsort(order, 0)), shape) if return_inverse else None,
                subtract(get_item(starts, slice(1, None)), first) if return_counts else None]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [cast(o, "int32") if i else o for i, (o, k) in enumerate(zip(outs, keep)) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _nonzero_check(shape):
    if not shape:
        raise ValueError("nonzero: expected a tensor of rank >= 1, got shape=() "
                         "(NumPy: use atleast_1d)")


def _nonzero_prepare(x):
    _nonzero_check(tuple(x.shape))
    return (x,)


# Kernel contract: nonzero(x): x of rank >= 1, any dtype (NaN is nonzero).  Returns a
# tuple of ndim int32 1-D tensors, the coordinates in C (row-major) order.
@defop("numpy", tensors=("x",), promote=_promote.preserve, prepare=_nonzero_prepare)
def nonzero(x):
    """Coordinates of the non-zero elements: a tuple of int32 tensors, one per dim.

    NumPy: ``np.nonzero`` (row-major order; NaN is non-zero; a 0-d ``x`` raises as in
    NumPy 2).  Their length depends on the data: None symbolically, and the reference
    reads the count once (eager only).

    Example:
        >>> polyops.ops.nonzero(polyops.ops.convert_to_tensor([[1, 0], [0, 2]]))
        (array([0, 1], dtype=int32), array([0, 1], dtype=int32))
    """
    shape = shape_of(x)
    _promote.preserve((key(x),))
    _nonzero_check(shape)
    return tuple(spec((None,), "int32") for _ in shape)


@nonzero.reference
def _nonzero_ref(x):
    from ..core import convert_to_numpy

    shape = tuple(_shape_of(x))
    n = math.prod(shape)
    if n == 0:
        return tuple(full((0,), 0, "int32") for _ in shape)
    mask = cast(not_equal(_flat(x), 0), "int32")
    running = cumsum(mask, 0)
    count = int(convert_to_numpy(get_item(running, n - 1)))  # the one host read
    # the j-th non-zero sits after exactly the elements whose running count is <= j
    pos = sum(less_equal(reshape(running, (1, n)), reshape(arange(0, count, 1), (count, 1))), axis=1)
    pos = cast(pos, "int32")
    out = []
    for i, d in enumerate(shape):
        stride = math.prod(shape[i + 1:])
        coord = floor_divide(pos, stride) if stride != 1 else pos
        out.append(mod(coord, d) if i else coord)
    return tuple(out)


def _isin_static(assume_unique, invert):
    return bool(assume_unique), bool(invert)


def _isin_prepare(x1, x2, assume_unique=False, invert=False):
    return (x1, x2, *_isin_static(assume_unique, invert))


def _isin_fill(out, x1, x2, assume_unique=False, invert=False):
    """An empty ``x2``: nothing is in it."""
    return bool(invert)


# Kernel contract: isin(x1, x2, assume_unique, invert): x1 and x2 of one common dtype, any
# shapes; assume_unique and invert bools (assume_unique only allows a faster path).
# Returns bool with x1's shape: whether each x1 element equals some x2 element (NaN
# equals nothing), negated when invert.
@defop("numpy", tensors=("x1", "x2"), promote=_promote.same, prepare=_isin_prepare, empty=_isin_fill)
def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` occurs in ``x2`` (anywhere), bool of ``x1``'s shape.

    NumPy: ``np.isin``.  Equality after promotion to a common dtype; NaN is in
    nothing.  ``invert=True`` negates the result; ``assume_unique`` changes nothing.

    Example:
        >>> polyops.ops.isin(polyops.ops.convert_to_tensor([0, 1, 2, 5]), polyops.ops.convert_to_tensor([0, 2]))
        array([ True, False,  True, False])
    """
    _promote.same((key(x1), key(x2)))
    return spec(shape_of(x1), "bool")


@isin.reference
def _isin_ref(x1, x2, assume_unique=False, invert=False):
    found = any(equal(expand_dims(x1, -1), _flat(x2)), axis=-1)
    return logical_not(found) if invert else found


def _count_nonzero_prepare(x, axis=None):
    return x, canonicalize_axes(axis, len(x.shape), "count_nonzero")


# Kernel contract: count_nonzero(x, axis): axis None (all) or a sorted tuple of
# non-negative ints; any dtype (NaN counts).  Returns int32 (no keepdims).
@defop("numpy", tensors=("x",), promote=_promote.preserve, prepare=_count_nonzero_prepare, empty=0)
def count_nonzero(x, axis=None):
    """Number of non-zero elements over ``axis`` (None: all), int32.  NumPy: ``np.count_nonzero``.

    NaN counts as non-zero.

    Example:
        >>> polyops.ops.count_nonzero(polyops.ops.convert_to_tensor([[0, 1, 7], [3, 0, 0]]), axis=1)
        array([2, 1], dtype=int32)
    """
    _promote.preserve((key(x),))
    shape = shape_of(x)
    return spec(reduce_shape(shape, canonicalize_axes(axis, len(shape), "count_nonzero"), False), "int32")


@count_nonzero.reference
def _count_nonzero_ref(x, axis=None):
    return cast(sum(not_equal(x, 0), axis), "int32")


# ===== cumulative sums and products ===================================================


def _cumulative(name, identity, nan_to, summary, example):
    def prepare(x, axis=None, dtype=None):
        if axis is not None:
            axis = canonicalize_axis(axis, len(x.shape), name)
        if dtype is not None:  # accumulate in the requested dtype, as NumPy's dtype= does
            x = cast(x, dtype_arg(name, dtype))
        return x, axis, None

    def rule(x, axis=None, dtype=None):
        (acc,) = _promote.accumulate((key(x),))
        out = acc if dtype is None else dtype_arg(name, dtype)
        shape = shape_of(x)
        if axis is None:
            return spec((_size_or_none(shape),), out)
        canonicalize_axis(axis, len(shape), name)
        return spec(shape, out)

    np_name = name
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (
        f"{summary} along ``axis`` (None: the flattened tensor).  NumPy: ``np.{np_name}``.\n\n"
        "bool and narrow ints accumulate in 32 bits (as ``sum``); ``dtype`` casts the input\n"
        "first and fixes the result dtype.  Integers wrap around in the result dtype.\n"
        "The reference is a log2(n)-step scan, so float rounding follows a tree order.\n\n"
        f"Example:\n    >>> polyops.ops.{name}(polyops.ops.convert_to_tensor([1, 2, 3]))\n"
        f"    array({example}, dtype=int32)\n")
    # Kernel contract: <op>(x, axis, dtype): x already in the result dtype (the accumulate
    # promotion, or cast to the requested dtype); axis None (flattened) or a non-negative
    # int; dtype always None.  Returns x's dtype; integer results wrap around.
    op = defop("numpy", tensors=("x",), promote=_promote.accumulate, prepare=prepare)(rule)

    combine = multiply if identity == 1 else add

    def reference(x, axis=None, dtype=None):
        if axis is None:
            x, axis = _flat(x), 0
        if nan_to is not None and _is_float(x):
            x = where(_isnan(x), nan_to, x)
        return _scan(x, axis, combine, identity)

    op.reference(reference)
    return op


cumsum = _cumulative("cumsum", 0, None, "Cumulative sum", "[1, 3, 6]")
cumprod = _cumulative("cumprod", 1, None, "Cumulative product", "[1, 2, 6]")
nancumsum = _cumulative("nancumsum", 0, 0, "Cumulative sum treating NaN as 0", "[1, 3, 6]")
nancumprod = _cumulative("nancumprod", 1, 1, "Cumulative product treating NaN as 1", "[1, 2, 6]")


__all__ = [
    "Argpartition", "Argsort", "Bincount", "CountNonzero", "Cumprod", "Cumsum", "Digitize",
    "Histogram", "Isin", "Nancumprod", "Nancumsum", "Nonzero", "Searchsorted", "Sort",
    "Unique", "argpartition", "argsort", "bincount", "count_nonzero", "cumprod", "cumsum",
    "digitize", "histogram", "isin", "nancumprod", "nancumsum", "nonzero", "searchsorted",
    "sort", "unique",
]

_finish(globals())
