"""Property strategies for `polyops.ops.image.sampling` (loaded by test_properties.py).

Images stay tiny (they run on all five backends); coordinates and transforms are
finite and drawn from a grid of quarter steps shifted off the .5 ties, so that
nearest sampling and integer rounding cannot depend on the last bit of float32.
"""

from __future__ import annotations

import numpy as np

XFAILS: dict = {}


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import FINITE, FLOATS, Case, Dom, T, arrays

    IMG_DTYPES = FLOATS + ("uint8", "int16", "int32")
    VALS = Dom(0, 5, specials=False)

    def off_grid(lo, hi):
        return st.integers(int(lo * 4), int(hi * 4)).map(lambda k: k / 4 + 0.0625)

    @st.composite
    def image(draw, batched=None, min_side=1):
        dtype = draw(st.sampled_from(IMG_DTYPES))
        batched = draw(st.booleans()) if batched is None else batched
        h, w, c = (draw(st.integers(min_side, 4)) for _ in range(3))
        df = draw(st.sampled_from((None, "channels_last", "channels_first")))
        hw = (h, w)
        shape = (hw + (c,)) if df != "channels_first" else ((c,) + hw)
        if batched:
            shape = (draw(st.integers(1, 2)),) + shape
        x = draw(arrays(dtype, shape, VALS if dtype not in FLOATS else FINITE))
        kw = {} if df is None else {"data_format": df}
        return x, kw, h, w

    @st.composite
    def resize_case(draw):
        x, kw, h, w = draw(image())
        size = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
        kw["interpolation"] = draw(st.sampled_from(("bilinear", "nearest", "bicubic", "lanczos3",
                                                    "lanczos5")))
        if draw(st.booleans()):
            kw["antialias"] = draw(st.booleans())
        extra = draw(st.sampled_from(("", "crop", "pad")))
        if extra == "crop":
            kw["crop_to_aspect_ratio"] = True
        elif extra == "pad":
            kw["pad_to_aspect_ratio"] = True
            kw["fill_value"] = draw(st.sampled_from((0.0, 1.25)))
        if x.dtype.kind in "iu":
            kw["interpolation"] = "nearest"  # no half-way rounding of values
        return Case("resize", [x], (T(0), size), kw)

    @st.composite
    def sat_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3))))
        x = draw(arrays(dtype, shape, FINITE))
        dims = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1,
                             max_size=len(shape)))
        out = list(shape)
        for d in dims:
            out[d] = draw(st.integers(1, 5))
        scale = np.array([draw(st.sampled_from((0.5, 0.75, 1.0, 1.5, 2.0))) for _ in dims], np.float32)
        shift = np.array([draw(off_grid(-1, 1)) for _ in dims], np.float32)
        method = draw(st.sampled_from(("linear", "cubic", "lanczos3", "lanczos5")))
        kw = {} if draw(st.booleans()) else {"antialias": draw(st.booleans())}
        return Case("scale_and_translate", [x, scale, shift],
                    (T(0), tuple(out), T(1), T(2), tuple(dims), method), kw)

    def fill_kw(draw, modes=True):
        kw = {"interpolation": draw(st.sampled_from(("nearest", "bilinear")))}
        if modes:
            kw["fill_mode"] = draw(st.sampled_from(("constant", "nearest", "wrap", "mirror",
                                                    "reflect")))
        kw["fill_value"] = draw(st.sampled_from((0.0, 2.0)))
        return kw

    @st.composite
    def affine_case(draw):
        x, kw, h, w = draw(image())
        n = x.shape[0] if x.ndim == 4 else 1
        rows = [[draw(off_grid(-1.5, 1.5)), draw(off_grid(-1, 1)), draw(off_grid(-3, 3)),
                 draw(off_grid(-1, 1)), draw(off_grid(-1.5, 1.5)), draw(off_grid(-3, 3)), 0.0, 0.0]
                for _ in range(n)]
        t = np.array(rows if (x.ndim == 4 or draw(st.booleans())) else rows[0], np.float32)
        kw.update(fill_kw(draw))
        if x.dtype.kind in "iu":
            kw["interpolation"] = "nearest"
        return Case("affine_transform", [x, t], (T(0), T(1)), kw)

    @st.composite
    def persp_case(draw):
        x, kw, h, w = draw(image())
        n = x.shape[0] if x.ndim == 4 else None
        base = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)

        def pts():
            return base + np.array([[draw(off_grid(-0.5, 0.5)) for _ in range(2)]
                                    for _ in range(4)], np.float32)

        s = np.stack([pts() for _ in range(n)]) if n else pts()
        e = np.stack([pts() for _ in range(n)]) if n else pts()
        kw.update(fill_kw(draw, modes=False))
        kw["interpolation"] = "bilinear"  # the homography is not exact in float32
        if x.dtype.kind in "iu":
            x = x.astype(np.float32)
        return Case("perspective_transform", [x, s, e], (T(0), T(1), T(2)), kw)

    @st.composite
    def map_case(draw):
        dtype = draw(st.sampled_from(IMG_DTYPES))
        shape = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3))))
        x = draw(arrays(dtype, shape, VALS if dtype not in FLOATS else FINITE))
        cshape = (len(shape),) + tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(1, 2))))
        c = np.array([draw(off_grid(-3, 6)) for _ in range(int(np.prod(cshape)))],
                     np.float32).reshape(cshape)
        order = 0 if dtype not in FLOATS else draw(st.sampled_from((0, 1)))
        kw = fill_kw(draw)
        del kw["interpolation"]
        return Case("map_coordinates", [x, c], (T(0), T(1), order), kw)

    @st.composite
    def elastic_case(draw):
        x, kw, h, w = draw(image())
        if x.dtype.kind in "iu":
            x = x.astype(np.float32)
        kw.update(fill_kw(draw))
        kw["interpolation"] = "bilinear"
        kw["alpha"] = draw(st.sampled_from((0.0, 1.0, 3.0)))
        kw["sigma"] = draw(st.sampled_from((0.5, 1.0)))
        kw["seed"] = draw(st.integers(0, 5))
        return Case("elastic_transform", [x], (T(0),), kw)

    return {
        "resize": resize_case(),
        "scale_and_translate": sat_case(),
        "affine_transform": affine_case(),
        "perspective_transform": persp_case(),
        "map_coordinates": map_case(),
        "elastic_transform": elastic_case(),
    }
