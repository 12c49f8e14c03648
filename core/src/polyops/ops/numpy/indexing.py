"""Structured creation (tri, identity, meshgrid...), triangles and diagonals, gathers and pad.

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtypes, _promote
from ..._op import defop
from ..._shapes import broadcast_shapes, normalize_shape
from ...plugin import pad_index
from .._base import check_tensor, dtype_arg, int_arg, key, shape_of, spec, unary
from .._base import finish as _finish
from .._indices import check_index
from ..core import cast
from ..core import shape as _shape_of
from ._args import (
    _INDEX_MODES, _ORD_FLOATING, _diag_shape, _diagonal_args, _meshgrid_args, _nonneg_int,
    _pad_args, _pad_constant, _select_check, _size, _space_args, _take_along_axis_shape,
    _vander_args,
)
from .base import (add, arange, broadcast_to, concatenate, divide, expand_dims, eye, floor,
                   floor_divide, full, greater_equal, less, logical_and, logical_not, mean, mod,
                   multiply, not_equal, power, reshape, sign, subtract, take, transpose, where,
                   zeros)
from .base import any as _any, exp as _exp, log as _log, max as _max, min as _min
from .base import round as _round, sum as _sum
from .base import _WIDE, _wide_scope

# ===== ops ===========================================================================

# ---- helpers --------------------------------------------------------------------


def _dtype_of(x) -> str:
    from ..core import dtype as _dt

    return _dt(x)


def _const(values, dtype="int32"):
    """A constant tensor built from static shapes only (index maps, masks)."""
    from ..core import convert_to_tensor

    return convert_to_tensor(np.asarray(values), dtype)


def _work_float(dtype):
    """The float dtype a reference computes in for a result of ``dtype``."""
    return "float64" if dtype == "float64" else "float32"


# ===== gathers ======================================================================


def _gather_promote_fn(keys):
    (x,) = _promote.preserve((keys[0],))
    if keys[1] not in _dtypes.INT_TYPES and keys[1] != "int":
        raise _promote.PromotionError(f"expected integer indices, got dtype {keys[1]}")
    return x, "int32"


_gather_promote = _promote.cached(_gather_promote_fn)


# Kernel contract: take_along_axis(x, indices, axis): indices an int32 tensor; axis None (x
# flattened, indices 1-D) or a non-negative int (indices of x's rank, broadcasting against x
# off the axis); negative indices count from the end, indices outside [-n, n) read 0 (only
# under a trace: eagerly the prepare hook raises first).  Returns x's dtype.
def _take_along_axis_prepare(x, indices, axis=None):
    xs = tuple(x.shape)
    _, axis = _take_along_axis_shape(xs, tuple(indices.shape), axis)
    if axis is None:
        n = None if None in xs else math.prod(xs)
        check_index("take_along_axis", indices, n, f"for the flattened input of size {n}")
    else:
        check_index("take_along_axis", indices, xs[axis], f"for axis {axis} of size {xs[axis]}")
    return x, indices, axis


@defop("numpy", tensors=("x", "indices"), promote=_gather_promote, prepare=_take_along_axis_prepare)
def take_along_axis(x, indices, axis=None):
    """Take values from ``x`` at ``indices`` along ``axis`` (None: the flattened ``x``).

    NumPy: ``np.take_along_axis``.  ``indices`` has ``x``'s rank (1-D for axis=None)
    and broadcasts against ``x`` off the axis; negative indices count from the end, and one
    outside ``[-n, n)`` raises `polyops.IndexOutOfRangeError` eagerly (under a trace it
    reads 0).  The result has ``x``'s dtype (64-bit demoted); integer indices only.

    Example:
        >>> x = polyops.ops.convert_to_tensor([[10, 30, 20]])
        >>> polyops.ops.take_along_axis(x, polyops.ops.argsort(x, axis=1), axis=1)
        array([[10, 20, 30]], dtype=int32)
    """
    dtype, _ = _gather_promote((key(x), key(indices)))
    shape, _ = _take_along_axis_shape(shape_of(x), shape_of(indices), axis)
    return spec(shape, dtype)


@take_along_axis.reference
def _take_along_axis_ref(x, indices, axis=None):
    xs, ish = _shape_of(x), _shape_of(indices)
    out, axis = _take_along_axis_shape(xs, ish, axis)
    if _size(out) == 0:
        return zeros(out, _dtype_of(x))
    n = _size(xs) if axis is None else xs[axis]
    # under a trace, indices outside [-n, n) read 0 (eagerly the prepare hook raised)
    valid = logical_and(greater_equal(indices, -n), less(indices, n))
    indices = where(valid, indices, 0)
    if axis is None:
        return where(valid, take(reshape(x, (-1,)), indices), zeros((), _dtype_of(x)))
    strides = [math.prod(xs[d + 1:]) for d in range(len(xs))]
    base = np.zeros(out, np.int64)
    for d in range(len(xs)):
        if d != axis and xs[d] != 1:
            shape = [1] * len(out)
            shape[d] = out[d]
            base = base + np.arange(out[d]).reshape(shape) * strides[d]
    if tuple(ish) != out:
        indices = broadcast_to(indices, out)
        valid = broadcast_to(valid, out)
    indices = where(less(indices, 0), add(indices, n), indices)
    flat = add(multiply(indices, strides[axis]), _const(base))
    return where(valid, take(reshape(x, (-1,)), flat), zeros((), _dtype_of(x)))


# ===== creation =====================================================================


# Kernel contract: array(x, dtype): x a native tensor (of any dtype the runtime lists, 64-bit
# included), dtype a canonical string (None resolved: x's dtype demoted to 32 bits).  Returns a
# new tensor (never x itself) of that dtype.
def _array_prepare(x, dtype=None):
    if dtype is not None:
        return x, dtype_arg("array", dtype)
    # (x is a native tensor here: its dtype without `ops.dtype`'s generality, a hot path;
    # preserve changes 64-bit dtypes only)
    src = _dtypes.standardize_dtype(x.dtype)
    return x, _promote.preserve((src,))[0] if src in _WIDE else src


@defop("numpy", tensors=("x",), promote=_promote.exact, prepare=_array_prepare)
def array(x, dtype=None):
    """Create a tensor from array-like data (a copy), like ``convert_to_tensor``.

    NumPy: ``np.array``.  ``dtype=None`` keeps the data's dtype, 64-bit demoted to
    32-bit (Python ints give int32, floats floatx); a given dtype is honoured.

    Example:
        >>> polyops.ops.array([1, 2, 3])
        array([1, 2, 3], dtype=int32)
        >>> polyops.ops.array([1, 2], dtype="float16")
        array([1., 2.], dtype=float16)
    """
    check_tensor("array", "x", x)
    src = _promote.preserve((key(x),))[0]
    return spec(shape_of(x), src if dtype is None else dtype_arg("array", dtype))


@array.reference
def _array_ref(x, dtype=None):
    if _dtype_of(x) == dtype:
        with _wide_scope(dtype):  # copy's own promotion would demote a 64-bit x
            return copy(x)
    return cast(x, dtype)


copy = unary("copy", doc=(
    "A copy of ``x`` (a new tensor with the same values and dtype).  NumPy: ``np.copy``.\n\n"
    "Kernel contract: copy(x) returns a new tensor, never x itself.\n\n"
    "Example:\n    >>> polyops.ops.copy(polyops.ops.arange(3))\n    array([0, 1, 2], dtype=int32)"))


@copy.reference
def _copy_ref(x):
    return where(True, x, x)


def _empty_prepare(shape, dtype=None):
    return normalize_shape(shape, "empty"), dtype_arg("empty", dtype)


# Kernel contract: empty(shape, dtype): shape a tuple of ints, dtype a canonical string.  The
# result must be zeros (polyops makes "uninitialized" deterministic).
@defop("numpy", tensors=(), promote=None, prepare=_empty_prepare)
def empty(shape, dtype=None):
    """A tensor of ``shape`` and ``dtype`` (default floatx); polyops fills it with zeros.

    NumPy: ``np.empty`` (whose contents are arbitrary; here they are deterministic).

    Example:
        >>> polyops.ops.empty((2, 3)).shape
        (2, 3)
    """
    return spec(*_empty_prepare(shape, dtype))


@empty.reference
def _empty_ref(shape, dtype=None):
    return zeros(shape, dtype)


def _like_dtype(op, x, dtype):
    src = _promote.preserve((key(x),))[0]
    return src if dtype is None else dtype_arg(op, dtype)


# Kernel contract: empty_like(x, dtype): dtype a canonical string (None resolved to x's).
# The result must be zeros shaped like x.
def _empty_like_prepare(x, dtype=None):
    return x, _like_dtype("empty_like", spec((), _dtype_of(x)), dtype)


@defop("numpy", tensors=("x",), prepare=_empty_like_prepare)
def empty_like(x, dtype=None):
    """A tensor shaped like ``x`` (dtype: ``x``'s by default); polyops fills it with zeros.

    NumPy: ``np.empty_like`` (arbitrary contents there; deterministic zeros here).

    Example:
        >>> polyops.ops.empty_like(polyops.ops.ones((2,), dtype="int8"))
        array([0, 0], dtype=int8)
    """
    check_tensor("empty_like", "x", x)
    return spec(shape_of(x), _like_dtype("empty_like", x, dtype))


@empty_like.reference
def _empty_like_ref(x, dtype=None):
    return zeros(_shape_of(x), dtype)


def _identity_prepare(n, dtype=None):
    return _nonneg_int("identity", "n", n), dtype_arg("identity", dtype)


# Kernel contract: identity(n, dtype): n a non-negative int, dtype a canonical string.
@defop("numpy", tensors=(), promote=None, prepare=_identity_prepare)
def identity(n, dtype=None):
    """The ``n x n`` identity matrix (dtype default floatx).  NumPy: ``np.identity``.

    Example:
        >>> polyops.ops.identity(2, dtype="int32")
        array([[1, 0],
               [0, 1]], dtype=int32)
    """
    n, dtype = _identity_prepare(n, dtype)
    return spec((n, n), dtype)


@identity.reference
def _identity_ref(n, dtype=None):
    return eye(n, n, 0, dtype)


def _tri_prepare(N, M=None, k=0, dtype=None):
    N = _nonneg_int("tri", "N", N)
    M = N if M is None else _nonneg_int("tri", "M", M)
    return N, M, int_arg("tri", "k", k), dtype_arg("tri", dtype)


# Kernel contract: tri(N, M, k, dtype): non-negative ints N and M (M resolved), int k,
# canonical dtype.
@defop("numpy", tensors=(), promote=None, prepare=_tri_prepare)
def tri(N, M=None, k=0, dtype=None):
    """An ``N x M`` tensor with ones at and below the ``k``-th diagonal (``j <= i + k``).

    NumPy: ``np.tri``.  ``M=None`` means ``N``; ``dtype=None`` means floatx.

    Example:
        >>> polyops.ops.tri(3, k=-1, dtype="int32")
        array([[0, 0, 0],
               [1, 0, 0],
               [1, 1, 0]], dtype=int32)
    """
    N, M, k, dtype = _tri_prepare(N, M, k, dtype)
    return spec((N, M), dtype)


def _tri_mask(N, M, k):
    rows = reshape(arange(0, N, 1), (N, 1))
    return greater_equal(add(rows, k), reshape(arange(0, M, 1), (1, M)))


@tri.reference
def _tri_ref(N, M=None, k=0, dtype=None):
    return cast(_tri_mask(N, M, k), dtype)


# ===== triangles and diagonals ======================================================


def _triangle(name, lower):
    def prepare(x, k=0):
        if len(x.shape) < 2:
            raise ValueError(f"{name}: expected a tensor of rank >= 2, got shape={tuple(x.shape)}")
        return x, int_arg(name, "k", k)

    def rule(x, k=0):
        check_tensor(name, "x", x)
        shape = shape_of(x)
        if len(shape) < 2:
            raise ValueError(f"{name}: expected a tensor of rank >= 2, got shape={shape}")
        int_arg(name, "k", k)
        return spec(shape, _promote.preserve((key(x),))[0])

    def ref(x, k=0):
        n, m = _shape_of(x)[-2:]
        mask = _tri_mask(n, m, k) if lower else logical_not(_tri_mask(n, m, k - 1))
        return where(mask, x, zeros((), _dtype_of(x)))

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = (
        f"{'Lower' if lower else 'Upper'} triangle of ``x``: elements with "
        f"``j {'<=' if lower else '>='} i + k`` kept, the others 0, over the last two axes.\n\n"
        f"NumPy: ``np.{name}``.  Needs rank >= 2; keeps ``x``'s dtype.\n\n"
        f"Kernel contract: {name}(x, k): x of rank >= 2, k an int.\n\n"
        f"Example:\n    >>> polyops.ops.{name}(polyops.ops.ones((2, 2)))\n"
        f"    array([[1., {'0.' if lower else '1.'}],\n"
        f"           [{'1.' if lower else '0.'}, 1.]], dtype=float32)"
    )
    public = defop("numpy", tensors=("x",), prepare=prepare)(rule)
    public.reference(ref)
    return public


tril = _triangle("tril", True)
triu = _triangle("triu", False)


# Kernel contract: diag(x, k): x 1-D or 2-D, k an int.
def _diag_prepare(x, k=0):
    k = int_arg("diag", "k", k)
    _diag_shape(tuple(x.shape), k)
    return x, k


@defop("numpy", tensors=("x",), prepare=_diag_prepare, empty=0)
def diag(x, k=0):
    """A 1-D ``x`` placed on the ``k``-th diagonal of a square matrix, or the ``k``-th
    diagonal of a 2-D ``x``.  NumPy: ``np.diag``.

    Example:
        >>> polyops.ops.diag(polyops.ops.arange(1, 3))
        array([[1, 0],
               [0, 2]], dtype=int32)
    """
    check_tensor("diag", "x", x)
    shape = _diag_shape(shape_of(x), int_arg("diag", "k", k))
    return spec(shape, _promote.preserve((key(x),))[0])


def _diag_from_vector(x, k):
    n = _shape_of(x)[0]
    m = n + abs(k)
    dtype = _dtype_of(x)
    if n == 0:
        return zeros((m, m), dtype)
    i, j = np.indices((m, m))
    src = i if k >= 0 else j  # the x element of each (row, column)
    mask = (j - i) == k
    gathered = take(x, _const(np.clip(src, 0, n - 1)))
    return where(_const(mask, "bool"), gathered, zeros((), dtype))


@diag.reference
def _diag_ref(x, k=0):
    if len(_shape_of(x)) == 1:
        return _diag_from_vector(x, k)
    return diagonal(x, k, 0, 1)


# Kernel contract: diagflat(x, k): x of any rank (flattened in C order), k an int.
def _diagflat_prepare(x, k=0):
    return x, int_arg("diagflat", "k", k)


@defop("numpy", tensors=("x",), prepare=_diagflat_prepare, empty=0)
def diagflat(x, k=0):
    """The flattened ``x`` on the ``k``-th diagonal of a square matrix.  NumPy: ``np.diagflat``.

    Example:
        >>> polyops.ops.diagflat(polyops.ops.ones((2, 1))).shape
        (2, 2)
    """
    check_tensor("diagflat", "x", x)
    n = _size(shape_of(x))
    d = None if n is None else n + abs(int_arg("diagflat", "k", k))
    return spec((d, d), _promote.preserve((key(x),))[0])


@diagflat.reference
def _diagflat_ref(x, k=0):
    return _diag_from_vector(reshape(x, (-1,)), k)


# Kernel contract: diagonal(x, offset, axis1, axis2) / trace(...): x of rank >= 2, offset an
# int, axis1 != axis2 non-negative ints.  trace's x arrives in its accumulation dtype.
def _diagonal_prepare_for(op):
    def prepare(x, offset=0, axis1=0, axis2=1):
        offset, a1, a2, _ = _diagonal_args(op, tuple(x.shape), offset, axis1, axis2)
        return x, offset, a1, a2

    return prepare


@defop("numpy", tensors=("x",), prepare=_diagonal_prepare_for("diagonal"))
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The diagonal ``x[..., i, i + offset]`` of the planes spanned by ``axis1`` and ``axis2``.

    NumPy: ``np.diagonal``.  The two axes are removed and the diagonal becomes the
    last axis.

    Example:
        >>> polyops.ops.diagonal(polyops.ops.reshape(polyops.ops.arange(9), (3, 3)), 1)
        array([1, 5], dtype=int32)
    """
    check_tensor("diagonal", "x", x)
    *_, shape = _diagonal_args("diagonal", shape_of(x), offset, axis1, axis2)
    return spec(shape, _promote.preserve((key(x),))[0])


@diagonal.reference
def _diagonal_ref(x, offset=0, axis1=0, axis2=1):
    xs = _shape_of(x)
    offset, a1, a2, out = _diagonal_args("diagonal", xs, offset, axis1, axis2)
    if _size(out) == 0:
        return zeros(out, _dtype_of(x))
    rest = [i for i in range(len(xs)) if i not in (a1, a2)]
    if rest + [a1, a2] != list(range(len(xs))):
        x = transpose(x, tuple(rest + [a1, a2]))
    n, m = xs[a1], xs[a2]
    x = reshape(x, tuple(xs[i] for i in rest) + (n * m,))
    i = np.arange(out[-1])
    flat = i * m + i + offset if offset >= 0 else (i - offset) * m + i
    return take(x, _const(flat), len(rest))


@defop("numpy", tensors=("x",), promote=_promote.accumulate, prepare=_diagonal_prepare_for("trace"), empty=0)
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum along the diagonal ``x[..., i, i + offset]`` of the ``axis1``/``axis2`` planes.

    NumPy: ``np.trace``.  Accumulates like ``sum``: bool and narrow ints give 32-bit
    results; an empty diagonal sums to 0.

    Example:
        >>> polyops.ops.trace(polyops.ops.eye(3))
        np.float32(3.0)
    """
    check_tensor("trace", "x", x)
    (dtype,) = _promote.accumulate((key(x),))
    *_, shape = _diagonal_args("trace", shape_of(x), offset, axis1, axis2)
    return spec(shape[:-1], dtype)


@trace.reference
def _trace_ref(x, offset=0, axis1=0, axis2=1):
    d = diagonal(x, offset, axis1, axis2)
    if _shape_of(d)[-1] == 0:
        return zeros(_shape_of(d)[:-1], _dtype_of(x))
    return _sum(d, -1)


# ===== spaced values ================================================================


def _space_steps(start, stop, num, endpoint, axis, work):
    """(start, stop) broadcast with a new axis, and ``start + i * step`` along it."""
    start, stop = cast(start, work), cast(stop, work)
    shape = broadcast_shapes(_shape_of(start), _shape_of(stop))
    start = expand_dims(broadcast_to(start, shape), axis)
    stop = expand_dims(broadcast_to(stop, shape), axis)
    div = num - 1 if endpoint else num
    ishape = [1] * (len(shape) + 1)
    ishape[axis] = num
    i = reshape(arange(0, num, 1, dtype=work), tuple(ishape))
    if div > 0:
        values = add(multiply(i, divide(subtract(stop, start), div)), start)
    else:
        values = add(multiply(i, 0.0), start)
    return start, stop, values, ishape


def _endpoints(values, start, stop, num, endpoint, ishape):
    """NumPy sets the first value to start (and the last to stop when ``endpoint``)."""
    idx = np.arange(num).reshape(ishape)
    values = where(_const(idx == 0, "bool"), start, values)
    if endpoint and num > 1:
        values = where(_const(idx == num - 1, "bool"), stop, values)
    return values


# Kernel contract: geomspace(start, stop, num, endpoint, dtype, axis) and logspace(start, stop,
# num, endpoint, base, dtype, axis): start and stop tensors of the promoted float dtype
# (broadcastable), num a non-negative int, endpoint a bool, base a Python number, dtype a
# canonical string (None resolved), axis a non-negative int in [0, broadcast rank].
def _geomspace_prepare(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    num, endpoint, dtype, axis, _ = _space_args("geomspace", _spec_of(start), _spec_of(stop),
                                                num, endpoint, dtype, axis)
    return start, stop, num, endpoint, dtype, axis


def _spec_of(t):
    """The spec of native tensor ``t`` (a prepare hook's operand: no `ops.dtype` frames)."""
    return spec(tuple(t.shape), _dtypes.standardize_dtype(t.dtype))


@defop("numpy", tensors=("start", "stop"), promote=_ORD_FLOATING, prepare=_geomspace_prepare)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop`` (a geometric
    progression).  NumPy: ``np.geomspace``.

    ``start``/``stop`` may be tensors (broadcast; the samples go along ``axis``).
    Negative pairs work as in NumPy; a 0 or a sign change gives NaN inside (NumPy
    raises for 0).  ``dtype=None``: the float promotion of start and stop; a given
    dtype is honoured (ints truncate, as NumPy's ``astype``).  The first (and, with
    ``endpoint``, last) value is exactly start (stop).

    Example:
        >>> polyops.ops.round(polyops.ops.geomspace(1.0, 1000.0, 4), 4)
        array([   1.,   10.,  100., 1000.], dtype=float32)
    """
    *_, dtype, _, shape = _space_args("geomspace", start, stop, num, endpoint, dtype, axis)
    return spec(shape, dtype)


@geomspace.reference
def _geomspace_ref(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    *_, out = _space_args("geomspace", spec(_shape_of(start), "float32"),
                          spec(_shape_of(stop), "float32"), num, endpoint, dtype, axis)
    if _size(out) == 0:
        return zeros(out, dtype)
    work = _work_float(dtype)
    with _wide_scope(work):  # a float64 result computes in float64 in either 64-bit mode
        start, stop = cast(start, work), cast(stop, work)
        sgn = sign(start)  # NumPy rotates start to the positive axis, then back
        s_abs, e_rel = multiply(start, sgn), multiply(stop, sgn)
        _, _, y, ishape = _space_steps(_log(s_abs), _log(e_rel), num, endpoint, axis, work)
        values = _exp(y)
        bshape = _drop(_shape_of(values), axis)

        def along(t):
            return expand_dims(broadcast_to(t, bshape), axis)

        values = _endpoints(values, along(s_abs), along(e_rel), num, endpoint, ishape)
        return cast(multiply(values, along(sgn)), dtype)


def _drop(shape, axis):
    return tuple(shape[:axis]) + tuple(shape[axis + 1:])


def _logspace_prepare(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    if not isinstance(base, (int, float)) or isinstance(base, bool):
        raise TypeError(f"logspace: expected a Python number for base, got base={base!r}")
    num, endpoint, dtype, axis, _ = _space_args("logspace", _spec_of(start), _spec_of(stop),
                                                num, endpoint, dtype, axis)
    return start, stop, num, endpoint, base, dtype, axis


@defop("numpy", tensors=("start", "stop"), promote=_ORD_FLOATING, prepare=_logspace_prepare)
def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``: numbers spaced evenly on a log scale.

    NumPy: ``np.logspace``.  ``start``/``stop`` may be tensors (broadcast; samples
    along ``axis``); ``base`` is a Python number.  ``dtype=None``: the float
    promotion of start and stop; a given dtype is honoured (ints truncate).

    Example:
        >>> polyops.ops.logspace(0.0, 2.0, 3)
        array([  1.,  10., 100.], dtype=float32)
    """
    if not isinstance(base, (int, float)) or isinstance(base, bool):
        raise TypeError(f"logspace: expected a Python number for base, got base={base!r}")
    *_, dtype, _, shape = _space_args("logspace", start, stop, num, endpoint, dtype, axis)
    return spec(shape, dtype)


@logspace.reference
def _logspace_ref(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    *_, out = _space_args("logspace", spec(_shape_of(start), "float32"),
                          spec(_shape_of(stop), "float32"), num, endpoint, dtype, axis)
    if _size(out) == 0:
        return zeros(out, dtype)
    work = _work_float(dtype)
    with _wide_scope(work):  # a float64 result computes in float64 in either 64-bit mode
        s, e, y, ishape = _space_steps(start, stop, num, endpoint, axis, work)
        shape = _shape_of(y)
        if endpoint and num > 1:
            idx = np.arange(num).reshape(ishape)
            y = where(_const(idx == num - 1, "bool"), broadcast_to(e, shape), y)
        return cast(power(float(base), y), dtype)


# ===== structured matrices and grids ================================================

_NUMERIC = _promote.numeric


# Kernel contract: vander(x, N, increasing): x 1-D (bool arrives as int32), N a non-negative
# int (None resolved to len(x)), increasing a bool.  Powers multiply in x's dtype (ints wrap).
def _vander_prepare(x, N=None, increasing=False):
    N, increasing = _vander_args(tuple(x.shape), N, increasing)
    return x, N, increasing


@defop("numpy", tensors=("x",), promote=_NUMERIC, prepare=_vander_prepare)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x ** (N - 1 - j)`` (``x ** j`` when
    ``increasing``).  NumPy: ``np.vander``.

    ``N=None`` means ``len(x)``.  The result keeps ``x``'s dtype (bool -> int32);
    integer powers wrap around like the dtype.  ``x ** 0`` is 1, NaN included.

    Example:
        >>> polyops.ops.vander(polyops.ops.convert_to_tensor([1, 2, 3]), 3)
        array([[1, 1, 1],
               [4, 2, 1],
               [9, 3, 1]], dtype=int32)
    """
    check_tensor("vander", "x", x)
    (dtype,) = _NUMERIC((key(x),))
    shape = shape_of(x)
    N, _ = _vander_args(shape, N, increasing)
    return spec((shape[0], N), dtype)


@vander.reference
def _vander_ref(x, N=None, increasing=False):
    (n,) = _shape_of(x)
    N, increasing = _vander_args((n,), N, increasing)
    dtype = _dtype_of(x)
    if n == 0 or N == 0:
        return zeros((n, N), dtype)
    col = reshape(x, (n, 1))
    cols, m, p = full((n, 1), 1, dtype), 1, col  # cols = x**0 .. x**(m-1); p = x**m
    while m < N:  # log2(N) doublings
        cols = concatenate([cols, multiply(cols, p)], 1)
        m *= 2
        if m < N:
            p = multiply(p, p)
    order = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    return take(cols, _const(order), 1)


# Kernel contract: meshgrid(*x, indexing): the tensors (each flattened, dtypes kept) and,
# last, indexing "xy" or "ij".  Returns a list of tensors.
def _meshgrid_prepare(*args):
    *x, indexing = args
    _meshgrid_args([tuple(t.shape) for t in x], indexing)
    return args


@defop("numpy", tensors=("x",), promote=_promote.preserve, prepare=_meshgrid_prepare)
def meshgrid(*x, indexing="xy"):
    """Coordinate grids from coordinate vectors: a list of N tensors of the grid's shape.

    NumPy: ``np.meshgrid``.  Inputs are flattened; ``indexing="xy"`` (Cartesian)
    swaps the first two grid axes, ``"ij"`` (matrix) does not.  Each output keeps
    its input's dtype.

    Example:
        >>> gx, gy = polyops.ops.meshgrid(polyops.ops.arange(3), polyops.ops.arange(2))
        >>> gx.shape
        (2, 3)
    """
    for t in x:
        check_tensor("meshgrid", "x", t)
    shape = _meshgrid_args([shape_of(t) for t in x], indexing)
    return [spec(shape, _promote.preserve((key(t),))[0]) for t in x]


@meshgrid.reference
def _meshgrid_ref(*x, indexing="xy"):
    shape = _meshgrid_args([_shape_of(t) for t in x], indexing)
    out = []
    for i, t in enumerate(x):
        pos = i if indexing == "ij" or len(x) < 2 or i > 1 else 1 - i
        dims = [1] * len(x)
        dims[pos] = -1
        out.append(broadcast_to(reshape(t, tuple(dims)), shape))
    return out


def ndim(x) -> int:
    """The number of dimensions of ``x`` as a Python int.  NumPy: ``np.ndim``.

    Example:
        >>> polyops.ops.ndim(polyops.ops.zeros((2, 3)))
        2
    """
    return len(_shape_of(x))


def size(x):
    """The number of elements of ``x`` as a Python int (None when a dim is unknown).

    NumPy: ``np.size``.

    Example:
        >>> polyops.ops.size(polyops.ops.zeros((2, 3)))
        6
    """
    return _size(_shape_of(x))


# ===== index arithmetic and selection ===============================================


def _int32_promote_fn(keys):
    for k in keys:
        if k in _dtypes.FLOAT_TYPES or k in _dtypes.COMPLEX_TYPES or k in ("float", "complex"):
            raise _promote.PromotionError(f"expected integer indices, got dtype {k}")
    return tuple("int32" for _ in keys)


_int32_promote = _promote.cached(_int32_promote_fn)


def _unravel_shape(shape):
    return normalize_shape(shape, "unravel_index")


# Kernel contract: unravel_index(indices, shape): indices an int32 tensor, shape a tuple of
# non-negative ints.  Returns a tuple of len(shape) int32 tensors shaped like indices.
def _unravel_prepare(indices, shape):
    shape = _unravel_shape(shape)
    if None in shape:
        raise ValueError(f"unravel_index: expected a fully known shape, got shape={shape}")
    if 0 in shape and _size(tuple(indices.shape)):
        raise ValueError(f"unravel_index: cannot unravel indices into shape={shape} of size 0")
    n = _size(shape)
    check_index("unravel_index", indices, n, f"for shape {shape} of size {n}", wrap=False)
    return indices, shape


@defop("numpy", tensors=("indices",), promote=_int32_promote, prepare=_unravel_prepare)
def unravel_index(indices, shape):
    """Flat indices as a tuple of coordinate tensors into ``shape`` (C order), int32.

    NumPy: ``np.unravel_index``.  Indices must lie in ``[0, prod(shape))``: others raise
    `polyops.IndexOutOfRangeError` eagerly, as NumPy raises; under a trace they give the
    floor-division/modulo coordinates, the first one unbounded.

    Example:
        >>> polyops.ops.unravel_index(polyops.ops.convert_to_tensor([5, 7]), (3, 3))
        (array([1, 2], dtype=int32), array([2, 1], dtype=int32))
    """
    check_tensor("unravel_index", "indices", indices)
    _int32_promote((key(indices),))
    shape = _unravel_shape(shape)
    return tuple(spec(shape_of(indices), "int32") for _ in shape)


@unravel_index.reference
def _unravel_ref(indices, shape):
    shape = _unravel_shape(shape)
    if not shape:
        return ()
    if _size(_shape_of(indices)) == 0:
        return tuple(zeros(_shape_of(indices), "int32") for _ in shape)
    coords = []
    rem = indices
    for d in reversed(shape[1:]):
        coords.append(mod(rem, d))
        rem = floor_divide(rem, d)
    coords.append(rem)
    return tuple(reversed(coords))


def _select_promote_fn(keys):
    n, odd = divmod(len(keys) - 1, 2)
    if odd or n == 0:  # mismatched lists: the prepare step reports them
        return _promote.preserve(keys)
    out = _dtypes.result_type_of_keys(tuple(keys[n:]))
    return ("bool",) * n + (out,) * (n + 1)


_select_promote = _promote.cached(_select_promote_fn)


# Kernel contract: select(condlist, choicelist, default): condlist a list of bool tensors,
# choicelist a list of tensors of the result dtype (same length), default a 0-d (or
# broadcastable) tensor of the result dtype.  The first true condition wins.
def _select_prepare(condlist, choicelist, default=0):
    _select_check(condlist, choicelist)
    broadcast_shapes(*[tuple(t.shape) for t in (*condlist, *choicelist, default)], op="select")
    return condlist, choicelist, default


@defop("numpy", tensors=("condlist[]", "choicelist[]", "default"), promote=_select_promote,
       prepare=_select_prepare)
def select(condlist, choicelist, default=0):
    """Elements of ``choicelist[i]`` for the first true ``condlist[i]``, else ``default``.

    NumPy: ``np.select``.  Conditions are taken as bool; choices and default promote
    together (a Python-scalar default is weak); everything broadcasts.

    Example:
        >>> x = polyops.ops.arange(6)
        >>> polyops.ops.select([x < 3, x > 3], [x, x * x], 42)
        array([ 0,  1,  2, 42, 16, 25], dtype=int32)
    """
    _select_check(condlist, choicelist)
    for name, group in (("condlist", condlist), ("choicelist", choicelist)):
        for t in group:
            check_tensor("select", name, t)
    check_tensor("select", "default", default)
    keys = tuple(key(t) for t in (*condlist, *choicelist, default))
    dtype = _select_promote(keys)[-1]
    shape = broadcast_shapes(*[shape_of(t) for t in (*condlist, *choicelist, default)], op="select")
    return spec(shape, dtype)


@select.reference
def _select_ref(condlist, choicelist, default=0):
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = where(cond, choice, out)
    shape = broadcast_shapes(*[_shape_of(t) for t in (*condlist, *choicelist, default)])
    return out if _shape_of(out) == shape else broadcast_to(out, shape)


# ===== pad ==========================================================================


# Kernel contract: pad(x, pad_width, mode, constant_values): pad_width a tuple of (before,
# after) pairs of non-negative ints, one per axis; mode one of _PAD_MODES with "circular"
# resolved to "wrap" and "empty" to "constant"; constant_values a Python number that x's
# dtype holds (0 when not given) for "constant", else None.  Stat modes use the whole axis
# (NumPy's default stat_length) and run axis by axis, as NumPy does.
def _pad_prepare(x, pad_width, mode="constant", constant_values=None):
    widths, mode, value, _ = _pad_args(tuple(x.shape), pad_width, mode, constant_values)
    mode = {"circular": "wrap", "empty": "constant"}.get(mode, mode)
    value = _pad_constant(value, _dtype_of(x)) if mode == "constant" else None
    return x, widths, mode, value


def _pad_fill(out, x, pad_width, mode="constant", constant_values=None):
    """An empty ``x`` padded to a non-empty result: all padding (only mode "constant"
    gets there; prepare rejects the others)."""
    return 0 if constant_values is None else constant_values


@defop("numpy", tensors=("x",), prepare=_pad_prepare, empty=_pad_fill)
def pad(x, pad_width, mode="constant", constant_values=None):
    """Pad a tensor.  NumPy: ``np.pad``.

    ``pad_width``: an int, ``(n,)``, ``(before, after)`` or one pair per axis.
    Modes: "constant" (``constant_values``, a Python number, default 0), "edge",
    "reflect", "symmetric", "wrap" (alias "circular"), "maximum", "minimum",
    "mean", "median" (the statistic of the whole axis; ints round half to even),
    "linear_ramp" (to 0; ints floor as NumPy's), "empty" (zeros here).  The result
    keeps ``x``'s dtype.  Non-constant modes cannot pad an empty axis.

    Example:
        >>> polyops.ops.pad(polyops.ops.arange(1, 4), (1, 2), mode="reflect")
        array([2, 1, 2, 3, 2, 1], dtype=int32)
    """
    check_tensor("pad", "x", x)
    *_, out = _pad_args(shape_of(x), pad_width, mode, constant_values)
    return spec(out, _promote.preserve((key(x),))[0])


def _slab(t, axis, start, stop):
    return take(t, _const(np.arange(start, stop)), axis)


def _pad_stat(t, axis, mode, dtype):
    """The statistic of ``t`` along ``axis`` (keepdims), in ``t``'s dtype, as NumPy pads it."""
    if mode == "maximum":
        return _max(t, (axis,), True)
    if mode == "minimum":
        return _min(t, (axis,), True)
    work = _work_float(dtype)
    f = cast(t, work)
    if mode == "mean":
        stat = mean(f, (axis,), True)
    else:  # median: NaN if the line has one, else the middle (mean of the two middle ones)
        from .sorting import argsort

        n = _shape_of(t)[axis]
        ordered = take_along_axis(f, argsort(f, axis), axis)
        mid = _slab(ordered, axis, (n - 1) // 2, n // 2 + 1)
        stat = mean(mid, (axis,), True) if n % 2 == 0 else mid
        stat = where(_any(not_equal(f, f), (axis,), True), float("nan"), stat)
    if dtype in _dtypes.INT_TYPES:
        stat = _round(stat)
    return cast(stat, dtype)


def _ramp(edge, width, axis, rank, reverse, dtype):
    """NumPy's linspace(0, edge, width, endpoint=False) along ``axis`` (reversed after)."""
    work = _work_float(dtype)
    shape = [1] * rank
    shape[axis] = width
    j = np.arange(width)[::-1] if reverse else np.arange(width)
    ramp = divide(multiply(cast(edge, work), _const(j.reshape(shape), work)), float(width))
    if dtype in _dtypes.INT_TYPES:
        ramp = floor(ramp)
    return cast(ramp, dtype)


@pad.reference
def _pad_ref(x, pad_width, mode="constant", constant_values=None):
    xs = _shape_of(x)
    widths, mode, value, out = _pad_args(xs, pad_width, mode, constant_values)
    mode = {"circular": "wrap", "empty": "constant"}.get(mode, mode)
    dtype = _dtype_of(x)
    value = _pad_constant(value, dtype)
    if _size(out) == 0:
        return zeros(out, dtype)
    if _size(xs) == 0:  # constant modes only (the others raised)
        return full(out, value, dtype)
    for axis, (b, a) in enumerate(widths):
        if not (b or a):
            continue
        shape = list(_shape_of(x))
        n = shape[axis]
        if mode in _INDEX_MODES:
            x = take(x, _const(pad_index(n, b, a, mode)), axis)
            continue
        if mode == "constant":
            before = full(tuple(shape[:axis] + [b] + shape[axis + 1:]), value, dtype) if b else None
            after = full(tuple(shape[:axis] + [a] + shape[axis + 1:]), value, dtype) if a else None
        elif mode == "linear_ramp":
            before = _ramp(_slab(x, axis, 0, 1), b, axis, len(shape), False, dtype) if b else None
            after = _ramp(_slab(x, axis, n - 1, n), a, axis, len(shape), True, dtype) if a else None
        else:
            stat = _pad_stat(x, axis, mode, dtype)
            before = broadcast_to(stat, tuple(shape[:axis] + [b] + shape[axis + 1:])) if b else None
            after = broadcast_to(stat, tuple(shape[:axis] + [a] + shape[axis + 1:])) if a else None
        x = concatenate([t for t in (before, x, after) if t is not None], axis)
    return x


__all__ = [
    "Array", "Copy", "Diag", "Diagflat", "Diagonal", "Empty", "EmptyLike", "Geomspace",
    "Identity", "Logspace", "Meshgrid", "Pad", "Select", "TakeAlongAxis", "Trace", "Tri",
    "Tril", "Triu", "UnravelIndex", "Vander", "array", "copy", "diag", "diagflat", "diagonal",
    "empty", "empty_like", "geomspace", "identity", "logspace", "meshgrid", "ndim", "pad",
    "select", "size", "take_along_axis", "trace", "tri", "tril", "triu", "unravel_index",
    "vander",
]

_finish(globals())
