"""Op records of `polyops.ops.math.fft` (see `polyops.testing._records` for the fields).

Expected values come from ``np.fft`` on ``real + 1j * imag`` (computed in complex128),
and for stft/istft from Keras's numpy backend recipe (``scipy.signal.stft``/``istft``
with Keras's rescaling and trimming), written out here.  The complex pair ops take
their ``(real, imag)`` parts as a list (``lists=(2,)``).
"""

from __future__ import annotations

import numpy as np

from ._records import FLOATS, OpRecord

RECORDS: list = []

# The references are O(n^2) float32 matrix products (native kernels: FFTs); their
# rounding reaches a few float32 ulps of the largest term, above the default atol.
_TOL = {"float32": dict(rtol=1e-4, atol=1e-4)}


def _c(x):
    re, im = x
    return re.astype(np.float64) + 1j * im.astype(np.float64)


def _parts(z):
    return np.real(z), np.imag(z)


def _fft(x):
    return _parts(np.fft.fft(_c(x), axis=-1))


def _fft2(x):
    return _parts(np.fft.fft2(_c(x), axes=(-2, -1)))


def _ifft2(x):
    return _parts(np.fft.ifft2(_c(x), axes=(-2, -1)))


def _rfft(x, fft_length=None):
    return _parts(np.fft.rfft(x.astype(np.float64), n=fft_length, axis=-1))


def _irfft(x, fft_length=None):
    return np.fft.irfft(_c(x), n=fft_length, axis=-1)


def _window(window, sequence_length, fft_length):
    import scipy.signal

    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    if window is None:
        return np.ones(fft_length)
    win = scipy.signal.get_window(window, sequence_length) if isinstance(window, str) else (
        np.asarray(window, np.float64))
    return np.pad(win, [(left, right)])


def _stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    import scipy.signal

    x = x.astype(np.float64)
    if center:
        widths = [(0, 0)] * (x.ndim - 1) + [(fft_length // 2, fft_length // 2)]
        x = np.pad(x, widths, mode="reflect")
    win = _window(window, sequence_length, fft_length)
    z = scipy.signal.stft(x, fs=1.0, window=win, nperseg=fft_length,
                          noverlap=fft_length - sequence_stride, nfft=fft_length,
                          boundary=None, padded=False)[-1]
    z = np.swapaxes(z / np.sqrt(1.0 / win.sum() ** 2), -2, -1)
    return _parts(z)


def _istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
           center=True):
    import warnings

    import scipy.signal

    z = _c(x)
    total = fft_length + sequence_stride * (z.shape[-2] - 1)
    win = _window(window, sequence_length, fft_length)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NOLA warnings: the values are what we check
        y = scipy.signal.istft(z, fs=1.0, window=win, nperseg=fft_length,
                               noverlap=fft_length - sequence_stride, nfft=fft_length,
                               boundary=False, time_axis=-2, freq_axis=-1)[-1]
    y = y / win.sum() if window is not None else y / sequence_stride
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + length
    elif center and fft_length // 2:
        end = -(fft_length // 2)
    else:
        end = total
    return y[..., start:end]


def _view_as_complex(x):
    return (x[..., 0].astype(np.float32) + 1j * x[..., 1].astype(np.float32)).astype(np.complex64)


def _view_as_real(x):
    return np.stack([np.real(x), np.imag(x)], -1)


def _pair(shape):
    return (shape, shape)


RECORDS += [
    OpRecord("fft", shapes=_pair((3, 8)), lists=(2,), np_fn=_fft, dtypes=FLOATS + ("int32",), tol=_TOL),
    OpRecord("fft", shapes=_pair((7,)), lists=(2,), np_fn=_fft, id="fft-odd-1d", tol=_TOL),
    OpRecord("fft", shapes=_pair((2, 1)), lists=(2,), np_fn=_fft, id="fft-length1"),
    OpRecord("fft", shapes=_pair((0, 4)), lists=(2,), np_fn=_fft, id="fft-empty-batch"),
    OpRecord("fft2", shapes=_pair((2, 3, 4)), lists=(2,), np_fn=_fft2, dtypes=FLOATS, tol=_TOL),
    OpRecord("fft2", shapes=_pair((5, 6)), lists=(2,), np_fn=_fft2, id="fft2-2d", tol=_TOL),
    OpRecord("ifft2", shapes=_pair((2, 3, 4)), lists=(2,), np_fn=_ifft2, dtypes=FLOATS, tol=_TOL),
    OpRecord("ifft2", shapes=_pair((7, 5)), lists=(2,), np_fn=_ifft2, id="ifft2-odd", tol=_TOL),
    OpRecord("rfft", shapes=((3, 8),), np_fn=_rfft, dtypes=FLOATS + ("int32",), tol=_TOL),
    OpRecord("rfft", shapes=((2, 7),), kwargs=dict(fft_length=5), np_fn=_rfft, id="rfft-crop", tol=_TOL),
    OpRecord("rfft", shapes=((2, 7),), kwargs=dict(fft_length=12), np_fn=_rfft, id="rfft-pad", tol=_TOL),
    OpRecord("rfft", shapes=((9,),), np_fn=_rfft, id="rfft-odd-1d", tol=_TOL),
    OpRecord("rfft", shapes=((2, 0, 6),), np_fn=_rfft, id="rfft-empty-batch"),
    OpRecord("irfft", shapes=_pair((3, 5)), lists=(2,), np_fn=_irfft, dtypes=FLOATS, tol=_TOL),
    OpRecord("irfft", shapes=_pair((2, 5)), lists=(2,), kwargs=dict(fft_length=9), np_fn=_irfft,
             id="irfft-odd", tol=_TOL),
    OpRecord("irfft", shapes=_pair((2, 5)), lists=(2,), kwargs=dict(fft_length=4), np_fn=_irfft,
             id="irfft-crop", tol=_TOL),
    OpRecord("irfft", shapes=_pair((2, 5)), lists=(2,), kwargs=dict(fft_length=14), np_fn=_irfft,
             id="irfft-pad", tol=_TOL),
    OpRecord("irfft", shapes=_pair((6,)), lists=(2,), np_fn=_irfft, id="irfft-1d", tol=_TOL),
    OpRecord("stft", shapes=((2, 20),), kwargs=dict(sequence_length=8, sequence_stride=4, fft_length=8),
             np_fn=_stft, dtypes=FLOATS, tol=_TOL),
    OpRecord("stft", shapes=((2, 17),), kwargs=dict(sequence_length=5, sequence_stride=2, fft_length=8,
                                                   window="hamming", center=False),
             np_fn=_stft, id="stft-hamming-nocenter", tol=_TOL),
    OpRecord("stft", shapes=((19,),), kwargs=dict(sequence_length=6, sequence_stride=3, fft_length=7,
                                                 window=None), np_fn=_stft, id="stft-none-odd", tol=_TOL),
    OpRecord("stft", shapes=((3, 16),),
             kwargs=dict(sequence_length=4, sequence_stride=3, fft_length=6,
                         window=np.array([0.2, 1.0, 0.7, 0.4], np.float32)),
             np_fn=_stft, id="stft-window-tensor", tol=_TOL),
    OpRecord("istft", shapes=_pair((2, 6, 5)), lists=(2,),
             kwargs=dict(sequence_length=8, sequence_stride=4, fft_length=8),
             np_fn=_istft, dtypes=FLOATS, tol=_TOL),
    OpRecord("istft", shapes=_pair((2, 7, 5)), lists=(2,),
             kwargs=dict(sequence_length=5, sequence_stride=2, fft_length=8, window="hamming",
                         center=False), np_fn=_istft, id="istft-hamming-nocenter", tol=_TOL),
    OpRecord("istft", shapes=_pair((5, 4)), lists=(2,),
             kwargs=dict(sequence_length=6, sequence_stride=3, fft_length=7, window=None, length=11),
             np_fn=_istft, id="istft-none-length", tol=_TOL),
    OpRecord("istft", shapes=_pair((6, 4)), lists=(2,),
             kwargs=dict(sequence_length=4, sequence_stride=3, fft_length=6,
                         window=np.array([0.2, 1.0, 0.7, 0.4], np.float32)),
             np_fn=_istft, id="istft-window-tensor", tol=_TOL),
    # The case needs complex64 (its result): labelled complex64 so that a backend without it
    # (openvino) counts the case as unsupported; the input itself is float32 (make).
    OpRecord("view_as_complex", shapes=((3, 2),), np_fn=_view_as_complex, dtypes=("complex64",),
             make=lambda dtype, rng: [rng.normal(0, 2, (3, 4, 2)).astype(np.float32)]),
    OpRecord("view_as_real", shapes=((3, 4),), np_fn=_view_as_real, dtypes=("complex64",),
             make=lambda dtype, rng: [(rng.normal(0, 2, (3, 4)) + 1j * rng.normal(0, 2, (3, 4)))
                                      .astype(np.complex64)]),
    OpRecord("view_as_real", shapes=((3, 4),), np_fn=_view_as_real, dtypes=FLOATS,
             id="view_as_real-of-real"),
]
