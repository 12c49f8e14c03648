"""OpenVINO kernels for the ``math`` op family (the rest use core's references).

Each kernel is one cached model (see ``_graph``).  erf, erfc and erfinv evaluate core's
single-precision formulas (Cephes erff/erfcf, Giles) as one graph: OpenVINO's own Erf is
less accurate (1.5e-6 relative near |x| = 0.25) and flushes tiny x to 0.  Integer inputs
the CPU plugin would compare or reduce in float32 (int32 and wider) use core's references,
as do gammainc, logdet and the FFT ops (OpenVINO has no complex dtypes).
"""

from __future__ import annotations

import numpy as np

from polyops.plugin import erf_polynomials, reference

from ._graph import T, TracedValueError, axes_const, const, etype, is_lazy, ops, run, run1
from ._graph import run1_dyn, to
from .numpy._common import _cpu_type, _flip

_POLY = erf_polynomials()

_FLOAT = frozenset({T.f16, T.bf16, T.f32, T.f64})
_F32 = T.f32


def _c(v):
    return const(v, _F32)


def _float_unary(name, make):
    """A float kernel evaluating ``make(f32 node)`` as one model."""

    def kernel(x):
        def build(p):
            t = etype(p)
            u = to(p, _F32)
            # NaN in, NaN out (the CPU plugin's Minimum/Maximum drop NaN)
            return to(ops.select(ops.is_nan(u), u, make(u)), t)

        return run1_dyn((name,), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# ===== erf, erfc, erfinv, rsqrt =======================================================


def _polyval(coeffs, x):
    acc = _c(coeffs[0])
    for co in coeffs[1:]:
        acc = ops.add(ops.multiply(acc, x), _c(co))
    return acc


def _erf_small(x):
    return ops.multiply(x, _polyval(_POLY["erf"], ops.multiply(x, x)))


def _erfc_large(a):
    big = ops.greater(a, _c(9.19))
    a = ops.minimum(ops.maximum(a, _c(1.0)), _c(9.19))
    h = ops.divide(ops.floor(ops.multiply(a, _c(16.0))), _c(16.0))
    z = ops.multiply(ops.exp(ops.negative(ops.multiply(h, h))),
                     ops.exp(ops.negative(ops.multiply(ops.subtract(a, h), ops.add(a, h)))))
    q = ops.divide(_c(1.0), a)
    y = ops.multiply(q, q)
    p = ops.select(ops.less(a, _c(2.0)), _polyval(_POLY["erfc_p"], y), _polyval(_POLY["erfc_r"], y))
    return ops.select(big, _c(0.0), ops.multiply(ops.multiply(z, q), p))


def _erf_make(x):
    a = ops.abs(x)
    big = ops.multiply(ops.sign(x), ops.subtract(_c(1.0), _erfc_large(a)))
    return ops.select(ops.less(a, _c(1.0)), _erf_small(x), big)


def _erfc_make(x):
    a = ops.abs(x)
    y = _erfc_large(a)
    big = ops.select(ops.less(x, _c(0.0)), ops.subtract(_c(2.0), y), y)
    return ops.select(ops.less(a, _c(1.0)), ops.subtract(_c(1.0), _erf_small(x)), big)


def _erfinv_make(x):
    a = ops.abs(x)
    inside = ops.less(a, _c(1.0))
    xs = ops.select(inside, x, _c(0.0))
    w = ops.negative(ops.log(ops.multiply(ops.subtract(_c(1.0), xs), ops.add(_c(1.0), xs))))
    central = _polyval(_POLY["erfinv_central"], ops.subtract(w, _c(2.5)))
    tail = _polyval(_POLY["erfinv_tail"], ops.subtract(ops.sqrt(ops.maximum(w, _c(5.0))), _c(3.0)))
    y = ops.multiply(ops.select(ops.less(w, _c(5.0)), central, tail), xs)
    edge = ops.select(ops.equal(a, _c(1.0)), ops.multiply(x, _c(np.inf)), _c(np.nan))
    return ops.select(inside, y, edge)


erf = _float_unary("erf", _erf_make)
erfc = _float_unary("erfc", _erfc_make)
erfinv = _float_unary("erfinv", _erfinv_make)
rsqrt = _float_unary("rsqrt", lambda x: ops.divide(_c(1.0), ops.sqrt(x)))


# ===== top_k, in_top_k ================================================================


def _topk_index(p, k, n):
    """int32 indices of the k largest along the last axis: NaN first, ties lower index first."""
    t = etype(p)
    kk = const(k, T.i32)
    if t not in _FLOAT:
        v = _cpu_type(p)
        if etype(v) == T.u32:
            v = _flip(v)
        return ops.topk(v, kk, -1, "max", "value", "i32", True).output(1)
    nan = ops.is_nan(p)
    key = ops.select(nan, const(np.inf, t), p)
    first = ops.topk(key, const(n, T.i32), -1, "max", "value", "i32", True).output(1)
    late = ops.convert(ops.gather_elements(nan, first, -1), T.i32)
    second = ops.topk(late, kk, -1, "max", "value", "i32", True).output(1)
    return ops.gather_elements(first, second, -1)


def top_k(x, k, sorted=True):
    n = x.shape[-1]
    shape = x.shape[:-1] + (k,)
    if k == 0:
        return np.empty(shape, x.dtype), np.empty(shape, np.int32)
    if x.dtype.itemsize == 8:  # TopK narrows 8-byte ints
        return reference("top_k")(x, k, sorted)

    def build(p):
        idx = _topk_index(p, k, n)
        return [ops.gather_elements(p, idx, -1), idx]

    vals, idx = run(("top_k", k), build, x)
    return vals, idx


def in_top_k(targets, predictions, k):
    c = predictions.shape[1]
    if predictions.dtype.kind in "iub" and predictions.dtype.itemsize >= 4:
        return reference("in_top_k")(targets, predictions, k)  # f32 comparisons are inexact

    def build(tg, pr):
        p = to(pr, _F32)
        valid = ops.logical_and(ops.greater_equal(tg, const(0, T.i32)), ops.less(tg, const(c, T.i32)))
        safe = ops.select(valid, tg, const(0, T.i32))
        at = ops.gather_elements(p, ops.unsqueeze(safe, const([-1], T.i64)), -1)  # (B, 1)
        at = ops.select(ops.is_nan(at), _c(-np.inf), at)
        gt = ops.logical_and(ops.greater(p, at), ops.logical_not(ops.is_nan(p)))  # (NaN > -inf is True here)
        above = ops.reduce_sum(ops.convert(gt, T.i32), axes_const([-1]), False)
        return ops.logical_and(valid, ops.less(above, const(k, T.i32)))

    return run1(("in_top_k", k), build, targets, predictions)


# ===== logsumexp ======================================================================


def logsumexp(x, axis=None, keepdims=False):
    axes = list(range(x.ndim)) if axis is None else list(axis)

    def build(p):
        t = etype(p)
        a = to(p, _F32)
        ax = axes_const(axes)
        m = ops.reduce_max(a, ax, True)
        m = ops.select(ops.is_finite(m), m, _c(0.0))
        s = ops.log(ops.reduce_sum(ops.exp(ops.subtract(a, m)), ax, keepdims))
        if not keepdims:
            m = ops.reduce_max(m, ax, False)
        return to(ops.add(s, m), t)

    return run1_dyn(("logsumexp", tuple(axes), bool(keepdims)), build, x)


# ===== segment reductions =============================================================


def _segment(kind):
    name = "segment_" + kind

    def kernel(data, segment_ids, num_segments, sorted=False):
        dt = data.dtype
        if dt.kind in "iu" and dt.itemsize == 8:
            if not is_lazy(data) and not is_lazy(segment_ids):
                return _segment_host(kind, data, segment_ids, num_segments)
            if kind in ("max", "min"):
                raise TracedValueError(f"{name}: an int64 empty segment's identity needs the "
                                       "host (OpenVINO computes int64 in 32 bits)")
        if dt.kind in "iub":  # integer scatter reductions are not exact on the CPU plugin
            return reference(name)(data, segment_ids, num_segments, sorted)
        out_shape = (num_segments,) + data.shape[1:]
        if num_segments == 0:
            return np.empty(out_shape, dt)
        fill = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
        rest = list(data.shape[1:])
        s = num_segments

        def build(d, ids):
            valid = ops.logical_and(ops.greater_equal(ids, const(0, T.i32)), ops.less(ids, const(s, T.i32)))
            idx = ops.select(valid, ids, const(s, T.i32))  # dropped ids go to a spare row
            idx = ops.reshape(idx, axes_const([-1] + [1] * len(rest)), False)
            idx = ops.broadcast(idx, axes_const(list(data.shape)))
            base = ops.broadcast(const(fill, etype(d)), axes_const([s + 1] + rest))
            out = ops.scatter_elements_update(base, idx, d, const(0, T.i64), kind, True)
            return ops.slice(out, axes_const([0]), axes_const([s]), axes_const([1]),
                             axes_const([0]))

        res = run1((name, s), build, data, segment_ids)
        return res.reshape(out_shape)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _segment_host(kind, data, ids, s):
    """A segment reduction of int64/uint64 data, exact on the host (the CPU plugin computes
    64-bit ints in 32 bits, where an empty segment's identity, iinfo.min, does not fit)."""
    info = np.iinfo(data.dtype)
    fill = {"sum": 0, "prod": 1, "max": info.min, "min": info.max}[kind]
    out = np.full((s,) + data.shape[1:], fill, data.dtype)
    ids = np.asarray(ids).reshape(-1)
    valid = (ids >= 0) & (ids < s)
    fn = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}[kind]
    fn.at(out, ids[valid], np.asarray(data)[valid])
    return out


segment_sum = _segment("sum")
segment_max = _segment("max")
segment_min = _segment("min")
segment_prod = _segment("prod")


# ===== cdist, extract_sequences =======================================================


def cdist(x, y):
    def build(a, b):
        diff = ops.subtract(ops.unsqueeze(a, const([-2], T.i64)), ops.unsqueeze(b, const([-3], T.i64)))
        return ops.sqrt(ops.reduce_sum(ops.multiply(diff, diff), axes_const([-1]), False))

    return run1_dyn(("cdist",), build, x, y)


def extract_sequences(x, sequence_length, sequence_stride):
    n = x.shape[-1]
    count = max(1 + (n - sequence_length) // sequence_stride, 0)
    shape = x.shape[:-1] + (count, sequence_length)
    if count == 0:  # x shorter than one sequence (OpenVINO's Gather crashes on no indices)
        return np.empty(shape, x.dtype)
    if x.dtype.itemsize == 8:  # the CPU plugin narrows 8-byte ints
        return reference("extract_sequences")(x, sequence_length, sequence_stride)

    def build(p):  # (the indices only when a model is built)
        idx = (np.arange(count, dtype=np.int32)[:, None] * sequence_stride
               + np.arange(sequence_length, dtype=np.int32)[None, :])
        return ops.gather(p, const(idx, T.i32), const(-1, T.i64))

    return run1(("extract_sequences", sequence_length, sequence_stride), build, x)
