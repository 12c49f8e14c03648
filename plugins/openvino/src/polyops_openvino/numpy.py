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

from ._graph import T, axes_const, const, etype, ops, run, run1
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


def _f32_of(bits, unsigned):
    return _f32u(bits) if unsigned else ops.convert(bits, _F32)


def _lt_bits(a, b, unsigned):
    """``a < b`` for 32-bit patterns in i32 nodes, signed or unsigned, exactly."""
    fa, fb = _f32_of(a, unsigned), _f32_of(b, unsigned)
    # equal f32 images mean |a - b| < 512: the wrapped difference has the right sign
    d = ops.convert(ops.subtract(a, b), _F32)
    return ops.select(ops.equal(fa, fb), ops.less(d, const(0, _F32)), ops.less(fa, fb))


def _lt(a, b):
    """``a < b`` for two nodes of one type; exact for 32-bit ints."""
    t = etype(a)
    if t not in _WIDE_INT:
        return ops.less(a, b)
    return _lt_bits(_conv(a, _I32), _conv(b, _I32), t in _UNSIGNED)


def _eq(a, b):
    """``a == b``; exact for 32-bit ints."""
    if etype(a) not in _WIDE_INT:
        return ops.equal(a, b)
    d = ops.convert(ops.subtract(_conv(a, _I32), _conv(b, _I32)), _F32)
    return ops.equal(d, const(0, _F32))


def _nonzero(n):
    """``n != 0`` as boolean (NaN is true); exact for 32-bit ints."""
    t = etype(n)
    if t == T.boolean:
        return n
    if t in _WIDE_INT:
        return ops.logical_not(_eq(n, const(0, t)))
    return ops.not_equal(n, const(0, t))


def _conv(n, t):
    """``n`` converted to ``t``; to bool by ``!= 0`` (Convert mishandles wide ints)."""
    if etype(n) == t:
        return n
    if t == T.boolean:
        return _nonzero(n)
    return ops.convert(n, t)


_SIGN = -(2**31)


def _flip(n):
    """uint32 -> int32 with the order kept (flip the sign bit), for Maximum/TopK."""
    return ops.add(_conv(n, _I32), const(_SIGN, _I32))


def _unflip(n, t):
    return ops.convert(ops.add(n, const(_SIGN, _I32)), t)


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
    ge = ops.logical_not(_lt_bits(r, B, True))
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


def _fmod_step(a, b):
    """C ``fmod`` of finite f32 nodes (b != 0), exact while |a / b| < 2**24."""
    zero = const(0, _F32)
    q = ops.divide(a, b)
    q = ops.select(ops.less(q, zero), ops.ceiling(q), ops.floor(q))
    p = ops.multiply(q, b)
    qh, ql = _split(q)
    bh, bl = _split(b)
    e = ops.subtract(ops.multiply(qh, bh), p)
    e = ops.add(ops.add(ops.add(e, ops.multiply(qh, bl)), ops.multiply(ql, bh)), ops.multiply(ql, bl))
    r = ops.subtract(ops.subtract(a, p), e)  # a - q*b, exactly (Dekker's product)
    # q may be one too far from zero: bring r back to the sign of a
    a_neg = ops.less(a, zero)
    babs = ops.abs(b)
    sb = ops.select(a_neg, ops.negative(babs), babs)
    wrong = ops.select(a_neg, ops.greater(r, zero), ops.less(r, zero))
    r = ops.select(wrong, ops.add(r, sb), r)
    return ops.select(ops.greater_equal(ops.abs(r), babs), ops.subtract(r, sb), r)


def _fmod(a, b):
    """C ``fmod`` of f32 nodes; exact while |a / b| < 2**93.

    fmod(a, b) == fmod(fmod(a, b * 2**k), b): the stages shrink the quotient
    by 2**23 each, so every step's quotient stays exact in f32.
    """
    zero = const(0, _F32)
    b_inf = ops.is_inf(b)
    bad = ops.logical_or(ops.is_inf(a), ops.logical_or(ops.equal(b, zero), ops.is_nan(b)))
    bs = ops.select(ops.logical_or(b_inf, bad), const(1, _F32), b)
    r = ops.select(ops.is_inf(a), zero, a)
    for k in (69, 46, 23):
        bk = ops.multiply(bs, const(2.0**k, _F32))
        step = _fmod_step(r, ops.select(ops.is_inf(bk), const(1, _F32), bk))
        r = ops.select(ops.is_inf(bk), r, step)  # b * 2**k overflowed: |r| < it already
    r = _fmod_step(r, bs)
    r = ops.select(b_inf, a, r)
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
        return _conv(fn(_up(x)), etype(x))

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
        return _conv(_nonzero(x), t)
    return ops.sign(x)


def _exp(x):
    return ops.select(ops.is_nan(x), x, ops.exp(x))  # the CPU plugin gives exp(nan) = inf


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


def _round_build(decimals):
    def build(x):
        t = etype(x)
        if t in _FLOAT:
            # numpy: x * 10**d (or x / 10**-d), rint, undo; each step rounded to x's type
            def narrow(n):
                return _conv(_conv(n, t), _F32) if t in _HALF else n

            f = narrow(const(10.0 ** builtins.abs(decimals), t))
            y = _conv(x, _F32) if t in _HALF else x
            if decimals == 0:
                return _conv(ops.round(y, "half_to_even"), t)
            first, second = (ops.multiply, ops.divide) if decimals > 0 else (ops.divide, ops.multiply)
            y = ops.round(narrow(first(y, f)), "half_to_even")
            return _conv(second(y, f), t)
        # integers, decimals < 0: exact round half to even to a multiple of p
        xi = _up(x)
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
        return np.array(x, copy=True)  # nothing to round (bool is returned as is)
    if decimals <= -10 and kind != "f":  # |x| < 2**32 < 10**10 / 2: everything rounds to 0
        return np.zeros(np.shape(x), x.dtype)
    return _ew(("round", decimals), _round_build(decimals), x.dtype, x)


def _binary_build(fn):
    def build(a, b):
        return _conv(fn(_up(a), _up(b)), etype(a))

    return build


def _binary(name, fn):
    build = _binary_build(fn)
    key = (name,)

    def kernel(x1, x2):
        return _ew(key, build, x1.dtype, x1, x2)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _logical(fn):
    def build(a, b):
        return fn(_conv(a, T.boolean), _conv(b, T.boolean))

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
        return [_conv(ops.power(au, eu), t)]
    out = _conv(_int_power(au, eu), t)
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
            return _conv(_nan_aware(fn, au, bu), t)
        if t in _UNSIGNED and t not in _NARROW:  # Maximum/Minimum are signed on u32
            return _unflip(fn(_flip(au), _flip(bu)), t)
        return _conv(fn(au, bu), t)

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
# the CPU plugin's Greater/GreaterEqual are true for NaN operands: swap Less/LessEqual
greater = _compare("greater", lambda a, b: ops.less(b, a), lambda a, b: _lt(b, a))
greater_equal = _compare("greater_equal", lambda a, b: ops.less_equal(b, a),
                         lambda a, b: ops.logical_not(_lt(a, b)))

_and_build = _logical(ops.logical_and)
_or_build = _logical(ops.logical_or)


def logical_and(x1, x2):
    return _ew(("logical_and",), _and_build, np.bool_, x1, x2)


def logical_or(x1, x2):
    return _ew(("logical_or",), _or_build, np.bool_, x1, x2)


def _not_build(x):
    return ops.logical_not(_conv(x, T.boolean))


def logical_not(x):
    return _ew(("logical_not",), _not_build, np.bool_, x)


def _where_build(c, a, b):
    return ops.select(_conv(c, T.boolean), a, b)


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
                return _conv(float_fn(_up(p), axes_const(axes), keepdims), t)
            return _conv(_tree_reduce(_up(p), shape, axes, out, int_fn, identity), t)

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
        return run1(key, build, x)

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
            if etype(v) in _UNSIGNED:  # TopK is signed on u32
                v = _flip(v)
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
            return fn(_conv(p, T.boolean), axes_const(axes), keepdims)

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
    if shape == np.shape(x):
        # nothing to broadcast; OpenVINO's Broadcast of a 0-d tensor to () crashes the process
        return np.array(x, copy=True)

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
        i = _conv(i, _I32)
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
            return _conv(ops.matmul(_up(p1), _up(p2), False, False), t)

        return run1(("matmul",), build, x1, x2)

    m, k, n = a2[-2], a2[-1], b2[-1]
    limbs = math.prod(batch) * m * n * k > _TREE_MATMUL_MAX

    def build_int(p1, p2):
        t = etype(p1)
        A = ops.reshape(_up(p1), axes_const(a2), False)
        B = ops.reshape(_up(p2), axes_const(b2), False)
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


def _slice(x, starts, stops, axes):
    n = len(starts)
    return ops.slice(x, axes_const(starts), axes_const(stops), axes_const([1] * n), axes_const(axes))


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
            return _conv(ops.einsum([_up(p) for p in ps], equation), t)
        r = _einsum_generic(ps, labels, shapes, out_labels, dims, out_shape)
        return _conv(r, t)

    return run1(("einsum", equation, use_native), build, *operands)
