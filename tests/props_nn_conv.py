"""Property strategies for `polyops.ops.nn.conv` (loaded by test_properties.py).

Values are small dyadic numbers (and small ints), so every sum of products is exact
in float32 whatever the order of accumulation: backends must then agree exactly up to
the final rounding.  No NaN/inf: the windows of the native pools differ in NaN handling
only through the order of comparisons, which Keras does not specify.
"""

from __future__ import annotations



def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import FLOATS, Case, Dom, T, arrays

    DOM = Dom(-2, 2, specials=False, choices=(-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5))
    DTS = FLOATS + ("int8", "int32", "bool")
    FMTS = ("channels_last", "channels_first")

    def _shape(n, spatial, c, fmt):
        return (n, *spatial, c) if fmt == "channels_last" else (n, c, *spatial)

    @st.composite
    def conv_case(draw, name):
        nd = draw(st.integers(1, 3 if name != "separable_conv" else 2))
        fmt = draw(st.sampled_from(FMTS))
        padding = draw(st.sampled_from(("valid", "same")))
        ks = [draw(st.integers(1, 3)) for _ in range(nd)]
        dil = draw(st.sampled_from((1, 2)))
        strides = 1 if dil > 1 else draw(st.sampled_from((1, 2)))
        spatial = [draw(st.integers((k - 1) * dil + 1, (k - 1) * dil + 3)) for k in ks]
        n = draw(st.integers(1, 2))
        dtype = draw(st.sampled_from(DTS))
        kw = {"strides": strides, "padding": padding, "data_format": fmt, "dilation_rate": dil}
        if name == "conv":
            g = draw(st.integers(1, 2))
            cin_g = draw(st.integers(1, 2))
            cout = g * draw(st.integers(1, 2))
            x = draw(arrays(dtype, _shape(n, spatial, g * cin_g, fmt), DOM))
            k = draw(arrays(dtype, (*ks, cin_g, cout), DOM))
            return Case(name, [x, k], (T(0), T(1)), kw)
        if name == "conv_transpose":
            cin, f = draw(st.integers(1, 2)), draw(st.integers(1, 3))
            if strides > 1 and draw(st.booleans()):
                kw["output_padding"] = draw(st.integers(0, strides - 1))
            x = draw(arrays(dtype, _shape(n, [draw(st.integers(1, 3)) for _ in ks], cin, fmt), DOM))
            k = draw(arrays(dtype, (*ks, f, cin), DOM))
            return Case(name, [x, k], (T(0), T(1)), kw)
        cin, m = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        x = draw(arrays(dtype, _shape(n, spatial, cin, fmt), DOM))
        k = draw(arrays(dtype, (*ks, cin, m), DOM))
        if name == "depthwise_conv":
            return Case(name, [x, k], (T(0), T(1)), kw)
        p = draw(arrays(dtype, (*([1] * nd), cin * m, draw(st.integers(1, 3))), DOM))
        return Case(name, [x, k, p], (T(0), T(1), T(2)), kw)

    @st.composite
    def pool_case(draw, name):
        nd = draw(st.integers(1, 3))
        fmt = draw(st.sampled_from(FMTS))
        padding = draw(st.sampled_from(("valid", "same")))
        pool = [draw(st.integers(1, 3)) for _ in range(nd)]
        spatial = [draw(st.integers(k, k + 3)) for k in pool]
        x = draw(arrays(draw(st.sampled_from(DTS)), _shape(draw(st.integers(1, 2)), spatial,
                                                           draw(st.integers(1, 2)), fmt), DOM))
        kw = {"padding": padding, "data_format": fmt}
        if draw(st.booleans()):
            kw["strides"] = draw(st.sampled_from((1, 2)))
        return Case(name, [x], (T(0), pool), kw)

    @st.composite
    def adaptive_case(draw, name):
        nd = draw(st.integers(1, 3))
        fmt = draw(st.sampled_from(FMTS))
        spatial = [draw(st.integers(1, 5)) for _ in range(nd)]
        out = tuple(draw(st.integers(1, 4)) for _ in range(nd))
        x = draw(arrays(draw(st.sampled_from(DTS)), _shape(1, spatial, 2, fmt), DOM))
        return Case(name, [x], (T(0),), {"output_size": out, "data_format": fmt})

    @st.composite
    def unfold_case(draw, name):
        k = (draw(st.integers(1, 3)), draw(st.integers(1, 2)))
        d = draw(st.sampled_from((1, 2)))
        p = draw(st.integers(0, 1))
        s = draw(st.sampled_from((1, 2)))
        hw = [draw(st.integers(max((kk - 1) * d + 1 - 2 * p, 1), 5)) for kk in k]
        kw = {"kernel_size": k, "dilation": d, "padding": p, "stride": s}
        dtype = draw(st.sampled_from(DTS))
        if name == "unfold":
            x = draw(arrays(dtype, (1, draw(st.integers(1, 2)), *hw), DOM))
            return Case(name, [x], (T(0),), kw)
        nb = [(n + 2 * p - d * (kk - 1) - 1) // s + 1 for n, kk in zip(hw, k)]
        c = draw(st.integers(1, 2))
        x = draw(arrays(dtype, (1, c * k[0] * k[1], nb[0] * nb[1]), DOM))
        return Case(name, [x], (T(0),), {"output_size": tuple(hw), **kw})

    @st.composite
    def d2s_case(draw, name):
        b = draw(st.integers(2, 3))
        fmt = draw(st.sampled_from(FMTS))
        h, w = draw(st.integers(0, 2)), draw(st.integers(1, 2))
        c = draw(st.integers(1, 2))
        if name == "depth_to_space":
            shape = _shape(1, (h, w), c * b * b, fmt)
        else:
            shape = _shape(1, (h * b, w * b), c, fmt)
        x = draw(arrays(draw(st.sampled_from(DTS)), shape, DOM))
        return Case(name, [x], (T(0), b), {"data_format": fmt})

    out = {}
    for name in ("conv", "depthwise_conv", "separable_conv", "conv_transpose"):
        out[name] = conv_case(name)
    for name in ("max_pool", "average_pool"):
        out[name] = pool_case(name)
    for name in ("adaptive_max_pool", "adaptive_average_pool"):
        out[name] = adaptive_case(name)
    for name in ("unfold", "fold"):
        out[name] = unfold_case(name)
    for name in ("depth_to_space", "space_to_depth"):
        out[name] = d2s_case(name)
    return out
