"""PyTorch kernels of `polyops.ops.numpy.products`: tensor products, trapezoid,
slogdet, window functions."""

from __future__ import annotations

import builtins
import math

import torch

from polyops.plugin import reference as _reference

from .._compat import is_compiling as _is_compiling
from ..core import TORCH_DTYPES
from ._common import _F64, _product, _widened


# ===== products =====================================================================


def outer(x1, x2):
    return _widened(torch.outer)(x1.reshape(-1), x2.reshape(-1))


kron = _widened(torch.kron)


def inner(x1, x2):
    if x1.ndim == 0 or x2.ndim == 0:
        return _widened(torch.mul)(x1, x2)
    return _product(torch.inner, x1, x2)


def vdot(x1, x2):
    a, b = x1.reshape(-1), x2.reshape(-1)
    if a.is_complex():
        return torch.vdot(a, b)
    return _product(torch.dot, a, b)


def tensordot(x1, x2, axes):
    a1, a2 = axes
    if not a1:  # no contraction: an outer product, no sums
        return _widened(torch.mul)(x1.reshape(tuple(x1.shape) + (1,) * x2.ndim), x2)
    return _product(torch.tensordot, x1, x2, (list(a1), list(a2)))


def cross(x1, x2, axisa, axisb, axisc, axis):
    if x1.shape[axisa] == 3 and x2.shape[axisb] == 3:
        try:
            if x1.ndim == x2.ndim and axisa == axisb:  # the common case: no moves
                out = torch.linalg.cross(x1, x2, dim=axisa)
                return out if axisc == axisa else torch.movedim(out, axisa, axisc)
            # linalg.cross wants one rank: broadcast the batch dims (views)
            a, b = torch.movedim(x1, axisa, -1), torch.movedim(x2, axisb, -1)
            return torch.movedim(torch.linalg.cross(*torch.broadcast_tensors(a, b)), -1, axisc)
        except RuntimeError:  # no kernel for the dtype (bool, wide unsigned ints)
            pass
    # 2-component vectors (torch has none): NumPy's formulas
    return _reference("cross")(x1, x2, axisa, axisb, axisc, axis)


def trapezoid(y, x, dx, axis):
    n = y.shape[axis]
    m = builtins.max(n - 1, 0)
    hi, lo = y.narrow(axis, builtins.min(n, 1), m), y.narrow(axis, 0, m)
    if x is None and not _is_compiling():
        # the sum of (y[i+1] + y[i]) * dx / 2 as sums, no difference (torch.trapezoid's
        # sum(y) - (y[0] + y[-1]) / 2 is NaN for an infinite end): the same infinities and
        # NaN, the last bits rounded as a pairwise sum's.  Large: (y[0] + 2 * sum(y[1:-1]) +
        # y[-1]) * dx / 2, one pass over y where the elementwise form makes four; small: the
        # sum of y[1:] + y[:-1] (the reference's sum, scaled after it: the same values for
        # a power-of-two dx), fewer calls.  (Compiled, the elementwise form below fuses
        # into its sum: a smaller graph.)
        if n < 2 or y.numel() < _ONE_PASS:
            return torch.sum(torch.add(hi, lo), dim=axis).mul_(dx / 2.0)
        ends = torch.add(y.select(axis, 0), y.select(axis, n - 1))
        inner = torch.sum(y.narrow(axis, 1, n - 2), dim=axis)
        return torch.add(ends, inner, alpha=2.0).mul_(dx / 2.0)
    if x is None:
        d = dx
    else:
        xa = 0 if x.ndim == 1 else axis
        d = torch.diff(x, dim=xa)
        if x.ndim == 1 and y.ndim > 1:
            d = d.reshape(tuple(d.shape[0] if i == axis else 1 for i in range(y.ndim)))
    # NumPy's sum of d * (y[i+1] + y[i]) / 2 (torch.trapezoid factors dx out: inf - inf)
    return torch.sum(d * (hi + lo) / 2.0, dim=axis)


_ONE_PASS = 1 << 15  # elements of y


def slogdet(x):
    sign, logdet = torch.linalg.slogdet(x)
    return sign + 0.0, logdet  # a singular matrix gives sign -0.0


# ===== windows ======================================================================
# Window functions: NumPy's formulas, in float64 as NumPy computes them.


def _window(x, fn):
    from polyops import config

    dtype = TORCH_DTYPES[config.floatx()]
    if x <= 1:
        return torch.ones((builtins.max(x, 0),), dtype=dtype)
    n = torch.arange(1 - x, x, 2, dtype=_F64)
    return fn(n, x).to(dtype)


def bartlett(x):
    return _window(x, lambda n, m: torch.where(n <= 0, 1 + n / (m - 1), 1 - n / (m - 1)))


def blackman(x):
    return _window(x, lambda n, m: 0.42 + 0.5 * torch.cos(math.pi * n / (m - 1))
                   + 0.08 * torch.cos(2.0 * math.pi * n / (m - 1)))


def hamming(x):
    return _window(x, lambda n, m: 0.54 + 0.46 * torch.cos(math.pi * n / (m - 1)))


def hanning(x):
    return _window(x, lambda n, m: 0.5 + 0.5 * torch.cos(math.pi * n / (m - 1)))


def kaiser(x, beta):
    beta = builtins.abs(beta)

    def fn(n, m):
        # I0(beta r) / I0(beta) with the scaled i0e, so a large beta cannot overflow
        alpha = (m - 1) / 2.0
        r = torch.sqrt(torch.clamp(1 - (torch.arange(m, dtype=_F64) - alpha) ** 2 / alpha**2, min=0))
        i0e = torch.special.i0e
        return i0e(beta * r) / i0e(torch.tensor(beta, dtype=_F64)) * torch.exp(beta * (r - 1))

    return _window(x, fn)
