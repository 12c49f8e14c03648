"""Property strategies for `polyops.ops.numpy.elementwise` (loaded by test_properties.py)."""

from __future__ import annotations

# The plain unary and binary ops take test_properties.default_strategy.
INTEGER = ("bool", "int8", "int16", "int32", "uint8")


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    import dataclasses

    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from test_properties import (ANY, FINITE, MAX_RANK, MAX_SIDE, WIDE, Case, Dom, T, arrays,
                                 scalar, unary_case)

    @st.composite
    def int_binary_case(draw, name, dom):
        """gcd/lcm: integer or bool tensors, or Python int/bool scalars (floats are rejected)."""
        shapes_ = draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, max_dims=MAX_RANK, min_side=0, max_side=MAX_SIDE)).input_shapes
        kinds = [draw(st.sampled_from(INTEGER + ("py:int",))) for _ in range(2)]
        if all(k.startswith("py:") for k in kinds):
            kinds[0] = "int32"
        unsigned = "uint8" in kinds
        d = dataclasses.replace(dom, lo=0) if unsigned else dom
        arrs, args = [], []
        for kind, shape in zip(kinds, shapes_):
            if kind == "py:int":
                args.append(draw(scalar("int", dataclasses.replace(d, wide=False, specials=False))))
            else:
                args.append(T(len(arrs)))
                arrs.append(draw(arrays(kind, shape, d)))
        return Case(name, arrs, tuple(args))

    @st.composite
    def ldexp_case(draw):
        """x1 of any real dtype (or a Python scalar); x2 an integer/bool tensor or Python int."""
        shapes_ = draw(hnp.mutually_broadcastable_shapes(
            num_shapes=2, max_dims=MAX_RANK, min_side=0, max_side=MAX_SIDE)).input_shapes
        arrs, args = [], []
        k1 = draw(st.sampled_from(("float32", "float16", "bfloat16", "int32", "int8", "bool",
                                   "py:float", "py:int")))
        if k1.startswith("py:"):
            args.append(draw(scalar(k1[3:], FINITE)))
        else:
            args.append(T(0))
            arrs.append(draw(arrays(k1, shapes_[0], ANY)))
        k2 = draw(st.sampled_from(INTEGER + (("py:int",) if arrs else ())))
        exp_dom = Dom(-30, 30) if k2 != "uint8" else Dom(0, 30)
        if k2 == "py:int":
            args.append(draw(scalar("int", exp_dom)))
        else:
            args.append(T(len(arrs)))
            arrs.append(draw(arrays(k2, shapes_[1], exp_dom)))
        return Case("ldexp", arrs, tuple(args))

    out = {n: unary_case(n, dom_of=lambda dtype: WIDE) for n in ("fabs", "trunc")}
    out["gcd"] = int_binary_case("gcd", WIDE)
    out["lcm"] = int_binary_case("lcm", ANY)
    out["ldexp"] = ldexp_case()
    return out
