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
import openvino as ov

from polyops.plugin import pad_index, reference

from ._graph import BF16, T, TracedValueError, axes_const, const, etype, is_lazy, ops, run, run1
from ._graph import copy as _copy
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
    shapes = [x.shape if type(x) is np.ndarray else np.shape(x) for x in xs]
    out = shapes[0]
    for s in shapes[1:]:  # equal shapes and scalars, the common cases, skip numpy's 3 us
        if s != out and s != ():
            if out != ():
                return np.broadcast_shapes(*shapes)
            out = s
    return out


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
        return _copy(x)
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
        return _copy(x)  # nothing to round (bool is returned as is)
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
    # (a compiled model cannot raise: under polyops.jit a negative exponent is not checked)
    if len(outs) > 1 and _kind(x2) == "i" and not is_lazy(outs[1]) and bool(outs[1]):
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
            return _copy(x)

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
            return _copy(x)
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
                    # the CPU plugin's f32 ReduceMax/Min of a slice of only -inf/+inf gives
                    # the finite extreme: put the infinity back
                    inf = const(-np.inf if fn is ops.maximum else np.inf, ut)
                    only_inf = ops.reduce_logical_and(ops.equal(u, inf), axes_const(axes), keepdims)
                    r = ops.select(only_inf, inf, r)
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
            return _copy(x).astype(np.bool_, copy=False)

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
    if type(x) is np.ndarray:  # eager: a layout change, on the host (a model costs ~20 us)
        return np.reshape(x, newshape).copy()
    if np.size(x) == 0:
        if math.prod(newshape) != 0:
            raise ValueError(f"reshape: cannot reshape shape {np.shape(x)} into {newshape}")
        return np.empty(newshape, x.dtype)

    def build(p):
        return ops.reshape(p, axes_const(newshape), False)

    return run1(("reshape", newshape), build, x)


def transpose(x, axes):
    axes = tuple(int(a) for a in axes)
    if type(x) is np.ndarray:  # eager: a layout change, on the host (as reshape)
        return np.transpose(x, axes).copy()
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
        return _copy(parts[0])

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
        return _copy(x)

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
        # indices outside [-n, n) read 0: polyops' policy under a trace (eagerly core raised
        # on them); Gather itself reads whatever lies there on the CPU
        i = _conv(i, _I32)
        bad = ops.logical_or(ops.less(i, const(-n, _I32)), ops.greater_equal(i, const(n, _I32)))
        g = ops.gather(p, ops.select(bad, const(0, _I32), i), const(ax, T.i64))
        rest = len(out) - ax - len(ishape)
        bad = ops.reshape(bad, axes_const([1] * ax + list(ishape) + [1] * rest), False)
        return ops.select(bad, ops.convert_like(const(0, _I32), g), g)

    return run1(("take", axis), build, x, indices)


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


# ===== catalogue primitives ===========================================================


def _signbit(v):
    """True where the f32 node ``v`` is negative, -0.0 included (1 / -0.0 is -inf)."""
    zero = const(0.0, _F32)
    neg_zero = ops.logical_and(ops.equal(v, zero), ops.less(ops.divide(const(1.0, _F32), v), zero))
    return ops.logical_or(ops.less(v, zero), neg_zero)


def _arctan2_build(y, x):
    t = etype(y)
    y, x = ops.convert(y, _F32) if t != _F32 else y, ops.convert(x, _F32) if t != _F32 else x
    pi = const(math.pi, _F32)
    neg_y, neg_x = _signbit(y), _signbit(x)
    sign_y = ops.select(neg_y, const(-1.0, _F32), const(1.0, _F32))
    # the quadrant from atan(y / x), which covers finite, +-0 and single infinities
    base = ops.atan(ops.divide(y, x))
    base = ops.select(neg_x, ops.add(base, ops.multiply(sign_y, pi)), base)
    # both zero: +-0 or +-pi; both infinite: +-pi/4 or +-3pi/4 (NumPy's IEEE answers)
    zero = const(0.0, _F32)
    both_zero = ops.logical_and(ops.equal(y, zero), ops.equal(x, zero))
    at_zero = ops.multiply(sign_y, ops.select(neg_x, pi, zero))
    inf = const(np.inf, _F32)
    both_inf = ops.logical_and(ops.equal(ops.abs(y), inf), ops.equal(ops.abs(x), inf))
    at_inf = ops.multiply(sign_y, ops.select(neg_x, const(3 * math.pi / 4, _F32), const(math.pi / 4, _F32)))
    out = ops.select(both_zero, at_zero, ops.select(both_inf, at_inf, base))
    return _conv(out, t)


def arctan2(x1, x2):
    return _ew(("arctan2",), _arctan2_build, x1.dtype, x1, x2)


def _bitwise(name, int_fn, bool_fn):
    def build(a, b):
        return bool_fn(a, b) if etype(a) == T.boolean else int_fn(a, b)

    key = (name,)

    def kernel(x, y):
        return _ew(key, build, x.dtype, x, y)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


bitwise_and = _bitwise("bitwise_and", ops.bitwise_and, ops.logical_and)
bitwise_or = _bitwise("bitwise_or", ops.bitwise_or, ops.logical_or)
bitwise_xor = _bitwise("bitwise_xor", ops.bitwise_xor, ops.logical_xor)


def _invert_build(x):
    return ops.logical_not(x) if etype(x) == T.boolean else ops.bitwise_not(x)


def bitwise_invert(x):
    return _ew(("bitwise_invert",), _invert_build, x.dtype, x)


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
        return _ew(key, build, x.dtype, x, y)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


left_shift = _shift("left_shift", ops.bitwise_left_shift, False)
right_shift = _shift("right_shift", ops.bitwise_right_shift, True)


def view(x, dtype):
    """A bit cast needs no model: eager OpenVINO tensors are host arrays, reinterpreted here."""
    if is_lazy(x):
        return x.view(dtype)  # raises TracedValueError: no bitcast node to record
    return np.array(x, order="C").view(_np_dtype(dtype))  # a C-ordered copy (0-d stays 0-d)


def _argsort_build(axis, n):
    def build(x):
        return _sort_index(x, axis, n)

    return build


def argsort(x, axis):
    if axis is None or x.ndim == 0:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    if x.size == 0 or n == 1:
        return np.zeros(x.shape, np.int32)
    return run1(("argsort", axis, n), _argsort_build(axis, n), x)


# ===== helpers of the catalogue kernels ===============================================


def _wide(x):
    """True for 8-byte dtypes, which the CPU plugin narrows in most nodes."""
    return x.dtype.itemsize == 8


def _bits32(x):
    """An 8-byte array as int32 pairs on a new last axis (data-movement models keep the
    bits exactly); other arrays as they are.  Returns (array, undo)."""
    if x.dtype.itemsize != 8:
        return x, lambda r: r
    if is_lazy(x):  # there is no bitcast node: the pairs exist only on the host
        raise TracedValueError(f"moving {x.dtype} data exactly needs the host (int32 pairs); "
                               "it cannot be recorded in one OpenVINO model")
    x = np.ascontiguousarray(x)
    dtype = x.dtype

    def undo(r):
        return np.ascontiguousarray(r).view(dtype).reshape(r.shape[:-1])

    return x.reshape(x.shape + (1,)).view(np.int32), undo


def _fconst(value, t):
    """``value`` rounded once to the float type ``t`` (as NumPy casts a Python float)."""
    with np.errstate(over="ignore"):
        if t == T.bf16:
            return ops.convert(const(np.asarray(np.asarray(value, BF16), np.float32), _F32), t)
        return const(value, t)


# ===== elementwise (polyops.ops.numpy.elementwise) ====================================

arcsin = _unary("arcsin", ops.asin)
arccos = _unary("arccos", ops.acos)
arctan = _unary("arctan", ops.atan)
sinh = _unary("sinh", ops.sinh)
cosh = _unary("cosh", ops.cosh)
tan = _unary("tan", ops.tan)
arcsinh = _unary("arcsinh", ops.asinh)
arccosh = _unary("arccosh", ops.acosh)
arctanh = _unary("arctanh", ops.atanh)
fabs = _unary("fabs", ops.abs)


def _f(v, like):
    return const(v, etype(like))


def _reciprocal(x):
    return ops.divide(_f(1.0, x), x)


reciprocal = _unary("reciprocal", _reciprocal)


def _trunc_f(x):
    return ops.select(ops.less(x, _f(0.0, x)), ops.ceiling(x), ops.floor(x))


_trunc_k = _unary("trunc", _trunc_f)


def trunc(x):
    if _kind(x) != "f":
        return _copy(x)
    return _trunc_k(x)


deg2rad = _unary("deg2rad", lambda x: ops.multiply(x, _f(math.pi / 180.0, x)))
rad2deg = _unary("rad2deg", lambda x: ops.multiply(x, _f(180.0 / math.pi, x)))


def _log1p_f(x):
    u = ops.add(x, _f(1.0, x))
    r = ops.multiply(ops.log(u), ops.divide(x, ops.subtract(u, _f(1.0, x))))
    r = ops.select(ops.equal(u, _f(1.0, x)), x, r)
    return ops.select(ops.equal(u, _f(np.inf, x)), u, r)


def _expm1_f(x):
    u = _exp(x)
    um1 = ops.subtract(u, _f(1.0, x))
    r = ops.multiply(um1, ops.divide(x, ops.log(u)))
    r = ops.select(ops.equal(u, _f(1.0, x)), x, ops.select(ops.equal(um1, _f(-1.0, x)), _f(-1.0, x), r))
    return ops.select(ops.equal(u, _f(np.inf, x)), u, r)


def _exp2_f(x):
    return ops.power(_f(2.0, x), x)


log1p = _unary("log1p", _log1p_f)
expm1 = _unary("expm1", _expm1_f)
exp2 = _unary("exp2", _exp2_f)
log2 = _unary("log2", lambda x: ops.divide(ops.log(x), _f(math.log(2.0), x)))
log10 = _unary("log10", lambda x: ops.divide(ops.log(x), _f(math.log(10.0), x)))


def _cbrt_f(x):
    a = ops.abs(x)
    r = ops.power(a, _f(1.0 / 3.0, x))
    newton = ops.add(r, ops.multiply(ops.subtract(ops.divide(a, ops.multiply(r, r)), r), _f(1.0 / 3.0, x)))
    ok = ops.logical_and(ops.less(_f(0.0, x), a), ops.less(a, _f(np.inf, x)))
    r = ops.select(ok, newton, r)
    return ops.select(ops.less(x, _f(0.0, x)), ops.negative(r),
                      ops.select(ops.less(_f(0.0, x), x), r, x))


cbrt = _unary("cbrt", _cbrt_f)


def _sinc_f(x):
    y = ops.multiply(ops.select(ops.equal(x, _f(0.0, x)), _f(1e-20, x), x), _f(math.pi, x))
    return ops.divide(ops.sin(y), y)


sinc = _unary("sinc", _sinc_f)

_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)
_I0_LARGE = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
             0.02635537, -0.01647633, 0.00392377)


def _horner(t, coefs):
    r = ops.multiply(t, _f(coefs[-1], t))
    for c in coefs[-2:0:-1]:
        r = ops.multiply(ops.add(r, _f(c, t)), t)
    return ops.add(r, _f(coefs[0], t))


def _i0_f(x):
    a = ops.abs(x)
    s = ops.divide(a, _f(3.75, x))
    small = _horner(ops.multiply(s, s), _I0_SMALL)
    al = ops.select(ops.less(a, _f(3.75, x)), _f(3.75, x), a)  # NaN stays NaN
    q = ops.divide(_horner(ops.divide(_f(3.75, x), al), _I0_LARGE), ops.sqrt(al))
    h = _exp(ops.multiply(al, _f(0.5, x)))
    large = ops.multiply(ops.multiply(h, q), h)
    return ops.select(ops.less(_f(3.75, x), a), large, small)


i0 = _unary("i0", _i0_f)


def _hypot_f(x1, x2):
    a, b = ops.abs(x1), ops.abs(x2)
    m, n = _nan_aware(ops.maximum, a, b), _nan_aware(ops.minimum, a, b)
    q = ops.divide(n, m)
    r = ops.multiply(m, ops.sqrt(ops.add(_f(1.0, a), ops.multiply(q, q))))
    r = ops.select(ops.equal(m, _f(0.0, a)), _f(0.0, a), r)
    inf = ops.logical_or(ops.equal(a, _f(np.inf, a)), ops.equal(b, _f(np.inf, a)))
    return ops.select(inf, _f(np.inf, a), r)


hypot = _binary("hypot", _hypot_f)


def _logaddexp_f(base2):
    def fn(x1, x2):
        d = ops.negative(ops.abs(ops.subtract(x1, x2)))
        if base2:
            tail = ops.divide(_log1p_f(_exp2_f(d)), _f(math.log(2.0), x1))
        else:
            tail = _log1p_f(_exp(d))
        r = ops.add(_nan_aware(ops.maximum, x1, x2), tail)
        return ops.select(ops.equal(x1, x2), ops.add(x1, _f(1.0 if base2 else math.log(2.0), x1)), r)

    return fn


logaddexp = _binary("logaddexp", _logaddexp_f(False))
logaddexp2 = _binary("logaddexp2", _logaddexp_f(True))


def _heaviside_f(x1, x2):
    zero = _f(0.0, x1)
    step = ops.select(ops.less(x1, zero), zero, ops.select(ops.less(zero, x1), _f(1.0, x1), x1))
    return ops.select(ops.equal(x1, zero), x2, step)


heaviside = _binary("heaviside", _heaviside_f)


def _divide_no_nan_f(x1, x2):
    zero = _f(0.0, x1)
    z = ops.equal(x2, zero)
    return ops.select(z, zero, ops.divide(x1, ops.select(z, _f(1.0, x1), x2)))


divide_no_nan = _binary("divide_no_nan", _divide_no_nan_f)


def _nan_ignoring(fn):
    def build(a, b):
        t = etype(a)
        if t not in _FLOAT:
            return _extremum(fn)(a, b)
        au, bu = _up(a), _up(b)
        r = fn(au, bu)
        r = ops.select(ops.is_nan(bu), au, ops.select(ops.is_nan(au), bu, r))
        return _conv(r, t)

    return build


_fmax_build = _nan_ignoring(ops.maximum)
_fmin_build = _nan_ignoring(ops.minimum)


def fmax(x1, x2):
    return _ew(("fmax",), _fmax_build, x1.dtype, x1, x2)


def fmin(x1, x2):
    return _ew(("fmin",), _fmin_build, x1.dtype, x1, x2)


def _fmod_build(a, b):
    t = etype(a)
    if t in _FLOAT:
        a32 = _conv(a, _F32)
        r = _fmod(a32, _conv(b, _F32))
        r = ops.select(ops.equal(r, const(0.0, _F32)), ops.multiply(a32, const(0.0, _F32)), r)
        return _conv(r, t)  # a zero remainder takes the sign of x1
    au, bu = _up(a), _up(b)
    ut = etype(au)
    _, r = _int_divmod(au, bu)
    if ut not in _UNSIGNED:
        zero = const(0, ut)
        fix = ops.logical_and(ops.logical_not(_eq(r, zero)),
                              ops.not_equal(ops.less(r, zero), ops.less(au, zero)))
        r = ops.select(fix, ops.subtract(r, bu), r)
    return _conv(r, t)


def fmod(x1, x2):
    if _wide(x1):
        return reference("fmod")(x1, x2)
    return _ew(("fmod",), _fmod_build, x1.dtype, x1, x2)


def _gcd_nodes(a, b, steps):
    """Euclid's algorithm on i32/u32 nodes of |x1|, |x2| for a fixed number of steps."""
    t = etype(a)
    zero = const(0, t)
    for _ in range(steps):
        _, r = _int_divmod(a, b)
        a, b = ops.select(_eq(b, zero), a, b), r
    return a


def _abs_int(n):
    return n if etype(n) in _UNSIGNED else ops.abs(n)


def _gcd_build(lcm):
    def build(x1, x2):
        t = etype(x1)
        a, b = _up(x1), _up(x2)
        steps = int(t.bitwidth * 1.4405) + 2
        g = _abs_int(_gcd_nodes(_abs_int(a), _abs_int(b), steps))
        if not lcm:
            return _conv(g, t)
        q, _ = _int_divmod(_abs_int(a), g)
        return _conv(ops.multiply(q, _abs_int(b)), t)

    return build


def gcd(x1, x2):
    if _wide(x1):
        return reference("gcd")(x1, x2)
    return _ew(("gcd",), _gcd_build(False), x1.dtype, x1, x2)


def lcm(x1, x2):
    if _wide(x1):
        return reference("lcm")(x1, x2)
    return _ew(("lcm",), _gcd_build(True), x1.dtype, x1, x2)


# ===== logic (polyops.ops.numpy.logic) ================================================


def _float_pred(name, fn, other):
    """A float predicate node ``fn``; ``other`` for ints and bools (no model needed)."""
    def build(x):
        return fn(_up(x))

    key = (name,)

    def kernel(x):
        if _kind(x) != "f":
            return np.full(np.shape(x), other, np.bool_)
        return _ew(key, build, np.bool_, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


isnan = _float_pred("isnan", ops.is_nan, False)
isinf = _float_pred("isinf", ops.is_inf, False)
isfinite = _float_pred("isfinite", ops.is_finite, True)


def _nan_to_num_build(nan, posinf, neginf):
    def build(x):
        t = etype(x)
        u = _up(x)
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
    return _ew(("nan_to_num", repr((nan, posinf, neginf))), _nan_to_num_build(nan, posinf, neginf), x.dtype, x)


# ===== sorting (polyops.ops.numpy.sorting) ============================================


def _sort_index(x, axis, n):
    """int32 node: the stable ascending order of ``x`` along ``axis`` (NaN last)."""
    t = etype(x)
    k = const(n, _I32)
    if t not in _FLOAT:  # TopK orders ints exactly (unlike the f32 comparisons)
        v = _up(x)
        if etype(v) == T.u32:  # TopK is signed on u32
            v = _flip(v)
        return ops.topk(v, k, axis, "min", "value", "i32", True).output(1)
    nan = ops.is_nan(x)
    key = ops.select(nan, const(np.inf, t), x)
    first = ops.topk(key, k, axis, "min", "value", "i32", True).output(1)
    late = ops.convert(ops.gather_elements(nan, first, axis), _I32)
    second = ops.topk(late, k, axis, "min", "value", "i32", True).output(1)
    return ops.gather_elements(first, second, axis)


def sort(x, axis):
    if axis is None:
        x, axis = np.reshape(x, -1), 0
    n = x.shape[axis]
    if x.size == 0 or n == 1:
        return _copy(x)
    if _wide(x):
        return reference("sort")(x, axis)

    def build(p):
        return ops.gather_elements(p, _sort_index(p, axis, n), axis)

    return run1(("sort", axis, n), build, x)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # the stable argsort is a valid partition for every kth


def _scan_nodes(x, axis, n, combine, identity):
    """Inclusive Hillis-Steele scan of node ``x`` (static shape) along ``axis``."""
    shape = list(x.get_output_partial_shape(0).to_shape())
    t = etype(x)
    s = 1
    while s < n:
        pad_shape = shape[:axis] + [s] + shape[axis + 1:]
        pad = ops.broadcast(const(identity, t), axes_const(pad_shape))
        head = _slice(x, [0], [n - s], [axis])
        x = combine(x, ops.concat([pad, head], axis))
        s *= 2
    return x


def _cumulative(name, product, nan_to):
    def kernel(x, axis, dtype=None):
        if axis is None:
            x, axis = np.reshape(x, -1), 0
        n = x.shape[axis]
        if x.size == 0 or (n == 1 and (nan_to is None or _kind(x) != "f")):
            return _copy(x)
        if _wide(x):
            return reference(name)(x, axis)

        def build(p):
            t = etype(p)
            if t in _FLOAT:
                u = _up(p)
                if nan_to is not None:
                    u = ops.select(ops.is_nan(u), const(nan_to, etype(u)), u)
                if product:
                    r = _scan_nodes(u, axis, n, ops.multiply, 1.0)
                else:
                    r = ops.cumsum(u, const(axis, T.i64))
                return _conv(r, t)
            u = _conv(_up(p), _I32)  # wrapping Add/Multiply: u32 as its bit pattern
            r = _scan_nodes(u, axis, n, ops.multiply if product else ops.add, 1 if product else 0)
            return _conv(r, t) if t != T.u32 else ops.convert(r, t)

        return run1((name, axis), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


cumsum = _cumulative("cumsum", False, None)
cumprod = _cumulative("cumprod", True, None)
nancumsum = _cumulative("nancumsum", False, 0.0)
nancumprod = _cumulative("nancumprod", True, 1.0)


def _count_before_nodes(seq, v, side, negate=False):
    """int32 node: how many of the 1-D sorted ``seq`` sort before each of ``v`` (NumPy's
    order: NaN last); an exact broadcast comparison and a count (< 2**24: exact)."""
    seq, v = _up(seq), _up(v)
    rank = len(v.get_output_partial_shape(0))
    v2 = ops.unsqueeze(v, const(rank, T.i64))
    is_float = etype(seq) in _FLOAT
    if side == "left":
        c = _lt(seq, v2)
        if is_float:
            c = ops.logical_or(c, ops.logical_and(ops.is_nan(v2), ops.logical_not(ops.is_nan(seq))))
    else:
        if is_float:
            c = ops.logical_or(ops.less_equal(seq, v2), ops.is_nan(v2))
        else:
            c = ops.logical_not(_lt(v2, seq))
    if negate:  # how many do not sort before
        c = ops.logical_not(c)
    return ops.reduce_sum(ops.convert(c, _I32), const(rank, T.i64), False)


def searchsorted(sorted_sequence, values, side):
    n = np.shape(sorted_sequence)[0]
    if n == 0 or np.size(values) == 0:
        return np.zeros(np.shape(values), np.int32)
    if _wide(values):
        return reference("searchsorted")(sorted_sequence, values, side)

    def build(s, v):
        return _count_before_nodes(s, v, side)

    return run1(("searchsorted", side), build, sorted_sequence, values)


def digitize(x, bins):
    n = np.shape(bins)[0]
    if n == 0 or np.size(x) == 0:
        return np.zeros(np.shape(x), np.int32)
    if _wide(x):
        return reference("digitize")(x, bins)

    def build(xp, b):
        inc = _count_before_nodes(b, xp, "right")
        if n < 2:
            return inc
        flipped = ops.gather(b, axes_const(np.arange(n - 1, -1, -1)), const(0, T.i64))
        # n - count: the CPU plugin miscomputes a Subtract fused after this ReduceSum
        dec = _count_before_nodes(flipped, xp, "right", negate=True)
        last = _up(ops.gather(b, const(n - 1, T.i64), const(0, T.i64)))
        first = _up(ops.gather(b, const(0, T.i64), const(0, T.i64)))
        return ops.select(_lt(last, first), dec, inc)

    return run1(("digitize",), build, x, bins)


def count_nonzero(x, axis):
    shape, axes, out = _reduce_plan(x, axis, False)
    if np.size(x) == 0:
        return np.zeros(out, np.int32)
    if _wide(x):
        return reference("count_nonzero")(x, axis)

    def build(p):
        c = ops.convert(_nonzero(p), _I32)
        return ops.reduce_sum(c, axes_const(axes), False) if axes else c

    return run1(("count_nonzero", axes), build, x)


def isin(x1, x2, assume_unique, invert):
    shape = np.shape(x1)
    if np.size(x1) == 0 or np.size(x2) == 0:
        return np.full(shape, bool(invert), np.bool_)
    if _wide(x1):
        return reference("isin")(x1, x2, assume_unique, invert)

    def build(a, b):
        a, b = _up(a), _up(b)
        rank = len(shape)
        flat = ops.reshape(b, axes_const([-1]), False)
        hit = _eq(ops.unsqueeze(a, const(rank, T.i64)), flat)
        found = ops.reduce_logical_or(hit, const(rank, T.i64), False)
        return ops.logical_not(found) if invert else found

    return run1(("isin", bool(invert)), build, x1, x2)


# ===== manipulation (polyops.ops.numpy.manipulation) ==================================


def _move(key, build, x, out_shape):
    """Run a data-movement model on ``x`` (8-byte dtypes as int32 pairs: the axes of
    ``build`` are non-negative, so the extra last axis rides along)."""
    if 0 in out_shape:
        return np.empty(out_shape, x.dtype)
    xb, undo = _bits32(x)
    return undo(run1(key, build, xb))


def roll(x, shift, axis):
    shape = tuple(np.shape(x))
    if axis is None:
        n = math.prod(shape)
        if n == 0 or shift % n == 0:
            return _copy(x)
        flat_shape = [n]

        def build(p):
            wide = len(p.get_output_partial_shape(0)) > len(shape)
            f = ops.reshape(p, axes_const(flat_shape + ([2] if wide else [])), False)
            r = ops.roll(f, axes_const([shift % n]), axes_const([0]))
            return ops.reshape(r, axes_const(list(shape) + ([2] if wide else [])), False)

        return _move(("roll", shift % n, None), build, x, shape)
    pairs = [(a, s % shape[a]) for a, s in zip(axis, shift) if shape[a] and s % shape[a]]
    if not pairs or 0 in shape:
        return _copy(x)

    def build(p):
        return ops.roll(p, axes_const([s for _, s in pairs]), axes_const([a for a, _ in pairs]))

    return _move(("roll", tuple(pairs)), build, x, shape)


def tile(x, repeats):
    shape = tuple(np.shape(x))
    nd = _bmax(len(shape), len(repeats))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(repeats)) + tuple(repeats)
    out = tuple(s * r for s, r in zip(shape, reps))
    if builtins.all(r == 1 for r in reps):
        return _copy(x).reshape(out)

    def build(p):
        wide = len(p.get_output_partial_shape(0)) > len(np.shape(x))
        extra = [2] if wide else []
        p = ops.reshape(p, axes_const(list(shape) + extra), False)
        return ops.tile(p, axes_const(list(reps) + ([1] if wide else [])))

    return _move(("tile", shape, reps), build, x, out)


def repeat(x, repeats, axis):
    shape = tuple(np.shape(x))
    if axis is None:
        shape, axis, flat = (math.prod(shape),), 0, True
    else:
        flat = False
    n = shape[axis]
    if isinstance(repeats, int):
        idx = np.repeat(np.arange(n), repeats)
    else:
        idx = np.repeat(np.arange(n), np.asarray(repeats, np.int64))
    out = shape[:axis] + (len(idx),) + shape[axis + 1:]
    if 0 in out:
        return np.empty(out, x.dtype)
    key_idx = repeats if isinstance(repeats, int) else tuple(repeats)

    def build(p):
        if flat:
            wide = len(p.get_output_partial_shape(0)) > np.ndim(x)
            p = ops.reshape(p, axes_const(list(shape) + ([2] if wide else [])), False)
        return ops.gather(p, axes_const(idx), const(axis, T.i64))

    return _move(("repeat", key_idx, axis, flat), build, x, out)


# ===== indexing (polyops.ops.numpy.indexing) ==========================================


def _triangle(name, lower):
    def kernel(x, k):
        shape = tuple(np.shape(x))
        if 0 in shape:
            return np.empty(shape, x.dtype)
        n, m = shape[-2:]
        rows = np.arange(n).reshape(n, 1)
        cols = np.arange(m).reshape(1, m)
        keep = (cols <= rows + k) if lower else (cols >= rows + k)
        if keep.all():
            return _copy(x)
        wide = _wide(x)

        def build(p):
            mask = keep[..., None] if wide else keep
            zero = ops.broadcast(const(0, etype(p)), axes_const(mask.shape))
            return ops.select(const(mask, T.boolean), p, zero)

        return _move((name, k, n, m), build, x, shape)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


tril = _triangle("tril", True)
triu = _triangle("triu", False)


def take_along_axis(x, indices, axis):
    if axis is None:
        return take(np.reshape(x, -1), indices, None) if np.size(indices) else np.empty(np.shape(indices), x.dtype)
    xs, ish = tuple(np.shape(x)), tuple(np.shape(indices))
    base = list(xs)
    base[axis] = ish[axis]
    out = np.broadcast_shapes(tuple(base), ish)
    if 0 in out:
        return np.empty(out, x.dtype)
    n = xs[axis]
    xshape = tuple(o if i != axis else n for i, o in enumerate(out))

    def build(p, i):
        wide = len(p.get_output_partial_shape(0)) > len(xs)
        extra = [2] if wide else []
        if xs != xshape:
            p = ops.broadcast(p, axes_const(list(xshape) + extra))
        i = ops.broadcast(i, axes_const(out)) if ish != out else i
        # indices outside [-n, n) read 0: polyops' policy under a trace (eagerly core
        # raised on them); GatherElements itself fails on them
        bad = ops.logical_or(ops.less(i, const(-n, _I32)), ops.greater_equal(i, const(n, _I32)))
        i = ops.select(ops.less(i, const(0, _I32)), ops.add(i, const(n, _I32)), i)
        i = ops.select(bad, const(0, _I32), i)
        if wide:
            i = ops.broadcast(ops.unsqueeze(i, const(len(out), T.i64)), axes_const(list(out) + [2]))
            bad = ops.unsqueeze(bad, const(len(out), T.i64))
        g = ops.gather_elements(p, i, axis)
        return ops.select(bad, ops.convert_like(const(0, _I32), g), g)

    xb, undo = _bits32(x)
    return undo(run1(("take_along_axis", axis), build, xb, indices))


def pad(x, pad_width, mode, constant_values):
    shape = tuple(np.shape(x))
    widths = tuple(pad_width)
    out = tuple(d + b + a for d, (b, a) in zip(shape, widths))
    if mode not in ("constant", "edge", "reflect", "symmetric", "wrap"):
        return reference("pad")(x, pad_width, mode, constant_values)
    if 0 in out:
        return np.empty(out, x.dtype)
    if builtins.all(b == 0 and a == 0 for b, a in widths):
        return _copy(x)
    if mode == "constant":
        if np.size(x) == 0:
            return np.full(out, constant_values, x.dtype)
        value = np.asarray(constant_values).astype(x.dtype)
        if _wide(x):  # the constant's bit pattern as an int32 pair
            value = np.ascontiguousarray(value).reshape(1).view(np.int32)

        def build(p):
            t = etype(p)
            extra = [(0, 0)] if len(p.get_output_partial_shape(0)) > len(shape) else []
            w = list(widths) + extra
            begin = axes_const([b for b, _ in w])
            end = axes_const([a for _, a in w])
            if extra:  # a constant pair: pad with zeros, then select the pattern in
                z = ops.pad(p, begin, end, "constant", const(0, t))
                inside = np.zeros(out, np.bool_)
                inside[tuple(slice(b, b + d) for d, (b, _) in zip(shape, widths))] = True
                fill = ops.broadcast(const(value, t), axes_const(list(out) + [2]))
                return ops.select(const(inside[..., None], T.boolean), z, fill)
            return ops.pad(p, begin, end, "constant", const(value, t))

        return _move(("pad", widths, mode, repr(value.tolist())), build, x, out)

    def build(p):
        for axis, (d, (b, a)) in enumerate(zip(shape, widths)):
            if b or a:
                p = ops.gather(p, axes_const(pad_index(d, b, a, mode)), const(axis, T.i64))
        return p

    return _move(("pad", widths, mode), build, x, out)
