"""Order statistics and NaN-ignoring reductions: median, quantile, nanmean, average...

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from ... import _dtypes, _promote
from ..._op import defop
from ..._shapes import canonicalize_axes, reduce_shape
from ..._symbolic import SymbolicTensor
from .._base import finish as _finish
from .._base import key, shape_of, spec
from ..core import cast, convert_to_numpy, convert_to_tensor
from ..core import shape as _shape_of
from .base import _arg_extremum, _reduce_prepare_for, _reduce_rule, _reduction, add, arange, argmax, argmin, divide, equal
from .base import all as _all
from .base import floor_divide, full, logical_not, matmul, maximum, mean, minimum, multiply
from .base import max as _max
from .base import min as _min
from .base import not_equal, prod, reshape, sqrt, std, subtract
from .base import sum as _sum
from .base import take, transpose, var, where

# ===== helpers =======================================================================
# Private helpers shared by the ops below.  References only call polyops ops; the
# numpy calls here work on static arguments (q, sizes), never on tensor data.

_ORD_PRESERVE = _promote.ordered(_promote.preserve)
_ORD_FLOATING = _promote.ordered(_promote.floating)
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _dt(x) -> str:
    return _dtypes.standardize_dtype(x.dtype)


def _is_float(dtype) -> bool:
    return dtype in _dtypes.FLOAT_TYPES


def _has_nan(dtype) -> bool:
    """Whether values of ``dtype`` can be NaN (floats and complex)."""
    return dtype in _dtypes.FLOAT_TYPES or dtype in _dtypes.COMPLEX_TYPES


def _isnan(x):
    return not_equal(x, x)


def _rows(x, axes):
    """``x`` as (M, n): kept axes flattened first, reduced axes (None: all) flattened last."""
    shape = _shape_of(x)
    nd = len(shape)
    axes = tuple(range(nd)) if axes is None else tuple(axes)
    kept = tuple(i for i in range(nd) if i not in axes)
    perm = kept + axes
    if perm != tuple(range(nd)):
        x = transpose(x, perm)
    m = math.prod(shape[i] for i in kept)
    n = math.prod(shape[a] for a in axes)
    return reshape(x, (m, n)), m, n


def _row_offsets(m, n):
    """int32 (1, M): the flat index of each row's first element in an (M, n) tensor."""
    return reshape(arange(0, m * n, n, dtype="int32") if n else full((m,), 0, "int32"), (1, m))


def _sort_rows(x2):
    """Each row of (M, n) ``x2`` sorted ascending, NaN last (the sort op's contract: one
    sort, where an argsort and a gather cost a compiled jax quantile 1.2x jnp's)."""
    from .sorting import sort

    return sort(x2, axis=-1)


def _gather(s, pos, m, n):
    """``s[row, pos[..., row]]`` for (M, n) ``s`` and int32 ``pos`` of shape (k, M)."""
    return take(s, add(pos, _row_offsets(m, n)))


def _const(values, dtype):
    return convert_to_tensor(np.asarray(values), dtype)


def _virtual_indexes(counts, q, method, int_q):
    """NumPy's interpolation plan for ``q`` over samples of sizes ``counts`` (int64 array).

    Returns (prev, next, gamma): int64 index arrays into each sorted sample (NaN last,
    so NumPy's -1 is ``count - 1``) and float64 weights (None: take ``prev`` as is).
    The arithmetic is NumPy's own, in float64, so ties round as NumPy rounds them.
    """
    last = np.maximum(counts - 1, 0)
    v = (counts - 1) * q
    if method in ("lower", "higher", "nearest") or (int_q and method == "linear"):
        if method == "lower":
            vi = np.floor(v)
        elif method == "higher":
            vi = np.ceil(v)
        elif method == "nearest":
            vi = np.around(v)
        else:  # linear with an integer q: NumPy takes the exact index
            vi = v
        vi = np.clip(vi.astype(np.int64), 0, last)
        return vi, vi, None
    if method == "midpoint":
        v = 0.5 * (np.floor(v) + np.ceil(v))
    prev = np.floor(v)
    nxt = prev + 1
    above = v >= counts - 1
    prev = np.where(above, -1.0, prev)
    nxt = np.where(above, -1.0, nxt)
    below = v < 0
    prev = np.where(below, 0.0, prev)
    nxt = np.where(below, 0.0, nxt)
    gamma = v - prev
    if method == "midpoint":
        gamma = np.where(v % 1 == 0, 0.0, 0.5)
    prev_i = np.where(prev < 0, last, prev).astype(np.int64)
    next_i = np.where(nxt < 0, last, nxt).astype(np.int64)
    return np.clip(prev_i, 0, last), np.clip(next_i, 0, last), gamma


def _lerp(a, b, t, t1, ge):
    """NumPy's ``_lerp``: ``a + (b - a) * t``, or ``b - (b - a) * (1 - t)`` where ``t >= 0.5``."""
    d = subtract(b, a)
    return where(ge, subtract(b, multiply(d, t1)), add(a, multiply(d, t)))


def _quantile_rows(x2, m, n, qs, method, int_q, work, skip_nan):
    """Quantiles of each row of (M, n) ``x2``: a (k, M) tensor in ``work`` (k = len(qs)).

    ``skip_nan``: NaN-ignoring (the sample of a row is its non-NaN values; all-NaN
    rows give NaN); otherwise a row with a NaN gives NaN, as in NumPy.
    """
    k = len(qs)
    floating = _is_float(_dt(x2))
    s = _sort_rows(x2)
    if skip_nan and floating:
        counts = subtract(n, _sum(cast(_isnan(x2), "int32"), (1,)))  # (M,)
        sizes = np.arange(n + 1, dtype=np.int64)
        plans = [_virtual_indexes(sizes, float(q) if not int_q else q, method, int_q) for q in qs]
        table_at = add(reshape(arange(0, k * (n + 1), n + 1, dtype="int32"), (k, 1)),
                       reshape(counts, (1, m)))

        def pick(arrays, dtype):
            return take(_const(np.stack(arrays), dtype), table_at)
    else:
        counts = None
        plans = [_virtual_indexes(np.array([n], np.int64), q, method, int_q) for q in qs]

        def pick(arrays, dtype):
            return _const(np.stack(arrays).reshape(k, 1), dtype)

    prev = pick([p[0] for p in plans], "int32")
    a = cast(_gather(s, prev, m, n), work)
    if plans[0][2] is None:
        out = a
    else:
        b = cast(_gather(s, pick([p[1] for p in plans], "int32"), m, n), work)
        gammas = [p[2] for p in plans]
        out = _lerp(a, b, pick(gammas, work), pick([1 - g for g in gammas], work),
                    pick([g >= 0.5 for g in gammas], "bool"))
    if floating:
        if counts is not None:
            bad = reshape(equal(counts, 0), (1, m))
        else:
            bad = reshape(_isnan(take(s, add(_row_offsets(m, n), n - 1))), (1, m))
        out = where(bad, full((), math.nan, work), out)
    return out


def _q_values(op, q, scale):
    """``q`` as a Python number or a tuple of them, checked to lie in [0, scale]."""
    if isinstance(q, SymbolicTensor):
        raise TypeError(f"{op}: expected q as a number, a list or a concrete tensor "
                        f"(q is a static argument), got a SymbolicTensor")
    if isinstance(q, bool) or q is None or isinstance(q, (str, bytes)):
        raise TypeError(f"{op}: expected q as a number, a list or a 1-D tensor, got q={q!r}")
    if isinstance(q, (int, float)):
        arr = None
        values, vector = (q,), False
    else:
        if isinstance(q, (list, tuple, np.ndarray, np.generic)):
            arr = np.asarray(q)
        else:
            try:
                arr = np.asarray(convert_to_numpy(q))
            except Exception:
                arr = np.asarray(q)
        if arr.dtype.kind not in "iuf":
            raise TypeError(f"{op}: expected numeric q, got q={q!r}")
        if arr.ndim > 1:
            raise ValueError(f"{op}: expected q as a scalar or 1-D, got q with shape {arr.shape}")
        values, vector = tuple(v.item() for v in arr.reshape(-1)), arr.ndim == 1
    for v in values:
        if not 0 <= v <= scale:
            raise ValueError(f"{op}: expected q in [0, {scale}], got q={q!r}")
    return values if vector else values[0]


def _method_arg(op, method):
    if method not in _METHODS:
        raise ValueError(f"{op}: expected method in {_METHODS}, got method={method!r}")
    return method


def _quantile_family(name, scale, skip_nan, doc):
    """quantile, percentile, nanquantile, nanpercentile."""

    # Kernel contract: (x, q, axis, method, keepdims) with q a Python number or a
    # tuple of Python numbers (a tuple puts its length in front of the output shape),
    # already checked to lie in [0, 1] ([0, 100] for the percentiles; an int q keeps
    # NumPy's exact-index 'linear' rule); axis None or a sorted tuple of non-negative
    # ints; method one of _METHODS; keepdims a bool.  x arrives in the result dtype:
    # floating (bools and ints as floatx, float16/bfloat16 as float32: the op declares
    # compute), and the result keeps it.
    def prepare(x, q, axis=None, method="linear", keepdims=False):
        return (x, _q_values(name, q, scale), canonicalize_axes(axis, len(x.shape), name),
                _method_arg(name, method), bool(keepdims))

    def rule(x, q, axis=None, method="linear", keepdims=False):
        qv = _q_values(name, q, scale)
        _method_arg(name, method)
        (dtype,) = _ORD_FLOATING((key(x),))
        out = _reduce_rule(name, x, axis, keepdims, dtype)
        lead = (len(qv),) if isinstance(qv, tuple) else ()
        return spec(lead + out.shape, dtype)

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    op = defop("numpy", tensors=("x",), promote=_ORD_FLOATING, prepare=prepare,
               compute="float32", empty=math.nan)(rule)

    @op.reference
    def _ref(x, q, axis=None, method="linear", keepdims=False):
        q = _q_values(name, q, scale)
        shape = _shape_of(x)
        axes = canonicalize_axes(axis, len(shape), name)
        method = _method_arg(name, method)
        (dtype,) = _ORD_FLOATING((_dt(x),))
        qs = q if isinstance(q, tuple) else (q,)
        lead = (len(qs),) if isinstance(q, tuple) else ()
        out_shape = lead + reduce_shape(shape, axes, bool(keepdims))
        if scale != 1:
            qs, int_q = tuple(float(v) / scale for v in qs), False
        else:
            int_q = builtins.all(isinstance(v, int) for v in qs)
        x2, m, n = _rows(x, axes)
        if n == 0 or m == 0 or not qs:
            return full(out_shape, math.nan, dtype)
        out = _quantile_rows(x2, m, n, qs, method, int_q, dtype, skip_nan)
        return reshape(out, out_shape)

    return op


def _median_family(name, skip_nan, doc):
    # Kernel contract: (x, axis, keepdims): axis None or a sorted tuple of
    # non-negative ints, keepdims a bool; the result is floating (ints -> floatx).
    def rule(x, axis=None, keepdims=False):
        (dtype,) = _ORD_FLOATING((key(x),))
        return _reduce_rule(name, x, axis, keepdims, dtype)

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    op = defop("numpy", tensors=("x",), promote=_ORD_FLOATING, prepare=_reduce_prepare_for(name),
               compute="float32", empty=math.nan)(rule)

    @op.reference
    def _ref(x, axis=None, keepdims=False):
        shape = _shape_of(x)
        axes = canonicalize_axes(axis, len(shape), name)
        (dtype,) = _ORD_FLOATING((_dt(x),))
        out_shape = reduce_shape(shape, axes, bool(keepdims))
        x2, m, n = _rows(x, axes)
        if n == 0 or m == 0:
            return full(out_shape, math.nan, dtype)
        floating = _is_float(_dt(x2))
        s = _sort_rows(x2)
        offsets = reshape(_row_offsets(m, n), (m,))
        if skip_nan and floating:
            counts = subtract(n, _sum(cast(_isnan(x2), "int32"), (1,)))
            lo = maximum(floor_divide(subtract(counts, 1), 2), 0)
            hi = floor_divide(counts, 2)
            hi = minimum(hi, maximum(subtract(counts, 1), 0))
            a = take(s, add(offsets, lo))
            b = take(s, add(offsets, hi))
            out = where(equal(lo, hi), a, multiply(add(a, b), 0.5))
            out = where(equal(counts, 0), full((), math.nan, dtype), out)
        else:
            a = take(s, add(offsets, (n - 1) // 2))
            if n % 2:
                out = a
            else:
                b = take(s, add(offsets, n // 2))
                out = multiply(add(a, b), 0.5)
            if floating:
                out = where(_isnan(take(s, add(offsets, n - 1))), full((), math.nan, dtype), out)
        return reshape(out, out_shape)

    return op


# ===== ops ===========================================================================

# -- weighted average ------------------------------------------------------------------


def _average_check(shape, wshape, axes):
    if wshape is None:
        return
    if len(wshape) == len(shape) and builtins.all(
            a is None or b is None or a == b for a, b in zip(shape, wshape)):
        return
    if axes is not None and len(axes) == 1 and len(wshape) == 1 and (
            wshape[0] is None or shape[axes[0]] is None or wshape[0] == shape[axes[0]]):
        return
    raise ValueError(
        f"average: expected weights of shape {tuple(shape)}"
        + (f" or ({shape[axes[0]]},) along axis {axes[0]}" if axes is not None and len(axes) == 1 else "")
        + f", got weights of shape {tuple(wshape)}"
    )


# Kernel contract: (x, axis, weights): x and weights (None or a tensor) share the
# floating result dtype; axis None or a sorted tuple of non-negative ints; weights is
# x's shape or, for one axis, 1-D of that axis' length (checked).  A zero total
# weight gives NaN (NumPy raises ZeroDivisionError).
def _average_prepare(x, axis=None, weights=None):
    axes = canonicalize_axes(axis, len(x.shape), "average")
    _average_check(tuple(x.shape), None if weights is None else tuple(weights.shape), axes)
    return x, axes, weights


@defop("numpy", tensors=("x", "weights"), promote=_promote.floating, prepare=_average_prepare, compute="float32", empty=math.nan)
def average(x, axis=None, weights=None):
    """Weighted average over ``axis`` (None: all).  NumPy: ``np.average``.

    ``weights`` has ``x``'s shape, or (with a single axis) is 1-D along it.  The
    result is floating: ``x`` and ``weights`` promote together, ints to floatx.
    A slice whose weights sum to zero gives NaN (NumPy raises ZeroDivisionError).

    Example:
        >>> y = polyops.ops.average(polyops.ops.arange(4), weights=polyops.ops.arange(4))
        >>> polyops.ops.round(y, 4)   # 14 / 6
        np.float32(2.3333)
    """
    shape = shape_of(x)
    kw = None if weights is None else key(weights)
    dtype = _promote.floating((key(x), kw))[0]
    axes = canonicalize_axes(axis, len(shape), "average")
    _average_check(shape, None if weights is None else shape_of(weights), axes)
    return spec(reduce_shape(shape, axes, False), dtype)


@average.reference
def _average_ref(x, axis=None, weights=None):
    shape = _shape_of(x)
    axes = canonicalize_axes(axis, len(shape), "average")
    if weights is None:
        return mean(x, axes)
    work = _dt(x)
    wshape = _shape_of(weights)
    _average_check(shape, wshape, axes)
    w = weights
    if tuple(wshape) != tuple(shape):  # 1-D along the one axis
        w = reshape(w, tuple(d if i == axes[0] else 1 for i, d in enumerate(shape)))
    total = _sum(multiply(x, w), axes)
    scale = _sum(w, axes)
    return where(equal(scale, 0), full((), math.nan, work), divide(total, scale))


# -- peak to peak ------------------------------------------------------------------------

ptp = _reduction("ptp", _ORD_PRESERVE, nonempty=True, doc="""\
Range (maximum - minimum) over ``axis``; keeps the dtype.  NumPy: ``np.ptp``.

Integers wrap like the dtype (int8 ``127 - -128`` is -1, as in NumPy); NaN
propagates; bool gives ``max != min``.  An empty reduction is a ValueError.

Example:
    >>> polyops.ops.ptp(polyops.ops.convert_to_tensor([[1, 5], [2, 2]]), axis=1)
    array([4, 0], dtype=int32)
""")


@ptp.reference
def _ptp_ref(x, axis=None, keepdims=False):
    hi, lo = _max(x, axis, keepdims), _min(x, axis, keepdims)
    if _dt(x) == "bool":
        return not_equal(hi, lo)
    return subtract(hi, lo)


# -- order statistics ----------------------------------------------------------------------

median = _median_family("median", False, """\
Median over ``axis`` (None: all; an int or a tuple).  NumPy: ``np.median``.

The result is floating (ints and bools -> floatx; float16 computes in float32).
A slice holding a NaN gives NaN; an even count averages the two middle values
(``(a + b) / 2``, as NumPy); an empty slice gives NaN.

Example:
    >>> polyops.ops.median(polyops.ops.convert_to_tensor([3.0, 1.0, 4.0, 2.0]))
    array(2.5, dtype=float32)
""")

_QDOC = """\
{what} of ``x`` over ``axis`` (None: all; an int or a tuple).

NumPy: ``np.{name}``.  ``q`` is a number, a list or a 1-D tensor in [0, {scale}] (a ValueError otherwise);
a 1-D ``q`` puts its length in front of the output shape.  ``method`` is one of
"linear", "lower", "higher", "midpoint", "nearest", with NumPy's definitions and
NumPy's arithmetic (its interpolation, infinities included).
{nan}
The result is floating (ints and bools -> floatx).  ``q`` is a static argument:
a tensor ``q`` is read to the host (eager only).

Example:
    >>> polyops.ops.{name}(polyops.ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0]), {example}
"""
_PROPAGATE = "A slice holding a NaN gives NaN; an empty one NaN."
_IGNORE = "NaN values are ignored; an all-NaN or empty slice gives NaN."

quantile = _quantile_family("quantile", 1, False, _QDOC.format(
    what="The q-th quantiles", name="quantile", scale=1, nan=_PROPAGATE,
    example="[0.25, 0.75])\n    array([1.75, 3.25], dtype=float32)"))
percentile = _quantile_family("percentile", 100, False, _QDOC.format(
    what="The q-th percentiles", name="percentile", scale=100, nan=_PROPAGATE,
    example="50)\n    array(2.5, dtype=float32)"))

# -- NaN-ignoring reductions ----------------------------------------------------------------

nanmedian = _median_family("nanmedian", True, """\
Median over ``axis`` ignoring NaN.  NumPy: ``np.nanmedian``.

An all-NaN (or empty) slice gives NaN; an even count of non-NaN values averages
the two middle ones.  Integer inputs behave as `median`.  The result is floating.

Example:
    >>> polyops.ops.nanmedian(polyops.ops.convert_to_tensor([1.0, float("nan"), 3.0]))
    array(2., dtype=float32)
""")

nanquantile = _quantile_family("nanquantile", 1, True, _QDOC.format(
    what="The q-th quantiles, ignoring NaN,", name="nanquantile", scale=1, nan=_IGNORE,
    example="0.5)\n    array(2.5, dtype=float32)"))
nanpercentile = _quantile_family("nanpercentile", 100, True, _QDOC.format(
    what="The q-th percentiles, ignoring NaN,", name="nanpercentile", scale=100, nan=_IGNORE,
    example="[25, 75])\n    array([1.75, 3.25], dtype=float32)"))


def _nan_fill(x, value):
    """``x`` with NaN replaced by ``value`` (ints and bools: ``x`` itself)."""
    if not _has_nan(_dt(x)):
        return x
    return where(_isnan(x), full((), value, _dt(x)), x)


# Kernel contract of every reduction below (nansum ... nanmin) and of ptp, median and
# nanmedian: (x, axis, keepdims), x already in the op's input dtype (nansum/nanprod:
# as given, the kernel accumulates in the result dtype), axis None (all) or a sorted
# tuple of non-negative ints, keepdims a bool.  nanmax, nanmin and ptp get a non-empty
# reduction (checked).  Results: see each op's dtype note.

nansum = _reduction("nansum", _promote.accumulate, empty=0, doc=(
    "Sum over ``axis`` treating NaN as zero; all-NaN slices give 0.  NumPy: ``np.nansum``.\n\n"
    "bool and narrow ints accumulate in 32 bits, as `sum`.\n"
    "\nExample:\n    >>> polyops.ops.nansum(polyops.ops.convert_to_tensor([1.0, float('nan'), 2.0]))\n    np.float32(3.0)\n"))


@nansum.reference
def _nansum_ref(x, axis=None, keepdims=False):
    return _sum(_nan_fill(x, 0), axis, keepdims)


nanprod = _reduction("nanprod", _promote.accumulate, empty=1, doc=(
    "Product over ``axis`` treating NaN as one; all-NaN slices give 1.  NumPy: ``np.nanprod``.\n\n"
    "bool and narrow ints accumulate in 32 bits, as `prod`.\n"
    "\nExample:\n    >>> polyops.ops.nanprod(polyops.ops.convert_to_tensor([2.0, float('nan'), 3.0]))\n    np.float32(6.0)\n"))


@nanprod.reference
def _nanprod_ref(x, axis=None, keepdims=False):
    (acc,) = _promote.accumulate((_dt(x),))
    x = _nan_fill(x, 1)
    return prod(x if _dt(x) == acc else cast(x, acc), axis, keepdims)


def _nan_count_sum(x, axis, keepdims, work):
    """(sum of the non-NaN values in ``work``, count of them in ``work``) over ``axis``."""
    xf = cast(x, work)
    nan = _isnan(xf)
    total = _sum(where(nan, full((), 0, work), xf), axis, keepdims)
    count = cast(_sum(cast(logical_not(nan), "int32"), axis, keepdims), work)
    return total, count


nanmean = _reduction("nanmean", _promote.floating, compute="float32", empty=math.nan, doc=(
    "Mean over ``axis`` ignoring NaN; all-NaN (or empty) slices give NaN.  NumPy: ``np.nanmean``.\n\n"
    "The result is floating (ints -> floatx, which behave as `mean`); float16 sums in float32.\n"
    "\nExample:\n    >>> polyops.ops.nanmean(polyops.ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n    array(2., dtype=float32)\n"))


@nanmean.reference
def _nanmean_ref(x, axis=None, keepdims=False):
    (dtype,) = _promote.floating((_dt(x),))
    if not _has_nan(_dt(x)):
        return mean(x, axis, keepdims)
    total, count = _nan_count_sum(x, axis, True, dtype)
    return reshape(divide(total, count), reduce_shape(_shape_of(x), axis, keepdims))


def _nanvar(x, axis):
    """The NaN-ignoring variance over ``axis``, the reduced axes kept."""
    (work,) = _promote.floating((_dt(x),))
    total, count = _nan_count_sum(x, axis, True, work)
    xf = cast(x, work)
    centered = subtract(xf, divide(total, count))
    centered = where(_isnan(xf), full((), 0, work), centered)
    return divide(_sum(multiply(centered, centered), axis, True), count)


nanvar = _reduction("nanvar", _ORD_FLOATING, compute="float32", empty=math.nan, doc=(
    "Variance (population, ddof=0) over ``axis`` ignoring NaN.  NumPy: ``np.nanvar``.\n\n"
    "All-NaN (or empty) slices give NaN; ints behave as `var`; float16 computes in float32.\n"
    "\nExample:\n    >>> polyops.ops.nanvar(polyops.ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n    array(1., dtype=float32)\n"))


@nanvar.reference
def _nanvar_ref(x, axis=None, keepdims=False):
    if not _is_float(_dt(x)):
        return var(x, axis, keepdims)
    return reshape(_nanvar(x, axis), reduce_shape(_shape_of(x), axis, keepdims))


nanstd = _reduction("nanstd", _ORD_FLOATING, compute="float32", empty=math.nan, doc=(
    "Standard deviation (ddof=0) over ``axis`` ignoring NaN.  NumPy: ``np.nanstd``.\n\n"
    "All-NaN (or empty) slices give NaN; ints behave as `std`; float16 computes in float32.\n"
    "\nExample:\n    >>> polyops.ops.nanstd(polyops.ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n    array(1., dtype=float32)\n"))


@nanstd.reference
def _nanstd_ref(x, axis=None, keepdims=False):
    if not _is_float(_dt(x)):
        return std(x, axis, keepdims)
    return reshape(sqrt(_nanvar(x, axis)), reduce_shape(_shape_of(x), axis, keepdims))


def _nan_extremum_ref(reduce, fill):
    def ref(x, axis=None, keepdims=False):
        if not _is_float(_dt(x)):
            return reduce(x, axis, keepdims)
        nan = _isnan(x)
        out = reduce(where(nan, full((), fill, _dt(x)), x), axis, keepdims)
        return where(_all(nan, axis, keepdims), full((), math.nan, _dt(x)), out)

    return ref


nanmax = _reduction("nanmax", _ORD_PRESERVE, nonempty=True, doc=(
    "Maximum over ``axis`` ignoring NaN; all-NaN slices give NaN.  NumPy: ``np.nanmax``.\n\n"
    "Keeps the dtype; ints and bools behave as `max`; an empty reduction is a ValueError.\n"
    "\nExample:\n    >>> polyops.ops.nanmax(polyops.ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n    array(3., dtype=float32)\n"))
nanmax.reference(_nan_extremum_ref(_max, -math.inf))

nanmin = _reduction("nanmin", _ORD_PRESERVE, nonempty=True, doc=(
    "Minimum over ``axis`` ignoring NaN; all-NaN slices give NaN.  NumPy: ``np.nanmin``.\n\n"
    "Keeps the dtype; ints and bools behave as `min`; an empty reduction is a ValueError.\n"
    "\nExample:\n    >>> polyops.ops.nanmin(polyops.ops.convert_to_tensor([1.0, float('nan'), 3.0]))\n    array(1., dtype=float32)\n"))
nanmin.reference(_nan_extremum_ref(_min, math.inf))


def _nan_arg(name, arg, fill, doc):
    # Kernel contract: (x, axis, keepdims): axis None (the flattened x) or a
    # non-negative int, keepdims a bool; the reduced size is non-zero (checked).
    # An all-NaN slice gives -1 (NumPy raises; JAX gives -1).
    op = _arg_extremum(name, doc)

    @op.reference
    def _ref(x, axis=None, keepdims=False):
        if not _is_float(_dt(x)):
            return arg(x, axis, keepdims)
        # NumPy's and JAX's way: NaN becomes the identity (-inf for max), so a NaN
        # ahead of an only -inf wins the tie, as there.
        nan = _isnan(x)
        out = arg(where(nan, full((), fill, _dt(x)), x), axis, keepdims)
        return where(_all(nan, axis, keepdims), full((), -1, "int32"), out)

    return op


nanargmax = _nan_arg("nanargmax", argmax, -math.inf, """\
Index of the maximum along ``axis`` (None: flattened) ignoring NaN, int32.

NumPy: ``np.nanargmax``: NaN counts as -inf, so the first maximal index wins, and a
NaN ahead of an only -inf is returned (as NumPy and JAX do).  An all-NaN slice gives -1
on every backend (NumPy raises ValueError, JAX gives -1): check for it with ``< 0``.
Ints and bools behave as `argmax`; an empty slice is a ValueError.

Example:
    >>> polyops.ops.nanargmax(polyops.ops.convert_to_tensor([1.0, float("nan"), 3.0]))
    array(2, dtype=int32)
""")
nanargmin = _nan_arg("nanargmin", argmin, math.inf, """\
Index of the minimum along ``axis`` (None: flattened) ignoring NaN, int32.

NumPy: ``np.nanargmin``: NaN counts as +inf, so the first minimal index wins, and a
NaN ahead of an only +inf is returned (as NumPy and JAX do).  An all-NaN slice gives -1
on every backend (NumPy raises ValueError, JAX gives -1): check for it with ``< 0``.
Ints and bools behave as `argmin`; an empty slice is a ValueError.

Example:
    >>> polyops.ops.nanargmin(polyops.ops.convert_to_tensor([1.0, float("nan"), 3.0]))
    array(0, dtype=int32)
""")


# -- correlation ------------------------------------------------------------------------------


def _corrcoef_shape(shape):
    if len(shape) not in (1, 2):
        raise ValueError(f"corrcoef: expected a 1-D or 2-D tensor, got shape={tuple(shape)}")
    return () if len(shape) == 1 else (shape[0], shape[0])


# Kernel contract: (x): a 1-D or 2-D tensor (checked) of the floating result dtype.
def _corrcoef_prepare(x):
    _corrcoef_shape(tuple(x.shape))
    return (x,)


@defop("numpy", tensors=("x",), promote=_ORD_FLOATING, prepare=_corrcoef_prepare, compute="float32", empty=math.nan)
def corrcoef(x):
    """Pearson correlation coefficients of the rows of ``x`` (variables x observations).

    NumPy: ``np.corrcoef``.  A 2-D ``x`` of shape (N, D) gives (N, N); a 1-D ``x``
    is one variable and gives a 0-d result (1.0, or NaN for a constant row).  Values
    are clipped to [-1, 1]; a constant row or D < 2 gives NaN.  The result is
    floating (ints -> floatx; float16 computes in float32).

    Example:
        >>> polyops.ops.corrcoef(polyops.ops.convert_to_tensor([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]]))
        array([[ 1. , -0.5],
               [-0.5,  1. ]], dtype=float32)
    """
    (dtype,) = _ORD_FLOATING((key(x),))
    return spec(_corrcoef_shape(shape_of(x)), dtype)


@corrcoef.reference
def _corrcoef_ref(x):
    shape = _shape_of(x)
    out_shape = _corrcoef_shape(shape)
    xf = x
    if len(shape) == 1:
        xf = reshape(xf, (1, shape[0]))
    nvar, nobs = _shape_of(xf)
    centered = subtract(xf, mean(xf, (1,), True))
    c = matmul(centered, transpose(centered, (1, 0)))  # (N, N); the 1/(D-1) cancels
    diag = take(reshape(c, (nvar * nvar,)), arange(0, nvar * nvar, nvar + 1, dtype="int32")
                if nvar else full((0,), 0, "int32"))
    sd = sqrt(diag)
    c = divide(divide(c, reshape(sd, (nvar, 1))), reshape(sd, (1, nvar)))
    c = minimum(maximum(c, -1), 1)
    return reshape(c, out_shape)


__all__ = [
    "Average", "Corrcoef", "Median", "Nanargmax", "Nanargmin", "Nanmax", "Nanmean",
    "Nanmedian", "Nanmin", "Nanpercentile", "Nanprod", "Nanquantile", "Nanstd", "Nansum",
    "Nanvar", "Percentile", "Ptp", "Quantile", "average", "corrcoef", "median", "nanargmax",
    "nanargmin", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "nanstd", "nansum", "nanvar", "percentile", "ptp", "quantile",
]

_finish(globals())
