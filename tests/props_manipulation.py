"""Property strategies for `polyops.ops.numpy.manipulation` (loaded by test_properties.py)."""

from __future__ import annotations


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from polyops.ops.numpy.manipulation import _lift
    from test_properties import (  # noqa: F401  (the shared machinery)
        ANY, DTYPES, MAX_SIDE, WIDE, Case, T, _neg, arrays, shapes,
    )

    def tensor(draw, shape, dom=WIDE):
        return draw(arrays(draw(st.sampled_from(DTYPES)), shape, dom))

    def side(draw):
        """A dim size, 1 more often (the stacking ops lift lower ranks onto 1s)."""
        return draw(st.sampled_from((0, 1, 1, 2, 3, MAX_SIDE)))

    @st.composite
    def ravel_case(draw):
        return Case("ravel", [tensor(draw, draw(shapes()))], (T(0),))

    @st.composite
    def flip_case(draw, name, min_rank):
        return Case(name, [tensor(draw, draw(shapes(min_rank=min_rank)))], (T(0),))

    @st.composite
    def swapaxes_case(draw):
        shape = draw(shapes(min_rank=1))
        n = len(shape)
        a, b = (_neg(draw, draw(st.integers(0, n - 1)), n) for _ in range(2))
        return Case("swapaxes", [tensor(draw, shape)], (T(0), a, b))

    @st.composite
    def moveaxis_case(draw):
        shape = draw(shapes())
        n = len(shape)
        k = draw(st.integers(0 if n == 0 else 1, n))
        src = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)) if n else []
        dst = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)) if n else []
        src = [_neg(draw, a, n) for a in src]
        dst = [_neg(draw, a, n) for a in dst]
        if k == 1 and draw(st.booleans()):
            src, dst = src[0], dst[0]
        elif draw(st.booleans()):
            src, dst = tuple(src), tuple(dst)
        return Case("moveaxis", [tensor(draw, shape)], (T(0), src, dst))

    @st.composite
    def rot90_case(draw):
        shape = draw(shapes(min_rank=2))
        n = len(shape)
        kwargs = {}
        if draw(st.booleans()):
            kwargs["k"] = draw(st.integers(-5, 6))
        if draw(st.booleans()):
            a, b = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
            kwargs["axes"] = (_neg(draw, a, n), _neg(draw, b, n))
        return Case("rot90", [tensor(draw, shape)], (T(0),), kwargs)

    def mixed(draw, shapes_):
        """Arrays of drawn dtypes; WIDE values only when no dtype changes (joins promote)."""
        kinds = [draw(st.sampled_from(DTYPES)) for _ in shapes_]
        dom = WIDE if len(set(kinds)) == 1 else ANY
        return [draw(arrays(k, s, dom)) for k, s in zip(kinds, shapes_)]

    @st.composite
    def append_case(draw):
        if draw(st.booleans()):
            s1, s2 = draw(shapes()), draw(shapes())
            kwargs = {} if draw(st.booleans()) else {"axis": None}
        else:
            base = list(draw(shapes(min_rank=1)))
            axis = draw(st.integers(0, len(base) - 1))
            s1, s2 = list(base), list(base)
            s2[axis] = draw(st.integers(0, MAX_SIDE))
            kwargs = {"axis": _neg(draw, axis, len(base))}
        return Case("append", mixed(draw, [s1, s2]), (T(0), T(1)), kwargs)

    @st.composite
    def stack_case(draw, name):
        rank = {"hstack": draw(st.integers(1, 3)), "vstack": draw(st.integers(2, 3)),
                "dstack": 3, "column_stack": draw(st.integers(2, 3))}[name]
        base = [side(draw) for _ in range(rank)]
        axis = {"vstack": 0, "column_stack": 1, "dstack": 2}.get(name, 0 if rank == 1 else 1)
        shapes_ = []
        for _ in range(draw(st.integers(1, 3))):
            lifted = list(base)
            lifted[axis] = side(draw)
            lifted = tuple(lifted)
            candidates = {lifted, (), lifted[:1], lifted[1:2], lifted[:2], lifted[-1:]}
            sources = sorted(c for c in candidates if _lift(name, c) == lifted)
            shapes_.append(draw(st.sampled_from(sources)))
        arrs = mixed(draw, shapes_)
        return Case(name, arrs, ([T(i) for i in range(len(arrs))],))

    @st.composite
    def diff_case(draw):
        shape = draw(shapes(min_rank=1))
        x = draw(arrays(draw(st.sampled_from(DTYPES)), shape, ANY))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["n"] = draw(st.integers(0, MAX_SIDE + 1))
        if draw(st.booleans()):
            kwargs["axis"] = _neg(draw, draw(st.integers(0, len(shape) - 1)), len(shape))
        return Case("diff", [x], (T(0),), kwargs)

    @st.composite
    def repeat_case(draw):
        shape = draw(shapes())
        kwargs = {}
        if shape and draw(st.booleans()):
            axis = draw(st.integers(0, len(shape) - 1))
            n = shape[axis]
            kwargs["axis"] = _neg(draw, axis, len(shape))
        else:
            n = 1
            for d in shape:
                n *= d
            if draw(st.booleans()):
                kwargs["axis"] = None
        form = draw(st.sampled_from(("int", "one", "each")))
        if form == "int":
            repeats = draw(st.integers(0, 3))
        elif form == "one":
            repeats = [draw(st.integers(0, 3))]
        else:
            repeats = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
            if draw(st.booleans()):
                repeats = tuple(repeats)
        return Case("repeat", [tensor(draw, shape)], (T(0), repeats), kwargs)

    @st.composite
    def tile_case(draw):
        shape = draw(shapes())
        if draw(st.booleans()):
            repeats = draw(st.integers(0, 3))
        else:
            repeats = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
            if draw(st.booleans()):
                repeats = list(repeats)
        return Case("tile", [tensor(draw, shape)], (T(0), repeats))

    @st.composite
    def roll_case(draw):
        shape = draw(shapes())
        n = len(shape)
        shift_ = st.integers(-2 * MAX_SIDE, 2 * MAX_SIDE)
        kind = draw(st.sampled_from(("none", "int", "tuple")) if n else st.just("none"))
        kwargs = {}
        if kind == "none":
            shift = draw(shift_) if draw(st.booleans()) else tuple(draw(st.lists(shift_, max_size=2)))
            if draw(st.booleans()):
                kwargs["axis"] = None
        elif kind == "int":
            kwargs["axis"] = _neg(draw, draw(st.integers(0, n - 1)), n)
            shift = draw(shift_) if draw(st.booleans()) else tuple(draw(st.lists(shift_, max_size=2)))
        else:  # repeated axes are allowed: their shifts add up
            axes = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
            kwargs["axis"] = tuple(_neg(draw, a, n) for a in axes)
            shift = (draw(shift_) if draw(st.booleans()) else
                     tuple(draw(st.lists(shift_, min_size=len(axes), max_size=len(axes)))))
        return Case("roll", [tensor(draw, shape)], (T(0), shift), kwargs)

    def split_arg(draw, n, exact):
        if draw(st.booleans()):  # split points, NumPy semantics (negative, out of range, unordered)
            return draw(st.lists(st.integers(-MAX_SIDE - 2, MAX_SIDE + 2), max_size=3))
        if exact:
            divisors = [k for k in range(1, 5) if n % k == 0] if n else [1, 2, 3]
            return draw(st.sampled_from(divisors))
        return draw(st.integers(1, 5))

    @st.composite
    def split_case(draw, name):
        if name in ("split", "array_split"):
            shape = draw(shapes(min_rank=1))
            axis = draw(st.integers(0, len(shape) - 1))
            kwargs = {"axis": _neg(draw, axis, len(shape))} if axis or draw(st.booleans()) else {}
        else:
            min_rank = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[name]
            shape = draw(shapes(min_rank=min_rank))
            axis = {"hsplit": 1 if len(shape) > 1 else 0, "vsplit": 0, "dsplit": 2}[name]
            kwargs = {}
        ios = split_arg(draw, shape[axis], name != "array_split")
        return Case(name, [tensor(draw, shape)], (T(0), ios), kwargs)

    return {
        "ravel": ravel_case(),
        "fliplr": flip_case("fliplr", 2),
        "flipud": flip_case("flipud", 1),
        "swapaxes": swapaxes_case(),
        "moveaxis": moveaxis_case(),
        "rot90": rot90_case(),
        "append": append_case(),
        **{n: stack_case(n) for n in ("hstack", "vstack", "dstack", "column_stack")},
        "diff": diff_case(),
        "repeat": repeat_case(),
        "tile": tile_case(),
        "roll": roll_case(),
        **{n: split_case(n) for n in ("split", "array_split", "hsplit", "vsplit", "dsplit")},
    }
