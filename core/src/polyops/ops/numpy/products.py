"""Tensor products (outer, kron, tensordot...), window functions, correlate, slogdet, vectorize.

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import builtins
import functools
import math
import numbers
import re

from ... import _dtypes, _promote, config  # noqa: F401
from ..._op import defop  # noqa: F401
from ..._shapes import broadcast_shapes, canonicalize_axis, size_of, square_batch
from ..._symbolic import SymbolicTensor  # noqa: F401
from .._base import finish as _finish
from .._base import int_arg, key, shape_of, spec
from ..core import cast, convert_to_tensor
from ..core import dtype as _dtype_of
from ..core import shape as _shape_of  # noqa: F401
from .base import (
    abs, add, any, arange, argmax, broadcast_to, concatenate, cos, divide, einsum, equal, exp, greater,
    get_item, less, less_equal, log, logical_and, logical_or, mod, multiply, negative,
    ones, reshape, stack, subtract, sum, take, transpose, where, zeros,
)

_bmax, _bmin, _babs = builtins.max, builtins.min, builtins.abs  # ops shadow the builtins

# ===== ops ===========================================================================

# ----- shared helpers ----------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxy"  # einsum labels; "z" is kept for contractions


def _dt(x) -> str:
    return _dtypes.standardize_dtype(_dtype_of(x))


def _const(values, dtype):
    """A constant tensor of static values (indices, masks) computed on the host from shapes."""
    return convert_to_tensor(values, dtype)


def _operand(op, name, x):
    """Check that a rule operand is a SymbolicTensor or a Python scalar (a weak 0-d operand)."""
    if isinstance(x, SymbolicTensor):
        return x
    if isinstance(x, (bool, int, float, complex)):
        return x
    raise TypeError(f"{op}: expected a tensor for {name!r}, got {type(x).__name__}")


def _conj_if_complex(x):
    if _dt(x) in _dtypes.COMPLEX_TYPES:
        from ... import ops as _ops  # conj lives in a sibling module

        return _ops.conj(x)
    return x


def _last_dims_match(op, a, b, da, db):
    if da is not None and db is not None and da != db:
        raise ValueError(f"{op}: expected matching contraction dims, got shapes {a} and {b}")


# ===== tensor products ==============================================================


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul)
def outer(x1, x2):
    """Outer product of two tensors, flattened first: ``out[i, j] = x1.flat[i] * x2.flat[j]``.

    NumPy: ``np.outer``.  The dtype follows ``matmul`` (int8 x int8 gives int32);
    a dim is None when the size of that operand is unknown.

    Example:
        >>> polyops.ops.outer(polyops.ops.arange(2), polyops.ops.arange(3))
        array([[0, 0, 0],
               [0, 1, 2]], dtype=int32)
    """
    x1, x2 = _operand("outer", "x1", x1), _operand("outer", "x2", x2)
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    return spec((size_of(shape_of(x1)), size_of(shape_of(x2))), dtype)


@outer.reference
def _outer_ref(x1, x2):
    n, m = math.prod(_shape_of(x1)), math.prod(_shape_of(x2))
    return multiply(reshape(x1, (n, 1)), reshape(x2, (1, m)))


def _kron_shape(a, b):
    nd = _bmax(len(a), len(b))
    a = (1,) * (nd - len(a)) + tuple(a)
    b = (1,) * (nd - len(b)) + tuple(b)
    out = tuple(0 if 0 in (p, q) else None if None in (p, q) else p * q for p, q in zip(a, b))
    return a, b, out


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul)
def kron(x1, x2):
    """Kronecker product: blocks of ``x2`` scaled by each element of ``x1``.  NumPy: ``np.kron``.

    The operand of lower rank gets leading 1s; the result's dims are the
    products of the operands' dims.  The dtype follows ``matmul``.

    Example:
        >>> polyops.ops.kron(polyops.ops.eye(2), polyops.ops.ones((2, 2))).shape
        (4, 4)
    """
    x1, x2 = _operand("kron", "x1", x1), _operand("kron", "x2", x2)
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    return spec(_kron_shape(shape_of(x1), shape_of(x2))[2], dtype)


@kron.reference
def _kron_ref(x1, x2):
    a, b, out = _kron_shape(_shape_of(x1), _shape_of(x2))
    x1 = reshape(x1, tuple(d for p in a for d in (p, 1)))
    x2 = reshape(x2, tuple(d for q in b for d in (1, q)))
    return reshape(multiply(x1, x2), out)


def _inner_shape(a, b):
    if not a or not b:
        return broadcast_shapes(a, b, op="inner") if not a and not b else (b if not a else a)
    _last_dims_match("inner", a, b, a[-1], b[-1])
    return tuple(a[:-1]) + tuple(b[:-1])


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul, compute="float32", empty=0)
def inner(x1, x2):
    """Inner product over the last axes: ``out[i..., j...] = sum(x1[i..., :] * x2[j..., :])``.

    NumPy: ``np.inner`` (no complex conjugation).  A 0-d operand multiplies the
    other.  The result has shape ``x1.shape[:-1] + x2.shape[:-1]``; the dtype
    follows ``matmul``; float16/bfloat16 accumulate in float32.

    Example:
        >>> polyops.ops.inner(polyops.ops.ones((2, 3)), polyops.ops.ones((4, 3))).shape
        (2, 4)
    """
    x1, x2 = _operand("inner", "x1", x1), _operand("inner", "x2", x2)
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    return spec(_inner_shape(shape_of(x1), shape_of(x2)), dtype)


@inner.reference
def _inner_ref(x1, x2):
    a, b = _shape_of(x1), _shape_of(x2)
    if not a or not b:
        return multiply(x1, x2)
    la, lb = _LETTERS[: len(a) - 1], _LETTERS[len(a) - 1: len(a) + len(b) - 2]
    return einsum(f"{la}z,{lb}z->{la}{lb}", x1, x2)


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul, compute="float32", empty=0)
def vdot(x1, x2):
    """Dot product of the flattened operands; a complex ``x1`` is conjugated.  NumPy: ``np.vdot``.

    Both operands must have the same number of elements; the result is 0-d.
    The dtype follows ``matmul``; float16/bfloat16 accumulate in float32.

    Example:
        >>> polyops.ops.vdot(polyops.ops.ones((2, 3)), polyops.ops.ones((6,)))
        array(6., dtype=float32)
    """
    x1, x2 = _operand("vdot", "x1", x1), _operand("vdot", "x2", x2)
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    n, m = size_of(shape_of(x1)), size_of(shape_of(x2))
    if n is not None and m is not None and n != m:
        raise ValueError(
            f"vdot: expected operands of the same size, got shapes {shape_of(x1)} and {shape_of(x2)}"
        )
    return spec((), dtype)


@vdot.reference
def _vdot_ref(x1, x2):
    x1 = reshape(_conj_if_complex(x1), (math.prod(_shape_of(x1)),))
    x2 = reshape(x2, (math.prod(_shape_of(x2)),))
    return einsum("i,i->", x1, x2)


def _tensordot_axes(axes, s1, s2):
    """((axes of x1), (axes of x2)) as non-negative ints, validated against the shapes."""
    op = "tensordot"
    n1, n2 = len(s1), len(s2)
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"{op}: expected axes as an int or a pair of sequences, got axes={axes!r}")
        pair = []
        for part, nd in zip(axes, (n1, n2)):
            part = tuple(part) if isinstance(part, (list, tuple)) else (part,)
            try:
                pair.append(tuple(canonicalize_axis(a, nd, op) for a in part))
            except TypeError:
                raise TypeError(f"{op}: expected integer axes, got axes={axes!r}") from None
            if len(set(pair[-1])) != len(pair[-1]):
                raise ValueError(f"{op}: expected distinct axes, got axes={axes!r}")
        if len(pair[0]) != len(pair[1]):
            raise ValueError(f"{op}: expected as many axes for x1 as for x2, got axes={axes!r}")
        a1, a2 = pair
    else:
        if isinstance(axes, bool):
            raise TypeError(f"{op}: expected an integer axes, got axes={axes!r}")
        n = int_arg(op, "axes", axes)
        if n < 0 or n > n1 or n > n2:
            raise ValueError(
                f"{op}: expected 0 <= axes <= the ranks of x1 and x2 ({n1}, {n2}), got axes={n}"
            )
        a1, a2 = tuple(range(n1 - n, n1)), tuple(range(n))
    for i, j in zip(a1, a2):
        if s1[i] is not None and s2[j] is not None and s1[i] != s2[j]:
            raise ValueError(
                f"{op}: expected equal sizes on the contracted axes, got shapes {tuple(s1)} and "
                f"{tuple(s2)} with axes={axes!r}"
            )
    return a1, a2


def _tensordot_prepare(x1, x2, axes=2):
    return x1, x2, _tensordot_axes(axes, tuple(x1.shape), tuple(x2.shape))


# Kernel contract: tensordot(x1, x2, axes) gets two tensors of one dtype (int8 arrives as
# int32) and axes as a pair of equal-length tuples of non-negative ints (x1's axes, x2's
# axes), validated; float16/bfloat16 should accumulate in float32.
@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul, prepare=_tensordot_prepare, compute="float32", empty=0)
def tensordot(x1, x2, axes=2):
    """Sum products over the given axes.  NumPy: ``np.tensordot``.

    ``axes`` is an int N (the last N axes of ``x1`` with the first N of ``x2``) or
    a pair of sequences (or ints) of axes; negatives count from the end.  The
    result has ``x1``'s free axes then ``x2``'s.  The dtype follows ``matmul``.

    Example:
        >>> polyops.ops.tensordot(polyops.ops.ones((2, 3, 4)), polyops.ops.ones((3, 4, 5))).shape
        (2, 5)
    """
    x1, x2 = _operand("tensordot", "x1", x1), _operand("tensordot", "x2", x2)
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    s1, s2 = shape_of(x1), shape_of(x2)
    a1, a2 = _tensordot_axes(axes, s1, s2)
    free1 = tuple(d for i, d in enumerate(s1) if i not in a1)
    free2 = tuple(d for i, d in enumerate(s2) if i not in a2)
    return spec(free1 + free2, dtype)


@tensordot.reference
def _tensordot_ref(x1, x2, axes=2):
    s1, s2 = _shape_of(x1), _shape_of(x2)
    a1, a2 = _tensordot_axes(axes, s1, s2)
    if not a1:  # no contraction: an outer product
        return multiply(reshape(x1, tuple(s1) + (1,) * len(s2)), x2)
    l1 = _LETTERS[: len(s1)]
    l2 = list(_LETTERS[len(s1): len(s1) + len(s2)])
    for i, j in zip(a1, a2):
        l2[j] = l1[i]
    out = "".join(c for i, c in enumerate(l1) if i not in a1)
    out += "".join(c for j, c in enumerate(l2) if j not in a2)
    return einsum(f"{l1},{''.join(l2)}->{out}", x1, x2)


# ----- cross -------------------------------------------------------------------------


def _cross_plan(s1, s2, axisa, axisb, axisc, axis):
    """(axis of x1, axis of x2, axis of the result or None, n1, n2, result shape)."""
    op = "cross"
    if axis is not None:
        axisa = axisb = axisc = axis
    if not s1 or not s2:
        raise ValueError(f"{op}: expected operands of rank >= 1, got shapes {tuple(s1)} and {tuple(s2)}")
    a = canonicalize_axis(axisa, len(s1), op)
    b = canonicalize_axis(axisb, len(s2), op)
    n1, n2 = s1[a], s2[b]
    for n, name, ax in ((n1, "x1", a), (n2, "x2", b)):
        if n is not None and n not in (2, 3):
            raise ValueError(
                f"{op}: expected vectors of 2 or 3 components, got {name} with {n} on axis {ax} "
                f"(shapes {tuple(s1)} and {tuple(s2)})"
            )
    batch = broadcast_shapes(
        tuple(d for i, d in enumerate(s1) if i != a), tuple(d for i, d in enumerate(s2) if i != b), op=op
    )
    if n1 == 2 and n2 == 2:
        return a, b, None, n1, n2, batch
    c = canonicalize_axis(axisc, len(batch) + 1, op)
    return a, b, c, n1, n2, batch[:c] + (3,) + batch[c:]


def _cross_prepare(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    a, b, c, _, _, _ = _cross_plan(tuple(x1.shape), tuple(x2.shape), axisa, axisb, axisc, axis)
    return x1, x2, a, b, c, None


_CROSS_PROMOTE = _promote.numeric  # bool operands compute in int32 (a difference of products)


# Kernel contract: cross(x1, x2, axisa, axisb, axisc, axis) gets two tensors of one dtype
# (bool arrives as int32), axisa/axisb non-negative ints into x1/x2 whose sizes are 2 or 3,
# axisc a non-negative int into the result, or None when both vectors have 2 components
# (the result is then the z-component, without a vector axis), and axis always None.
@defop("numpy", tensors=("x1", "x2"), promote=_CROSS_PROMOTE, prepare=_cross_prepare)
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of (arrays of) 2- or 3-component vectors.  NumPy: ``np.cross``.

    A 2-component vector has an implicit zero z-component; when both are
    2-component vectors the result is the z-component only (no vector axis).
    The other axes broadcast.  ``axis`` overrides ``axisa``, ``axisb`` and ``axisc``.
    bool operands compute in int32.  With an unknown (None) vector size the rule
    assumes that the result has a 3-component axis: the 2 x 2 form needs known sizes.

    Example:
        >>> polyops.ops.cross(polyops.ops.eye(3)[0], polyops.ops.eye(3)[1])
        array([0., 0., 1.], dtype=float32)
    """
    x1, x2 = _operand("cross", "x1", x1), _operand("cross", "x2", x2)
    dtype, _ = _CROSS_PROMOTE((key(x1), key(x2)))
    return spec(_cross_plan(shape_of(x1), shape_of(x2), axisa, axisb, axisc, axis)[5], dtype)


def _to_last(x, axis):
    nd = len(_shape_of(x))
    if axis == nd - 1:
        return x
    return transpose(x, tuple(i for i in range(nd) if i != axis) + (axis,))


@cross.reference
def _cross_ref(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    a_ax, b_ax, c_ax, n1, n2, _ = _cross_plan(_shape_of(x1), _shape_of(x2), axisa, axisb, axisc, axis)
    a, b = _to_last(x1, a_ax), _to_last(x2, b_ax)
    ac = [take(a, i, -1) for i in range(n1)]
    bc = [take(b, i, -1) for i in range(n2)]
    cp2 = subtract(multiply(ac[0], bc[1]), multiply(ac[1], bc[0]))
    if n1 == 2 and n2 == 2:
        return cp2
    # NumPy's formulas: the implicit zero components take no part (no 0 * inf).
    if n1 == 3 and n2 == 3:
        cp0 = subtract(multiply(ac[1], bc[2]), multiply(ac[2], bc[1]))
        cp1 = subtract(multiply(ac[2], bc[0]), multiply(ac[0], bc[2]))
    elif n1 == 2:
        cp0 = multiply(ac[1], bc[2])
        cp1 = negative(multiply(ac[0], bc[2]))
    else:
        cp0 = negative(multiply(ac[2], bc[1]))
        cp1 = multiply(ac[2], bc[0])
    return stack([cp0, cp1, cp2], axis=c_ax)  # each of the broadcast batch shape


# ===== integration and correlation ==================================================


def _trapezoid_plan(y_shape, x_shape, dx, axis):
    """(canonical axis, result shape); x_shape None when x is absent."""
    op = "trapezoid"
    if isinstance(dx, SymbolicTensor) or isinstance(dx, bool) or not isinstance(dx, (int, float)):
        raise TypeError(f"trapezoid: expected a Python number dx, got dx={dx!r}")
    axis = canonicalize_axis(axis, len(y_shape), op)
    if x_shape is None:
        return axis, tuple(d for i, d in enumerate(y_shape) if i != axis)
    n = y_shape[axis]
    if len(x_shape) == 1:
        if x_shape[0] is not None and n is not None and x_shape[0] != n:
            raise ValueError(
                f"{op}: expected x of the same length as y on axis {axis}, got shapes "
                f"{tuple(x_shape)} and {tuple(y_shape)}"
            )
        return axis, tuple(d for i, d in enumerate(y_shape) if i != axis)
    if len(x_shape) != len(y_shape):
        raise ValueError(
            f"{op}: expected x of rank 1 or of y's rank, got shapes {tuple(x_shape)} and {tuple(y_shape)}"
        )
    if x_shape[axis] is not None and n is not None and x_shape[axis] != n:
        raise ValueError(
            f"{op}: expected x of the same length as y on axis {axis}, got shapes "
            f"{tuple(x_shape)} and {tuple(y_shape)}"
        )
    full = broadcast_shapes(tuple(x_shape), tuple(y_shape), op=op)
    return axis, tuple(d for i, d in enumerate(full) if i != axis)


def _trapezoid_prepare(y, x=None, dx=1.0, axis=-1):
    axis, _ = _trapezoid_plan(tuple(y.shape), None if x is None else tuple(x.shape), dx, axis)
    return y, x, float(dx), axis


# Kernel contract: trapezoid(y, x, dx, axis) gets y floating (ints and bools arrive as
# floatx), x None or a tensor of y's dtype of rank 1 (length y.shape[axis]) or of y's rank
# (equal size on axis, other dims broadcasting), dx a Python float, axis a non-negative int.
@defop("numpy", tensors=("y", "x"), promote=_promote.floating, prepare=_trapezoid_prepare, compute="float32", empty=0)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integrate along ``axis`` with the composite trapezoidal rule.  NumPy: ``np.trapezoid``.

    Sample points are ``x`` (rank 1, or y's rank and broadcasting) or spaced
    ``dx`` apart.  Ints and bools integrate in floatx; float16/bfloat16 compute
    in float32.  An axis of size 0 or 1 gives 0.

    Example:
        >>> polyops.ops.trapezoid(polyops.ops.convert_to_tensor([1, 2, 3]))
        array(4., dtype=float32)
    """
    y = _operand("trapezoid", "y", y)
    if x is not None:
        x = _operand("trapezoid", "x", x)
    dtype, _ = _promote.floating((key(y), None if x is None else key(x)))
    return spec(_trapezoid_plan(shape_of(y), None if x is None else shape_of(x), dx, axis)[1], dtype)


@trapezoid.reference
def _trapezoid_ref(y, x=None, dx=1.0, axis=-1):
    shape = _shape_of(y)
    axis, _ = _trapezoid_plan(shape, None if x is None else _shape_of(x), dx, axis)
    n = shape[axis]
    hi, lo = arange(1, n), arange(0, _bmax(n - 1, 0))
    s = add(take(y, hi, axis), take(y, lo, axis))
    if x is None:
        d = float(dx)
    else:
        xa = 0 if len(_shape_of(x)) == 1 else axis
        d = subtract(take(x, hi, xa), take(x, lo, xa))
        if len(_shape_of(x)) == 1 and len(shape) > 1:
            d = reshape(d, tuple(_bmax(n - 1, 0) if i == axis else 1 for i in range(len(shape))))
    return sum(divide(multiply(d, s), 2.0), axis)


_MODES = ("valid", "same", "full")


def _correlate_shape(a, b, mode):
    op = "correlate"
    if not isinstance(mode, str):
        raise TypeError(f"{op}: expected mode 'valid', 'same' or 'full', got mode={mode!r}")
    if mode not in _MODES:
        raise ValueError(f"{op}: expected mode 'valid', 'same' or 'full', got mode={mode!r}")
    if len(a) != 1 or len(b) != 1:
        raise ValueError(f"{op}: expected 1-D operands, got shapes {tuple(a)} and {tuple(b)}")
    m, n = a[0], b[0]
    if 0 in (m, n):
        raise ValueError(f"{op}: expected non-empty operands, got shapes {tuple(a)} and {tuple(b)}")
    if m is None or n is None:
        return (None,)
    return ((_bmax(m, n) - _bmin(m, n) + 1,) if mode == "valid" else
            (_bmax(m, n),) if mode == "same" else (m + n - 1,))


def _correlate_prepare(x1, x2, mode="valid"):
    _correlate_shape(tuple(x1.shape), tuple(x2.shape), mode)
    return x1, x2, mode


# Kernel contract: correlate(x1, x2, mode) gets two non-empty 1-D floating tensors of one
# dtype (ints and bools arrive as floatx) and mode one of "valid", "same", "full";
# out[k] = sum_n x1[n + k] * conj(x2[n]) over the overlap only, as np.correlate.
@defop("numpy", tensors=("x1", "x2"), promote=_promote.floating, prepare=_correlate_prepare, compute="float32")
def correlate(x1, x2, mode="valid"):
    """Cross-correlation of two 1-D tensors.  NumPy: ``np.correlate``.

    ``mode`` is "valid" (length ``max(M, N) - min(M, N) + 1``), "same"
    (``max(M, N)``) or "full" (``M + N - 1``).  Only overlapping samples
    multiply (no ``0 * inf``).  Ints and bools compute in floatx; float16 and
    bfloat16 accumulate in float32.  A complex ``x2`` is conjugated.

    Example:
        >>> polyops.ops.correlate(polyops.ops.convert_to_tensor([1., 2., 3.]),
        ...                       polyops.ops.convert_to_tensor([0., 1., 0.5]), mode="same")
        array([2. , 3.5, 3. ], dtype=float32)
    """
    x1, x2 = _operand("correlate", "x1", x1), _operand("correlate", "x2", x2)
    dtype, _ = _promote.floating((key(x1), key(x2)))
    return spec(_correlate_shape(shape_of(x1), shape_of(x2), mode), dtype)


@correlate.reference
def _correlate_ref(x1, x2, mode="valid"):
    (m,), (n,) = _shape_of(x1), _shape_of(x2)
    _correlate_shape((m,), (n,), mode)
    x2 = _conj_if_complex(x2)
    # full[j] = sum_k x1[j + k - (n - 1)] * x2[k] over the indices in range, j < m + n - 1;
    # the output positions and their gather indices are static.
    lo_, hi_ = _bmin(m, n), _bmax(m, n)
    if mode == "full":
        js = range(m + n - 1)
    elif mode == "valid":
        js = range(lo_ - 1, hi_)
    else:
        start = (lo_ - 1) // 2 if m >= n else lo_ // 2
        js = range(start, start + hi_)
    idx = [[j + k - (n - 1) for k in range(n)] for j in js]
    inside = _const([[0 <= i < m for i in row] for row in idx], "bool")
    idx = _const([[_bmin(_bmax(i, 0), m - 1) for i in row] for row in idx], "int32")
    terms = where(inside, multiply(take(x1, idx), x2), 0.0)
    return sum(terms, 1)


# ===== slogdet ======================================================================


def _slogdet_prepare(x):
    square_batch(tuple(x.shape), "slogdet")
    return (x,)


# Kernel contract: slogdet(x) gets a floating tensor (ints and bools arrive as floatx) of
# shape (..., n, n), validated; it returns (sign, logabsdet), both of shape (...) and of x's
# dtype.  A zero pivot (singular matrix) gives sign 0 and logabsdet -inf; n == 0 gives (1, 0).
@defop("numpy", tensors=("x",), promote=_promote.floating, prepare=_slogdet_prepare, compute="float32", empty=(1, 0))
def slogdet(x):
    """Sign and natural log of the absolute determinant of (a batch of) square matrices.

    NumPy: ``np.linalg.slogdet``.  Returns ``(sign, logabsdet)``, both of shape
    ``x.shape[:-2]`` (NumPy's; Keras's spec gives ``sign`` shape ``()``); for a complex
    ``x`` the sign is complex and ``logabsdet`` real (float32 for complex64).  Ints and
    bools compute in floatx, float16/bfloat16 in float32.  The reference is an LU
    decomposition with partial pivoting; a singular matrix gives ``(0, -inf)``, a NaN
    pivot a NaN ``logabsdet`` (NumPy's result there depends on LAPACK).

    Example:
        >>> sign, logabsdet = polyops.ops.slogdet(polyops.ops.convert_to_tensor([[2., 0.], [0., -3.]]))
        >>> sign
        array(-1., dtype=float32)
        >>> polyops.ops.round(logabsdet, 4)   # log(6)
        np.float32(1.7918)
    """
    x = _operand("slogdet", "x", x)
    (dtype,) = _promote.floating((key(x),))
    batch = square_batch(shape_of(x), "slogdet")
    # complex x: the sign is complex (modulus 1), log|det| real (NumPy's dtypes)
    return spec(batch, dtype), spec(batch, _dtypes.REAL_OF.get(dtype, dtype))


@slogdet.reference
def _slogdet_ref(x):
    shape = _shape_of(x)
    batch, n = square_batch(shape, "slogdet"), shape[-1]
    if n == 0:
        return ones(batch, _dt(x)), zeros(batch, _dt(x))
    a = x
    # LU with partial pivoting, rows left in place: a row once chosen as pivot is "used"
    # and never read again; each step costs a dozen primitive calls (static loop over n).
    rows = _const([[i] for i in range(n)], "int32")  # (n, 1)
    used = _const([[False]] * n, "bool")
    pivots, picks = [], []
    for k in range(n):
        col = take(a, _const([k], "int32"), -1)  # (..., n, 1)
        p = argmax(where(used, -1.0, abs(col)), -2, True)  # (..., 1, 1): first NaN, else max
        hit = equal(p, rows)  # (..., n, 1) one-hot of the pivot row
        row_p = sum(where(hit, a, 0.0), -2, True)  # (..., 1, n)
        piv = take(row_p, _const([k], "int32"), -1)  # (..., 1, 1)
        a = subtract(a, multiply(divide(col, piv), row_p))
        used = logical_or(used, hit)
        pivots.append(piv)
        picks.append(p)
    piv = concatenate(pivots, -1)  # (..., 1, n)
    order = concatenate(picks, -1)  # (..., 1, n): the pivot rows in order
    # the permutation's parity: its inversions, plus one flip per negative pivot
    upper = _const([[i < j for j in range(n)] for i in range(n)], "bool")
    inversions = logical_and(greater(reshape(order, batch + (n, 1)), order), upper)
    flips = add(sum(inversions, (-2, -1)), sum(less(piv, 0.0), (-2, -1)))
    # (cast: the weak -1.0/1.0 alone give floatx, not float64 in 64-bit mode)
    sign = cast(where(equal(mod(flips, 2), 1), -1.0, 1.0), _dt(x))
    logdet = sum(log(abs(piv)), (-2, -1))
    singular = any(equal(piv, 0.0), (-2, -1))  # NumPy: LAPACK found a zero pivot
    sign = where(singular, 0.0, sign)
    logdet = where(singular, -math.inf, logdet)
    return sign, logdet


# ===== window functions =============================================================


def _window_len(op, x) -> int:
    if isinstance(x, SymbolicTensor):
        raise TypeError(f"{op}: expected a Python int window length x, got a SymbolicTensor {x!r}")
    if isinstance(x, bool):
        raise TypeError(f"{op}: expected an integer x, got x={x!r}")
    return int_arg(op, "x", x)


def _window_spec(op, x):
    return spec((_bmax(_window_len(op, x), 0),), config.floatx())


def _window_prepare(op):
    def prepare(x, *rest):
        return (_window_len(op, x), *rest)

    return prepare


def _window_start(op, x):
    """(M, floatx, work dtype, None) or (M, floatx, dtype, the trivial window for M <= 1)."""
    m = _window_len(op, x)
    dtype = config.floatx()
    work = dtype if dtype in ("float32", "float64") else "float32"
    if m <= 0:
        return m, dtype, work, zeros((0,), dtype)
    if m == 1:
        return m, dtype, work, ones((1,), dtype)
    return m, dtype, work, None


def _in_floatx(out, dtype):
    """A window computed in the work dtype, cast to floatx (a window has no operand for
    a declared compute dtype to widen: floatx float16/bfloat16 computes in float32 here)."""
    return out if _dt(out) == dtype else cast(out, dtype)


def _cos_window(op, x, coefs):
    """``sum_j coefs[j] * cos(j * pi * n / (M - 1))`` for n = 1-M, 3-M, ..., M-1."""
    m, dtype, work, trivial = _window_start(op, x)
    if trivial is not None:
        return trivial
    n = _const([float(i) for i in range(1 - m, m, 2)], work)
    out = coefs[0]
    for j, c in enumerate(coefs[1:], 1):
        out = add(out, multiply(c, cos(multiply(n, j * math.pi / (m - 1)))))
    return _in_floatx(out, dtype)


# Kernel contract (window functions): bartlett/blackman/hamming/hanning(x) and
# kaiser(x, beta) get x a Python int (may be <= 0: an empty window) and beta a Python
# float; they return a 1-D floatx tensor of max(x, 0) points, [1.] for x == 1.
@defop("numpy", tensors=(), promote=None, prepare=_window_prepare("bartlett"))
def bartlett(x):
    """The Bartlett (triangular) window of ``x`` points.  NumPy: ``np.bartlett``.

    ``x`` is a Python int (0 or less: empty; 1: ``[1.]``); the result is floatx.

    Example:
        >>> polyops.ops.bartlett(5)
        array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _window_spec("bartlett", x)


@bartlett.reference
def _bartlett_ref(x):
    m, dtype, work, trivial = _window_start("bartlett", x)
    if trivial is not None:
        return trivial
    n = _const([float(i) for i in range(1 - m, m, 2)], work)
    r = divide(n, float(m - 1))
    return _in_floatx(where(less_equal(n, 0), add(1.0, r), subtract(1.0, r)), dtype)


@defop("numpy", tensors=(), promote=None, prepare=_window_prepare("blackman"))
def blackman(x):
    """The Blackman window of ``x`` points.  NumPy: ``np.blackman``.

    ``0.42 + 0.5 cos(pi n / (M-1)) + 0.08 cos(2 pi n / (M-1))`` for n = 1-M, 3-M, ..., M-1;
    ``x`` is a Python int (0 or less: empty; 1: ``[1.]``); the result is floatx.

    Example:
        >>> polyops.ops.blackman(3)   # ~0 at the ends
        array([-1.3877788e-17,  1.0000000e+00, -1.3877788e-17], dtype=float32)
    """
    return _window_spec("blackman", x)


@blackman.reference
def _blackman_ref(x):
    return _cos_window("blackman", x, (0.42, 0.5, 0.08))


@defop("numpy", tensors=(), promote=None, prepare=_window_prepare("hamming"))
def hamming(x):
    """The Hamming window of ``x`` points.  NumPy: ``np.hamming``.

    ``0.54 + 0.46 cos(pi n / (M-1))`` for n = 1-M, 3-M, ..., M-1; ``x`` is a Python
    int (0 or less: empty; 1: ``[1.]``); the result is floatx.

    Example:
        >>> polyops.ops.hamming(5)
        array([0.08, 0.54, 1.  , 0.54, 0.08], dtype=float32)
    """
    return _window_spec("hamming", x)


@hamming.reference
def _hamming_ref(x):
    return _cos_window("hamming", x, (0.54, 0.46))


@defop("numpy", tensors=(), promote=None, prepare=_window_prepare("hanning"))
def hanning(x):
    """The Hann(ing) window of ``x`` points.  NumPy: ``np.hanning``.

    ``0.5 + 0.5 cos(pi n / (M-1))`` for n = 1-M, 3-M, ..., M-1; ``x`` is a Python int
    (0 or less: empty; 1: ``[1.]``); the result is floatx.

    Example:
        >>> polyops.ops.hanning(5)
        array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _window_spec("hanning", x)


@hanning.reference
def _hanning_ref(x):
    return _cos_window("hanning", x, (0.5, 0.5))


def _beta_arg(beta) -> float:
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"kaiser: expected a Python number beta, got beta={beta!r}")
    beta = float(beta)
    if not math.isfinite(beta):
        raise ValueError(f"kaiser: expected a finite beta, got beta={beta!r}")
    return beta


def _kaiser_prepare(x, beta):
    return _window_len("kaiser", x), _beta_arg(beta)


@defop("numpy", tensors=(), promote=None, prepare=_kaiser_prepare)
def kaiser(x, beta):
    """The Kaiser window of ``x`` points with shape parameter ``beta``.  NumPy: ``np.kaiser``.

    ``I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)`` for n = 0..M-1.  ``x`` is a
    Python int (0 or less: empty; 1: ``[1.]``), ``beta`` a finite Python number
    (its sign does not matter); the result is floatx.  The reference sums the
    ratio's power series in r^2 with coefficients computed on the host, so large
    ``beta`` neither overflows nor needs ``i0``.

    Example:
        >>> polyops.ops.round(polyops.ops.kaiser(5, 14.0), 4)
        array([0.    , 0.1649, 1.    , 0.1649, 0.    ], dtype=float32)
    """
    _beta_arg(beta)
    return _window_spec("kaiser", x)


def _kaiser_coefs(beta):
    """log of c_k = (beta/2)^(2k) / (k!)^2 / I0(beta), k = 0, 1, ... until negligible."""
    h = math.log(beta / 2.0)
    logs, k = [], 0
    while True:
        lt = 2 * k * h - 2 * math.lgamma(k + 1)
        logs.append(lt)
        if k > beta / 2 and lt < _bmax(logs) - 45:
            break
        k += 1
    top = _bmax(logs)
    log_i0 = top + math.log(math.fsum(math.exp(v - top) for v in logs))
    return [v - log_i0 for v in logs]


@kaiser.reference
def _kaiser_ref(x, beta):
    m, dtype, work, trivial = _window_start("kaiser", x)
    if trivial is not None:
        return trivial
    beta = _babs(_beta_arg(beta))
    if beta == 0.0:
        return ones((m,), dtype)
    # w[n] = I0(beta r) / I0(beta) = sum_k c_k (r^2)^k with r^2 = n (M-1-n) / ((M-1)/2)^2
    # (static); (r^2)^k = exp(k log r^2), which is 0 at r = 0 for k >= 1.
    logc = _kaiser_coefs(beta)
    r2 = _const([[i * (m - 1 - i) * 4.0 / (m - 1) ** 2] for i in range(m)], work)  # (M, 1)
    ks = _const([float(k) for k in range(1, len(logc))], work)
    terms = exp(add(_const(logc[1:], work), multiply(ks, log(r2))))
    return _in_floatx(add(sum(terms, 1), math.exp(logc[0])), dtype)


# ===== vectorize (a plain function, not an op) ======================================

_SIG_ARG = r"\((?:\w+(?:,\w+)*)?\)"
_SIG = rf"^{_SIG_ARG}(?:,{_SIG_ARG})*->{_SIG_ARG}(?:,{_SIG_ARG})*$"


def _parse_signature(signature):
    """``"(m,n),(n)->(m)"`` as ([("m", "n"), ("n",)], [("m",)])."""
    if not isinstance(signature, str):
        raise TypeError(f"vectorize: expected a signature string, got signature={signature!r}")
    s = re.sub(r"\s+", "", signature)
    if not re.match(_SIG, s):
        raise ValueError(f"vectorize: expected a gufunc signature like '(n),(n)->()', got signature={signature!r}")
    ins, outs = s.split("->")
    parse = lambda part: [tuple(re.findall(r"\w+", arg)) for arg in re.findall(_SIG_ARG, part)]  # noqa: E731
    return parse(ins), parse(outs)


def _as_tensor(v):
    return v if isinstance(v, SymbolicTensor) else convert_to_tensor(v)


def vectorize(pyfunc, *, excluded=None, signature=None):
    """Turn ``pyfunc`` into a function that maps it over the elements of its arguments.

    NumPy: ``np.vectorize``; Keras: ``keras.ops.vectorize``.  A plain function,
    not an op: the wrapper converts the arguments to tensors, broadcasts them and
    calls ``pyfunc`` once per element (0-d tensors) or, with a gufunc
    ``signature`` such as ``"(n),(n)->()"``, once per element of the broadcast
    batch dims (tensors of the core shapes); the results are stacked and
    reshaped.  ``excluded`` holds positions (ints) and keyword names (strings) of
    arguments passed to ``pyfunc`` unchanged.  A tuple result gives a tuple of
    tensors.  Zero-size batches call ``pyfunc`` once on zeros to learn the output
    dtypes and core shapes.  It runs on every backend, and on SymbolicTensors of
    known shape when ``pyfunc`` itself accepts SymbolicTensors.  It calls
    ``pyfunc`` once per batch element, so it suits small batches.

    Example:
        >>> f = polyops.ops.vectorize(lambda a, b: a + b)
        >>> f([1, 2, 3, 4], 2)   # [3, 4, 5, 6]
        >>> g = polyops.ops.vectorize(lambda a, b: polyops.ops.sum(a * b), signature="(n),(n)->()")
        >>> g(polyops.ops.ones((5, 3)), polyops.ops.ones((3,))).shape   # (5,)
    """
    if not callable(pyfunc):
        raise TypeError(f"vectorize: expected a callable pyfunc, got pyfunc={pyfunc!r}")
    excluded = frozenset() if excluded is None else frozenset(excluded)
    for e in excluded:
        if isinstance(e, bool) or not isinstance(e, (int, str)):
            raise TypeError(f"vectorize: expected positions (int) or names (str) in excluded, got {e!r}")
    sig = None if signature is None else _parse_signature(signature)

    @functools.wraps(pyfunc)
    def wrapper(*args, **kwargs):
        inds = [i for i in range(len(args)) if i not in excluded]
        names = [k for k in kwargs if k not in excluded]
        vargs = [args[i] for i in inds] + [kwargs[k] for k in names]

        def call(*vals):
            a, kw = list(args), dict(kwargs)
            for i, v in zip(inds, vals):
                a[i] = v
            kw.update(zip(names, vals[len(inds):]))
            return pyfunc(*a, **kw)

        if not vargs:
            return call()
        return _vectorized_call(call, [_as_tensor(v) for v in vargs], sig)

    return wrapper


def _vectorized_call(call, tensors, sig):
    in_cores = sig[0] if sig is not None else [()] * len(tensors)
    if len(in_cores) != len(tensors):
        raise TypeError(
            f"vectorize: the signature takes {len(in_cores)} vectorized arguments, got {len(tensors)}"
        )
    sizes: dict = {}
    batches, cores = [], []
    for t, core in zip(tensors, in_cores):
        shape = tuple(_shape_of(t))
        if len(shape) < len(core):
            raise ValueError(f"vectorize: an input of shape {shape} has fewer dims than its core dims {core}")
        cut = len(shape) - len(core)
        for name, d in zip(core, shape[cut:]):
            if d is None:
                raise ValueError(f"vectorize: expected known core dims, got shape {shape}")
            if sizes.setdefault(name, d) != d:
                raise ValueError(
                    f"vectorize: core dim {name!r} has sizes {sizes[name]} and {d} (shape {shape})"
                )
        batches.append(shape[:cut])
        cores.append(shape[cut:])
    batch = broadcast_shapes(*batches, op="vectorize")
    if None in batch:
        raise ValueError(f"vectorize: expected known batch dims, got batch shape {batch}")
    count = math.prod(batch)
    if count == 0:  # one call on zeros gives the outputs' dtypes and core shapes
        res = call(*[zeros(c, _dt(t)) for t, c in zip(tensors, cores)])
        multi = isinstance(res, tuple)
        outs = [_as_tensor(o) for o in (res if multi else (res,))]
        outs = [zeros(batch + tuple(_shape_of(o)), _dt(o)) for o in outs]
    else:
        flats = []
        for t, b, c in zip(tensors, batches, cores):
            if b != batch:
                t = broadcast_to(t, batch + c)
            flats.append(reshape(t, (count,) + c))
        results = [call(*[get_item(f, i) for f in flats]) for i in range(count)]
        multi = isinstance(results[0], tuple)
        groups = list(zip(*results)) if multi else [results]
        outs = []
        for group in groups:
            group = [_as_tensor(o) for o in group]
            core = tuple(_shape_of(group[0]))
            for o in group[1:]:
                if tuple(_shape_of(o)) != core:
                    raise ValueError(
                        f"vectorize: pyfunc returned outputs of shapes {core} and {tuple(_shape_of(o))}"
                    )
            outs.append(reshape(stack(group, 0), batch + core))
    if sig is not None:
        out_cores = sig[1]
        if len(out_cores) != len(outs) or (len(out_cores) > 1) != multi:
            raise ValueError(
                f"vectorize: the signature gives {len(out_cores)} outputs, pyfunc returned {len(outs)}"
            )
        for o, core in zip(outs, out_cores):
            got = tuple(_shape_of(o))[len(batch):]
            if len(got) != len(core):
                raise ValueError(f"vectorize: an output has core shape {got}, the signature says {core}")
            for name, d in zip(core, got):
                if sizes.setdefault(name, d) != d:
                    raise ValueError(f"vectorize: core dim {name!r} has sizes {sizes[name]} and {d}")
    return tuple(outs) if multi else outs[0]


__all__ = [
    "Bartlett", "Blackman", "Correlate", "Cross", "Hamming", "Hanning", "Inner", "Kaiser",
    "Kron", "Outer", "Slogdet", "Tensordot", "Trapezoid", "Vdot", "bartlett", "blackman",
    "correlate", "cross", "hamming", "hanning", "inner", "kaiser", "kron", "outer", "slogdet",
    "tensordot", "trapezoid", "vdot", "vectorize",
]

_finish(globals())
