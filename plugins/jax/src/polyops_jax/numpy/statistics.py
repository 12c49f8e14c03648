"""JAX kernels of ``polyops.ops.numpy.statistics``: ptp, NaN-ignoring max/min and
their args, median and nanmedian; the other reductions, quantiles, average and corrcoef
are core's references compiled into one jax function each."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from polyops.plugin import nonempty

from ._common import (_F32, _INT32, _LOW_FLOATS, _as, _compiled_reference, _floating, _floatx, _jit,
                      builtins_range)


@_jit(1, 2)
def ptp(x, axis, keepdims):
    # ints wrap like the dtype (int8 127 - -128 is -1); bool: max != min
    hi, lo = jnp.max(x, axis, keepdims=keepdims), jnp.min(x, axis, keepdims=keepdims)
    return hi != lo if x.dtype == jnp.bool_ else hi - lo


def nanmax(x, axis, keepdims):
    return jnp.nanmax(x, axis, keepdims=keepdims)  # an all-NaN slice gives NaN


def nanmin(x, axis, keepdims):
    return jnp.nanmin(x, axis, keepdims=keepdims)


def nanargmax(x, axis, keepdims):
    # NaN counts as -inf; an all-NaN slice gives -1 (jnp's answer, core's contract)
    return _as(jnp.nanargmax(x, axis, keepdims=keepdims), _INT32)


def nanargmin(x, axis, keepdims):
    return _as(jnp.nanargmin(x, axis, keepdims=keepdims), _INT32)


def _median(x, axis, keepdims, skip_nan):
    # core's reference with one native sort: rows of the reduced axes, the middle one or
    # two values in the result dtype (float32 for ints under a 16-bit floatx), (a + b) * 0.5
    dtype = x.dtype if _floating(x.dtype) else _floatx()
    work = _F32 if dtype in _LOW_FLOATS else dtype
    nd = x.ndim
    axes = tuple(builtins_range(nd)) if axis is None else axis
    kept = tuple(i for i in builtins_range(nd) if i not in axes)
    if keepdims:
        out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        out_shape = tuple(x.shape[i] for i in kept)
    n = 1
    for a in axes:
        n *= x.shape[a]
    floating = _floating(x.dtype)
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.uint8)
    rows = jnp.transpose(x, kept + axes).reshape(tuple(x.shape[i] for i in kept) + (n,))
    s = jnp.sort(rows, axis=-1)  # NaN last
    if skip_nan and floating:
        counts = n - jnp.sum(jnp.isnan(rows), axis=-1, dtype=_INT32)
        # lax.div truncates, as floor does for counts >= 0 (-1 -> 0, clipped to 0 either
        # way): jnp's // on ints is ~20 XLA ops of sign fixes, which put the kernel's fusion
        # on XLA:CPU's thread pool (3x jnp.nanmedian on small inputs)
        two = counts.dtype.type(2)
        lo = jnp.maximum(lax.div(counts - 1, two), 0)
        hi = jnp.minimum(lax.div(counts, two), jnp.maximum(counts - 1, 0))
        a = jnp.take_along_axis(s, lo[..., None], -1)[..., 0].astype(work)
        b = jnp.take_along_axis(s, hi[..., None], -1)[..., 0].astype(work)
        out = jnp.where(lo == hi, a, (a + b) * 0.5)
        out = jnp.where(counts == 0, jnp.full((), np.nan, work), out)
    else:
        out = s[..., (n - 1) // 2].astype(work)
        if n % 2 == 0:
            out = (out + s[..., n // 2].astype(work)) * 0.5
        if floating:
            out = jnp.where(jnp.isnan(s[..., n - 1]), jnp.full((), np.nan, work), out)
    return _as(out, dtype).reshape(out_shape)


@nonempty  # the middle of an empty row is out of bounds (core's fill: NaN)
@_jit(1, 2)
def median(x, axis, keepdims):
    return _median(x, axis, keepdims, False)


@_jit(1, 2)
def nanmedian(x, axis, keepdims):
    return _median(x, axis, keepdims, True)


# ===== core's references, compiled ===================================================
# jnp's nan-reductions, quantiles and corrcoef differ from the contracts at the edges
# (accumulation dtypes, all-NaN slices, the int-q rule): the references, one dispatch each

nansum = _compiled_reference("nansum", 1, 2)
nanprod = _compiled_reference("nanprod", 1, 2)
nanmean = _compiled_reference("nanmean", 1, 2)
nanvar = _compiled_reference("nanvar", 1, 2)
nanstd = _compiled_reference("nanstd", 1, 2)
quantile = _compiled_reference("quantile", 1, 2, 3, 4, exact=True)
percentile = _compiled_reference("percentile", 1, 2, 3, 4, exact=True)
average = _compiled_reference("average", 1)
corrcoef = _compiled_reference("corrcoef")
