"""Ops that resample images: resize, scale_and_translate, affine_transform, perspective_transform, map_coordinates, elastic_transform.

Part of `polyops.ops.image`; see that package's docstring for how an op is declared.

The semantics are those of Keras's JAX backend: ``jax.image.resize`` /
``jax.image.scale_and_translate`` (half-pixel centres, triangle, Keys cubic
(a=-0.5) and Lanczos kernels, antialiasing by widening the kernel when
downsampling) and ``jax.scipy.ndimage.map_coordinates`` (order 0 or 1; in
"constant" mode an interpolation node outside the input contributes
``fill_value`` with its weight, like SciPy's "grid-constant"; "wrap" is index
modulo size, like SciPy's "grid-wrap").

References: separable resampling is a matmul with a weight matrix (computed with
NumPy from the static sizes for `resize`, with polyops ops from the ``scale``
and ``translation`` tensors for `scale_and_translate`); the warping ops gather
from the flattened image at computed, clipped indices and mask the nodes that
fall outside for ``fill_mode="constant"``.  Everything computes in float32 (in float64
where an operand is 64-bit, which only 64-bit mode lets through) and casts back to the
input dtype (integers: rounded and saturated).
"""

from __future__ import annotations

import itertools
import math
import operator

import numpy as np

from ... import _dtypes, _promote, config
from ..._op import defop
from .._base import finish as _finish
from .._base import key, shape_of, spec
from ..core import cast, convert_to_tensor
from ..core import shape as _shape
from ..numpy import (
    abs as _abs, add, clip, concatenate, divide, equal, expand_dims, floor, full, get_item,
    greater, greater_equal, isfinite, less, less_equal, logical_and, matmul, maximum, mod,
    moveaxis, multiply, not_equal, reshape, round as _round, sign, sin, squeeze, subtract,
    sum as _sum, take, transpose, trunc, where, zeros,
)

_F32 = "float32"
_EPS32 = float(np.finfo(np.float32).eps)  # (jax.image's weight threshold, in every dtype)
_WIDE = frozenset({"float64", "int64", "uint64"})


def _work(*tensors) -> str:
    """The dtype a reference computes in: float64 where an operand is 64-bit (only 64-bit
    mode lets one through: the default demotes them before the kernel), else float32."""
    wide = any(_dtypes.standardize_dtype(t.dtype) in _WIDE for t in tensors)
    return "float64" if wide else _F32


def _dtype(x) -> str:
    return _dtypes.standardize_dtype(x.dtype)


@_promote.cached
def _real(keys):
    """Each operand keeps its dtype; bool and complex operands are rejected."""
    for k in keys:
        if k is not None and (k in ("bool", "complex") or k in _dtypes.COMPLEX_TYPES):
            raise _promote.PromotionError(f"expected real numeric dtypes (not bool or complex), got {k}")
    return _promote.preserve(keys)


def _dt(op, x, name="images"):
    """The (checked) dtype of a rule operand."""
    if not hasattr(x, "shape") or not hasattr(x, "dtype"):
        raise TypeError(f"{op}: expected a tensor for {name!r}, got {type(x).__name__}")
    (d,) = _real((key(x),))
    return d


def _data_format(op, data_format):
    df = config.image_data_format() if data_format is None else data_format
    if df not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: data_format must be 'channels_last' or 'channels_first', "
                         f"got data_format={data_format!r}")
    return df


def _check_images(op, shape, name="images"):
    if len(shape) not in (3, 4):
        raise ValueError(f"{op}: expected rank 3 (single image) or rank 4 (batch of images) "
                         f"{name}, got {name}.shape={tuple(shape)}")


def _choice(op, name, value, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{op}: {name} must be one of {sorted(allowed)}, got {name}={value!r}")
    return value


def _number(op, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{op}: expected a number for {name}, got {name}={value!r}")
    return float(value)


def _to_last(x, df, ndim):
    """Image(s) to channels_last."""
    if df == "channels_last":
        return x
    return transpose(x, (1, 2, 0) if ndim == 3 else (0, 2, 3, 1))


def _from_last(x, df, ndim):
    if df == "channels_last":
        return x
    return transpose(x, (2, 0, 1) if ndim == 3 else (0, 3, 1, 2))


def _round_half_away(x):
    r = _round(x)
    t = trunc(x)
    return where(equal(_abs(subtract(x, t)), 0.5), add(t, sign(x)), r)


def _cast_back(y, dtype, half_away=True):
    """A float32 (or float64) result to ``dtype``: ints rounded (half away from zero or half
    to even) and saturated to the dtype's range."""
    if dtype == _dtype(y):
        return y
    if dtype in _dtypes.INT_TYPES:
        info = np.iinfo(dtype)
        y = _round_half_away(y) if half_away else _round(y)
        y = clip(y, float(info.min), float(info.max))
    return cast(y, dtype)


# ---------------------------------------------------------------------------------
# Interpolation at coordinates (jax.scipy.ndimage.map_coordinates, order 0 or 1)
# ---------------------------------------------------------------------------------

_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
_INTERP = {"nearest": 0, "bilinear": 1}


def _mirror(i, size):
    if size == 1:
        return zeros(_shape(i), _dtype(i))
    s = float(size - 1)
    return _abs(subtract(mod(add(i, s), 2 * s), s))


def _fix_index(i, size, mode):
    """Integer-valued float index -> index inside [0, size)."""
    if mode == "wrap":
        i = mod(i, float(size))
    elif mode == "mirror":
        i = _mirror(i, size)
    elif mode == "reflect":
        i = floor(divide(subtract(_mirror(add(multiply(i, 2.0), 1.0), 2 * size + 1), 1.0), 2.0))
    return clip(i, 0.0, float(size - 1))


def _interp(table, sizes, coords, order, mode, cval, base=None):
    """Sample ``table`` (``prod(sizes)`` rows, flattened C-order over ``sizes``, times any
    number of batches stacked: row offset ``base``) at ``coords`` (one per dim of
    ``sizes``, all of one shape S, of the table's float dtype).  Returns S + table.shape[1:].

    A non-finite coordinate counts as outside the input, in every mode (fill_value).
    """
    extra = len(_shape(table)) - 1
    strides = [int(np.prod(sizes[d + 1:])) for d in range(len(sizes))]
    per_dim = []
    finite = None
    for c, size in zip(coords, sizes):
        ok = isfinite(c)
        finite = ok if finite is None else logical_and(finite, ok)
        c = where(ok, c, 0.0)
        if order == 0:
            nodes = [(_round_half_away(c), None)]
        else:
            lower = floor(c)
            upper_w = subtract(c, lower)
            nodes = [(lower, subtract(1.0, upper_w)), (add(lower, 1.0), upper_w)]
        fixed = []
        for idx, w in nodes:
            valid = (logical_and(greater_equal(idx, 0.0), less(idx, float(size)))
                     if mode == "constant" else None)
            fixed.append((_fix_index(idx, size, mode), valid, w))
        per_dim.append(fixed)
    out = None


    for combo in itertools.product(*per_dim):
        flat = None
        valid = None if mode != "constant" else finite
        w = None
        for (idx, v, wd), stride in zip(combo, strides):
            term = multiply(idx, float(stride)) if stride != 1 else idx
            flat = term if flat is None else add(flat, term)
            if v is not None:
                valid = logical_and(valid, v)
            if wd is not None:
                w = wd if w is None else multiply(w, wd)
        if base is not None:
            flat = add(flat, base)
        vals = take(table, cast(flat, "int32"), axis=0)
        if valid is not None:
            vals = where(_expand(valid, extra), vals, cval)
        if w is not None:
            vals = multiply(_expand(w, extra), vals)
        out = vals if out is None else add(out, vals)
    if mode != "constant":
        out = where(_expand(finite, extra), out, cval)
    return out


def _expand(x, n):
    for _ in range(n):
        x = expand_dims(x, -1)
    return x


# ---------------------------------------------------------------------------------
# Separable resampling kernels (jax.image)
# ---------------------------------------------------------------------------------

_METHODS = {"linear": "triangle", "bilinear": "triangle", "trilinear": "triangle",
            "triangle": "triangle", "cubic": "cubic", "bicubic": "cubic", "tricubic": "cubic",
            "lanczos3": "lanczos3", "lanczos5": "lanczos5"}


def _np_kernel(kind, x):
    if kind == "triangle":
        return np.maximum(0.0, 1.0 - np.abs(x))
    if kind == "cubic":
        out = ((1.5 * x - 2.5) * x) * x + 1.0
        out = np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
        return np.where(x >= 2.0, 0.0, out)
    radius = 3.0 if kind == "lanczos3" else 5.0
    y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 1e-3, y / np.where(x != 0, np.pi ** 2 * x ** 2, 1.0), 1.0)
    return np.where(x > radius, 0.0, out)


def _np_weights(m, n, scale, translation, kind, antialias):
    """(m, n) weights of jax.image's compute_weight_mat, in float64 (static sizes)."""
    inv = 1.0 / scale
    ks = max(inv, 1.0) if antialias else 1.0
    sample = (np.arange(n) + 0.5) * inv - translation * inv - 0.5
    w = _np_kernel(kind, np.abs(sample[None, :] - np.arange(m)[:, None]) / ks)
    tot = w.sum(axis=0, keepdims=True)
    w = np.where(np.abs(tot) > 1000.0 * _EPS32, w / np.where(tot != 0, tot, 1.0), 0.0)
    inside = (sample >= -0.5) & (sample <= m - 0.5)
    return np.where(inside[None, :], w, 0.0)


def _kernel(kind, x):
    """The resampling kernel on a float tensor of non-negative distances."""
    if kind == "triangle":
        return maximum(0.0, subtract(1.0, _abs(x)))
    if kind == "cubic":
        inner = add(multiply(multiply(subtract(multiply(x, 1.5), 2.5), x), x), 1.0)
        outer = add(multiply(subtract(multiply(add(multiply(x, -0.5), 2.5), x), 4.0), x), 2.0)
        out = where(greater_equal(x, 1.0), outer, inner)
        return where(greater_equal(x, 2.0), 0.0, out)
    radius = 3.0 if kind == "lanczos3" else 5.0
    y = multiply(multiply(sin(multiply(x, math.pi)), sin(multiply(x, math.pi / radius))), radius)
    den = where(not_equal(x, 0.0), multiply(multiply(x, x), math.pi ** 2), 1.0)
    out = where(greater(x, 1e-3), divide(y, den), 1.0)
    return where(greater(x, radius), 0.0, out)


def _weights(m, n, scale, translation, kind, antialias):
    """(m, n) weights from 0-d float tensors ``scale`` and ``translation`` (one dtype)."""
    work = _dtype(scale)
    inv = divide(1.0, scale)
    ks = maximum(inv, 1.0) if antialias else 1.0
    sample = subtract(multiply(add(convert_to_tensor(np.arange(n, dtype=work)), 0.5), inv),
                      add(multiply(translation, inv), 0.5))
    dist = _abs(subtract(expand_dims(sample, 0),
                         convert_to_tensor(np.arange(m, dtype=work)[:, None])))
    w = _kernel(kind, divide(dist, ks))
    tot = _sum(w, 0, True)
    w = where(greater(_abs(tot), 1000.0 * _EPS32), divide(w, where(not_equal(tot, 0.0), tot, 1.0)), 0.0)
    inside = logical_and(greater_equal(sample, -0.5), less_equal(sample, m - 0.5))
    return where(expand_dims(inside, 0), w, 0.0)


def _contract(x, axis, w):
    """Resample ``x`` along ``axis`` with an (in, out) weight matrix."""
    return moveaxis(matmul(moveaxis(x, axis, -1), w), -1, axis)


# ---------------------------------------------------------------------------------
# resize
# ---------------------------------------------------------------------------------

_RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5")


def _size_arg(op, size):
    try:
        size = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"{op}: expected size=(height, width) of integers, got size={size!r}") from None
    if len(size) != 2:
        raise ValueError(f"{op}: expected size=(height, width), got size={size!r}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{op}: size must have positive height and width, got size={size!r}")
    return size


def _resize_check(images, size, interpolation, antialias, crop_to_aspect_ratio,
                  pad_to_aspect_ratio, fill_mode, fill_value, data_format):
    op = "resize"
    size = _size_arg(op, size)
    _choice(op, "interpolation", interpolation, _RESIZE_METHODS)
    if fill_mode != "constant":
        raise ValueError(f"resize: only fill_mode='constant' is supported, got fill_mode={fill_mode!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("resize: only one of crop_to_aspect_ratio and pad_to_aspect_ratio can be "
                         "True, got crop_to_aspect_ratio=True, pad_to_aspect_ratio=True")
    fill_value = _number(op, "fill_value", fill_value)
    df = _data_format(op, data_format)
    return size, df, fill_value


def _hw(shape, df):
    return (shape[-3], shape[-2]) if df == "channels_last" else (shape[-2], shape[-1])


def _resize_prepare(images, size, interpolation="bilinear", antialias=False,
                    crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, fill_mode="constant",
                    fill_value=0.0, data_format=None):
    size, df, fill_value = _resize_check(images, size, interpolation, antialias,
                                         crop_to_aspect_ratio, pad_to_aspect_ratio, fill_mode,
                                         fill_value, data_format)
    shape = tuple(images.shape)
    _check_images("resize", shape)
    h, w = _hw(shape, df)
    if h == 0 or w == 0:
        raise ValueError(f"resize: cannot resize an image of zero height or width, got "
                         f"images.shape={shape}")
    return (images, size, interpolation, bool(antialias), bool(crop_to_aspect_ratio),
            bool(pad_to_aspect_ratio), fill_mode, fill_value, df)


# Kernel contract: resize(images, size, interpolation, antialias, crop_to_aspect_ratio,
#   pad_to_aspect_ratio, fill_mode, fill_value, data_format): images rank 3 or 4 of a real
#   numeric dtype (non-zero height and width); size a tuple of two positive ints;
#   interpolation one of "bilinear", "nearest", "bicubic", "lanczos3", "lanczos5";
#   antialias/crop/pad bools (not both crop and pad); fill_mode "constant"; fill_value a
#   float; data_format "channels_last" or "channels_first".  Returns images.dtype with
#   height and width replaced by ``size`` (ints rounded half to even and saturated).
@defop("image", tensors=("images",), promote=_real, prepare=_resize_prepare)
def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """Resize image(s) to ``size = (height, width)``.

    Keras: ``keras.ops.image.resize``; the semantics are ``jax.image.resize`` (Keras's JAX
    backend): half-pixel centres; "bilinear" (triangle kernel), "bicubic" (Keys cubic,
    a=-0.5), "lanczos3"/"lanczos5" kernels, with ``antialias=True`` widening the kernel
    when downsampling; "nearest" takes pixel ``floor((i + 0.5) * in / out)`` and ignores
    ``antialias``.  A dimension whose size does not change is left as it is.
    ``crop_to_aspect_ratio`` first crops the largest centred window of the target aspect
    ratio; ``pad_to_aspect_ratio`` first pads the short side evenly with ``fill_value``.
    ("area", a TensorFlow-only method, is not offered: the JAX backend has none.)

    Images are rank 3 or 4; ``data_format`` None means
    `polyops.config.image_data_format()`.  The result has the input dtype: computed in
    float32 (float64 for 64-bit images, in 64-bit mode); integer images are rounded half
    to even and saturated, as Keras does.
    Equivalents: ``jax.image.resize``, ``tf.image.resize``.

    Example:
        >>> x = polyops.ops.ones((4, 4, 3))
        >>> polyops.ops.image.resize(x, (2, 2)).shape
        (2, 2, 3)
    """
    op = "resize"
    dtype = _dt(op, images)
    size, df, _ = _resize_check(images, size, interpolation, antialias, crop_to_aspect_ratio,
                                pad_to_aspect_ratio, fill_mode, fill_value, data_format)
    shape = list(shape_of(images))
    _check_images(op, shape)
    h, w = _hw(shape, df)
    if h == 0 or w == 0:
        raise ValueError(f"resize: cannot resize an image of zero height or width, got "
                         f"images.shape={tuple(shape)}")
    ax = (len(shape) - 3, len(shape) - 2) if df == "channels_last" else (len(shape) - 2, len(shape) - 1)
    shape[ax[0]], shape[ax[1]] = size
    return spec(tuple(shape), dtype)


def _crop_pad_box(h, w, th, tw, crop):
    if crop:
        ch = max(min(h, int(float(w * th) / tw)), 1)
        cw = max(min(w, int(float(h * tw) / th)), 1)
        return int(float(h - ch) / 2), int(float(w - cw) / 2), ch, cw
    ph = max(h, int(float(w * th) / tw))
    pw = max(w, int(float(h * tw) / th))
    return int(float(ph - h) / 2), int(float(pw - w) / 2), ph, pw


@resize.reference
def _resize_ref(images, size, interpolation, antialias, crop_to_aspect_ratio, pad_to_aspect_ratio,
                fill_mode, fill_value, data_format):
    dtype, work = _dtype(images), _work(images)
    ndim = len(images.shape)
    x = cast(_to_last(images, data_format, ndim), work)
    ha, wa = ndim - 3, ndim - 2
    shape = tuple(_shape(x))
    h, w = shape[ha], shape[wa]
    th, tw = size
    if crop_to_aspect_ratio:
        top, left, ch, cw = _crop_pad_box(h, w, th, tw, True)
        key_ = [slice(None)] * ndim
        key_[ha], key_[wa] = slice(top, top + ch), slice(left, left + cw)
        x = get_item(x, tuple(key_))
    elif pad_to_aspect_ratio:
        top, left, _, _ = _crop_pad_box(h, w, th, tw, False)
        # As Keras: pads the height if it needs padding, else the width, by the same
        # amount on both sides.
        if top > 0 or left > 0:
            axis = ha if top > 0 else wa
            pshape = list(shape)
            pshape[axis] = top if top > 0 else left
            block = full(tuple(pshape), fill_value, work)
            x = concatenate([block, x, block], axis=axis)
    shape = tuple(_shape(x))
    for axis, n in ((ha, th), (wa, tw)):
        m = shape[axis]
        if m == n:
            continue
        if interpolation == "nearest":
            idx = np.floor((np.arange(n, dtype=np.float32) + np.float32(0.5)) * np.float32(m)
                           / np.float32(n)).astype(np.int32)
            x = take(x, convert_to_tensor(np.minimum(idx, m - 1)), axis=axis)
        else:
            wm = _np_weights(m, n, n / m, 0.0, _METHODS[interpolation], antialias)
            x = _contract(x, axis, convert_to_tensor(wm.astype(work)))
    return _from_last(_cast_back(x, dtype, half_away=False), data_format, ndim)


# ---------------------------------------------------------------------------------
# scale_and_translate
# ---------------------------------------------------------------------------------


def _sat_check(op, images_shape, output_shape, scale_shape, translation_shape, spatial_dims,
               method, antialias):
    ndim = len(images_shape)
    try:
        output_shape = tuple(operator.index(s) for s in output_shape)
        spatial = tuple(operator.index(d) for d in spatial_dims)
    except TypeError:
        raise TypeError(f"{op}: expected integer sequences for output_shape and spatial_dims, got "
                        f"output_shape={output_shape!r}, spatial_dims={spatial_dims!r}") from None
    _choice(op, "method", method, _METHODS)
    if len(output_shape) != ndim:
        raise ValueError(f"{op}: output_shape must have one entry per dim of images, got "
                         f"output_shape={output_shape} for images.shape={tuple(images_shape)}")
    if any(s < 0 for s in output_shape):
        raise ValueError(f"{op}: output_shape must be non-negative, got output_shape={output_shape}")
    canon = []
    for d in spatial:
        if not -ndim <= d < ndim:
            raise ValueError(f"{op}: spatial_dims={spatial} out of range for images of rank {ndim}")
        canon.append(d % ndim)
    if len(set(canon)) != len(canon):
        raise ValueError(f"{op}: repeated dims in spatial_dims={spatial}")
    for name, shp in (("scale", scale_shape), ("translation", translation_shape)):
        if len(shp) != 1 or (shp[0] is not None and shp[0] != len(canon)):
            raise ValueError(f"{op}: {name} must have shape ({len(canon)},) (one entry per spatial "
                             f"dim), got {name}.shape={tuple(shp)}")
    for d in range(ndim):
        if d not in canon and images_shape[d] is not None and images_shape[d] != output_shape[d]:
            raise ValueError(f"{op}: output_shape={output_shape} changes dim {d}, which is not in "
                             f"spatial_dims={spatial} (images.shape={tuple(images_shape)})")
    return output_shape, tuple(canon)


def _sat_prepare(images, output_shape, scale, translation, spatial_dims, method, antialias=True):
    output_shape, canon = _sat_check("scale_and_translate", tuple(images.shape), output_shape,
                                     tuple(scale.shape), tuple(translation.shape), spatial_dims,
                                     method, antialias)
    return images, output_shape, scale, translation, canon, method, bool(antialias)


# Kernel contract: scale_and_translate(images, output_shape, scale, translation,
#   spatial_dims, method, antialias): images of any rank and a real numeric dtype;
#   output_shape a tuple of ints of the same rank (equal to images.shape outside
#   spatial_dims); scale and translation (K,) real tensors; spatial_dims K distinct
#   non-negative axes; method a jax.image method name; antialias a bool.  Returns
#   output_shape, float dtype: images.dtype if floating, else floatx.
@defop("image", tensors=("images", "scale", "translation"), promote=_real, prepare=_sat_prepare, empty=0)
def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """Scale and translate ``images`` along ``spatial_dims`` and resample to ``output_shape``.

    An input location ``x`` (half-pixel centres) along spatial dim ``k`` lands at
    ``x * scale[k] + translation[k]`` in the output; outside the input the result is 0.
    ``method``: "linear"/"bilinear"/"trilinear"/"triangle", "cubic"/"bicubic"/"tricubic"
    (Keys, a=-0.5), "lanczos3", "lanczos5"; ``antialias`` widens the kernel when
    downsampling.  Keras: ``keras.ops.image.scale_and_translate``; the semantics are
    ``jax.image.scale_and_translate``.

    Dtype: float images keep their dtype (computed in float32, float64 where an operand
    is 64-bit in 64-bit mode); integer images give
    floatx, as ``jax.image.scale_and_translate`` (Keras's symbolic spec says images.dtype,
    its JAX backend returns float32; we follow the backend).

    Example:
        >>> x = polyops.ops.reshape(polyops.ops.arange(9.0), (3, 3))
        >>> s = polyops.ops.convert_to_tensor([2.0, 2.0])
        >>> polyops.ops.image.scale_and_translate(x, (5, 5), s, -(s / 2 - 0.5), (0, 1), "linear")
        array([[0. , 0.5, 1. , 1.5, 2. ],
               [1.5, 2. , 2.5, 3. , 3.5],
               [3. , 3.5, 4. , 4.5, 5. ],
               [4.5, 5. , 5.5, 6. , 6.5],
               [6. , 6.5, 7. , 7.5, 8. ]], dtype=float32)
    """
    op = "scale_and_translate"
    dtype = _dt(op, images)
    _dt(op, scale, "scale")
    _dt(op, translation, "translation")
    output_shape, _ = _sat_check(op, tuple(shape_of(images)), output_shape, tuple(shape_of(scale)),
                                 tuple(shape_of(translation)), spatial_dims, method, antialias)
    if dtype not in _dtypes.FLOAT_TYPES:
        dtype = config.floatx()
    return spec(output_shape, dtype)


@scale_and_translate.reference
def _sat_ref(images, output_shape, scale, translation, spatial_dims, method, antialias):
    dtype, work = _dtype(images), _work(images, scale, translation)
    out_dtype = dtype if dtype in _dtypes.FLOAT_TYPES else config.floatx()
    x = cast(images, work)
    scale = cast(scale, work)
    translation = cast(translation, work)
    for i, d in enumerate(spatial_dims):
        m, n = tuple(_shape(x))[d], output_shape[d]
        wm = _weights(m, n, get_item(scale, i), get_item(translation, i), _METHODS[method], antialias)
        x = _contract(x, d, wm)
    return cast(x, out_dtype) if out_dtype != work else x


# ---------------------------------------------------------------------------------
# affine_transform and perspective_transform
# ---------------------------------------------------------------------------------


def _f32_batch(images, data_format, work=_F32):
    """(x, dtype, ndim): images as a channels_last batch (rank 3 gets a batch of 1) in the
    ``work`` dtype (float32, or float64: see `_work`), with their dtype and rank."""
    dtype = _dtype(images)
    ndim = len(images.shape)
    x = cast(_to_last(images, data_format, ndim), work)
    if ndim == 3:
        x = expand_dims(x, 0)
    return x, dtype, ndim


def _sample_batch(x, yin, xin, interpolation, fill_mode, fill_value, dtype, data_format, ndim):
    """Sample the batch x of `_f32_batch` at (yin, xin), each (batch, h, w) of x's dtype,
    and return the result in the images' dtype, layout and rank."""
    b, h, w, c = tuple(_shape(x))
    base = convert_to_tensor((np.arange(b, dtype=_dtype(x)) * (h * w)).reshape(b, 1, 1))
    table = reshape(x, (b * h * w, c))
    out = _interp(table, (h, w), [yin, xin], _INTERP[interpolation], fill_mode, fill_value, base)
    if ndim == 3:
        out = squeeze(out, 0)
    return _from_last(_cast_back(out, dtype), data_format, ndim)


def _warp_sample(images, params, interpolation, fill_mode, fill_value, data_format):
    """Sample image(s) at the projective map of each output pixel.

    ``params``: 8 float tensors (float32, or float64: see `_work`) of shape (N, 1, 1)
    (N = 1 or the batch):
    x_in = (a0 x + a1 y + a2) / k, y_in = (b0 x + b1 y + b2) / k, k = c0 x + c1 y + 1.
    """
    work = _dtype(params[0])
    x, dtype, ndim = _f32_batch(images, data_format, work)
    b, h, w, _ = tuple(_shape(x))
    gy, gx = np.meshgrid(np.arange(h, dtype=work), np.arange(w, dtype=work), indexing="ij")
    gx, gy = convert_to_tensor(gx), convert_to_tensor(gy)
    a0, a1, a2, b0, b1, b2, c0, c1 = params
    k = add(add(multiply(c0, gx), multiply(c1, gy)), 1.0)
    xin = divide(add(add(multiply(a0, gx), multiply(a1, gy)), a2), k)
    yin = divide(add(add(multiply(b0, gx), multiply(b1, gy)), b2), k)
    zero = zeros((b, h, w), work)  # broadcast a single transform over the batch
    xin, yin = add(xin, zero), add(yin, zero)
    return _sample_batch(x, yin, xin, interpolation, fill_mode, fill_value, dtype, data_format,
                         ndim)


def _check_transform(op, images_shape, tshape):
    if len(tshape) not in (1, 2) or (tshape[-1] is not None and tshape[-1] != 8):
        raise ValueError(f"{op}: transform must have shape (8,) or (N, 8), got "
                         f"transform.shape={tuple(tshape)}")
    n = tshape[0] if len(tshape) == 2 else 1
    _check_count(op, images_shape, n, f"transform.shape={tuple(tshape)}", "transforms")


def _check_count(op, images_shape, n, got, what):
    """n (None when unknown) transforms or point sets must be 1 or the images' batch."""
    batch = images_shape[0] if len(images_shape) == 4 else 1
    if n is not None and batch is not None and n not in (1, batch):
        raise ValueError(f"{op}: {got} has {n} {what} for "
                         f"images.shape={tuple(images_shape)} (expected 1 or {batch})")


def _nonempty_hw(op, shape, df):
    h, w = _hw(shape, df)
    if h == 0 or w == 0:
        raise ValueError(f"{op}: cannot sample an image of zero height or width, got "
                         f"images.shape={tuple(shape)}")


def _affine_prepare(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                    data_format=None):
    op = "affine_transform"
    shape = tuple(images.shape)
    _check_images(op, shape)
    _choice(op, "interpolation", interpolation, _INTERP)
    _choice(op, "fill_mode", fill_mode, _FILL_MODES)
    fill_value = _number(op, "fill_value", fill_value)
    df = _data_format(op, data_format)
    _check_transform(op, shape, tuple(transform.shape))
    _nonempty_hw(op, shape, df)
    return images, transform, interpolation, fill_mode, fill_value, df


# Kernel contract: affine_transform(images, transform, interpolation, fill_mode, fill_value,
#   data_format): images rank 3 or 4 (non-zero height and width) of a real numeric dtype;
#   transform (8,) or (N, 8) of a real dtype, N = 1 or the batch; interpolation
#   "nearest"/"bilinear"; fill_mode one of constant/nearest/wrap/mirror/reflect;
#   fill_value a float; data_format canonical.  Returns images' shape and dtype.
@defop("image", tensors=("images", "transform"), promote=_real, prepare=_affine_prepare)
def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """Apply projective transform(s) ``[a0, a1, a2, b0, b1, b2, c0, c1]`` to image(s).

    The output pixel ``(x, y)`` takes the input at ``((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1`` (the transform maps output
    to input), sampled as ``jax.scipy.ndimage.map_coordinates`` does (order 0 for
    "nearest", 1 for "bilinear"; ``fill_mode`` "constant", "nearest", "wrap", "mirror"
    or "reflect"; see `map_coordinates`).  ``transform`` is (8,) or (N, 8) with N = 1 or
    the batch size.

    Keras: ``keras.ops.image.affine_transform``.  Keras's JAX/NumPy/Torch backends
    ignore ``c0, c1`` (JAX actually adds ``c * channel`` to the coordinates); we apply
    the documented projective division, as TensorFlow does, which is the same whenever
    ``c0 = c1 = 0``.  The result has the input dtype (computed in float32, float64 in
    64-bit mode; integers rounded half away from zero and saturated).  Equivalent:
    ``tf.raw_ops.ImageProjectiveTransformV3``.

    Example:
        >>> x = polyops.ops.ones((4, 4, 1))
        >>> t = polyops.ops.convert_to_tensor([1.0, 0, 1, 0, 1, 0, 0, 0])   # shift left by 1
        >>> polyops.ops.image.affine_transform(x, t)[:, -1, 0]
        array([0., 0., 0., 0.], dtype=float32)
    """
    op = "affine_transform"
    dtype = _dt(op, images)
    _dt(op, transform, "transform")
    shape = tuple(shape_of(images))
    _check_images(op, shape)
    _choice(op, "interpolation", interpolation, _INTERP)
    _choice(op, "fill_mode", fill_mode, _FILL_MODES)
    _number(op, "fill_value", fill_value)
    df = _data_format(op, data_format)
    _check_transform(op, shape, tuple(shape_of(transform)))
    _nonempty_hw(op, shape, df)
    return spec(shape, dtype)


@affine_transform.reference
def _affine_ref(images, transform, interpolation, fill_mode, fill_value, data_format):
    t = cast(transform, _work(images, transform))
    if len(transform.shape) == 1:
        t = expand_dims(t, 0)
    params = [reshape(get_item(t, (slice(None), i)), (-1, 1, 1)) for i in range(8)]
    return _warp_sample(images, params, interpolation, fill_mode, fill_value, data_format)


def _check_points(op, images_shape, sshape, eshape):
    for name, shp in (("start_points", sshape), ("end_points", eshape)):
        if len(shp) not in (2, 3) or tuple(shp[-2:]) not in ((4, 2), (None, 2), (4, None), (None, None)):
            raise ValueError(f"{op}: {name} must have shape (4, 2) or (N, 4, 2), got "
                             f"{name}.shape={tuple(shp)}")
    if len(sshape) != len(eshape) or any(
            a is not None and b is not None and a != b for a, b in zip(sshape, eshape)):
        raise ValueError(f"{op}: start_points and end_points must have the same shape, got "
                         f"start_points.shape={tuple(sshape)}, end_points.shape={tuple(eshape)}")
    n = sshape[0] if len(sshape) == 3 else 1
    _check_count(op, images_shape, n, f"start_points.shape={tuple(sshape)}", "point sets")


def _persp_prepare(images, start_points, end_points, interpolation="bilinear", fill_value=0,
                   data_format=None):
    op = "perspective_transform"
    shape = tuple(images.shape)
    _check_images(op, shape)
    _choice(op, "interpolation", interpolation, _INTERP)
    fill_value = _number(op, "fill_value", fill_value)
    df = _data_format(op, data_format)
    _check_points(op, shape, tuple(start_points.shape), tuple(end_points.shape))
    _nonempty_hw(op, shape, df)
    return images, start_points, end_points, interpolation, fill_value, df


# Kernel contract: perspective_transform(images, start_points, end_points, interpolation,
#   fill_value, data_format): images rank 3 or 4 (non-zero height and width), real
#   numeric; start_points/end_points (4, 2) or (N, 4, 2) of the same shape, N = 1 or the
#   batch; interpolation "nearest"/"bilinear"; fill_value a float; data_format canonical.
#   Returns images' shape and dtype.
@defop("image", tensors=("images", "start_points", "end_points"), promote=_real,
       prepare=_persp_prepare)
def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """Warp image(s) by the homography that maps ``end_points`` to ``start_points``.

    Each output pixel ``(x, y)`` takes the input at ``H (x, y, 1)`` (projective
    division), where the homography ``H`` sends the 4 ``end_points`` (x, y) to the 4
    ``start_points``; sampling as `affine_transform` with ``fill_mode="constant"``.
    Keras: ``keras.ops.image.perspective_transform`` (which solves the 8x8 system;
    we use the closed form square-to-quad construction, the same map).  The result has
    the input dtype (computed in float32, float64 in 64-bit mode; integers rounded half
    away from zero and saturated).

    Example:
        >>> x = polyops.ops.ones((4, 4, 1))
        >>> p = polyops.ops.convert_to_tensor([[0.0, 0], [3, 0], [3, 3], [0, 3]])
        >>> polyops.ops.allclose(polyops.ops.image.perspective_transform(x, p, p), x)   # the identity
        np.True_
    """
    op = "perspective_transform"
    dtype = _dt(op, images)
    _dt(op, start_points, "start_points")
    _dt(op, end_points, "end_points")
    shape = tuple(shape_of(images))
    _check_images(op, shape)
    _choice(op, "interpolation", interpolation, _INTERP)
    _number(op, "fill_value", fill_value)
    df = _data_format(op, data_format)
    _check_points(op, shape, tuple(shape_of(start_points)), tuple(shape_of(end_points)))
    _nonempty_hw(op, shape, df)
    return spec(shape, dtype)


def _square_to_quad(p):
    """3x3 (list of lists of (N,) tensors) projective map of the unit square's corners
    (0,0), (1,0), (1,1), (0,1) to the 4 points ``p`` (N, 4, 2) (Heckbert)."""
    x = [get_item(p, (slice(None), i, 0)) for i in range(4)]
    y = [get_item(p, (slice(None), i, 1)) for i in range(4)]
    sx = add(subtract(x[0], x[1]), subtract(x[2], x[3]))
    sy = add(subtract(y[0], y[1]), subtract(y[2], y[3]))
    dx1, dx2 = subtract(x[1], x[2]), subtract(x[3], x[2])
    dy1, dy2 = subtract(y[1], y[2]), subtract(y[3], y[2])
    den = subtract(multiply(dx1, dy2), multiply(dx2, dy1))
    g = divide(subtract(multiply(sx, dy2), multiply(dx2, sy)), den)
    h = divide(subtract(multiply(dx1, sy), multiply(sx, dy1)), den)
    one = add(multiply(g, 0.0), 1.0)
    return [[add(subtract(x[1], x[0]), multiply(g, x[1])), add(subtract(x[3], x[0]), multiply(h, x[3])), x[0]],
            [add(subtract(y[1], y[0]), multiply(g, y[1])), add(subtract(y[3], y[0]), multiply(h, y[3])), y[0]],
            [g, h, one]]


def _adjugate(m):
    def cof(i, j):
        r = [k for k in range(3) if k != i]
        c = [k for k in range(3) if k != j]
        v = subtract(multiply(m[r[0]][c[0]], m[r[1]][c[1]]), multiply(m[r[0]][c[1]], m[r[1]][c[0]]))
        return v if (i + j) % 2 == 0 else multiply(v, -1.0)
    return [[cof(j, i) for j in range(3)] for i in range(3)]


@perspective_transform.reference
def _persp_ref(images, start_points, end_points, interpolation, fill_value, data_format):
    work = _work(images, start_points, end_points)
    s = cast(start_points, work)
    e = cast(end_points, work)
    if len(start_points.shape) == 2:
        s, e = expand_dims(s, 0), expand_dims(e, 0)
    a = _square_to_quad(s)
    b = _adjugate(_square_to_quad(e))
    hm = [[None] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(3):
            hm[i][j] = add(add(multiply(a[i][0], b[0][j]), multiply(a[i][1], b[1][j])),
                           multiply(a[i][2], b[2][j]))
    params = [reshape(divide(hm[i][j], hm[2][2]), (-1, 1, 1))
              for i, j in ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1))]
    return _warp_sample(images, params, interpolation, "constant", fill_value, data_format)


# ---------------------------------------------------------------------------------
# map_coordinates
# ---------------------------------------------------------------------------------


def _mc_check(op, ishape, cshape, order, fill_mode, fill_value):
    if len(cshape) < 2:
        raise ValueError(f"{op}: coordinates must have rank >= 2 (its first dim indexes the dims "
                         f"of inputs), got coordinates.shape={tuple(cshape)}")
    if len(ishape) == 0:
        raise ValueError(f"{op}: inputs must have rank >= 1, got inputs.shape={tuple(ishape)}")
    if cshape[0] is not None and cshape[0] != len(ishape):
        raise ValueError(f"{op}: the first dim of coordinates must be the rank of inputs, got "
                         f"coordinates.shape={tuple(cshape)} for inputs.shape={tuple(ishape)}")
    if isinstance(order, bool) or order not in (0, 1):
        raise ValueError(f"{op}: order must be 0 or 1, got order={order!r}")
    _choice(op, "fill_mode", fill_mode, _FILL_MODES)
    if any(d == 0 for d in ishape):
        raise ValueError(f"{op}: cannot sample an empty input, got inputs.shape={tuple(ishape)}")
    return _number(op, "fill_value", fill_value)


def _mc_prepare(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    fill_value = _mc_check("map_coordinates", tuple(inputs.shape), tuple(coordinates.shape), order,
                           fill_mode, fill_value)
    return inputs, coordinates, int(order), fill_mode, fill_value


# Kernel contract: map_coordinates(inputs, coordinates, order, fill_mode, fill_value): inputs
#   rank >= 1, no zero dim, real numeric; coordinates (inputs.ndim, *S) real numeric;
#   order 0 or 1; fill_mode one of constant/nearest/wrap/mirror/reflect; fill_value a
#   float.  Returns S, inputs.dtype.
@defop("image", tensors=("inputs", "coordinates"), promote=_real, prepare=_mc_prepare)
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """Sample ``inputs`` at ``coordinates`` (shape (inputs.ndim, *S)) by interpolation.

    ``order`` 0 takes the nearest element (coordinates rounded half away from zero),
    1 interpolates linearly.  Outside the input, ``fill_mode``: "constant" (each
    interpolation node outside counts as ``fill_value``: SciPy's "grid-constant"),
    "nearest" (``a a | a b c d | d d``), "wrap" (index modulo size: SciPy's
    "grid-wrap"), "mirror" (``c b | a b c d | c b``) or "reflect" (``b a | a b c d |
    d c``).  A non-finite coordinate gives ``fill_value`` in every mode.

    Keras: ``keras.ops.image.map_coordinates``; the semantics are
    ``jax.scipy.ndimage.map_coordinates``, i.e. ``scipy.ndimage.map_coordinates`` with
    modes "grid-constant"/"nearest"/"grid-wrap"/"mirror"/"reflect".  The result has the
    input dtype (computed in float32, float64 in 64-bit mode; integers rounded half away
    from zero and saturated).

    Example:
        >>> x = polyops.ops.convert_to_tensor([0.0, 10.0, 20.0])
        >>> c = polyops.ops.convert_to_tensor([[0.5, 1.25]])
        >>> polyops.ops.image.map_coordinates(x, c, 1)
        array([ 5. , 12.5], dtype=float32)
    """
    op = "map_coordinates"
    dtype = _dt(op, inputs, "inputs")
    _dt(op, coordinates, "coordinates")
    cshape = tuple(shape_of(coordinates))
    _mc_check(op, tuple(shape_of(inputs)), cshape, order, fill_mode, fill_value)
    return spec(cshape[1:], dtype)


@map_coordinates.reference
def _mc_ref(inputs, coordinates, order, fill_mode, fill_value):
    dtype, work = _dtype(inputs), _work(inputs, coordinates)
    sizes = tuple(_shape(inputs))
    table = reshape(cast(inputs, work), (-1, 1))
    c = cast(coordinates, work)
    coords = [get_item(c, i) for i in range(len(sizes))]
    out = _interp(table, sizes, coords, order, fill_mode, fill_value)
    return _cast_back(squeeze(out, -1), dtype)


# ---------------------------------------------------------------------------------
# elastic_transform
# ---------------------------------------------------------------------------------


def _elastic_field(seed, batch, h, w, alpha, sigma, work=_F32):
    """Displaced sampling coordinates (y, x), each (batch, h, w) of dtype ``work``, from numpy's
    ``default_rng(seed)``: two standard normal fields times ``sigma``, blurred by a
    Gaussian of ``sigma`` (kernel ``int(6 sigma) | 1``, zero padding), times ``alpha``."""
    rng = np.random.default_rng(seed)
    dx = rng.standard_normal((batch, h, w)) * sigma
    dy = rng.standard_normal((batch, h, w)) * sigma
    size = int(6 * sigma) | 1
    t = np.arange(size) - (size - 1) / 2
    k = np.exp(-0.5 * (t / sigma) ** 2)
    k /= k.sum()
    r = (size - 1) // 2

    def band(n):  # (n, n) matrix of the 1-d "same" correlation with zero padding
        i = np.arange(n)
        d = i[None, :] - i[:, None] + r
        return np.where((d >= 0) & (d < size), k[np.clip(d, 0, size - 1)], 0.0)

    bh, bw = band(h), band(w)
    dx = np.einsum("ij,bjk,lk->bil", bh, dx, bw)
    dy = np.einsum("ij,bjk,lk->bil", bh, dy, bw)
    gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    return ((gy + alpha * dy).astype(work), (gx + alpha * dx).astype(work))


def _elastic_check(op, interpolation, fill_mode, fill_value, seed, alpha, sigma, data_format):
    _choice(op, "interpolation", interpolation, _INTERP)
    _choice(op, "fill_mode", fill_mode, _FILL_MODES)
    fill_value = _number(op, "fill_value", fill_value)
    alpha = _number(op, "alpha", alpha)
    sigma = _number(op, "sigma", sigma)
    if not sigma > 0 or not math.isfinite(sigma) or not math.isfinite(alpha):
        raise ValueError(f"{op}: expected a finite alpha and a positive finite sigma, got "
                         f"alpha={alpha!r}, sigma={sigma!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise (ValueError if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
               else TypeError)(f"{op}: expected seed=None or a non-negative int, got seed={seed!r}")
    return fill_value, alpha, sigma, _data_format(op, data_format)


def _elastic_prepare(images, alpha=20.0, sigma=5.0, interpolation="bilinear", fill_mode="reflect",
                     fill_value=0.0, seed=None, data_format=None):
    op = "elastic_transform"
    shape = tuple(images.shape)
    _check_images(op, shape)
    fill_value, alpha, sigma, df = _elastic_check(op, interpolation, fill_mode, fill_value, seed,
                                                  alpha, sigma, data_format)
    _nonempty_hw(op, shape, df)
    return images, alpha, sigma, interpolation, fill_mode, fill_value, seed, df


# Kernel contract: elastic_transform(images, alpha, sigma, interpolation, fill_mode,
#   fill_value, seed, data_format): images rank 3 or 4 (non-zero height and width), real
#   numeric; alpha, sigma (> 0), fill_value floats; interpolation "nearest"/"bilinear";
#   fill_mode one of constant/nearest/wrap/mirror/reflect; seed None or an int >= 0;
#   data_format canonical.  Returns images' shape and dtype.  A native kernel must draw
#   the same field as the reference (numpy default_rng(seed)) to be interchangeable.
@defop("image", tensors=("images",), promote=_real, prepare=_elastic_prepare)
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """Elastic deformation: resample image(s) at pixel positions moved by a smooth random field.

    Two displacement fields (x and y, one per image) are drawn as standard normals times
    ``sigma``, blurred with a Gaussian of standard deviation ``sigma`` (kernel size
    ``int(6 sigma) | 1``, zero padding) and scaled by ``alpha``; the image is sampled at
    the displaced positions as `map_coordinates` does (``interpolation`` "nearest" or
    "bilinear", ``fill_mode`` constant/nearest/wrap/mirror/reflect).

    Keras: ``keras.ops.image.elastic_transform``.  Difference: there is no polyops.random
    yet, so the noise comes from ``numpy.random.default_rng(seed)`` on the host (a
    constant of the static shape): the numbers differ from Keras's, but a given integer
    ``seed`` gives the same result on every backend and every call (``seed=None``: fresh
    noise).  Keras's JAX backend draws the x and y fields from the same key (identical
    fields); ours are independent.  The result has the input dtype (computed in float32,
    float64 in 64-bit mode; integers rounded half away from zero and saturated).

    Example:
        >>> x = polyops.ops.ones((8, 8, 3))
        >>> polyops.ops.image.elastic_transform(x, alpha=2.0, sigma=1.0, seed=0).shape
        (8, 8, 3)
    """
    op = "elastic_transform"
    dtype = _dt(op, images)
    shape = tuple(shape_of(images))
    _check_images(op, shape)
    _, _, _, df = _elastic_check(op, interpolation, fill_mode, fill_value, seed, alpha, sigma,
                                 data_format)
    _nonempty_hw(op, shape, df)
    return spec(shape, dtype)


@elastic_transform.reference
def _elastic_ref(images, alpha, sigma, interpolation, fill_mode, fill_value, seed, data_format):
    work = _work(images)
    x, dtype, ndim = _f32_batch(images, data_format, work)
    b, h, w, _ = tuple(_shape(x))
    yin, xin = _elastic_field(seed, b, h, w, alpha, sigma, work)
    return _sample_batch(x, convert_to_tensor(yin), convert_to_tensor(xin), interpolation,
                         fill_mode, fill_value, dtype, data_format, ndim)


__all__ = [
    "AffineTransform", "ElasticTransform", "MapCoordinates", "PerspectiveTransform", "Resize",
    "ScaleAndTranslate", "affine_transform", "elastic_transform", "map_coordinates",
    "perspective_transform", "resize", "scale_and_translate",
]

_finish(globals())
