"""TensorFlow kernels of ``polyops.ops.numpy.logic``: bitwise ops and shifts, bit views,
predicates (isnan, signbit...), closeness, complex parts.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from .._compat import in_xla
from ..core import TF_DTYPES
from ._common import (
    _BOOL,
    _COMPLEX,
    _F32,
    _F64,
    _FLOATS,
    _INT32,
    _INT64,
    _UNSIGNED,
    _host_view,
    _np_scalar,
)

# ===== bitwise ops, shifts, bit views ================================================


def _bitwise(int_fn, bool_fn):
    def kernel(x, y):
        return bool_fn(x, y) if x.dtype == _BOOL else int_fn(x, y)

    return kernel


bitwise_and = _bitwise(tf.bitwise.bitwise_and, tf.logical_and)
bitwise_or = _bitwise(tf.bitwise.bitwise_or, tf.logical_or)
bitwise_xor = _bitwise(tf.bitwise.bitwise_xor, tf.math.logical_xor)


def bitwise_invert(x):
    return tf.logical_not(x) if x.dtype == _BOOL else tf.bitwise.invert(x)


def _shift(fn, sign_fill):
    """Shifts with NumPy's result for counts >= the bit width (C leaves them undefined)."""

    def kernel(x, y):
        bits = x.dtype.size * 8
        out = fn(x, tf.clip_by_value(y, tf.zeros((), y.dtype), tf.constant(bits - 1, y.dtype)))
        if sign_fill and x.dtype not in _UNSIGNED:
            return out  # a count of bits - 1 already gives the sign fill
        return tf.where(y >= bits, tf.zeros((), x.dtype), out)

    return kernel


left_shift = _shift(tf.bitwise.left_shift, False)
right_shift = _shift(tf.bitwise.right_shift, True)


def view(x, dtype):
    """NumPy's ``x.view(dtype)`` with tf.bitcast (which adds or drops a trailing dim)."""
    target = TF_DTYPES[dtype]
    if x.dtype == target:
        return x
    src = tf.uint8 if x.dtype == _BOOL else x.dtype
    dst = tf.uint8 if target == _BOOL else target
    x = tf.cast(x, src) if src != x.dtype else x
    a, b = src.size, dst.size
    shape = x.shape.as_list()
    if a > b:
        out = tf.reshape(tf.bitcast(x, dst), shape[:-1] + [shape[-1] * (a // b)])
    elif a < b:
        out = tf.bitcast(tf.reshape(x, shape[:-1] + [shape[-1] * a // b, b // a]), dst)
    else:
        out = tf.bitcast(x, dst)
    return tf.cast(out, target) if dst != target else out


# ===== predicates, closeness, complex parts =========================================

logical_xor = tf.math.logical_xor


# bit patterns per dtype: (int type, sign bit | 1 = the smallest negative subnormal, quiet NaN)
_NEXT_BITS = {tf.float16: (tf.int16, -(2 ** 15) + 1, 0x7E00),
              tf.bfloat16: (tf.int16, -(2 ** 15) + 1, 0x7FC0)}
_TINY32 = np.float32(np.finfo(np.float32).tiny)


def _subnormal(h):
    """Whether the host array ``h`` (None: not on the host) may hold a float32 subnormal."""
    if h is None:
        return True
    a = np.abs(h)
    return bool(np.logical_and(a < _TINY32, a > 0).any())


@tf.custom_gradient
def _nextafter_xla(x1, x2):
    """The float32 patch below compiled by XLA, with the gradient its selects and tf's
    NextAfter give (issue 21: 25 nodes that do work against tf's 14, this 12): the
    cotangent in x1 where x1 is neither 0 nor x2, in x2 where they are equal."""
    from .elementwise import _summed_to

    zero = tf.constant(0, x1.dtype)
    at0 = tf.equal(x1, zero)
    w1 = tf.where(at0, zero, x1)
    same = tf.equal(w1, x2)

    def grad(g):
        return (_summed_to(tf.where(tf.logical_or(at0, same), zero, g), x1.shape),
                _summed_to(tf.where(same, g, zero), x2.shape))

    return tf.where(same, x2, tf.math.nextafter(w1, x2)), grad


def nextafter(x1, x2):
    # C's nextafter (x2 where x1 == x2), as tf.math.nextafter (float32, float64).  Its
    # float32 kernel is exact on subnormal inputs too, where the reference (and the
    # documented behaviour, tests/test_numpy_logic.py) compares them as the device does
    # (as zero: DAZ on CPU): an x1 equal to 0 (a subnormal, under DAZ) steps from +0, and
    # x1 == x2 (subnormals included) gives x2.  Eagerly, operands without subnormals need
    # neither patch (x2's matter only where x1 is 0 or subnormal).
    d = x1.dtype
    if d is _F64:
        return tf.math.nextafter(x1, x2)
    if d is _F32:
        h1 = _host_view(x1)
        if h1 is not None:
            a = np.abs(h1)
            if not a.min(initial=np.inf) < _TINY32 or not (_subnormal(a) or _subnormal(
                    _host_view(x2))):
                return tf.math.nextafter(x1, x2)
        if in_xla() and x1.shape.is_fully_defined() and x2.shape.is_fully_defined():
            return _nextafter_xla(x1, x2)
        zero = tf.constant(0, d)
        x1 = tf.where(tf.equal(x1, zero), zero, x1)
        return tf.where(tf.equal(x1, x2), x2, tf.math.nextafter(x1, x2))
    # float16 and bfloat16 (no tf kernel) step their bit patterns as core's reference
    it, tiny_neg, qnan = _NEXT_BITS[d]
    bits = tf.bitcast(x1, it)
    up = tf.greater(x2, x1)
    # sign-magnitude bits: the magnitude grows when moving away from zero
    grows = tf.equal(up, tf.greater(x1, tf.constant(0, d)))
    one = tf.constant(1, it)
    out = tf.where(grows, tf.add(bits, one), tf.subtract(bits, one))
    # from +-0: the smallest subnormal, signed like the direction
    out = tf.where(tf.equal(x1, tf.constant(0, d)), tf.where(up, one, tf.constant(tiny_neg, it)), out)
    out = tf.where(tf.equal(x1, x2), tf.bitcast(x2, it), out)
    unordered = tf.logical_or(tf.not_equal(x1, x1), tf.not_equal(x2, x2))
    return tf.bitcast(tf.where(unordered, tf.constant(qnan, it), out), d)


def _parts_test(float_fn, combine, other):
    """A predicate: ``float_fn`` on floats, ``combine`` of it on a complex number's two
    parts (NumPy's rule), the constant ``other`` for ints and bools."""

    def kernel(x):
        d = x.dtype
        if d in _FLOATS:
            return float_fn(x)
        if d in _COMPLEX:
            return combine(float_fn(tf.math.real(x)), float_fn(tf.math.imag(x)))
        return tf.fill(tf.shape(x), tf.constant(other, _BOOL))

    kernel.__name__ = kernel.__qualname__ = float_fn.__name__.replace("_", "")
    return kernel


isnan = _parts_test(tf.math.is_nan, tf.logical_or, False)
isinf = _parts_test(tf.math.is_inf, tf.logical_or, False)
isfinite = _parts_test(tf.math.is_finite, tf.logical_and, True)


def _is_signed_inf(value, name):
    def kernel(x):
        if x.dtype in _FLOATS:
            return tf.equal(x, tf.constant(value, x.dtype))
        return tf.zeros(tf.shape(x), _BOOL)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


isposinf = _is_signed_inf(np.inf, "isposinf")
isneginf = _is_signed_inf(-np.inf, "isneginf")


def isreal(x):
    if x.dtype in _COMPLEX:
        return tf.equal(tf.math.imag(x), tf.zeros((), x.dtype.real_dtype))
    return tf.ones(tf.shape(x), _BOOL)


_SIGN_BITS = {tf.bfloat16: tf.int16, tf.float16: tf.int16, tf.float32: _INT32, tf.float64: _INT64}


def signbit(x):
    d = x.dtype
    if d is _BOOL:
        return tf.zeros(tf.shape(x), _BOOL)
    bits = _SIGN_BITS.get(d)
    if bits is None:  # ints
        return tf.less(x, tf.zeros((), d))
    return tf.less(tf.bitcast(x, bits), tf.zeros((), bits))  # -0.0 and negative NaNs too


def isclose(x1, x2, rtol, atol, equal_nan):
    # |x1 - x2| <= atol + rtol * |x2| where x2 is finite, or x1 == x2 (inf == inf);
    # complex magnitudes as np.isclose (a NaN or inf part makes |x2| NaN or inf)
    abs2 = tf.abs(x2)
    rd = abs2.dtype
    within = tf.less_equal(tf.abs(tf.subtract(x1, x2)),
                           tf.add(tf.multiply(abs2, tf.constant(rtol, rd)), tf.constant(atol, rd)))
    out = tf.logical_or(tf.logical_and(within, tf.less(abs2, tf.constant(np.inf, rd))), tf.equal(x1, x2))
    if equal_nan:
        out = tf.logical_or(out, tf.logical_and(tf.not_equal(x1, x1), tf.not_equal(x2, x2)))
    return out


def allclose(x1, x2, rtol, atol, equal_nan):
    return tf.reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    d = x.dtype
    if d in _COMPLEX:  # each part on its own, as NumPy
        return tf.complex(nan_to_num(tf.math.real(x), nan, posinf, neginf),
                          nan_to_num(tf.math.imag(x), nan, posinf, neginf))
    if d not in _FLOATS:
        return x
    # the replacement values as NumPy converts them to x's dtype (overflow gives inf)
    out = tf.where(tf.math.is_nan(x), _np_scalar(nan, d), x)
    out = tf.where(tf.equal(x, tf.constant(np.inf, d)), _np_scalar(posinf, d), out)
    return tf.where(tf.equal(x, tf.constant(-np.inf, d)), _np_scalar(neginf, d), out)


def real(x):
    return tf.math.real(x) if x.dtype in _COMPLEX else x


def imag(x):
    return tf.math.imag(x) if x.dtype in _COMPLEX else tf.zeros_like(x)


def conjugate(x):
    return tf.math.conj(x) if x.dtype in _COMPLEX else x


def angle(x):
    d = x.dtype
    if d in _COMPLEX:
        return tf.math.angle(x)  # atan2(imag, real)
    # pi where the sign bit is set (-0.0 included, as np.arctan2(0, -0.0)), NaN stays
    out = tf.where(signbit(x), tf.constant(np.pi, d), tf.zeros((), d))
    return tf.where(tf.math.is_nan(x), x, out)
