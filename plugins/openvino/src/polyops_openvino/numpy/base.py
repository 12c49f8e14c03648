"""OpenVINO kernels of ``polyops.ops.numpy.base``: creation, the elementwise and
comparison primitives, reductions, shape and matmul/einsum."""

from __future__ import annotations

import builtins
import math

import numpy as np

from polyops import standardize_dtype
from polyops.plugin import any_dtype

from .._graph import HALF_TYPES, T, axes_const, const, etype, is_lazy, ops, padded, run, run1
from .._graph import run1_dyn, run_dyn
from .._graph import copy as _copy
from ..core import _np_dtype
from ._common import (
    _F32, _FLOAT, _I32, _UNSIGNED, _WIDE_INT, _binary, _binary_build, _bmax, _conv,
    _cpu_type, _eq, _exp, _extremum, _flip, _float_divmod, _int_divmod, _kind, _lt,
    _nan_aware, _nonzero, _reduce_plan, _slice, _unary, _unary_build, _unflip, _bits32, _wide,
    _kept, _move, _reverse, _mean_of, _rounded, _var_of, _float_extreme,
)


# ===== exact helpers (graph level) ==================================================


def _int_power(a, e):
    """Exact wrapping ``a ** e`` for i32/u32 nodes by square-and-multiply over 32 bits."""
    t = etype(a)
    base, ei = _conv(a, _I32), _conv(e, _I32)
    one = const(1, _I32)
    result = None
    for i in range(32):
        bit = ops.convert(ops.bitwise_and(ops.bitwise_right_shift(ei, const(i, _I32)), one), T.boolean)
        factor = ops.select(bit, base, one)
        result = factor if result is None else ops.multiply(result, factor)
        if i < 31:
            base = ops.multiply(base, base)
    return _conv(result, t)


def _tree_reduce(x, shape, axes, out_shape, fn, pad):
    """Reduce ``x`` over ``axes`` by a balanced tree of exact binary ``fn`` nodes."""
    kept = [i for i in range(len(shape)) if i not in axes]
    perm = kept + list(axes)
    if perm != list(range(len(shape))):
        x = ops.transpose(x, axes_const(perm))
    m = math.prod(shape[i] for i in kept)
    n = math.prod(shape[i] for i in axes)
    x = ops.reshape(x, axes_const([m, n]), False)
    t = etype(x)
    while n > 1:
        if n % 2:
            x = ops.concat([x, ops.broadcast(const(pad, t), axes_const([m, 1]))], 1)
            n += 1
        halves = ops.split(x, const(1, T.i64), 2)
        x = fn(halves.output(0), halves.output(1))
        n //= 2
    return ops.reshape(x, axes_const(out_shape), False)


# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    return np.full(shape, fill_value, dtype=_np_dtype(dtype))


def arange(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=_np_dtype(dtype))


# the *_like ops fill on the host, as full (a constant in a model polyops.jit records)
def _like(x, value, dtype):
    return np.full(x.shape, value, x.dtype if dtype is None else _np_dtype(standardize_dtype(dtype)))


def zeros_like(x, dtype):
    return _like(x, 0, dtype)


def ones_like(x, dtype):
    return _like(x, 1, dtype)


def full_like(x, fill_value, dtype):
    if not isinstance(fill_value, (int, float, np.number, np.bool_)):  # (a tensor fill)
        from polyops.plugin import reference

        return reference("full_like")(x, fill_value, dtype)
    return _like(x, fill_value, dtype)


# ===== elementwise ==================================================================


def abs(x):
    if _kind(x) in "bu":
        return _copy(x)
    return run1_dyn(("abs",), _abs_build, x)


_abs_build = _unary_build(ops.abs)


def _neg(x):
    t = etype(x)
    if t in _UNSIGNED:
        return ops.subtract(const(0, t), x)
    return ops.negative(x)


def _sign(x):
    t = etype(x)
    if t in _UNSIGNED:
        return _conv(_nonzero(x), t)
    return ops.sign(x)


negative = _unary("negative", _neg)
exp = _unary("exp", _exp)
log = _unary("log", ops.log)
sqrt = _unary("sqrt", ops.sqrt)
sin = _unary("sin", ops.sin)
cos = _unary("cos", ops.cos)
tanh = _unary("tanh", ops.tanh)
sign = _unary("sign", _sign)
floor = _unary("floor", ops.floor)
ceil = _unary("ceil", ops.ceiling)
square = _unary("square", lambda u: ops.multiply(u, u))  # (multiply's model of x, x)


def _round_build(decimals):
    def build(x):
        t = etype(x)
        if t in _FLOAT:
            # numpy: x * 10**d (or x / 10**-d), rint, undo; each step rounded to x's type
            def narrow(n):
                return _conv(_conv(n, t), _F32) if t in HALF_TYPES else n

            f = narrow(const(10.0 ** builtins.abs(decimals), t))
            y = _conv(x, _F32) if t in HALF_TYPES else x
            if decimals == 0:
                return _conv(ops.round(y, "half_to_even"), t)
            first, second = (ops.multiply, ops.divide) if decimals > 0 else (ops.divide, ops.multiply)
            y = ops.round(narrow(first(y, f)), "half_to_even")
            return _conv(second(y, f), t)
        # integers, decimals < 0: exact round half to even to a multiple of p
        xi = _cpu_type(x)
        ct = etype(xi)
        p = const(10 ** -decimals, ct)
        q, r = _int_divmod(xi, p)
        r2 = _conv(ops.add(r, r), _I32)
        pi = const(10 ** -decimals, _I32)
        odd = ops.convert(ops.bitwise_and(_conv(q, _I32), const(1, _I32)), T.boolean)
        up = ops.logical_or(_lt(pi, r2), ops.logical_and(_eq(r2, pi), odd))
        q = ops.add(q, _conv(ops.convert(up, _I32), ct))
        r = ops.multiply(q, p)
        if t == _I32:  # out of range: INT_MIN, as NumPy's float64 round trip gives on x86
            pw = 10 ** -decimals
            ovf = ops.logical_or(_lt(const((2**31 - 1) // pw, _I32), q), _lt(q, const(-(2**31 // pw), _I32)))
            r = ops.select(ovf, const(-(2**31), _I32), r)
        elif t == T.u32:  # out of range: 0, as NumPy's float64 round trip gives
            ovf = _lt(const((2**32 - 1) // (10 ** -decimals), t), q)
            r = ops.select(ovf, const(0, t), r)
        return _conv(r, t)

    return build


def round(x, decimals):
    kind = _kind(x)
    if kind == "b" or (kind != "f" and decimals >= 0):
        return _copy(x)  # nothing to round (bool is returned as is)
    if decimals <= -10 and kind != "f":  # |x| < 2**32 < 10**10 / 2: everything rounds to 0
        return np.zeros(np.shape(x), x.dtype)
    return run1_dyn(("round", decimals), _round_build(decimals), x)


def _logical(fn):
    def build(a, b):
        return fn(_conv(a, T.boolean), _conv(b, T.boolean))

    return build


add = _binary("add", ops.add)
multiply = _binary("multiply", ops.multiply)


def subtract(x1, x2):
    if x1.dtype == np.bool_:
        raise TypeError("subtract: boolean subtract is not supported (as in numpy); use logical_xor")
    return run1_dyn(("subtract",), _sub_build, x1, x2)


_sub_build = _binary_build(ops.subtract)
divide = _binary("divide", ops.divide)


def _divmod_pick(index):
    def fn(a, b):
        if etype(a) in _FLOAT:
            return _float_divmod(a, b)[index]
        return _int_divmod(a, b)[index]

    return fn


floor_divide = _binary("floor_divide", _divmod_pick(0))
mod = _binary("mod", _divmod_pick(1))


def _power_build(a, e):
    t = etype(a)
    au, eu = _cpu_type(a), _cpu_type(e)
    if t in _FLOAT:
        return [_conv(ops.power(au, eu), t)]
    out = _conv(_int_power(au, eu), t)
    rank = len(e.get_output_partial_shape(0))
    neg = ops.less(eu, const(0, etype(eu)))
    flag = ops.reduce_logical_or(neg, axes_const(range(rank)), False)
    return [out, flag]


def power(x1, x2):
    outs = run_dyn(("power",), _power_build, x1, x2)
    # (a compiled model cannot raise: under polyops.jit a negative exponent is not checked)
    if len(outs) > 1 and _kind(x2) == "i" and not is_lazy(outs[1]) and bool(outs[1]):
        raise ValueError("power: integers to negative integer powers are not allowed")
    return outs[0]


def maximum(x1, x2):
    return run1_dyn(("maximum",), _max_build, x1, x2)


def minimum(x1, x2):
    return run1_dyn(("minimum",), _min_build, x1, x2)


_max_build = _extremum(ops.maximum)
_min_build = _extremum(ops.minimum)


def _clip_build(x, lo, hi):
    return _min_build(_max_build(x, lo), hi)


def clip(x, x_min, x_max):
    if x_min is None or x_max is None:
        from polyops.plugin import reference

        return reference("clip")(x, x_min, x_max)
    # core's minimum(maximum(x, x_min), x_max) in one model (NaN kept as there)
    return run1_dyn(("clip",), _clip_build, x, x_min, x_max)


# ===== comparison and logic =========================================================


def _compare(name, float_fn, int_fn):
    def build(a, b):
        if etype(a) in _WIDE_INT:
            return int_fn(a, b)
        return float_fn(a, b)

    key = (name,)

    def kernel(x1, x2):
        return run1_dyn(key, build, x1, x2)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


equal = _compare("equal", ops.equal, _eq)
not_equal = _compare("not_equal", ops.not_equal, lambda a, b: ops.logical_not(_eq(a, b)))
less = _compare("less", ops.less, _lt)
less_equal = _compare("less_equal", ops.less_equal, lambda a, b: ops.logical_not(_lt(b, a)))
# the CPU plugin's Greater/GreaterEqual are true for NaN operands: swap Less/LessEqual
greater = _compare("greater", lambda a, b: ops.less(b, a), lambda a, b: _lt(b, a))
greater_equal = _compare("greater_equal", lambda a, b: ops.less_equal(b, a),
                         lambda a, b: ops.logical_not(_lt(a, b)))

_and_build = _logical(ops.logical_and)
_or_build = _logical(ops.logical_or)


def _truth(x):
    """``x`` for a model that reads it as truth values (the kernels marked `any_dtype`):
    8-byte floats compared on the host, since the model's float32 stand-in of a float64
    (see _graph._NARROW) reads 1e-300 as 0."""
    if x.dtype.kind == "f" and x.dtype.itemsize == 8 and not is_lazy(x):
        return x != 0
    return x


# The logical ops take operands of any dtype (any_dtype): their models read floats and
# ints as truth values themselves (_conv to bool: != 0, NaN true), so the fast paths skip
# core's cast to bool, a host pass over the input.
@any_dtype
def logical_and(x1, x2):
    return run1_dyn(("logical_and",), _and_build, _truth(x1), _truth(x2))


@any_dtype
def logical_or(x1, x2):
    return run1_dyn(("logical_or",), _or_build, _truth(x1), _truth(x2))


def _not_build(x):
    return ops.logical_not(_conv(x, T.boolean))


@any_dtype
def logical_not(x):
    return run1_dyn(("logical_not",), _not_build, _truth(x))


def _where_build(c, a, b):
    return ops.select(_conv(c, T.boolean), a, b)


@any_dtype  # (a condition of any dtype, read as truth values)
def where(condition, x1, x2):
    condition = _truth(condition)
    if _wide(x1) and _wide(x2) and not is_lazy(condition):  # (one dtype: core promoted them)
        # 8-byte values as int32 pairs (see _bits32): selected with every bit kept
        (a, undo), (b, _) = _bits32(x1), _bits32(x2)
        c = np.asarray(condition)[..., None]
        return undo(run1_dyn(("where",), _where_build, c, a, b))
    return run1_dyn(("where",), _where_build, condition, x1, x2)


# ===== reductions ===================================================================


def _sum_like(name, float_fn, int_fn, identity):
    host = getattr(np, name)

    def kernel(x, axis, keepdims, *_):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if not axes:
            return _copy(x)
        if _kind(x) in "iu" and _wide(x):
            # int64/uint64 (64-bit mode): exact on the host, wrapping at 64 bits as NumPy.
            # The CPU plugin computes them in 32 bits: the narrowed inputs saturate and the
            # sum wraps (uint64 [2**32 + 1, 2] gave 1).  Under polyops.jit the recorded model
            # computes in 32 bits, as every 64-bit op there (docs/numerics.md).
            return np.asarray(host(x, axis=axes, keepdims=keepdims, dtype=x.dtype))

        def build(p):
            t = etype(p)
            if t in _FLOAT:
                return _conv(float_fn(_cpu_type(p), axes_const(axes), keepdims), t)
            return _conv(_tree_reduce(_cpu_type(p), shape, axes, out, int_fn, identity), t)

        # the float path reads only the axes; the exact int tree reads the shapes
        return (run1_dyn if _kind(x) == "f" else run1)((name, axes, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


sum = _sum_like("sum", ops.reduce_sum, ops.add, 0)
prod = _sum_like("prod", ops.reduce_prod, ops.multiply, 1)


def _ext_reduce(name, float_fn, fn, bool_fn, int_pad):
    def kernel(x, axis, keepdims, initial):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if not axes and initial is None:
            return _copy(x)
        init = None if initial is None else np.array(initial).astype(x.dtype)

        def build(p):
            t = etype(p)
            if t == T.boolean:
                r = bool_fn(p, axes_const(axes), keepdims) if axes else p
                if init is not None:
                    r = (ops.logical_or if fn is ops.maximum else ops.logical_and)(r, const(init, t))
                return r
            u = _cpu_type(p)
            ut = etype(u)
            if t in _FLOAT:
                inf = -np.inf if fn is ops.maximum else np.inf
                r = _float_extreme(u, axes, keepdims, float_fn, inf) if axes else u
                if init is not None:
                    r = _nan_aware(fn, r, const(np.asarray(init, np.float32), ut))
                return _conv(r, t)
            flip = ut in _UNSIGNED  # Maximum/Minimum are signed on u32
            if flip:
                u = _flip(u)
            r = _tree_reduce(u, shape, axes, out, fn, int_pad) if axes else u
            if init is not None:
                c = _conv(const(init, t), ut)
                r = fn(r, _flip(c) if flip else c)
            return _unflip(r, t) if flip else _conv(r, t)

        key = (name, axes, keepdims, None if init is None else (init.item() if init.dtype.kind != "V" else float(init)))
        # floats and bools read only the axes; the exact int tree reads the shapes
        return (run1_dyn if _kind(x) in "fb" or not axes else run1)(key, build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


max = _ext_reduce("max", ops.reduce_max, ops.maximum, ops.reduce_logical_or, -(2**31))
min = _ext_reduce("min", ops.reduce_min, ops.minimum, ops.reduce_logical_and, 2**31 - 1)


def _arg_ext(name, mode):
    def kernel(x, axis, keepdims):
        shape = tuple(np.shape(x))
        if axis is None:
            out = (1,) * len(shape) if keepdims else ()
        else:
            out = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]

        def build(p):
            t = etype(p)
            v = p
            ax = axis
            if axis is None:
                v = ops.reshape(v, axes_const([-1]), False)
                ax = 0
            v = _cpu_type(v)
            if etype(v) in _UNSIGNED:  # TopK is signed on u32
                v = _flip(v)
            k = const(1, T.i64)
            idx = ops.topk(v, k, ax, mode, "value", "i32", True).output(1)
            if t in _FLOAT:  # NaN wins, at its first position, as in numpy
                nan = ops.is_nan(v)
                first = ops.topk(ops.convert(nan, _I32), k, ax, "max", "value", "i32", True).output(1)
                has = ops.reduce_logical_or(nan, axes_const([ax]), True)
                idx = ops.select(has, first, idx)
            if axis is None:  # (1,) -> (1,) * rank or ()
                return ops.reshape(idx, axes_const(out), False)
            return idx if keepdims else ops.squeeze(idx, const([axis], T.i64))

        return run1_dyn((name, axis, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


argmax = _arg_ext("argmax", "max")
argmin = _arg_ext("argmin", "min")


def _logic_reduce(name, fn, identity):
    def kernel(x, axis, keepdims):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if not axes:
            return _copy(x).astype(np.bool_, copy=False)

        def build(p):
            return fn(_conv(p, T.boolean), axes_const(axes), keepdims)

        return run1_dyn((name, axes, keepdims), build, _truth(x))

    kernel.__name__ = kernel.__qualname__ = name
    return any_dtype(kernel)  # (truth values of any dtype, as the logical ops)


all = _logic_reduce("all", ops.reduce_logical_and, True)
any = _logic_reduce("any", ops.reduce_logical_or, False)


# mean, var, std: core's references (sum / count...) in one model, each step rounded to
# the dtype as there (see _common._mean_of); the count is read from the shape in the model.
# float16 keeps the references: the CPU plugin computes a model's f16 nodes in f32, so a
# Convert to f16 inside a model does not round (a f16 mean differed in the last bit).
def _moment(name, make):
    def kernel(x, axis, keepdims):
        if x.dtype == np.float16:
            from polyops.plugin import reference

            return reference(name)(x, axis, keepdims)
        axes = _reduce_plan(x, axis, keepdims)[1]

        def build(p):
            t = etype(p)
            return _conv(make(_cpu_type(p), axes, keepdims, t), t)

        return run1_dyn((name, axes, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


mean = _moment("mean", _mean_of)
var = _moment("var", _var_of)
std = _moment("std", lambda u, axes, keepdims, t: ops.sqrt(_rounded(_var_of(u, axes, keepdims, t), t)))


# ===== shape ========================================================================


def reshape(x, newshape):
    newshape = tuple(int(d) for d in newshape)
    if type(x) is np.ndarray:  # eager: a layout change, on the host (a model costs ~20 us)
        return np.reshape(x, newshape).copy()

    def build(p):
        return ops.reshape(p, axes_const(newshape), False)

    return run1_dyn(("reshape", newshape), build, x)


def transpose(x, axes):
    axes = tuple(int(a) for a in axes)
    if type(x) is np.ndarray:  # eager: a layout change, on the host (as reshape)
        return np.transpose(x, axes).copy()

    def build(p):
        return ops.transpose(p, axes_const(axes))

    return run1_dyn(("transpose", axes), build, x)


def expand_dims(x, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = x.ndim + len(axes)
    axes = {int(a) % nd for a in axes}
    dims = iter(x.shape)
    return reshape(x, tuple(1 if i in axes else next(dims) for i in range(nd)))  # (host, or a node)


def squeeze(x, axis):
    if axis is None:
        return reshape(x, tuple(d for d in x.shape if d != 1))
    axes = {int(a) % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def concatenate(xs, axis):
    # OpenVINO takes no zero-size input: leave out the empty parts (core answers a call
    # whose result is empty; the others have a non-empty part, and empty ones add nothing)
    parts = [x for x in xs if x.size]
    if len(parts) == 1:
        return _copy(parts[0])
    if parts[0].dtype.itemsize == 8 and builtins.all(_wide(x) for x in parts):  # 8-byte values as int32 pairs (see _bits32)
        ax = axis % parts[0].ndim
        pairs = [_bits32(x) for x in parts]
        return pairs[0][1](run1_dyn(("concatenate", ax), lambda *ps: ops.concat(list(ps), ax),
                                    *[b for b, _ in pairs]))

    def build(*ps):
        return ops.concat(list(ps), axis)

    return run1_dyn(("concatenate", axis), build, *parts)


def stack(x, axis):
    # one Concat of the inputs given the new axis as a view (core's reference expands each
    # with a copy first)
    axis %= x[0].ndim + 1
    return concatenate([t.reshape(t.shape[:axis] + (1,) + t.shape[axis:]) for t in x], axis)


def flip(x, axis):
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(sorted({int(a) % nd for a in (axis if isinstance(axis, (tuple, list))
                                                   else (axis,))}))
    if not axes:
        return _copy(x)
    shape = x.shape
    return _move(("flip", axes), lambda p: _reverse(p, axes, shape), x)


def broadcast_to(x, shape):
    shape = tuple(int(d) for d in shape)
    if shape == np.shape(x):
        # nothing to broadcast; OpenVINO's Broadcast of a 0-d tensor to () crashes the process
        return _copy(x)

    extra = (2,) if _wide(x) else ()  # 8-byte values as int32 pairs (see _bits32)

    def build(p):
        return ops.broadcast(p, axes_const(shape + extra))

    xb, undo = _bits32(x)
    return undo(run1_dyn(("broadcast_to", shape), build, xb))


def take(x, indices, axis):
    wide = _wide(x) and not is_lazy(indices)  # 8-byte values as int32 pairs (see _bits32)
    if wide and axis is None:
        x, axis = np.reshape(x, -1), 0
    elif wide:
        axis %= x.ndim
    shape = tuple(np.shape(x))
    ishape = tuple(np.shape(indices))
    if axis is None:
        n = int(np.size(x))
        out = ishape
    else:
        n = shape[axis]
        out = shape[:axis] + ishape + shape[axis + 1:]

    def build(p, i):
        ax = axis
        if axis is None:
            p = ops.reshape(p, axes_const([-1]), False)
            ax = 0
        # indices outside [-n, n) read 0: polyops' policy under a trace (eagerly core raised
        # on them); Gather itself reads whatever lies there on the CPU
        i = _conv(i, _I32)
        bad = ops.logical_or(ops.less(i, const(-n, _I32)), ops.greater_equal(i, const(n, _I32)))
        g = ops.gather(p, ops.select(bad, const(0, _I32), i), const(ax, T.i64))
        rest = len(out) - ax - len(ishape) + wide
        bad = ops.reshape(bad, axes_const([1] * ax + list(ishape) + [1] * rest), False)
        return ops.select(bad, ops.convert_like(const(0, _I32), g), g)

    if wide:
        xb, undo = _bits32(x)
        return undo(run1(("take", axis, "pairs"), build, xb, indices))
    return run1(("take", axis), build, x, indices)


# ===== linear algebra ===============================================================


def _matmul_plan(a, b):
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())
    return a2, b2, batch, out


def _matmul_build(p1, p2):
    t = etype(p1)
    return _conv(ops.matmul(_cpu_type(p1), _cpu_type(p2), False, False), t)


def matmul(x1, x2):
    a, b = tuple(np.shape(x1)), tuple(np.shape(x2))
    a2, b2, batch, out = _matmul_plan(a, b)
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: mismatched inner dims for shapes {a} and {b}")
    if _kind(x1) == "f":
        pad = padded(x1, len(a) - 2) if len(a) > 1 else None
        if pad is not None:  # (rows are computed alone: each row's bits are the same)
            out = run1_dyn(("matmul",), _matmul_build, pad, x2)
            m = a[-2]
            return out[:m] if out.ndim == 1 + (len(b) > 1) else np.ascontiguousarray(
                out[..., :m, :] if len(b) > 1 else out[..., :m])
        return run1_dyn(("matmul",), _matmul_build, x1, x2)

    m, k, n = a2[-2], a2[-1], b2[-1]
    limbs = math.prod(batch) * m * n * k > _TREE_MATMUL_MAX

    def build_int(p1, p2):
        t = etype(p1)
        A = ops.reshape(_cpu_type(p1), axes_const(a2), False)
        B = ops.reshape(_cpu_type(p2), axes_const(b2), False)
        if limbs:
            r = _limb_matmul(_conv(A, _I32), _conv(B, _I32), m, k, n)
            return _conv(ops.reshape(r, axes_const(out), False), t)
        nb = len(b2)
        B = ops.transpose(B, axes_const(list(range(nb - 2)) + [nb - 1, nb - 2]))
        A = ops.unsqueeze(A, const(len(a2) - 1, T.i64))  # (..., m, 1, k)
        B = ops.unsqueeze(B, const(nb - 2, T.i64))  # (..., 1, n, k)
        prod_ = ops.multiply(A, B)
        full_shape = batch + (m, n, k)
        r = _tree_reduce(prod_, full_shape, (len(full_shape) - 1,), out, ops.add, 0)
        return _conv(r, t)

    return run1(("matmul", "int", limbs), build_int, x1, x2)


_TREE_MATMUL_MAX = 2**18  # elements of the (..., m, n, k) product the tree path builds


def _limb_matmul(A, B, m, k, n):
    """Exact wrapping int32 matmul in f32 MatMuls: operands split in 8-bit limbs,
    k in chunks of 256, so every f32 partial sum stays below 2**24."""

    def split(x):
        out = []
        for i in range(4):
            v = ops.bitwise_right_shift(x, const(8 * i, _I32)) if i else x
            if i < 3:
                v = ops.bitwise_and(v, const(255, _I32))
            out.append(ops.convert(v, _F32))
        return out

    total = None
    for start in range(0, k, 256):
        stop = builtins.min(k, start + 256)
        Ac = A if stop - start == k else _slice(A, [start], [stop], [-1])
        Bc = B if stop - start == k else _slice(B, [start], [stop], [-2])
        stacked = ops.matmul(ops.concat(split(Ac), -2), ops.concat(split(Bc), -1), False, False)
        P = ops.convert(stacked, _I32)  # (..., 4m, 4n): every limb product, exact
        for i in range(4):
            for j in range(4 - i):  # limb pairs of weight >= 2**32 vanish
                blk = _slice(P, [i * m, j * n], [(i + 1) * m, (j + 1) * n], [-2, -1])
                if i + j:
                    blk = ops.multiply(blk, const(2 ** (8 * (i + j)), _I32))
                total = blk if total is None else ops.add(total, blk)
    return total


def _einsum_parse(subscripts, shapes):
    s = subscripts.replace(" ", "")
    ins, arrow, out = s.partition("->")
    terms = ins.split(",")
    used = {c for c in s if c.isalpha()}
    pool = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used]
    n_ell = 0
    for term, shape in zip(terms, shapes):
        if "..." in term:
            n_ell = _bmax(n_ell, len(shape) - (len(term) - 3))
    ell = pool[:n_ell]
    labels = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            pre, _, post = term.partition("...")
            k = len(shape) - len(pre) - len(post)
            labels.append(list(pre) + ell[n_ell - k:] + list(post))
        else:
            labels.append(list(term))
    if arrow:
        pre, e, post = out.partition("...")
        out_labels = list(pre) + (ell if e else []) + list(post)
    else:
        counts: dict = {}
        for term in terms:
            for c in term.replace(".", ""):
                counts[c] = counts.get(c, 0) + 1
        out_labels = ell + sorted(c for c, k in counts.items() if k == 1)
    dims: dict = {}
    for labs, shape in zip(labels, shapes):
        for c, d in zip(labs, shape):
            if dims.get(c, 1) == 1:
                dims[c] = d
    return labels, out_labels, dims


def _einsum_generic(params, labels, shapes, out_labels, dims, out_shape):
    """Einsum by diagonal gathers, broadcast products and an exact tree sum."""
    order = list(out_labels)
    for labs in labels:
        for c in labs:
            if c not in order:
                order.append(c)
    prod_ = None
    for p, labs, shape in zip(params, labels, shapes):
        p = _cpu_type(p)
        labs, shape = list(labs), list(shape)
        while len(set(labs)) < len(labs):  # a repeated label: take the diagonal
            c = next(c for c in labs if labs.count(c) > 1)
            i = labs.index(c)
            j = labs.index(c, i + 1)
            others = [k for k in range(len(labs)) if k not in (i, j)]
            d = shape[i]
            p = ops.transpose(p, axes_const(others + [i, j]))
            p = ops.reshape(p, axes_const([shape[k] for k in others] + [d * d]), False)
            p = ops.gather(p, axes_const(np.arange(d) * (d + 1)), const(len(others), T.i64))
            labs = [labs[k] for k in others] + [c]
            shape = [shape[k] for k in others] + [d]
        present = [c for c in order if c in labs]
        perm = [labs.index(c) for c in present]
        if perm != list(range(len(perm))):
            p = ops.transpose(p, axes_const(perm))
        target = [shape[labs.index(c)] if c in labs else 1 for c in order]
        p = ops.reshape(p, axes_const(target), False)
        prod_ = p if prod_ is None else ops.multiply(prod_, p)
    full_shape = tuple(dims[c] for c in order)
    prod_ = ops.broadcast(prod_, axes_const(full_shape))
    n_out = len(out_labels)
    if len(order) == n_out:
        return ops.reshape(prod_, axes_const(out_shape), False)
    return _tree_reduce(prod_, full_shape, tuple(range(n_out, len(order))), out_shape, ops.add, 0)


def _einsum_plan(subscripts, shapes, floating):
    """(runner, key, build) of one einsum call: ``run1_dyn`` and an equation-only build
    for floats of matching dims (OpenVINO's Einsum), else ``run1`` and the exact graph."""
    labels, out_labels, dims = _einsum_parse(subscripts, shapes)
    out_shape = tuple(dims[c] for c in out_labels)
    same_dims = builtins.all(
        d == dims[c] for labs, shape in zip(labels, shapes) for c, d in zip(labs, shape)
    )
    use_native = floating and same_dims
    equation = ",".join("".join(labs) for labs in labels) + "->" + "".join(out_labels)

    def build(*ps):
        t = etype(ps[0])
        if use_native:
            return _conv(ops.einsum([_cpu_type(p) for p in ps], equation), t)
        r = _einsum_generic(ps, labels, shapes, out_labels, dims, out_shape)
        return _conv(r, t)

    # the native path reads the equation only (use_native follows the dims that are 1)
    return (run1_dyn if use_native else run1), ("einsum", equation, use_native), build


# (subscripts, shapes, floating) -> _einsum_plan's answer: parsing costs more than the
# model's call on small operands (dot, inner, tensordot and vdot run through here too)
_EINSUM_PLANS: dict = {}


def einsum(subscripts, *operands):
    pk = (subscripts, tuple(o.shape for o in operands), _kind(operands[0]) == "f")
    runner, key, build = _kept(_EINSUM_PLANS, pk, _einsum_plan)
    return runner(key, build, *operands)


_DOTS: dict = {}  # (rank of x1, rank of x2) -> dot's einsum subscripts


def dot(x1, x2):
    # core's reference's einsum, called here: one model, no second dispatch
    na, nb = x1.ndim, x2.ndim
    if not na or not nb:
        return multiply(x1, x2)
    if na == 1 or nb == 1:
        return matmul(x1, x2)
    eq = _DOTS.get((na, nb))
    if eq is None:
        letters = "abcdefghijklmnopqrstuvwxyz"
        la, lb = letters[: na - 1], letters[na - 1: na + nb - 3]
        last = letters[na + nb - 3]
        eq = _DOTS[(na, nb)] = f"{la}z,{lb}z{last}->{la}{lb}{last}"
    return einsum(eq, x1, x2)
