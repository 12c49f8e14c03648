"""Activations (relu, gelu, softmax...): elementwise and along-an-axis nonlinearities.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _promote
from ..._op import defop
from ..._shapes import canonicalize_axis
from .._base import check_tensor, key, shape_of, spec, unary
from .._base import finish as _finish
from ..core import cast
from ..core import dtype as _dtype
from ..core import shape as _shape
from ..numpy import (absolute, add, arange, cumsum, divide, exp, expm1, greater, greater_equal,
                     less, less_equal, log, log1p, max, maximum, minimum, multiply, negative,
                     reshape, sort, split, sqrt, square, subtract, sum, tanh, where)

relu = unary("relu", family="nn", promote=_promote.ordered(_promote.numeric), doc=(
    "Rectified linear unit, ``max(x, 0)``.  Keras: ``keras.ops.relu``.\n\n"
    "Example:\n    >>> polyops.ops.relu(polyops.ops.convert_to_tensor([-1.0, 2.0]))\n    array([0., 2.], dtype=float32)"))


@relu.reference
def _relu_ref(x):
    return maximum(x, 0)


sigmoid = unary("sigmoid", family="nn", promote=_promote.floating, compute="float32", doc=(
    "Logistic sigmoid, ``1 / (1 + exp(-x))``.  Keras: ``keras.ops.sigmoid``.\n\n"
    "Example:\n    >>> polyops.ops.sigmoid(polyops.ops.zeros((1,)))\n    array([0.5], dtype=float32)"))


@sigmoid.reference
def _sigmoid_ref(x):
    return divide(1, add(1, exp(negative(x))))


def _softmax_prepare(x, axis=-1):
    return x, canonicalize_axis(axis, len(x.shape), "softmax")


@defop("nn", tensors=("x",), promote=_promote.floating, prepare=_softmax_prepare, compute="float32")
def softmax(x, axis=-1):
    """Softmax along ``axis``: ``exp(x) / sum(exp(x))``, computed stably.

    Keras: ``keras.ops.softmax``.

    Example:
        >>> polyops.ops.softmax(polyops.ops.zeros((2,)))
        array([0.5, 0.5], dtype=float32)
    """
    canonicalize_axis(axis, len(shape_of(x)), "softmax")
    return spec(shape_of(x), _promote.floating((key(x),))[0])


@softmax.reference
def _softmax_ref(x, axis=-1):
    # initial=-inf keeps a zero-size axis legal (max of nothing); it never changes a max.
    e = exp(subtract(x, max(x, (axis,), True, float("-inf"))))
    return divide(e, sum(e, (axis,), True))


# ===== helpers =========================================================================
# Ops declared with compute="float32" get their 16-bit floats widened by the entry; the
# piecewise-linear ops (relu6, hard_tanh, the shrinks, threshold) are exact in any dtype
# and do not declare it.

_FLOAT = _promote.ordered(_promote.floating)
_NUMERIC = _promote.ordered(_promote.numeric)


def _real(op: str, name: str, value) -> float:
    """A static real number argument (threshold, alpha...) as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: expected a real number for {name}, got {name}={value!r}")
    return float(value)


def _flag(op: str, name: str, value) -> bool:
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{op}: expected a bool for {name}, got {name}={value!r}")


def _float_rule(op: str, x):
    """The spec of a floating elementwise activation (ints and bools -> floatx)."""
    check_tensor(op, "x", x)
    try:
        (dt,) = _FLOAT((key(x),))
    except _promote.PromotionError as exc:
        raise TypeError(f"{op}: {exc}") from None
    return spec(shape_of(x), dt)


def _softplus(x):
    """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)); NaN propagates."""
    return add(maximum(x, 0), log1p(exp(negative(absolute(x)))))


# ===== elementwise activations ==========================================================
# Kernel contract (the ops without static arguments): kernel(x) gets one tensor, already
# floating (ints and bools -> floatx; relu6 keeps ints), and returns x's shape and dtype.

relu6 = unary("relu6", family="nn", promote=_NUMERIC, doc=(
    "Rectified linear unit capped at 6, ``min(max(x, 0), 6)``.  Keras: ``keras.ops.relu6``.\n\n"
    "PyTorch ``torch.nn.functional.relu6``, JAX ``jax.nn.relu6``.  Integer inputs keep their\n"
    "dtype (bool -> int32), as ``relu``; floats keep theirs; NaN propagates.\n\n"
    "Example:\n    >>> polyops.ops.relu6(polyops.ops.convert_to_tensor([-1.0, 3.0, 8.0]))\n    array([0., 3., 6.], dtype=float32)"))


@relu6.reference
def _relu6_ref(x):
    return minimum(maximum(x, 0), 6)


sparse_sigmoid = unary("sparse_sigmoid", family="nn", promote=_FLOAT, doc=(
    "Sparse sigmoid: 0 for ``x <= -1``, 1 for ``x >= 1``, ``(x + 1) / 2`` between.\n\n"
    "Keras: ``keras.ops.sparse_sigmoid``; JAX ``jax.nn.sparse_sigmoid``.  Ints and bools ->\n"
    "floatx; NaN propagates.\n\n"
    "Example:\n    >>> polyops.ops.sparse_sigmoid(polyops.ops.convert_to_tensor([-2.0, 0.0, 0.5]))\n    array([0.  , 0.5 , 0.75], dtype=float32)"))


@sparse_sigmoid.reference
def _sparse_sigmoid_ref(x):
    return where(less_equal(x, -1), 0.0, where(greater_equal(x, 1), 1.0, multiply(0.5, add(x, 1))))


softplus = unary("softplus", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Softplus, ``log(1 + exp(x))``, computed as ``max(x, 0) + log1p(exp(-|x|))`` so large\n"
    "``|x|`` never overflows (softplus(inf) = inf, softplus(-inf) = 0).\n\n"
    "Keras: ``keras.ops.softplus``; NumPy ``np.logaddexp(x, 0)``, PyTorch\n"
    "``torch.nn.functional.softplus``.  Ints and bools -> floatx; float16/bfloat16 compute\n"
    "in float32.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.softplus(polyops.ops.zeros((1,))), 4)\n    array([0.6931], dtype=float32)"))


@softplus.reference
def _softplus_ref(x):
    return _softplus(x)


softsign = unary("softsign", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Softsign, ``x / (1 + |x|)``.  Keras: ``keras.ops.softsign``; PyTorch\n"
    "``torch.nn.functional.softsign``, JAX ``jax.nn.soft_sign``.\n\n"
    "Computed with that formula as every Keras backend does, so ``softsign(+-inf)`` is NaN.\n"
    "Ints and bools -> floatx.\n\n"
    "Example:\n    >>> polyops.ops.softsign(polyops.ops.convert_to_tensor([1.0, -3.0]))\n    array([ 0.5 , -0.75], dtype=float32)"))


@softsign.reference
def _softsign_ref(x):
    return divide(x, add(1, absolute(x)))


def _shrink_prepare_for(op):
    def prepare(x, threshold=0.5):
        return x, _real(op, "threshold", threshold)

    return prepare


# Kernel contract: soft_shrink(x, threshold) -- x floating, threshold a Python float;
# returns x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_shrink_prepare_for("soft_shrink"))
def soft_shrink(x, threshold=0.5):
    """Soft shrinkage: ``x - threshold`` above ``threshold``, ``x + threshold`` below
    ``-threshold``, 0 between.

    Keras: ``keras.ops.soft_shrink``; PyTorch ``torch.nn.functional.softshrink``.  Ints and
    bools -> floatx.  NaN propagates (Keras's NumPy backend maps NaN to 0; PyTorch keeps it).

    Example:
        >>> polyops.ops.soft_shrink(polyops.ops.convert_to_tensor([-1.0, 0.2, 2.0]))
        array([-0.5,  0. ,  1.5], dtype=float32)
    """
    _real("soft_shrink", "threshold", threshold)
    return _float_rule("soft_shrink", x)


@soft_shrink.reference
def _soft_shrink_ref(x, threshold=0.5):
    return where(greater(x, threshold), subtract(x, threshold),
                 where(greater_equal(x, -threshold), 0.0, add(x, threshold)))


sparse_plus = unary("sparse_plus", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Sparse plus: 0 for ``x <= -1``, ``(x + 1)**2 / 4`` for ``-1 < x < 1``, ``x`` for\n"
    "``x >= 1``.  Keras: ``keras.ops.sparse_plus``; JAX ``jax.nn.sparse_plus``.  Ints and\n"
    "bools -> floatx; NaN propagates.\n\n"
    "Example:\n    >>> polyops.ops.sparse_plus(polyops.ops.convert_to_tensor([-2.0, 0.0, 2.0]))\n    array([0.  , 0.25, 2.  ], dtype=float32)"))


@sparse_plus.reference
def _sparse_plus_ref(x):
    q = multiply(0.25, square(add(x, 1)))
    return where(less_equal(x, -1), 0.0, where(less(x, 1), q, x))


silu = unary("silu", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Sigmoid linear unit (swish), ``x * sigmoid(x)``.  Keras: ``keras.ops.silu`` (alias\n"
    "``swish``); PyTorch ``torch.nn.functional.silu``, JAX ``jax.nn.silu``.\n\n"
    "Computed with that formula as the Keras backends do, so ``silu(-inf)`` is NaN.  Ints and\n"
    "bools -> floatx; float16/bfloat16 compute in float32.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.silu(polyops.ops.convert_to_tensor([0.0, 1.0])), 4)\n    array([0.    , 0.7311], dtype=float32)"))


@silu.reference
def _silu_ref(x):
    return multiply(x, sigmoid(x))


swish = silu


def _squareplus_prepare(x, b=4):
    return x, _real("squareplus", "b", b)


# Kernel contract: squareplus(x, b) -- x floating, b a Python float; x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_squareplus_prepare, compute="float32")
def squareplus(x, b=4):
    """Squareplus, ``(x + sqrt(x**2 + b)) / 2``.

    Keras: ``keras.ops.squareplus``; JAX ``jax.nn.squareplus``.  Ints and bools -> floatx;
    float16/bfloat16 compute in float32.  ``squareplus(-inf)`` is NaN (inf - inf), as in Keras.

    Example:
        >>> polyops.ops.squareplus(polyops.ops.zeros((1,)))
        array([1.], dtype=float32)
    """
    _real("squareplus", "b", b)
    return _float_rule("squareplus", x)


@squareplus.reference
def _squareplus_ref(x, b=4):
    return multiply(0.5, add(x, sqrt(add(square(x), b))))


log_sigmoid = unary("log_sigmoid", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Log of the sigmoid, ``-softplus(-x)``, computed as ``min(x, 0) - log1p(exp(-|x|))``\n"
    "so that large ``|x|`` neither overflows nor loses the tail (log_sigmoid(-inf) = -inf).\n\n"
    "Keras: ``keras.ops.log_sigmoid``; PyTorch ``torch.nn.functional.logsigmoid``, JAX\n"
    "``jax.nn.log_sigmoid``.  Ints and bools -> floatx; float16/bfloat16 compute in float32.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.log_sigmoid(polyops.ops.zeros((1,))), 4)\n    array([-0.6931], dtype=float32)"))


@log_sigmoid.reference
def _log_sigmoid_ref(x):
    return subtract(minimum(x, 0), log1p(exp(negative(absolute(x)))))


def _leaky_relu_prepare(x, negative_slope=0.2):
    return x, _real("leaky_relu", "negative_slope", negative_slope)


# Kernel contract: leaky_relu(x, negative_slope) -- x floating, negative_slope a Python
# float; x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_leaky_relu_prepare, compute="float32")
def leaky_relu(x, negative_slope=0.2):
    """Leaky ReLU: ``x`` for ``x >= 0``, ``negative_slope * x`` below.

    Keras: ``keras.ops.leaky_relu``; PyTorch ``torch.nn.functional.leaky_relu``, JAX
    ``jax.nn.leaky_relu`` (the same ``where`` form, right for any slope; Keras's NumPy
    backend takes ``max(x, slope * x)``, which differs for slopes above 1).  Ints and
    bools -> floatx; NaN propagates.

    Example:
        >>> polyops.ops.leaky_relu(polyops.ops.convert_to_tensor([-1.0, 2.0]))
        array([-0.2,  2. ], dtype=float32)
    """
    _real("leaky_relu", "negative_slope", negative_slope)
    return _float_rule("leaky_relu", x)


@leaky_relu.reference
def _leaky_relu_ref(x, negative_slope=0.2):
    return where(greater_equal(x, 0), x, multiply(x, negative_slope))


hard_sigmoid = unary("hard_sigmoid", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Hard sigmoid, ``clip(x / 6 + 0.5, 0, 1)``.  Keras: ``keras.ops.hard_sigmoid``; PyTorch\n"
    "``torch.nn.functional.hardsigmoid``, JAX ``jax.nn.hard_sigmoid`` (``relu6(x + 3) / 6``).\n"
    "Ints and bools -> floatx; NaN propagates.\n\n"
    "Example:\n    >>> polyops.ops.hard_sigmoid(polyops.ops.convert_to_tensor([-4.0, 0.0, 1.2]))\n    array([0. , 0.5, 0.7], dtype=float32)"))


def _hard_sigmoid(x):
    y = add(divide(x, 6.0), 0.5)
    return where(less_equal(y, 0), 0.0, where(greater_equal(y, 1), 1.0, y))


@hard_sigmoid.reference
def _hard_sigmoid_ref(x):
    return _hard_sigmoid(x)


hard_silu = unary("hard_silu", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Hard SiLU (hard swish), ``x * hard_sigmoid(x)``.  Keras: ``keras.ops.hard_silu`` (alias\n"
    "``hard_swish``); PyTorch ``torch.nn.functional.hardswish``, JAX ``jax.nn.hard_silu``.\n"
    "Ints and bools -> floatx; ``hard_silu(-inf)`` is NaN (-inf * 0), as in Keras.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.hard_silu(polyops.ops.convert_to_tensor([-1.0, 3.0])), 4)\n    array([-0.3333,  3.    ], dtype=float32)"))


@hard_silu.reference
def _hard_silu_ref(x):
    return multiply(x, _hard_sigmoid(x))


hard_swish = hard_silu


def _alpha_prepare_for(op):
    def prepare(x, alpha=1.0):
        return x, _real(op, "alpha", alpha)

    return prepare


# Kernel contract: elu(x, alpha) -- x floating, alpha a Python float; x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_alpha_prepare_for("elu"), compute="float32")
def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` for ``x >= 0``, ``alpha * (exp(x) - 1)`` below.

    Keras: ``keras.ops.elu``; PyTorch ``torch.nn.functional.elu``, JAX ``jax.nn.elu``.
    Ints and bools -> floatx; float16/bfloat16 compute in float32; NaN propagates.

    Example:
        >>> polyops.ops.round(polyops.ops.elu(polyops.ops.convert_to_tensor([-1.0, 1.0])), 4)
        array([-0.6321,  1.    ], dtype=float32)
    """
    _real("elu", "alpha", alpha)
    return _float_rule("elu", x)


def _elu(x, alpha):
    return where(greater_equal(x, 0), x, multiply(alpha, expm1(minimum(x, 0))))


@elu.reference
def _elu_ref(x, alpha=1.0):
    return _elu(x, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

selu = unary("selu", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Scaled ELU, ``scale * elu(x, alpha)`` with alpha = 1.6732632..., scale = 1.0507009...\n\n"
    "Keras: ``keras.ops.selu``; PyTorch ``torch.nn.functional.selu``, JAX ``jax.nn.selu``.\n"
    "Ints and bools -> floatx; float16/bfloat16 compute in float32.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.selu(polyops.ops.convert_to_tensor([1.0])), 4)\n    array([1.0507], dtype=float32)"))


@selu.reference
def _selu_ref(x):
    return multiply(_SELU_SCALE, _elu(x, _SELU_ALPHA))


def _gelu_prepare(x, approximate=True):
    return x, _flag("gelu", "approximate", approximate)


# Kernel contract: gelu(x, approximate) -- x floating, approximate a Python bool (True:
# the tanh form, False: the exact erf form); x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_gelu_prepare, compute="float32")
def gelu(x, approximate=True):
    """Gaussian error linear unit.

    ``approximate=True`` (the default, as in Keras): the tanh form
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``; ``approximate=False``:
    the exact ``x * (1 + erf(x / sqrt(2))) / 2``.  Keras: ``keras.ops.gelu``; PyTorch
    ``torch.nn.functional.gelu(x, approximate="tanh" | "none")``, JAX ``jax.nn.gelu``.
    Ints and bools -> floatx; float16/bfloat16 compute in float32.  ``gelu(-inf)`` is NaN
    (-inf * 0), as in Keras.

    Example:
        >>> y = polyops.ops.gelu(polyops.ops.convert_to_tensor([1.0]), approximate=False)
        >>> polyops.ops.round(y, 4)
        array([0.8413], dtype=float32)
    """
    _flag("gelu", "approximate", approximate)
    return _float_rule("gelu", x)


@gelu.reference
def _gelu_ref(x, approximate=True):
    if approximate:
        inner = multiply(math.sqrt(2 / math.pi), add(x, multiply(0.044715, multiply(x, square(x)))))
        y = multiply(multiply(0.5, x), add(1, tanh(inner)))
    else:
        from ..math import erf

        y = multiply(multiply(0.5, x), add(1, erf(multiply(x, math.sqrt(0.5)))))
    return y


def _celu_prepare(x, alpha=1.0):
    return x, _celu_alpha(alpha)


def _celu_alpha(alpha):
    a = _real("celu", "alpha", alpha)
    if a == 0:
        raise ValueError(f"celu: alpha must be nonzero (x / alpha), got alpha={alpha!r}")
    return a


# Kernel contract: celu(x, alpha) -- x floating, alpha a nonzero Python float; x's shape
# and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_celu_prepare, compute="float32")
def celu(x, alpha=1.0):
    """Continuously differentiable ELU, ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    Keras: ``keras.ops.celu``; PyTorch ``torch.nn.functional.celu``, JAX ``jax.nn.celu``.
    ``alpha=0`` raises ValueError.  Ints and bools -> floatx; float16/bfloat16 compute in
    float32; NaN propagates.

    Example:
        >>> polyops.ops.round(polyops.ops.celu(polyops.ops.convert_to_tensor([-1.0, 1.0])), 4)
        array([-0.6321,  1.    ], dtype=float32)
    """
    _celu_alpha(alpha)
    return _float_rule("celu", x)


@celu.reference
def _celu_ref(x, alpha=1.0):
    return add(maximum(x, 0), multiply(alpha, expm1(divide(minimum(x, 0), alpha))))


tanh_shrink = unary("tanh_shrink", family="nn", promote=_FLOAT, compute="float32", doc=(
    "Tanh shrink, ``x - tanh(x)``.  Keras: ``keras.ops.tanh_shrink``; PyTorch\n"
    "``torch.nn.functional.tanhshrink``.  Ints and bools -> floatx; float16/bfloat16 compute\n"
    "in float32.\n\n"
    "Example:\n    >>> polyops.ops.round(polyops.ops.tanh_shrink(polyops.ops.convert_to_tensor([1.0])), 4)\n    array([0.2384], dtype=float32)"))


@tanh_shrink.reference
def _tanh_shrink_ref(x):
    return subtract(x, tanh(x))


hard_tanh = unary("hard_tanh", family="nn", promote=_FLOAT, doc=(
    "Hard tanh, ``clip(x, -1, 1)``.  Keras: ``keras.ops.hard_tanh``; PyTorch\n"
    "``torch.nn.functional.hardtanh``, JAX ``jax.nn.hard_tanh``.  Ints and bools -> floatx;\n"
    "NaN propagates.\n\n"
    "Example:\n    >>> polyops.ops.hard_tanh(polyops.ops.convert_to_tensor([-2.0, 0.5]))\n    array([-1. ,  0.5], dtype=float32)"))


@hard_tanh.reference
def _hard_tanh_ref(x):
    return where(less(x, -1), -1.0, where(greater(x, 1), 1.0, x))


# Kernel contract: hard_shrink(x, threshold) -- x floating, threshold a Python float;
# x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_shrink_prepare_for("hard_shrink"))
def hard_shrink(x, threshold=0.5):
    """Hard shrinkage: ``x`` where ``|x| > threshold``, else 0.

    Keras: ``keras.ops.hard_shrink``; PyTorch ``torch.nn.functional.hardshrink``.  Ints and
    bools -> floatx.  NaN propagates (Keras's NumPy backend maps NaN to 0; PyTorch keeps it).

    Example:
        >>> polyops.ops.hard_shrink(polyops.ops.convert_to_tensor([-1.0, 0.2]))
        array([-1.,  0.], dtype=float32)
    """
    _real("hard_shrink", "threshold", threshold)
    return _float_rule("hard_shrink", x)


@hard_shrink.reference
def _hard_shrink_ref(x, threshold=0.5):
    return where(less_equal(absolute(x), threshold), 0.0, x)


def _threshold_prepare(x, threshold, default_value):
    return (x, _real("threshold", "threshold", threshold),
            _real("threshold", "default_value", default_value))


# Kernel contract: threshold(x, threshold, default_value) -- x floating, the two others
# Python floats; x's shape and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_threshold_prepare)
def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``.

    Keras: ``keras.ops.threshold``; PyTorch ``torch.nn.functional.threshold``.  Ints and
    bools -> floatx.  NaN propagates (Keras's backends map NaN to ``default_value``).

    Example:
        >>> polyops.ops.threshold(polyops.ops.convert_to_tensor([-1.0, 2.0]), 0.0, 5.0)
        array([5., 2.], dtype=float32)
    """
    _real("threshold", "threshold", threshold)
    _real("threshold", "default_value", default_value)
    return _float_rule("threshold", x)


@threshold.reference
def _threshold_ref(x, threshold, default_value):
    return where(less_equal(x, threshold), default_value, x)


# ===== activations along an axis ========================================================


def _glu_check(x_shape, axis):
    ax = canonicalize_axis(axis, len(x_shape), "glu")
    n = x_shape[ax]
    if n is not None and n % 2:
        raise ValueError(f"glu: the size of axis={axis} must be even (it is split in two halves), "
                         f"got shape {tuple(x_shape)}")
    return ax


def _glu_prepare(x, axis=-1):
    return x, _glu_check(tuple(x.shape), axis)


# Kernel contract: glu(x, axis) -- x floating, axis a non-negative int whose size is even;
# returns x's shape with that axis halved, in x's dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_glu_prepare, compute="float32")
def glu(x, axis=-1):
    """Gated linear unit: splits ``x`` in two halves ``a, b`` along ``axis`` and returns
    ``a * sigmoid(b)``.

    Keras: ``keras.ops.glu``; PyTorch ``torch.nn.functional.glu``, JAX ``jax.nn.glu``.  The
    axis size must be even (ValueError otherwise).  Ints and bools -> floatx; float16/bfloat16
    compute in float32.

    Example:
        >>> polyops.ops.glu(polyops.ops.convert_to_tensor([1.0, 0.0]))
        array([0.5], dtype=float32)
    """
    out = _float_rule("glu", x)
    shape = list(shape_of(x))
    ax = _glu_check(shape, axis)
    if shape[ax] is not None:
        shape[ax] //= 2
    return spec(tuple(shape), out.dtype)


@glu.reference
def _glu_ref(x, axis=-1):
    a, b = split(x, 2, axis)
    return multiply(a, sigmoid(b))


def _axis_prepare_for(op):
    def prepare(x, axis=-1):
        return x, canonicalize_axis(axis, len(x.shape), op)

    return prepare


# Kernel contract: log_softmax(x, axis) -- x floating, axis a non-negative int; x's shape
# and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_axis_prepare_for("log_softmax"), compute="float32")
def log_softmax(x, axis=-1):
    """Log of the softmax along ``axis``, ``x - max - log(sum(exp(x - max)))`` (stable).

    Keras: ``keras.ops.log_softmax``; SciPy ``scipy.special.log_softmax``, PyTorch
    ``torch.log_softmax``, JAX ``jax.nn.log_softmax``.  Ints and bools -> floatx;
    float16/bfloat16 compute in float32.  As NumPy's formula, an axis holding +inf gives NaN.

    Example:
        >>> polyops.ops.round(polyops.ops.log_softmax(polyops.ops.zeros((2,))), 4)
        array([-0.6931, -0.6931], dtype=float32)
    """
    out = _float_rule("log_softmax", x)
    canonicalize_axis(axis, len(shape_of(x)), "log_softmax")
    return out


@log_softmax.reference
def _log_softmax_ref(x, axis=-1):
    # initial=-inf keeps a zero-size axis legal (max of nothing); it never changes a max.
    s = subtract(x, max(x, (axis,), True, float("-inf")))
    return subtract(s, log(sum(exp(s), (axis,), True)))


# Kernel contract: sparsemax(x, axis) -- x floating, axis a non-negative int; x's shape
# and dtype.
@defop("nn", tensors=("x",), promote=_FLOAT, prepare=_axis_prepare_for("sparsemax"), compute="float32")
def sparsemax(x, axis=-1):
    """Sparsemax along ``axis``: the Euclidean projection of ``x`` onto the probability
    simplex, ``max(x - tau, 0)`` with the threshold ``tau`` chosen so the result sums to 1.

    Keras: ``keras.ops.sparsemax``; the sort-based algorithm of Martins & Astudillo (2016).
    Keras 3's backends compute ``tau`` from the sum of the cumulative sums over the support
    instead of the sum of the support, so their results differ (and do not sum to 1)
    whenever two or more entries are positive; polyops gives the true sparsemax on every
    backend.  Ints and bools -> floatx; float16/bfloat16 compute in float32.

    Example:
        >>> polyops.ops.sparsemax(polyops.ops.convert_to_tensor([1.0, 0.0, -1.0]))
        array([1., 0., 0.], dtype=float32)
    """
    out = _float_rule("sparsemax", x)
    canonicalize_axis(axis, len(shape_of(x)), "sparsemax")
    return out


@sparsemax.reference
def _sparsemax_ref(x, axis=-1):
    shape = tuple(_shape(x))
    n = shape[axis]
    srt = negative(sort(negative(x), axis))  # descending
    csum = cumsum(srt, axis)
    r_shape = [1] * len(shape)
    r_shape[axis] = n
    r = reshape(arange(1, n + 1, dtype=_dtype(x)), tuple(r_shape))
    support = greater(subtract(srt, divide(subtract(csum, 1), r)), 0)
    k = sum(cast(support, _dtype(x)), (axis,), True)
    # support is a prefix of the sorted values: tau = (sum of the top k - 1) / k.  (Keras's
    # backends sum the cumulative sums there instead, which is wrong once k >= 2.)
    tau = divide(subtract(sum(where(support, srt, 0.0), (axis,), True), 1), k)
    return maximum(subtract(x, tau), 0)


__all__ = [
    "Celu", "Elu", "Gelu", "Glu", "HardShrink", "HardSigmoid", "HardSilu", "HardTanh",
    "LeakyRelu", "LogSigmoid", "LogSoftmax", "Relu", "Relu6", "Selu", "Sigmoid", "Silu",
    "SoftShrink", "Softmax", "Softplus", "Softsign", "SparsePlus", "SparseSigmoid",
    "Sparsemax", "Squareplus", "TanhShrink", "Threshold", "celu", "elu", "gelu", "glu",
    "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu",
    "log_sigmoid", "log_softmax", "relu", "relu6", "selu", "sigmoid", "silu", "soft_shrink",
    "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
    "squareplus", "swish", "tanh_shrink", "threshold",
]

_finish(globals())
