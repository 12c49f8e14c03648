"""PyTorch kernels of `polyops.ops.numpy.statistics`: the NaN-ignoring sum and mean,
corrcoef.

The other order statistics and NaN-ignoring reductions (median, quantile...) run
core's references, composed of the kernels of the other submodules.
"""

from __future__ import annotations

import torch

from polyops.plugin import reference as _reference

from .._compat import is_compiling as _is_compiling


def nansum(x, axis, keepdims):
    # ints and bools have no NaN and accumulate wider (core's rule): the reference's sum
    if axis == () or not x.is_floating_point():
        return _reference("nansum")(x, axis, keepdims)
    return torch.nansum(x, dim=axis, keepdim=keepdims)


def nanmean(x, axis, keepdims):
    # (torch.nanmean's gradient is NaN at the NaN entries; the reference's is 0, as jax's)
    if axis == () or not x.is_floating_point() or x.requires_grad:
        return _reference("nanmean")(x, axis, keepdims)
    return torch.nanmean(x, dim=axis, keepdim=keepdims)  # all-NaN: 0 / 0


def corrcoef(x):
    # floating (ints arrive as floatx), 1-D (a 0-d result) or 2-D; clipped to [-1, 1]
    # torch warns on one observation (NaN here); torch.corrcoef does not trace under
    # torch.compile (a data-dependent aten.equal)
    if x.is_complex() or x.shape[-1] < 2 or _is_compiling():
        return _reference("corrcoef")(x)
    return torch.corrcoef(x)
