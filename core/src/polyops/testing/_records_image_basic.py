"""Op records of `polyops.ops.image.basic` (see `polyops.testing._records` for the fields).

Expected values come from NumPy/SciPy written independently of the ops: colorsys's
formulas vectorized, ``scipy.ndimage.correlate`` for the filters, naive loops for the
patches and a sliding-window SSIM.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

FLOATS = ("float32", "float16", "bfloat16")
_BF16 = np.dtype(ml_dtypes.bfloat16)


def _np_dtype(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _cl(x, data_format, nd=2):
    """x in channels_last (the channel axis moved last)."""
    if data_format == "channels_first":
        return np.moveaxis(x, x.ndim - 1 - nd, -1)
    return x


def _back(y, data_format, nd=2):
    if data_format == "channels_first":
        return np.moveaxis(y, -1, y.ndim - 1 - nd)
    return y


def _uniform(shape, lo=0.0, hi=1.0, zero_below=0.0):
    def make(dtype, rng):
        a = rng.uniform(lo, hi, shape).astype(np.float32)
        a[np.abs(a) < zero_below] = 0.0
        if dtype in ("uint8",):
            return [rng.integers(0, 256, shape).astype(dtype)]
        if dtype.startswith("int"):
            return [rng.integers(-50, 50, shape).astype(dtype)]
        return [a.astype(_np_dtype(dtype))]
    return make


# -- color ---------------------------------------------------------------------------


def _gray(x, data_format=None):
    x = _cl(np.asarray(x), data_format)
    if x.shape[-1] == 1:
        return _back(x, data_format)
    w = np.array([0.2989, 0.5870, 0.1140], np.float32)
    y = (x.astype(np.float32) * w).sum(-1, keepdims=True, dtype=np.float32)
    return _back(y.astype(x.dtype) if x.dtype.kind in "iu" else y, data_format)


def _rgb_to_hsv(x, data_format=None):
    """colorsys.rgb_to_hsv, vectorized (ties: red, then green, then blue)."""
    x = _cl(np.asarray(x, np.float64), data_format)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    maxc = np.max(x, -1)
    minc = np.min(x, -1)
    v = maxc
    rng = maxc - minc
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(maxc > 0, rng / np.where(maxc > 0, maxc, 1), 0.0)
        safe = np.where(rng > 0, rng, 1)
        rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(rng > 0, (h / 6.0) % 1.0, 0.0)
    return _back(np.stack([h, s, v], -1), data_format)


def _hsv_to_rgb(x, data_format=None):
    """colorsys.hsv_to_rgb, vectorized."""
    x = _cl(np.asarray(x, np.float64), data_format)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    h6 = (h % 1.0) * 6.0
    i = np.floor(h6).astype(int) % 6
    f = h6 - np.floor(h6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.choose(i, [c[k] for c in choices]) for k in range(3)]
    return _back(np.stack(out, -1), data_format)


RECORDS += [
    OpRecord("rgb_to_grayscale", shapes=((2, 4, 5, 3),), np_fn=_gray, make=_uniform((2, 4, 5, 3)),
             dtypes=FLOATS + ("uint8", "int32")),
    OpRecord("rgb_to_grayscale", shapes=((3, 4, 5),), np_fn=_gray, make=_uniform((3, 4, 5)),
             kwargs=dict(data_format="channels_first"), id="rgb_to_grayscale-cf-unbatched"),
    OpRecord("rgb_to_grayscale", shapes=((4, 5, 1),), np_fn=_gray, id="rgb_to_grayscale-1ch",
             dtypes=("float32", "uint8")),
    OpRecord("rgb_to_hsv", shapes=((2, 4, 5, 3),), np_fn=_rgb_to_hsv, dtypes=FLOATS,
             make=_uniform((2, 4, 5, 3), zero_below=0.02)),
    OpRecord("rgb_to_hsv", shapes=((2, 3, 4, 5),), np_fn=_rgb_to_hsv, id="rgb_to_hsv-cf",
             kwargs=dict(data_format="channels_first"), make=_uniform((2, 3, 4, 5), zero_below=0.02)),
    OpRecord("rgb_to_hsv", shapes=((2, 2, 3),), id="rgb_to_hsv-grays-ties", np_fn=_rgb_to_hsv,
             make=lambda dtype, rng: [np.array([[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
                                                [[0.2, 0.7, 0.7], [0.9, 0.1, 0.9], [0.3, 0.1, 0.2]]],
                                               _np_dtype(dtype))], dtypes=("float32", "float16")),
    OpRecord("hsv_to_rgb", shapes=((2, 4, 5, 3),), np_fn=_hsv_to_rgb, dtypes=FLOATS,
             make=_uniform((2, 4, 5, 3))),
    OpRecord("hsv_to_rgb", shapes=((3, 4, 5),), np_fn=_hsv_to_rgb, id="hsv_to_rgb-cf-unbatched",
             kwargs=dict(data_format="channels_first"), make=_uniform((3, 4, 5))),
]


# -- pad / crop ----------------------------------------------------------------------


def _pad(x, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
         target_height=None, target_width=None, data_format=None):
    x = _cl(np.asarray(x), data_format)
    h, w = x.shape[-3], x.shape[-2]
    top = top_padding if top_padding is not None else target_height - h - bottom_padding
    bottom = bottom_padding if bottom_padding is not None else target_height - h - top
    left = left_padding if left_padding is not None else target_width - w - right_padding
    right = right_padding if right_padding is not None else target_width - w - left
    out = np.zeros(x.shape[:-3] + (h + top + bottom, w + left + right, x.shape[-1]), x.dtype)
    out[..., top:top + h, left:left + w, :] = x
    return _back(out, data_format)


def _crop(x, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
          target_height=None, target_width=None, data_format=None):
    x = _cl(np.asarray(x), data_format)
    h, w = x.shape[-3], x.shape[-2]
    top = top_cropping if top_cropping is not None else h - target_height - bottom_cropping
    th = target_height if target_height is not None else h - top - bottom_cropping
    left = left_cropping if left_cropping is not None else w - target_width - right_cropping
    tw = target_width if target_width is not None else w - left - right_cropping
    return _back(x[..., top:top + th, left:left + tw, :], data_format)


RECORDS += [
    OpRecord("pad_images", shapes=((2, 3, 4, 2),), np_fn=_pad,
             kwargs=dict(top_padding=1, left_padding=2, target_height=6, target_width=7),
             dtypes=FLOATS + ("uint8", "int32", "bool")),
    OpRecord("pad_images", shapes=((3, 4, 2),), np_fn=_pad, id="pad_images-bottom-right",
             kwargs=dict(top_padding=0, bottom_padding=2, left_padding=1, right_padding=0)),
    OpRecord("pad_images", shapes=((2, 2, 3, 4),), np_fn=_pad, id="pad_images-cf-targets",
             kwargs=dict(bottom_padding=1, target_height=5, right_padding=2, target_width=7,
                         data_format="channels_first")),
    OpRecord("crop_images", shapes=((2, 5, 6, 2),), np_fn=_crop,
             kwargs=dict(top_cropping=1, left_cropping=2, target_height=3, target_width=2),
             dtypes=FLOATS + ("uint8", "int32", "bool")),
    OpRecord("crop_images", shapes=((5, 6, 2),), np_fn=_crop, id="crop_images-bottom-right",
             kwargs=dict(top_cropping=1, bottom_cropping=2, left_cropping=0, right_cropping=3)),
    OpRecord("crop_images", shapes=((1, 2, 5, 6),), np_fn=_crop, id="crop_images-cf-targets",
             kwargs=dict(bottom_cropping=1, target_height=4, right_cropping=0, target_width=6,
                         data_format="channels_first")),
]


# -- patches -------------------------------------------------------------------------


def _tup(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def _np_patches(x, size, strides=None, dilation_rate=1, padding="valid", data_format=None, nd=None):
    """Naive patch extractor: loops over the grid and the patch's positions."""
    nd = nd or (len(size) if isinstance(size, (list, tuple)) else 2)
    size = _tup(size, nd)
    strides = size if strides is None else _tup(strides, nd)
    dil = _tup(dilation_rate, nd)
    x = _cl(np.asarray(x), data_format, nd)
    unbatched = x.ndim == nd + 1
    if unbatched:
        x = x[None]
    spatial = x.shape[1:-1]
    if padding == "same":
        outs = [-(-n // s) for n, s in zip(spatial, strides)]
        pads = [max((o - 1) * s + (k - 1) * d + 1 - n, 0)
                for o, s, k, d, n in zip(outs, strides, size, dil, spatial)]
        x = np.pad(x, [(0, 0)] + [(p // 2, p - p // 2) for p in pads] + [(0, 0)])
    else:
        outs = [(n - (k - 1) * d - 1) // s + 1 for n, k, d, s in zip(spatial, size, dil, strides)]
    c = x.shape[-1]
    out = np.zeros((x.shape[0], *outs, int(np.prod(size)) * c), x.dtype)
    for pos in np.ndindex(*outs):
        feats = []
        for off in np.ndindex(*size):
            idx = tuple(p * s + o * d for p, s, o, d in zip(pos, strides, off, dil))
            feats.append(x[(slice(None),) + idx])
        out[(slice(None),) + pos] = np.concatenate(feats, -1)
    if unbatched:
        out = out[0]
    return _back(out, data_format, nd)


def _np_patches_3d(x, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    return _np_patches(x, size, strides, dilation_rate, padding, data_format, nd=3)


def _np_reconstruct(p, size, data_format=None):
    nd = len(size) if isinstance(size, (list, tuple)) else 2
    size = _tup(size, nd)
    p = _cl(np.asarray(p), data_format, nd)
    unbatched = p.ndim == nd + 1
    if unbatched:
        p = p[None]
    grid = p.shape[1:-1]
    c = p.shape[-1] // int(np.prod(size))
    out = np.zeros((p.shape[0], *(g * s for g, s in zip(grid, size)), c), p.dtype)
    for pos in np.ndindex(*grid):
        for j, off in enumerate(np.ndindex(*size)):
            idx = tuple(g * s + o for g, s, o in zip(pos, size, off))
            out[(slice(None),) + idx] = p[(slice(None),) + pos][..., j * c:(j + 1) * c]
    if unbatched:
        out = out[0]
    return _back(out, data_format, nd)


RECORDS += [
    OpRecord("extract_patches", shapes=((2, 4, 6, 3),), kwargs=dict(size=2), np_fn=_np_patches,
             dtypes=FLOATS + ("uint8", "int32", "bool")),
    OpRecord("extract_patches", shapes=((2, 5, 7, 2),), id="extract_patches-same-strides",
             kwargs=dict(size=(2, 3), strides=(1, 2), padding="same"), np_fn=_np_patches),
    OpRecord("extract_patches", shapes=((6, 7, 2),), id="extract_patches-dilation-unbatched",
             kwargs=dict(size=(2, 2), strides=1, dilation_rate=2), np_fn=_np_patches),
    OpRecord("extract_patches", shapes=((2, 3, 5, 4),), id="extract_patches-cf",
             kwargs=dict(size=(3, 2), strides=(1, 1), data_format="channels_first"),
             np_fn=_np_patches),
    OpRecord("extract_patches", shapes=((1, 4, 4, 5, 2),), id="extract_patches-3d-size",
             kwargs=dict(size=(2, 2, 3), strides=(2, 1, 2)), np_fn=_np_patches),
    OpRecord("extract_patches_3d", shapes=((2, 4, 4, 5, 2),), kwargs=dict(size=2),
             np_fn=_np_patches_3d, dtypes=("float32", "bfloat16", "int32")),
    OpRecord("extract_patches_3d", shapes=((2, 3, 4, 5),), id="extract_patches_3d-cf-same",
             kwargs=dict(size=(2, 3, 2), strides=1, padding="same", data_format="channels_first"),
             np_fn=_np_patches_3d),
    OpRecord("reconstruct_patches", shapes=((2, 2, 3, 12),), kwargs=dict(size=2),
             np_fn=_np_reconstruct, dtypes=FLOATS + ("uint8", "bool")),
    OpRecord("reconstruct_patches", shapes=((12, 2, 3),), id="reconstruct_patches-cf-unbatched",
             kwargs=dict(size=(2, 3), data_format="channels_first"), np_fn=_np_reconstruct),
    OpRecord("reconstruct_patches", shapes=((1, 2, 2, 1, 16),), id="reconstruct_patches-3d",
             kwargs=dict(size=(2, 2, 2)), np_fn=_np_reconstruct),
]


# -- filters -------------------------------------------------------------------------


def _g1(size, sigma):
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-0.5 * (x / sigma) ** 2)
    return k / k.sum()


def _correlate_same(img2d, kernel):
    """Zero-padded correlation; an even kernel puts its extra tap after the centre."""
    from scipy import ndimage

    origin = [(-1 if k % 2 == 0 else 0) for k in kernel.shape]
    return ndimage.correlate(img2d, kernel, mode="constant", cval=0.0, origin=origin)


def _np_blur(x, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    x = np.asarray(x)
    ks, sg = _tup(kernel_size, 2), _tup(sigma, 2)
    kern = np.outer(_g1(ks[1], sg[1]), _g1(ks[0], sg[0]))  # rows: height (Keras's order)
    y = _cl(x, data_format).astype(np.float64)
    out = np.empty_like(y)
    for idx in np.ndindex(*y.shape[:-3]):
        for c in range(y.shape[-1]):
            out[idx + (..., c)] = _correlate_same(y[idx + (..., c)], kern)
    out = _back(out, data_format)
    return np.round(out).astype(x.dtype) if x.dtype.kind in "iu" else out


def _np_sobel(x, data_format=None):
    from scipy import ndimage

    y = _cl(np.asarray(x, np.float64), data_format)
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    out = np.empty(y.shape + (2,))
    for n in range(y.shape[0]):
        for c in range(y.shape[-1]):
            out[n, :, :, c, 0] = ndimage.correlate(y[n, :, :, c], ky, mode="constant")
            out[n, :, :, c, 1] = ndimage.correlate(y[n, :, :, c], ky.T, mode="constant")
    if data_format == "channels_first":
        out = np.moveaxis(out, 3, 1)
    return out


def _np_ssim(a, b, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
             data_format=None):
    from numpy.lib.stride_tricks import sliding_window_view

    a = _cl(np.asarray(a, np.float64), data_format)
    b = _cl(np.asarray(b, np.float64), data_format)
    g = _g1(filter_size, filter_sigma)
    w = np.outer(g, g)

    def filt(z):  # (..., H, W, C) -> (..., H', W', C), valid windows
        win = sliding_window_view(z, (filter_size, filter_size), axis=(-3, -2))
        return np.einsum("...ij,ij->...", win, w)

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = filt(a), filt(b)
    s1 = filt(a * a) - mu1 ** 2
    s2 = filt(b * b) - mu2 ** 2
    s12 = filt(a * b) - mu1 * mu2
    m = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    return m.mean(axis=(-3, -2, -1))


def _ssim_pair(shape, related=True):
    def make(dtype, rng):
        a = rng.uniform(0, 1, shape)
        b = np.clip(a + rng.normal(0, 0.1, shape), 0, 1) if related else rng.uniform(0, 1, shape)
        if dtype in ("uint8", "int32"):
            return [np.round(a * 255).astype(dtype), np.round(b * 255).astype(dtype)]
        return [a.astype(np.float32).astype(_np_dtype(dtype)), b.astype(np.float32).astype(_np_dtype(dtype))]
    return make


# SSIM's variances are differences of window means (E[x^2] - mu^2): float32 rounding of the
# operands shows at ~1e-6 of the map's values, beyond float32's default rtol.
_SSIM_TOL = {"float32": dict(rtol=1e-4, atol=1e-5)}

RECORDS += [
    OpRecord("gaussian_blur", shapes=((2, 5, 6, 3),), np_fn=_np_blur, dtypes=FLOATS),
    OpRecord("gaussian_blur", shapes=((7, 6, 2),), id="gaussian_blur-5x3-sigmas", np_fn=_np_blur,
             kwargs=dict(kernel_size=(5, 3), sigma=(2.0, 0.5))),
    OpRecord("gaussian_blur", shapes=((1, 2, 6, 5),), id="gaussian_blur-cf-even", np_fn=_np_blur,
             kwargs=dict(kernel_size=(4, 2), sigma=(1.5, 1.0), data_format="channels_first")),
    OpRecord("gaussian_blur", shapes=((1, 6, 6, 2),), id="gaussian_blur-uint8", np_fn=_np_blur,
             make=_uniform((1, 6, 6, 2)), dtypes=("uint8",)),
    OpRecord("sobel_edges", shapes=((2, 5, 6, 2),), np_fn=_np_sobel, dtypes=FLOATS),
    OpRecord("sobel_edges", shapes=((1, 3, 4, 5),), id="sobel_edges-cf", np_fn=_np_sobel,
             kwargs=dict(data_format="channels_first")),
    OpRecord("ssim", shapes=((2, 12, 13, 3), (2, 12, 13, 3)), np_fn=_np_ssim, tol=_SSIM_TOL,
             make=_ssim_pair((2, 12, 13, 3)), dtypes=FLOATS),
    OpRecord("ssim", shapes=((3, 8, 9), (3, 8, 9)), id="ssim-cf-unbatched-small-filter",
             np_fn=_np_ssim, tol=_SSIM_TOL, make=_ssim_pair((3, 8, 9), related=False),
             kwargs=dict(filter_size=5, filter_sigma=1.0, data_format="channels_first")),
    OpRecord("ssim", shapes=((1, 11, 11, 1), (1, 11, 11, 1)), id="ssim-uint8-max255",
             np_fn=_np_ssim, tol=_SSIM_TOL, make=_ssim_pair((1, 11, 11, 1)),
             kwargs=dict(max_val=255.0, k1=0.02, k2=0.04), dtypes=("uint8",)),
]
