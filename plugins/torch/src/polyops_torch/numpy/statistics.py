"""PyTorch kernels of `polyops.ops.numpy.statistics`: the NaN-ignoring sum and mean,
corrcoef, the quantiles.

The other order statistics and NaN-ignoring reductions (median...) run core's
references, composed of the kernels of the other submodules.
"""

from __future__ import annotations

import builtins
import math

import numpy as np
import torch

from polyops.plugin import nonempty, quantile_plan
from polyops.plugin import reference as _reference

from .._compat import is_compiling as _is_compiling


def nansum(x, axis, keepdims):
    # ints and bools have no NaN and accumulate wider (core's rule): the reference's sum
    if axis == () or not x.is_floating_point():
        return _reference("nansum")(x, axis, keepdims)
    return torch.nansum(x, dim=axis, keepdim=keepdims)


def nanmean(x, axis, keepdims):
    if axis == () or not x.is_floating_point():
        return _reference("nanmean")(x, axis, keepdims)
    if x.requires_grad:
        # torch.nanmean's gradient is NaN at the NaN entries, nansum's at an all-NaN
        # slice (inf * 0); the reference's is 0 at both, as jax's: its sum of the NaN
        # entries zeroed over the count, in fewer calls (issue 21: gradient graph 19 -> 14)
        nan = torch.isnan(x)
        total = torch.sum(x.masked_fill(nan, 0.0), dim=axis, keepdim=keepdims)
        return total / torch.sum(~nan, dim=axis, keepdim=keepdims)
    return torch.nanmean(x, dim=axis, keepdim=keepdims)  # all-NaN: 0 / 0


def corrcoef(x):
    # floating (ints arrive as floatx), 1-D (a 0-d result) or 2-D; clipped to [-1, 1]
    # torch warns on one observation (NaN here); torch.corrcoef does not trace under
    # torch.compile (a data-dependent aten.equal)
    if x.is_complex() or x.shape[-1] < 2 or _is_compiling():
        return _reference("corrcoef")(x)
    return torch.corrcoef(x)


# ===== quantiles ====================================================================
# The reference's algorithm (NumPy's: a stable sort of each row, NaN last, then its plan of
# indexes and weights, `quantile_plan`), as the numpy plugin's kernels, in a few torch
# calls: torch.quantile interpolates otherwise and has no NaN-ignoring form.


def _rows(x, axis):
    """x as (M, n): the kept axes flattened first, the reduced ones (None: all) last;
    and the result's shape without and with keepdims."""
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else axis
    kept = tuple(i for i in range(nd) if i not in axes)
    shape = tuple(x.shape[i] for i in kept)
    keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    n = math.prod([x.shape[a] for a in axes])
    if kept + axes != tuple(range(nd)):
        x = x.permute(kept + axes)
    return x.reshape(math.prod(shape), n), n, shape, keep


_PLANS: dict = {}


def _plan(n, qs, method, int_q, skip_nan, dtype, device):
    """quantile_plan for each q as tensors: (prev, next, gamma, 1 - gamma, gamma >= 0.5),
    each (n + 1, k) (skip_nan: by the count of non-NaN values) or (k,), and whether
    every gamma >= 0.5 (True), none (False) or some (None); gamma None where ``prev``
    is the answer.  Cached: pure numbers."""
    key = (n, qs, method, int_q, skip_nan, dtype, device)
    out = _PLANS.get(key)
    if out is not None:
        return out
    sizes = np.arange(n + 1, dtype=np.int64) if skip_nan else np.array([n], np.int64)
    plans = [quantile_plan(sizes, float(v) if skip_nan and not int_q else v, method, int_q)
             for v in qs]
    k = len(qs)

    def table(arrays, dt):
        # (n + 1, k) or (k,): laid out as the kernel reads them (no transpose in its graph)
        t = np.stack(arrays).reshape(k, -1)
        return torch.as_tensor(t.T.copy() if skip_nan else t[:, 0], dtype=dt, device=device)

    prev, nxt = table([p[0] for p in plans], torch.int64), table([p[1] for p in plans], torch.int64)
    gammas = [p[2] for p in plans]
    if gammas[0] is None:
        out = (prev, None, None, None, None, None)
    else:
        upper = np.stack([np.asarray(g) >= 0.5 for g in gammas])
        # the lerp's branch when every entry takes the same one: no select in the graph
        side = bool(upper.all()) if upper.all() or not upper.any() else None
        out = (prev, nxt, table(gammas, dtype), table([1 - g for g in gammas], dtype),
               table([g >= 0.5 for g in gammas], torch.bool), side)
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[key] = out
    return out


def _quantile_family(scale, skip_nan):
    # (x, q, axis, method, keepdims): x float32 or float64 (core's compute dtype), q a
    # Python number or a tuple of them (a tuple puts its length in front of the result's
    # shape), already in [0, scale]
    def kernel(x, q, axis, method, keepdims):
        qs = q if isinstance(q, tuple) else (q,)
        if scale != 1:
            qs, int_q = tuple(float(v) / scale for v in qs), False
        else:
            int_q = builtins.all(isinstance(v, int) for v in qs)
        x2, n, shape, keep = _rows(x, axis)
        out_shape = ((len(qs),) if isinstance(q, tuple) else ()) + (keep if keepdims else shape)
        if not qs:
            return torch.full(out_shape, math.nan, dtype=x.dtype, device=x.device)
        s = torch.sort(x2, dim=-1, stable=True).values  # NaN last
        prev, nxt, g, g1, ge, side = _plan(n, qs, method, int_q, skip_nan, x.dtype, x.device)
        # (M, k) throughout, the rows' layout (issue 21: no transposes in the graph)
        if skip_nan:  # each row's plan by its count of non-NaN values
            count = n - torch.isnan(x2).sum(1)

            def at(pos):
                return torch.gather(s, 1, pos[count])

            def pick(t):
                return t[count]

            bad = torch.isnan(s[:, :1])  # all NaN: NaN first
        else:

            def at(pos):
                return s[:, pos]

            def pick(t):
                return t

            bad = torch.isnan(s[:, n - 1:])  # any NaN: NaN last
        out = at(prev)
        if g is not None:  # NumPy's _lerp: a + (b - a) * g, or b - (b - a) * (1 - g)
            b = at(nxt)
            d = b - out
            if side is None:
                out = torch.where(pick(ge), b - d * pick(g1), out + d * pick(g))
            else:
                out = b - d * pick(g1) if side else out + d * pick(g)
        out = out.masked_fill(bad, math.nan)
        return (out.T if isinstance(q, tuple) else out).reshape(out_shape)

    return nonempty(kernel)


quantile = _quantile_family(1, False)
percentile = _quantile_family(100, False)
nanquantile = _quantile_family(1, True)
nanpercentile = _quantile_family(100, True)
