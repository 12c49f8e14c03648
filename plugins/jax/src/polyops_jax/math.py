"""JAX kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# jnp.fft in complex64 (float16/bfloat16 parts widen to float32); results in the parts' dtype.


def _c(x):
    re, im = x
    return jax.lax.complex(re.astype(jnp.float32), im.astype(jnp.float32))


def _parts(z, dtype):
    return jnp.real(z).astype(dtype), jnp.imag(z).astype(dtype)


def fft(x):
    if x[0].shape[-1] == 0:
        return x[0], x[1]
    return _parts(jnp.fft.fft(_c(x), axis=-1), x[0].dtype)


def fft2(x):
    if 0 in x[0].shape[-2:]:
        return x[0], x[1]
    return _parts(jnp.fft.fft2(_c(x), axes=(-2, -1)), x[0].dtype)


def ifft2(x):
    if 0 in x[0].shape[-2:]:
        return x[0], x[1]
    return _parts(jnp.fft.ifft2(_c(x), axes=(-2, -1)), x[0].dtype)


def rfft(x, fft_length):
    return _parts(jnp.fft.rfft(x.astype(jnp.float32), n=fft_length, axis=-1), x.dtype)


def irfft(x, fft_length):
    return jnp.fft.irfft(_c(x), n=fft_length, axis=-1).astype(x[0].dtype)
