"""OpenVINO kernels of ``polyops.ops.numpy.statistics``: nansum, nanmean and ptp of
floats (core's references, one model each); core's references compose the others
(median, quantile...) and these for ints and bools."""

from __future__ import annotations

import numpy as np

from polyops.plugin import reference

from .._graph import axes_const, const, etype, ops, run1_dyn
from ._common import _conv, _cpu_type, _float_extreme, _kind, _reduce_plan, _wide


def _float_reduction(name, make):
    def kernel(x, axis, keepdims):
        if _kind(x) != "f":
            return reference(name)(x, axis, keepdims)
        axes = _reduce_plan(x, axis, keepdims)[1]

        def build(p):
            t = etype(p)
            return _conv(make(_cpu_type(p), axes, keepdims), t)

        return run1_dyn((name, axes, keepdims), build, x)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _rsum(u, axes, keepdims):
    return ops.reduce_sum(u, axes_const(axes), keepdims) if axes else u


def _nansum(u, axes, keepdims):
    return _rsum(ops.select(ops.is_nan(u), const(0, etype(u)), u), axes, keepdims)


def _nanmean(u, axes, keepdims):
    t = etype(u)
    nan = ops.is_nan(u)
    total = _rsum(ops.select(nan, const(0, t), u), axes, keepdims)
    count = _rsum(ops.convert(ops.logical_not(nan), t), axes, keepdims)  # (exact to 2**24)
    return ops.divide(total, count)


def _ptp(u, axes, keepdims):
    if not axes:
        return ops.subtract(u, u)
    return ops.subtract(_float_extreme(u, axes, keepdims, ops.reduce_max, -np.inf),
                        _float_extreme(u, axes, keepdims, ops.reduce_min, np.inf))


_nansum_kernel = _float_reduction("nansum", _nansum)


def nansum(x, axis, keepdims):
    if axis == () and _wide(x):  # (no sum: core's where keeps every bit of a float64)
        return np.where(np.isnan(x), np.zeros((), x.dtype), x)
    return _nansum_kernel(x, axis, keepdims)


nanmean = _float_reduction("nanmean", _nanmean)
ptp = _float_reduction("ptp", _ptp)

