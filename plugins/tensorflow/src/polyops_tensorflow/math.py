"""TensorFlow kernels for the ``math`` op family (the rest use core's references)."""

from __future__ import annotations

import tensorflow as tf

# -- Fourier transforms (core's fft contracts: (real, imag) pairs of one float dtype) --------
# tf.signal in complex64 (float16/bfloat16 parts widen to float32); results in the parts' dtype.


def _c(x):
    re, im = x
    return tf.complex(tf.cast(re, tf.float32), tf.cast(im, tf.float32))


def _parts(z, dtype):
    return tf.cast(tf.math.real(z), dtype), tf.cast(tf.math.imag(z), dtype)


def fft(x):
    if 0 in tuple(x[0].shape):
        return x[0], x[1]
    return _parts(tf.signal.fft(_c(x)), x[0].dtype)


def fft2(x):
    if 0 in tuple(x[0].shape):
        return x[0], x[1]
    return _parts(tf.signal.fft2d(_c(x)), x[0].dtype)


def ifft2(x):
    if 0 in tuple(x[0].shape):
        return x[0], x[1]
    return _parts(tf.signal.ifft2d(_c(x)), x[0].dtype)


def rfft(x, fft_length):
    if 0 in tuple(x.shape):  # tf's RFFT rejects zero-size input
        out = tf.zeros((*x.shape[:-1], fft_length // 2 + 1), x.dtype)
        return out, tf.identity(out)
    return _parts(tf.signal.rfft(tf.cast(x, tf.float32), fft_length=[fft_length]), x.dtype)


def irfft(x, fft_length):
    if 0 in tuple(x[0].shape):
        return tf.zeros((*x[0].shape[:-1], fft_length), x[0].dtype)
    return tf.cast(tf.signal.irfft(_c(x), fft_length=[fft_length]), x[0].dtype)
