"""Activations (relu, gelu, softmax...): elementwise and along-an-axis nonlinearities.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from ... import _promote
from ..._op import defop
from ..._shapes import canonicalize_axis
from .._base import key, shape_of, spec, unary
from ..numpy import add, divide, exp, max, maximum, negative, subtract, sum

relu = unary("relu", family="nn", promote=_promote.ordered(_promote.numeric), doc=(
    "Rectified linear unit, ``max(x, 0)``.  Keras: ``keras.ops.relu``.\n\n"
    "Example:\n    >>> polyops.ops.relu(polyops.ops.convert_to_tensor([-1.0, 2.0]))   # [0., 2.]"))


@relu.reference
def _relu_ref(x):
    return maximum(x, 0)


sigmoid = unary("sigmoid", family="nn", promote=_promote.floating, doc=(
    "Logistic sigmoid, ``1 / (1 + exp(-x))``.  Keras: ``keras.ops.sigmoid``.\n\n"
    "Example:\n    >>> polyops.ops.sigmoid(polyops.ops.zeros((1,)))   # [0.5]"))


@sigmoid.reference
def _sigmoid_ref(x):
    return divide(1, add(1, exp(negative(x))))


def _softmax_prepare(x, axis=-1):
    return x, canonicalize_axis(axis, len(x.shape), "softmax")


@defop("nn", tensors=("x",), promote=_promote.floating, prepare=_softmax_prepare)
def softmax(x, axis=-1):
    """Softmax along ``axis``: ``exp(x) / sum(exp(x))``, computed stably.

    Keras: ``keras.ops.softmax``.

    Example:
        >>> polyops.ops.softmax(polyops.ops.zeros((2,)))   # [0.5, 0.5]
    """
    canonicalize_axis(axis, len(shape_of(x)), "softmax")
    return spec(shape_of(x), _promote.floating((key(x),))[0])


@softmax.reference
def _softmax_ref(x, axis=-1):
    # initial=-inf keeps a zero-size axis legal (max of nothing); it never changes a max.
    e = exp(subtract(x, max(x, (axis,), True, float("-inf"))))
    return divide(e, sum(e, (axis,), True))


from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "nn")
