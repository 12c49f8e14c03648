"""Fourier transforms as (real, imag) pairs: fft, fft2, ifft2, rfft, irfft, stft, istft; view_as_complex/view_as_real.

Part of `polyops.ops.math`; see that package's docstring for how an op is declared.

Representation of complex values (as in Keras): a complex tensor travels as a
``(real, imag)`` tuple (or list) of two real floating tensors of the same shape.
``fft``, ``fft2``, ``ifft2`` and ``irfft`` take such a pair; ``fft``, ``fft2``,
``ifft2``, ``rfft`` and ``stft`` return one (a tuple of two tensors); ``istft``
takes one and returns a real tensor.  This works on every backend, openvino
included (it has no complex dtype).  Only `view_as_complex` and `view_as_real`
make or read complex tensors, and they need a backend with complex64.

Dtypes: the parts promote together (ints and bools to floatx; Keras raises for
them); float16 and bfloat16 compute in float32 (the ops declare it) and come back
in their own dtype; complex parts raise TypeError.  stft accepts every floating
dtype (Keras: only float32 and float64).

The references compute a discrete Fourier transform as a matrix product with
cos/sin tables built on the host in float64 from static sizes (O(n^2) per
transformed axis, not an FFT); native kernels use the framework's FFT.
"""

from __future__ import annotations

import functools

import numpy as np

from ... import _dtypes, _promote
from ..._op import defop
from ..._symbolic import SymbolicTensor
from .._base import check_tensor, int_arg, key, shape_of, spec
from .._base import finish as _finish
from ..core import cast, convert_to_tensor
from ..core import dtype as _dtype_of
from ..numpy import (
    abs as _abs, add, broadcast_to, concatenate, divide, get_item, greater, imag, matmul,
    multiply, ones_like, pad, real, reshape, stack, sum as _sum, take, where,
)

@_promote.cached
def _float_parts(keys):
    """The parts of a complex value: real dtypes only, promoted together to a float dtype."""
    for k in keys:
        if k in _dtypes.COMPLEX_TYPES or k == "complex":
            raise _promote.PromotionError(
                f"expected real floating tensors (the (real, imag) parts), got {k}")
    return _promote.floating(keys)


# -- shared checks ---------------------------------------------------------------------


def _merge(op, a, b):
    """The shape both parts share (None dims filled from the other part)."""
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        raise ValueError(
            f"{op}: expected real and imaginary parts of the same shape, got x[0].shape={a} "
            f"and x[1].shape={b}")
    return tuple(x if x is not None else y for x, y in zip(a, b))


def _pair_spec(op, x, min_rank):
    """(shape, dtype) of a (real, imag) pair in a rule."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"{op}: expected x as a (real, imag) pair of tensors, got "
            f"{type(x).__name__} of length {len(x) if isinstance(x, (tuple, list)) else '-'}")
    re, im = x
    check_tensor(op, "x[0]", re)
    check_tensor(op, "x[1]", im)
    shape = _merge(op, shape_of(re), shape_of(im))
    if len(shape) < min_rank:
        raise ValueError(f"{op}: expected parts of rank >= {min_rank}, got shape {shape}")
    dtype = _float_parts((key(re), key(im)))[0]
    return shape, dtype


def _pair_prepare(op, x, min_rank):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"{op}: expected x as a (real, imag) pair of tensors, got {len(x)} tensors")
    re, im = x
    shape = _merge(op, tuple(re.shape), tuple(im.shape))
    if len(shape) < min_rank:
        raise ValueError(f"{op}: expected parts of rank >= {min_rank}, got shape {shape}")
    return (re, im)


def _length_arg(op, name, value, allow_none=True, minimum=1):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or isinstance(value, SymbolicTensor):
        raise TypeError(f"{op}: expected an integer {name}, got {name}={value!r}")
    value = int_arg(op, name, value)
    if value < minimum:
        raise ValueError(f"{op}: expected {name} >= {minimum}, got {name}={value}")
    return value


def _table(values, dtype):
    return convert_to_tensor(np.asarray(values), dtype)


# -- DFT tables (float64 on the host, from static sizes) ---------------------------------


def _angles(rows, cols, n):
    """2*pi*(j*k mod n)/n for j < rows, k < cols (exact integer reduction first)."""
    j = np.arange(rows, dtype=np.int64)[:, None]
    k = np.arange(cols, dtype=np.int64)[None, :]
    return 2.0 * np.pi * ((j * k) % n) / n


def _cos(a):
    c = np.cos(a)
    c[np.abs(c) < 1e-12] = 0.0  # exact zeros at odd multiples of pi/2
    return c


def _sin(a):
    s = np.sin(a)
    s[np.abs(s) < 1e-12] = 0.0  # exact zeros at multiples of pi
    return s


@functools.lru_cache(maxsize=64)
def _complex_table(n, inverse):
    """(2n, 2n) real matrix: [re, im] @ it is the DFT (inverse: with 1/n) of re + i*im."""
    a = _angles(n, n, n)
    c, s = _cos(a), _sin(a)
    if inverse:
        c, s = c / n, -s / n
    # forward: re' = re@C + im@S, im' = im@C - re@S  (e^{-i t} = cos t - i sin t)
    return np.block([[c, -s], [s, c]])


@functools.lru_cache(maxsize=64)
def _rfft_table(m, n):
    """(m, 2h) matrix: x @ it is [re, im] of the rfft of length n of x (m samples: rows at or
    past n are zero, which crops; missing rows pad with zeros)."""
    h = n // 2 + 1
    rows = min(m, n)
    t = np.zeros((m, 2 * h))
    a = _angles(rows, h, n)
    t[:rows, :h] = _cos(a)
    t[:rows, h:] = -_sin(a)
    return t


@functools.lru_cache(maxsize=64)
def _irfft_table(m, n, cols=None):
    """(2m, cols or n) matrix: [re, im] @ it is irfft of the m-bin half spectrum at length n
    (bins at or past n//2+1 ignored, missing ones zero; the DC imaginary part and, for even
    n, the Nyquist one are ignored, as NumPy does).  Extra columns are zero."""
    h = n // 2 + 1
    rows = min(m, h)
    k = np.arange(rows)
    w = np.where((k == 0) | ((n % 2 == 0) & (k == n // 2)), 1.0, 2.0)[:, None] / n
    a = _angles(rows, n, n)
    t = np.zeros((2 * m, cols or n))
    t[:rows, :n] = w * _cos(a)
    t[m:m + rows, :n] = -w * _sin(a)
    if n % 2 == 0 and n // 2 < rows:  # the Nyquist sine row is exactly zero
        t[m + n // 2, :n] = 0.0
    t[m, :n] = 0.0  # the DC sine row
    return t


def _split_last(t, h):
    return get_item(t, (Ellipsis, slice(0, h))), get_item(t, (Ellipsis, slice(h, 2 * h)))


def _dft_last(re, im, inverse=False):
    """DFT of re + i*im along the last axis, as (re, im) float32 (or input dtype) tensors."""
    n = re.shape[-1]
    if n == 0:
        return re, im
    t = _table(_complex_table(n, inverse), _dtype_of(re))
    out = matmul(concatenate([re, im], -1), t)
    return _split_last(out, n)


def _dft_rows(re, im, inverse=False):
    """DFT along the second-to-last axis: a left matrix product."""
    m = re.shape[-2]
    if m == 0:
        return re, im
    # left product with the transposed block: [re; im] stacked along axis -2
    t = _table(_complex_table(m, inverse).T, _dtype_of(re))
    out = matmul(t, concatenate([re, im], -2))
    return get_item(out, (Ellipsis, slice(0, m), slice(None))), get_item(
        out, (Ellipsis, slice(m, 2 * m), slice(None)))


# ===== fft, fft2, ifft2 =================================================================
# Kernel contract of fft, fft2, ifft2: x, a tuple (real, imag) of two tensors of the same
# shape (rank >= 1 for fft, >= 2 for fft2/ifft2) and the same floating dtype (float16,
# bfloat16, float32; ints arrive as floatx); returns a tuple (real, imag) of that shape
# and dtype: the DFT along the last axis (fft), the last two (fft2), or the inverse DFT
# with 1/(m*n) (ifft2).


def _fft_rule(op, min_rank):
    def rule(x):
        shape, dtype = _pair_spec(op, x, min_rank)
        return spec(shape, dtype), spec(shape, dtype)

    return rule


@defop("math", tensors=("x[]",), promote=_float_parts,
       prepare=lambda x: (_pair_prepare("fft", x, 1),), compute="float32")
def fft(x):
    """The discrete Fourier transform along the last axis of a complex tensor.

    Keras: ``keras.ops.fft``; NumPy: ``np.fft.fft(real + 1j * imag)``.  ``x`` is a
    ``(real, imag)`` pair of float tensors of the same shape (rank >= 1); returns the
    ``(real, imag)`` pair of the transform, in the parts' dtype (float16/bfloat16
    compute in float32).

    Example:
        >>> polyops.ops.fft((polyops.ops.convert_to_tensor([1., 2.]),
        ...                  polyops.ops.convert_to_tensor([0., 1.])))
        (array([ 3., -1.], dtype=float32), array([ 1., -1.], dtype=float32))
    """
    return _fft_rule("fft", 1)(x)


@fft.reference
def _fft_ref(x):
    re, im = x
    return _dft_last(re, im)


@defop("math", tensors=("x[]",), promote=_float_parts,
       prepare=lambda x: (_pair_prepare("fft2", x, 2),), compute="float32")
def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes of a complex tensor.

    Keras: ``keras.ops.fft2``; NumPy: ``np.fft.fft2(real + 1j * imag)``.  ``x`` is a
    ``(real, imag)`` pair of float tensors of the same shape (rank >= 2); returns the
    ``(real, imag)`` pair, in the parts' dtype.

    Example:
        >>> polyops.ops.fft2((polyops.ops.convert_to_tensor([[1., 2.], [2., 1.]]),
        ...                   polyops.ops.convert_to_tensor([[0., 1.], [1., 0.]])))
        (array([[ 6.,  0.],
               [ 0., -2.]], dtype=float32), array([[ 2.,  0.],
               [ 0., -2.]], dtype=float32))
    """
    return _fft_rule("fft2", 2)(x)


@fft2.reference
def _fft2_ref(x):
    re, im = x
    re, im = _dft_last(re, im)
    return _dft_rows(re, im)


@defop("math", tensors=("x[]",), promote=_float_parts,
       prepare=lambda x: (_pair_prepare("ifft2", x, 2),), compute="float32")
def ifft2(x):
    """The inverse 2-D discrete Fourier transform over the last two axes.

    Keras: ``keras.ops.ifft2``; NumPy: ``np.fft.ifft2(real + 1j * imag)`` (scaled by
    ``1 / (m * n)``).  ``x`` is a ``(real, imag)`` pair of float tensors of the same
    shape (rank >= 2); returns the ``(real, imag)`` pair, in the parts' dtype.

    Example:
        >>> polyops.ops.ifft2((polyops.ops.convert_to_tensor([[6., 0.], [0., -2.]]),
        ...                    polyops.ops.convert_to_tensor([[2., 0.], [0., -2.]])))
        (array([[1., 2.],
               [2., 1.]], dtype=float32), array([[0., 1.],
               [1., 0.]], dtype=float32))
    """
    return _fft_rule("ifft2", 2)(x)


@ifft2.reference
def _ifft2_ref(x):
    re, im = x
    re, im = _dft_last(re, im, inverse=True)
    return _dft_rows(re, im, inverse=True)


# ===== rfft, irfft ======================================================================
# Kernel contract of rfft: (x, fft_length): x a floating tensor of rank >= 1 (float16,
# bfloat16, float32; ints arrive as floatx), fft_length a positive int (None resolved to
# x.shape[-1]); returns (real, imag), each of shape x.shape[:-1] + (fft_length // 2 + 1,)
# and x's dtype: NumPy's rfft of x cropped or zero-padded to fft_length.
# Kernel contract of irfft: (x, fft_length): x a (real, imag) pair as for fft, fft_length
# a positive int (None resolved to 2 * (x[0].shape[-1] - 1)); returns one tensor of
# shape x[0].shape[:-1] + (fft_length,) and the parts' dtype: NumPy's irfft(real + 1j *
# imag, n=fft_length) (the spectrum cropped or zero-padded to fft_length // 2 + 1 bins).


def _rfft_length(op, n, fft_length):
    if fft_length is not None:
        return _length_arg(op, "fft_length", fft_length)
    if n is not None and n < 1:
        raise ValueError(f"{op}: cannot infer fft_length from an empty last axis; pass fft_length")
    return n


def _rfft_prepare(x, fft_length=None):
    if len(x.shape) < 1:
        raise ValueError(f"rfft: expected x of rank >= 1, got shape {tuple(x.shape)}")
    return x, _rfft_length("rfft", x.shape[-1], fft_length)


@defop("math", tensors=("x",), promote=_float_parts, prepare=_rfft_prepare, compute="float32", empty=(0, 0))
def rfft(x, fft_length=None):
    """The discrete Fourier transform of a real signal along the last axis (half spectrum).

    Keras: ``keras.ops.rfft``; NumPy: ``np.fft.rfft(x, n=fft_length)``.  The last axis is
    cropped or zero-padded to ``fft_length`` (default: its size) and the
    ``fft_length // 2 + 1`` non-negative frequency bins are returned as a ``(real,
    imag)`` pair in x's dtype (ints: floatx).

    Example:
        >>> re, im = polyops.ops.rfft(polyops.ops.convert_to_tensor([0., 1., 2., 3., 4.]))
        >>> re
        array([10. , -2.5, -2.5], dtype=float32)
        >>> polyops.ops.round(im, 4)
        array([0.    , 3.441 , 0.8123], dtype=float32)
    """
    check_tensor("rfft", "x", x)
    shape = shape_of(x)
    if len(shape) < 1:
        raise ValueError(f"rfft: expected x of rank >= 1, got shape {shape}")
    n = _rfft_length("rfft", shape[-1], fft_length)
    out = shape[:-1] + (None if n is None else n // 2 + 1,)
    dtype = _float_parts((key(x),))[0]
    return spec(out, dtype), spec(out, dtype)


@rfft.reference
def _rfft_ref(x, fft_length=None):
    m = x.shape[-1]
    h = fft_length // 2 + 1
    out = matmul(x, _table(_rfft_table(m, fft_length), _dtype_of(x)))
    return _split_last(out, h)


def _irfft_n(op, m, fft_length):
    if fft_length is not None:
        return _length_arg(op, "fft_length", fft_length)
    if m is None:
        return None
    if m < 2:
        raise ValueError(
            f"{op}: cannot infer fft_length = 2 * (bins - 1) from {m} frequency bins; pass fft_length")
    return 2 * (m - 1)


def _irfft_prepare(x, fft_length=None):
    re, im = _pair_prepare("irfft", x, 1)
    return (re, im), _irfft_n("irfft", re.shape[-1], fft_length)


@defop("math", tensors=("x[]",), promote=_float_parts, prepare=_irfft_prepare, compute="float32", empty=0)
def irfft(x, fft_length=None):
    """The inverse of `rfft`: a real signal of length ``fft_length`` from its half spectrum.

    Keras: ``keras.ops.irfft``; NumPy: ``np.fft.irfft(real + 1j * imag, n=fft_length)``.
    ``x`` is a ``(real, imag)`` pair (rank >= 1); ``fft_length`` defaults to
    ``2 * (bins - 1)`` (pass it for odd lengths).  The spectrum is cropped or
    zero-padded to ``fft_length // 2 + 1`` bins and taken as Hermitian: the imaginary
    parts of the DC bin and (even lengths) of the Nyquist bin are ignored.  Returns
    one real tensor in the parts' dtype.

    Example:
        >>> x = polyops.ops.convert_to_tensor([0., 1., 2., 3., 4.])
        >>> polyops.ops.irfft(polyops.ops.rfft(x, 5), 5)
        array([0., 1., 2., 3., 4.], dtype=float32)
    """
    shape, dtype = _pair_spec("irfft", x, 1)
    n = _irfft_n("irfft", shape[-1], fft_length)
    return spec(shape[:-1] + (n,), dtype)


def _irfft_frames(re, im, n, cols=None):
    """irfft of (re, im) along the last axis at length n, in the compute dtype."""
    m = re.shape[-1]
    t = _table(_irfft_table(m, n, cols), _dtype_of(re))
    return matmul(concatenate([re, im], -1), t)


@irfft.reference
def _irfft_ref(x, fft_length=None):
    re, im = x
    return _irfft_frames(re, im, fft_length)


# ===== stft, istft ======================================================================
# Kernel contract of stft: (x, sequence_length, sequence_stride, fft_length, window,
# center): x a floating tensor of rank >= 1 (ints arrive as floatx); positive ints with
# fft_length >= sequence_length; window "hann", "hamming", None or a tensor/array of
# shape (sequence_length,); center a bool.  Returns (real, imag), each of shape
# x.shape[:-1] + (frames, fft_length // 2 + 1) and x's dtype, as Keras's numpy backend
# (scipy.signal.stft, rescaled to the plain windowed DFT).
# Kernel contract of istft: (x, sequence_length, sequence_stride, fft_length, length,
# window, center): x a (real, imag) pair of rank >= 2 (frames on axis -2, bins on -1);
# length None or a non-negative int; the rest as stft.  Returns one tensor of shape
# x[0].shape[:-2] + (samples,) in the parts' dtype, as Keras's numpy backend
# (scipy.signal.istft with Keras's rescaling and trimming).

_WINDOWS = ("hann", "hamming")


def _window_arg(op, window, sequence_length):
    """"hann"/"hamming"/None as they are; a tensor or array checked to be (sequence_length,)."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in _WINDOWS:
            raise ValueError(f"{op}: expected window in {_WINDOWS}, None or a tensor, got window={window!r}")
        return window
    if isinstance(window, SymbolicTensor):
        shape = window.shape
    else:
        shape = getattr(window, "shape", None)
        if shape is None:
            try:
                shape = np.shape(np.asarray(window, dtype=np.float64))
            except (TypeError, ValueError):
                raise TypeError(
                    f"{op}: expected window in {_WINDOWS}, None or a tensor, got {window!r:.80}") from None
    shape = tuple(shape)
    if len(shape) != 1 or shape[0] not in (None, sequence_length):
        raise ValueError(
            f"{op}: expected a window of shape ({sequence_length},) (sequence_length), got shape {shape}")
    return window


def _stft_args(op, sequence_length, sequence_stride, fft_length, window, center):
    sequence_length = _length_arg(op, "sequence_length", sequence_length, allow_none=False)
    sequence_stride = _length_arg(op, "sequence_stride", sequence_stride, allow_none=False)
    fft_length = _length_arg(op, "fft_length", fft_length, allow_none=False)
    if fft_length < sequence_length:
        raise ValueError(
            f"{op}: expected fft_length >= sequence_length, got fft_length={fft_length} and "
            f"sequence_length={sequence_length}")
    if not isinstance(center, (bool, np.bool_)):
        raise TypeError(f"{op}: expected a bool center, got center={center!r}")
    window = _window_arg(op, window, sequence_length)
    return sequence_length, sequence_stride, fft_length, window, bool(center)


def _stft_frames(op, n, fft_length, sequence_stride, center):
    if n is None:
        return None
    padded = n + (2 * (fft_length // 2) if center else 0)
    if center and n == 0:
        raise ValueError(f"{op}: cannot reflect-pad an empty signal (center=True)")
    frames = 1 + (padded - fft_length) // sequence_stride
    if padded < fft_length:
        raise ValueError(
            f"{op}: the signal ({n} samples{', padded to ' + str(padded) if center else ''}) is "
            f"shorter than fft_length={fft_length}")
    return frames


def _stft_prepare(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    args = _stft_args("stft", sequence_length, sequence_stride, fft_length, window, center)
    if len(x.shape) < 1:
        raise ValueError(f"stft: expected x of rank >= 1, got shape {tuple(x.shape)}")
    _stft_frames("stft", x.shape[-1], args[2], args[1], args[4])
    return (x, *args)


@defop("math", tensors=("x",), promote=_float_parts, prepare=_stft_prepare, compute="float32")
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform along the last axis: the rfft of windowed frames.

    Keras: ``keras.ops.stft`` (its numpy backend: ``scipy.signal.stft``, rescaled).
    Frame ``t`` starts at ``t * sequence_stride`` of x, reflect-padded by
    ``fft_length // 2`` on both sides when ``center``; each frame of ``fft_length``
    samples is multiplied by the window of ``sequence_length`` samples zero-padded
    (centered) to ``fft_length`` and transformed:
    ``X[..., t, k] = sum_j x[t * stride + j] * w[j] * exp(-2j*pi*j*k/fft_length)``.
    ``window``: "hann" or "hamming" (periodic, as ``scipy.signal.get_window``), None
    (ones over all ``fft_length`` samples, as Keras) or a tensor of shape ``(sequence_length,)`` (a window whose sum is negative
    flips the sign of the result, as in Keras).  Returns ``(real, imag)`` of shape
    ``x.shape[:-1] + (frames, fft_length // 2 + 1)`` in x's dtype (every floating dtype
    is accepted; Keras takes float32/float64 only).

    Example:
        >>> x = polyops.ops.convert_to_tensor([0., 1., 2., 3., 4.])
        >>> re, im = polyops.ops.stft(x, 3, 2, 3)
        >>> re
        array([[ 0.75 , -0.375],
               [ 3.75 , -1.875],
               [ 5.25 , -2.625]], dtype=float32)
        >>> polyops.ops.round(im, 4)
        array([[ 0.    ,  0.6495],
               [ 0.    ,  0.6495],
               [ 0.    , -0.6495]], dtype=float32)
    """
    check_tensor("stft", "x", x)
    sequence_length, sequence_stride, fft_length, window, center = _stft_args(
        "stft", sequence_length, sequence_stride, fft_length, window, center)
    shape = shape_of(x)
    if len(shape) < 1:
        raise ValueError(f"stft: expected x of rank >= 1, got shape {shape}")
    frames = _stft_frames("stft", shape[-1], fft_length, sequence_stride, center)
    out = shape[:-1] + (frames, fft_length // 2 + 1)
    dtype = _float_parts((key(x),))[0]
    return spec(out, dtype), spec(out, dtype)


@functools.lru_cache(maxsize=64)
def _named_window(name, sequence_length, fft_length):
    """A named window (periodic, as scipy.signal.get_window) centered in fft_length zeros."""
    if name is None:  # Keras: ones over the whole fft_length (not padded)
        return np.ones(fft_length)
    if sequence_length == 1:
        w = np.ones(1)
    else:
        a = 0.5 if name == "hann" else 0.54
        w = a - (1 - a) * np.cos(2 * np.pi * np.arange(sequence_length) / sequence_length)
    left = (fft_length - sequence_length) // 2
    out = np.zeros(fft_length)
    out[left:left + sequence_length] = w
    return out


def _tensor_window(window, sequence_length, fft_length, dtype):
    """A window tensor centered in fft_length zeros, in the compute dtype."""
    w = convert_to_tensor(window, dtype)
    left = (fft_length - sequence_length) // 2
    return pad(w, ((left, fft_length - sequence_length - left),))


@functools.lru_cache(maxsize=64)
def _frame_index(n, sequence_stride, fft_length, center):
    """(frames, fft_length) indices into x of each frame's samples (reflect padding folded in)."""
    src = np.arange(n)
    if center:
        src = np.pad(src, fft_length // 2, mode="reflect")
    frames = 1 + (len(src) - fft_length) // sequence_stride
    idx = np.arange(frames)[:, None] * sequence_stride + np.arange(fft_length)[None, :]
    return src[idx]


@stft.reference
def _stft_ref(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    cdt = _dtype_of(x)
    idx = _frame_index(x.shape[-1], sequence_stride, fft_length, center)
    frames = take(x, convert_to_tensor(idx, "int32"), -1)  # (..., T, N)
    h = fft_length // 2 + 1
    table = _rfft_table(fft_length, fft_length)
    if window is None or isinstance(window, str):
        table = table * _named_window(window, sequence_length, fft_length)[:, None]
        out = matmul(frames, _table(table, cdt))
    else:
        w = _tensor_window(window, sequence_length, fft_length, cdt)
        out = matmul(multiply(frames, w), _table(table, cdt))
        s = _sum(w)
        out = multiply(out, divide(_abs(s), s))  # Keras scales by |sum(w)| / sum(w)
    return _split_last(out, h)


def _istft_size(op, frames, sequence_stride, fft_length, length, center):
    if length is not None:
        return length
    if frames is None:
        return None
    size = (frames - 1) * sequence_stride + fft_length
    if center:
        size -= 2 * (fft_length // 2)
    if size < 0:
        raise ValueError(f"{op}: {frames} frames give no samples after removing the center padding")
    return size


def _istft_prepare(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
                   center=True):
    re, im = _pair_prepare("istft", x, 2)
    args = _stft_args("istft", sequence_length, sequence_stride, fft_length, window, center)
    length = _length_arg("istft", "length", length, minimum=0)
    _istft_size("istft", re.shape[-2], args[1], args[2], length, args[4])
    return ((re, im), args[0], args[1], args[2], length, args[3], args[4])


@defop("math", tensors=("x[]",), promote=_float_parts, prepare=_istft_prepare, compute="float32", empty=0)
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """Inverse short-time Fourier transform: overlap-add of the windowed inverse frames.

    Keras: ``keras.ops.istft`` (its numpy backend: ``scipy.signal.istft``, rescaled).
    ``x`` is a ``(real, imag)`` pair of shape ``(..., frames, bins)``; pass the
    arguments given to `stft`.  Each frame is ``irfft``-ed at ``fft_length``,
    multiplied by the (centered, zero-padded) window, overlap-added at
    ``sequence_stride``, and divided by the overlap-added squared window where that
    exceeds 1e-10.  With ``window=None`` the result is further scaled by
    ``fft_length / sequence_stride`` (as Keras's numpy and jax backends).  When
    ``center``, ``fft_length // 2`` samples are dropped at the start and (without
    ``length``) at the end; ``length`` then fixes the size (zero-padded if needed, as
    Keras's symbolic shape says).  Returns one real tensor in the parts' dtype.

    Example:
        >>> x = polyops.ops.convert_to_tensor([0., 1., 2., 3., 4.])
        >>> polyops.ops.istft(polyops.ops.stft(x, 1, 1, 1), 1, 1, 1)
        array([0., 1., 2., 3., 4.], dtype=float32)
    """
    shape, dtype = _pair_spec("istft", x, 2)
    sequence_length, sequence_stride, fft_length, window, center = _stft_args(
        "istft", sequence_length, sequence_stride, fft_length, window, center)
    length = _length_arg("istft", "length", length, minimum=0)
    size = _istft_size("istft", shape[-2], sequence_stride, fft_length, length, center)
    return spec(shape[:-2] + (size,), dtype)


def _overlap_add(frames, sequence_stride, blocks):
    """Sum of frames (..., T, blocks * stride) placed at t * stride: (..., (T + blocks - 1) * stride)."""
    lead = frames.shape[:-2]
    t = frames.shape[-2]
    f = reshape(frames, (*lead, t, blocks, sequence_stride))
    out = None
    for k in range(blocks):
        part = get_item(f, (Ellipsis, slice(None), k, slice(None)))  # (..., T, stride)
        part = pad(part, [(0, 0)] * len(lead) + [(k, blocks - 1 - k), (0, 0)])
        out = part if out is None else add(out, part)
    return reshape(out, (*lead, (t + blocks - 1) * sequence_stride))


@functools.lru_cache(maxsize=64)
def _ola_norm(name, sequence_length, sequence_stride, fft_length, frames):
    w2 = _named_window(name, sequence_length, fft_length) ** 2
    total = fft_length + (frames - 1) * sequence_stride
    norm = np.zeros(total)
    for t in range(frames):
        norm[t * sequence_stride:t * sequence_stride + fft_length] += w2
    return np.where(norm > 1e-10, norm, 1.0)


@istft.reference
def _istft_ref(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
               center=True):
    re, im = x
    cdt = _dtype_of(re)
    lead = tuple(re.shape[:-2])
    frames_n = re.shape[-2]
    blocks = -(-fft_length // sequence_stride)
    width = blocks * sequence_stride
    total = fft_length + (frames_n - 1) * sequence_stride
    if frames_n == 0:
        y = convert_to_tensor(np.zeros(lead + (max(total, 0),)), cdt)
    else:
        table = _irfft_table(re.shape[-1], fft_length, width)
        if window is None or isinstance(window, str):
            w = _named_window(window, sequence_length, fft_length)
            scaled = table.copy()
            scaled[:, :fft_length] *= w[None, :]
            if window is None:
                scaled *= fft_length / sequence_stride
            frames = matmul(concatenate([re, im], -1), _table(scaled, cdt))
            y = _overlap_add(frames, sequence_stride, blocks)
            y = get_item(y, (Ellipsis, slice(0, total)))
            y = divide(y, _table(_ola_norm(window, sequence_length, sequence_stride, fft_length,
                                           frames_n), cdt))
        else:
            w = _tensor_window(window, sequence_length, fft_length, cdt)
            wpad = pad(w, ((0, width - fft_length),))
            frames = multiply(matmul(concatenate([re, im], -1), _table(table, cdt)), wpad)
            y = _overlap_add(frames, sequence_stride, blocks)
            y = get_item(y, (Ellipsis, slice(0, total)))
            w2 = broadcast_to(multiply(wpad, wpad), (frames_n, width))
            norm = get_item(_overlap_add(w2, sequence_stride, blocks), (Ellipsis, slice(0, total)))
            big = greater(norm, 1e-10)
            y = divide(y, where(big, norm, ones_like(norm)))
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = total - fft_length // 2
    else:
        end = total
    y = get_item(y, (Ellipsis, slice(start, min(end, total))))
    got = max(min(end, total) - start, 0)
    if length is not None and got < length:
        y = pad(y, [(0, 0)] * len(lead) + [(0, length - got)])
    return y


# ===== view_as_complex, view_as_real ====================================================
# Kernel contract of view_as_complex: one floating tensor (ints arrive as floatx) of shape
# (..., 2); returns complex64 (complex128 for float64, in 64-bit mode) of shape (...):
# x[..., 0] + 1j * x[..., 1].  Never called on
# a backend without complex64 (prepare raises TypeError there).
# Kernel contract of view_as_real: one tensor (complex64, or a real floating dtype; ints
# arrive as floatx); returns (..., 2) of the parts' dtype (complex64 -> float32): the real
# and imaginary parts stacked on a new last axis.


def _no_complex(op):
    from ..._registry import current

    backend = current()
    if "complex64" not in set(backend.runtime.dtypes.values()):
        raise TypeError(f"{op}: {backend.name} has no complex dtype (complex64 is not supported there)")


def _vac_check(shape):
    if len(shape) < 1 or shape[-1] not in (None, 2):
        raise ValueError(
            f"view_as_complex: expected a last dimension of size 2 (real and imaginary), got shape {shape}")


def _vac_prepare(x):
    _vac_check(tuple(x.shape))
    _no_complex("view_as_complex")
    return (x,)


@defop("math", tensors=("x",), promote=_float_parts, prepare=_vac_prepare)
def view_as_complex(x):
    """A complex64 tensor from a real tensor of shape ``(..., 2)`` (real, imaginary parts).

    Keras: ``keras.ops.view_as_complex``; PyTorch: ``torch.view_as_complex``.  complex64
    (as Keras), complex128 from float64 in 64-bit mode.  Backends without complex dtypes
    (openvino) raise TypeError.

    Example:
        >>> polyops.ops.view_as_complex(polyops.ops.convert_to_tensor([[1., 2.], [3., 4.]]))
        array([1.+2.j, 3.+4.j], dtype=complex64)
    """
    check_tensor("view_as_complex", "x", x)
    shape = shape_of(x)
    _vac_check(shape)
    (dtype,) = _float_parts((key(x),))
    return spec(shape[:-1], _COMPLEX_OF.get(dtype, "complex64"))


_COMPLEX_OF = {"float64": "complex128"}  # (float64 reaches the rule in 64-bit mode only)


@view_as_complex.reference
def _view_as_complex_ref(x):
    ctype = _COMPLEX_OF.get(_dtypes.standardize_dtype(x.dtype), "complex64")
    re = cast(get_item(x, (Ellipsis, 0)), ctype)
    im = cast(get_item(x, (Ellipsis, 1)), ctype)
    return add(re, multiply(im, 1j))


@defop("math", tensors=("x",), promote=_promote.floating)
def view_as_real(x):
    """The real and imaginary parts of a complex tensor, stacked on a new last axis of size 2.

    Keras: ``keras.ops.view_as_real``; PyTorch: ``torch.view_as_real``.  complex64 gives
    float32; real floating input gives its own dtype with zero imaginary parts (ints:
    floatx).  On a backend without complex dtypes (openvino) complex input cannot
    exist: converting it raises TypeError.

    Example:
        >>> polyops.ops.view_as_real(polyops.ops.convert_to_tensor([1 + 2j, 3 + 4j]))
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    check_tensor("view_as_real", "x", x)
    (dtype,) = _promote.floating((key(x),))
    dtype = _dtypes.REAL_OF.get(dtype, dtype)
    return spec(shape_of(x) + (2,), dtype)


@view_as_real.reference
def _view_as_real_ref(x):
    return stack([real(x), imag(x)], -1)


__all__ = [
    "Fft", "Fft2", "Ifft2", "Irfft", "Istft", "Rfft", "Stft", "ViewAsComplex", "ViewAsReal",
    "fft", "fft2", "ifft2", "irfft", "istft", "rfft", "stft", "view_as_complex",
    "view_as_real",
]

_finish(globals())
