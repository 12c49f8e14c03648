"""Property strategies for `polyops.ops.numpy.statistics` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401

METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import (
        ANY, DTYPES, FLOATS, Case, Dom, T, WIDE, _dt, _neg, _prod_dom, arg_case, arrays, axes_arg,
        shapes,
    )

    ORDERED = DTYPES  # no complex in the shared dtype list

    def _canon(axis, ndim):
        if axis is None:
            return tuple(range(ndim))
        return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))

    @st.composite
    def reduction(draw, name, nonempty=False, dom=ANY):
        dtype = draw(st.sampled_from(ORDERED))
        shape = list(draw(shapes()))
        axis = axes_arg(draw, len(shape))
        if nonempty:
            for a in _canon(axis, len(shape)):
                shape[a] = max(shape[a], 1)
        d = _prod_dom(dtype, int(np.prod(shape))) if name == "nanprod" else dom
        x = draw(arrays(dtype, shape, d))
        kwargs = {}
        if axis is not None or draw(st.booleans()):
            kwargs["axis"] = axis
        if draw(st.booleans()):
            kwargs["keepdims"] = draw(st.booleans())
        return Case(name, [x], (T(0),), kwargs)

    @st.composite
    def nan_arg(draw, name):
        """argmax's cases, with all-NaN slices drawn in float inputs."""
        case = draw(arg_case(name))
        x = case.arrays[0]
        if _dt(x) in FLOATS and x.size and draw(st.booleans()):
            x = x.copy()
            x.reshape(-1)[: draw(st.integers(1, x.size))] = np.nan
            case = Case(name, [x], case.args, case.kwargs)
        return case

    @st.composite
    def q_case(draw, name, scale, nan_heavy):
        dtype = draw(st.sampled_from(ORDERED))
        shape = draw(shapes())
        x = draw(arrays(dtype, shape, ANY))
        if nan_heavy and dtype in FLOATS and x.size and draw(st.booleans()):
            x = x.copy()
            flat = x.reshape(-1)
            for i in draw(st.lists(st.integers(0, x.size - 1), max_size=x.size)):
                flat[i] = np.nan
        kwargs = {}
        axis = axes_arg(draw, len(shape))
        if axis is not None or draw(st.booleans()):
            kwargs["axis"] = axis
        if draw(st.booleans()):
            kwargs["keepdims"] = draw(st.booleans())
        if scale is None:  # median, nanmedian
            return Case(name, [x], (T(0),), kwargs)
        one = st.sampled_from((0, 1, 0.5, 0.25, 0.1, 0.3, 0.7, 1 / 3)) | st.floats(0, 1)
        one = one.map(lambda v: v * scale if scale != 1 and not isinstance(v, int) else v)
        q = draw(one | st.lists(one, min_size=1, max_size=3))
        if draw(st.booleans()):
            kwargs["method"] = draw(st.sampled_from(METHODS))
        return Case(name, [x], (T(0), q), kwargs)

    @st.composite
    def average_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        shape = list(draw(shapes()))
        x = draw(arrays(dtype, shape, ANY))
        kind = draw(st.sampled_from(("none", "int", "tuple")) if shape else st.just("none"))
        kwargs, axis = {}, None
        if kind == "int":
            axis = _neg(draw, draw(st.integers(0, len(shape) - 1)), len(shape))
            kwargs["axis"] = axis
        elif kind == "tuple":
            axis = axes_arg(draw, len(shape), allow_none=False)
            kwargs["axis"] = axis
        arrs = [x]
        weights = draw(st.sampled_from(("none", "full", "1d") if isinstance(axis, int) else ("none", "full")))
        if weights != "none":
            wdtype = draw(st.sampled_from(DTYPES))
            wshape = shape if weights == "full" else [shape[axis]]
            wdom = Dom(0, 3, specials=False) if draw(st.booleans()) else ANY
            arrs.append(draw(arrays(wdtype, wshape, wdom)))
            kwargs["weights"] = T(1)
        return Case("average", arrs, (T(0),), kwargs)

    @st.composite
    def corrcoef_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        rank = draw(st.integers(1, 2))
        shape = draw(shapes(min_rank=rank, max_rank=rank))
        # exact small values: products never underflow (no flush-to-zero differences)
        dom = Dom(-3, 3, choices=(-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0))
        return Case("corrcoef", [draw(arrays(dtype, shape, dom))], (T(0),))

    out = {
        "average": average_case(),
        "ptp": reduction("ptp", nonempty=True, dom=Dom(-50, 50)),
        "median": q_case("median", None, False),
        "nanmedian": q_case("nanmedian", None, True),
        "quantile": q_case("quantile", 1, False),
        "nanquantile": q_case("nanquantile", 1, True),
        "percentile": q_case("percentile", 100, False),
        "nanpercentile": q_case("nanpercentile", 100, True),
        "nanargmax": nan_arg("nanargmax"),
        "nanargmin": nan_arg("nanargmin"),
        "nanmax": reduction("nanmax", nonempty=True, dom=WIDE),
        "nanmin": reduction("nanmin", nonempty=True, dom=WIDE),
        "corrcoef": corrcoef_case(),
    }
    for name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd"):
        out[name] = reduction(name)
    return out
