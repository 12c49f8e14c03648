"""Property strategies for the core family's new ops and the stateless random ops (loaded by
test_properties.py, whose GROUPS include "core").

Control-flow cases use module-level callables written with polyops ops.  The random ops
draw from one counter-based generator on every backend, so their values must agree with the
numpy backend's like any op's (within the dtype's tolerance); their parameters stay in
ranges where float rounding cannot flip a rejection decision (gamma's alpha >= 1 uses few
proposals).
"""

from __future__ import annotations

import numpy as np

from polyops import ops

XFAILS: dict = {}


def _step(c, x):
    return ops.add(c, x), ops.multiply(c, x)


def _square_sum(r):
    return ops.sum(ops.multiply(r, r))


def _add(a, b):
    return ops.add(a, b)


def _body(i, v):
    return ops.add(ops.multiply(v, 0.5), ops.cast(i, ops.dtype(v)))


def strategies() -> dict:
    from hypothesis import strategies as st

    from test_properties import Case, Dom, T, arrays

    small = Dom(-4, 4, specials=False)
    dtypes = st.sampled_from(("float32", "int32"))

    @st.composite
    def seq(draw, min_len=0):
        dtype = draw(dtypes)
        n = draw(st.integers(min_len, 4))
        width = draw(st.integers(1, 3))
        return draw(arrays(dtype, (n, width), small))

    @st.composite
    def scan_case(draw):
        xs = draw(seq())
        init = np.zeros(xs.shape[1:], xs.dtype)
        return Case("scan", [init, xs], (_step, T(0), T(1)), {"reverse": draw(st.booleans())})

    @st.composite
    def map_case(draw, name):
        return Case(name, [draw(seq(1))], (_square_sum, T(0)))

    @st.composite
    def assoc_case(draw):
        xs = draw(seq(1))
        return Case("associative_scan", [xs], (_add, T(0)),
                    {"reverse": draw(st.booleans()), "axis": draw(st.sampled_from((0, 1)))})

    @st.composite
    def fori_case(draw):
        v = draw(arrays("float32", (draw(st.integers(0, 3)),), small))
        return Case("fori_loop", [v], (0, draw(st.integers(0, 4)), _body, T(0)))

    @st.composite
    def while_case(draw):
        v = draw(arrays("float32", (), Dom(1, 50, specials=False)))
        return Case("while_loop", [v], (lambda x: ops.greater(x, 1.0),
                                        lambda x: ops.multiply(x, 0.5), T(0)))

    @st.composite
    def cond_case(draw):
        x = draw(arrays("float32", (draw(st.integers(0, 3)),), small))
        p = np.array(draw(st.booleans()))
        return Case("cond", [p, x], (T(0), lambda: ops.negative(ops.sum(x)), lambda: ops.sum(x)))

    @st.composite
    def switch_case(draw):
        x = draw(arrays("float32", (draw(st.integers(0, 3)),), small))
        i = np.array(draw(st.integers(-1, 3)), np.int32)
        branches = [lambda a: ops.add(a, 1.0), lambda a: ops.multiply(a, a), ops.negative]
        return Case("switch", [i, x], (T(0), branches, T(1)))

    @st.composite
    def scatter_case(draw):
        shape = (draw(st.integers(1, 4)), draw(st.integers(1, 3)))
        n = draw(st.integers(0, 5))
        k = draw(st.integers(1, 2))
        idx = np.stack([np.array(draw(st.lists(st.integers(-shape[j], shape[j] - 1), min_size=n,
                                               max_size=n)), np.int32) for j in range(k)], -1)
        idx = idx.reshape(n, k)
        vals = draw(arrays(draw(dtypes), (n,) + shape[k:], small))
        return Case("scatter", [idx, vals], (T(0), T(1), shape))

    @st.composite
    def scatter_update_case(draw):
        x = draw(arrays(draw(dtypes), (draw(st.integers(1, 4)), 2), small))
        n = draw(st.integers(0, 4))
        idx = np.array(draw(st.lists(st.integers(-x.shape[0], x.shape[0] - 1), min_size=n,
                                     max_size=n)), np.int32).reshape(n, 1)
        upd = draw(arrays(x.dtype.name, (n, 2), small))
        red = draw(st.sampled_from((None, "add", "max", "min", "mul")))
        return Case("scatter_update", [x, idx, upd], (T(0), T(1), T(2)), {"reduction": red})

    @st.composite
    def slice_case(draw):
        x = draw(arrays(draw(dtypes), (draw(st.integers(1, 4)), draw(st.integers(1, 4))), small))
        size = [draw(st.integers(0, d)) for d in x.shape]
        start = [draw(st.integers(-2, d + 1)) for d in x.shape]
        return Case("slice", [x], (T(0), start, size))

    @st.composite
    def slice_update_case(draw):
        x = draw(arrays(draw(dtypes), (draw(st.integers(1, 4)), draw(st.integers(1, 4))), small))
        u = draw(arrays(x.dtype.name, tuple(draw(st.integers(0, d)) for d in x.shape), small))
        start = [draw(st.integers(-1, d + 1)) for d in x.shape]
        return Case("slice_update", [x, u], (T(0), start, T(1)))

    @st.composite
    def saturate_case(draw):
        x = draw(arrays("float32", (draw(st.integers(0, 4)),), Dom(-400, 400)))
        return Case("saturate_cast", [x], (T(0), draw(st.sampled_from(("uint8", "int8", "int16",
                                                                        "float16")))))

    @st.composite
    def stop_case(draw):
        return Case("stop_gradient", [draw(arrays(draw(dtypes), (draw(st.integers(0, 3)),), small))],
                    (T(0),))

    seeds = st.integers(-(2**31), 2**31 - 1)

    @st.composite
    def random_case(draw, name, *params):
        seed = np.array([draw(seeds), draw(seeds)], np.int32)
        shape = (draw(st.integers(0, 6)),)
        return Case(name, [seed], (T(0), shape, *params))

    @st.composite
    def categorical_case(draw):
        seed = np.array([draw(seeds), draw(seeds)], np.int32)
        logits = draw(arrays("float32", (draw(st.integers(1, 3)), draw(st.integers(1, 4))), small))
        return Case("stateless_categorical", [seed, logits], (T(0), T(1), draw(st.integers(0, 4))))

    @st.composite
    def tensor_random_case(draw, name, *params):
        seed = np.array([draw(seeds), draw(seeds)], np.int32)
        x = draw(arrays("float32", (draw(st.integers(1, 5)),), small))
        return Case(name, [seed, x], (T(0), T(1), *params))

    return {
        "scan": scan_case(),
        "map": map_case("map"),
        "vectorized_map": map_case("vectorized_map"),
        "associative_scan": assoc_case(),
        "fori_loop": fori_case(),
        "while_loop": while_case(),
        "cond": cond_case(),
        "switch": switch_case(),
        "scatter": scatter_case(),
        "scatter_update": scatter_update_case(),
        "slice": slice_case(),
        "slice_update": slice_update_case(),
        "saturate_cast": saturate_case(),
        "stop_gradient": stop_case(),
        "stateless_normal": random_case("stateless_normal", 1.0, 2.0),
        "stateless_uniform": random_case("stateless_uniform", -1.0, 3.0),
        "stateless_randint": random_case("stateless_randint", -5, 9),
        "stateless_truncated_normal": random_case("stateless_truncated_normal"),
        "stateless_gamma": random_case("stateless_gamma", 3.0),
        "stateless_beta": random_case("stateless_beta", 2.0, 3.0),
        "stateless_binomial": random_case("stateless_binomial", 5, 0.4),
        "stateless_categorical": categorical_case(),
        "stateless_dropout": tensor_random_case("stateless_dropout", 0.5),
        "stateless_shuffle": tensor_random_case("stateless_shuffle"),
    }
