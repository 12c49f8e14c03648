"""Property strategies for `polyops.ops.numpy.indexing` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from test_properties import (
        ANY, CREATE_DTYPES, DTYPES, FLOATS, INTS, MAX_SIDE, NUMERIC, WIDE, Case, Dom, T, _neg,
        arrays, shapes,
    )

    def _dtype_kw(draw, kwargs, choices=CREATE_DTYPES):
        dtype = draw(choices)
        if dtype is not None or draw(st.booleans()):
            kwargs["dtype"] = dtype

    @st.composite
    def take_along_axis_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        if draw(st.integers(0, 3)) == 0:  # axis=None: 1-D indices into the flattened x
            x = draw(arrays(dtype, draw(shapes()), WIDE))
            n, ishape, kwargs = x.size, [draw(st.integers(0, MAX_SIDE))], {"axis": None}
            if n == 0:
                ishape = [0]
        else:
            shape = list(draw(shapes(min_rank=1)))
            axis = draw(st.integers(0, len(shape) - 1))
            n = shape[axis]
            ishape = [d if d == 0 or draw(st.booleans()) else 1 for d in shape]
            xshape = [d if d == 0 or draw(st.integers(0, 3)) else 1 for d in shape]
            ishape[axis] = draw(st.integers(0, MAX_SIDE)) if n else 0
            xshape[axis] = n
            x = draw(arrays(dtype, xshape, WIDE))
            kwargs = {"axis": _neg(draw, axis, len(shape))}
        idtype = draw(st.sampled_from(("int32", "int8", "uint8", "int16")))
        lo = 0 if idtype == "uint8" else -n
        idx = draw(hnp.arrays(np.dtype(idtype), tuple(ishape),
                              elements=st.integers(lo, max(n - 1, lo))))
        return Case("take_along_axis", [x, np.asarray(idx)], (T(0), T(1)), kwargs)

    @st.composite
    def array_case(draw):
        x = draw(arrays(draw(st.sampled_from(DTYPES)), draw(shapes()), WIDE))
        kwargs = {}
        if draw(st.booleans()):  # only casts that cannot overflow: to floats, or to the same dtype
            kwargs["dtype"] = draw(st.sampled_from((None, "float32", str(x.dtype) if
                                                    str(x.dtype) in DTYPES else "bfloat16")))
        return Case("array", [x], (T(0),), kwargs)

    @st.composite
    def copy_case(draw):
        return Case("copy", [draw(arrays(draw(st.sampled_from(DTYPES)), draw(shapes()), WIDE))],
                    (T(0),))

    @st.composite
    def empty_case(draw):
        kwargs = {}
        _dtype_kw(draw, kwargs)
        return Case("empty", [], (tuple(draw(shapes())),), kwargs)

    @st.composite
    def empty_like_case(draw):
        x = draw(arrays(draw(st.sampled_from(DTYPES)), draw(shapes()), WIDE))
        kwargs = {}
        _dtype_kw(draw, kwargs)
        return Case("empty_like", [x], (T(0),), kwargs)

    @st.composite
    def identity_case(draw):
        kwargs = {}
        _dtype_kw(draw, kwargs)
        return Case("identity", [], (draw(st.integers(0, MAX_SIDE)),), kwargs)

    @st.composite
    def tri_case(draw):
        kwargs = {}
        if draw(st.booleans()):
            kwargs["M"] = draw(st.none() | st.integers(0, MAX_SIDE))
        if draw(st.booleans()):
            kwargs["k"] = draw(st.integers(-MAX_SIDE, MAX_SIDE))
        _dtype_kw(draw, kwargs)
        return Case("tri", [], (draw(st.integers(0, MAX_SIDE)),), kwargs)

    @st.composite
    def triangle_case(draw, name):
        x = draw(arrays(draw(st.sampled_from(DTYPES)), draw(shapes(min_rank=2)), ANY))
        kwargs = {"k": draw(st.integers(-MAX_SIDE, MAX_SIDE))} if draw(st.booleans()) else {}
        return Case(name, [x], (T(0),), kwargs)

    @st.composite
    def diag_case(draw, name):
        if name == "diag":
            shape = draw(shapes(min_rank=1, max_rank=2))
        else:
            shape = draw(shapes())
        x = draw(arrays(draw(st.sampled_from(DTYPES)), shape, ANY))
        kwargs = {"k": draw(st.integers(-MAX_SIDE, MAX_SIDE))} if draw(st.booleans()) else {}
        return Case(name, [x], (T(0),), kwargs)

    @st.composite
    def diagonal_case(draw, name):
        shape = draw(shapes(min_rank=2))
        dtype = draw(st.sampled_from(DTYPES))
        x = draw(arrays(dtype, shape, WIDE if name == "diagonal" else
                        (Dom(-3, 3) if dtype in INTS else ANY)))
        a1, a2 = draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["offset"] = draw(st.integers(-MAX_SIDE, MAX_SIDE))
        if (a1, a2) != (0, 1) or draw(st.booleans()):
            kwargs["axis1"] = _neg(draw, a1, len(shape))
            kwargs["axis2"] = _neg(draw, a2, len(shape))
        return Case(name, [x], (T(0),), kwargs)

    # geomspace/logspace: magnitudes in [1/4, 8], no zeros (NumPy raises), no specials
    MAGS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 8.0)

    @st.composite
    def space_case(draw, name):
        num = draw(st.integers(0, 5))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["endpoint"] = draw(st.booleans())
        if name == "logspace" and draw(st.booleans()):
            kwargs["base"] = draw(st.sampled_from((2, 10, 0.5, 3.0)))
        dtype = draw(st.sampled_from((None,) + FLOATS))
        if dtype is not None or draw(st.booleans()):
            kwargs["dtype"] = dtype
        if draw(st.booleans()):  # Python scalars
            if name == "geomspace":
                sgn = draw(st.sampled_from((1, -1)))
                start, stop = sgn * draw(st.sampled_from(MAGS)), sgn * draw(st.sampled_from(MAGS))
            else:
                start, stop = draw(st.integers(-3, 3)), draw(st.sampled_from((-2.5, 0.0, 1.5, 3)))
            return Case(name, [], (start, stop, num), kwargs)
        shapes_ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
        arrs = []
        for s in shapes_.input_shapes:
            dt = draw(st.sampled_from(FLOATS))
            dom = Dom(-3, 3, specials=False, choices=MAGS if name == "geomspace" else ())
            arrs.append(draw(arrays(dt, s, dom)))
        if name == "geomspace":  # same signs in start and stop
            negative = draw(st.booleans())
            arrs = [-np.abs(a) if negative else np.abs(a) for a in arrs]
        ndim = len(shapes_.result_shape) + 1
        if draw(st.booleans()):
            kwargs["axis"] = _neg(draw, draw(st.integers(0, ndim - 1)), ndim)
        return Case(name, arrs, (T(0), T(1), num), kwargs)

    @st.composite
    def vander_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        n = draw(st.integers(0, MAX_SIDE))
        dom = Dom(-2, 2, specials=False) if dtype in ("float16", "bfloat16") else (
            Dom(-3, 3) if dtype in INTS else ANY)
        x = draw(arrays(dtype, (n,), dom))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["N"] = draw(st.none() | st.integers(0, 6))
        if draw(st.booleans()):
            kwargs["increasing"] = draw(st.booleans())
        return Case("vander", [x], (T(0),), kwargs)

    @st.composite
    def meshgrid_case(draw):
        count = draw(st.integers(1, 3))
        arrs = [draw(arrays(draw(st.sampled_from(DTYPES)), draw(shapes(max_rank=2, max_side=3)),
                            WIDE)) for _ in range(count)]
        kwargs = {"indexing": draw(st.sampled_from(("xy", "ij")))} if draw(st.booleans()) else {}
        return Case("meshgrid", arrs, tuple(T(i) for i in range(count)), kwargs)

    @st.composite
    def unravel_index_case(draw):
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
        size = int(np.prod(shape))
        idtype = draw(st.sampled_from(("int32", "int8", "int16", "uint8", "bool")))
        hi = min(size - 1, 127)
        if idtype == "bool":
            hi = min(hi, 1)
        if draw(st.integers(0, 4)) == 0:
            return Case("unravel_index", [np.asarray(draw(st.integers(0, hi)), np.int32)],
                        (T(0), shape))
        idx = draw(hnp.arrays(np.dtype(idtype), draw(shapes(max_rank=2)),
                              elements=st.integers(0, hi) if idtype != "bool" else st.booleans()))
        return Case("unravel_index", [np.asarray(idx)], (T(0),), {"shape": shape})

    @st.composite
    def select_case(draw):
        n = draw(st.integers(1, 3))
        shapes_ = draw(hnp.mutually_broadcastable_shapes(num_shapes=2 * n, max_dims=3,
                                                         min_side=0, max_side=MAX_SIDE)).input_shapes
        arrs = []
        for s in shapes_[:n]:
            arrs.append(draw(arrays(draw(st.sampled_from(("bool", "bool", "int8", "float32"))), s,
                                    WIDE)))
        kinds = [draw(st.sampled_from(DTYPES)) for _ in range(n)]
        for kind, s in zip(kinds, shapes_[n:]):
            arrs.append(draw(arrays(kind, s, WIDE if len(set(kinds)) == 1 else Dom(0, 5))))
        args = ([T(i) for i in range(n)], [T(n + i) for i in range(n)])
        kwargs = {}
        if draw(st.booleans()):
            kwargs["default"] = draw(st.sampled_from((0, 1, True)) | st.sampled_from((1.5, -0.0))
                                     if any(k in FLOATS for k in kinds) else st.sampled_from((0, 1, 3)))
        return Case("select", arrs, args, kwargs)

    MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "circular", "maximum", "minimum",
             "mean", "median", "linear_ramp", "empty")

    @st.composite
    def pad_case(draw):
        mode = draw(st.sampled_from(MODES))
        dtype = draw(st.sampled_from(DTYPES if mode not in ("mean", "median", "linear_ramp")
                                     else NUMERIC))
        shape = list(draw(shapes(max_side=3)))
        if mode not in ("constant", "empty"):
            shape = [max(d, 1) for d in shape]
        dom = (Dom(-20, 20) if dtype in INTS else ANY) if mode in ("mean", "median", "linear_ramp") \
            else WIDE
        x = draw(arrays(dtype, shape, dom))
        form = draw(st.sampled_from(("int", "pair", "per-axis")))
        w = st.integers(0, 3)
        if form == "int" or not shape:
            pad_width = draw(w)
        elif form == "pair":
            pad_width = (draw(w), draw(w))
        else:
            pad_width = tuple((draw(w), draw(w)) for _ in shape)
        kwargs = {}
        if mode != "constant" or draw(st.booleans()):
            kwargs["mode"] = mode
        if mode == "constant" and draw(st.booleans()):
            kwargs["constant_values"] = (draw(st.booleans()) if dtype == "bool" else
                                         draw(st.integers(0, 5)) if dtype in INTS else
                                         draw(st.sampled_from((1.5, -2.0, float("nan"), float("inf")))))
        return Case("pad", [x], (T(0), pad_width), kwargs)

    return {
        "take_along_axis": take_along_axis_case(),
        "array": array_case(),
        "copy": copy_case(),
        "empty": empty_case(),
        "empty_like": empty_like_case(),
        "identity": identity_case(),
        "tri": tri_case(),
        "tril": triangle_case("tril"),
        "triu": triangle_case("triu"),
        "diag": diag_case("diag"),
        "diagflat": diag_case("diagflat"),
        "diagonal": diagonal_case("diagonal"),
        "trace": diagonal_case("trace"),
        "geomspace": space_case("geomspace"),
        "logspace": space_case("logspace"),
        "vander": vander_case(),
        "meshgrid": meshgrid_case(),
        "unravel_index": unravel_index_case(),
        "select": select_case(),
        "pad": pad_case(),
    }
