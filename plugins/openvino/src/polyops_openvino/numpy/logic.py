"""OpenVINO kernels of ``polyops.ops.numpy.logic``: float predicates, nan_to_num,
bitwise ops and shifts, and view (a host bit cast)."""

from __future__ import annotations

import numpy as np
import openvino as ov

from polyops.plugin import any_dtype, reference

from .._graph import BF16, T, TracedValueError, const, etype, is_lazy, ops
from .._graph import copy as _copy
from ..core import _np_dtype
from .._graph import run1_dyn
from ._common import _F32, _UNSIGNED, _conv, _cpu_type, _kind, _lt
from .base import _truth


def _xor_build(a, b):
    return ops.logical_xor(_conv(a, T.boolean), _conv(b, T.boolean))


@any_dtype  # (operands of any dtype read as truth values: see base.logical_and)
def logical_xor(x1, x2):
    return run1_dyn(("logical_xor",), _xor_build, _truth(x1), _truth(x2))


# ===== infinities, sign bit =========================================================


def _inf_test(name, inf):
    def build(p):  # (Equal: the CPU plugin's IsInf of one sign took 1.4x as long)
        return ops.equal(p, const(inf, etype(p)))

    key = (name,)

    def kernel(x):
        if _kind(x) != "f":  # (ints and bools are never infinite)
            return np.zeros(x.shape, np.bool_)
        return run1_dyn(key, build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


isneginf = _inf_test("isneginf", -np.inf)
isposinf = _inf_test("isposinf", np.inf)


def _signbit_build(p):
    u = _cpu_type(p)
    return _lt(u, const(0, etype(u)))


def signbit(x):
    kind = _kind(x)
    if kind == "f":
        if is_lazy(x):  # (no node reads a float's sign bit: core's view, which raises)
            return reference("signbit")(x)
        # the bits on the host, as core's view does (-0.0 and negative NaNs included)
        return np.signbit(x.astype(np.float32) if x.dtype.kind == "V" else x)
    if kind in "bu":
        return np.zeros(x.shape, np.bool_)
    return run1_dyn(("signbit",), _signbit_build, x)


# ===== bitwise ops, shifts, bit views ===============================================


def _bitwise(name, int_fn, bool_fn):
    def build(a, b):
        return bool_fn(a, b) if etype(a) == T.boolean else int_fn(a, b)

    key = (name,)

    def kernel(x, y):
        return run1_dyn(key, build, x, y)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


bitwise_and = _bitwise("bitwise_and", ops.bitwise_and, ops.logical_and)
bitwise_or = _bitwise("bitwise_or", ops.bitwise_or, ops.logical_or)
bitwise_xor = _bitwise("bitwise_xor", ops.bitwise_xor, ops.logical_xor)


def _invert_build(x):
    return ops.logical_not(x) if etype(x) == T.boolean else ops.bitwise_not(x)


def bitwise_invert(x):
    return run1_dyn(("bitwise_invert",), _invert_build, x)


def _shift(name, fn, sign_fill):
    """Shifts with NumPy's result for counts >= the bit width (C leaves them undefined)."""

    def build(a, b):
        t = etype(a)
        bits = a.get_output_element_type(0).bitwidth if isinstance(a, ov.Node) else t.bitwidth
        count = ops.minimum(ops.maximum(b, const(0, t)), const(bits - 1, t))
        out = fn(a, count)
        if sign_fill and t not in _UNSIGNED:
            return out  # a count of bits - 1 already gives the sign fill
        return ops.select(ops.logical_not(_lt(b, const(bits, t))), const(0, t), out)

    key = (name,)

    def kernel(x, y):
        return run1_dyn(key, build, x, y)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


left_shift = _shift("left_shift", ops.bitwise_left_shift, False)
right_shift = _shift("right_shift", ops.bitwise_right_shift, True)


def view(x, dtype):
    """A bit cast needs no model: eager OpenVINO tensors are host arrays, reinterpreted here."""
    if is_lazy(x):
        return x.view(dtype)  # raises TracedValueError: no bitcast node to record
    return np.array(x, order="C").view(_np_dtype(dtype))  # a C-ordered copy (0-d stays 0-d)


# ===== float predicates =============================================================


_F32_MAX = float(np.finfo(np.float32).max)


def nextafter(x1, x2):
    if x1.dtype == np.float64 and not is_lazy(x1) and not is_lazy(x2):
        # on the host: core's reference steps the int64 bit pattern, which the CPU plugin
        # would compute in 32 bits (see _graph._NARROW)
        return np.nextafter(x1, x2)
    return reference("nextafter")(x1, x2)


def _fconst(value, t):
    """``value`` rounded once to the float type ``t`` (as NumPy casts a Python float)."""
    with np.errstate(over="ignore"):
        if t == T.bf16:
            return ops.convert(const(np.asarray(np.asarray(value, BF16), np.float32), _F32), t)
        return const(value, t)


def _float_pred(name, fn, other):
    """A float predicate node ``fn``; ``other`` for ints and bools (no model needed)."""
    def build(x):
        return fn(_cpu_type(x))

    key = (name,)

    def kernel(x):
        if _kind(x) != "f":
            return np.full(np.shape(x), other, np.bool_)
        return run1_dyn(key, build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


isnan = _float_pred("isnan", ops.is_nan, False)
isinf = _float_pred("isinf", ops.is_inf, False)
isfinite = _float_pred("isfinite", ops.is_finite, True)


def _nan_to_num_build(nan, posinf, neginf):
    def build(x):
        t = etype(x)
        u = _cpu_type(x)
        ut = etype(u)

        def c(v):  # v rounded once to x's dtype, then exact in the compute type
            return _conv(_fconst(v, t), ut) if t != ut else _fconst(v, t)

        out = ops.select(ops.is_nan(u), c(nan), u)
        out = ops.select(ops.equal(u, const(np.inf, ut)), c(posinf), out)
        out = ops.select(ops.equal(u, const(-np.inf, ut)), c(neginf), out)
        return _conv(out, t)

    return build


def nan_to_num(x, nan, posinf, neginf):
    if _kind(x) != "f":
        return _copy(x)
    if x.dtype == np.float64:
        # on the host, every bit kept: float64's default posinf (1.8e308) has no f32 value
        if is_lazy(x):
            if any(np.isfinite(v) and abs(v) > _F32_MAX for v in (nan, posinf, neginf)):
                raise TracedValueError("nan_to_num: a float64 replacement beyond float32's "
                                       "range is exact only eagerly (on the host)")
            return run1_dyn(("nan_to_num", repr((nan, posinf, neginf))),
                            _nan_to_num_build(nan, posinf, neginf), x)
        v = [np.asarray(a, np.float64) for a in (nan, posinf, neginf)]
        out = np.where(np.isnan(x), v[0], x)
        return np.where(x == np.inf, v[1], np.where(x == -np.inf, v[2], out))
    key = ("nan_to_num", repr((nan, posinf, neginf)))
    return run1_dyn(key, _nan_to_num_build(nan, posinf, neginf), x)
