"""Property strategies for `polyops.ops.nn.normalization` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np

XFAILS: dict = {}  # filled by strategies() (the Case class lives in test_properties)


def _xfails():
    from test_properties import Case, T

    one = np.ones((2,), np.float32)
    case = Case("polar", [one, one], (T(0), T(1)))
    return {
        ("polar", "openvino"): ("openvino has no complex dtype: polar raises TypeError there by design", case),
    }


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import FLOATS, Case, Dom, T, arrays, axes_arg, shapes

    XFAILS.update(_xfails())
    vals = Dom(-3, 3, specials=False)
    pos = Dom(0.5, 3, specials=False)
    real = FLOATS + ("int32", "int8")

    @st.composite
    def moments(draw):
        dtype = draw(st.sampled_from(real))
        shape = draw(shapes(min_rank=1, min_side=1))
        axes = axes_arg(draw, len(shape), allow_none=False)
        if axes == ():
            axes = (0,)
        kwargs = {"axes": list(axes) if isinstance(axes, tuple) and draw(st.booleans()) else axes}
        if draw(st.booleans()):
            kwargs["keepdims"] = draw(st.booleans())
        return Case("moments", [draw(arrays(dtype, shape, vals))], (T(0),), kwargs)

    @st.composite
    def batch_norm(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(shapes(min_rank=1))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        c = (shape[axis],)
        arrs = [draw(arrays(dtype, shape, vals)), draw(arrays(dtype, c, vals)), draw(arrays(dtype, c, pos))]
        kwargs = {"axis": axis}
        for name in ("offset", "scale"):
            if draw(st.booleans()):
                kwargs[name] = T(len(arrs))
                arrs.append(draw(arrays(dtype, c, vals)))
        if draw(st.booleans()):
            kwargs["epsilon"] = draw(st.sampled_from((1e-3, 0.1, 1.0)))
        return Case("batch_normalization", arrs, (T(0), T(1), T(2)), kwargs)

    @st.composite
    def normalize(draw):
        dtype = draw(st.sampled_from(real))
        shape = draw(shapes(min_rank=1))
        kwargs = {"axis": axes_arg(draw, len(shape), allow_none=True)}
        if kwargs["axis"] == ():
            kwargs["axis"] = -1
        kwargs["order"] = draw(st.sampled_from((1, 2, 2, 3)))
        if draw(st.booleans()):
            kwargs["epsilon"] = draw(st.sampled_from((1e-3, 0.5)))
        return Case("normalize", [draw(arrays(dtype, shape, vals))], (T(0),), kwargs)

    @st.composite
    def psnr(draw):
        dtype = draw(st.sampled_from(real))
        shape = draw(shapes(min_side=1))
        a, b = draw(arrays(dtype, shape, Dom(0, 3, specials=False))), draw(arrays(dtype, shape, Dom(0, 3, specials=False)))
        return Case("psnr", [a, b], (T(0), T(1)), {"max_val": draw(st.sampled_from((1.0, 3, 255.0)))})

    @st.composite
    def attention(draw):
        dtype = draw(st.sampled_from(FLOATS))
        b, t, s, h = (draw(st.integers(1, 3)) for _ in range(4))
        k = draw(st.integers(1, 2))
        n = k * draw(st.integers(1, 2))
        arrs = [draw(arrays(dtype, (b, t, n, h), vals)), draw(arrays(dtype, (b, s, k, h), vals)),
                draw(arrays(dtype, (b, s, k, h), vals))]
        kwargs = {}
        if draw(st.booleans()):
            kwargs["bias"] = T(len(arrs))
            arrs.append(draw(arrays(dtype, (1, n, t, s), vals)))
        if draw(st.booleans()):
            kwargs["mask"] = T(len(arrs))
            arrs.append(draw(arrays("bool", (t, s))))
        if draw(st.booleans()):
            kwargs["is_causal"] = True
        if draw(st.booleans()):
            kwargs["scale"] = draw(st.sampled_from((0.5, 1.0)))
        if draw(st.integers(0, 3)) == 0:
            kwargs["attn_logits_soft_cap"] = 2.0
        return Case("dot_product_attention", arrs, (T(0), T(1), T(2)), kwargs)

    @st.composite
    def rms(draw):
        dtype = draw(st.sampled_from(real))
        shape = draw(shapes(min_rank=1))
        axis = axes_arg(draw, len(shape), allow_none=False)
        if axis == ():
            axis = -1
        arrs, kwargs = [draw(arrays(dtype, shape, vals))], {"axis": axis}
        if draw(st.booleans()):
            kwargs["scale"] = T(1)
            arrs.append(draw(arrays(dtype, shape[-1:], vals)))
        if draw(st.booleans()):
            kwargs["epsilon"] = 1e-3
        return Case("rms_normalization", arrs, (T(0),), kwargs)

    @st.composite
    def layer_norm(draw):
        dtype = draw(st.sampled_from(real))
        shape = draw(shapes(min_rank=1))
        axis = axes_arg(draw, len(shape), allow_none=False)
        if axis == ():
            axis = -1
        ax = sorted(a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis))
        vec = tuple(shape[a] for a in ax)
        arrs, kwargs = [draw(arrays(dtype, shape, vals))], {"axis": axis}
        for name in ("gamma", "beta"):
            if draw(st.booleans()):
                kwargs[name] = T(len(arrs))
                arrs.append(draw(arrays(dtype, vec, vals)))
        if draw(st.booleans()):
            kwargs["epsilon"] = 1e-3
        if draw(st.integers(0, 3)) == 0:
            kwargs["rms_scaling"] = True
        return Case("layer_normalization", arrs, (T(0),), kwargs)

    @st.composite
    def polar(draw):
        d1, d2 = draw(st.sampled_from(real)), draw(st.sampled_from(real))
        shape = draw(shapes())
        shape2 = shape[1:] if shape and draw(st.booleans()) else shape
        return Case("polar", [draw(arrays(d1, shape, vals)), draw(arrays(d2, shape2, vals))], (T(0), T(1)))

    return {
        "moments": moments(),
        "batch_normalization": batch_norm(),
        "normalize": normalize(),
        "psnr": psnr(),
        "dot_product_attention": attention(),
        "rms_normalization": rms(),
        "layer_normalization": layer_norm(),
        "polar": polar(),
    }
