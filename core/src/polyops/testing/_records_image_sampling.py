"""Op records of `polyops.ops.image.sampling` (see `polyops.testing._records` for the fields).

Expected values are independent NumPy/SciPy computations: resampling weights written
out per output sample (the jax.image kernels), and ``scipy.ndimage.map_coordinates``
for the warps (polyops's "constant" and "wrap" modes are SciPy's "grid-constant" and
"grid-wrap").
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
_SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap", "nearest": "nearest",
               "mirror": "mirror", "reflect": "reflect"}


def _npd(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _back(y, like_dtype, half_even=False):
    """float64 result -> the input dtype (ints rounded and saturated)."""
    d = np.dtype(like_dtype)
    if np.issubdtype(d, np.integer):
        info = np.iinfo(d)
        y = np.round(y) if half_even else np.sign(y) * np.floor(np.abs(y) + 0.5)
        return np.clip(y, info.min, info.max).astype(d)
    return y


# -- separable resampling -------------------------------------------------------------

def _kern(kind, x):
    x = abs(x)
    if kind == "linear":
        return max(0.0, 1.0 - x)
    if kind == "cubic":  # Keys, a = -0.5
        if x < 1:
            return 1.5 * x ** 3 - 2.5 * x ** 2 + 1
        if x < 2:
            return -0.5 * x ** 3 + 2.5 * x ** 2 - 4 * x + 2
        return 0.0
    r = 3 if kind == "lanczos3" else 5
    if x > r:
        return 0.0
    if x <= 1e-3:
        return 1.0
    return r * np.sin(np.pi * x) * np.sin(np.pi * x / r) / (np.pi ** 2 * x ** 2)


def _weights(m, n, scale, shift, kind, antialias):
    """(n, m): output sample i reads input j with weight W[i, j] (half-pixel centres)."""
    width = max(1.0 / scale, 1.0) if antialias else 1.0
    w = np.zeros((n, m))
    for i in range(n):
        centre = (i + 0.5 - shift) / scale - 0.5
        if not -0.5 <= centre <= m - 0.5:
            continue
        row = np.array([_kern(kind, (centre - j) / width) for j in range(m)])
        total = row.sum()
        if abs(total) > 1000 * np.finfo(np.float32).eps:
            w[i] = row / total
    return w


def _resample(x, axis, w):
    return np.moveaxis(np.tensordot(w, np.moveaxis(x, axis, 0), axes=(1, 0)), 0, axis)


_KIND = {"bilinear": "linear", "linear": "linear", "bicubic": "cubic", "cubic": "cubic",
         "lanczos3": "lanczos3", "lanczos5": "lanczos5"}


def _np_resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
               pad_to_aspect_ratio=False, fill_value=0.0, data_format="channels_last"):
    x = images.astype(np.float64)
    cl = data_format == "channels_last"
    ha, wa = (x.ndim - 3, x.ndim - 2) if cl else (x.ndim - 2, x.ndim - 1)
    h, w = x.shape[ha], x.shape[wa]
    th, tw = size
    if crop_to_aspect_ratio:
        ch = max(min(h, int(w * th / tw)), 1)
        cw = max(min(w, int(h * tw / th)), 1)
        t0, l0 = (h - ch) // 2, (w - cw) // 2
        x = np.take(np.take(x, range(t0, t0 + ch), ha), range(l0, l0 + cw), wa)
    elif pad_to_aspect_ratio:
        ph, pw = max(h, int(w * th / tw)), max(w, int(h * tw / th))
        t0, l0 = (ph - h) // 2, (pw - w) // 2
        pad = [(0, 0)] * x.ndim
        if t0 > 0:
            pad[ha] = (t0, t0)
        elif l0 > 0:
            pad[wa] = (l0, l0)
        x = np.pad(x, pad, constant_values=fill_value)
    for axis, n in ((ha, th), (wa, tw)):
        m = x.shape[axis]
        if m == n:
            continue
        if interpolation == "nearest":
            idx = np.minimum(np.floor((np.arange(n) + 0.5) * m / n).astype(int), m - 1)
            x = np.take(x, idx, axis)
        else:
            x = _resample(x, axis, _weights(m, n, n / m, 0.0, _KIND[interpolation], antialias))
    return _back(x, images.dtype, half_even=True)


def _img(shape, lo=0.0, hi=1.0):
    def make(dtype, rng):
        if np.issubdtype(np.dtype("float32" if dtype == "bfloat16" else dtype), np.integer):
            return [rng.integers(0, 200, shape).astype(dtype)]
        return [rng.uniform(lo, hi, shape).astype(np.float32).astype(_npd(dtype))]
    return make


_FL = ("float32", "float16", "bfloat16")
RECORDS += [
    OpRecord("resize", shapes=((2, 5, 6, 3),), make=_img((2, 5, 6, 3)), dtypes=_FL,
             kwargs=dict(size=(3, 4)), np_fn=_np_resize),
    # 2x bilinear upsampling: weights 1/4, 3/4, exact in float32, so ints round alike
    OpRecord("resize", shapes=((4, 4, 2),), make=_img((4, 4, 2)), dtypes=("uint8", "int32"),
             kwargs=dict(size=(8, 8)), np_fn=_np_resize, id="resize-int-up2"),
    OpRecord("resize", shapes=((2, 3, 5, 4),), make=_img((2, 3, 5, 4)), id="resize-nearest-cf",
             kwargs=dict(size=(7, 3), interpolation="nearest", data_format="channels_first"),
             np_fn=_np_resize, dtypes=("float32", "uint8")),
    OpRecord("resize", shapes=((6, 7, 2),), make=_img((6, 7, 2)), id="resize-bicubic-aa",
             kwargs=dict(size=(4, 3), interpolation="bicubic", antialias=True), np_fn=_np_resize),
    OpRecord("resize", shapes=((5, 4, 1),), make=_img((5, 4, 1)), id="resize-lanczos3",
             kwargs=dict(size=(9, 6), interpolation="lanczos3"), np_fn=_np_resize),
    OpRecord("resize", shapes=((1, 8, 5, 2),), make=_img((1, 8, 5, 2)), id="resize-lanczos5-aa",
             kwargs=dict(size=(3, 2), interpolation="lanczos5", antialias=True), np_fn=_np_resize),
    OpRecord("resize", shapes=((6, 3, 2),), make=_img((6, 3, 2)), id="resize-crop",
             kwargs=dict(size=(4, 4), crop_to_aspect_ratio=True), np_fn=_np_resize),
    OpRecord("resize", shapes=((6, 3, 2),), make=_img((6, 3, 2)), id="resize-pad",
             kwargs=dict(size=(4, 4), pad_to_aspect_ratio=True, fill_value=0.5), np_fn=_np_resize),
    OpRecord("resize", shapes=((2, 2, 3, 5),), make=_img((2, 2, 3, 5)), id="resize-pad-cf-width",
             kwargs=dict(size=(6, 2), pad_to_aspect_ratio=True, data_format="channels_first"),
             np_fn=_np_resize),
    OpRecord("resize", shapes=((0, 4, 4, 3),), make=_img((0, 4, 4, 3)), id="resize-empty-batch",
             kwargs=dict(size=(2, 2)), np_fn=_np_resize),
]


def _np_sat(images, output_shape, scale, translation, spatial_dims, method, antialias=True):
    x = images.astype(np.float64)
    for i, d in enumerate(spatial_dims):
        x = _resample(x, d, _weights(x.shape[d], output_shape[d], float(scale[i]),
                                     float(translation[i]), _KIND[method], antialias))
    return x


def _sat(shape, scale, shift, **kw):
    kw.update(scale=np.array(scale, np.float32), translation=np.array(shift, np.float32))
    return dict(shapes=(shape,), make=_img(shape), kwargs=kw, np_fn=_np_sat)


# scale and translation are tensors, passed as keywords (the records' tensors come first).
RECORDS += [
    OpRecord("scale_and_translate", dtypes=_FL + ("uint8",),
             **_sat((2, 5, 6, 3), [1.7, 0.6], [0.3, -1.2], output_shape=(2, 7, 4, 3),
                    spatial_dims=(1, 2), method="cubic")),
    OpRecord("scale_and_translate", id="scale_and_translate-noaa",
             **_sat((6, 5), [0.5], [0.25], output_shape=(3, 5), spatial_dims=(0,),
                    method="lanczos3", antialias=False)),
    OpRecord("scale_and_translate", id="scale_and_translate-linear",
             **_sat((3, 4), [2.0, 1.5], [-0.5, 0.0], output_shape=(5, 6), spatial_dims=(0, 1),
                    method="bilinear")),
    OpRecord("scale_and_translate", id="scale_and_translate-lanczos5-negaxis",
             **_sat((2, 9, 3), [0.4], [1.0], output_shape=(2, 4, 3), spatial_dims=(-2,),
                    method="lanczos5")),
]


# -- warps ------------------------------------------------------------------------------

def _scipy_map(x2d, coords, order, mode, cval):
    from scipy import ndimage

    return ndimage.map_coordinates(x2d.astype(np.float64), coords.astype(np.float64), order=order,
                                   mode=_SCIPY_MODE[mode], cval=cval)


def _nhwc_batch(images, data_format):
    """(x, single): images as a channels_last batch; single when they had no batch axis."""
    x = images if data_format == "channels_last" else np.moveaxis(images, -3, -1)
    single = x.ndim == 3
    return (x[None] if single else x), single


def _from_nhwc_batch(out, single, data_format, dtype):
    """Undo `_nhwc_batch` on out and cast it back to dtype."""
    if single:
        out = out[0]
    if data_format != "channels_last":
        out = np.moveaxis(out, -1, -3)
    return _back(out, dtype)


def _warp_np(images, coeffs, order, mode, cval, data_format):
    """coeffs: (B or 1, 8) projective transforms mapping output (x, y) to input."""
    x, single = _nhwc_batch(images, data_format)
    b, h, w, c = x.shape
    gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    out = np.zeros(x.shape)
    for i in range(b):
        a0, a1, a2, b0, b1, b2, c0, c1 = coeffs[i if len(coeffs) > 1 else 0].astype(np.float64)
        k = c0 * gx + c1 * gy + 1
        coords = np.stack([(b0 * gx + b1 * gy + b2) / k, (a0 * gx + a1 * gy + a2) / k])
        for ch in range(c):
            out[i, ..., ch] = _scipy_map(x[i, ..., ch], coords, order, mode, cval)
    return _from_nhwc_batch(out, single, data_format, images.dtype)


def _np_affine(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
               data_format="channels_last"):
    t = np.asarray(transform).reshape(-1, 8)
    return _warp_np(images, t, 0 if interpolation == "nearest" else 1, fill_mode, fill_value,
                    data_format)


def _affine_make(shape, transform):
    def make(dtype, rng):
        return [_img(shape, -2, 2)(dtype, rng)[0], np.array(transform, np.float32)]
    return make


_T1 = [1.1, 0.2, -0.7, -0.15, 0.9, 0.8, 0.0, 0.0]
_T2 = [[0.8, 0.3, 1.3, 0.1, 1.2, -1.6, 0.0, 0.0], [1.0, 0.0, -2.3, 0.0, 1.0, 1.4, 0.0, 0.0]]
RECORDS += [
    OpRecord("affine_transform", shapes=((2, 5, 6, 3), (2, 8)), dtypes=_FL,
             make=_affine_make((2, 5, 6, 3), _T2), np_fn=_np_affine),
    # ints compare exactly: nearest sampling has no rounding of values to disagree on
    OpRecord("affine_transform", shapes=((2, 5, 6, 3), (2, 8)), dtypes=("uint8", "int32"),
             make=_affine_make((2, 5, 6, 3), _T2), np_fn=_np_affine, id="affine_transform-int",
             kwargs=dict(interpolation="nearest")),
    OpRecord("affine_transform", shapes=((5, 6, 2), (8,)), id="affine_transform-nearest-wrap",
             make=_affine_make((5, 6, 2), [1.13, 0.21, -3.7, -0.17, 0.93, 6.9, 0, 0]),
             kwargs=dict(interpolation="nearest", fill_mode="wrap"), np_fn=_np_affine),
    OpRecord("affine_transform", shapes=((2, 3, 4, 5), (1, 8)), id="affine_transform-cf-fill",
             make=_affine_make((2, 3, 4, 5), [_T1]),
             kwargs=dict(fill_value=-1.5, data_format="channels_first"), np_fn=_np_affine),
    OpRecord("affine_transform", shapes=((4, 5, 1), (8,)), id="affine_transform-projective",
             make=_affine_make((4, 5, 1), [0.9, 0.1, 0.3, 0.05, 1.1, -0.4, 0.03, -0.02]),
             kwargs=dict(fill_mode="nearest"), np_fn=_np_affine),
]
for _mode in ("mirror", "reflect"):
    RECORDS.append(OpRecord(
        "affine_transform", shapes=((5, 4, 2), (8,)), id=f"affine_transform-{_mode}",
        make=_affine_make((5, 4, 2), [1.3, -0.2, -2.1, 0.3, 1.4, -1.8, 0, 0]),
        kwargs=dict(fill_mode=_mode), np_fn=_np_affine))


def _homography(start, end):
    """8 coefficients mapping end points to start points (the 8x8 linear system)."""
    a, rhs = [], []
    for (sx, sy), (ex, ey) in zip(start, end):
        a.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rhs.append(sx)
    for (sx, sy), (ex, ey) in zip(start, end):
        a.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs.append(sy)
    return np.linalg.solve(np.array(a, np.float64), np.array(rhs, np.float64))


def _np_persp(images, start_points, end_points, interpolation="bilinear", fill_value=0,
              data_format="channels_last"):
    s = np.asarray(start_points, np.float64).reshape(-1, 4, 2)
    e = np.asarray(end_points, np.float64).reshape(-1, 4, 2)
    coeffs = np.stack([_homography(si, ei) for si, ei in zip(s, e)])
    return _warp_np(images, coeffs, 0 if interpolation == "nearest" else 1, "constant", fill_value,
                    data_format)


def _persp_make(shape, start, end):
    def make(dtype, rng):
        return [_img(shape, -2, 2)(dtype, rng)[0], np.array(start, np.float32),
                np.array(end, np.float32)]
    return make


_S = [[0, 0], [0, 5], [6, 0], [6, 5]]
_E = [[0.3, 0.5], [0.7, 5.2], [5.6, -0.4], [6.4, 4.6]]
RECORDS += [
    OpRecord("perspective_transform", shapes=((5, 6, 3), (4, 2), (4, 2)), dtypes=_FL + ("uint8",),
             make=_persp_make((5, 6, 3), _S, _E), np_fn=_np_persp),
    OpRecord("perspective_transform", shapes=((2, 2, 5, 6), (2, 4, 2), (2, 4, 2)),
             id="perspective_transform-batch-cf",
             make=_persp_make((2, 2, 5, 6), [_S, _S], [_E, [[1.1, 0.9], [0.2, 4.1], [5.3, 0.7], [6.8, 5.3]]]),
             kwargs=dict(fill_value=0.7, data_format="channels_first"), np_fn=_np_persp),
]


def _np_map(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    return _back(_scipy_map(inputs, coordinates, order, fill_mode, fill_value), inputs.dtype)


def _map_make(shape, cshape, lo, hi):
    def make(dtype, rng):
        return [_img(shape, -2, 2)(dtype, rng)[0],
                rng.uniform(lo, hi, cshape).astype(np.float32)]
    return make


RECORDS += [
    OpRecord("map_coordinates", shapes=((4, 5), (2, 3, 4)), dtypes=_FL + ("uint8", "int16"),
             make=_map_make((4, 5), (2, 3, 4), -1.5, 5.5), pre=(), kwargs=dict(order=1),
             np_fn=_np_map),
]
for _order in (0, 1):
    for _mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
        RECORDS.append(OpRecord(
            "map_coordinates", shapes=((3, 4, 2), (3, 7)), id=f"map_coordinates-{_order}-{_mode}",
            make=_map_make((3, 4, 2), (3, 7), -4.7, 8.3),
            kwargs=dict(order=_order, fill_mode=_mode, fill_value=2.5), np_fn=_np_map))
RECORDS += [
    OpRecord("map_coordinates", shapes=((6,), (1, 2, 0)), id="map_coordinates-empty-coords",
             make=_map_make((6,), (1, 2, 0), 0, 5), kwargs=dict(order=1), np_fn=_np_map),
    OpRecord("map_coordinates", shapes=((1, 5), (2, 4)), id="map_coordinates-size1-mirror",
             make=_map_make((1, 5), (2, 4), -2.3, 6.2), kwargs=dict(order=1, fill_mode="mirror"),
             np_fn=_np_map),
]


def _np_elastic(images, alpha=20.0, sigma=5.0, interpolation="bilinear", fill_mode="reflect",
                fill_value=0.0, seed=None, data_format="channels_last"):
    from scipy import ndimage

    x, single = _nhwc_batch(images, data_format)
    b, h, w, c = x.shape
    rng = np.random.default_rng(seed)
    dx = rng.standard_normal((b, h, w)) * sigma
    dy = rng.standard_normal((b, h, w)) * sigma
    size = int(6 * sigma) | 1
    t = np.arange(size) - (size - 1) / 2
    k = np.exp(-0.5 * (t / sigma) ** 2)
    k /= k.sum()

    def blur(f):
        f = ndimage.correlate1d(f, k, axis=1, mode="constant")
        return ndimage.correlate1d(f, k, axis=2, mode="constant")

    dx, dy = blur(dx), blur(dy)
    gy, gx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    out = np.zeros(x.shape)
    order = 0 if interpolation == "nearest" else 1
    for i in range(b):
        coords = np.stack([gy + alpha * dy[i], gx + alpha * dx[i]])
        for ch in range(c):
            out[i, ..., ch] = _scipy_map(x[i, ..., ch], coords, order, fill_mode, fill_value)
    return _from_nhwc_batch(out, single, data_format, images.dtype)


RECORDS += [
    OpRecord("elastic_transform", shapes=((2, 6, 7, 3),), make=_img((2, 6, 7, 3)),
             dtypes=_FL + ("uint8",), kwargs=dict(alpha=3.0, sigma=1.2, seed=7),
             np_fn=_np_elastic),
    OpRecord("elastic_transform", shapes=((2, 5, 4),), make=_img((2, 5, 4)),
             id="elastic_transform-cf-constant",
             kwargs=dict(alpha=4.0, sigma=0.8, fill_mode="constant", fill_value=0.25, seed=3,
                         data_format="channels_first"), np_fn=_np_elastic),
    OpRecord("elastic_transform", shapes=((5, 5, 1),), make=_img((5, 5, 1)),
             id="elastic_transform-nearest-wrap",
             kwargs=dict(alpha=2.0, sigma=1.0, interpolation="nearest", fill_mode="wrap", seed=11),
             np_fn=_np_elastic),
]
