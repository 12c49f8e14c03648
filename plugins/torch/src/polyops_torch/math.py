"""PyTorch kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import torch

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# torch.fft in complex64 (float16/bfloat16 parts widen to float32); results in the parts' dtype.


def _c(x):
    re, im = x
    return torch.complex(re.to(torch.float32), im.to(torch.float32))


def _parts(z, dtype):
    return z.real.to(dtype), z.imag.to(dtype)


# (torch's MKL FFT fails on zero-size tensors: those are answered here)


def fft(x):
    if x[0].numel() == 0:
        return x[0], x[1]
    return _parts(torch.fft.fft(_c(x), dim=-1), x[0].dtype)


def fft2(x):
    if x[0].numel() == 0:
        return x[0], x[1]
    return _parts(torch.fft.fft2(_c(x), dim=(-2, -1)), x[0].dtype)


def ifft2(x):
    if x[0].numel() == 0:
        return x[0], x[1]
    return _parts(torch.fft.ifft2(_c(x), dim=(-2, -1)), x[0].dtype)


def rfft(x, fft_length):
    if x.numel() == 0:
        out = torch.zeros((*x.shape[:-1], fft_length // 2 + 1), dtype=x.dtype)
        return out, out.clone()
    return _parts(torch.fft.rfft(x.to(torch.float32), n=fft_length, dim=-1), x.dtype)


def irfft(x, fft_length):
    if x[0].numel() == 0:
        return torch.zeros((*x[0].shape[:-1], fft_length), dtype=x[0].dtype)
    return torch.fft.irfft(_c(x), n=fft_length, dim=-1).to(x[0].dtype)
