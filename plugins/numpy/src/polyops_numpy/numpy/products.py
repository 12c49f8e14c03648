"""NumPy kernels of ``polyops.ops.numpy.products``: tensor products, cross, trapezoid,
correlate, slogdet and the window functions."""

from __future__ import annotations

import builtins

import numpy as np
import polyops

from ..core import NP_DTYPES


# ----- products -----------------------------------------------------------------------

outer = np.outer
kron = np.kron


def inner(x1, x2):
    return np.asarray(np.inner(x1, x2)).astype(x1.dtype, copy=False)


def vdot(x1, x2):
    return np.asarray(np.vdot(x1, x2)).astype(x1.dtype, copy=False)


def tensordot(x1, x2, axes):
    return np.tensordot(x1, x2, axes).astype(x1.dtype, copy=False)


def cross(x1, x2, axisa, axisb, axisc, axis):
    # NumPy's formulas, written out: np.cross warns on 2-component vectors (NumPy 2).
    a, b = np.moveaxis(x1, axisa, -1), np.moveaxis(x2, axisb, -1)
    n1, n2 = a.shape[-1], b.shape[-1]
    z = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if axisc is None:
        return z
    if n1 == 3 and n2 == 3:
        x = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
        y = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    elif n1 == 2:
        x, y = a[..., 1] * b[..., 2], -(a[..., 0] * b[..., 2])
    else:
        x, y = -(a[..., 2] * b[..., 1]), a[..., 2] * b[..., 0]
    return np.stack(np.broadcast_arrays(x, y, z), axis=axisc)


def trapezoid(y, x, dx, axis):
    out = np.trapezoid(y, x, dx, axis)
    return np.asarray(out).astype(y.dtype, copy=False)


def correlate(x1, x2, mode):
    return np.correlate(x1, x2, mode).astype(x1.dtype, copy=False)


def slogdet(x):
    # x float32 or float64 (compute dtype); LAPACK's LU: a zero pivot gives (0, -inf),
    # a 0x0 matrix (1, 0)
    sign, logabsdet = np.linalg.slogdet(x)
    return np.asarray(sign), np.asarray(logabsdet)  # (0-d arrays for one matrix, not scalars)


# ----- windows ------------------------------------------------------------------------


def _window(np_fn):
    def kernel(x):
        # NumPy computes in float64; the result is floatx
        return np_fn(x).astype(NP_DTYPES[polyops.config.floatx()])

    kernel.__name__ = np_fn.__name__
    return kernel


bartlett = _window(np.bartlett)
blackman = _window(np.blackman)
hamming = _window(np.hamming)
hanning = _window(np.hanning)


def _log_i0(z):
    """log I0(z) for z >= 0: np.i0 below 700, where it would overflow the asymptotic series."""
    small = z <= 700.0
    zs, zl = np.where(small, z, 0.0), np.where(small, 701.0, z)
    big = zl - 0.5 * np.log(2 * np.pi * zl) + np.log1p(1 / (8 * zl) + 9 / (128 * zl**2))
    return np.where(small, np.log(np.i0(zs)), big)


def kaiser(x, beta):
    if builtins.abs(beta) <= 700.0:
        w = np.kaiser(x, beta)
    else:  # np.kaiser's i0(beta) overflows: take the ratio in log space
        alpha = (x - 1) / 2.0
        z = builtins.abs(beta) * np.sqrt(1 - ((np.arange(x) - alpha) / alpha) ** 2)
        w = np.exp(_log_i0(z) - _log_i0(np.float64(builtins.abs(beta))))
    return w.astype(NP_DTYPES[polyops.config.floatx()])
