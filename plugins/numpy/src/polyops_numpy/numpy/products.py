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
    return np.asarray(np.vdot(x1, x2))  # (np.vdot keeps the operands' one dtype: a scalar)


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


def _steps(a, axis):
    """a[1:] and a[:-1] along ``axis`` (a non-negative int)."""
    lead = (builtins.slice(None),) * axis
    return a[lead + (builtins.slice(1, None),)], a[lead + (builtins.slice(None, -1),)]


_TWO: dict = {}  # dtype -> 2 of that dtype (a NumPy scalar divides faster than a Python float)


def trapezoid(y, x, dx, axis):
    # np.trapezoid's arithmetic, in its order (sum of d * (y[1:] + y[:-1]) / 2.0; 1.0 * s
    # is s), without its wrapper's conversions.  Keeps y's dtype.
    hi, lo = _steps(y, axis)
    s = hi + lo
    if x is None:
        if dx != 1.0:
            s = np.multiply(s, dx)
    elif x.ndim == 1:
        d = x[1:] - x[:-1]
        s = d.reshape((1,) * axis + (-1,) + (1,) * (y.ndim - axis - 1)) * s
    else:
        xh, xl = _steps(x, axis)
        s = (xh - xl) * s
    two = _TWO.get(y.dtype)
    if two is None:
        two = _TWO[y.dtype] = y.dtype.type(2.0)
    np.divide(s, two, out=s)  # (s is a new array: the sum or a product)
    return np.asarray(np.add.reduce(s, axis))


def correlate(x1, x2, mode):
    return np.correlate(x1, x2, mode)  # (keeps the operands' one floating dtype)


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
