"""Property strategies for `polyops.ops.numpy.sorting` (loaded by test_properties.py)."""

from __future__ import annotations

import dataclasses

import numpy as np


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import (
        ANY, DTYPES, FINITE, FLOATS, INTS, WIDE, Case, Dom, T, _neg, _prod_dom, arrays, axes_arg,
        shapes,
    )

    # bfloat16 NaN: the numpy plugin's argsort (np.argsort on ml_dtypes.bfloat16) does not
    # put NaN last; until its kernel sorts in float32, sorting strategies draw bfloat16
    # without specials.
    def ordered_array(draw, dtype, shape, dom=WIDE):
        if dtype == "bfloat16":
            dom = dataclasses.replace(dom, specials=False)
        return draw(arrays(dtype, shape, dom))

    def sorted_1d(a):
        """``a`` sorted (NaN last) without numpy's bfloat16 sort."""
        order = np.argsort(a.astype(np.float32) if a.dtype.kind == "V" or str(a.dtype) == "bfloat16"
                           else a, kind="stable")
        return a[order]

    @st.composite
    def sort_case(draw, name):
        dtype = draw(st.sampled_from(DTYPES))
        shape = list(draw(shapes()))
        kwargs = {}
        axis = None
        if shape and draw(st.integers(0, 3)):
            axis = draw(st.integers(0, len(shape) - 1))
            if name != "argpartition" or draw(st.booleans()):
                kwargs["axis"] = _neg(draw, axis, len(shape))
            elif axis != len(shape) - 1:
                axis = len(shape) - 1
        elif name == "sort" or not shape or draw(st.booleans()):
            kwargs["axis"] = None
        if name == "argpartition":
            if axis is None:
                shape = [max(d, 1) for d in shape]
                n = int(np.prod(shape))
            else:
                shape[axis] = max(shape[axis], 1)
                n = shape[axis]
            kth = draw(st.integers(-n, n - 1) | st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))
            x = ordered_array(draw, dtype, shape)
            return Case(name, [x], (T(0), kth), kwargs)
        x = ordered_array(draw, dtype, shape)
        return Case(name, [x], (T(0),), kwargs)

    @st.composite
    def searchsorted_case(draw):
        d1 = draw(st.sampled_from(DTYPES))
        d2 = draw(st.sampled_from(DTYPES)) if draw(st.booleans()) else d1
        dom = Dom(0, 5) if "uint8" in (d1, d2) else ANY
        seq = sorted_1d(ordered_array(draw, d1, (draw(st.integers(0, 6)),), dom))
        vals = ordered_array(draw, d2, draw(shapes()), dom)
        kwargs = {"side": draw(st.sampled_from(("left", "right")))} if draw(st.booleans()) else {}
        return Case("searchsorted", [seq, vals], (T(0), T(1)), kwargs)

    @st.composite
    def digitize_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        dom = Dom(0, 5) if dtype == "uint8" else ANY
        bins = sorted_1d(ordered_array(draw, dtype, (draw(st.integers(0, 5)),), dom))
        bins = bins[~np.isnan(bins.astype(np.float32))] if dtype in FLOATS else bins
        if draw(st.booleans()):
            bins = bins[::-1].copy()
        x = ordered_array(draw, dtype, draw(shapes()), dom)
        return Case("digitize", [x, np.asarray(bins)], (T(0), T(1)))

    @st.composite
    def bincount_case(draw):
        dtype = draw(st.sampled_from(INTS + ("bool",)))
        shape = draw(shapes(min_rank=1, max_rank=2, max_side=5))
        x = draw(arrays(dtype, shape, Dom(0, 6)))
        arrs, kwargs = [x], {}
        if draw(st.booleans()):
            w = draw(arrays(draw(st.sampled_from(DTYPES)), shape, FINITE))
            arrs.append(w)
            kwargs["weights"] = T(1)
        if draw(st.booleans()):
            kwargs["minlength"] = draw(st.integers(0, 8))
        return Case("bincount", arrs, (T(0),), kwargs)

    @st.composite
    def histogram_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["bins"] = draw(st.integers(1, 5))
        dom = FINITE
        if draw(st.booleans()):
            lo = draw(st.integers(-4, 3))
            kwargs["range"] = (lo, lo + draw(st.sampled_from((0, 0.5, 1, 2.5, 4))))
            dom = ANY
        x = draw(arrays(dtype, draw(shapes(max_rank=2)), dom))
        return Case("histogram", [x], (T(0),), kwargs)

    @st.composite
    def unique_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        x = ordered_array(draw, dtype, draw(shapes()), Dom(-2, 2))
        kwargs = {}
        for flag in ("return_index", "return_inverse", "return_counts", "sorted"):
            if draw(st.booleans()):
                kwargs[flag] = draw(st.booleans())
        if draw(st.booleans()):
            kwargs["size"] = draw(st.integers(0, 6))
            if draw(st.booleans()):
                kwargs["fill_value"] = draw(st.integers(0, 3))
        return Case("unique", [x], (T(0),), kwargs)

    @st.composite
    def nonzero_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        dom = Dom(-1, 1, choices=(0.0, -0.0, 1.0, float("nan")))
        return Case("nonzero", [draw(arrays(dtype, draw(shapes(min_rank=1)), dom))], (T(0),))

    @st.composite
    def isin_case(draw):
        d1 = draw(st.sampled_from(DTYPES))
        d2 = draw(st.sampled_from(DTYPES)) if draw(st.booleans()) else d1
        dom = Dom(0, 3) if "uint8" in (d1, d2) else Dom(-2, 2)
        x1 = draw(arrays(d1, draw(shapes()), dom))
        x2 = draw(arrays(d2, draw(shapes(max_rank=2)), dom))
        kwargs = {}
        if draw(st.booleans()):
            kwargs["invert"] = draw(st.booleans())
        if draw(st.booleans()):
            kwargs["assume_unique"] = draw(st.booleans())
        return Case("isin", [x1, x2], (T(0), T(1)), kwargs)

    @st.composite
    def count_nonzero_case(draw):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(shapes())
        x = draw(arrays(dtype, shape, Dom(-1, 1, choices=(0.0, -0.0, 1.0, float("nan")))))
        kwargs = {}
        axis = axes_arg(draw, len(shape))
        if axis is not None or draw(st.booleans()):
            kwargs["axis"] = axis
        return Case("count_nonzero", [x], (T(0),), kwargs)

    @st.composite
    def cumulative_case(draw, name):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(shapes())
        size = int(np.prod(shape))
        dom = _prod_dom(dtype, size) if "prod" in name else ANY
        kwargs = {}
        if shape and draw(st.booleans()):
            kwargs["axis"] = _neg(draw, draw(st.integers(0, len(shape) - 1)), len(shape))
        elif draw(st.booleans()):
            kwargs["axis"] = None
        if draw(st.integers(0, 3)) == 0:
            # float32 holds every input exactly; an int result wraps, never a float->int overflow
            kwargs["dtype"] = draw(st.sampled_from(("float32",) if dtype in FLOATS else
                                                   ("float32", "int32", "int8")))
        x = draw(arrays(dtype, shape, dom))
        return Case(name, [x], (T(0),), kwargs)

    return {
        "argsort": sort_case("argsort"),
        "sort": sort_case("sort"),
        "argpartition": sort_case("argpartition"),
        "searchsorted": searchsorted_case(),
        "digitize": digitize_case(),
        "bincount": bincount_case(),
        "histogram": histogram_case(),
        "unique": unique_case(),
        "nonzero": nonzero_case(),
        "isin": isin_case(),
        "count_nonzero": count_nonzero_case(),
        **{n: cumulative_case(n) for n in ("cumsum", "cumprod", "nancumsum", "nancumprod")},
    }
