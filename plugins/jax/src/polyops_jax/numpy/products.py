"""JAX kernels of ``polyops.ops.numpy.products``: tensor products, cross, trapezoid
and the window functions.

Operands share the matmul dtype (int8 arrives as int32); float16/bfloat16 accumulate in
float32 and round once, as core's references.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._common import (_F32, _as, _b_abs, _b_max, _b_min, _compiled_reference, _floatx, _i0e, _jit,
                      _jit_exact, builtins_range)


# ===== products =====================================================================


def outer(x1, x2):
    return jnp.outer(x1, x2)


@_jit()
def kron(x1, x2):
    # jnp.kron's own layout, with jnp.multiply (which takes bool, unlike lax.mul)
    nd = _b_max(x1.ndim, x2.ndim)
    a = (1,) * (nd - x1.ndim) + x1.shape
    b = (1,) * (nd - x2.ndim) + x2.shape
    x1 = x1.reshape(tuple(d for p in a for d in (p, 1)))
    x2 = x2.reshape(tuple(d for q in b for d in (1, q)))
    return jnp.multiply(x1, x2).reshape(tuple(p * q for p, q in zip(a, b)))


def inner(x1, x2):
    if x1.ndim == 0 or x2.ndim == 0:
        return jnp.multiply(x1, x2)
    return _as(jnp.inner(x1, x2), x1.dtype)


def vdot(x1, x2):
    return _as(jnp.vdot(x1, x2), x1.dtype)  # conjugates a complex x1


@_jit(2)
def tensordot(x1, x2, axes):
    if not axes[0]:  # no contraction: an outer product keeping the shapes
        return jnp.multiply(x1.reshape(x1.shape + (1,) * x2.ndim), x2)
    return _as(jnp.tensordot(x1, x2, axes), x1.dtype)


@_jit(2, 3, 4, 5)
def cross(x1, x2, axisa, axisb, axisc, axis):
    # NumPy's formulas: an implicit zero z-component takes no part (no 0 * inf, which
    # jnp.cross computes); the batch axes broadcast.
    a = jnp.moveaxis(x1, axisa, -1)
    b = jnp.moveaxis(x2, axisb, -1)
    n1, n2 = a.shape[-1], b.shape[-1]
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    cp2 = a0 * b1 - a1 * b0
    if n1 == 2 and n2 == 2:
        return cp2
    if n1 == 3 and n2 == 3:
        a2, b2 = a[..., 2], b[..., 2]
        cp0 = a1 * b2 - a2 * b1
        cp1 = a2 * b0 - a0 * b2
    elif n1 == 2:
        b2 = b[..., 2]
        cp0 = a1 * b2
        cp1 = -(a0 * b2)
    else:
        a2 = a[..., 2]
        cp0 = -(a2 * b1)
        cp1 = a2 * b0
    cp0, cp1, cp2 = jnp.broadcast_arrays(cp0, cp1, cp2)
    return jnp.stack([cp0, cp1, cp2], axis=axisc)


@_jit_exact(2, 3)
def trapezoid(y, x, dx, axis):
    d = y.dtype
    n = y.shape[axis]
    if x is None and n > 1 and d.kind == "f":
        # even spacing: one dot with the weights dx * (1/2, 1, ..., 1, 1/2), the same sum;
        # XLA:CPU reduces the two shifted slices of the pairwise form 4-5x slower than a
        # plain reduction (512x512: 350us against jnp.trapezoid's 65us; the dot takes 40us).
        # dx that is 0 or not finite in y's dtype keeps the pairwise form: 0 * inf and
        # inf * 0 fall on other terms there.
        w = np.full(n, dx, d)
        w[0] = w[-1] = dx / 2
        if np.isfinite(w).all() and w[-1] != 0:
            return jax.lax.dot_general(y, w, (((axis,), (0,)), ((), ())),
                                       precision=jax.lax.Precision.HIGHEST)
    s = _shifted(y, axis, 1) + _shifted(y, axis, 0)
    if x is None:
        w = jnp.asarray(dx, y.dtype)
    else:
        xa = 0 if x.ndim == 1 else axis
        w = _shifted(x, xa, 1) - _shifted(x, xa, 0)
        if x.ndim == 1 and y.ndim > 1:
            w = w.reshape(tuple(_b_max(n - 1, 0) if i == axis else 1 for i in builtins_range(y.ndim)))
    return _as(jnp.sum(w * s / 2.0, axis=axis), d)


def _shifted(v, axis, start):
    """v[1:] (start 1) or v[:-1] (start 0) along axis; empty for an empty axis."""
    n = v.shape[axis]
    lo = _b_min(start, n)
    return jax.lax.slice_in_dim(v, lo, lo + _b_max(n - 1, 0), axis=axis)


# (sign, logabsdet) through one LU (LAPACK's getrf), singular (0, -inf), as the reference.
# jnp.linalg.slogdet's own LU path (with its custom JVP: log|det|' = trace(solve(a, da))),
# for every n: jnp's closed form for n <= 2 underflows where the LU does not (det of
# diag(1e-30, 1e-30) is 0 in float32, its log -138).  Complex matrices take jnp's own.


@jax.custom_jvp
def _slogdet_lu(a):
    lu, pivots, _ = jax.lax.linalg.lu(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    singular = jnp.any(diag == 0, axis=-1)
    parity = jnp.count_nonzero(pivots != jnp.arange(a.shape[-1], dtype=pivots.dtype), axis=-1)
    parity = parity + jnp.count_nonzero(diag < 0, axis=-1)
    sign = jnp.where(singular, jnp.zeros((), a.dtype), (1 - 2 * (parity % 2)).astype(a.dtype))
    logdet = jnp.where(singular, jnp.array(-np.inf, a.dtype), jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))
    return sign, logdet


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    sign, logdet = _slogdet_lu(a)
    return (sign, logdet), (jnp.zeros_like(sign), jnp.trace(jnp.linalg.solve(a, da), axis1=-2, axis2=-1))


@jax.jit
def slogdet(x):
    if x.dtype.kind == "c":
        sign, logabsdet = jnp.linalg.slogdet(x)
        return sign, logabsdet
    return _slogdet_lu(x)
_correlate_ref = _compiled_reference("correlate", 2)
_CONV_DTYPES = frozenset(map(np.dtype, ("float32", "float64", "complex64", "complex128")))


def correlate(x1, x2, mode):
    # jnp.correlate (NumPy's modes, x2 conjugated) is one convolution; it computes ints in
    # floats and 16-bit floats in their own dtype, where the reference's gather-multiply-sum
    # is exact (ints) or rounds each product: those keep the reference
    if x1.dtype in _CONV_DTYPES:
        return jnp.correlate(x1, x2, mode)
    return _correlate_ref(x1, x2, mode)


# ===== windows ======================================================================


def _window(fn):
    def kernel(x):
        if x <= 0:
            return jnp.zeros((0,), _floatx())
        if x == 1:
            return jnp.ones((1,), _floatx())
        return _as(fn(x), _floatx())  # float32 math, as core's references

    kernel.__name__ = fn.__name__
    return kernel


bartlett = _window(jnp.bartlett)
blackman = _window(jnp.blackman)
hamming = _window(jnp.hamming)
hanning = _window(jnp.hanning)


def kaiser(x, beta):
    # jnp.kaiser divides i0(beta * r) by i0(beta), which overflows float32 past beta ~ 90;
    # the exponentially scaled i0e keeps the ratio finite: i0e(b r) / i0e(b) * exp(b (r - 1)).
    if x <= 1:
        return jnp.zeros((0,), _floatx()) if x <= 0 else jnp.ones((1,), _floatx())
    return _as(_kaiser(x, _b_abs(beta)), _floatx())


@_jit(0)  # one call (~7us) where the eager window was ~10 dispatches (~200us); beta traced
def _kaiser(x, beta):
    n = jnp.arange(x, dtype=_F32)
    r = jnp.sqrt(jnp.maximum(n * (x - 1 - n) * (4.0 / (x - 1) ** 2), 0.0))
    b = jnp.asarray(beta, _F32)
    return _i0e(b * r) / _i0e(b) * jnp.exp(b * (r - 1.0))
