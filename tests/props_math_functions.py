"""Property strategies for `polyops.ops.math.functions` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np  # noqa: F401


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import ANY, DTYPES, FINITE, FLOATS, Case, Dom, T, arrays, shapes, unary_case

    REAL = tuple(d for d in DTYPES if d != "bool")

    @st.composite
    def segment_case(draw, name):
        dtype = draw(st.sampled_from(("float32", "float16", "int32", "int8")))
        n = draw(st.integers(0, 4))
        rest = draw(shapes(max_rank=2))
        num = draw(st.integers(0, 4))
        # small exact values: sums and products stay exact in every dtype
        data = draw(arrays(dtype, (n,) + tuple(rest), Dom(-2, 2, specials=False, choices=(-2.0, -1.0, 0.0, 1.0, 2.0))))
        ids = np.asarray(draw(st.lists(st.integers(-1, num + 1), min_size=n, max_size=n)), np.int32)
        kwargs = {"num_segments": num}
        if draw(st.booleans()):
            kwargs["sorted"] = draw(st.booleans())
        return Case(name, [data, ids], (T(0), T(1)), kwargs)

    @st.composite
    def top_k_case(draw):
        dtype = draw(st.sampled_from(REAL))
        shape = draw(shapes(min_rank=1))
        k = draw(st.integers(0, shape[-1]))
        kwargs = {"sorted": draw(st.booleans())} if draw(st.booleans()) else {}
        return Case("top_k", [draw(arrays(dtype, shape, ANY))], (T(0), k), kwargs)

    @st.composite
    def in_top_k_case(draw):
        dtype = draw(st.sampled_from(REAL))
        b, c = draw(st.integers(0, 4)), draw(st.integers(1, 4))
        t = np.asarray(draw(st.lists(st.integers(-1, c), min_size=b, max_size=b)), np.int32)
        p = draw(arrays(dtype, (b, c), ANY))
        return Case("in_top_k", [t, p], (T(0), T(1), draw(st.integers(0, c + 1))))

    @st.composite
    def logsumexp_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(shapes())
        kwargs = {}
        if shape and draw(st.booleans()):
            kwargs["axis"] = draw(st.integers(-len(shape), len(shape) - 1))
        if draw(st.booleans()):
            kwargs["keepdims"] = draw(st.booleans())
        return Case("logsumexp", [draw(arrays(dtype, shape, ANY))], (T(0),), kwargs)

    @st.composite
    def cdist_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        m, n, d = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
        batch = draw(shapes(max_rank=1))
        x = draw(arrays(dtype, tuple(batch) + (m, d), FINITE))
        y = draw(arrays(dtype, (n, d), FINITE))
        return Case("cdist", [x, y], (T(0), T(1)))

    @st.composite
    def extract_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(shapes(min_rank=1))
        length, stride = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        return Case("extract_sequences", [draw(arrays(dtype, shape, ANY))], (T(0), length, stride))

    @st.composite
    def logdet_case(draw):
        dtype = draw(st.sampled_from(("float32",)))
        n = draw(st.integers(1, 3))
        batch = tuple(draw(shapes(max_rank=1)))
        a = draw(arrays(dtype, batch + (n, n), Dom(-1, 1, specials=False)))
        m = a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)
        return Case("logdet", [m.astype(np.float32)], (T(0),))

    @st.composite
    def gammainc_case(draw):
        dtype = draw(st.sampled_from(("float32", "float16", "bfloat16")))
        shape = draw(shapes(max_rank=2))
        a = draw(arrays(dtype, shape, Dom(0.1, 20, specials=False)))
        x = draw(arrays(dtype, shape, Dom(0, 30, specials=False)))
        return Case("gammainc", [a, x], (T(0), T(1)))

    out = {name: segment_case(name) for name in ("segment_sum", "segment_max", "segment_min", "segment_prod")}
    out.update({
        "top_k": top_k_case(),
        "in_top_k": in_top_k_case(),
        "logsumexp": logsumexp_case(),
        "cdist": cdist_case(),
        "extract_sequences": extract_case(),
        "logdet": logdet_case(),
        "rsqrt": unary_case("rsqrt", DTYPES, lambda d: Dom(0.01, 100) if d in FLOATS else Dom(0, 9)),
        "erfinv": unary_case("erfinv", DTYPES, lambda d: Dom(-1, 1)),
        "gammainc": gammainc_case(),
    })
    return out


XFAILS: dict = {}
