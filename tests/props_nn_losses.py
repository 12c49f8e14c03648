"""Property strategies for `polyops.ops.nn.losses` (loaded by test_properties.py)."""

from __future__ import annotations

import numpy as np

_INT_DTYPES = ("int8", "int16", "int32", "uint8")


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import FLOATS, Case, Dom, T, arrays, shapes

    prob = Dom(0, 1, specials=False)
    logit = Dom(-4, 4, specials=False)

    @st.composite
    def hot(draw, name):
        dtype = draw(st.sampled_from(_INT_DTYPES))
        shape = draw(shapes(min_rank=1 if name == "multi_hot" else 0, max_rank=3))
        n = draw(st.integers(1, 5))  # labels in range: out-of-range ones raise (test_indices.py)
        x = draw(arrays(dtype, shape, Dom(0, n - 1, specials=False)))
        nd = len(shape)
        kwargs = {"num_classes": n}
        if draw(st.booleans()):
            kwargs["axis"] = draw(st.integers(-(nd + 1), nd))
        if draw(st.booleans()):
            kwargs["dtype"] = draw(st.sampled_from(("float32", "int32", "bfloat16", "bool")))
        return Case(name, [x], (T(0),), kwargs)

    @st.composite
    def bce(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(shapes(max_rank=3))
        logits = draw(st.booleans())
        t = draw(arrays(dtype, shape, prob))
        o = draw(arrays(dtype, shape, logit if logits else prob))
        return Case("binary_crossentropy", [t, o], (T(0), T(1)), {"from_logits": logits})

    @st.composite
    def cce(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(shapes(min_rank=1, max_rank=3, min_side=1))
        logits = draw(st.booleans())
        t = draw(arrays(dtype, shape, prob))
        o = draw(arrays(dtype, shape, logit if logits else Dom(0.05, 1, specials=False)))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        return Case("categorical_crossentropy", [t, o], (T(0), T(1)), {"from_logits": logits, "axis": axis})

    @st.composite
    def scce(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = draw(shapes(min_rank=1, max_rank=3, min_side=1))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        logits = draw(st.booleans())
        o = draw(arrays(dtype, shape, logit if logits else Dom(0.05, 1, specials=False)))
        a = axis % len(shape)
        tshape = shape[:a] + shape[a + 1:]
        t = draw(arrays(draw(st.sampled_from(("int32", "int8", "uint8"))), tshape,
                        Dom(0, shape[a] - 1, specials=False)))
        return Case("sparse_categorical_crossentropy", [t, o], (T(0), T(1)),
                    {"from_logits": logits, "axis": axis})

    @st.composite
    def ctc(draw):
        dtype = draw(st.sampled_from(FLOATS))
        b, t, c = draw(st.integers(1, 3)), draw(st.integers(1, 5)), draw(st.integers(2, 4))
        n = draw(st.integers(1, 3))
        mask = draw(st.integers(0, c - 1))
        classes = [k for k in range(c) if k != mask]
        target = np.array(draw(st.lists(st.sampled_from(classes), min_size=b * n, max_size=b * n)),
                          np.int32).reshape(b, n)
        out = draw(arrays(dtype, (b, t, c), logit))
        tl = np.array(draw(st.lists(st.integers(0, n), min_size=b, max_size=b)), np.int32)
        ol = np.array(draw(st.lists(st.integers(0, t), min_size=b, max_size=b)), np.int32)
        kwargs = {"mask_index": mask} if mask or draw(st.booleans()) else {}
        return Case("ctc_loss", [target, out, tl, ol], (T(0), T(1), T(2), T(3)), kwargs)

    @st.composite
    def decode(draw):
        dtype = draw(st.sampled_from(FLOATS))
        b, t, c = draw(st.integers(1, 3)), draw(st.integers(0, 5)), draw(st.integers(1, 4))
        x = draw(arrays(dtype, (b, t, c), logit))
        lengths = np.array(draw(st.lists(st.integers(0, t), min_size=b, max_size=b)), np.int32)
        kwargs = {"mask_index": draw(st.sampled_from((0, c - 1, None)))}
        if draw(st.booleans()):
            kwargs["merge_repeated"] = draw(st.booleans())
        if t and draw(st.integers(0, 3)) == 0:
            kwargs["strategy"] = "beam_search"
            kwargs["beam_width"] = draw(st.integers(1, 3))
            kwargs["top_paths"] = draw(st.integers(1, kwargs["beam_width"]))
        return Case("ctc_decode", [x, lengths], (T(0), T(1)), kwargs)

    return {
        "one_hot": hot("one_hot"),
        "multi_hot": hot("multi_hot"),
        "binary_crossentropy": bce(),
        "categorical_crossentropy": cce(),
        "sparse_categorical_crossentropy": scce(),
        "ctc_loss": ctc(),
        "ctc_decode": decode(),
    }
