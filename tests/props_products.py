"""Property strategies for `polyops.ops.numpy.products` (loaded by test_properties.py)."""

from __future__ import annotations


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    import dataclasses

    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from test_properties import ANY, DTYPES, MAX_SIDE, Case, Dom, T, _mm_values, _neg, arrays, shapes

    def case(op, arrs, args=None, kwargs=None):
        args = tuple(T(i) for i in range(len(arrs))) if args is None else args
        return Case(op, arrs, args, kwargs or {})

    @st.composite
    def outer_case(draw):
        s1, s2 = draw(shapes(max_side=3)), draw(shapes(max_side=3))
        return case("outer", _mm_values(draw, (s1, s2)))

    @st.composite
    def kron_case(draw):
        s1, s2 = draw(shapes(max_side=3)), draw(shapes(max_side=3))
        return case("kron", _mm_values(draw, (s1, s2)))

    @st.composite
    def inner_case(draw):
        if draw(st.integers(0, 4)) == 0:  # a 0-d operand scales the other
            s1, s2 = [], list(draw(shapes()))
            if draw(st.booleans()):
                s1, s2 = s2, s1
        else:
            k = draw(st.integers(0, MAX_SIDE))
            s1 = list(draw(shapes(max_rank=2))) + [k]
            s2 = list(draw(shapes(max_rank=2))) + [k]
        return case("inner", _mm_values(draw, (s1, s2)))

    @st.composite
    def vdot_case(draw):
        s1 = draw(shapes())
        n = 1
        for d in s1:
            n *= d
        s2 = draw(st.sampled_from([(n,), tuple(reversed(s1)), tuple(s1)]))
        return case("vdot", _mm_values(draw, (s1, s2)))

    @st.composite
    def tensordot_case(draw):
        n = draw(st.integers(0, 2))
        core = [draw(st.integers(0, 3)) for _ in range(n)]
        f1 = list(draw(shapes(max_rank=2, max_side=3)))
        f2 = list(draw(shapes(max_rank=2, max_side=3)))
        if draw(st.booleans()):  # the int form: last n of x1 with first n of x2
            x1, x2 = _mm_values(draw, (f1 + core, core + f2))
            kwargs = {} if n == 2 and draw(st.booleans()) else {"axes": n}
            return case("tensordot", [x1, x2], kwargs=kwargs)
        # pairs of sequences: the core axes anywhere, in any order, negatives mixed in
        r1, r2 = len(f1) + n, len(f2) + n
        pos1 = draw(st.permutations(range(r1)))[:n]
        pos2 = draw(st.permutations(range(r2)))[:n]
        s1, s2 = [None] * r1, [None] * r2
        for p, d in zip(pos1, core):
            s1[p] = d
        for p, d in zip(pos2, core):
            s2[p] = d
        it1, it2 = iter(f1), iter(f2)
        s1 = [d if d is not None else next(it1) for d in s1]
        s2 = [d if d is not None else next(it2) for d in s2]
        x1, x2 = _mm_values(draw, (s1, s2))
        axes = (tuple(_neg(draw, p, r1) for p in pos1), tuple(_neg(draw, p, r2) for p in pos2))
        if n == 1 and draw(st.booleans()):
            axes = (axes[0][0], axes[1][0])
        return case("tensordot", [x1, x2], kwargs={"axes": axes})

    @st.composite
    def cross_case(draw):
        # 2 x 2 vectors (a z-component, no vector axis) need known sizes: test_numpy_products
        n1, n2 = draw(st.sampled_from([(3, 3), (2, 3), (3, 2)]))
        b1, b2 = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, min_side=0,
                                                        max_side=3)).input_shapes
        b1, b2 = list(b1), list(b2)
        batch = max(len(b1), len(b2))
        kwargs = {}
        if draw(st.integers(0, 3)) == 0:  # one axis for x1, x2 and the result
            b1 = [1] * (batch - len(b1)) + b1
            b2 = [1] * (batch - len(b2)) + b2
            ax = draw(st.integers(0, batch))
            s1, s2 = b1[:ax] + [n1] + b1[ax:], b2[:ax] + [n2] + b2[ax:]
            kwargs["axis"] = _neg(draw, ax, batch + 1)
        else:
            a, b = draw(st.integers(0, len(b1))), draw(st.integers(0, len(b2)))
            s1, s2 = b1[:a] + [n1] + b1[a:], b2[:b] + [n2] + b2[b:]
            if a != len(b1) or draw(st.booleans()):
                kwargs["axisa"] = _neg(draw, a, len(s1))
            if b != len(b2) or draw(st.booleans()):
                kwargs["axisb"] = _neg(draw, b, len(s2))
            if draw(st.booleans()):
                kwargs["axisc"] = _neg(draw, draw(st.integers(0, batch)), batch + 1)
        return case("cross", _mm_values(draw, (s1, s2)), kwargs=kwargs)

    @st.composite
    def trapezoid_case(draw):
        shape = list(draw(shapes(min_rank=1)))
        axis = draw(st.integers(0, len(shape) - 1))
        y = draw(arrays(draw(st.sampled_from(DTYPES)), shape, ANY))
        kwargs = {}
        if axis != len(shape) - 1 or draw(st.booleans()):
            kwargs["axis"] = _neg(draw, axis, len(shape))
        kind = draw(st.sampled_from(("dx", "x1d", "xfull")))
        arrs = [y]
        if kind == "dx":
            if draw(st.booleans()):
                kwargs["dx"] = draw(st.sampled_from((0.5, 2, -1.5, 1e-3)))
        else:
            xs = [shape[axis]] if kind == "x1d" else [1 if (i != axis and draw(st.booleans())) else d
                                                       for i, d in enumerate(shape)]
            x_dtype = draw(st.sampled_from(DTYPES))
            arrs.append(draw(arrays(x_dtype, xs, Dom(-5, 5, specials=False))))
            kwargs["x"] = T(1)
        return Case("trapezoid", arrs, (T(0),), kwargs)

    @st.composite
    def correlate_case(draw):
        m, n = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        arrs = [draw(arrays(draw(st.sampled_from(DTYPES)), (k,), ANY)) for k in (m, n)]
        kwargs = {}
        mode = draw(st.sampled_from(("valid", "same", "full")))
        if mode != "valid" or draw(st.booleans()):
            kwargs["mode"] = mode
        return case("correlate", arrs, kwargs=kwargs)

    @st.composite
    def slogdet_case(draw):
        # few distinct shapes: the reference is a loop of primitive calls per shape
        n = draw(st.integers(0, 3))
        batch = draw(st.sampled_from(((), (2,))))
        dtype = draw(st.sampled_from(DTYPES))
        dom = ANY if draw(st.booleans()) else dataclasses.replace(ANY, specials=False)
        return case("slogdet", [draw(arrays(dtype, batch + (n, n), dom))])

    def window_case(name):
        return st.integers(-2, 9).map(lambda m: Case(name, [], (m,)))

    @st.composite
    def kaiser_case(draw):
        m = draw(st.integers(-1, 9))
        beta = draw(st.sampled_from((0.0, 0.5, -3.0, 5, 8.6, 14.0, 40.0)))
        if draw(st.booleans()):
            return Case("kaiser", [], (m,), {"beta": beta})
        return Case("kaiser", [], (m, beta))

    return {
        "outer": outer_case(),
        "kron": kron_case(),
        "inner": inner_case(),
        "vdot": vdot_case(),
        "tensordot": tensordot_case(),
        "cross": cross_case(),
        "trapezoid": trapezoid_case(),
        "correlate": correlate_case(),
        "slogdet": slogdet_case(),
        "bartlett": window_case("bartlett"),
        "blackman": window_case("blackman"),
        "hamming": window_case("hamming"),
        "hanning": window_case("hanning"),
        "kaiser": kaiser_case(),
    }
