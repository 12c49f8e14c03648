"""Color conversions, padding and cropping, patches, filters (gaussian_blur, sobel_edges) and ssim.

Part of `polyops.ops.image`; see that package's docstring for how an op is declared.

Every op here is a reference composition of `polyops.ops` calls (slices, pad, stack,
reshape and shifted weighted sums for the filters), so it runs, and traces, on every
backend.  Static arguments are validated in the rule (symbolic calls) and in
``prepare`` (eager calls) with the same helpers, so both raise the same errors.
"""

from __future__ import annotations

import itertools
import math
import operator

from ... import _dtypes, _promote, config
from ..._op import defop
from .._base import finish as _finish
from .._base import int_arg, key, shape_of, spec
from ..core import cast, convert_to_tensor
from ..numpy import (
    abs, add, clip, divide, equal, expand_dims, get_item, greater, less, maximum, mean, minimum,
    mod, moveaxis, multiply, pad, reshape, round, stack, subtract, tensordot, transpose, where,
)

_FORMATS = ("channels_last", "channels_first")
_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


# -- promotion kinds -----------------------------------------------------------------


def _kind(name, *, allow_bool=True, allow_int=True, base=_promote.preserve):
    """``base`` that rejects complex (and bool / ints where the op has no meaning for them)."""

    def check(keys):
        for k in keys:
            if k is None:
                continue
            if k in _dtypes.COMPLEX_TYPES or k == "complex":
                raise _promote.PromotionError(f"expected real images, got {k}")
            if k == "bool" and not allow_bool:
                raise _promote.PromotionError(f"expected numeric images, got {k}")
            if not allow_int and k not in _dtypes.FLOAT_TYPES and k != "float":
                raise _promote.PromotionError(f"expected floating images, got {k}")
        return base(keys)

    check.__name__ = name
    return _promote.cached(check)


_REAL = _kind("image_real")  # pad/crop/patches: any real dtype, bool included, kept
_NUMERIC = _kind("image_numeric", allow_bool=False)  # grayscale, blur: ints kept too
_FLOATS = _kind("image_floats", allow_bool=False, allow_int=False)  # hsv, sobel
_SSIM = _kind("image_ssim", allow_bool=False, base=_promote.floating)


# -- shared validation ---------------------------------------------------------------


def _fmt(op, data_format):
    if data_format is None:
        return config.image_data_format()
    if data_format not in _FORMATS:
        raise ValueError(
            f"{op}: data_format must be 'channels_last' or 'channels_first', "
            f"got data_format={data_format!r}")
    return data_format


def _rank(op, shape, ranks, name="images"):
    if len(shape) not in ranks:
        raise ValueError(
            f"{op}: expected {name} of rank {' or '.join(map(str, ranks))} "
            f"(unbatched or batched), got {name}.shape={tuple(shape)}")


def _axes(ndim, nd, data_format):
    """(channel axis, spatial axes) of a rank-``ndim`` image with ``nd`` spatial dims."""
    if data_format == "channels_last":
        return ndim - 1, tuple(range(ndim - 1 - nd, ndim - 1))
    return ndim - 1 - nd, tuple(range(ndim - nd, ndim))


def _ints(op, name, value, n, minimum=1):
    """An int or a length-``n`` sequence of ints, each >= ``minimum``, as a tuple."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{op}: expected {name} of length {n}, got {name}={value!r}")
        out = tuple(int_arg(op, name, v) for v in value)
    else:
        if isinstance(value, bool) or not isinstance(value, int):
            try:
                operator.index(value)
            except TypeError:
                raise TypeError(
                    f"{op}: expected an int or a tuple of {n} ints for {name}, "
                    f"got {name}={value!r}") from None
        out = (int_arg(op, name, value),) * n
    if any(v < minimum for v in out):
        raise ValueError(f"{op}: {name} must be >= {minimum}, got {name}={value!r}")
    return out


def _floats(op, name, value, n):
    """A positive number or a length-``n`` sequence of positive numbers, as a tuple of floats."""
    vals = value if isinstance(value, (list, tuple)) else (value,) * n
    if len(vals) != n:
        raise ValueError(f"{op}: expected {name} of length {n}, got {name}={value!r}")
    out = []
    for v in vals:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise TypeError(f"{op}: expected numbers for {name}, got {name}={value!r}") from None
        if not (float(v) > 0 and math.isfinite(float(v))):
            raise ValueError(f"{op}: {name} must be positive and finite, got {name}={value!r}")
        out.append(float(v))
    return tuple(out)


def _number(op, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError(f"{op}: expected a number for {name}, got {name}={value!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{op}: {name} must be finite, got {name}={value!r}")
    return float(value)


def _compute_dtype(dtype):
    return "float64" if dtype == "float64" else "float32"


def _plane(x, ch, ndim, i):
    """Channel ``i`` of ``x`` (its channel axis ``ch`` removed)."""
    return get_item(x, tuple(i if a == ch else slice(None) for a in range(ndim)))


# ====================================================================================
# Color conversions
# ====================================================================================


def _grayscale_shape(images, data_format):
    fmt = _fmt("rgb_to_grayscale", data_format)
    shape = list(images)
    _rank("rgb_to_grayscale", shape, (3, 4))
    ch, _ = _axes(len(shape), 2, fmt)
    if shape[ch] is not None and shape[ch] not in (1, 3):
        raise ValueError(
            f"rgb_to_grayscale: expected 3 (RGB) or 1 (grayscale) channels, "
            f"got images.shape={tuple(shape)} ({fmt})")
    shape[ch] = 1
    return tuple(shape), fmt


def _grayscale_prepare(images, data_format=None):
    return images, _grayscale_shape(tuple(images.shape), data_format)[1]


# Kernel contract: rgb_to_grayscale(images, data_format) gets a real non-bool tensor of rank
# 3 or 4 with 1 or 3 channels and data_format "channels_last"/"channels_first"; it returns
# the 0.2989 R + 0.5870 G + 0.1140 B plane (channel dim 1) in images' dtype (computed in
# float32, truncated toward zero for ints); one channel is returned unchanged.
@defop("image", tensors=("images",), promote=_NUMERIC, prepare=_grayscale_prepare)
def rgb_to_grayscale(images, data_format=None):
    """Convert RGB images to grayscale: ``0.2989 R + 0.5870 G + 0.1140 B``.

    Keras: ``keras.ops.image.rgb_to_grayscale``; TensorFlow:
    ``tf.image.rgb_to_grayscale``.  ``images`` has rank 3 (one image) or 4 (a
    batch), 3 channels (or 1: returned unchanged); the channel dim becomes 1.  The
    result keeps the input dtype: the weighted sum is computed in float32 (float64
    stays) and cast back, so ints truncate toward zero, as Keras.  Bool and complex
    images raise TypeError.

    Example:
        >>> polyops.ops.image.rgb_to_grayscale(polyops.ops.ones((2, 2, 3))).shape
        (2, 2, 1)
    """
    (dtype,) = _NUMERIC((key(images),))
    shape, _ = _grayscale_shape(shape_of(images), data_format)
    return spec(shape, dtype)


@rgb_to_grayscale.reference
def _rgb_to_grayscale_ref(images, data_format=None):
    ndim = len(images.shape)
    ch, _ = _axes(ndim, 2, data_format)
    if images.shape[ch] == 1:
        return images
    dtype = _dtypes.standardize_dtype(images.dtype)
    work = _compute_dtype(dtype)
    w = convert_to_tensor([0.2989, 0.5870, 0.1140], work)
    out = expand_dims(tensordot(cast(images, work), w, ([ch], [0])), ch)
    return cast(out, dtype)


def _hsv_shape(op, images, data_format):
    fmt = _fmt(op, data_format)
    shape = tuple(images)
    _rank(op, shape, (3, 4))
    ch, _ = _axes(len(shape), 2, fmt)
    if shape[ch] is not None and shape[ch] != 3:
        raise ValueError(f"{op}: expected 3 channels, got images.shape={shape} ({fmt})")
    return shape, fmt


def _rgb_to_hsv_prepare(images, data_format=None):
    return images, _hsv_shape("rgb_to_hsv", tuple(images.shape), data_format)[1]


# Kernel contract: rgb_to_hsv(images, data_format) gets a floating tensor of rank 3 or 4 with
# 3 channels (validated) and a canonical data_format; it returns (hue, saturation, value) in
# the channel dim, all in [0, 1] for inputs in [0, 1], in images' dtype (dm_pix's formulas:
# |x| < eps(dtype) read as 0, hue 0 where max == min, ties resolved red > green > blue).
@defop("image", tensors=("images",), promote=_FLOATS, prepare=_rgb_to_hsv_prepare)
def rgb_to_hsv(images, data_format=None):
    """Convert RGB images to HSV (hue, saturation, value), all in ``[0, 1]``.

    Keras: ``keras.ops.image.rgb_to_hsv``; TensorFlow: ``tf.image.rgb_to_hsv``;
    Python: ``colorsys.rgb_to_hsv`` per pixel.  A hue of 0 is red, 1/3 green,
    2/3 blue; grays (max == min) get hue 0.  Values of magnitude below the dtype's
    epsilon read as 0 (Keras's JAX backend, after dm_pix).  Floating images only
    (ints and bools raise TypeError, as Keras raises); float16/bfloat16 compute in
    float32 and keep their dtype.

    Example:
        >>> x = polyops.ops.convert_to_tensor([[[1.0, 0.0, 0.0]]])
        >>> polyops.ops.image.rgb_to_hsv(x)
        array([[[0., 1., 1.]]], dtype=float32)
    """
    (dtype,) = _FLOATS((key(images),))
    shape, _ = _hsv_shape("rgb_to_hsv", shape_of(images), data_format)
    return spec(shape, dtype)


@rgb_to_hsv.reference
def _rgb_to_hsv_ref(images, data_format=None):
    ndim = len(images.shape)
    ch, _ = _axes(ndim, 2, data_format)
    dtype = _dtypes.standardize_dtype(images.dtype)
    work = _compute_dtype(dtype)
    x = cast(images, work)
    x = where(less(abs(x), _EPS[dtype]), 0.0, x)
    r, g, b = (_plane(x, ch, ndim, i) for i in range(3))
    value = maximum(maximum(r, g), b)
    range_ = subtract(value, minimum(minimum(r, g), b))
    safe_value = where(greater(value, 0), value, 1.0)
    safe_range = where(greater(range_, 0), range_, 1.0)
    saturation = where(greater(value, 0), divide(range_, safe_value), 0.0)
    norm = divide(1.0, multiply(6.0, safe_range))
    hue = where(equal(value, g), add(multiply(norm, subtract(b, r)), 2.0 / 6.0),
                add(multiply(norm, subtract(r, g)), 4.0 / 6.0))
    hue = where(equal(value, r), multiply(norm, subtract(g, b)), hue)
    hue = add(where(greater(range_, 0), hue, 0.0), cast(less(hue, 0.0), work))
    return cast(stack([hue, saturation, value], ch - ndim), dtype)


def _hsv_to_rgb_prepare(images, data_format=None):
    return images, _hsv_shape("hsv_to_rgb", tuple(images.shape), data_format)[1]


# Kernel contract: hsv_to_rgb(images, data_format) gets a floating tensor of rank 3 or 4 with
# 3 channels (hue, saturation, value; validated) and a canonical data_format; it returns the
# RGB image in images' dtype, hue taken modulo 1 (dm_pix's piecewise-linear formulas).
@defop("image", tensors=("images",), promote=_FLOATS, prepare=_hsv_to_rgb_prepare, compute="float32")
def hsv_to_rgb(images, data_format=None):
    """Convert HSV images (hue, saturation, value in ``[0, 1]``) to RGB.

    Keras: ``keras.ops.image.hsv_to_rgb``; TensorFlow: ``tf.image.hsv_to_rgb``;
    Python: ``colorsys.hsv_to_rgb`` per pixel.  The hue is taken modulo 1.
    Floating images only (ints and bools raise TypeError); float16/bfloat16
    compute in float32 and keep their dtype.

    Example:
        >>> x = polyops.ops.convert_to_tensor([[[0.0, 1.0, 1.0]]])
        >>> polyops.ops.image.hsv_to_rgb(x)
        array([[[1., 0., 0.]]], dtype=float32)
    """
    (dtype,) = _FLOATS((key(images),))
    shape, _ = _hsv_shape("hsv_to_rgb", shape_of(images), data_format)
    return spec(shape, dtype)


@hsv_to_rgb.reference
def _hsv_to_rgb_ref(images, data_format=None):
    ndim = len(images.shape)
    ch, _ = _axes(ndim, 2, data_format)
    h, s, v = (_plane(images, ch, ndim, i) for i in range(3))
    dh = multiply(mod(h, 1.0), 6.0)
    dr = clip(subtract(abs(subtract(dh, 3.0)), 1.0), 0.0, 1.0)
    dg = clip(subtract(2.0, abs(subtract(dh, 2.0))), 0.0, 1.0)
    db = clip(subtract(2.0, abs(subtract(dh, 4.0))), 0.0, 1.0)
    one_minus_s = subtract(1.0, s)
    planes = [multiply(v, add(one_minus_s, multiply(s, d))) for d in (dr, dg, db)]
    return stack(planes, ch - ndim)


# ====================================================================================
# Padding and cropping
# ====================================================================================


def _opt_int(op, name, value):
    if value is None:
        return None
    v = int_arg(op, name, value)
    if v < 0:
        raise ValueError(f"{op}: {name} must be >= 0, got {name}={v}")
    return v


def _two_of_three(op, names, values):
    if list(values).count(None) != 1:
        given = ", ".join(f"{n}={v!r}" for n, v in zip(names, values))
        raise ValueError(f"{op}: specify exactly two of {', '.join(names)}; got {given}")


def _pad_side(op, size, before, after, target, names):
    """(before, after, target) with the missing one inferred; ``size`` may be None."""
    if size is None:
        if target is None:
            return before, after, None
        return before, after, target
    if before is None:
        before = target - size - after
    elif after is None:
        after = target - size - before
    else:
        target = before + size + after
    for n, v in zip(names, (before, after)):
        if v < 0:
            raise ValueError(
                f"{op}: {n} must be >= 0, got {n}={v} (image size {size}, {names[2]}={target})")
    return before, after, target


def _pad_plan(shape, top, left, bottom, right, target_height, target_width, data_format):
    op = "pad_images"
    fmt = _fmt(op, data_format)
    shape = list(shape)
    _rank(op, shape, (3, 4))
    top, left, bottom, right, th, tw = (
        _opt_int(op, n, v) for n, v in zip(
            ("top_padding", "left_padding", "bottom_padding", "right_padding", "target_height",
             "target_width"), (top, left, bottom, right, target_height, target_width)))
    _two_of_three(op, ("top_padding", "bottom_padding", "target_height"), (top, bottom, th))
    _two_of_three(op, ("left_padding", "right_padding", "target_width"), (left, right, tw))
    _, (ha, wa) = _axes(len(shape), 2, fmt)
    top, bottom, th = _pad_side(op, shape[ha], top, bottom, th,
                                ("top_padding", "bottom_padding", "target_height"))
    left, right, tw = _pad_side(op, shape[wa], left, right, tw,
                                ("left_padding", "right_padding", "target_width"))
    shape[ha], shape[wa] = th, tw
    return tuple(shape), (top, left, bottom, right, th, tw, fmt)


def _pad_images_prepare(images, top_padding=None, left_padding=None, bottom_padding=None,
                        right_padding=None, target_height=None, target_width=None,
                        data_format=None):
    _, plan = _pad_plan(tuple(images.shape), top_padding, left_padding, bottom_padding,
                        right_padding, target_height, target_width, data_format)
    return (images, *plan)


# Kernel contract: pad_images(images, top, left, bottom, right, target_height, target_width,
# data_format) gets a tensor of rank 3 or 4 and six non-negative ints, all resolved
# (top + height + bottom == target_height, likewise for the width), and a canonical
# data_format; it returns images with that many zero rows/columns added, in images' dtype.
@defop("image", tensors=("images",), promote=_REAL, prepare=_pad_images_prepare, empty=0)
def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """Pad images with zeros to a given height and width.

    Keras: ``keras.ops.image.pad_images``; TensorFlow: ``tf.image.pad_to_bounding_box``.
    Give exactly two of ``top_padding``, ``bottom_padding``, ``target_height`` (the
    third is inferred) and likewise two of ``left_padding``, ``right_padding``,
    ``target_width``.  Negative or inconsistent sizes raise ValueError.  Any real
    dtype, kept.

    Example:
        >>> x = polyops.ops.ones((15, 25, 3))
        >>> polyops.ops.image.pad_images(x, 2, 3, target_height=20, target_width=30).shape
        (20, 30, 3)
    """
    (dtype,) = _REAL((key(images),))
    shape, _ = _pad_plan(shape_of(images), top_padding, left_padding, bottom_padding,
                         right_padding, target_height, target_width, data_format)
    return spec(shape, dtype)


@pad_images.reference
def _pad_images_ref(images, top_padding, left_padding, bottom_padding, right_padding,
                    target_height, target_width, data_format):
    ndim = len(images.shape)
    _, (ha, wa) = _axes(ndim, 2, data_format)
    widths = [(0, 0)] * ndim
    widths[ha] = (top_padding, bottom_padding)
    widths[wa] = (left_padding, right_padding)
    return pad(images, tuple(widths))


def _crop_side(op, size, before, after, target, names):
    if size is None:
        return before, target
    if before is None:
        before = size - target - after
    elif target is None:
        target = size - before - after
    after = size - before - target
    for n, v in zip(names, (before, after, target)):
        if v < 0:
            raise ValueError(
                f"{op}: {n} must be >= 0, got {n}={v} (image size {size}); "
                f"the crop does not fit in the image")
    return before, target


def _crop_plan(shape, top, left, bottom, right, target_height, target_width, data_format):
    op = "crop_images"
    fmt = _fmt(op, data_format)
    shape = list(shape)
    _rank(op, shape, (3, 4))
    top, left, bottom, right, th, tw = (
        _opt_int(op, n, v) for n, v in zip(
            ("top_cropping", "left_cropping", "bottom_cropping", "right_cropping", "target_height",
             "target_width"), (top, left, bottom, right, target_height, target_width)))
    _two_of_three(op, ("top_cropping", "bottom_cropping", "target_height"), (top, bottom, th))
    _two_of_three(op, ("left_cropping", "right_cropping", "target_width"), (left, right, tw))
    _, (ha, wa) = _axes(len(shape), 2, fmt)
    top, th = _crop_side(op, shape[ha], top, bottom, th,
                         ("top_cropping", "bottom_cropping", "target_height"))
    left, tw = _crop_side(op, shape[wa], left, right, tw,
                          ("left_cropping", "right_cropping", "target_width"))
    shape[ha], shape[wa] = th, tw
    return tuple(shape), (top, left, th, tw, fmt)


def _crop_images_prepare(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                         right_cropping=None, target_height=None, target_width=None,
                         data_format=None):
    _, (top, left, th, tw, fmt) = _crop_plan(
        tuple(images.shape), top_cropping, left_cropping, bottom_cropping, right_cropping,
        target_height, target_width, data_format)
    return images, top, left, None, None, th, tw, fmt


# Kernel contract: crop_images(images, top, left, None, None, target_height, target_width,
# data_format) gets a tensor of rank 3 or 4, the crop's resolved top-left corner and size
# (non-negative ints that fit in the image; the bottom/right arguments arrive as None) and a
# canonical data_format; it returns images[..., top:top + th, left:left + tw, ...].
@defop("image", tensors=("images",), promote=_REAL, prepare=_crop_images_prepare)
def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    """Crop images to a given height and width.

    Keras: ``keras.ops.image.crop_images``; TensorFlow: ``tf.image.crop_to_bounding_box``.
    Give exactly two of ``top_cropping``, ``bottom_cropping``, ``target_height``
    and two of ``left_cropping``, ``right_cropping``, ``target_width``.  A crop
    that does not fit in the image raises ValueError.  With an unknown height (or
    width) and no target, the result's dim is unknown.  Any real dtype, kept.

    Example:
        >>> x = polyops.ops.ones((3, 3, 3))
        >>> polyops.ops.image.crop_images(x, 0, 0, 2, 2).shape
        (1, 1, 3)
    """
    (dtype,) = _REAL((key(images),))
    shape, _ = _crop_plan(shape_of(images), top_cropping, left_cropping, bottom_cropping,
                          right_cropping, target_height, target_width, data_format)
    return spec(shape, dtype)


@crop_images.reference
def _crop_images_ref(images, top_cropping, left_cropping, bottom_cropping, right_cropping,
                     target_height, target_width, data_format):
    ndim = len(images.shape)
    _, (ha, wa) = _axes(ndim, 2, data_format)
    k = [slice(None)] * ndim
    k[ha] = slice(top_cropping, top_cropping + target_height)
    k[wa] = slice(left_cropping, left_cropping + target_width)
    return get_item(images, tuple(k))


# ====================================================================================
# Patches
# ====================================================================================


def _patch_args(op, size, strides, dilation_rate, padding, nd=None):
    """(nd, size, strides, dilation, padding) canonical; ``nd`` None: from ``size``."""
    if isinstance(size, (list, tuple)):
        if nd is None:
            if len(size) not in (2, 3):
                raise ValueError(f"{op}: expected size of length 2 or 3, got size={size!r}")
            nd = len(size)
    elif nd is None:
        nd = 2
    size = _ints(op, "size", size, nd)
    strides = size if strides is None else _ints(op, "strides", strides, nd)
    dilation = _ints(op, "dilation_rate", dilation_rate, nd)
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"{op}: padding must be 'valid' or 'same', got padding={padding!r}")
    return nd, size, strides, dilation, padding.lower()


def _patch_out(op, n, k, s, d, padding):
    if n is None:
        return None
    if padding == "same":
        return -(-n // s)
    eff = (k - 1) * d + 1
    if n < eff:
        raise ValueError(
            f"{op}: the patch (size {k}, dilation {d}: {eff} pixels) is larger than the "
            f"image dim {n} with padding='valid'")
    return (n - eff) // s + 1


def _patches_plan(op, shape, size, strides, dilation_rate, padding, data_format, nd=None):
    fmt = _fmt(op, data_format)
    nd, size, strides, dilation, padding = _patch_args(op, size, strides, dilation_rate,
                                                       padding, nd)
    shape = list(shape)
    _rank(op, shape, (nd + 1, nd + 2))
    ch, sp = _axes(len(shape), nd, fmt)
    for a, k, s, d in zip(sp, size, strides, dilation):
        shape[a] = _patch_out(op, shape[a], k, s, d, padding)
    shape[ch] = None if shape[ch] is None else shape[ch] * math.prod(size)
    return tuple(shape), (size, strides, dilation, padding, fmt)


def _patches_ref(x, size, strides, dilation, padding, data_format):
    nd = len(size)
    ndim = len(x.shape)
    if data_format == "channels_first":
        x = moveaxis(x, ndim - 1 - nd, -1)
    if ndim == nd + 1:
        x = expand_dims(x, 0)
    shape = tuple(x.shape)
    outs = []
    widths = [(0, 0)] * (nd + 2)
    for i, (n, k, s, d) in enumerate(zip(shape[1:-1], size, strides, dilation)):
        eff = (k - 1) * d + 1
        if padding == "same":
            o = -(-n // s)
            total = max((o - 1) * s + eff - n, 0)
            widths[i + 1] = (total // 2, total - total // 2)
        else:
            o = (n - eff) // s + 1
        outs.append(o)
    if any(w != (0, 0) for w in widths):
        x = pad(x, tuple(widths))
    pieces = []
    for offs in itertools.product(*(range(k) for k in size)):
        key_ = [slice(None)]
        for off, o, s, d in zip(offs, outs, strides, dilation):
            start = off * d
            key_.append(slice(start, start + (o - 1) * s + 1, s))
        pieces.append(get_item(x, tuple(key_) + (slice(None),)))
    out = stack(pieces, -2)  # (N, *outs, K, C): features ordered (patch position, channel)
    n = shape[0] if shape[0] is not None else -1
    out = reshape(out, (n, *outs, len(pieces) * shape[-1]))
    if ndim == nd + 1:
        out = get_item(out, 0)
    if data_format == "channels_first":
        out = moveaxis(out, -1, ndim - 1 - nd)
    return out


def _extract_patches_prepare(images, size, strides=None, dilation_rate=1, padding="valid",
                             data_format=None):
    _, plan = _patches_plan("extract_patches", tuple(images.shape), size, strides,
                            dilation_rate, padding, data_format)
    return (images, *plan)


# Kernel contract: extract_patches(images, size, strides, dilation_rate, padding, data_format)
# gets a tensor of rank len(size) + 1 or + 2, size/strides/dilation_rate as tuples of
# len(size) (2 or 3) positive ints, padding "valid" or "same" and a canonical data_format;
# it returns the patches as conv with an identity kernel would: one feature dim of
# prod(size) * channels (ordered patch position-major, channel-minor) in the channel axis.
@defop("image", tensors=("images",), promote=_REAL, prepare=_extract_patches_prepare)
def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Extract patches from images (``size`` of length 2 or an int) or volumes (length 3).

    Keras: ``keras.ops.image.extract_patches``; TensorFlow:
    ``tf.image.extract_patches``.  ``strides`` defaults to ``size``
    (non-overlapping patches); ``dilation_rate`` spaces the patch's samples
    (allowed with strides > 1, unlike Keras's TensorFlow backend); ``padding``
    "valid" or "same" (zeros, split as conv's "same").  The output has the
    spatial dims of the patch grid and one feature dim of
    ``prod(size) * channels`` (patch position-major, channel-minor) where the
    channels were.  Any real dtype, kept.

    Example:
        >>> x = polyops.ops.ones((2, 20, 20, 3))
        >>> polyops.ops.image.extract_patches(x, (5, 5)).shape
        (2, 4, 4, 75)
    """
    (dtype,) = _REAL((key(images),))
    shape, _ = _patches_plan("extract_patches", shape_of(images), size, strides, dilation_rate,
                             padding, data_format)
    return spec(shape, dtype)


@extract_patches.reference
def _extract_patches_ref(images, size, strides, dilation_rate, padding, data_format):
    return _patches_ref(images, size, strides, dilation_rate, padding, data_format)


def _extract_patches_3d_prepare(volumes, size, strides=None, dilation_rate=1, padding="valid",
                                data_format=None):
    _, plan = _patches_plan("extract_patches_3d", tuple(volumes.shape), size, strides,
                            dilation_rate, padding, data_format, nd=3)
    return (volumes, *plan)


# Kernel contract: extract_patches_3d(volumes, size, strides, dilation_rate, padding,
# data_format) gets a tensor of rank 4 or 5 and the arguments of extract_patches as 3-tuples
# (validated); it returns extract_patches's result for 3-D patches.
@defop("image", tensors=("volumes",), promote=_REAL, prepare=_extract_patches_3d_prepare)
def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """Extract 3-D patches from volumes of rank 4 ``(D, H, W, C)`` or 5 (a batch).

    Keras: ``keras.ops.image.extract_patches_3d``; TensorFlow:
    ``tf.extract_volume_patches``.  ``size`` (an int or 3 ints), ``strides``
    (default ``size``), ``dilation_rate`` and ``padding`` as in `extract_patches`;
    the feature dim holds ``prod(size) * channels`` values.  Any real dtype, kept.

    Example:
        >>> x = polyops.ops.ones((10, 10, 10, 3))
        >>> polyops.ops.image.extract_patches_3d(x, 3).shape
        (3, 3, 3, 81)
    """
    (dtype,) = _REAL((key(volumes),))
    shape, _ = _patches_plan("extract_patches_3d", shape_of(volumes), size, strides,
                             dilation_rate, padding, data_format, nd=3)
    return spec(shape, dtype)


@extract_patches_3d.reference
def _extract_patches_3d_ref(volumes, size, strides, dilation_rate, padding, data_format):
    return _patches_ref(volumes, size, strides, dilation_rate, padding, data_format)


def _reconstruct_plan(shape, size, data_format):
    op = "reconstruct_patches"
    fmt = _fmt(op, data_format)
    nd = len(size) if isinstance(size, (list, tuple)) else 2
    if nd not in (2, 3):
        raise ValueError(f"{op}: expected size of length 2 or 3, got size={size!r}")
    size = _ints(op, "size", size, nd)
    shape = list(shape)
    _rank(op, shape, (nd + 1, nd + 2), "patches")
    ch, sp = _axes(len(shape), nd, fmt)
    k = math.prod(size)
    if shape[ch] is not None:
        if shape[ch] % k:
            raise ValueError(
                f"{op}: the feature dim {shape[ch]} of patches.shape={tuple(shape)} is not a "
                f"multiple of prod(size)={k} (size={size})")
        shape[ch] //= k
    for a, p in zip(sp, size):
        shape[a] = None if shape[a] is None else shape[a] * p
    return tuple(shape), (size, fmt)


def _reconstruct_patches_prepare(patches, size, data_format=None):
    _, plan = _reconstruct_plan(tuple(patches.shape), size, data_format)
    return (patches, *plan)


# Kernel contract: reconstruct_patches(patches, size, data_format) gets a tensor of rank
# len(size) + 1 or + 2 whose feature dim is a multiple of prod(size), size a tuple of 2 or 3
# positive ints and a canonical data_format; it returns the image that
# extract_patches(image, size) (non-overlapping, "valid") maps to ``patches``.
@defop("image", tensors=("patches",), promote=_REAL, prepare=_reconstruct_patches_prepare)
def reconstruct_patches(patches, size, data_format=None):
    """Reassemble non-overlapping patches into images: the inverse of `extract_patches`.

    Not in Keras 3.15 (polyops's own op).  ``patches`` is what
    ``extract_patches(images, size)`` returns with its defaults (``strides=size``,
    "valid" padding): a grid of ``(g1, g2)`` patches with ``prod(size) * C``
    features; the result has spatial dims ``(g1 * size[0], g2 * size[1])`` and
    ``C`` channels.  Rows/columns that "valid" extraction dropped (image sizes not
    divisible by ``size``) cannot come back.  A ``size`` of length 3 reassembles
    volumes.  Any real dtype, kept.

    Example:
        >>> x = polyops.ops.ones((2, 4, 6, 3))
        >>> p = polyops.ops.image.extract_patches(x, 2)
        >>> polyops.ops.image.reconstruct_patches(p, 2).shape
        (2, 4, 6, 3)
    """
    (dtype,) = _REAL((key(patches),))
    shape, _ = _reconstruct_plan(shape_of(patches), size, data_format)
    return spec(shape, dtype)


@reconstruct_patches.reference
def _reconstruct_patches_ref(patches, size, data_format):
    nd = len(size)
    ndim = len(patches.shape)
    x = patches
    if data_format == "channels_first":
        x = moveaxis(x, ndim - 1 - nd, -1)
    if ndim == nd + 1:
        x = expand_dims(x, 0)
    shape = tuple(x.shape)
    n = shape[0] if shape[0] is not None else -1
    grid = shape[1:-1]
    c = shape[-1] // math.prod(size)
    x = reshape(x, (n, *grid, *size, c))
    perm = [0] + [a for i in range(nd) for a in (1 + i, 1 + nd + i)] + [1 + 2 * nd]
    x = transpose(x, tuple(perm))
    x = reshape(x, (n, *(g * p for g, p in zip(grid, size)), c))
    if ndim == nd + 1:
        x = get_item(x, 0)
    if data_format == "channels_first":
        x = moveaxis(x, -1, ndim - 1 - nd)
    return x


# ====================================================================================
# Filters
# ====================================================================================


def _gauss1d(size, sigma):
    """Normalized Gaussian weights (Python floats) of ``size`` taps, centred."""
    w = [math.exp(-0.5 * ((i - (size - 1) / 2) / sigma) ** 2) for i in range(size)]
    total = sum(w)
    return [v / total for v in w]


def _correlate_axis(x, axis, weights):
    """Valid correlation of ``x`` with ``weights`` along ``axis`` (shifted weighted sums)."""
    n = x.shape[axis]
    k = len(weights)
    out = None
    for i, w in enumerate(weights):
        key_ = [slice(None)] * len(x.shape)
        key_[axis] = slice(i, n - k + 1 + i)
        term = multiply(get_item(x, tuple(key_)), w)
        out = term if out is None else add(out, term)
    return out


def _blur_plan(shape, kernel_size, sigma, data_format):
    op = "gaussian_blur"
    fmt = _fmt(op, data_format)
    _rank(op, shape, (3, 4))
    return fmt, _ints(op, "kernel_size", kernel_size, 2), _floats(op, "sigma", sigma, 2)


def _gaussian_blur_prepare(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    fmt, ks, sg = _blur_plan(tuple(images.shape), kernel_size, sigma, data_format)
    return images, ks, sg, fmt


# Kernel contract: gaussian_blur(images, kernel_size, sigma, data_format) gets a real non-bool
# tensor of rank 3 or 4, kernel_size a 2-tuple of positive ints and sigma a 2-tuple of
# positive floats (Keras's order: [0] along the width, [1] along the height) and a canonical
# data_format; it returns the zero-padded "same" correlation with the normalized Gaussian
# kernel, in images' dtype (ints rounded to nearest).
@defop("image", tensors=("images",), promote=_NUMERIC, prepare=_gaussian_blur_prepare)
def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """Blur images with a normalized Gaussian kernel (zero padding, output of the same size).

    Keras: ``keras.ops.image.gaussian_blur``; SciPy:
    ``scipy.ndimage.correlate(..., mode="constant")`` with the Gaussian kernel.
    ``kernel_size`` and ``sigma`` are an int/number or two of them.  As Keras's
    backends compute it, ``kernel_size[0]`` and ``sigma[0]`` act along the *width*
    and ``kernel_size[1]``, ``sigma[1]`` along the height; an even kernel puts its
    extra tap after the centre (conv "same").  Values compute in float32
    (float64 stays) and keep the input dtype; integer images are rounded to the
    nearest integer (Keras's NumPy backend truncates; its JAX backend fails).

    Example:
        >>> polyops.ops.image.gaussian_blur(polyops.ops.ones((2, 8, 8, 3))).shape
        (2, 8, 8, 3)
    """
    (dtype,) = _NUMERIC((key(images),))
    _blur_plan(shape_of(images), kernel_size, sigma, data_format)
    return spec(shape_of(images), dtype)


@gaussian_blur.reference
def _gaussian_blur_ref(images, kernel_size, sigma, data_format):
    ndim = len(images.shape)
    _, (ha, wa) = _axes(ndim, 2, data_format)
    dtype = _dtypes.standardize_dtype(images.dtype)
    x = cast(images, _compute_dtype(dtype))
    widths = [(0, 0)] * ndim
    for a, k in ((ha, kernel_size[1]), (wa, kernel_size[0])):
        widths[a] = ((k - 1) // 2, k - 1 - (k - 1) // 2)
    x = pad(x, tuple(widths))
    x = _correlate_axis(x, ha, _gauss1d(kernel_size[1], sigma[1]))
    x = _correlate_axis(x, wa, _gauss1d(kernel_size[0], sigma[0]))
    if dtype not in _dtypes.FLOAT_TYPES:
        x = round(x)
    return cast(x, dtype)


def _sobel_plan(shape, data_format):
    fmt = _fmt("sobel_edges", data_format)
    _rank("sobel_edges", shape, (4,))
    return fmt


def _sobel_edges_prepare(images, data_format=None):
    return images, _sobel_plan(tuple(images.shape), data_format)


# Kernel contract: sobel_edges(images, data_format) gets a floating tensor of rank 4 and a
# canonical data_format; it returns shape + (2,): [dy, dx], the 3x3 Sobel correlations
# ([[-1, -2, -1], [0, 0, 0], [1, 2, 1]] and its transpose) with zero padding, images' dtype.
@defop("image", tensors=("images",), promote=_FLOATS, prepare=_sobel_edges_prepare, compute="float32")
def sobel_edges(images, data_format=None):
    """Sobel gradients of a batch of images: ``(..., 2)`` holding ``[dy, dx]``.

    Keras: ``keras.ops.image.sobel_edges``; TensorFlow: ``tf.image.sobel_edges``;
    SciPy: ``scipy.ndimage.sobel``.  ``images`` is 4-D; the result has its shape
    plus a last dim of 2: the vertical (dy, downwards positive) and horizontal
    (dx, rightwards positive) gradients.  Borders are zero-padded, as Keras's JAX
    and torch backends (its TensorFlow backend reflects, its NumPy backend uses
    SciPy's "reflect"; they differ on the border pixels only).  Floating images only
    (TypeError otherwise); float16/bfloat16 compute in float32.

    Example:
        >>> polyops.ops.image.sobel_edges(polyops.ops.ones((1, 8, 8, 1))).shape
        (1, 8, 8, 1, 2)
    """
    (dtype,) = _FLOATS((key(images),))
    _sobel_plan(shape_of(images), data_format)
    return spec(shape_of(images) + (2,), dtype)


@sobel_edges.reference
def _sobel_edges_ref(images, data_format):
    _, (ha, wa) = _axes(4, 2, data_format)
    widths = [(0, 0)] * 4
    widths[ha] = widths[wa] = (1, 1)
    x = pad(images, tuple(widths))
    dy = _correlate_axis(_correlate_axis(x, ha, (-1.0, 0.0, 1.0)), wa, (1.0, 2.0, 1.0))
    dx = _correlate_axis(_correlate_axis(x, ha, (1.0, 2.0, 1.0)), wa, (-1.0, 0.0, 1.0))
    return stack([dy, dx], -1)


# ====================================================================================
# SSIM
# ====================================================================================


def _ssim_plan(s1, s2, max_val, filter_size, filter_sigma, k1, k2, data_format):
    op = "ssim"
    fmt = _fmt(op, data_format)
    _rank(op, s1, (3, 4), "image1")
    _rank(op, s2, (3, 4), "image2")
    if len(s1) != len(s2) or any(a is not None and b is not None and a != b
                                 for a, b in zip(s1, s2)):
        raise ValueError(
            f"{op}: image1 and image2 must have the same shape, got image1.shape={tuple(s1)} "
            f"and image2.shape={tuple(s2)}")
    fs = int_arg(op, "filter_size", filter_size)
    if fs < 1:
        raise ValueError(f"{op}: filter_size must be >= 1, got filter_size={fs}")
    (sigma,) = _floats(op, "filter_sigma", filter_sigma, 1)
    vals = tuple(_number(op, n, v) for n, v in (("max_val", max_val), ("k1", k1), ("k2", k2)))
    _, sp = _axes(len(s1), 2, fmt)
    for a in sp:
        for s in (s1, s2):
            if s[a] is not None and s[a] < fs:
                raise ValueError(
                    f"{op}: images smaller than the filter: image1.shape={tuple(s1)} has a "
                    f"spatial dim below filter_size={fs}")
    out = () if len(s1) == 3 else ((s1[0] if s1[0] is not None else s2[0]),)
    return out, (vals[0], fs, sigma, vals[1], vals[2], fmt)


def _ssim_prepare(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01,
                  k2=0.03, data_format=None):
    _, plan = _ssim_plan(tuple(image1.shape), tuple(image2.shape), max_val, filter_size,
                         filter_sigma, k1, k2, data_format)
    return (image1, image2, *plan)


# Kernel contract: ssim(image1, image2, max_val, filter_size, filter_sigma, k1, k2,
# data_format) gets two floating tensors of one dtype (ints arrive as floatx) and one shape,
# rank 3 or 4, spatial dims >= filter_size, max_val/k1/k2 floats, filter_size a positive
# int, filter_sigma a positive float and a canonical data_format; it returns the mean SSIM
# map (valid Gaussian windows) averaged over channels: shape () or (batch,), that dtype.
@defop("image", tensors=("image1", "image2"), promote=_SSIM, prepare=_ssim_prepare, empty=math.nan)
def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """Structural similarity index of two images (or batches), averaged over pixels and channels.

    Keras: ``keras.ops.image.ssim``; TensorFlow: ``tf.image.ssim`` (which also
    uses a ``filter_size`` x ``filter_size`` Gaussian window with "valid"
    positions).  Local means, variances and covariance come from the
    normalized Gaussian window; ``c1 = (k1 max_val)**2``, ``c2 = (k2 max_val)**2``;
    the SSIM map ``(2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1^2 + s2^2 + c2))``
    is averaged over positions, then channels: a scalar for 3-D images, one value
    per image for 4-D.  Images need spatial dims >= ``filter_size``.  Float inputs
    keep their (common) dtype, computed in float32; ints compute and return in
    floatx (Keras casts the result back to the int dtype).

    Example:
        >>> x = polyops.ops.ones((16, 16, 3))
        >>> polyops.ops.image.ssim(x, x)
        array(1., dtype=float32)
    """
    dtype, _ = _SSIM((key(image1), key(image2)))
    shape, _ = _ssim_plan(shape_of(image1), shape_of(image2), max_val, filter_size,
                          filter_sigma, k1, k2, data_format)
    return spec(shape, dtype)


@ssim.reference
def _ssim_ref(image1, image2, max_val, filter_size, filter_sigma, k1, k2, data_format):
    ndim = len(image1.shape)
    _, (ha, wa) = _axes(ndim, 2, data_format)
    dtype = _dtypes.standardize_dtype(image1.dtype)
    work = _compute_dtype(dtype)
    a = cast(image1, work)
    b = cast(image2, work)
    w = _gauss1d(filter_size, filter_sigma)

    def blur(x):
        return _correlate_axis(_correlate_axis(x, ha, w), wa, w)

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mu1, mu2 = blur(a), blur(b)
    mu1_sq, mu2_sq, mu12 = multiply(mu1, mu1), multiply(mu2, mu2), multiply(mu1, mu2)
    s1 = subtract(blur(multiply(a, a)), mu1_sq)
    s2 = subtract(blur(multiply(b, b)), mu2_sq)
    s12 = subtract(blur(multiply(a, b)), mu12)
    num = multiply(add(multiply(2.0, mu12), c1), add(multiply(2.0, s12), c2))
    den = multiply(add(add(mu1_sq, mu2_sq), c1), add(add(s1, s2), c2))
    axes = tuple(range(ndim - 3, ndim))
    return cast(mean(divide(num, den), axes), dtype)


__all__ = [
    "CropImages", "ExtractPatches", "ExtractPatches3d", "GaussianBlur", "HsvToRgb",
    "PadImages", "ReconstructPatches", "RgbToGrayscale", "RgbToHsv", "SobelEdges", "Ssim",
    "crop_images", "extract_patches", "extract_patches_3d", "gaussian_blur", "hsv_to_rgb",
    "pad_images", "reconstruct_patches", "rgb_to_grayscale", "rgb_to_hsv", "sobel_edges",
    "ssim",
]

_finish(globals())
