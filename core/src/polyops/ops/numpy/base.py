"""The first NumPy-compatible ops: creation, arithmetic, comparisons, reductions, shape, products.

Each op is one block: public function + shape/dtype rule (the decorated body) +,
unless it is a primitive, its reference implementation written with
`polyops.ops` calls only.  Elementwise ops are one line through a factory.
"""

from __future__ import annotations

import builtins
import math

from ... import _dtypes, _promote, config
from ..._op import defop
from ..._shapes import (
    broadcast_shapes,
    canonicalize_axes,
    canonicalize_axis,
    normalize_shape,
    reduce_shape,
)
from ..._symbolic import SymbolicTensor
from .._base import binary, dtype_arg, int_arg, key, shape_of, spec, unary
from .._base import finish as _finish
from .._indices import check_index
from ..core import shape as _shape_of
from ._shapes import (
    _broadcast_check, _concat_shape, _dot_shape, _einsum_shape, _expanded_shape, _index_plan,
    _matmul_shape, _perm, _resolve_newshape, _squeezed_shape,
)

# ===== creation =====================================================================


def _full_prepare(shape, fill_value, dtype=None):
    if isinstance(fill_value, SymbolicTensor):
        raise TypeError("full: expected a Python scalar fill_value, got a SymbolicTensor")
    return normalize_shape(shape, "full"), fill_value, dtype_arg("full", dtype)


@defop("numpy", tensors=(), promote=None, prepare=_full_prepare)
def full(shape, fill_value, dtype=None):
    """Return a new tensor of given shape and dtype, filled with ``fill_value``.

    NumPy: ``np.full``.  ``dtype=None`` means floatx.

    Example:
        >>> polyops.ops.full((2,), 7, dtype="int32")
        array([7, 7], dtype=int32)
    """
    shape, _, dtype = _full_prepare(shape, fill_value, dtype)
    if None in shape:
        raise ValueError(f"full: expected a fully known shape, got {shape}")
    return spec(shape, dtype)


def _creation_prepare(op):
    def prepare(shape, dtype=None):
        return normalize_shape(shape, op), dtype_arg(op, dtype)

    return prepare


@defop("numpy", tensors=(), promote=None, prepare=_creation_prepare("zeros"))
def zeros(shape, dtype=None):
    """Return a new tensor of given shape and dtype, filled with zeros.  NumPy: ``np.zeros``.

    Example:
        >>> polyops.ops.zeros((2, 3))
        array([[0., 0., 0.],
               [0., 0., 0.]], dtype=float32)
    """
    return spec(*_creation_prepare("zeros")(shape, dtype))


@zeros.reference
def _zeros_ref(shape, dtype=None):
    return full(shape, 0, dtype)


@defop("numpy", tensors=(), promote=None, prepare=_creation_prepare("ones"))
def ones(shape, dtype=None):
    """Return a new tensor of given shape and dtype, filled with ones.  NumPy: ``np.ones``.

    Example:
        >>> polyops.ops.ones((2,), dtype="int8")
        array([1, 1], dtype=int8)
    """
    return spec(*_creation_prepare("ones")(shape, dtype))


@ones.reference
def _ones_ref(shape, dtype=None):
    return full(shape, 1, dtype)


def _like_dtype(op, x, dtype):
    return dtype_arg(op, dtype, default=x.dtype if isinstance(x, SymbolicTensor) else None)


@defop("numpy", tensors=("x",))
def full_like(x, fill_value, dtype=None):
    """A tensor shaped like ``x`` filled with ``fill_value``; dtype defaults to ``x``'s.

    NumPy: ``np.full_like``.

    Example:
        >>> polyops.ops.full_like(polyops.ops.ones((2,)), 3.0)
        array([3., 3.], dtype=float32)
    """
    return spec(shape_of(x), _like_dtype("full_like", x, dtype))


@full_like.reference
def _full_like_ref(x, fill_value, dtype=None):
    return full(_shape_of(x), fill_value, dtype or _dtypes.standardize_dtype(x.dtype))


@defop("numpy", tensors=("x",))
def zeros_like(x, dtype=None):
    """A tensor of zeros shaped like ``x``.  NumPy: ``np.zeros_like``.

    Example:
        >>> polyops.ops.zeros_like(polyops.ops.ones((2, 2)))
        array([[0., 0.],
               [0., 0.]], dtype=float32)
    """
    return spec(shape_of(x), _like_dtype("zeros_like", x, dtype))


@zeros_like.reference
def _zeros_like_ref(x, dtype=None):
    return full(_shape_of(x), 0, dtype or _dtypes.standardize_dtype(x.dtype))


@defop("numpy", tensors=("x",))
def ones_like(x, dtype=None):
    """A tensor of ones shaped like ``x``.  NumPy: ``np.ones_like``.

    Example:
        >>> polyops.ops.ones_like(polyops.ops.zeros((3,), dtype="int32"))
        array([1, 1, 1], dtype=int32)
    """
    return spec(shape_of(x), _like_dtype("ones_like", x, dtype))


@ones_like.reference
def _ones_like_ref(x, dtype=None):
    return full(_shape_of(x), 1, dtype or _dtypes.standardize_dtype(x.dtype))


def _arange_prepare(start, stop=None, step=None, dtype=None):
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if type(start) is int and type(stop) is int and type(step) is int:  # the usual call
        if dtype is None and step:
            return start, stop, step, "int32"
    else:
        for name, v in (("start", start), ("stop", stop), ("step", step)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"arange: expected a Python number for {name}, got {name}={v!r}")
    if step == 0:
        raise ValueError("arange: expected a non-zero step, got step=0")
    if dtype is None:
        floats = builtins.any(isinstance(v, float) for v in (start, stop, step))
        dtype = config.floatx() if floats else "int32"
    return start, stop, step, dtype_arg("arange", dtype)


@defop("numpy", tensors=(), promote=None, prepare=_arange_prepare)
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``.  NumPy: ``np.arange``.

    With one argument it is the stop.  ``dtype=None`` gives int32 for int
    arguments and floatx when any is a float.

    Example:
        >>> polyops.ops.arange(1, 7, 2)
        array([1, 3, 5], dtype=int32)
    """
    start, stop, step, dtype = _arange_prepare(start, stop, step, dtype)
    return spec((builtins.max(0, math.ceil((stop - start) / step)),), dtype)


def _linspace_check(start, stop, num):
    for name, v in (("start", start), ("stop", stop)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"linspace: expected a Python number for {name}, got {name}={v!r}")
    num = int_arg("linspace", "num", num)
    if num < 0:
        raise ValueError(f"linspace: expected num >= 0, got num={num}")
    return num


@defop("numpy", tensors=(), promote=None)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced numbers over ``[start, stop]``.  NumPy: ``np.linspace``.

    ``start`` and ``stop`` are Python numbers; ``axis`` is accepted for Keras
    compatibility and only 0 is meaningful for scalar endpoints.

    Example:
        >>> polyops.ops.linspace(0, 1, 5)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    num = _linspace_check(start, stop, num)
    out = spec((num,), dtype_arg("linspace", dtype))
    return (out, float((stop - start) / builtins.max(num - int(bool(endpoint)), 1))) if retstep else out


_WIDE = frozenset({"float64", "int64", "uint64", "complex128"})


def _wide_scope(dtype):
    """Promotion in 64-bit mode on this thread while a reference computes a 64-bit result
    ``dtype`` (an explicit ``dtype="float64"`` outside 64-bit mode): there the lattice would
    demote its own arithmetic (float64 + float64 -> float32) where the native kernels
    compute in 64 bits."""
    return config._forced_x64(True if dtype in _WIDE else config._x64())


@linspace.reference
def _linspace_ref(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    num = _linspace_check(start, stop, num)
    dtype = dtype_arg("linspace", dtype)
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    # NumPy computes in float64 for every result dtype; 32 bits suffice below 64-bit results
    work = dtype if dtype in _dtypes.FLOAT_TYPES else "float64" if dtype in _WIDE else "float32"
    with _wide_scope(dtype):
        values = add(multiply(arange(0, num, 1, dtype=work), step), start)
        if endpoint and num > 1:
            values = where(equal(arange(0, num, 1), num - 1), full((num,), stop, work), values)
        values = values if work == dtype else cast_(values, dtype)
    return (values, step) if retstep else values


def _eye_args(N, M, k, dtype):
    N = int_arg("eye", "N", N)
    M = N if M is None else int_arg("eye", "M", M)
    if N < 0 or M < 0:
        raise ValueError(f"eye: expected non-negative N and M, got N={N}, M={M}")
    return N, M, int_arg("eye", "k", k), dtype_arg("eye", dtype)


@defop("numpy", tensors=(), promote=None)
def eye(N, M=None, k=0, dtype=None):
    """A 2-D tensor with ones on the ``k``-th diagonal and zeros elsewhere.  NumPy: ``np.eye``.

    Example:
        >>> polyops.ops.eye(2, 3, k=1)
        array([[0., 1., 0.],
               [0., 0., 1.]], dtype=float32)
    """
    N, M, k, dtype = _eye_args(N, M, k, dtype)
    return spec((N, M), dtype)


@eye.reference
def _eye_ref(N, M=None, k=0, dtype=None):
    N, M, k, dtype = _eye_args(N, M, k, dtype)
    rows = reshape(arange(0, N, 1), (N, 1))
    return cast_(equal(add(rows, k), reshape(arange(0, M, 1), (1, M))), dtype)


# Ordering ops reject complex operands (see _promote.ordered).
_ORD_SAME = _promote.ordered(_promote.same)
_ORD_NUMERIC = _promote.ordered(_promote.numeric)
_ORD_FLOATING = _promote.ordered(_promote.floating)
_ORD_PRESERVE = _promote.ordered(_promote.preserve)

# ===== elementwise ==================================================================

abs = unary("abs", doc="Absolute value, element-wise.  NumPy: ``np.abs``.\n\n"
            "Example:\n    >>> polyops.ops.abs(polyops.ops.arange(-2, 1))\n    array([2, 1, 0], dtype=int32)")
absolute = abs
negative = unary("negative", promote=_promote.numeric, doc="Numerical negative, element-wise; bool becomes int32.  NumPy: ``np.negative``.\n\nExample:\n    >>> polyops.ops.negative(polyops.ops.convert_to_tensor([1, -2]))\n    array([-1,  2], dtype=int32)")
exp = unary("exp", promote=_promote.floating, doc="Exponential; ints and bools compute in floatx.  NumPy: ``np.exp``.\n\nExample:\n    >>> polyops.ops.exp(polyops.ops.zeros((2,)))\n    array([1., 1.], dtype=float32)")
log = unary("log", promote=_promote.floating, doc="Natural logarithm.  NumPy: ``np.log``.\n\nExample:\n    >>> polyops.ops.log(polyops.ops.ones((2,)))\n    array([0., 0.], dtype=float32)")
sqrt = unary("sqrt", promote=_promote.floating, doc="Non-negative square root.  NumPy: ``np.sqrt``.\n\nExample:\n    >>> polyops.ops.sqrt(polyops.ops.convert_to_tensor([4.0, 9.0]))\n    array([2., 3.], dtype=float32)")
sin = unary("sin", promote=_promote.floating, doc="Sine, element-wise.  NumPy: ``np.sin``.\n\nExample:\n    >>> polyops.ops.sin(polyops.ops.zeros((2,)))\n    array([0., 0.], dtype=float32)")
cos = unary("cos", promote=_promote.floating, doc="Cosine, element-wise.  NumPy: ``np.cos``.\n\nExample:\n    >>> polyops.ops.cos(polyops.ops.zeros((2,)))\n    array([1., 1.], dtype=float32)")
tanh = unary("tanh", promote=_promote.floating, doc="Hyperbolic tangent.  NumPy: ``np.tanh``.\n\nExample:\n    >>> polyops.ops.tanh(polyops.ops.zeros((2,)))\n    array([0., 0.], dtype=float32)")
sign = unary("sign", promote=_ORD_NUMERIC, doc="-1, 0 or 1 by sign; bool becomes int32.  NumPy: ``np.sign``.\n\nExample:\n    >>> polyops.ops.sign(polyops.ops.convert_to_tensor([-3, 0, 2]))\n    array([-1,  0,  1], dtype=int32)")
floor = unary("floor", promote=_ORD_FLOATING, doc="Floor, in floating point.  NumPy: ``np.floor``.\n\nExample:\n    >>> polyops.ops.floor(polyops.ops.convert_to_tensor([1.5, -1.5]))\n    array([ 1., -2.], dtype=float32)")
ceil = unary("ceil", promote=_ORD_FLOATING, doc="Ceiling, in floating point.  NumPy: ``np.ceil``.\n\nExample:\n    >>> polyops.ops.ceil(polyops.ops.convert_to_tensor([1.5, -1.5]))\n    array([ 2., -1.], dtype=float32)")
square = unary("square", promote=_promote.numeric, doc="``x * x``; bool becomes int32.  NumPy: ``np.square``.\n\nExample:\n    >>> polyops.ops.square(polyops.ops.convert_to_tensor([2, -3]))\n    array([4, 9], dtype=int32)")


@square.reference
def _square_ref(x):
    return multiply(x, x)


def _round_prepare(x, decimals=0):
    return x, int_arg("round", "decimals", decimals)


@defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=_round_prepare)
def round(x, decimals=0):
    """Round half to even to ``decimals`` places.  NumPy: ``np.round``.

    Example:
        >>> polyops.ops.round(polyops.ops.convert_to_tensor([0.5, 1.5, 2.25]), 1)
        array([0.5, 1.5, 2.2], dtype=float32)
    """
    int_arg("round", "decimals", decimals)
    return spec(shape_of(x), _ORD_PRESERVE((key(x),))[0])


add = binary("add", doc="Add arguments element-wise.  NumPy: ``np.add``.\n\n"
             "Example:\n    >>> polyops.ops.add(polyops.ops.ones((2,)), 1)\n    array([2., 2.], dtype=float32)")
subtract = binary("subtract", promote=_promote.numeric, doc="Subtract arguments element-wise; bool - bool is int32.  NumPy: ``np.subtract``.\n\nExample:\n    >>> polyops.ops.subtract(polyops.ops.ones((2,)), 3)\n    array([-2., -2.], dtype=float32)")
multiply = binary("multiply", doc="Multiply arguments element-wise.  NumPy: ``np.multiply``.\n\nExample:\n    >>> polyops.ops.multiply(polyops.ops.convert_to_tensor([1, 2]), 3)\n    array([3, 6], dtype=int32)")
divide = binary("divide", promote=_promote.floating, doc="True division; ints divide in floatx.  NumPy: ``np.divide``.\n\nExample:\n    >>> polyops.ops.divide(polyops.ops.convert_to_tensor([1, 2]), 2)\n    array([0.5, 1. ], dtype=float32)")
true_divide = divide
floor_divide = binary("floor_divide", promote=_ORD_NUMERIC, doc="Largest integer not above ``x1 / x2``.  NumPy: ``np.floor_divide``.\n\nExample:\n    >>> polyops.ops.floor_divide(polyops.ops.convert_to_tensor([7, -7]), 2)\n    array([ 3, -4], dtype=int32)")
mod = binary("mod", promote=_ORD_NUMERIC, doc="Remainder with the sign of the divisor.  NumPy: ``np.mod``.\n\nExample:\n    >>> polyops.ops.mod(polyops.ops.convert_to_tensor([7, -7]), 3)\n    array([1, 2], dtype=int32)")
power = binary("power", promote=_promote.numeric, doc="``x1 ** x2`` element-wise.  NumPy: ``np.power``.\n\nExample:\n    >>> polyops.ops.power(polyops.ops.convert_to_tensor([2, 3]), 2)\n    array([4, 9], dtype=int32)")
maximum = binary("maximum", promote=_ORD_SAME, doc="Element-wise maximum; NaN propagates.  NumPy: ``np.maximum``.\n\nExample:\n    >>> polyops.ops.maximum(polyops.ops.convert_to_tensor([1.0, float('nan')]), 0.5)\n    array([ 1., nan], dtype=float32)")
minimum = binary("minimum", promote=_ORD_SAME, doc="Element-wise minimum; NaN propagates.  NumPy: ``np.minimum``.\n\nExample:\n    >>> polyops.ops.minimum(polyops.ops.convert_to_tensor([1.0, 0.25]), 0.5)\n    array([0.5 , 0.25], dtype=float32)")


def _clip_promote_fn(keys):
    (target,) = _promote.numeric((keys[0],))
    return (target,) + tuple(None if k is None else target for k in keys[1:])


_clip_promote = _promote.ordered(_clip_promote_fn)


@defop("numpy", tensors=("x", "x_min", "x_max"), promote=_clip_promote)
def clip(x, x_min, x_max):
    """Limit values to ``[x_min, x_max]``; the result keeps ``x``'s dtype (bool -> int32).

    NumPy: ``np.clip``.

    Example:
        >>> polyops.ops.clip(polyops.ops.arange(5), 1, 3)
        array([1, 1, 2, 3, 3], dtype=int32)
    """
    target = _clip_promote((key(x), key(x_min), key(x_max)))[0]
    return spec(broadcast_shapes(shape_of(x), shape_of(x_min), shape_of(x_max), op="clip"), target)


@clip.reference
def _clip_ref(x, x_min, x_max):
    return minimum(maximum(x, x_min), x_max)


# ===== comparison and logic =========================================================

equal = binary("equal", out="bool", doc="``x1 == x2`` element-wise.  NumPy: ``np.equal``.\n\nExample:\n    >>> polyops.ops.equal(polyops.ops.convert_to_tensor([1, 2]), 2)\n    array([False,  True])")
not_equal = binary("not_equal", out="bool", doc="``x1 != x2`` element-wise.  NumPy: ``np.not_equal``.\n\nExample:\n    >>> polyops.ops.not_equal(polyops.ops.convert_to_tensor([1, 2]), 2)\n    array([ True, False])")
less = binary("less", promote=_ORD_SAME, out="bool", doc="``x1 < x2`` element-wise.  NumPy: ``np.less``.\n\nExample:\n    >>> polyops.ops.less(polyops.ops.convert_to_tensor([1, 2]), 2)\n    array([ True, False])")
less_equal = binary("less_equal", promote=_ORD_SAME, out="bool", doc="``x1 <= x2`` element-wise.  NumPy: ``np.less_equal``.\n\nExample:\n    >>> polyops.ops.less_equal(polyops.ops.convert_to_tensor([1, 3]), 2)\n    array([ True, False])")
greater = binary("greater", promote=_ORD_SAME, out="bool", doc="``x1 > x2`` element-wise.  NumPy: ``np.greater``.\n\nExample:\n    >>> polyops.ops.greater(polyops.ops.convert_to_tensor([1, 3]), 2)\n    array([False,  True])")
greater_equal = binary("greater_equal", promote=_ORD_SAME, out="bool", doc="``x1 >= x2`` element-wise.  NumPy: ``np.greater_equal``.\n\nExample:\n    >>> polyops.ops.greater_equal(polyops.ops.convert_to_tensor([1, 2]), 2)\n    array([False,  True])")
logical_and = binary("logical_and", promote=_promote.boolean, doc="Truth of ``x1 AND x2``.  NumPy: ``np.logical_and``.\n\nExample:\n    >>> polyops.ops.logical_and(polyops.ops.convert_to_tensor([True, False]), True)\n    array([ True, False])")
logical_or = binary("logical_or", promote=_promote.boolean, doc="Truth of ``x1 OR x2``.  NumPy: ``np.logical_or``.\n\nExample:\n    >>> polyops.ops.logical_or(polyops.ops.convert_to_tensor([True, False]), False)\n    array([ True, False])")
logical_not = unary("logical_not", promote=_promote.boolean, doc="Truth of ``NOT x``.  NumPy: ``np.logical_not``.\n\nExample:\n    >>> polyops.ops.logical_not(polyops.ops.convert_to_tensor([True, False]))\n    array([False,  True])")


def _where_promote_fn(keys):
    c, a, b = keys
    if a is None or b is None:
        raise ValueError("where: expected both x1 and x2 (use nonzero for the 1-argument form)")
    out = _dtypes.result_type_of_keys(tuple(k for k in (a, b) if k is not None))
    return ("bool", out, out)


_where_promote = _promote.cached(_where_promote_fn)


@defop("numpy", tensors=("condition", "x1", "x2"), promote=_where_promote)
def where(condition, x1=None, x2=None):
    """Elements of ``x1`` where ``condition`` holds, else of ``x2``.  NumPy: ``np.where``.

    Both branches are required (the one-argument form is ``nonzero``).

    Example:
        >>> polyops.ops.where(polyops.ops.arange(3) > 0, 1.0, -1.0)
        array([-1.,  1.,  1.], dtype=float32)
    """
    if x1 is None or x2 is None:
        raise ValueError("where: expected both x1 and x2 (use nonzero for the 1-argument form)")
    _, dtype, _ = _where_promote((key(condition), key(x1), key(x2)))
    return spec(broadcast_shapes(shape_of(condition), shape_of(x1), shape_of(x2), op="where"), dtype)


# ===== reductions ===================================================================


def _reduce_prepare_for(op):
    def prepare(x, axis=None, keepdims=False, *rest):
        return (x, canonicalize_axes(axis, len(x.shape), op), bool(keepdims), *rest)

    return prepare


def _reduce_rule(op, x, axis, keepdims, dtype):
    if not isinstance(x, SymbolicTensor):
        x = spec((), key(x) if key(x) not in ("int", "float") else None)
    axes = canonicalize_axes(axis, x.ndim, op)
    return spec(reduce_shape(x.shape, axes, keepdims), dtype)


def _check_nonempty(op, shape, axes):
    """ValueError naming ``op`` when the reduced dims (``axes``; None: all) hold a 0."""
    reduced = shape if axes is None else [shape[a] for a in axes]
    if 0 in reduced:
        raise ValueError(f"{op}: expected a non-empty reduction, got shape={tuple(shape)}")


def _nonempty_prepare_for(op):
    def prepare(x, axis=None, keepdims=False):
        axes = canonicalize_axes(axis, len(x.shape), op)
        _check_nonempty(op, tuple(x.shape), axes)
        return x, axes, bool(keepdims)

    return prepare


def _reduction(name, promote, out=None, doc="", prepare=None, nonempty=False, compute=None,
               empty=None):
    """A ``(x, axis=None, keepdims=False)`` reduction declared in the calling module;
    ``nonempty`` makes an empty reduction a ValueError (max, ptp...); ``compute`` and
    ``empty``: see `defop`."""

    def rule(x, axis=None, keepdims=False):
        (dtype,) = promote((key(x),))
        result = _reduce_rule(name, x, axis, keepdims, out or dtype)
        if nonempty:
            _check_nonempty(name, shape_of(x), canonicalize_axes(axis, len(shape_of(x)), name))
        return result

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    prepare = prepare or (_nonempty_prepare_for(name) if nonempty else _reduce_prepare_for(name))
    return defop("numpy", tensors=("x",), promote=promote, prepare=prepare, compute=compute,
                 empty=empty)(rule)


sum = _reduction("sum", _promote.accumulate, empty=0, doc=(
    "Sum over ``axis`` (None: all).  bool and narrow ints accumulate in 32 bits.  "
    "NumPy: ``np.sum``.\n\nExample:\n    >>> polyops.ops.sum(polyops.ops.ones((2, 3)), axis=1)\n    array([3., 3.], dtype=float32)"))
all = _reduction("all", _promote.boolean, empty=True, doc="Whether all elements along ``axis`` are true.  NumPy: ``np.all``.\n\nExample:\n    >>> polyops.ops.all(polyops.ops.convert_to_tensor([[True, False], [True, True]]), axis=1)\n    array([False,  True])")
any = _reduction("any", _promote.boolean, empty=False, doc="Whether any element along ``axis`` is true.  NumPy: ``np.any``.\n\nExample:\n    >>> polyops.ops.any(polyops.ops.convert_to_tensor([[True, False], [False, False]]), axis=1)\n    array([ True, False])")
mean = _reduction("mean", _promote.floating, empty=math.nan, doc="Arithmetic mean over ``axis``; ints average in floatx.  NumPy: ``np.mean``.\n\nExample:\n    >>> polyops.ops.mean(polyops.ops.convert_to_tensor([[1, 2], [3, 4]]), axis=0)\n    array([2., 3.], dtype=float32)")


@mean.reference
def _mean_ref(x, axis=None, keepdims=False):
    shape = _shape_of(x)
    count = math.prod(shape) if axis is None else math.prod(shape[a] for a in axis)
    return divide(sum(x, axis, keepdims), count)


var = _reduction("var", _promote.floating, empty=math.nan, doc="Variance (population, ddof=0) over ``axis``.  NumPy: ``np.var``.\n\nExample:\n    >>> polyops.ops.var(polyops.ops.convert_to_tensor([1.0, 3.0]))\n    np.float32(1.0)")


@var.reference
def _var_ref(x, axis=None, keepdims=False):
    from ..core import dtype as _dtype_of

    centered = subtract(x, mean(x, axis, True))
    dtype = _dtype_of(x)
    if dtype in _dtypes.COMPLEX_TYPES:  # mean(|x - mean|^2): real, in x's complex dtype
        from .logic import imag, real

        re, im = real(centered), imag(centered)
        return cast_(mean(add(multiply(re, re), multiply(im, im)), axis, keepdims), dtype)
    return mean(multiply(centered, centered), axis, keepdims)


std = _reduction("std", _promote.floating, empty=math.nan, doc="Standard deviation (ddof=0) over ``axis``.  NumPy: ``np.std``.\n\nExample:\n    >>> polyops.ops.std(polyops.ops.convert_to_tensor([1.0, 3.0]))\n    np.float32(1.0)")


@std.reference
def _std_ref(x, axis=None, keepdims=False):
    return sqrt(var(x, axis, keepdims))


def _prod_prepare(x, axis=None, keepdims=False, dtype=None):
    x, axis, keepdims = _reduce_prepare_for("prod")(x, axis, keepdims)
    if dtype is not None:  # multiply in the requested dtype, as np.prod(x, dtype=) does
        x = cast_(x, dtype_arg("prod", dtype))
    return x, axis, keepdims, None


@defop("numpy", tensors=("x",), promote=_promote.accumulate, prepare=_prod_prepare, empty=1)
def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis``.  NumPy: ``np.prod``.

    bool and narrow ints accumulate in 32 bits; a ``dtype`` casts the result.

    Example:
        >>> polyops.ops.prod(polyops.ops.arange(1, 5))
        np.int32(24)
    """
    (acc,) = _promote.accumulate((key(x),))
    return _reduce_rule("prod", x, axis, keepdims, acc if dtype is None else dtype_arg("prod", dtype))


def _extremum(name, doc):
    def prepare(x, axis=None, keepdims=False, initial=None):
        axes = canonicalize_axes(axis, len(x.shape), name)
        shape = tuple(x.shape)
        reduced = shape if axes is None else [shape[a] for a in axes]
        if initial is None and 0 in reduced:
            raise ValueError(
                f"{name}: expected a non-empty reduction or an initial value, got shape={shape}"
            )
        return x, axes, bool(keepdims), initial

    def rule(x, axis=None, keepdims=False, initial=None):
        out = _reduce_rule(name, x, axis, keepdims, _ORD_PRESERVE((key(x),))[0])
        axes = canonicalize_axes(axis, len(shape_of(x)), name)
        reduced = shape_of(x) if axes is None else [shape_of(x)[a] for a in axes]
        if initial is None and 0 in reduced:
            raise ValueError(
                f"{name}: expected a non-empty reduction or an initial value, got shape={shape_of(x)}"
            )
        return out

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    return defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=prepare,
                 empty=_initial)(rule)


def _initial(out, x, axis=None, keepdims=False, initial=None):
    """The fill of an empty max/min reduction: ``initial`` (without one prepare raises)."""
    return initial


max = _extremum("max", "Maximum over ``axis``; NaN propagates.  NumPy: ``np.max``.\n\n"
                "Example:\n    >>> polyops.ops.max(polyops.ops.arange(4))\n    np.int32(3)")
min = _extremum("min", "Minimum over ``axis``; NaN propagates.  NumPy: ``np.min``.\n\nExample:\n    >>> polyops.ops.min(polyops.ops.convert_to_tensor([[1, 5], [3, 2]]), axis=1)\n    array([1, 2], dtype=int32)")
amax = max
amin = min


def _arg_extremum(name, doc):
    """An ``(x, axis=None, keepdims=False) -> int32`` index reduction declared in the
    calling module: axis None (the flattened x) or one axis; an empty reduction is a
    ValueError."""

    def prepare(x, axis=None, keepdims=False):
        shape = tuple(x.shape)
        if axis is not None:
            axis = canonicalize_axis(axis, len(shape), name)
        _check_nonempty(name, shape, None if axis is None else (axis,))
        return x, axis, bool(keepdims)

    def rule(x, axis=None, keepdims=False):
        shape = shape_of(x)
        _ORD_PRESERVE((key(x),))
        if axis is not None:
            axis = canonicalize_axis(axis, len(shape), name)
        _check_nonempty(name, shape, None if axis is None else (axis,))
        return spec(reduce_shape(shape, None if axis is None else (axis,), keepdims), "int32")

    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = doc
    return defop("numpy", tensors=("x",), promote=_ORD_PRESERVE, prepare=prepare)(rule)


argmax = _arg_extremum("argmax", "Index of the maximum along ``axis`` (None: flattened), int32.  NumPy: ``np.argmax``.\n\nExample:\n    >>> polyops.ops.argmax(polyops.ops.convert_to_tensor([1.0, 5.0, 5.0]))   # the first maximum\n    np.int32(1)")
argmin = _arg_extremum("argmin", "Index of the minimum along ``axis`` (None: flattened), int32.  NumPy: ``np.argmin``.\n\nExample:\n    >>> polyops.ops.argmin(polyops.ops.convert_to_tensor([3.0, 1.0, 1.0]))   # the first minimum\n    np.int32(1)")


# ===== shape ========================================================================


_RESHAPES: dict = {}


def _reshape_prepare(x, newshape):
    key = (tuple(x.shape), newshape)
    try:  # resolving -1 and validating is pure: remember it per (shape, newshape)
        return x, _RESHAPES[key]
    except (KeyError, TypeError):  # not seen yet, or an unhashable (list) newshape
        pass
    out = _resolve_newshape(key[0], newshape)
    if len(_RESHAPES) > 4096:
        _RESHAPES.clear()
    try:
        _RESHAPES[key] = out
    except TypeError:
        pass
    return x, out


@defop("numpy", tensors=("x",), prepare=_reshape_prepare)
def reshape(x, newshape):
    """Give a new shape to a tensor without changing its data.  NumPy: ``np.reshape``.

    One dim of ``newshape`` may be -1 (inferred); symbolically, an unknown input
    dim makes the -1 unknown.

    Example:
        >>> polyops.ops.reshape(polyops.ops.arange(6), (-1, 3)).shape
        (2, 3)
    """
    return spec(_resolve_newshape(shape_of(x), newshape), _promote.preserve((key(x),))[0])


def _transpose_prepare(x, axes=None):
    return x, _perm(axes, len(x.shape))


@defop("numpy", tensors=("x",), prepare=_transpose_prepare)
def transpose(x, axes=None):
    """Permute the dimensions (None: reverse them).  NumPy: ``np.transpose``.

    Example:
        >>> polyops.ops.transpose(polyops.ops.zeros((2, 3))).shape
        (3, 2)
    """
    shape = shape_of(x)
    return spec(tuple(shape[a] for a in _perm(axes, len(shape))), _promote.preserve((key(x),))[0])


def _expand_dims_prepare(x, axis):
    _expanded_shape(tuple(x.shape), axis)
    return x, axis


@defop("numpy", tensors=("x",), prepare=_expand_dims_prepare)
def expand_dims(x, axis):
    """Insert size-1 dims at ``axis`` (an int or a tuple).  NumPy: ``np.expand_dims``.

    Example:
        >>> polyops.ops.expand_dims(polyops.ops.zeros((2,)), -1).shape
        (2, 1)
    """
    return spec(_expanded_shape(shape_of(x), axis), _promote.preserve((key(x),))[0])


@expand_dims.reference
def _expand_dims_ref(x, axis):
    return reshape(x, _expanded_shape(_shape_of(x), axis))


def _squeeze_prepare(x, axis=None):
    if axis is not None:  # (axis=None: every size-1 dim, nothing to check)
        _squeezed_shape(tuple(x.shape), axis)
    return x, axis


@defop("numpy", tensors=("x",), prepare=_squeeze_prepare)
def squeeze(x, axis=None):
    """Remove size-1 dims (all of them, or those at ``axis``).  NumPy: ``np.squeeze``.

    Example:
        >>> polyops.ops.squeeze(polyops.ops.zeros((1, 2, 1))).shape
        (2,)
    """
    return spec(_squeezed_shape(shape_of(x), axis), _promote.preserve((key(x),))[0])


@squeeze.reference
def _squeeze_ref(x, axis=None):
    return reshape(x, _squeezed_shape(_shape_of(x), axis))


def _concat_prepare(xs, axis=0):
    # The usual call (parts of one rank, an int axis in range) needs only the axis made
    # non-negative: every framework rejects parts whose other dims differ, and the kernel's
    # failure is then reported through this op's rule (`_diagnose`), the same message.
    # Ranks are compared here: torch.cat skips 1-D empty parts instead of rejecting them.
    if xs and type(axis) is int:
        ndim = len(xs[0].shape)
        if ndim and -ndim <= axis < ndim:
            for x in xs:
                if len(x.shape) != ndim:
                    break
            else:
                return xs, axis % ndim
    return xs, _concat_shape([tuple(x.shape) for x in xs], axis)[1]


@defop("numpy", tensors=("xs[]",), promote=_promote.same, prepare=_concat_prepare)
def concatenate(xs, axis=0):
    """Join tensors along an existing axis; dtypes promote together.  NumPy: ``np.concatenate``.

    Symbolically the axis dim is None when any part's is.

    Example:
        >>> polyops.ops.concatenate([polyops.ops.zeros((2,)), polyops.ops.ones((3,))]).shape
        (5,)
    """
    xs = [x if isinstance(x, SymbolicTensor) else spec((), key(x)) for x in xs]
    shape, _ = _concat_shape([x.shape for x in xs], axis)
    return spec(shape, _promote.same(tuple(x.dtype for x in xs))[0])


def _stack_prepare(x, axis=0):
    if not x:
        raise ValueError("stack: expected at least one tensor, got none")
    canonicalize_axis(axis, len(x[0].shape) + 1, "stack")
    return x, axis


@defop("numpy", tensors=("x[]",), promote=_promote.same, prepare=_stack_prepare)
def stack(x, axis=0):
    """Join tensors along a new axis.  NumPy: ``np.stack``.

    Example:
        >>> polyops.ops.stack([polyops.ops.zeros((2,)), polyops.ops.ones((2,))], axis=1).shape
        (2, 2)
    """
    xs = [t if isinstance(t, SymbolicTensor) else spec((), key(t)) for t in x]
    if not xs:
        raise ValueError("stack: expected at least one tensor, got none")
    shapes = [t.shape for t in xs]
    ndim = len(shapes[0])
    if builtins.any(len(s) != ndim for s in shapes):
        raise ValueError(f"stack: expected tensors of equal shape, got shapes {shapes}")
    base = []
    for dims in zip(*shapes):
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ValueError(f"stack: expected tensors of equal shape, got shapes {shapes}")
        base.append(known.pop() if known else None)
    axis = canonicalize_axis(axis, ndim + 1, "stack")
    shape = tuple(base[:axis]) + (len(xs),) + tuple(base[axis:])
    return spec(shape, _promote.same(tuple(t.dtype for t in xs))[0])


@stack.reference
def _stack_ref(x, axis=0):
    ndim = len(_shape_of(x[0])) + 1
    axis = canonicalize_axis(axis, ndim, "stack")
    return concatenate([expand_dims(t, axis) for t in x], axis)


def _broadcast_to_prepare(x, shape):
    shape = normalize_shape(shape, "broadcast_to")
    _broadcast_check(tuple(x.shape), shape)
    return x, shape


@defop("numpy", tensors=("x",), prepare=_broadcast_to_prepare)
def broadcast_to(x, shape):
    """Broadcast a tensor to a new shape.  NumPy: ``np.broadcast_to``.

    Example:
        >>> polyops.ops.broadcast_to(polyops.ops.arange(3), (2, 3)).shape
        (2, 3)
    """
    shape = normalize_shape(shape, "broadcast_to")
    _broadcast_check(shape_of(x), shape)
    return spec(shape, _promote.preserve((key(x),))[0])


def _flip_prepare(x, axis=None):
    canonicalize_axes(axis, len(x.shape), "flip")
    return x, axis


@defop("numpy", tensors=("x",), prepare=_flip_prepare)
def flip(x, axis=None):
    """Reverse the order of elements along ``axis`` (None: all axes).  NumPy: ``np.flip``.

    Example:
        >>> polyops.ops.flip(polyops.ops.arange(3))
        array([2, 1, 0], dtype=int32)
    """
    canonicalize_axes(axis, len(shape_of(x)), "flip")
    return spec(shape_of(x), _promote.preserve((key(x),))[0])


@flip.reference
def _flip_ref(x, axis=None):
    shape = _shape_of(x)
    axes = canonicalize_axes(axis, len(shape), "flip")
    for a in range(len(shape)) if axes is None else axes:
        x = take(x, arange(shape[a] - 1, -1, -1), a)
    return x


def _take_promote_fn(keys):
    (x,) = _promote.preserve((keys[0],))
    if keys[1] not in _dtypes.INT_TYPES and keys[1] != "int":
        raise TypeError(f"take: expected integer indices, got dtype {keys[1]}")
    return x, "int32"


_take_promote = _promote.cached(_take_promote_fn)


def _take_prepare(x, indices, axis=None):
    shape = tuple(x.shape)
    if axis is None:
        n = None if None in shape else math.prod(shape)
        check_index("take", indices, n, f"for the flattened input of size {n}")
    else:
        axis = canonicalize_axis(axis, len(shape), "take")
        check_index("take", indices, shape[axis], f"for axis {axis} of size {shape[axis]}")
    return x, indices, axis


@defop("numpy", tensors=("x", "indices"), promote=_take_promote, prepare=_take_prepare, empty=0)
def take(x, indices, axis=None):
    """Take elements along ``axis`` (None: from the flattened tensor).  NumPy: ``np.take``.

    Negative indices count from the end.  An index outside ``[-n, n)`` raises
    `polyops.IndexOutOfRangeError` eagerly; under a trace it reads 0 (docs/numerics.md).

    Example:
        >>> polyops.ops.take(polyops.ops.arange(10, 15), [0, -1])
        array([10, 14], dtype=int32)
    """
    dtype, _ = _take_promote((key(x), key(indices)))
    shape, ishape = shape_of(x), shape_of(indices)
    if axis is None:
        return spec(ishape, dtype)
    axis = canonicalize_axis(axis, len(shape), "take")
    return spec(shape[:axis] + ishape + shape[axis + 1:], dtype)


@defop("numpy", tensors=("x",))
def get_item(x, key):
    """``x[key]`` for basic indices: ints, slices, None and Ellipsis.  NumPy: ``x[key]``.

    Example:
        >>> polyops.ops.get_item(polyops.ops.arange(6), slice(1, None, 2))
        array([1, 3, 5], dtype=int32)
    """
    _, shape = _index_plan(shape_of(x), key)
    return spec(shape, _promote.preserve((x.dtype,))[0])


@get_item.reference
def _get_item_ref(x, key):
    plan, out_shape = _index_plan(_shape_of(x), key)
    for axis, k in plan:
        if isinstance(k, range):
            x = take(x, arange(k.start, k.stop, k.step) if len(k) else arange(0), axis)
        else:
            x = take(x, arange(k, k + 1) if k != -1 else arange(-1, 0), axis)
    return reshape(x, out_shape)


# ===== linear algebra ===============================================================


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul, empty=0)
def matmul(x1, x2):
    """Matrix product with NumPy's 1-D and batch-broadcast rules.  NumPy: ``np.matmul``.

    int8 x int8 accumulates in int32, as in Keras.

    Example:
        >>> polyops.ops.matmul(polyops.ops.ones((2, 3)), polyops.ops.ones((3,))).shape
        (2,)
    """
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    return spec(_matmul_shape(shape_of(x1), shape_of(x2)), dtype)


@defop("numpy", tensors=("x1", "x2"), promote=_promote.matmul, empty=0)
def dot(x1, x2):
    """Dot product: scalars multiply; otherwise contract the last axis of ``x1``
    with the second-to-last of ``x2`` (the last when ``x2`` is 1-D).  NumPy: ``np.dot``.

    Example:
        >>> polyops.ops.dot(polyops.ops.ones((2, 3)), polyops.ops.ones((4, 3, 5))).shape
        (2, 4, 5)
    """
    dtype, _ = _promote.matmul((key(x1), key(x2)))
    return spec(_dot_shape(shape_of(x1), shape_of(x2)), dtype)


@dot.reference
def _dot_ref(x1, x2):
    a, b = _shape_of(x1), _shape_of(x2)
    if not a or not b:
        return multiply(x1, x2)
    if len(a) == 1 or len(b) == 1:
        return matmul(x1, x2)
    letters = "abcdefghijklmnopqrstuvwxyz"
    la = letters[: len(a) - 1]
    lb = letters[len(a) - 1: len(a) + len(b) - 3]
    last = letters[len(a) + len(b) - 3]
    return einsum(f"{la}z,{lb}z{last}->{la}{lb}{last}", x1, x2)


@defop("numpy", tensors=("operands",), promote=_promote.matmul, empty=0)
def einsum(subscripts, *operands):
    """Einstein summation over the operands.  NumPy: ``np.einsum``.

    Example:
        >>> polyops.ops.einsum("ij,jk->ik", polyops.ops.ones((2, 3)), polyops.ops.ones((3, 4))).shape
        (2, 4)
    """
    dtype = _promote.matmul(tuple(key(o) for o in operands))[0] if operands else "float32"
    return spec(_einsum_shape(subscripts, [shape_of(o) for o in operands]), dtype)


from ..core import cast as cast_  # noqa: E402  (core defines cast; numpy refs use it)


__all__ = [
    "Abs", "Add", "All", "Any", "Arange", "Argmax", "Argmin", "BroadcastTo", "Ceil", "Clip",
    "Concatenate", "Cos", "Divide", "Dot", "Einsum", "Equal", "Exp", "ExpandDims", "Eye",
    "Flip", "Floor", "FloorDivide", "Full", "FullLike", "GetItem", "Greater", "GreaterEqual",
    "Less", "LessEqual", "Linspace", "Log", "LogicalAnd", "LogicalNot", "LogicalOr", "Matmul",
    "Max", "Maximum", "Mean", "Min", "Minimum", "Mod", "Multiply", "Negative", "NotEqual",
    "Ones", "OnesLike", "Power", "Prod", "Reshape", "Round", "Sign", "Sin", "Sqrt", "Square",
    "Squeeze", "Stack", "Std", "Subtract", "Sum", "Take", "Tanh", "Transpose", "Var", "Where",
    "Zeros", "ZerosLike", "abs", "absolute", "add", "all", "amax", "amin", "any", "arange",
    "argmax", "argmin", "broadcast_to", "ceil", "clip", "concatenate", "cos", "divide", "dot",
    "einsum", "equal", "exp", "expand_dims", "eye", "flip", "floor", "floor_divide", "full",
    "full_like", "get_item", "greater", "greater_equal", "less", "less_equal", "linspace",
    "log", "logical_and", "logical_not", "logical_or", "matmul", "max", "maximum", "mean",
    "min", "minimum", "mod", "multiply", "negative", "not_equal", "ones", "ones_like", "power",
    "prod", "reshape", "round", "sign", "sin", "sqrt", "square", "squeeze", "stack", "std",
    "subtract", "sum", "take", "tanh", "transpose", "true_divide", "var", "where", "zeros",
    "zeros_like",
]

_finish(globals())
