"""Property strategies for `polyops.ops.nn.activations` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401

# Elementwise activations without static arguments take test_properties.default_strategy;
# these cannot overflow (or are computed so that they do not), so they also see each
# dtype's whole finite range.
PLAIN_WIDE = ("relu6", "softplus", "log_sigmoid", "hard_tanh")


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import ANY, DTYPES, FINITE, WIDE, Case, T, _neg, arrays, shapes, unary_case

    real = st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False, allow_subnormal=False)

    @st.composite
    def with_arg(draw, name, arg, values, dom=ANY):
        case = draw(unary_case(name, dom_of=lambda dtype: dom))
        if draw(st.booleans()):
            v = draw(values)
            if draw(st.booleans()):
                case.kwargs[arg] = v
            else:
                case.args = case.args + (v,)
        return case

    @st.composite
    def threshold_case(draw):
        case = draw(unary_case("threshold"))
        t, d = draw(real), draw(real | st.sampled_from((np.nan, np.inf)))
        if draw(st.booleans()):
            return Case("threshold", case.arrays, (T(0), t, d))
        return Case("threshold", case.arrays, (T(0),), {"threshold": t, "default_value": d})

    @st.composite
    def glu_case(draw):
        shape = list(draw(shapes(min_rank=1)))
        axis = draw(st.integers(0, len(shape) - 1))
        shape[axis] = 2 * draw(st.integers(0, 2))
        x = draw(arrays(draw(st.sampled_from(DTYPES)), shape, ANY))
        kwargs = {}
        if axis != len(shape) - 1 or draw(st.booleans()):
            kwargs["axis"] = _neg(draw, axis, len(shape))
        return Case("glu", [x], (T(0),), kwargs)

    @st.composite
    def axis_case(draw, name, dom):
        shape = draw(shapes(min_rank=1))
        x = draw(arrays(draw(st.sampled_from(DTYPES)), shape, dom))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["axis"] = _neg(draw, draw(st.integers(0, len(shape) - 1)), len(shape))
        return Case(name, [x], (T(0),), kwargs)

    out = {n: unary_case(n, dom_of=lambda dtype: WIDE) for n in PLAIN_WIDE}
    out.update({
        "soft_shrink": with_arg("soft_shrink", "threshold", st.floats(0, 3, allow_subnormal=False)),
        "hard_shrink": with_arg("hard_shrink", "threshold", st.floats(0, 3, allow_subnormal=False)),
        "squareplus": with_arg("squareplus", "b", st.floats(0, 5, allow_subnormal=False)),
        "leaky_relu": with_arg("leaky_relu", "negative_slope", real),
        "elu": with_arg("elu", "alpha", real),
        "celu": with_arg("celu", "alpha", st.floats(0.25, 3) | st.floats(-3, -0.25)),
        "gelu": with_arg("gelu", "approximate", st.booleans()),
        "threshold": threshold_case(),
        "glu": glu_case(),
        "log_softmax": axis_case("log_softmax", ANY),
        # NaN and inf inside the sort-based threshold give backend-specific garbage; finite only
        "sparsemax": axis_case("sparsemax", FINITE),
    })
    return out
