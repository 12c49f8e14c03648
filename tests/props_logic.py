"""Property strategies for `polyops.ops.numpy.logic` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np

# Known differences: (op, backend) -> (reason, Case); none so far.
XFAILS: dict = {}

_INTEGRAL = ("bool", "int8", "int16", "int32", "uint8")
_BYTES = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "float16": 2, "bfloat16": 2,
          "int32": 4, "float32": 4, "uint16": 2, "uint32": 4}


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from test_properties import (
        DTYPES, MAX_RANK, MAX_SIDE, WIDE, Case, Dom, T, _binary_values, _range,
        _spec_dtype, arrays, binary_case, shapes, unary_case,
    )

    def _two_shapes(draw):
        return draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=MAX_RANK, min_side=0,
                                                      max_side=MAX_SIDE)).input_shapes

    @st.composite
    def close_case(draw, name):
        case = draw(binary_case(name))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["rtol"] = draw(st.sampled_from((0.0, 1e-3, 0.1, 1)))
        if draw(st.booleans()):
            kwargs["atol"] = draw(st.sampled_from((0.0, 1e-3, 0.5, 2)))
        if draw(st.booleans()):
            kwargs["equal_nan"] = draw(st.booleans())
        if draw(st.booleans()) and len(case.arrays) == 2:  # x2 near x1: the tolerance decides
            a, b = case.arrays
            if a.shape == b.shape and a.dtype.kind == "f" and b.dtype.kind == "f":
                case.arrays[1] = (a.astype(np.float32) * np.float32(1.0005)).astype(b.dtype)
        case.kwargs = kwargs
        return case

    @st.composite
    def nan_to_num_case(draw):
        case = draw(unary_case("nan_to_num"))
        for name in ("nan", "posinf", "neginf"):
            if draw(st.booleans()):
                case.kwargs[name] = draw(st.sampled_from((None, 0, -1.5, 2.0, 100, -7))
                                         if name != "nan" else st.sampled_from((0.0, 1, -2.5)))
        return case

    @st.composite
    def integral_binary_case(draw, name):
        """Two integer/bool operands (a Python int or bool allowed for one of them)."""
        shapes_ = _two_shapes(draw)
        k1 = draw(st.sampled_from(_INTEGRAL + ("py:int", "py:bool")))
        k2 = draw(st.sampled_from(_INTEGRAL + (() if k1.startswith("py:") else ("py:int", "py:bool"))))
        out = _spec_dtype(name, *[{"py:int": 1, "py:bool": True}.get(k, k) for k in (k1, k2)])
        arrays_, args = _binary_values(draw, name, (k1, k2), shapes_, out)
        return Case(name, arrays_, tuple(args))

    @st.composite
    def shift_case(draw, name):
        """x of any integer dtype (its whole range), counts in [0, width + 2]."""
        shapes_ = _two_shapes(draw)
        kx = draw(st.sampled_from(_INTEGRAL))
        ky = draw(st.sampled_from(_INTEGRAL + ("py:int", "py:bool")))
        out = _spec_dtype(name, kx, {"py:int": 1, "py:bool": True}.get(ky, ky))
        width = np.dtype(out).itemsize * 8
        x = draw(arrays(kx, shapes_[0], WIDE))
        arrays_, args = [x], [T(0)]
        if ky.startswith("py:"):
            args.append(draw(st.booleans()) if ky == "py:bool" else draw(st.integers(0, width + 2)))
        else:
            hi = min(width + 2, _range(ky)[1])
            arrays_.append(draw(arrays(ky, shapes_[1], Dom(0, hi))))
            args.append(T(1))
        return Case(name, arrays_, tuple(args))

    @st.composite
    def view_case(draw):
        src = draw(st.sampled_from(DTYPES))
        targets = [d for d in ("bool", "int8", "uint8", "int16", "uint16", "float16", "bfloat16",
                               "int32", "uint32", "float32")
                   if d != "bool" or src in ("bool", "int8", "uint8")]
        dst = draw(st.sampled_from(targets + [None]))
        a, b = _BYTES[src], _BYTES[dst or src]
        shape = list(draw(shapes(min_rank=0 if a == b else 1)))
        if a < b:
            shape[-1] = shape[-1] // (b // a) * (b // a)
        dom = Dom(0, 1, specials=False) if dst == "bool" else WIDE
        x = draw(arrays(src, tuple(shape), dom))
        return Case("view", [x], (T(0),), {} if dst is None and draw(st.booleans()) else {"dtype": dst})

    return {
        **{n: unary_case(n, dom_of=lambda dtype: WIDE)
           for n in ("isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "signbit",
                     "real", "imag", "conjugate", "angle")},
        "isclose": close_case("isclose"),
        "allclose": close_case("allclose"),
        "nan_to_num": nan_to_num_case(),
        **{n: integral_binary_case(n) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
        "bitwise_invert": unary_case("bitwise_invert", allowed=_INTEGRAL,
                                     dom_of=lambda dtype: WIDE),
        "left_shift": shift_case("left_shift"),
        "right_shift": shift_case("right_shift"),
        "view": view_case(),
    }
