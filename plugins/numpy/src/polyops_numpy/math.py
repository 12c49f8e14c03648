"""NumPy kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import numpy as np

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# np.fft computes in float64/complex128; results are cast back to the parts' dtype.


def _c(x):
    re, im = x
    return re.astype(np.float64) + 1j * im.astype(np.float64)


def _parts(z, dtype):
    return np.real(z).astype(dtype), np.imag(z).astype(dtype)


def fft(x):
    if x[0].shape[-1] == 0:
        return x[0], x[1]
    return _parts(np.fft.fft(_c(x), axis=-1), x[0].dtype)


def fft2(x):
    if 0 in x[0].shape[-2:]:
        return x[0], x[1]
    return _parts(np.fft.fft2(_c(x), axes=(-2, -1)), x[0].dtype)


def ifft2(x):
    if 0 in x[0].shape[-2:]:
        return x[0], x[1]
    return _parts(np.fft.ifft2(_c(x), axes=(-2, -1)), x[0].dtype)


def rfft(x, fft_length):
    return _parts(np.fft.rfft(x.astype(np.float64), n=fft_length, axis=-1), x.dtype)


def irfft(x, fft_length):
    return np.fft.irfft(_c(x), n=fft_length, axis=-1).astype(x[0].dtype)
