"""OpenVINO kernels for the ``numpy`` op family.

Kernels take the op's arguments positionally; tensors arrive as numpy arrays
already promoted, axes canonical (None or a sorted tuple of non-negative ints),
dtypes as canonical strings.  Each kernel builds (once per op, static arguments,
shapes and dtypes) a small OpenVINO model and runs it with ``_graph.run``.

The CPU plugin computes several int32 ops (comparisons, reductions, division,
MatMul, Power) in float32, which is inexact above 2**24; the graphs below use
only exact int32 nodes (Add, Subtract, Multiply, Maximum, Minimum, Select,
bitwise ops, Convert) for those, so integer results match NumPy's wrapping
arithmetic.  Half floats and narrow ints compute in f32 / i32 and convert back.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from ._graph import T, axes_const, const, etype, ops, run, run1, to
from .core import _np_dtype

_bmax = builtins.max

_HALF = frozenset({T.f16, T.bf16})
_FLOAT = frozenset({T.f16, T.bf16, T.f32, T.f64})
_NARROW = frozenset({T.i8, T.i16, T.u8, T.u16, T.boolean})
_WIDE_INT = frozenset({T.i32, T.u32, T.i64, T.u64})
_UNSIGNED = frozenset({T.u8, T.u16, T.u32, T.u64})
_F32 = T.f32
_I32 = T.i32


def _up(n):
    """The compute type of a node: half floats in f32, bool and narrow ints in i32."""
    t = etype(n)
    if t in _HALF:
        return ops.convert(n, _F32)
    if t in _NARROW:
        return ops.convert(n, _I32)
    return n


def _kind(x):
    """'b' bool, 'i' signed int, 'u' unsigned int, 'f' float (numpy or bfloat16)."""
    k = x.dtype.kind
    return "f" if k == "V" else k  # ml_dtypes.bfloat16 has kind 'V'


def _bshape(*xs):
    return np.broadcast_shapes(*(np.shape(x) for x in xs))


def _ew(key, build, out_dtype, *xs):
    """Run an elementwise model; zero-size results need no model."""
    shape = _bshape(*xs)
    if 0 in shape:
        return np.empty(shape, out_dtype)
    return run1(key, build, *xs)


# ===== exact helpers (graph level) ==================================================


def _f32u(v):
    """f32 value of the uint32 bit pattern held in the i32 node ``v``."""
    f = ops.convert(v, _F32)
    return ops.select(ops.less(v, const(0, _I32)), ops.add(f, const(2.0**32, _F32)), f)


def _lt(a, b):
    """``a < b`` for two nodes of one type; exact for 32-bit ints."""
    if etype(a) not in _WIDE_INT:
        return ops.less(a, b)
    fa, fb = ops.convert(a, _F32), ops.convert(b, _F32)
    # equal f32 images mean |a - b| < 512: the wrapped difference has the right sign
    d = ops.convert(ops.subtract(to(a, _I32), to(b, _I32)), _F32)
    return ops.select(ops.equal(fa, fb), ops.less(d, const(0, _F32)), ops.less(fa, fb))


def _eq(a, b):
    """``a == b``; exact for 32-bit ints."""
    if etype(a) not in _WIDE_INT:
        return ops.equal(a, b)
    d = ops.convert(ops.subtract(to(a, _I32), to(b, _I32)), _F32)
    return ops.equal(d, const(0, _F32))


_SHRINK = 1.0 - 2.0**-20  # makes every f32 quotient estimate an underestimate
_QMAX = 2147483520.0  # the largest f32 below 2**31


def _udivmod(A, B):
    """floor(A / B), A - B*floor(A / B) for uint32 bit patterns in i32 nodes, B != 0.

    Three f32 underestimates, each followed by an exact wrapped residual
    update, leave a residual in [0, 2B); one exact comparison finishes.
    """
    fb = _f32u(B)
    q, r = None, A
    for _ in range(3):
        est = ops.floor(ops.divide(ops.multiply(_f32u(r), const(_SHRINK, _F32)), fb))
        qi = ops.convert(ops.minimum(est, const(_QMAX, _F32)), _I32)
        r = ops.subtract(r, ops.multiply(qi, B))
        q = qi if q is None else ops.add(q, qi)
    ge = ops.logical_not(_lt(ops.convert(r, T.u32), ops.convert(B, T.u32)))
    q = ops.add(q, ops.convert(ge, _I32))
    r = ops.select(ge, ops.subtract(r, B), r)
    return q, r


def _int_divmod(a, b):
    """NumPy floor_divide and mod of two i32 or u32 nodes (x // 0 and x % 0 are 0)."""
    t = etype(a)
    zero = const(0, t)
    bz = _eq(b, zero)
    b = ops.select(bz, const(1, t), b)
    if t == T.u32:
        q, r = _udivmod(ops.convert(a, _I32), ops.convert(b, _I32))
        q, r = ops.convert(q, t), ops.convert(r, t)
    else:
        a_neg, b_neg = ops.less(a, zero), ops.less(b, zero)  # sign tests are exact
        q, r = _udivmod(ops.abs(a), ops.abs(b))  # abs(INT_MIN) is 2**31 as bits
        neg = ops.not_equal(a_neg, b_neg)
        adj = ops.logical_and(neg, ops.not_equal(ops.convert(r, _F32), const(0, _F32)))
        q = ops.subtract(ops.select(neg, ops.negative(q), q), ops.convert(adj, _I32))
        r = ops.select(a_neg, ops.negative(r), r)
        r = ops.select(adj, ops.add(r, b), r)
    return ops.select(bz, zero, q), ops.select(bz, zero, r)


def _split(x):
    c = ops.multiply(x, const(4097.0, _F32))
    hi = ops.subtract(c, ops.subtract(c, x))
    return hi, ops.subtract(x, hi)


def _fmod(a, b):
    """C ``fmod`` of f32 nodes, exact while |a / b| < 2**24 (an error-free product)."""
    zero = const(0, _F32)
    b_inf = ops.is_inf(b)
    bs = ops.select(b_inf, const(1, _F32), b)
    q = ops.divide(a, bs)
    q = ops.select(ops.less(q, zero), ops.ceiling(q), ops.floor(q))
    p = ops.multiply(q, bs)
    qh, ql = _split(q)
    bh, bl = _split(bs)
    e = ops.subtract(ops.multiply(qh, bh), p)
    e = ops.add(ops.add(ops.add(e, ops.multiply(qh, bl)), ops.multiply(ql, bh)), ops.multiply(ql, bl))
    r = ops.subtract(ops.subtract(a, p), e)  # a - q*b, exactly
    # q may be one too far from zero: bring r back to the sign of a
    a_neg = ops.less(a, zero)
    babs = ops.abs(bs)
    sb = ops.select(a_neg, ops.negative(babs), babs)
    wrong = ops.select(a_neg, ops.greater(r, zero), ops.less(r, zero))
    r = ops.select(wrong, ops.add(r, sb), r)
    r = ops.select(ops.greater_equal(ops.abs(r), babs), ops.subtract(r, sb), r)
    r = ops.select(b_inf, a, r)
    bad = ops.logical_or(ops.is_inf(a), ops.logical_or(ops.equal(b, zero), ops.is_nan(b)))
    return ops.select(bad, const(np.nan, _F32), r)


def _float_divmod(a, b):
    """NumPy's ``npy_divmod`` for f32 nodes: (floor_divide, mod)."""
    zero = const(0, _F32)
    mod = _fmod(a, b)
    div = ops.divide(ops.subtract(a, mod), b)
    adj = ops.logical_and(
        ops.not_equal(mod, zero), ops.not_equal(ops.less(b, zero), ops.less(mod, zero))
    )
    mod = ops.select(adj, ops.add(mod, b), mod)
    div = ops.select(adj, ops.subtract(div, const(1, _F32)), div)
    mod = ops.select(ops.equal(mod, zero), ops.select(ops.less(b, zero), const(-0.0, _F32), zero), mod)
    fl = ops.floor(div)
    fl = ops.select(ops.greater(ops.subtract(div, fl), const(0.5, _F32)), ops.add(fl, const(1, _F32)), fl)
    ratio = ops.divide(a, b)
    fl = ops.select(ops.equal(div, zero), ops.multiply(ratio, zero), fl)
    fl = ops.select(ops.equal(b, zero), ratio, fl)
    return fl, mod


def _int_power(a, e):
    """Exact wrapping ``a ** e`` for i32/u32 nodes by square-and-multiply over 32 bits."""
    t = etype(a)
    base, ei = to(a, _I32), to(e, _I32)
    one = const(1, _I32)
    result = None
    for i in range(32):
        bit = ops.convert(ops.bitwise_and(ops.bitwise_right_shift(ei, const(i, _I32)), one), T.boolean)
        factor = ops.select(bit, base, one)
        result = factor if result is None else ops.multiply(result, factor)
        if i < 31:
            base = ops.multiply(base, base)
    return to(result, t)


def _nan_aware(fn, a, b):
    """``fn(a, b)`` that returns NaN where either float operand is NaN."""
    return ops.select(ops.is_nan(a), a, ops.select(ops.is_nan(b), b, fn(a, b)))


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


# ===== elementwise ==================================================================


def _unary_build(fn):
    def build(x):
        return to(fn(_up(x)), etype(x))

    return build


def _unary(name, fn):
    build = _unary_build(fn)
    key = (name,)

    def kernel(x):
        return _ew(key, build, x.dtype, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def abs(x):
    if _kind(x) in "bu":
        return np.array(x, copy=True)
    return _ew(("abs",), _abs_build, x.dtype, x)


_abs_build = _unary_build(ops.abs)


def _neg(x):
    t = etype(x)
    if t in _UNSIGNED:
        return ops.subtract(const(0, t), x)
    return ops.negative(x)


def _sign(x):
    t = etype(x)
    if t in _UNSIGNED:
        return ops.minimum(x, const(1, t))
    return ops.sign(x)


negative = _unary("negative", _neg)
exp = _unary("exp", ops.exp)
log = _unary("log", ops.log)
sqrt = _unary("sqrt", ops.sqrt)
sin = _unary("sin", ops.sin)
cos = _unary("cos", ops.cos)
tanh = _unary("tanh", ops.tanh)
sign = _unary("sign", _sign)
floor = _unary("floor", ops.floor)
ceil = _unary("ceil", ops.ceiling)


def _round_build(decimals):
    def build(x):
        t = etype(x)
        if t in _FLOAT:
            # numpy: x * 10**d (or x / 10**-d), rint, undo; each step rounded to x's type
            def narrow(n):
                return to(to(n, t), _F32) if t in _HALF else n

            f = narrow(const(10.0 ** builtins.abs(decimals), t))
            y = to(x, _F32) if t in _HALF else x
            if decimals == 0:
                return to(ops.round(y, "half_to_even"), t)
            first, second = (ops.multiply, ops.divide) if decimals > 0 else (ops.divide, ops.multiply)
            y = ops.round(narrow(first(y, f)), "half_to_even")
            return to(second(y, f), t)
        # integers, decimals < 0: exact round half to even to a multiple of p
        xi = _up(x)
        ct = etype(xi)
        p = const(10 ** -decimals, ct)
        q, r = _int_divmod(xi, p)
        r2 = to(ops.add(r, r), _I32)
        pi = const(10 ** -decimals, _I32)
        odd = ops.convert(ops.bitwise_and(to(q, _I32), const(1, _I32)), T.boolean)
        up = ops.logical_or(_lt(pi, r2), ops.logical_and(_eq(r2, pi), odd))
        q = ops.add(q, to(ops.convert(up, _I32), ct))
        return to(ops.multiply(q, p), t)

    return build


def round(x, decimals):
    kind = _kind(x)
    if kind != "f" and decimals >= 0:
        return np.array(x, copy=True)
    if kind != "f" and decimals <= -10:  # |x| < 2**32 < 10**10 / 2: everything rounds to 0
        return np.zeros(np.shape(x), x.dtype)
    if kind == "b":
        return np.zeros(np.shape(x), x.dtype)
    return _ew(("round", decimals), _round_build(decimals), x.dtype, x)


def _binary_build(fn):
    def build(a, b):
        return to(fn(_up(a), _up(b)), etype(a))

    return build


def _binary(name, fn, bool_fn=None, out=None):
    build = _binary_build(fn)
    bool_build = _binary_build(bool_fn) if bool_fn is not None else build
    key, bool_key = (name,), (name, "bool")

    def kernel(x1, x2):
        if x1.dtype == np.bool_:
            return _ew(bool_key, bool_build, out or x1.dtype, x1, x2)
        return _ew(key, build, out or x1.dtype, x1, x2)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _logical(fn):
    def build(a, b):
        return fn(to(a, T.boolean), to(b, T.boolean))

    return build


add = _binary("add", ops.add)
multiply = _binary("multiply", ops.multiply)


def subtract(x1, x2):
    if x1.dtype == np.bool_:
        raise TypeError("subtract: boolean subtract is not supported (as in numpy); use logical_xor")
    return _ew(("subtract",), _sub_build, x1.dtype, x1, x2)


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
    au, eu = _up(a), _up(e)
    if t in _FLOAT:
        return [to(ops.power(au, eu), t)]
    out = to(_int_power(au, eu), t)
    rank = len(e.get_output_partial_shape(0))
    neg = ops.less(eu, const(0, etype(eu)))
    flag = ops.reduce_logical_or(neg, axes_const(range(rank)), False)
    return [out, flag]


def power(x1, x2):
    shape = _bshape(x1, x2)
    if 0 in shape:
        return np.empty(shape, x1.dtype)
    outs = run(("power",), _power_build, x1, x2)
    if len(outs) > 1 and _kind(x2) == "i" and bool(outs[1]):
        raise ValueError("power: integers to negative integer powers are not allowed")
    return outs[0]


def _extremum(fn):
    def build(a, b):
        t = etype(a)
        if t == T.boolean:
            return (ops.logical_or if fn is ops.maximum else ops.logical_and)(a, b)
        au, bu = _up(a), _up(b)
        if t in _FLOAT:
            return to(_nan_aware(fn, au, bu), t)
        return to(fn(au, bu), t)

    return build


def maximum(x1, x2):
    return _ew(("maximum",), _max_build, x1.dtype, x1, x2)


def minimum(x1, x2):
    return _ew(("minimum",), _min_build, x1.dtype, x1, x2)


_max_build = _extremum(ops.maximum)
_min_build = _extremum(ops.minimum)

# ===== comparison and logic =========================================================


def _compare(name, float_fn, int_fn):
    def build(a, b):
        if etype(a) in _WIDE_INT:
            return int_fn(a, b)
        return float_fn(a, b)

    key = (name,)

    def kernel(x1, x2):
        return _ew(key, build, np.bool_, x1, x2)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


equal = _compare("equal", ops.equal, _eq)
not_equal = _compare("not_equal", ops.not_equal, lambda a, b: ops.logical_not(_eq(a, b)))
less = _compare("less", ops.less, _lt)
less_equal = _compare("less_equal", ops.less_equal, lambda a, b: ops.logical_not(_lt(b, a)))
greater = _compare("greater", ops.greater, lambda a, b: _lt(b, a))
greater_equal = _compare("greater_equal", ops.greater_equal, lambda a, b: ops.logical_not(_lt(a, b)))

_and_build = _logical(ops.logical_and)
_or_build = _logical(ops.logical_or)


def logical_and(x1, x2):
    return _ew(("logical_and",), _and_build, np.bool_, x1, x2)


def logical_or(x1, x2):
    return _ew(("logical_or",), _or_build, np.bool_, x1, x2)


def _not_build(x):
    return ops.logical_not(to(x, T.boolean))


def logical_not(x):
    return _ew(("logical_not",), _not_build, np.bool_, x)


def _where_build(c, a, b):
    return ops.select(to(c, T.boolean), a, b)


def where(condition, x1, x2):
    return _ew(("where",), _where_build, x1.dtype, condition, x1, x2)


# ===== reductions ===================================================================


def _reduce_plan(x, axis, keepdims):
    shape = tuple(np.shape(x))
    axes = tuple(range(len(shape))) if axis is None else tuple(axis)
    if keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return shape, axes, out


def _sum_like(name, float_fn, int_fn, identity):
    def kernel(x, axis, keepdims, *_):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if np.size(x) == 0:
            return np.full(out, identity, x.dtype)
        if not axes:
            return np.array(x, copy=True)

        def build(p):
            t = etype(p)
            if t in _FLOAT:
                return to(float_fn(_up(p), axes_const(axes), keepdims), t)
            return to(_tree_reduce(_up(p), shape, axes, out, int_fn, identity), t)

        return run1((name, axes, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


sum = _sum_like("sum", ops.reduce_sum, ops.add, 0)
prod = _sum_like("prod", ops.reduce_prod, ops.multiply, 1)


def _ext_reduce(name, float_fn, fn, bool_fn, int_pad):
    def kernel(x, axis, keepdims, initial):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if np.size(x) == 0:
            if initial is None:
                return np.empty(out, x.dtype)
            return np.full(out, initial, x.dtype)
        if not axes and initial is None:
            return np.array(x, copy=True)
        init = None if initial is None else np.array(initial).astype(x.dtype)

        def build(p):
            t = etype(p)
            if t == T.boolean:
                r = bool_fn(p, axes_const(axes), keepdims) if axes else p
                if init is not None:
                    r = (ops.logical_or if fn is ops.maximum else ops.logical_and)(r, const(init, t))
                return r
            u = _up(p)
            ut = etype(u)
            if t in _FLOAT:
                if axes:
                    r = float_fn(u, axes_const(axes), keepdims)
                    has_nan = ops.reduce_logical_or(ops.is_nan(u), axes_const(axes), keepdims)
                    r = ops.select(has_nan, const(np.nan, ut), r)
                else:
                    r = u
                if init is not None:
                    r = _nan_aware(fn, r, const(np.asarray(init, np.float32), ut))
                return to(r, t)
            pad = int_pad(ut)
            r = _tree_reduce(u, shape, axes, out, fn, pad) if axes else u
            if init is not None:
                r = fn(r, to(const(init, t), ut))
            return to(r, t)

        key = (name, axes, keepdims, None if init is None else (init.item() if init.dtype.kind != "V" else float(init)))
        return run1(key, build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _int_min(t):
    return {T.i32: -(2**31), T.u32: 0, T.i64: -(2**63), T.u64: 0}[t]


def _int_max(t):
    return {T.i32: 2**31 - 1, T.u32: 2**32 - 1, T.i64: 2**63 - 1, T.u64: 2**64 - 1}[t]


max = _ext_reduce("max", ops.reduce_max, ops.maximum, ops.reduce_logical_or, _int_min)
min = _ext_reduce("min", ops.reduce_min, ops.minimum, ops.reduce_logical_and, _int_max)


def _arg_ext(name, mode):
    def kernel(x, axis, keepdims):
        shape = tuple(np.shape(x))
        if axis is None:
            out = (1,) * len(shape) if keepdims else ()
        else:
            out = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
        if 0 in out:
            return np.empty(out, np.int32)

        def build(p):
            t = etype(p)
            v = p
            ax = axis
            if axis is None:
                v = ops.reshape(v, axes_const([-1]), False)
                ax = 0
            v = _up(v)
            k = const(1, T.i64)
            idx = ops.topk(v, k, ax, mode, "value", "i32", True).output(1)
            if t in _FLOAT:  # NaN wins, at its first position, as in numpy
                nan = ops.is_nan(v)
                first = ops.topk(ops.convert(nan, _I32), k, ax, "max", "value", "i32", True).output(1)
                has = ops.reduce_logical_or(nan, axes_const([ax]), True)
                idx = ops.select(has, first, idx)
            return ops.reshape(idx, axes_const(out), False)

        return run1((name, axis, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


argmax = _arg_ext("argmax", "max")
argmin = _arg_ext("argmin", "min")


def _logic_reduce(name, fn, identity):
    def kernel(x, axis, keepdims):
        shape, axes, out = _reduce_plan(x, axis, keepdims)
        if np.size(x) == 0:
            return np.full(out, identity, np.bool_)
        if not axes:
            return np.array(x, copy=True).astype(np.bool_, copy=False)

        def build(p):
            return fn(to(p, T.boolean), axes_const(axes), keepdims)

        return run1((name, axes, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


all = _logic_reduce("all", ops.reduce_logical_and, True)
any = _logic_reduce("any", ops.reduce_logical_or, False)

# ===== shape ========================================================================


def reshape(x, newshape):
    newshape = tuple(int(d) for d in newshape)
    if np.size(x) == 0:
        if math.prod(newshape) != 0:
            raise ValueError(f"reshape: cannot reshape shape {np.shape(x)} into {newshape}")
        return np.empty(newshape, x.dtype)

    def build(p):
        return ops.reshape(p, axes_const(newshape), False)

    return run1(("reshape", newshape), build, x)


def transpose(x, axes):
    axes = tuple(int(a) for a in axes)
    shape = np.shape(x)
    if np.size(x) == 0:
        return np.empty(tuple(shape[a] for a in axes), x.dtype)

    def build(p):
        return ops.transpose(p, axes_const(axes))

    return run1(("transpose", axes), build, x)


def concatenate(xs, axis):
    xs = list(xs)
    shapes = [np.shape(x) for x in xs]
    out = list(shapes[0])
    out[axis] = builtins.sum(s[axis] for s in shapes)
    dtype = xs[0].dtype
    if 0 in out:
        return np.empty(tuple(out), dtype)
    parts = [x for x in xs if np.size(x)]
    if len(parts) == 1:
        return np.array(parts[0], copy=True)

    def build(*ps):
        return ops.concat(list(ps), axis)

    return run1(("concatenate", axis), build, *parts)


def broadcast_to(x, shape):
    shape = tuple(int(d) for d in shape)
    np.broadcast_shapes(np.shape(x), shape)  # validates
    if 0 in shape:
        return np.empty(shape, x.dtype)

    def build(p):
        return ops.broadcast(p, axes_const(shape))

    return run1(("broadcast_to", shape), build, x)


def take(x, indices, axis):
    shape = tuple(np.shape(x))
    ishape = tuple(np.shape(indices))
    if axis is None:
        n = int(np.size(x))
        out = ishape
    else:
        n = shape[axis]
        out = shape[:axis] + ishape + shape[axis + 1:]
    if 0 in out:
        if n == 0 and np.size(indices):
            raise IndexError("take: cannot do a non-empty take from an empty axis")
        return np.empty(out, x.dtype)

    def build(p, i):
        ax = axis
        if axis is None:
            p = ops.reshape(p, axes_const([-1]), False)
            ax = 0
        i = to(i, _I32)
        g = ops.gather(p, i, const(ax, T.i64))
        bad = ops.logical_or(ops.less(i, const(-n, _I32)), ops.greater_equal(i, const(n, _I32)))
        flag = ops.reduce_logical_or(bad, axes_const(range(len(ishape))), False)
        return [g, flag]

    g, flag = run(("take", axis), build, x, indices)
    if bool(flag):
        raise IndexError(f"take: index out of bounds for axis of size {n}")
    return g


# ===== linear algebra ===============================================================


def _matmul_plan(a, b):
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())
    return a2, b2, batch, out


def matmul(x1, x2):
    a, b = tuple(np.shape(x1)), tuple(np.shape(x2))
    a2, b2, batch, out = _matmul_plan(a, b)
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: mismatched inner dims for shapes {a} and {b}")
    if 0 in out or a2[-1] == 0:
        return np.zeros(out, x1.dtype)
    if _kind(x1) == "f":
        def build(p1, p2):
            t = etype(p1)
            return to(ops.matmul(_up(p1), _up(p2), False, False), t)

        return run1(("matmul",), build, x1, x2)

    def build_int(p1, p2):
        t = etype(p1)
        A = ops.reshape(_up(p1), axes_const(a2), False)
        B = ops.reshape(_up(p2), axes_const(b2), False)
        nb = len(b2)
        B = ops.transpose(B, axes_const(list(range(nb - 2)) + [nb - 1, nb - 2]))
        A = ops.unsqueeze(A, const(len(a2) - 1, T.i64))  # (..., m, 1, k)
        B = ops.unsqueeze(B, const(nb - 2, T.i64))  # (..., 1, n, k)
        prod_ = ops.multiply(A, B)
        full_shape = batch + (a2[-2], b2[-1], a2[-1])
        r = _tree_reduce(prod_, full_shape, (len(full_shape) - 1,), out, ops.add, 0)
        return to(r, t)

    return run1(("matmul", "int"), build_int, x1, x2)


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
        p = _up(p)
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


def einsum(subscripts, *operands):
    shapes = [tuple(np.shape(o)) for o in operands]
    labels, out_labels, dims = _einsum_parse(subscripts, shapes)
    out_shape = tuple(dims[c] for c in out_labels)
    dtype = operands[0].dtype
    if builtins.any(np.size(o) == 0 for o in operands):
        return np.zeros(out_shape, dtype)
    same_dims = builtins.all(
        d == dims[c] for labs, shape in zip(labels, shapes) for c, d in zip(labs, shape)
    )
    use_native = _kind(operands[0]) == "f" and same_dims
    equation = ",".join("".join(labs) for labs in labels) + "->" + "".join(out_labels)

    def build(*ps):
        t = etype(ps[0])
        if use_native:
            return to(ops.einsum([_up(p) for p in ps], equation), t)
        r = _einsum_generic(ps, labels, shapes, out_labels, dims, out_shape)
        return to(r, t)

    return run1(("einsum", equation, use_native), build, *operands)
