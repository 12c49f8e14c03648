"""Op records of `polyops.ops.numpy.products` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import numpy as np

from ._records import OpRecord

_PRODUCTS = ("float32", "int32", "int8", "bool")


def _wide(a, bools=False):
    """Inputs for an independent NumPy result: ints in int64 (no int8 overflow); bool kept,
    or in int64 too with ``bools``."""
    a = np.asarray(a)
    return a.astype(np.int64) if a.dtype.kind in "iu" or (bools and a.dtype == bool) else a


def _f64(a):
    return np.asarray(a).astype(np.float64)


def _pair(fn):
    return lambda x1, x2, **kw: fn(_wide(x1), _wide(x2), **kw)


def _cross_np(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """np.cross with 2-vectors padded by a zero z-component (NumPy 2 deprecates 2-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = np.moveaxis(_wide(a, True), axisa, -1), np.moveaxis(_wide(b, True), axisb, -1)
    pad = lambda v: np.concatenate([v, np.zeros_like(v[..., :1])], -1) if v.shape[-1] == 2 else v  # noqa: E731
    return np.cross(pad(a), pad(b), axisc=axisc)


def _slogdet_np(x):
    sign, logdet = np.linalg.slogdet(_f64(x))
    return sign, logdet


def _matrices(shape):
    """Well-conditioned square matrices (diagonally dominant), for every dtype."""

    def make(dtype, rng):
        n = shape[-1]
        if dtype in ("int32", "int8"):
            a = rng.integers(-3, 4, shape) + 12 * np.eye(n, dtype=np.int64) * rng.choice([-1, 1], shape[:-1] + (1,))
            return [a.astype(dtype)]
        if dtype == "bool":  # unit upper-triangular: determinant 1
            return [np.eye(n, dtype=bool) | (np.triu(np.ones((n, n), bool), 1) & (rng.random(shape) > 0.5))]
        a = rng.normal(0, 1, shape) + 4 * np.eye(n) * rng.choice([-1, 1], shape[:-1] + (1,))
        if dtype == "bfloat16":
            import ml_dtypes
            return [a.astype(np.float32).astype(ml_dtypes.bfloat16)]
        return [a.astype(dtype)]

    return make


def _const(*arrays):
    return lambda dtype, rng: [np.asarray(a, dtype) for a in arrays]


def _trap_x(dtype, rng):
    y = rng.normal(0, 2, (3, 5)).astype(dtype)
    x = np.sort(rng.uniform(-2, 2, (5,))).astype(dtype)
    return [y, x]


def _window(fn):
    return lambda *args: fn(*args).astype(np.float32)


RECORDS: list[OpRecord] = [
    # products: dtypes follow matmul (int8 x int8 -> int32), values from int64/float64 NumPy
    OpRecord("outer", shapes=((2, 3), (4,)), np_fn=_pair(np.outer), dtypes=_PRODUCTS),
    OpRecord("outer", shapes=((), (3,)), np_fn=_pair(np.outer), id="outer-0d"),
    OpRecord("outer", shapes=((0,), (3,)), np_fn=_pair(np.outer), id="outer-empty"),
    OpRecord("kron", shapes=((2, 3), (2, 2)), np_fn=_pair(np.kron), dtypes=_PRODUCTS),
    OpRecord("kron", shapes=((2, 3), (4,)), np_fn=_pair(np.kron), id="kron-ranks"),
    OpRecord("kron", shapes=((), (2, 3)), np_fn=_pair(np.kron), id="kron-0d"),
    OpRecord("inner", shapes=((2, 3), (4, 3)), np_fn=_pair(np.inner), dtypes=_PRODUCTS + ("float16",)),
    OpRecord("inner", shapes=((3,), (3,)), np_fn=_pair(np.inner), id="inner-1d"),
    OpRecord("inner", shapes=((), (2, 3)), np_fn=_pair(np.inner), id="inner-0d"),
    OpRecord("inner", shapes=((2, 0), (3, 0)), np_fn=_pair(np.inner), id="inner-empty"),
    OpRecord("vdot", shapes=((2, 3), (6,)), np_fn=_pair(np.vdot), dtypes=_PRODUCTS + ("bfloat16",)),
    OpRecord("vdot", shapes=((), ()), np_fn=_pair(np.vdot), id="vdot-0d"),
    OpRecord("tensordot", shapes=((2, 3, 4), (3, 4, 5)), np_fn=_pair(np.tensordot),
             dtypes=_PRODUCTS + ("float16",)),
    OpRecord("tensordot", shapes=((2, 3, 4), (4, 5, 2)), kwargs=dict(axes=((0, -1), (2, 0))),
             np_fn=_pair(np.tensordot), id="tensordot-pairs"),
    OpRecord("tensordot", shapes=((2, 3), (3, 4)), kwargs=dict(axes=1), np_fn=_pair(np.tensordot),
             id="tensordot-1"),
    OpRecord("tensordot", shapes=((2,), (3,)), kwargs=dict(axes=0), np_fn=_pair(np.tensordot),
             id="tensordot-0", dtypes=("float32", "bool")),
    OpRecord("tensordot", shapes=((2, 3), (3, 2)), kwargs=dict(axes=(1, 0)), np_fn=_pair(np.tensordot),
             id="tensordot-int-pair"),
    # cross: vectors of 3, or 2 and 3 (the 2 x 2 z-component form is in test_numpy_products)
    OpRecord("cross", shapes=((4, 3), (4, 3)), np_fn=_cross_np, dtypes=("float32", "int32", "int8")),
    OpRecord("cross", shapes=((4, 2), (1, 3)), np_fn=_cross_np, id="cross-2-3"),
    OpRecord("cross", shapes=((2, 1, 3), (4, 2)), np_fn=_cross_np, id="cross-3-2-broadcast"),
    OpRecord("cross", shapes=((3, 4), (3, 4)), kwargs=dict(axis=0), id="cross-axis", np_fn=_cross_np),
    OpRecord("cross", shapes=((4, 3), (3, 4)), kwargs=dict(axisb=0, axisc=0), id="cross-axisb-axisc",
             np_fn=_cross_np),
    OpRecord("cross", shapes=((3,), (3,)), dtypes=("bool",), id="cross-bool", np_fn=_cross_np),
    # integration and correlation: floating results
    OpRecord("trapezoid", shapes=((3, 5),), np_fn=lambda y: np.trapezoid(_f64(y)),
             dtypes=("float32", "int32", "float16", "bool")),
    OpRecord("trapezoid", shapes=((4, 3),), kwargs=dict(dx=0.5, axis=0), id="trapezoid-dx-axis0",
             np_fn=lambda y, dx, axis: np.trapezoid(y, dx=dx, axis=axis)),
    OpRecord("trapezoid", make=_trap_x, np_fn=lambda y, x: np.trapezoid(y, x), id="trapezoid-x",
             shapes=((3, 5), (5,))),
    OpRecord("trapezoid", shapes=((3, 5), (1, 5)), np_fn=lambda y, x: np.trapezoid(y, x),
             id="trapezoid-x-broadcast"),
    OpRecord("trapezoid", shapes=((2, 0),), np_fn=lambda y: np.trapezoid(y), id="trapezoid-empty"),
    OpRecord("correlate", shapes=((5,), (3,)), np_fn=lambda a, b: np.correlate(_f64(a), _f64(b)),
             dtypes=("float32", "int32", "float16", "bool")),
    OpRecord("correlate", shapes=((5,), (3,)), kwargs=dict(mode="same"), id="correlate-same",
             np_fn=lambda a, b, mode: np.correlate(a, b, mode)),
    OpRecord("correlate", shapes=((3,), (6,)), kwargs=dict(mode="same"), id="correlate-same-short",
             np_fn=lambda a, b, mode: np.correlate(a, b, mode)),
    OpRecord("correlate", shapes=((4,), (6,)), kwargs=dict(mode="full"), id="correlate-full",
             np_fn=lambda a, b, mode: np.correlate(a, b, mode)),
    OpRecord("correlate", shapes=((2,), (5,)), id="correlate-valid-short",
             np_fn=lambda a, b: np.correlate(a, b)),
    # slogdet: (sign, logabsdet) of well-conditioned matrices, singular ones, n == 0
    OpRecord("slogdet", shapes=((2, 3, 3),), make=_matrices((2, 3, 3)), np_fn=_slogdet_np,
             dtypes=("float32", "int32", "float16", "bool")),
    OpRecord("slogdet", shapes=((4, 4),), make=_matrices((4, 4)), np_fn=_slogdet_np, id="slogdet-4"),
    OpRecord("slogdet", shapes=((3, 2, 2),), id="slogdet-singular", np_fn=_slogdet_np,
             make=_const([[[1, 2], [2, 4]], [[0, 1], [1, 0]], [[0, 0], [3, 1]]])),
    OpRecord("slogdet", shapes=((2, 0, 0),), np_fn=_slogdet_np, id="slogdet-empty"),
    # windows: a Python int of points, floatx results
    OpRecord("bartlett", shapes=(), pre=(7,), np_fn=_window(np.bartlett)),
    OpRecord("bartlett", shapes=(), pre=(1,), np_fn=_window(np.bartlett), id="bartlett-1"),
    OpRecord("bartlett", shapes=(), pre=(0,), np_fn=_window(np.bartlett), id="bartlett-0"),
    OpRecord("blackman", shapes=(), pre=(8,), np_fn=_window(np.blackman)),
    OpRecord("blackman", shapes=(), pre=(-2,), np_fn=_window(np.blackman), id="blackman-negative"),
    OpRecord("hamming", shapes=(), pre=(6,), np_fn=_window(np.hamming)),
    OpRecord("hamming", shapes=(), pre=(1,), np_fn=_window(np.hamming), id="hamming-1"),
    OpRecord("hanning", shapes=(), pre=(9,), np_fn=_window(np.hanning)),
    OpRecord("kaiser", shapes=(), pre=(7, 14.0), np_fn=_window(np.kaiser)),
    OpRecord("kaiser", shapes=(), pre=(6,), kwargs=dict(beta=0.5), id="kaiser-small-beta",
             np_fn=lambda m, beta: np.kaiser(m, beta).astype(np.float32)),
    OpRecord("kaiser", shapes=(), pre=(10, 60), np_fn=_window(np.kaiser), id="kaiser-large-beta"),
    OpRecord("kaiser", shapes=(), pre=(5, -3.0), np_fn=_window(np.kaiser), id="kaiser-negative-beta"),
    OpRecord("kaiser", shapes=(), pre=(4, 0.0), np_fn=_window(np.kaiser), id="kaiser-0"),
]
