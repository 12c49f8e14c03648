"""Op records of `polyops.ops.numpy.sorting` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)


def _np_dtype(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _with_specials(dtype, rng, shape=(3, 4), lo=0, hi=4):
    """Values with repeats (small ints); floats also get NaN, +-inf and -0.0."""
    if dtype == "bool":
        return rng.random(shape) > 0.5
    a = rng.integers(lo, hi, shape)
    if dtype.startswith(("int", "uint")):
        return a.astype(dtype)
    a = (a - 1.5).astype(np.float32)
    if a.size >= 5:
        a.flat[:5] = [np.nan, np.inf, -np.inf, -0.0, np.nan]
        rng.shuffle(a.reshape(-1))
    return a.astype(_np_dtype(dtype))


def _special(shape=(3, 4)):
    return lambda dtype, rng: [_with_specials(dtype, rng, shape)]


def _argsort(x, axis=-1):
    return np.argsort(x, axis=axis, kind="stable")


def _sort(x, axis=-1):
    return np.sort(x, axis=axis, kind="stable")


# -- sort and partition ----------------------------------------------------------------------
RECORDS += [
    OpRecord("argsort", shapes=((3, 4),), np_fn=_argsort, dtypes=("float32", "int32", "bool", "float16")),
    OpRecord("argsort", shapes=((3, 4),), make=_special(), id="argsort-specials",
             np_fn=_argsort, dtypes=("float32", "float16", "int8")),
    OpRecord("argsort", shapes=((3, 4, 2),), kwargs=dict(axis=0), id="argsort-axis0",
             np_fn=lambda x, axis: _argsort(x, axis)),
    OpRecord("argsort", shapes=((3, 4),), kwargs=dict(axis=None), id="argsort-flat",
             make=_special(), np_fn=lambda x, axis: _argsort(x, axis)),
    OpRecord("argsort", shapes=((),), id="argsort-0d", np_fn=lambda x: np.argsort(x)),
    OpRecord("argsort", shapes=((2, 0),), id="argsort-empty", np_fn=_argsort),
    OpRecord("sort", shapes=((3, 4),), np_fn=_sort, dtypes=("float32", "int32", "bool", "float16")),
    OpRecord("sort", shapes=((3, 4),), make=_special(), id="sort-specials", np_fn=_sort,
             dtypes=("float32", "uint8")),
    OpRecord("sort", shapes=((3, 4, 2),), kwargs=dict(axis=-3), id="sort-axis0",
             np_fn=lambda x, axis: _sort(x, axis)),
    OpRecord("sort", shapes=((3, 4),), kwargs=dict(axis=None), id="sort-flat",
             np_fn=lambda x, axis: _sort(x, axis)),
    OpRecord("sort", shapes=((),), kwargs=dict(axis=None), id="sort-0d",
             np_fn=lambda x, axis: _sort(x, axis)),
    OpRecord("sort", shapes=((0, 3),), kwargs=dict(axis=0), id="sort-empty",
             np_fn=lambda x, axis: _sort(x, axis)),
    OpRecord("argpartition", shapes=((3, 4),), kwargs=dict(kth=1), make=_special(),
             np_fn=lambda x, kth: _argsort(x), dtypes=("float32", "int32")),
    OpRecord("argpartition", shapes=((3, 4),), kwargs=dict(kth=(0, -1), axis=None),
             id="argpartition-flat", np_fn=lambda x, kth, axis: _argsort(x, None)),
    OpRecord("argpartition", shapes=((3, 4),), kwargs=dict(kth=2, axis=0),
             id="argpartition-axis0", np_fn=lambda x, kth, axis: _argsort(x, 0)),
]


# -- searching -------------------------------------------------------------------------------


def _sorted_and_values(dtype, rng):
    seq = np.sort(_with_specials(dtype, rng, (7,), 0, 5).astype(np.float32) if dtype != "bool"
                  else rng.random(7) > 0.5, kind="stable")
    vals = _with_specials(dtype, rng, (3, 4), 0, 6)
    return [seq.astype(_np_dtype(dtype)), vals]


def _bins(dtype, rng):
    x = _with_specials(dtype, rng, (3, 4), 0, 6)
    bins = np.array([0, 1, 1, 3], np.float32) - (1.5 if dtype in ("float32", "float16") else 0)
    return [x, bins.astype(_np_dtype(dtype))]


def _decreasing_bins(dtype, rng):
    x, bins = _bins(dtype, rng)
    return [x, bins[::-1].copy()]


RECORDS += [
    OpRecord("searchsorted", shapes=((7,), (3, 4)), make=_sorted_and_values,
             np_fn=np.searchsorted, dtypes=("float32", "int32", "float16")),
    OpRecord("searchsorted", shapes=((7,), (3, 4)), make=_sorted_and_values, kwargs=dict(side="right"),
             id="searchsorted-right", np_fn=lambda s, v, side: np.searchsorted(s, v, side=side),
             dtypes=("float32", "uint8", "bool")),
    OpRecord("searchsorted", shapes=((0,), (3,)), id="searchsorted-empty", np_fn=np.searchsorted),
    OpRecord("digitize", shapes=((3, 4), (4,)), make=_bins, np_fn=np.digitize,
             dtypes=("float32", "int32", "float16")),
    OpRecord("digitize", shapes=((3, 4), (4,)), make=_decreasing_bins, id="digitize-decreasing",
             np_fn=np.digitize, dtypes=("float32", "int8")),
    OpRecord("digitize", shapes=((), (1,)), id="digitize-0d", np_fn=np.digitize),
]


# -- counting --------------------------------------------------------------------------------


def _counts_input(dtype, rng):
    return [rng.integers(0, 6, (9,)).astype(dtype) if dtype != "bool" else rng.random(9) > 0.5]


def _bincount(x, weights=None, minlength=0):
    x = np.asarray(x).astype(np.int64)
    if x.ndim == 2:
        n = max(int(x.max()) + 1 if x.size else 0, minlength)
        return np.stack([np.bincount(r, None if weights is None else w, minlength=n)
                         for r, w in zip(x, weights if weights is not None else x)])
    return np.bincount(x, weights, minlength=minlength)


def _unique_size(x, size, fill_value=None, return_index=False, return_counts=False):
    vals, index, counts = np.unique(x, return_index=True, return_counts=True)
    pad = max(size - len(vals), 0)
    fill = 0 if fill_value is None else fill_value
    out = [np.concatenate([vals[:size], np.full(pad, fill, vals.dtype)])]
    if return_index:
        out.append(np.concatenate([index[:size], np.ones(pad, np.int64)]))
    if return_counts:
        out.append(np.concatenate([counts[:size], np.zeros(pad, np.int64)]))
    return out[0] if len(out) == 1 else tuple(out)


RECORDS += [
    OpRecord("bincount", shapes=((9,),), make=_counts_input, np_fn=_bincount,
             dtypes=("int32", "uint8", "int8", "bool")),
    OpRecord("bincount", shapes=((9,), (9,)), id="bincount-weights",
             make=lambda dtype, rng: _counts_input(dtype, rng) + [rng.normal(0, 1, 9).astype(np.float32)],
             np_fn=_bincount, dtypes=("int32", "uint8")),
    OpRecord("bincount", shapes=((9,),), make=_counts_input, kwargs=dict(minlength=12),
             id="bincount-minlength", np_fn=_bincount, dtypes=("int32",)),
    OpRecord("bincount", shapes=((0,),), kwargs=dict(minlength=3), id="bincount-empty",
             np_fn=_bincount, dtypes=("int32",)),
    OpRecord("bincount", shapes=((2, 5), (2, 5)), id="bincount-batched",
             make=lambda dtype, rng: [rng.integers(0, 4, (2, 5)).astype(dtype),
                                      rng.normal(0, 1, (2, 5)).astype(np.float32)],
             np_fn=_bincount, dtypes=("int32",)),
    OpRecord("histogram", shapes=((20,),), np_fn=np.histogram, dtypes=("float32", "int32")),
    OpRecord("histogram", shapes=((4, 5),), kwargs=dict(bins=4, range=(-2, 2)), id="histogram-range",
             np_fn=lambda x, bins, range: np.histogram(x, bins=bins, range=range),
             dtypes=("float32", "float16")),
    OpRecord("histogram", shapes=((12,),), kwargs=dict(bins=5),
             make=lambda dtype, rng: [rng.integers(0, 11, 12).astype(dtype)], id="histogram-int-edges",
             np_fn=lambda x, bins: np.histogram(x, bins=bins), dtypes=("int32", "uint8")),
    OpRecord("histogram", shapes=((0,),), kwargs=dict(bins=3), id="histogram-empty",
             np_fn=lambda x, bins: np.histogram(x, bins=bins)),
    OpRecord("histogram", shapes=((3,),), kwargs=dict(bins=2), id="histogram-constant",
             make=lambda dtype, rng: [np.full(3, 2, dtype)],
             np_fn=lambda x, bins: np.histogram(x, bins=bins)),
    OpRecord("unique", shapes=((3, 4),), make=_special(), np_fn=np.unique,
             dtypes=("float32", "int32", "bool", "float16")),
    OpRecord("unique", shapes=((3, 4),), make=_special(), id="unique-all",
             kwargs=dict(return_index=True, return_inverse=True, return_counts=True),
             np_fn=lambda x, **kw: np.unique(x, **kw), dtypes=("float32", "int8")),
    OpRecord("unique", shapes=((3, 4),), make=_special(), id="unique-size-pad",
             kwargs=dict(size=9, fill_value=-1, return_index=True, return_counts=True),
             np_fn=_unique_size, dtypes=("float32", "int32")),
    OpRecord("unique", shapes=((3, 4),), make=_special(), id="unique-size-truncate",
             kwargs=dict(size=2, return_counts=True), np_fn=_unique_size),
    OpRecord("unique", shapes=((),), id="unique-0d", kwargs=dict(return_inverse=True),
             np_fn=lambda x, return_inverse: np.unique(x, return_inverse=True)),
    OpRecord("unique", shapes=((0, 2),), id="unique-empty", kwargs=dict(return_counts=True),
             np_fn=lambda x, return_counts: np.unique(x, return_counts=True)),
    OpRecord("nonzero", shapes=((3, 4),), make=_special(), np_fn=np.nonzero,
             dtypes=("float32", "int32", "bool")),
    OpRecord("nonzero", shapes=((7,),), domain="small", id="nonzero-1d", np_fn=np.nonzero, dtypes=("int32",)),
    OpRecord("nonzero", shapes=((2, 0, 3),), id="nonzero-empty", np_fn=np.nonzero),
    OpRecord("isin", shapes=((3, 4), (5,)), domain="small", np_fn=np.isin,
             dtypes=("int32", "float32", "bool", "uint8")),
    OpRecord("isin", shapes=((3, 4), (2, 3)), id="isin-specials-invert", kwargs=dict(invert=True),
             make=lambda dtype, rng: [_with_specials(dtype, rng), _with_specials(dtype, rng, (2, 3))],
             np_fn=lambda a, b, invert: np.isin(a, b, invert=invert), dtypes=("float32",)),
    OpRecord("isin", shapes=((), (0,)), id="isin-0d-empty", np_fn=np.isin),
    OpRecord("count_nonzero", shapes=((3, 4),), make=_special(), np_fn=np.count_nonzero,
             dtypes=("float32", "int32", "bool")),
    OpRecord("count_nonzero", shapes=((3, 4, 5),), domain="small", kwargs=dict(axis=(0, -1)),
             id="count_nonzero-axes", np_fn=lambda x, axis: np.count_nonzero(x, axis=axis),
             dtypes=("int32",)),
    OpRecord("count_nonzero", shapes=((3, 0),), kwargs=dict(axis=1), id="count_nonzero-empty",
             np_fn=lambda x, axis: np.count_nonzero(x, axis=axis)),
]


# -- cumulative ------------------------------------------------------------------------------


def _cum(fn, dtype=None):
    def f(x, axis=None, dtype=dtype):
        if x.dtype == bool or (x.dtype.kind in "iu" and x.dtype.itemsize < 4):
            x = x.astype(np.uint32 if x.dtype.kind == "u" else np.int32)
        return fn(x, axis=axis, dtype=dtype)
    return f


_LOW = {"float16": dict(rtol=1e-2, atol=1e-2), "bfloat16": dict(rtol=5e-2, atol=5e-2)}


def _wrap8(dtype, rng):
    return [np.array([[100, 100, 100, -128], [127, 1, 1, 1]], dtype)]


for _name in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
    _fn = getattr(np, _name)
    _dom = "unit" if "prod" in _name else "any"
    _nan = _name.startswith("nan")
    RECORDS += [
        OpRecord(_name, shapes=((3, 4),), np_fn=_cum(_fn), domain=_dom, tol=_LOW,
                 dtypes=("float32", "float16") if _nan else ("float32", "int32", "int8", "bool")),
        OpRecord(_name, shapes=((3, 4),), kwargs=dict(axis=-1), id=f"{_name}-specials", make=_special(),
                 np_fn=_cum(_fn), dtypes=("float32",)),
        OpRecord(_name, shapes=((2, 3, 4),), kwargs=dict(axis=1), id=f"{_name}-axis1", domain=_dom,
                 np_fn=_cum(_fn)),
    ]
    if not _nan:
        RECORDS += [
            OpRecord(_name, shapes=((2, 4),), kwargs=dict(axis=1, dtype="int8"), id=f"{_name}-wrap-int8",
                     make=_wrap8, np_fn=lambda x, axis, dtype, f=_fn: f(x, axis=axis, dtype=dtype),
                     dtypes=("int8",)),
            OpRecord(_name, shapes=((3, 4),), kwargs=dict(axis=0, dtype="float32"), id=f"{_name}-dtype",
                     domain="small", np_fn=lambda x, axis, dtype, f=_fn: f(x, axis=axis, dtype=dtype),
                     dtypes=("int32",)),
            OpRecord(_name, shapes=((),), id=f"{_name}-0d", np_fn=_cum(_fn)),
            OpRecord(_name, shapes=((0, 3),), kwargs=dict(axis=0), id=f"{_name}-empty", np_fn=_cum(_fn)),
        ]
