"""Property strategies for `polyops.ops.image.basic` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401

FORMATS = ("channels_last", "channels_first")


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import ANY, FLOATS, Case, Dom, T, arrays

    UNIT = Dom(0, 1, specials=False)
    PIXELS = Dom(0, 100, specials=False)  # ints: no overflow in float32 and back

    def image_shape(draw, nd, ch, fmt, lo=1, hi=3, spatial=None):
        """(shape, spatial sizes) of an image (batched or not) with ``ch`` channels."""
        sp = spatial or [draw(st.integers(lo, hi)) for _ in range(nd)]
        core = list(sp) + [ch] if fmt == "channels_last" else [ch] + list(sp)
        if draw(st.booleans()):
            core = [draw(st.integers(1, 2))] + core
        return tuple(core)

    def fmt_kwargs(draw, fmt):
        if fmt == "channels_last" and draw(st.booleans()):
            return {}
        return {"data_format": fmt}

    @st.composite
    def color(draw, name, dtypes, channels=(3,)):
        dtype = draw(st.sampled_from(dtypes))
        fmt = draw(st.sampled_from(FORMATS))
        shape = image_shape(draw, 2, draw(st.sampled_from(channels)), fmt)
        x = draw(arrays(dtype, shape, UNIT if dtype in FLOATS else PIXELS))
        return Case(name, [x], (T(0),), fmt_kwargs(draw, fmt))

    def two_of_three(draw, names, values):
        drop = draw(st.integers(0, 2))
        return {n: v for i, (n, v) in enumerate(zip(names, values)) if i != drop}

    @st.composite
    def pad_case(draw):
        dtype = draw(st.sampled_from(("float32", "bfloat16", "int8", "uint8", "bool")))
        fmt = draw(st.sampled_from(FORMATS))
        h, w = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        x = draw(arrays(dtype, image_shape(draw, 2, draw(st.integers(1, 2)), fmt, spatial=(h, w)), ANY))
        t, b, l_, r = (draw(st.integers(0, 2)) for _ in range(4))
        kw = two_of_three(draw, ("top_padding", "bottom_padding", "target_height"), (t, b, t + h + b))
        kw.update(two_of_three(draw, ("left_padding", "right_padding", "target_width"), (l_, r, l_ + w + r)))
        kw.update(fmt_kwargs(draw, fmt))
        return Case("pad_images", [x], (T(0),), kw)

    @st.composite
    def crop_case(draw):
        dtype = draw(st.sampled_from(("float32", "float16", "int32", "uint8", "bool")))
        fmt = draw(st.sampled_from(FORMATS))
        h, w = draw(st.integers(0, 4)), draw(st.integers(0, 4))
        x = draw(arrays(dtype, image_shape(draw, 2, draw(st.integers(1, 2)), fmt, spatial=(h, w)), ANY))
        t = draw(st.integers(0, h))
        th = draw(st.integers(0, h - t))
        l_ = draw(st.integers(0, w))
        tw = draw(st.integers(0, w - l_))
        kw = two_of_three(draw, ("top_cropping", "bottom_cropping", "target_height"), (t, h - t - th, th))
        kw.update(two_of_three(draw, ("left_cropping", "right_cropping", "target_width"),
                               (l_, w - l_ - tw, tw)))
        kw.update(fmt_kwargs(draw, fmt))
        return Case("crop_images", [x], (T(0),), kw)

    @st.composite
    def patches_case(draw, name, nd):
        dtype = draw(st.sampled_from(("float32", "bfloat16", "int16", "uint8", "bool")))
        fmt = draw(st.sampled_from(FORMATS))
        size = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        strides = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        dil = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        padding = draw(st.sampled_from(("valid", "same")))
        hi = 4 if nd == 2 else 3
        sp = [draw(st.integers((k - 1) * d + 1, max(hi, (k - 1) * d + 1))) for k, d in zip(size, dil)]
        x = draw(arrays(dtype, image_shape(draw, nd, draw(st.integers(1, 2)), fmt, spatial=sp), ANY))
        kw = {"strides": strides, "dilation_rate": dil, "padding": padding}
        if draw(st.booleans()):
            kw = {"strides": None} if draw(st.booleans()) else {}
        kw.update(fmt_kwargs(draw, fmt))
        arg = size[0] if len(set(size)) == 1 and nd == 2 and draw(st.booleans()) else size
        return Case(name, [x], (T(0), arg), kw)

    @st.composite
    def reconstruct_case(draw):
        dtype = draw(st.sampled_from(("float32", "float16", "int32", "bool")))
        fmt = draw(st.sampled_from(FORMATS))
        nd = draw(st.sampled_from((2, 2, 3)))
        size = tuple(draw(st.integers(1, 2)) for _ in range(nd))
        c = draw(st.integers(1, 2))
        grid = [draw(st.integers(1, 2)) for _ in range(nd)]
        shape = image_shape(draw, nd, c * int(np.prod(size)), fmt, spatial=grid)
        x = draw(arrays(dtype, shape, ANY))
        return Case("reconstruct_patches", [x], (T(0), size), fmt_kwargs(draw, fmt))

    @st.composite
    def blur_case(draw):
        dtype = draw(st.sampled_from(FLOATS + ("uint8", "int16")))
        fmt = draw(st.sampled_from(FORMATS))
        x = draw(arrays(dtype, image_shape(draw, 2, draw(st.integers(1, 2)), fmt, hi=4),
                        Dom(-5, 5, specials=False) if dtype in FLOATS else PIXELS))
        kw = {}
        if draw(st.booleans()):
            kw["kernel_size"] = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        if draw(st.booleans()):
            kw["sigma"] = (draw(st.floats(0.5, 2.0)), draw(st.floats(0.5, 2.0)))
        kw.update(fmt_kwargs(draw, fmt))
        return Case("gaussian_blur", [x], (T(0),), kw)

    @st.composite
    def sobel_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        fmt = draw(st.sampled_from(FORMATS))
        sp = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        c = draw(st.integers(1, 2))
        shape = (draw(st.integers(1, 2)),) + (sp + (c,) if fmt == "channels_last" else (c,) + sp)
        x = draw(arrays(dtype, shape, Dom(-5, 5, specials=False)))
        return Case("sobel_edges", [x], (T(0),), fmt_kwargs(draw, fmt))

    @st.composite
    def ssim_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        fmt = draw(st.sampled_from(FORMATS))
        fs = draw(st.integers(1, 3))
        sp = (draw(st.integers(fs, 4)), draw(st.integers(fs, 4)))
        shape = image_shape(draw, 2, draw(st.integers(1, 2)), fmt, spatial=sp)
        a = draw(arrays(dtype, shape, UNIT))
        b = draw(arrays(dtype, shape, UNIT))
        kw = {"filter_size": fs, "filter_sigma": draw(st.floats(0.5, 2.0))}
        kw.update(fmt_kwargs(draw, fmt))
        return Case("ssim", [a, b], (T(0), T(1)), kw)

    return {
        "rgb_to_grayscale": color("rgb_to_grayscale", FLOATS + ("uint8", "int32"), (1, 3)),
        "rgb_to_hsv": color("rgb_to_hsv", FLOATS),
        "hsv_to_rgb": color("hsv_to_rgb", FLOATS),
        "pad_images": pad_case(),
        "crop_images": crop_case(),
        "extract_patches": st.one_of(patches_case("extract_patches", 2),
                                     patches_case("extract_patches", 3)),
        "extract_patches_3d": patches_case("extract_patches_3d", 3),
        "reconstruct_patches": reconstruct_case(),
        "gaussian_blur": blur_case(),
        "sobel_edges": sobel_case(),
        "ssim": ssim_case(),
    }
