"""Convolutions, pools, unfold/fold and depth/space rearrangements.

Part of `polyops.ops.nn`; see that package's docstring for how an op is declared.

Conventions shared by the ops below (Keras 3):

* ``inputs`` has rank N+2 (N = 1, 2, 3 spatial dims): ``(batch, *spatial, channels)``
  for ``data_format="channels_last"``, ``(batch, channels, *spatial)`` for
  "channels_first"; ``data_format=None`` means `polyops.config.image_data_format()`.
* Spatial dims must be non-empty (batch and channels may be 0).
* ``padding="same"`` is TF's: the total pad of an axis is
  ``max((out - 1) * stride + (k - 1) * dilation + 1 - n, 0)`` with ``out = ceil(n / stride)``,
  the odd element on the right.  "valid" pads nothing.
* Dtypes: the numeric ops (convolutions, pools, unfold/fold) compute in floats: the
  operands go to their common dtype and ints/bools to floatx (Keras keeps ``inputs.dtype``,
  which is the same for float inputs; its backends disagree or fail on int inputs).
  float16/bfloat16 accumulate in float32 (the ops declare compute="float32") and are
  cast back; max pools are exact and do not.  depth_to_space and
  space_to_depth only move elements and keep any dtype.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ... import _dtypes, _promote, config
from ..._op import defop
from .._base import check_tensor, key, shape_of, spec
from .._base import finish as _finish
from ..core import convert_to_tensor
from ..core import shape as _shape
from ..numpy import (add, concatenate, divide, einsum, flip, get_item, matmul, max, maximum,
                     mean, pad, reshape, stack, transpose, zeros_like)

_FLOATING = _promote.ordered(_promote.floating)
_FORMATS = ("channels_last", "channels_first")

# ===== helpers =======================================================================
# Static-argument checks shared by the rules (symbolic calls) and the prepare hooks
# (eager calls), so every backend raises the same errors; then reference helpers.


def _fmt(op, data_format):
    if data_format is None:
        data_format = config.image_data_format()
    if data_format not in _FORMATS:
        raise ValueError(f"{op}: data_format must be 'channels_last' or 'channels_first', "
                         f"got data_format={data_format!r}")
    return data_format


def _ints(op, name, value, n, minimum=1):
    """An int or a sequence of ``n`` ints, each >= ``minimum``, as a tuple of ``n`` ints."""
    if type(value) is int and value >= minimum:  # the common case (strides=1)
        return (value,) * n
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * n
    try:
        value = tuple(int(v) for v in value)
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    except TypeError:
        ok = False
    if not ok:
        raise TypeError(f"{op}: expected an int or a tuple of {n} ints for {name}, got {name}={value!r}")
    if len(value) != n:
        raise ValueError(f"{op}: expected {n} values for {name} ({n} spatial dims), got {name}={value!r}")
    if any(v < minimum for v in value):
        raise ValueError(f"{op}: {name} must be >= {minimum}, got {name}={value!r}")
    return value


def _padding(op, padding):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in ("valid", "same"):
        raise ValueError(f"{op}: padding must be 'valid' or 'same', got padding={padding!r}")
    return p


def _rank(op, shape, ranks=(3, 4, 5), name="inputs"):
    if len(shape) not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"{op}: expected {name} of rank {want}, got shape={tuple(shape)}")
    return len(shape) - 2


def _split(shape, fmt):
    """(batch, spatial dims, channels) of an input shape."""
    if fmt == "channels_last":
        return shape[0], tuple(shape[1:-1]), shape[-1]
    return shape[0], tuple(shape[2:]), shape[1]


def _join(batch, spatial, channels, fmt):
    if fmt == "channels_last":
        return (batch, *spatial, channels)
    return (batch, channels, *spatial)


def _out_size(op, n, k, s, d, padding, shape):
    if n is None:
        return None
    if n == 0:  # (frameworks disagree or fail on empty spatial dims)
        raise ValueError(f"{op}: expected non-empty spatial dims, got input shape={tuple(shape)}")
    if padding == "same":
        return -(-n // s)
    if k is None:
        return None
    out = (n - (k - 1) * d - 1) // s + 1
    if out <= 0:
        raise ValueError(f"{op}: the window (size {k}, dilation {d}) is bigger than the input "
                         f"with padding='valid': input shape={tuple(shape)}")
    return out


def _same_pads(n, k, s, d):
    out = -(-n // s)
    total = _imax((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def _imax(a, b):
    return a if a >= b else b


def _dt(x):
    return _dtypes.standardize_dtype(x.dtype)


def _to_last(x, nd, fmt):
    if fmt == "channels_first":
        return transpose(x, (0, *range(2, nd + 2), 1))
    return x


def _from_last(x, nd, fmt):
    if fmt == "channels_first":
        return transpose(x, (0, nd + 1, *range(1, nd + 1)))
    return x


def _pad_crop(x, pads, value=0):
    """Pad (or crop, for negative amounts) the spatial axes 1..N of a channels_last ``x``."""
    nd = len(pads)
    if any(lo > 0 or hi > 0 for lo, hi in pads):
        width = [(0, 0)] + [(_imax(lo, 0), _imax(hi, 0)) for lo, hi in pads] + [(0, 0)]
        x = pad(x, width, constant_values=value)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        shape = _shape(x)
        key_ = [slice(None)]
        for i, (lo, hi) in enumerate(pads):
            key_.append(slice(_imax(-lo, 0), shape[i + 1] - _imax(-hi, 0)))
        x = get_item(x, tuple(key_ + [slice(None)] * (len(shape) - nd - 1)))
    return x


def _windows(x, ksize, strides, dilation, outs):
    """For each kernel offset (row-major), the strided window of channels_last ``x``."""
    out = []
    for offset in itertools.product(*(range(k) for k in ksize)):
        key_ = [slice(None)]
        for o, s, d, m in zip(offset, strides, dilation, outs):
            start = o * d
            key_.append(slice(start, start + (m - 1) * s + 1 if m else start, s))
        key_.append(slice(None))
        out.append(get_item(x, tuple(key_)))
    return out


def _conv_last(x, kernel, strides, dilation, groups):
    """Valid convolution of channels_last ``x`` (already padded) with a Keras kernel."""
    nd = len(strides)
    shape = _shape(x)
    ksize = tuple(_shape(kernel)[:nd])
    kin, cout = _shape(kernel)[-2:]
    outs = tuple((n - (k - 1) * d - 1) // s + 1 for n, k, s, d in zip(shape[1:-1], ksize, strides, dilation))
    K = math.prod(ksize)
    wins = _windows(x, ksize, strides, dilation, outs)
    n = shape[0]
    if groups == 1:
        p = reshape(stack(wins, axis=-2), (n * math.prod(outs), K * kin))
        y = matmul(p, reshape(kernel, (K * kin, cout)))
    else:
        p = reshape(stack(wins, axis=-2), (n * math.prod(outs), K, groups, kin))
        kk = reshape(kernel, (K, kin, groups, cout // groups))
        y = einsum("lkgc,kcgo->lgo", p, kk)
    return reshape(y, (n, *outs, cout))


# ===== conv ==========================================================================


def _conv_static(op, xshape, kshape, strides, padding, data_format, dilation_rate, depthwise=False):
    """Checked static arguments and the output shape of conv/depthwise_conv."""
    nd = _rank(op, xshape)
    if len(kshape) != nd + 2:
        raise ValueError(f"{op}: expected a kernel of rank {nd + 2} for inputs of shape "
                         f"{tuple(xshape)}, got kernel shape={tuple(kshape)}")
    fmt = _fmt(op, data_format)
    strides = _ints(op, "strides", strides, nd)
    dil = _ints(op, "dilation_rate", dilation_rate, nd)
    padding = _padding(op, padding)
    batch, spatial, cin = _split(xshape, fmt)
    kin, kout = kshape[-2:]
    groups = None
    if depthwise:
        if cin is not None and kin is not None and cin != kin:
            raise ValueError(f"{op}: the kernel's input channels ({kin}) must equal the inputs' "
                             f"channels ({cin}): inputs shape={tuple(xshape)}, kernel shape={tuple(kshape)}")
        cout = None if kin is None or kout is None else kin * kout
    else:
        if cin is not None and kin is not None:
            if kin == 0 or cin % kin:
                raise ValueError(f"{op}: the inputs' channels ({cin}) must be a multiple of the "
                                 f"kernel's input channels ({kin}): inputs shape={tuple(xshape)}, "
                                 f"kernel shape={tuple(kshape)}")
            groups = cin // kin
            if kout is not None and kout % groups:
                raise ValueError(f"{op}: the kernel's output channels ({kout}) must be a multiple "
                                 f"of the number of groups ({groups}): kernel shape={tuple(kshape)}")
        cout = kout
    outs = tuple(_out_size(op, n, k, s, d, padding, xshape)
                 for n, k, s, d in zip(spatial, kshape[:nd], strides, dil))
    return fmt, strides, padding, dil, groups, _join(batch, outs, cout, fmt)


def _conv_prepare(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    fmt, strides, padding, dil, _, _ = _conv_static(
        "conv", tuple(inputs.shape), tuple(kernel.shape), strides, padding, data_format, dilation_rate)
    return inputs, kernel, strides, padding, fmt, dil


# Kernel contract: conv(inputs, kernel, strides, padding, data_format, dilation_rate) gets
# inputs (rank N+2) and kernel (*k, in_channels // groups, out_channels) of the same float
# dtype, strides and dilation_rate as N-tuples of ints, padding "valid" or "same", and
# data_format "channels_last" or "channels_first"; groups = in_channels // kernel.shape[-2].
# Returns the convolution in that dtype.
@defop("nn", tensors=("inputs", "kernel"), promote=_FLOATING, prepare=_conv_prepare, compute="float32", empty=0)
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """N-D convolution (cross-correlation, as in deep learning), N = 1, 2 or 3.

    ``inputs``: rank N+2 in ``data_format``; ``kernel``: ``(*kernel_size, in_channels //
    groups, out_channels)``.  The inputs' channels must be a multiple of the kernel's
    input channels: their ratio is the number of groups (grouped convolution).
    ``padding`` "valid" or "same" (TF's asymmetric same); ``strides`` and
    ``dilation_rate`` ints or N-tuples.

    Keras: ``keras.ops.conv``.  Framework equivalents: ``jax.lax.conv_general_dilated``,
    ``tf.nn.convolution``, ``torch.nn.functional.conv2d``.  Dtype: the common float dtype
    of the operands (ints to floatx); float16/bfloat16 accumulate in float32.

    Example:
        >>> x = polyops.ops.ones((1, 5, 5, 2)); k = polyops.ops.ones((3, 3, 2, 4))
        >>> polyops.ops.conv(x, k, padding="same").shape
        (1, 5, 5, 4)
    """
    check_tensor("conv", "inputs", inputs)
    check_tensor("conv", "kernel", kernel)
    dtype, _ = _FLOATING((key(inputs), key(kernel)))
    out = _conv_static("conv", shape_of(inputs), shape_of(kernel), strides, padding, data_format,
                       dilation_rate)[-1]
    return spec(out, dtype)


def _conv_impl(inputs, kernel, strides, padding, data_format, dilation_rate, groups=None):
    nd = len(strides)
    x = _to_last(inputs, nd, data_format)
    k = kernel
    ksize = _shape(k)[:nd]
    if groups is None:
        groups = _shape(x)[-1] // _shape(k)[-2]
    if padding == "same":
        x = _pad_crop(x, [_same_pads(n, kk, s, d)
                          for n, kk, s, d in zip(_shape(x)[1:-1], ksize, strides, dilation_rate)])
    y = _from_last(_conv_last(x, k, strides, dilation_rate, groups), nd, data_format)
    return y


@conv.reference
def _conv_ref(inputs, kernel, strides, padding, data_format, dilation_rate):
    return _conv_impl(inputs, kernel, strides, padding, data_format, dilation_rate)


# ===== depthwise_conv ================================================================


def _dw_prepare(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    fmt, strides, padding, dil, _, _ = _conv_static(
        "depthwise_conv", tuple(inputs.shape), tuple(kernel.shape), strides, padding, data_format,
        dilation_rate, depthwise=True)
    return inputs, kernel, strides, padding, fmt, dil


# Kernel contract: depthwise_conv(inputs, kernel, strides, padding, data_format, dilation_rate)
# as conv's, with kernel (*k, in_channels, multiplier); output channel c * multiplier + m.
@defop("nn", tensors=("inputs", "kernel"), promote=_FLOATING, prepare=_dw_prepare, compute="float32", empty=0)
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Depthwise N-D convolution: each input channel convolved with its own filters.

    ``kernel``: ``(*kernel_size, in_channels, channel_multiplier)``; the output has
    ``in_channels * channel_multiplier`` channels, channel ``c * multiplier + m``.
    Keras: ``keras.ops.depthwise_conv`` (Keras documents 1D/2D; 3D works here too).
    Equivalent: ``tf.nn.depthwise_conv2d``; a grouped conv with groups = in_channels.
    Dtype: as `conv`.

    Example:
        >>> x = polyops.ops.ones((1, 4, 4, 2)); k = polyops.ops.ones((2, 2, 2, 3))
        >>> polyops.ops.depthwise_conv(x, k).shape
        (1, 3, 3, 6)
    """
    check_tensor("depthwise_conv", "inputs", inputs)
    check_tensor("depthwise_conv", "kernel", kernel)
    dtype, _ = _FLOATING((key(inputs), key(kernel)))
    out = _conv_static("depthwise_conv", shape_of(inputs), shape_of(kernel), strides, padding,
                       data_format, dilation_rate, depthwise=True)[-1]
    return spec(out, dtype)


@depthwise_conv.reference
def _dw_ref(inputs, kernel, strides, padding, data_format, dilation_rate):
    nd = len(strides)
    ks = _shape(kernel)
    k = reshape(kernel, (*ks[:nd], 1, ks[-2] * ks[-1]))
    return _conv_impl(inputs, k, strides, padding, data_format, dilation_rate, groups=ks[-2])


# ===== separable_conv ================================================================


def _sep_static(op, xshape, dshape, pshape, strides, padding, data_format, dilation_rate):
    fmt, strides, padding, dil, _, out = _conv_static(
        op, xshape, dshape, strides, padding, data_format, dilation_rate, depthwise=True)
    nd = len(strides)
    if len(pshape) != nd + 2:
        raise ValueError(f"{op}: expected a pointwise_kernel of rank {nd + 2}, got shape={tuple(pshape)}")
    if any(k is not None and k != 1 for k in pshape[:nd]):
        raise ValueError(f"{op}: the pointwise_kernel's spatial dims must be 1, got shape={tuple(pshape)}")
    mid = None if dshape[-2] is None or dshape[-1] is None else dshape[-2] * dshape[-1]
    if mid is not None and pshape[-2] is not None and pshape[-2] != mid:
        raise ValueError(f"{op}: the pointwise_kernel's input channels ({pshape[-2]}) must equal "
                         f"in_channels * channel_multiplier ({mid}): pointwise_kernel shape={tuple(pshape)}")
    out = list(out)
    out[-1 if fmt == "channels_last" else 1] = pshape[-1]
    return fmt, strides, padding, dil, tuple(out)


def _sep_prepare(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                 data_format=None, dilation_rate=1):
    fmt, strides, padding, dil, _ = _sep_static(
        "separable_conv", tuple(inputs.shape), tuple(depthwise_kernel.shape),
        tuple(pointwise_kernel.shape), strides, padding, data_format, dilation_rate)
    return inputs, depthwise_kernel, pointwise_kernel, strides, padding, fmt, dil


# Kernel contract: separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides, padding,
# data_format, dilation_rate): depthwise_conv then a 1x..x1 conv, one float dtype.
@defop("nn", tensors=("inputs", "depthwise_kernel", "pointwise_kernel"), promote=_FLOATING,
       prepare=_sep_prepare)
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """Separable convolution: `depthwise_conv` then a pointwise (1x1) `conv`.

    ``pointwise_kernel``: ``(1, ..., 1, in_channels * channel_multiplier, out_channels)``.
    Keras: ``keras.ops.separable_conv``.  Equivalent: ``tf.nn.separable_conv2d``.
    Dtype: as `conv`.

    Example:
        >>> x = polyops.ops.ones((1, 4, 4, 2))
        >>> polyops.ops.separable_conv(x, polyops.ops.ones((2, 2, 2, 1)),
        ...                            polyops.ops.ones((1, 1, 2, 5))).shape
        (1, 3, 3, 5)
    """
    for n, t in (("inputs", inputs), ("depthwise_kernel", depthwise_kernel),
                 ("pointwise_kernel", pointwise_kernel)):
        check_tensor("separable_conv", n, t)
    dtype = _FLOATING((key(inputs), key(depthwise_kernel), key(pointwise_kernel)))[0]
    out = _sep_static("separable_conv", shape_of(inputs), shape_of(depthwise_kernel),
                      shape_of(pointwise_kernel), strides, padding, data_format, dilation_rate)[-1]
    return spec(out, dtype)


@separable_conv.reference
def _sep_ref(inputs, depthwise_kernel, pointwise_kernel, strides, padding, data_format, dilation_rate):
    y = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    nd = len(strides)
    return conv(y, pointwise_kernel, 1, "valid", data_format, (1,) * nd)


# ===== conv_transpose ================================================================


def _tr_size(n, k, s, d, padding, op_):
    if n is None or k is None:
        return None
    k = (k - 1) * d + 1
    if padding == "valid":
        op_ = _imax(k, s) - k if op_ is None else op_
        return (n - 1) * s + k + op_
    if op_ is None:
        return n * s
    return (n - 1) * s + k % 2 + op_


def _tr_pads(k, s, d, padding, op_):
    """Keras's (left, right) padding of the stride-dilated input (JAX's convention)."""
    k = (k - 1) * d + 1
    if padding == "valid":
        op_ = _imax(k, s) - k if op_ is None else op_
        return k - 1, k - 1 + op_
    pad_len = s + k - 2 if op_ is None else k + k % 2 - 2 + op_
    left = min(pad_len // 2 + pad_len % 2, k - 1)
    return left, pad_len - left


def _tr_static(op, xshape, kshape, strides, padding, output_padding, data_format, dilation_rate):
    nd = _rank(op, xshape)
    if len(kshape) != nd + 2:
        raise ValueError(f"{op}: expected a kernel of rank {nd + 2} for inputs of shape "
                         f"{tuple(xshape)}, got kernel shape={tuple(kshape)}")
    fmt = _fmt(op, data_format)
    strides = _ints(op, "strides", strides, nd)
    dil = _ints(op, "dilation_rate", dilation_rate, nd)
    padding = _padding(op, padding)
    if output_padding is not None:
        output_padding = _ints(op, "output_padding", output_padding, nd, minimum=0)
        for o, s, d in zip(output_padding, strides, dil):
            if o >= _imax(s, d):
                raise ValueError(f"{op}: output_padding must be smaller than the stride or the "
                                 f"dilation, got output_padding={output_padding}, strides={strides}")
    batch, spatial, cin = _split(xshape, fmt)
    filters, kin = kshape[-2:]
    if cin is not None and kin is not None and cin != kin:
        raise ValueError(f"{op}: the kernel's last dim ({kin}) must equal the inputs' channels "
                         f"({cin}): inputs shape={tuple(xshape)}, kernel shape={tuple(kshape)}")
    if 0 in spatial:
        raise ValueError(f"{op}: expected non-empty spatial dims, got input shape={tuple(xshape)}")
    outs = tuple(_tr_size(n, k, s, d, padding, None if output_padding is None else output_padding[i])
                 for i, (n, k, s, d) in enumerate(zip(spatial, kshape[:nd], strides, dil)))
    if any(o is not None and o < 0 for o in outs):
        raise ValueError(f"{op}: negative output size {outs} for inputs shape={tuple(xshape)}")
    return fmt, strides, padding, output_padding, dil, _join(batch, outs, filters, fmt)


def _tr_prepare(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                dilation_rate=1):
    fmt, strides, padding, op_, dil, _ = _tr_static(
        "conv_transpose", tuple(inputs.shape), tuple(kernel.shape), strides, padding,
        output_padding, data_format, dilation_rate)
    return inputs, kernel, strides, padding, op_, fmt, dil


# Kernel contract: conv_transpose(inputs, kernel, strides, padding, output_padding, data_format,
# dilation_rate) gets inputs (rank N+2) and kernel (*k, filters, in_channels) of one float dtype,
# strides/dilation_rate N-tuples, padding "valid"|"same", output_padding None or an N-tuple.
# Output size per axis: Keras's formula (see `_tr_size`); values as jax.lax.conv_transpose with
# the padding of `_tr_pads` and transpose_kernel=True.
@defop("nn", tensors=("inputs", "kernel"), promote=_FLOATING, prepare=_tr_prepare, compute="float32", empty=0)
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """Transposed N-D convolution (the gradient of `conv` w.r.t. its input), N = 1, 2, 3.

    ``kernel``: ``(*kernel_size, filters, in_channels)``.  Output size per axis
    (k the dilated kernel size): "valid": ``(n - 1) * s + k + output_padding``
    (default output_padding ``max(k, s) - k``); "same": ``n * s`` without output_padding,
    else ``(n - 1) * s + k % 2 + output_padding``.

    Keras: ``keras.ops.conv_transpose`` (values as its JAX backend).  Equivalents:
    ``jax.lax.conv_transpose``, ``tf.nn.conv_transpose``.  Dtype: as `conv`.

    Example:
        >>> x = polyops.ops.ones((1, 3, 3, 2)); k = polyops.ops.ones((2, 2, 4, 2))
        >>> polyops.ops.conv_transpose(x, k, strides=2).shape
        (1, 6, 6, 4)
    """
    check_tensor("conv_transpose", "inputs", inputs)
    check_tensor("conv_transpose", "kernel", kernel)
    dtype, _ = _FLOATING((key(inputs), key(kernel)))
    out = _tr_static("conv_transpose", shape_of(inputs), shape_of(kernel), strides, padding,
                     output_padding, data_format, dilation_rate)[-1]
    return spec(out, dtype)


def _dilate(x, axis, s):
    """Insert ``s - 1`` zeros between the elements of ``x`` along ``axis``."""
    shape = _shape(x)
    n = shape[axis]
    if s == 1 or n == 0:
        return x
    z = zeros_like(x)
    y = stack([x] + [z] * (s - 1), axis=axis + 1)
    y = reshape(y, (*shape[:axis], n * s, *shape[axis + 1:]))
    key_ = [slice(None)] * len(shape)
    key_[axis] = slice(0, (n - 1) * s + 1)
    return get_item(y, tuple(key_))


@conv_transpose.reference
def _tr_ref(inputs, kernel, strides, padding, output_padding, data_format, dilation_rate):
    nd = len(strides)
    x = _to_last(inputs, nd, data_format)
    k = kernel
    ksize = _shape(k)[:nd]
    for i, s in enumerate(strides):
        x = _dilate(x, i + 1, s)
    pads = [_tr_pads(kk, s, d, padding, None if output_padding is None else output_padding[i])
            for i, (kk, s, d) in enumerate(zip(ksize, strides, dilation_rate))]
    x = _pad_crop(x, pads)
    k = flip(transpose(k, (*range(nd), nd + 1, nd)), tuple(range(nd)))
    y = _from_last(_conv_last(x, k, (1,) * nd, dilation_rate, 1), nd, data_format)
    return y


# ===== max_pool, average_pool ========================================================


def _pool_static(op, xshape, pool_size, strides, padding, data_format):
    nd = _rank(op, xshape)
    fmt = _fmt(op, data_format)
    pool = _ints(op, "pool_size", pool_size, nd)
    strides = pool if strides is None else _ints(op, "strides", strides, nd)
    padding = _padding(op, padding)
    batch, spatial, c = _split(xshape, fmt)
    outs = tuple(_out_size(op, n, k, s, 1, padding, xshape) for n, k, s in zip(spatial, pool, strides))
    return pool, strides, padding, fmt, _join(batch, outs, c, fmt)


def _pool_prepare_for(op):
    def prepare(inputs, pool_size, strides=None, padding="valid", data_format=None):
        pool, strides, padding, fmt, _ = _pool_static(op, tuple(inputs.shape), pool_size, strides,
                                                      padding, data_format)
        return inputs, pool, strides, padding, fmt

    return prepare


def _pool_rule(op, inputs, pool_size, strides, padding, data_format):
    check_tensor(op, "inputs", inputs)
    (dtype,) = _FLOATING((key(inputs),))
    return spec(_pool_static(op, shape_of(inputs), pool_size, strides, padding, data_format)[-1], dtype)


# Kernel contract: max_pool(inputs, pool_size, strides, padding, data_format) gets a float
# tensor of rank N+2, pool_size and strides as N-tuples, padding "valid"|"same" (padded with
# -inf), data_format canonical.  Returns the window maxima in the input dtype.
@defop("nn", tensors=("inputs",), promote=_FLOATING, prepare=_pool_prepare_for("max_pool"))
def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling over N-D windows (N = 1, 2, 3); ``strides`` defaults to ``pool_size``.

    "same" pads with -inf (TF's asymmetric same).  NaN in a window gives NaN.
    Keras: ``keras.ops.max_pool``.  Equivalents: ``tf.nn.max_pool``,
    ``jax.lax.reduce_window(max)``.  Dtype: the input's float dtype (ints to floatx).

    Example:
        >>> polyops.ops.max_pool(polyops.ops.ones((1, 4, 4, 1)), 2).shape
        (1, 2, 2, 1)
    """
    return _pool_rule("max_pool", inputs, pool_size, strides, padding, data_format)


def _pool_setup(inputs, pool_size, strides, padding, data_format, value):
    nd = len(pool_size)
    x = _to_last(inputs, nd, data_format)
    spatial = _shape(x)[1:-1]
    outs = tuple(-(-n // s) if padding == "same" else (n - k) // s + 1
                 for n, k, s in zip(spatial, pool_size, strides))
    pads = [_same_pads(n, k, s, 1) if padding == "same" else (0, 0)
            for n, k, s in zip(spatial, pool_size, strides)]
    x = _pad_crop(x, pads, value)
    return x, spatial, outs, pads


@max_pool.reference
def _max_pool_ref(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    x, _, outs, _ = _pool_setup(inputs, pool_size, strides, padding, data_format, float("-inf"))
    wins = _windows(x, pool_size, strides, (1,) * nd, outs)
    y = wins[0]
    for w in wins[1:]:
        y = maximum(y, w)
    return _from_last(y, nd, data_format)


# Kernel contract: average_pool(inputs, pool_size, strides, padding, data_format): as max_pool's;
# "same" divides each window's sum by its number of non-padded elements (TF).
@defop("nn", tensors=("inputs",), promote=_FLOATING, prepare=_pool_prepare_for("average_pool"), compute="float32")
def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling over N-D windows (N = 1, 2, 3); ``strides`` defaults to ``pool_size``.

    With "same", a window's mean is over its non-padded elements only (TF, Keras;
    torch's ``count_include_pad=False``).  Keras: ``keras.ops.average_pool``.
    Equivalent: ``tf.nn.avg_pool``.  Dtype: the input's float dtype (ints to floatx);
    float16/bfloat16 sum in float32.

    Example:
        >>> polyops.ops.average_pool(polyops.ops.ones((1, 3, 3, 1)), 2, 1, "same")[0, :, :, 0]
        array([[1., 1., 1.],
               [1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    return _pool_rule("average_pool", inputs, pool_size, strides, padding, data_format)


def _avg_counts(spatial, pool, strides, outs, pads):
    """Static (1, *outs, 1) float32 array: non-padded elements per window."""
    counts = np.ones((1,) * (len(spatial) + 2), np.float32)
    for i, (n, k, s, m, (lo, _)) in enumerate(zip(spatial, pool, strides, outs, pads)):
        start = np.arange(m) * s - lo
        c = np.minimum(start + k, n) - np.maximum(start, 0)
        shape = [1] * (len(spatial) + 2)
        shape[i + 1] = m
        counts = counts * c.astype(np.float32).reshape(shape)
    return counts


@average_pool.reference
def _avg_pool_ref(inputs, pool_size, strides, padding, data_format):
    nd = len(pool_size)
    w = _dt(inputs)
    x, spatial, outs, pads = _pool_setup(inputs, pool_size, strides, padding, data_format, 0)
    wins = _windows(x, pool_size, strides, (1,) * nd, outs)
    y = wins[0]
    for win in wins[1:]:
        y = add(y, win)
    if padding == "same" and any(p != (0, 0) for p in pads):
        y = divide(y, convert_to_tensor(_avg_counts(spatial, pool_size, strides, outs, pads), w))
    else:
        y = divide(y, convert_to_tensor(np.float32(math.prod(pool_size)), w))
    y = _from_last(y, nd, data_format)
    return y


# ===== adaptive pools ================================================================


def _adaptive_static(op, xshape, output_size, data_format):
    nd = _rank(op, xshape)
    fmt = _fmt(op, data_format)
    size = _ints(op, "output_size", output_size, nd)
    batch, _, c = _split(xshape, fmt)
    return size, fmt, _join(batch, size, c, fmt)


def _adaptive_prepare_for(op):
    def prepare(inputs, output_size, data_format=None):
        size, fmt, _ = _adaptive_static(op, tuple(inputs.shape), output_size, data_format)
        for n in _split(tuple(inputs.shape), fmt)[1]:
            if n == 0:
                raise ValueError(f"{op}: expected non-empty spatial dims, got shape={tuple(inputs.shape)}")
        return inputs, size, fmt

    return prepare


def _adaptive_rule(op, inputs, output_size, data_format):
    check_tensor(op, "inputs", inputs)
    (dtype,) = _FLOATING((key(inputs),))
    return spec(_adaptive_static(op, shape_of(inputs), output_size, data_format)[-1], dtype)


def _bins(n, m):
    return [((i * n) // m, -(-((i + 1) * n) // m)) for i in range(m)]


def _adaptive_ref(inputs, output_size, data_format, reduce):
    nd = len(output_size)
    x = _to_last(inputs, nd, data_format)
    for i, m in enumerate(output_size):
        axis = i + 1
        n = _shape(x)[axis]
        parts = []
        for lo, hi in _bins(n, m):
            key_ = [slice(None)] * (nd + 2)
            key_[axis] = slice(lo, hi)
            parts.append(reduce(get_item(x, tuple(key_)), axis))
        x = concatenate(parts, axis=axis)
    return _from_last(x, nd, data_format)


# Kernel contract: adaptive_max_pool(inputs, output_size, data_format): float inputs of rank
# N+2 with non-empty spatial dims, output_size an N-tuple; bin i of an axis of size n spans
# [floor(i * n / m), ceil((i + 1) * n / m)) (PyTorch).  Returns the bin maxima.
@defop("nn", tensors=("inputs",), promote=_FLOATING, prepare=_adaptive_prepare_for("adaptive_max_pool"))
def adaptive_max_pool(inputs, output_size, data_format=None):
    """Adaptive max pooling to a fixed spatial ``output_size`` (int or N-tuple), N = 1, 2, 3.

    Bin ``i`` of an axis of size ``n`` pooled to ``m`` spans ``[floor(i*n/m),
    ceil((i+1)*n/m))`` (PyTorch's ``adaptive_max_pool2d``).  Keras:
    ``keras.ops.adaptive_max_pool``.  Dtype: the input's float dtype (ints to floatx).

    Example:
        >>> polyops.ops.adaptive_max_pool(polyops.ops.ones((2, 7, 5, 3)), 2).shape
        (2, 2, 2, 3)
    """
    return _adaptive_rule("adaptive_max_pool", inputs, output_size, data_format)


@adaptive_max_pool.reference
def _amax_ref(inputs, output_size, data_format):
    return _adaptive_ref(inputs, output_size, data_format, lambda t, a: max(t, (a,), True))


# Kernel contract: adaptive_average_pool(inputs, output_size, data_format): as adaptive_max_pool,
# the bin means.
@defop("nn", tensors=("inputs",), promote=_FLOATING,
       prepare=_adaptive_prepare_for("adaptive_average_pool"), compute="float32")
def adaptive_average_pool(inputs, output_size, data_format=None):
    """Adaptive average pooling to a fixed spatial ``output_size`` (int or N-tuple).

    Bins as `adaptive_max_pool` (PyTorch's ``adaptive_avg_pool2d``).  Keras:
    ``keras.ops.adaptive_average_pool``.  Dtype: the input's float dtype (ints to
    floatx); float16/bfloat16 average in float32.

    Example:
        >>> polyops.ops.adaptive_average_pool(polyops.ops.ones((2, 7, 5, 3)), (3, 1)).shape
        (2, 3, 1, 3)
    """
    return _adaptive_rule("adaptive_average_pool", inputs, output_size, data_format)


@adaptive_average_pool.reference
def _aavg_ref(inputs, output_size, data_format):
    return _adaptive_ref(inputs, output_size, data_format, lambda t, a: mean(t, (a,), True))


# ===== unfold, fold ==================================================================


def _unfold_static(op, xshape, kernel_size, dilation, padding, stride):
    _rank(op, xshape, (4,), "x")
    k = _ints(op, "kernel_size", kernel_size, 2)
    d = _ints(op, "dilation", dilation, 2)
    p = _ints(op, "padding", padding, 2, minimum=0)
    s = _ints(op, "stride", stride, 2)
    return k, d, p, s


def _blocks(op, size, k, d, p, s, shape):
    if size is None:
        return None
    out = (size + 2 * p - d * (k - 1) - 1) // s + 1
    if out <= 0:
        raise ValueError(f"{op}: the kernel (size {k}, dilation {d}) is bigger than the padded "
                         f"input: shape={tuple(shape)}")
    return out


def _unfold_prepare(x, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = _unfold_static("unfold", tuple(x.shape), kernel_size, dilation, padding, stride)
    for i in range(2):
        _blocks("unfold", x.shape[2 + i], k[i], d[i], p[i], s[i], x.shape)
    return x, k, d, p, s


# Kernel contract: unfold(x, kernel_size, dilation, padding, stride): float x (N, C, H, W), the
# four static args as 2-tuples.  Returns (N, C * kH * kW, L) (torch.nn.functional.unfold).
@defop("nn", tensors=("x",), promote=_FLOATING, prepare=_unfold_prepare)
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks (im2col) of a channels_first ``(N, C, H, W)`` tensor.

    Returns ``(N, C * kH * kW, L)``, L the number of blocks, rows ordered (C, kH, kW)
    as ``torch.nn.functional.unfold`` (zero ``padding`` on both sides of H and W).
    Keras: ``keras.ops.unfold``.  Dtype: the input's float dtype (ints to floatx).

    Example:
        >>> polyops.ops.unfold(polyops.ops.ones((1, 2, 4, 4)), 2, stride=2).shape
        (1, 8, 4)
    """
    check_tensor("unfold", "x", x)
    (dtype,) = _FLOATING((key(x),))
    shape = shape_of(x)
    k, d, p, s = _unfold_static("unfold", shape, kernel_size, dilation, padding, stride)
    n, c, h, w = shape
    bh = _blocks("unfold", h, k[0], d[0], p[0], s[0], shape)
    bw = _blocks("unfold", w, k[1], d[1], p[1], s[1], shape)
    return spec((n, None if c is None else c * k[0] * k[1], None if bh is None or bw is None else bh * bw),
                dtype)


@unfold.reference
def _unfold_ref(x, kernel_size, dilation, padding, stride):
    n, c, h, w = _shape(x)
    if padding != (0, 0):
        x = pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    outs = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                 for size, k, d, p, s in zip((h, w), kernel_size, dilation, padding, stride))
    wins = []
    for i, j in itertools.product(range(kernel_size[0]), range(kernel_size[1])):
        key_ = (slice(None), slice(None)) + tuple(
            slice(o * dd, o * dd + (m - 1) * ss + 1, ss)
            for o, dd, ss, m in zip((i, j), dilation, stride, outs))
        wins.append(get_item(x, key_))
    y = stack(wins, axis=2)  # (N, C, kH*kW, oH, oW)
    return reshape(y, (n, c * kernel_size[0] * kernel_size[1], outs[0] * outs[1]))


def _fold_static(op, xshape, output_size, kernel_size, dilation, padding, stride):
    _rank(op, xshape, (3,), "x")
    o = _ints(op, "output_size", output_size, 2, minimum=0)
    k, d, p, s = _unfold_static(op, (0,) * 4, kernel_size, dilation, padding, stride)
    n, ckk, L = xshape
    if ckk is not None and ckk % (k[0] * k[1]):
        raise ValueError(f"{op}: the second dim of x ({ckk}) must be a multiple of "
                         f"kH * kW = {k[0] * k[1]}: shape={tuple(xshape)}")
    blocks = [_blocks(op, o[i], k[i], d[i], p[i], s[i], xshape) for i in range(2)]
    if L is not None and L != blocks[0] * blocks[1]:
        raise ValueError(f"{op}: the last dim of x ({L}) must be the number of blocks "
                         f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}: shape={tuple(xshape)}")
    c = None if ckk is None else ckk // (k[0] * k[1])
    return o, k, d, p, s, (n, c, *o)


def _fold_prepare(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    o, k, d, p, s, _ = _fold_static("fold", tuple(x.shape), output_size, kernel_size, dilation,
                                    padding, stride)
    return x, o, k, d, p, s


# Kernel contract: fold(x, output_size, kernel_size, dilation, padding, stride): float x
# (N, C * kH * kW, L), static args as 2-tuples.  Returns (N, C, oH, oW), overlapping blocks
# summed (torch.nn.functional.fold).
@defop("nn", tensors=("x",), promote=_FLOATING, prepare=_fold_prepare, compute="float32")
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding blocks into a ``(N, C, oH, oW)`` tensor (col2im), summing overlaps.

    The inverse layout of `unfold` (``torch.nn.functional.fold``).  Keras:
    ``keras.ops.fold``.  Dtype: the input's float dtype (ints to floatx);
    float16/bfloat16 sum in float32.

    Example:
        >>> polyops.ops.fold(polyops.ops.ones((1, 8, 4)), (4, 4), 2, stride=2).shape
        (1, 2, 4, 4)
    """
    check_tensor("fold", "x", x)
    (dtype,) = _FLOATING((key(x),))
    return spec(_fold_static("fold", shape_of(x), output_size, kernel_size, dilation, padding,
                             stride)[-1], dtype)


@fold.reference
def _fold_ref(x, output_size, kernel_size, dilation, padding, stride):
    n, ckk, _ = _shape(x)
    kh, kw = kernel_size
    c = ckk // (kh * kw)
    hp, wp = output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]
    nb = tuple((size - d * (k - 1) - 1) // s + 1
               for size, k, d, s in zip((hp, wp), kernel_size, dilation, stride))
    blocks = reshape(x, (n, c, kh, kw, nb[0], nb[1]))
    total = None
    for i, j in itertools.product(range(kh), range(kw)):
        b = get_item(blocks, (slice(None), slice(None), i, j))  # (N, C, nbH, nbW)
        b = _dilate(_dilate(b, 2, stride[0]), 3, stride[1])
        widths = []
        for off, size, full_ in zip((i * dilation[0], j * dilation[1]), _shape(b)[2:], (hp, wp)):
            widths.append((off, full_ - off - size))
        b = pad(b, ((0, 0), (0, 0), *widths))
        total = b if total is None else add(total, b)
    y = get_item(total, (slice(None), slice(None), slice(padding[0], padding[0] + output_size[0]),
                         slice(padding[1], padding[1] + output_size[1])))
    return y


# ===== depth_to_space, space_to_depth ================================================


def _d2s_static(op, xshape, block_size, data_format, to_space):
    _rank(op, xshape, (4,), "x")
    fmt = _fmt(op, data_format)
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)):
        raise TypeError(f"{op}: expected an int block_size, got block_size={block_size!r}")
    b = int(block_size)
    if b < 2:
        raise ValueError(f"{op}: block_size must be at least 2, got block_size={block_size}")
    n, (h, w), c = _split(xshape, fmt)
    if to_space:
        if c is not None and c % (b * b):
            raise ValueError(f"{op}: the channels ({c}) must be a multiple of block_size**2 "
                             f"({b * b}): shape={tuple(xshape)}")
        out = (None if h is None else h * b, None if w is None else w * b), None if c is None else c // (b * b)
    else:
        for name, v in (("height", h), ("width", w)):
            if v is not None and v % b:
                raise ValueError(f"{op}: the {name} ({v}) must be a multiple of block_size ({b}): "
                                 f"shape={tuple(xshape)}")
        out = (None if h is None else h // b, None if w is None else w // b), None if c is None else c * b * b
    return b, fmt, _join(n, out[0], out[1], fmt)


def _d2s_prepare(x, block_size, data_format="channels_last"):
    b, fmt, _ = _d2s_static("depth_to_space", tuple(x.shape), block_size, data_format, True)
    return x, b, fmt


# Kernel contract: depth_to_space(x, block_size, data_format): x of rank 4 of any dtype,
# block_size an int >= 2, data_format canonical.  channels_last splits C as (bH, bW, C')
# (TF's DCR); channels_first as (C', bH, bW) (torch's pixel_shuffle), as Keras's backends.
@defop("nn", tensors=("x",), promote=_promote.preserve, prepare=_d2s_prepare)
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move blocks of channels into space (pixel shuffle): ``(N, H, W, C*b*b) -> (N, H*b, W*b, C)``.

    channels_last reads the channels as ``(b, b, C)`` (``tf.nn.depth_to_space``);
    channels_first as ``(C, b, b)`` (``torch.nn.functional.pixel_shuffle``), as Keras's
    backends do.  Keras: ``keras.ops.depth_to_space`` (data_format None means the
    configured image_data_format).  Any dtype; the result keeps it.

    Example:
        >>> polyops.ops.depth_to_space(polyops.ops.ones((1, 2, 2, 12)), 2).shape
        (1, 4, 4, 3)
    """
    check_tensor("depth_to_space", "x", x)
    (dtype,) = _promote.preserve((key(x),))
    return spec(_d2s_static("depth_to_space", shape_of(x), block_size, data_format, True)[-1], dtype)


@depth_to_space.reference
def _d2s_ref(x, block_size, data_format):
    b = block_size
    if data_format == "channels_last":
        n, h, w, c = _shape(x)
        y = reshape(x, (n, h, w, b, b, c // (b * b)))
        y = transpose(y, (0, 1, 3, 2, 4, 5))
        return reshape(y, (n, h * b, w * b, c // (b * b)))
    n, c, h, w = _shape(x)
    y = reshape(x, (n, c // (b * b), b, b, h, w))
    y = transpose(y, (0, 1, 4, 2, 5, 3))
    return reshape(y, (n, c // (b * b), h * b, w * b))


def _s2d_prepare(x, block_size, data_format="channels_last"):
    b, fmt, _ = _d2s_static("space_to_depth", tuple(x.shape), block_size, data_format, False)
    return x, b, fmt


# Kernel contract: space_to_depth(x, block_size, data_format): the inverse of depth_to_space.
@defop("nn", tensors=("x",), promote=_promote.preserve, prepare=_s2d_prepare)
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move spatial blocks into channels: ``(N, H*b, W*b, C) -> (N, H, W, C*b*b)``.

    The inverse of `depth_to_space` (same channel orders).  Keras:
    ``keras.ops.space_to_depth``.  Any dtype; the result keeps it.

    Example:
        >>> polyops.ops.space_to_depth(polyops.ops.ones((1, 4, 4, 3)), 2).shape
        (1, 2, 2, 12)
    """
    check_tensor("space_to_depth", "x", x)
    (dtype,) = _promote.preserve((key(x),))
    return spec(_d2s_static("space_to_depth", shape_of(x), block_size, data_format, False)[-1], dtype)


@space_to_depth.reference
def _s2d_ref(x, block_size, data_format):
    b = block_size
    if data_format == "channels_last":
        n, h, w, c = _shape(x)
        y = reshape(x, (n, h // b, b, w // b, b, c))
        y = transpose(y, (0, 1, 3, 2, 4, 5))
        return reshape(y, (n, h // b, w // b, c * b * b))
    n, c, h, w = _shape(x)
    y = reshape(x, (n, c, h // b, b, w // b, b))
    y = transpose(y, (0, 1, 3, 5, 2, 4))
    return reshape(y, (n, c * b * b, h // b, w // b))


__all__ = [
    "AdaptiveAveragePool", "AdaptiveMaxPool", "AveragePool", "Conv", "ConvTranspose",
    "DepthToSpace", "DepthwiseConv", "Fold", "MaxPool", "SeparableConv", "SpaceToDepth",
    "Unfold", "adaptive_average_pool", "adaptive_max_pool", "average_pool", "conv",
    "conv_transpose", "depth_to_space", "depthwise_conv", "fold", "max_pool", "separable_conv",
    "space_to_depth", "unfold",
]

_finish(globals())
