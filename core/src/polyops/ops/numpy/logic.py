"""Predicates (isnan, isclose...), bitwise ops, complex parts and bit-level views.

Part of `polyops.ops.numpy`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import math

from ... import _dtypes, _promote
from ..._op import MissingKernelError, defop
from ..._shapes import broadcast_shapes
from .._base import binary, check_tensor, dtype_arg, key, shape_of, spec, unary
from .._base import finish as _finish
from ..core import dtype as _dtype_of
from ..core import shape as _shape_of
from .base import (  # the module shadows abs and all
    abs, add, all, equal, full, greater, less, less_equal, logical_and, logical_or, multiply,
    not_equal, subtract, where, zeros_like,
)


# ===== ops ===========================================================================

_INT_SAME = _promote.integral(_promote.same)
_INT_PRESERVE = _promote.integral(_promote.preserve)
_INT_NUMERIC = _promote.integral(_promote.numeric)

# Kernel contract of bitwise_and/or/xor: x, y cast to their common int or bool dtype (floats
# raise TypeError before the kernel); returns that dtype.  bitwise_invert: one int or bool
# tensor; two's complement NOT (logical NOT for bool), same dtype.
bitwise_and = binary("bitwise_and", promote=_INT_SAME, params=("x", "y"), doc=(
    "Bit-wise AND of integers or bools.  Primitive.  NumPy: ``np.bitwise_and``.\n\n"
    "Example:\n    >>> polyops.ops.bitwise_and(polyops.ops.arange(4), 1)\n    array([0, 1, 0, 1], dtype=int32)"))
bitwise_or = binary("bitwise_or", promote=_INT_SAME, params=("x", "y"), doc=(
    "Bit-wise OR of integers or bools.  Primitive.  NumPy: ``np.bitwise_or``.\n\n"
    "Example:\n    >>> polyops.ops.bitwise_or(polyops.ops.arange(4), 1)\n    array([1, 1, 3, 3], dtype=int32)"))
bitwise_xor = binary("bitwise_xor", promote=_INT_SAME, params=("x", "y"), doc=(
    "Bit-wise XOR of integers or bools.  Primitive.  NumPy: ``np.bitwise_xor``.\n\n"
    "Example:\n    >>> polyops.ops.bitwise_xor(polyops.ops.arange(4), 1)\n    array([1, 0, 3, 2], dtype=int32)"))
bitwise_invert = unary("bitwise_invert", promote=_INT_PRESERVE, doc=(
    "Bit-wise NOT (two's complement for signed ints, logical NOT for bool).  Primitive.\n\n"
    "NumPy: ``np.invert``.\n\nExample:\n    >>> polyops.ops.bitwise_invert(polyops.ops.arange(3))\n    array([-1, -2, -3], dtype=int32)"))
bitwise_not = bitwise_invert
# Kernel contract of left_shift/right_shift: x, y at their common int dtype (bool -> int32);
# counts >= the bit width give 0 (left) and 0, or -1 for negative signed x (right, the
# sign fills); right shifts of signed ints are arithmetic.  Negative counts: unspecified.
left_shift = binary("left_shift", promote=_INT_NUMERIC, params=("x", "y"), doc=(
    "Shift the bits of ``x`` left by ``y``; shifts of the bit width or more give 0.  Primitive.\n\n"
    "NumPy: ``np.left_shift``.  bool operands compute in int32.\n\n"
    "Example:\n    >>> polyops.ops.left_shift(polyops.ops.arange(3), 2)\n    array([0, 4, 8], dtype=int32)"))
bitwise_left_shift = left_shift
right_shift = binary("right_shift", promote=_INT_NUMERIC, params=("x", "y"), doc=(
    "Shift the bits of ``x`` right by ``y`` (arithmetic for signed ints); shifts of the bit\n"
    "width or more give 0, or -1 for negative signed values.  Primitive.\n\n"
    "NumPy: ``np.right_shift``.\n\nExample:\n    >>> polyops.ops.right_shift(polyops.ops.arange(8, 11), 1)\n    array([4, 4, 5], dtype=int32)"))
bitwise_right_shift = right_shift


def _itemsize(dtype: str) -> int:
    digits = "".join(c for c in dtype if c.isdigit())
    return 1 if dtype == "bool" else int(digits) // 8


def _view_shape(op, shape, src, dst):
    a, b = _itemsize(src), _itemsize(dst)
    if a == b:
        return tuple(shape)
    if not shape:
        raise ValueError(f"{op}: cannot view a 0-d {src} tensor as {dst} (item sizes differ)")
    last = shape[-1]
    if a > b:
        return tuple(shape[:-1]) + (None if last is None else last * (a // b),)
    if last is not None and (last * a) % b:
        raise ValueError(
            f"{op}: cannot view shape {tuple(shape)} of {src} as {dst}: the last dim times "
            f"{a} bytes is not a multiple of {b}"
        )
    return tuple(shape[:-1]) + (None if last is None else last * a // b,)


# Kernel contract of view: x of its exact dtype (64-bit kept), dtype a canonical string
# (None already resolved to x's dtype); returns the same bytes as that dtype, little-endian,
# the last dim scaled by the item-size ratio (validated before the kernel); 0-d stays 0-d.
def _view_prepare(x, dtype=None):
    src = _dtypes.standardize_dtype(x.dtype)
    dst = src if dtype is None else dtype_arg("view", dtype)
    _view_shape("view", tuple(x.shape), src, dst)
    return x, dst


@defop("numpy", tensors=("x",), promote=_promote.exact, prepare=_view_prepare)
def view(x, dtype=None):
    """The same bytes read as another dtype (a bit cast).  Primitive.  NumPy: ``x.view(dtype)``.

    With a different item size the last dim scales (float32 -> int16 doubles it).

    Example:
        >>> polyops.ops.view(polyops.ops.ones((1,)), "int32")
        array([1065353216], dtype=int32)
    """
    (src,) = _promote.exact((key(x),))
    dst = src if dtype is None else dtype_arg("view", dtype)
    return spec(_view_shape("view", shape_of(x), src, dst), dst)


# ===== helpers ========================================================================

# the largest finite value of each floating dtype (complex: of its parts)
_FMAX = {
    "bfloat16": 3.3895313892515355e38, "float16": 65504.0, "float32": 3.4028234663852886e38,
    "float64": 1.7976931348623157e308, "complex64": 3.4028234663852886e38,
    "complex128": 1.7976931348623157e308,
}
# the signed integer dtype of the same width as a floating dtype (bit views)
_BITS = {"float64": "int64", "float32": "int32", "float16": "int16", "bfloat16": "int16"}
_QNAN_BITS = {"float64": 0x7FF8000000000000, "float32": 0x7FC00000, "float16": 0x7E00,
              "bfloat16": 0x7FC0}  # quiet NaN (float64: 64-bit mode)
_ORD_PRESERVE = _promote.ordered(_promote.preserve)
_ORD_FLOATING = _promote.ordered(_promote.floating)
_PI = math.pi


def _is_float(dtype: str) -> bool:
    return dtype in _dtypes.FLOAT_TYPES


def _real_only(op: str, x) -> str:
    """``x``'s dtype; complex input needs the backend's own kernel (references are real-only)."""
    dtype = _dtype_of(x)
    if dtype in _dtypes.COMPLEX_TYPES:
        raise MissingKernelError(
            f"{op}: the backend needs a native kernel for complex input ({dtype}); "
            f"the reference implementation works on real dtypes only"
        )
    return dtype


def _constant(x, value):
    """A bool tensor shaped like ``x`` filled with ``value`` (predicates of ints and bools)."""
    return full(_shape_of(x), value, "bool")


def _number_arg(op: str, name: str, value, allow_none=False):
    """A static numeric argument as a Python float (TypeError naming the op and value)."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, int, float)) or (
        type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0
        and getattr(getattr(value, "dtype", None), "kind", "") in "biuf"
    ):
        return float(value)
    raise TypeError(f"{op}: expected a Python number for {name}, got {name}={value!r}")


def _bool_arg(op: str, name: str, value) -> bool:
    if isinstance(value, (bool, int)) or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{op}: expected a bool for {name}, got {name}={value!r}")


def _part_dtype(dtype: str) -> str:
    """The real dtype of a complex dtype's parts (others unchanged)."""
    return _dtypes.REAL_OF.get(dtype, dtype)


# ===== predicates =====================================================================

logical_xor = binary("logical_xor", promote=_promote.boolean, out="bool", doc=(
    "Truth of ``x1 XOR x2``, element-wise; operands are read as bools.\n\n"
    "NumPy: ``np.logical_xor``.  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.logical_xor(polyops.ops.arange(3), 1)\n    array([ True, False, False])"))


@logical_xor.reference
def _logical_xor_ref(x1, x2):
    # kernel contract: two bool tensors (any operands are cast to bool first); returns bool
    return not_equal(x1, x2)


# Kernel contract of isfinite, isinf, isnan, isreal, isneginf, isposinf, signbit: one
# tensor of x's own dtype (64-bit demoted to 32-bit; complex for all but isneginf,
# isposinf, signbit, which reject it); returns a bool tensor of the same shape.
isfinite = unary("isfinite", out="bool", doc=(
    "Whether each element is finite (not inf, not NaN).  NumPy: ``np.isfinite``.\n\n"
    "Ints and bools are always finite.  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.isfinite(polyops.ops.convert_to_tensor([1.0, float('inf')]))\n    array([ True, False])"))


@isfinite.reference
def _isfinite_ref(x):
    if not _is_float(_real_only("isfinite", x)):
        return _constant(x, True)
    return less(abs(x), math.inf)  # False for +-inf and NaN


isinf = unary("isinf", out="bool", doc=(
    "Whether each element is +inf or -inf.  NumPy: ``np.isinf``.\n\n"
    "Ints and bools are never infinite.  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.isinf(polyops.ops.convert_to_tensor([1.0, -float('inf')]))\n    array([False,  True])"))


@isinf.reference
def _isinf_ref(x):
    if not _is_float(_real_only("isinf", x)):
        return _constant(x, False)
    return equal(abs(x), math.inf)


isnan = unary("isnan", out="bool", doc=(
    "Whether each element is NaN.  NumPy: ``np.isnan``.\n\n"
    "Ints and bools are never NaN.  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.isnan(polyops.ops.convert_to_tensor([1.0, float('nan')]))\n    array([False,  True])"))


@isnan.reference
def _isnan_ref(x):
    if not _is_float(_real_only("isnan", x)):
        return _constant(x, False)
    return not_equal(x, x)


isneginf = unary("isneginf", promote=_ORD_PRESERVE, out="bool", doc=(
    "Whether each element is -inf.  NumPy: ``np.isneginf``.\n\n"
    "Complex input raises TypeError (NumPy and JAX reject it too).  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.isneginf(polyops.ops.convert_to_tensor([-float('inf'), 1.0]))\n    array([ True, False])"))


@isneginf.reference
def _isneginf_ref(x):
    if not _is_float(_dtype_of(x)):
        return _constant(x, False)
    return equal(x, -math.inf)


isposinf = unary("isposinf", promote=_ORD_PRESERVE, out="bool", doc=(
    "Whether each element is +inf.  NumPy: ``np.isposinf``.\n\n"
    "Complex input raises TypeError (NumPy and JAX reject it too).  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.isposinf(polyops.ops.convert_to_tensor([float('inf'), 1.0]))\n    array([ True, False])"))


@isposinf.reference
def _isposinf_ref(x):
    if not _is_float(_dtype_of(x)):
        return _constant(x, False)
    return equal(x, math.inf)


isreal = unary("isreal", out="bool", doc=(
    "Whether each element has a zero imaginary part.  NumPy: ``np.isreal``.\n\n"
    "Every element of a real (int, bool, float) tensor is real, NaN included.  Result dtype:\n"
    "bool.  Complex input needs the backend's native kernel.\n\n"
    "Example:\n    >>> polyops.ops.isreal(polyops.ops.ones((2,)))\n    array([ True,  True])"))


@isreal.reference
def _isreal_ref(x):
    _real_only("isreal", x)
    return _constant(x, True)


signbit = unary("signbit", promote=_ORD_PRESERVE, out="bool", doc=(
    "Whether the sign bit is set: true for negative numbers, -0.0 and negative NaNs.\n\n"
    "NumPy: ``np.signbit``.  Floats are read bit by bit, so ``signbit(-0.0)`` is True.\n"
    "Ints: ``x < 0``; bools: False.  Complex input raises TypeError.  Result dtype: bool.\n\n"
    "Example:\n    >>> polyops.ops.signbit(polyops.ops.convert_to_tensor([-0.0, 0.0, -2.0]))\n    array([ True, False,  True])"))


@signbit.reference
def _signbit_ref(x):
    dtype = _dtype_of(x)
    if dtype == "bool":
        return _constant(x, False)
    if not _is_float(dtype):
        return less(x, 0)
    return less(view(x, _BITS[dtype]), 0)  # the sign bit is the integer's sign bit


# -- isclose / allclose --------------------------------------------------------------
# Kernel contract: x1, x2 at their common floating dtype (ints and bools to floatx;
# complex stays complex), rtol and atol Python floats, equal_nan a bool.  The result is
# NumPy's ``(|x1 - x2| <= atol + rtol * |x2|) & isfinite(x2) | (x1 == x2)``, or'ed with
# ``isnan(x1) & isnan(x2)`` when equal_nan; float16 and bfloat16 arrive in float32 (compute).
# isclose returns the broadcast bool tensor; allclose a 0-d bool tensor (all of it).


def _close_args(op, rtol, atol, equal_nan):
    return _number_arg(op, "rtol", rtol), _number_arg(op, "atol", atol), _bool_arg(op, "equal_nan", equal_nan)


def _isclose_prepare(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    return (x1, x2, *_close_args("isclose", rtol, atol, equal_nan))


@defop("numpy", tensors=("x1", "x2"), promote=_promote.floating, prepare=_isclose_prepare, compute="float32")
def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``x1`` and ``x2`` are equal within ``atol + rtol * |x2|``, element-wise.

    NumPy: ``np.isclose``.  ``inf`` is close only to the same ``inf``; NaN is close to
    NaN only with ``equal_nan=True``.  Operands promote to their common floating dtype
    (ints and bools to floatx); float16 and bfloat16 are compared in float32.  Result
    dtype: bool, the broadcast shape.

    Example:
        >>> polyops.ops.isclose(polyops.ops.convert_to_tensor([1.0, 1.1]), 1.0)
        array([ True, False])
    """
    check_tensor("isclose", "x1", x1)
    check_tensor("isclose", "x2", x2)
    _close_args("isclose", rtol, atol, equal_nan)
    _promote.floating((key(x1), key(x2)))
    return spec(broadcast_shapes(shape_of(x1), shape_of(x2), op="isclose"), "bool")


@isclose.reference
def _isclose_ref(x1, x2, rtol, atol, equal_nan):
    _real_only("isclose", x1)
    abs2 = abs(x2)
    within = less_equal(abs(subtract(x1, x2)), add(multiply(abs2, rtol), atol))
    out = logical_or(logical_and(within, less(abs2, math.inf)), equal(x1, x2))
    if equal_nan:
        out = logical_or(out, logical_and(not_equal(x1, x1), not_equal(x2, x2)))
    return out


def _allclose_prepare(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    return (x1, x2, *_close_args("allclose", rtol, atol, equal_nan))


@defop("numpy", tensors=("x1", "x2"), promote=_promote.floating, prepare=_allclose_prepare, compute="float32", empty=True)
def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements of ``x1`` and ``x2`` are close (see `isclose`).

    NumPy: ``np.allclose``.  Returns a 0-d bool tensor (True for zero-size operands),
    not a Python bool, so it also works on symbolic inputs.

    Example:
        >>> polyops.ops.allclose(polyops.ops.ones((2,)), 1.0)
        np.True_
    """
    check_tensor("allclose", "x1", x1)
    check_tensor("allclose", "x2", x2)
    _close_args("allclose", rtol, atol, equal_nan)
    _promote.floating((key(x1), key(x2)))
    broadcast_shapes(shape_of(x1), shape_of(x2), op="allclose")
    return spec((), "bool")


@allclose.reference
def _allclose_ref(x1, x2, rtol, atol, equal_nan):
    _real_only("allclose", x1)
    return all(isclose(x1, x2, rtol, atol, equal_nan))


# -- nan_to_num ----------------------------------------------------------------------
# Kernel contract: x of its own dtype (64-bit demoted); nan, posinf, neginf Python floats,
# posinf/neginf already resolved (None -> the largest / lowest finite value of x's
# floating dtype, of the parts' dtype for complex).  Int and bool x come back unchanged.


def _nan_to_num_args(dtype, nan, posinf, neginf):
    op = "nan_to_num"
    nan = _number_arg(op, "nan", nan)
    posinf = _number_arg(op, "posinf", posinf, allow_none=True)
    neginf = _number_arg(op, "neginf", neginf, allow_none=True)
    big = _FMAX.get(dtype, _FMAX["float32"])
    return nan, big if posinf is None else posinf, -big if neginf is None else neginf


def _nan_to_num_prepare(x, nan=0.0, posinf=None, neginf=None):
    return (x, *_nan_to_num_args(_dtypes.standardize_dtype(x.dtype), nan, posinf, neginf))


@defop("numpy", tensors=("x",), prepare=_nan_to_num_prepare)
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replace NaN with ``nan``, +inf with ``posinf`` and -inf with ``neginf``.

    NumPy: ``np.nan_to_num``.  ``posinf``/``neginf`` default to the largest / lowest
    finite value of x's dtype (65504 for float16).  Ints and bools come back unchanged;
    the dtype is x's own (64-bit demoted to 32-bit).  Complex input needs the backend's
    native kernel.

    Example:
        >>> polyops.ops.nan_to_num(polyops.ops.convert_to_tensor([float("nan"), float("inf")]))
        array([0.0000000e+00, 3.4028235e+38], dtype=float32)
    """
    check_tensor("nan_to_num", "x", x)
    (dtype,) = _promote.preserve((key(x),))
    _nan_to_num_args(dtype, nan, posinf, neginf)
    return spec(shape_of(x), dtype)


@nan_to_num.reference
def _nan_to_num_ref(x, nan, posinf, neginf):
    if not _is_float(_real_only("nan_to_num", x)):
        return x
    out = where(not_equal(x, x), nan, x)
    out = where(equal(x, math.inf), posinf, out)
    return where(equal(x, -math.inf), neginf, out)


# -- nextafter -----------------------------------------------------------------------
# Kernel contract: x1, x2 at their common floating dtype (ints and bools to floatx;
# complex rejected); returns that dtype.  Exact as NumPy: the next representable value
# after x1 towards x2; x2 where x1 == x2 (so -0.0 towards 0.0 is 0.0, in every dtype:
# NumPy's own float16 loop returns x1 there, unlike its C-based float32); the smallest
# subnormal with x2's direction's sign for x1 == +-0; NaN if either is NaN.

nextafter = binary("nextafter", promote=_ORD_FLOATING, doc=(
    "The next floating-point value after ``x1`` towards ``x2``, element-wise.\n\n"
    "NumPy: ``np.nextafter``.  Exact, by stepping x1's bit pattern (the reference views\n"
    "float32 as int32, float16/bfloat16 as int16): ``nextafter(0, 1)`` is the smallest\n"
    "subnormal, ``x2`` where ``x1 == x2``, NaN where either is NaN.  Ints and bools compute\n"
    "in floatx; complex raises TypeError.  Subnormal *inputs*: jax and tensorflow compare\n"
    "float32/bfloat16 with denormals-are-zero on CPU, so there a subnormal x1 steps as if\n"
    "it were 0 (the results themselves are exact on every backend).\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.nextafter(1.0, 2.0), 4)\n    np.float32(1.0)"))


@nextafter.reference
def _nextafter_ref(x1, x2):
    # All selection happens on the integer bit patterns, one view back at the end:
    # openvino's bfloat16 select flushes subnormals (the results next to 0).
    dtype = _dtype_of(x1)
    itype = _BITS[dtype]
    bits = view(x1, itype)
    up = greater(x2, x1)
    # sign-magnitude bits: the magnitude grows when moving away from zero
    grows = equal(up, greater(x1, 0))
    out = where(grows, add(bits, 1), subtract(bits, 1))
    # from +-0: the smallest subnormal, signed like the direction (bits 1 or sign|1)
    tiny = where(up, full((), 1, itype), 1 - 2 ** (_itemsize(dtype) * 8 - 1))
    out = where(equal(x1, 0), tiny, out)
    out = where(equal(x1, x2), view(x2, itype), out)
    unordered = logical_or(not_equal(x1, x1), not_equal(x2, x2))
    return view(where(unordered, _QNAN_BITS[dtype], out), dtype)


# ===== complex parts ==================================================================
# Kernel contract of real, imag, conjugate, angle: one tensor (64-bit demoted; angle's
# ints and bools arrive as floatx); real/imag/angle return the parts' dtype for complex
# input (complex64 -> float32), conjugate the input dtype.  The references cover real
# dtypes only: complex input needs a native kernel.


def _parts_rule(op):
    def rule(x):
        check_tensor(op, "x", x)
        (dtype,) = _promote.preserve((key(x),))
        return spec(shape_of(x), _part_dtype(dtype))

    return rule


@defop("numpy", tensors=("x",), elementwise="unary")
def real(x):
    """The real part, element-wise.  NumPy: ``np.real``.

    Real input comes back as is (its dtype, 64-bit demoted); complex64 gives float32.
    Complex input needs the backend's native kernel.

    Example:
        >>> polyops.ops.real(polyops.ops.arange(3))
        array([0, 1, 2], dtype=int32)
    """
    return _parts_rule("real")(x)


@real.reference
def _real_ref(x):
    _real_only("real", x)
    return x


@defop("numpy", tensors=("x",), elementwise="unary")
def imag(x):
    """The imaginary part, element-wise.  NumPy: ``np.imag``.

    Zeros of x's dtype for real input (64-bit demoted); complex64 gives float32.
    Complex input needs the backend's native kernel.

    Example:
        >>> polyops.ops.imag(polyops.ops.ones((2,)))
        array([0., 0.], dtype=float32)
    """
    return _parts_rule("imag")(x)


@imag.reference
def _imag_ref(x):
    _real_only("imag", x)
    return zeros_like(x)


conjugate = unary("conjugate", doc=(
    "The complex conjugate, element-wise; real input comes back as is.\n\n"
    "NumPy: ``np.conjugate``.  The dtype is x's own (64-bit demoted).  Complex input needs\n"
    "the backend's native kernel.\n\n"
    "Example:\n    >>> polyops.ops.conjugate(polyops.ops.arange(3))\n    array([0, 1, 2], dtype=int32)"))
conj = conjugate


@conjugate.reference
def _conjugate_ref(x):
    _real_only("conjugate", x)
    return x


@defop("numpy", tensors=("x",), promote=_promote.floating, elementwise="unary")
def angle(x):
    """The counterclockwise angle from the positive real axis, in radians.

    NumPy: ``np.angle`` (``arctan2(imag, real)``).  For real input: 0 for x >= +0, pi for
    x < 0 and for -0.0 (the sign bit decides, as NumPy's ``arctan2(0, -0.0)``), NaN for
    NaN.  Ints and bools compute in floatx; complex64 gives float32.  Complex input needs
    the backend's native kernel.

    Example:
        >>> polyops.ops.round(polyops.ops.angle(polyops.ops.convert_to_tensor([-2.0, 3.0])), 4)
        array([3.1416, 0.    ], dtype=float32)
    """
    check_tensor("angle", "x", x)
    (dtype,) = _promote.floating((key(x),))
    return spec(shape_of(x), _part_dtype(dtype))


@angle.reference
def _angle_ref(x):
    _real_only("angle", x)
    out = where(signbit(x), _PI, zeros_like(x))
    return where(not_equal(x, x), x, out)


__all__ = [
    "Allclose", "Angle", "BitwiseAnd", "BitwiseInvert", "BitwiseOr", "BitwiseXor", "Conjugate",
    "Imag", "Isclose", "Isfinite", "Isinf", "Isnan", "Isneginf", "Isposinf", "Isreal",
    "LeftShift", "LogicalXor", "NanToNum", "Nextafter", "Real", "RightShift", "Signbit",
    "View", "allclose", "angle", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
    "bitwise_not", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "conj", "conjugate",
    "imag", "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal",
    "left_shift", "logical_xor", "nan_to_num", "nextafter", "real", "right_shift", "signbit",
    "view",
]

_finish(globals())
