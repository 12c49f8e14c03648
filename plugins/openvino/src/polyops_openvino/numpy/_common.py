"""Helpers the ``numpy`` kernel submodules share: compute types, the exact int32 graph
helpers (comparisons, division, fmod), elementwise kernel factories, and the plans of
reductions and data movement."""

from __future__ import annotations

import builtins

import numpy as np

from .._graph import HALF_TYPES, T, axes_const, const, etype, is_lazy, ops, run1
from .._graph import run1_dyn


_bmax = builtins.max

_FLOAT = frozenset({T.f16, T.bf16, T.f32, T.f64})
_NARROW = frozenset({T.i8, T.i16, T.u8, T.u16, T.boolean})
_WIDE_INT = frozenset({T.i32, T.u32, T.i64, T.u64})
_UNSIGNED = frozenset({T.u8, T.u16, T.u32, T.u64})
_F32 = T.f32
_I32 = T.i32


def _cpu_type(n):
    """The type a node computes in: half floats in f32, bool and narrow ints in i32.  (Only
    ops without a compute dtype get half floats here: the float graph helpers build f32
    nodes, and an OpenVINO node takes operands of one element type.)"""
    t = etype(n)
    if t in HALF_TYPES:
        return ops.convert(n, _F32)
    if t in _NARROW:
        return ops.convert(n, _I32)
    return n


def _kind(x):
    """'b' bool, 'i' signed int, 'u' unsigned int, 'f' float (numpy or bfloat16)."""
    k = x.dtype.kind
    return "f" if k == "V" else k  # ml_dtypes.bfloat16 has kind 'V'


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


def _nan_aware(fn, a, b):
    """``fn(a, b)`` that returns NaN where either float operand is NaN."""
    return ops.select(ops.is_nan(a), a, ops.select(ops.is_nan(b), b, fn(a, b)))


# ===== elementwise kernel factories =================================================


def _unary_build(fn):
    def build(x):
        return _conv(fn(_cpu_type(x)), etype(x))

    return build


def _unary(name, fn):
    build = _unary_build(fn)
    key = (name,)

    def kernel(x):
        return run1_dyn(key, build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _exp(x):
    return ops.select(ops.is_nan(x), x, ops.exp(x))  # the CPU plugin gives exp(nan) = inf


def _binary_build(fn):
    def build(a, b):
        return _conv(fn(_cpu_type(a), _cpu_type(b)), etype(a))

    return build


def _binary(name, fn):
    build = _binary_build(fn)
    key = (name,)

    def kernel(x1, x2):
        return run1_dyn(key, build, x1, x2)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _extremum(fn):
    def build(a, b):
        t = etype(a)
        if t == T.boolean:
            return (ops.logical_or if fn is ops.maximum else ops.logical_and)(a, b)
        au, bu = _cpu_type(a), _cpu_type(b)
        if t in _FLOAT:
            return _conv(_nan_aware(fn, au, bu), t)
        if t in _UNSIGNED and t not in _NARROW:  # Maximum/Minimum are signed on u32
            return _unflip(fn(_flip(au), _flip(bu)), t)
        return _conv(fn(au, bu), t)

    return build


# ===== helpers of the reductions, scans and data movement ===========================


def _reduce_plan(x, axis, keepdims):
    shape = tuple(np.shape(x))
    axes = tuple(range(len(shape))) if axis is None else tuple(axis)
    if keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return shape, axes, out


def _float_extreme(u, axes, keepdims, reduce, inf):
    """``reduce`` (ReduceMax or ReduceMin) of the float node ``u`` over ``axes`` as max's
    and min's rule: the CPU plugin's reduction of a slice of only -inf (+inf for min) gives
    the finite extreme, so the infinity ``inf`` is put back, and it skips NaN, so a slice
    with one gives NaN."""
    ax = axes_const(axes)
    t = etype(u)
    r = ops.select(ops.reduce_logical_and(ops.equal(u, const(inf, t)), ax, keepdims),
                   const(inf, t), reduce(u, ax, keepdims))
    return ops.select(ops.reduce_logical_or(ops.is_nan(u), ax, keepdims), const(np.nan, t), r)


def _rounded(n, t):
    """The f32 node ``n`` rounded to the half float ``t`` and read back: a kernel's result
    in ``t`` that core's reference hands to its next op (other types: ``n``).  Exact for
    bfloat16 only: the CPU plugin computes a model's f16 nodes in f32 (see base._moment)."""
    return ops.convert(ops.convert(n, t), _F32) if t in HALF_TYPES else n


def _count(n, axes):
    """The number of elements of ``n`` over ``axes``, in ``n``'s type (its shape read in
    the model, which so serves every shape of a rank)."""
    dims = ops.gather(ops.shape_of(n, "i32"), axes_const(axes), const(0, T.i64))
    return ops.convert(ops.reduce_prod(dims, const(0, T.i64), False), etype(n))


def _mean_of(u, axes, keepdims, t):
    """core's ``mean`` reference on ``u`` (``t`` computed in f32): the sum, rounded to
    ``t``, divided by the count (no axes: ``u``, a division by 1)."""
    if not axes:
        return u
    return ops.divide(_rounded(ops.reduce_sum(u, axes_const(axes), keepdims), t), _count(u, axes))


def _var_of(u, axes, keepdims, t):
    """core's ``var`` reference: ``mean(square(x - mean(x)))``, each step rounded to ``t``."""
    c = _rounded(ops.subtract(u, _rounded(_mean_of(u, axes, True, t), t)), t)
    return _mean_of(_rounded(ops.multiply(c, c), t), axes, keepdims, t)


def _slice(x, starts, stops, axes):
    n = len(starts)
    return ops.slice(x, axes_const(starts), axes_const(stops), axes_const([1] * n), axes_const(axes))


def _wide(x):
    """True for 8-byte arrays, which the CPU plugin narrows in most nodes (a recorded
    8-byte value is its 32-bit stand-in already: False, see _graph._NARROW)."""
    return x.dtype.itemsize == 8 and not is_lazy(x)


def _bits32(x):
    """An 8-byte array as int32 pairs on a new last axis (data-movement models keep the
    bits exactly); other arrays as they are.  Returns (array, undo)."""
    if x.dtype.itemsize != 8 or is_lazy(x):
        # (a recorded 64-bit value is its 32-bit stand-in already, see _graph._NARROW)
        return x, lambda r: r
    x = np.asarray(x)
    if not x.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        x = x.copy(order="C")
    dtype = x.dtype

    def undo(r):
        return np.ascontiguousarray(r).view(dtype).reshape(r.shape[:-1])

    return x.reshape(x.shape + (1,)).view(np.int32), undo


def _move(key, build, x):
    """Run a data-movement model on ``x`` (8-byte dtypes as int32 pairs: the axes of
    ``build`` are non-negative, so the extra last axis rides along)."""
    xb, undo = _bits32(x)
    return undo(run1(key, build, xb))


def _reverse(p, axes, shape):
    """``p`` reversed along ``axes`` (non-negative ints) of ``shape``: a Gather of constant
    indices per axis.  (A Slice of step -1 is 2.4x slower along the last axis of a 512x512
    float32, 5x in a dynamic model; a Gather of indices computed from the shape in the
    model, 2x: the flips are static models, one per shape.)"""
    for a in axes:
        p = ops.gather(p, axes_const(np.arange(shape[a] - 1, -1, -1)), const(a, T.i64))
    return p


def _kept(store: dict, key: tuple, make, limit: int = 1024):
    """``make(*key)``, kept in ``store`` (cleared when ``limit`` entries are reached): a
    kernel's plan per (shapes, static arguments), which costs more than a small model call."""
    value = store.get(key)
    if value is None:
        value = make(*key)
        if len(store) >= limit:
            store.clear()
        store[key] = value
    return value
