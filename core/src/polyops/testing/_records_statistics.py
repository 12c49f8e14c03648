"""Op records of `polyops.ops.numpy.statistics` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)


def _np_dtype(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _quiet(fn):
    """NumPy warns on all-NaN slices and empty means; the values are what we check."""

    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return run


def _with_nans(shape=(3, 4, 5), all_nan_row=True, infs=True):
    """Floats with NaN (an all-NaN slice along the last axis too), +-inf and -0.0 mixed in.

    No slice along the last axis holds only infinities (openvino's max/min of an
    all -inf slice is a known kernel difference of `max`/`min`, not of these ops).
    """

    def make(dtype, rng):
        a = rng.normal(0, 2, shape).astype(np.float32)
        if dtype in ("float32", "float16", "bfloat16"):
            flat = a.reshape(-1)
            picks = rng.choice(flat.size, size=min(flat.size, 6), replace=False)
            specials = [np.nan, np.nan, -0.0, np.nan] + ([np.inf, -np.inf] if infs else [1.0, 2.0])
            flat[picks] = specials[: len(picks)]
            if all_nan_row and len(shape) >= 2:
                a[(0,) * (len(shape) - 1)] = np.nan
            return [a.astype(_np_dtype(dtype))]
        if dtype == "bool":
            return [rng.random(shape) > 0.5]
        return [rng.integers(0, 6, shape).astype(dtype)]

    return make


def _nan_arg(fn):
    """``fn`` (np.nanargmax/np.nanargmin) with -1 for an all-NaN slice (NumPy raises there)."""

    def run(x, axis=None, keepdims=False):
        x = np.asarray(x)
        if axis is None:
            flat = x.reshape(-1)
            out = np.asarray(-1 if np.isnan(flat).all() else fn(flat))
            return out.reshape((1,) * x.ndim) if keepdims else out
        mask = np.isnan(x).all(axis=axis, keepdims=True)
        filled = np.where(mask, 0, x)
        out = fn(filled, axis=axis, keepdims=True)
        out = np.where(mask, -1, out)
        return out if keepdims else np.squeeze(out, axis)

    return _quiet(run)


def _q(fn):
    """``np.quantile``-like call with the keywords the records use."""
    return _quiet(lambda x, **kw: fn(x, **kw))


def _median(fn):
    return _quiet(lambda x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims))


def _red(fn):
    return _quiet(lambda x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims))


def _average(x, axis=None, weights=None):
    return np.average(x, axis=axis, weights=weights)


def _ptp(x, axis=None, keepdims=False):
    if x.dtype == bool:
        return np.max(x, axis=axis, keepdims=keepdims) != np.min(x, axis=axis, keepdims=keepdims)
    return np.ptp(x, axis=axis, keepdims=keepdims)


_W = np.array([[0.5, 1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0], [3.0, 0.0, 0.0, 1.0]], np.float32)

# -- average and ptp -------------------------------------------------------------------------
RECORDS += [
    OpRecord("average", shapes=((3, 4),), kwargs=dict(axis=1), np_fn=_average,
             dtypes=("float32", "float16", "int32")),
    OpRecord("average", shapes=((3, 4),), kwargs=dict(axis=1, weights=_W), id="average-weights",
             np_fn=_average, dtypes=("float32", "int32")),
    OpRecord("average", shapes=((3, 4),), kwargs=dict(axis=-2, weights=_W[:, 0]), id="average-1d-weights",
             np_fn=_average),
    OpRecord("average", shapes=((3, 4),), kwargs=dict(weights=_W), id="average-all", np_fn=_average),
    OpRecord("average", shapes=((2, 3, 4),), kwargs=dict(axis=(0, 2)), id="average-axes", np_fn=_average),
    OpRecord("ptp", shapes=((3, 4, 5),), kwargs=dict(axis=1), np_fn=_ptp, dtypes=("float32", "int32", "uint8", "bool")),
    OpRecord("ptp", shapes=((3, 4, 5),), np_fn=_ptp, id="ptp-all", dtypes=("float32", "bfloat16")),
    OpRecord("ptp", shapes=((3, 4, 5),), kwargs=dict(axis=(0, -1), keepdims=True), id="ptp-axes", np_fn=_ptp),
    OpRecord("ptp", shapes=((3, 4, 5),), kwargs=dict(axis=-1), id="ptp-nan", make=_with_nans(), np_fn=_ptp),
]

# -- median and quantiles ----------------------------------------------------------------------
_QKW = dict(q=[0.0, 0.1, 0.3, 0.5, 0.75, 1.0], axis=-1)
RECORDS += [
    OpRecord("median", shapes=((3, 4, 5),), kwargs=dict(axis=1), np_fn=_median(np.median),
             dtypes=("float32", "float16", "int32", "bool")),
    OpRecord("median", shapes=((3, 4, 5),), id="median-all", np_fn=_median(np.median)),
    OpRecord("median", shapes=((3, 4, 5),), kwargs=dict(axis=(0, 2), keepdims=True), id="median-axes",
             np_fn=_median(np.median), dtypes=("float32", "uint8")),
    OpRecord("median", shapes=((3, 4, 5),), kwargs=dict(axis=-1), id="median-nan", make=_with_nans(),
             np_fn=_median(np.median), dtypes=("float32", "float16")),
    OpRecord("median", shapes=((),), id="median-0d", np_fn=_median(np.median)),
    OpRecord("median", shapes=((2, 0),), kwargs=dict(axis=1), id="median-empty", np_fn=_median(np.median)),
    OpRecord("quantile", shapes=((3, 4, 5),), kwargs=dict(q=0.3, axis=1), np_fn=_q(np.quantile),
             dtypes=("float32", "float16", "int32")),
    *[OpRecord("quantile", shapes=((3, 4, 5),), kwargs=dict(_QKW, method=m), id=f"quantile-{m}",
               np_fn=_q(np.quantile)) for m in ("linear", "lower", "higher", "midpoint", "nearest")],
    OpRecord("quantile", shapes=((3, 4, 5),), kwargs=dict(q=[0.2, 0.9], axis=(0, 2), keepdims=True),
             id="quantile-axes-keepdims", np_fn=_q(np.quantile)),
    OpRecord("quantile", shapes=((3, 4, 5),), kwargs=dict(q=[0.5]), id="quantile-all", np_fn=_q(np.quantile)),
    OpRecord("quantile", shapes=((3, 4, 5),), kwargs=dict(q=[0.25, 0.5], axis=-1), id="quantile-nan",
             make=_with_nans(infs=False), np_fn=_q(np.quantile)),
    OpRecord("percentile", shapes=((3, 4, 5),), kwargs=dict(q=30, axis=1), np_fn=_q(np.percentile),
             dtypes=("float32", "int32")),
    OpRecord("percentile", shapes=((3, 4, 5),), kwargs=dict(q=[10, 50, 100], axis=-1, method="nearest"),
             id="percentile-nearest", np_fn=_q(np.percentile)),
]

# -- NaN-ignoring reductions --------------------------------------------------------------------
_NAN_DTYPES = ("float32", "float16", "int32")
RECORDS += [
    OpRecord("nanmedian", shapes=((3, 4, 5),), kwargs=dict(axis=-1), make=_with_nans(),
             np_fn=_median(np.nanmedian), dtypes=_NAN_DTYPES),
    OpRecord("nanmedian", shapes=((3, 4, 5),), kwargs=dict(axis=(0, 1), keepdims=True), make=_with_nans(),
             id="nanmedian-axes", np_fn=_median(np.nanmedian)),
    OpRecord("nanmedian", shapes=((3, 4, 5),), make=_with_nans(), id="nanmedian-all",
             np_fn=_median(np.nanmedian)),
    *[OpRecord("nanquantile", shapes=((3, 4, 5),), kwargs=dict(_QKW, method=m),
               id="nanquantile" if m == "linear" else f"nanquantile-{m}", make=_with_nans(),
               np_fn=_q(np.nanquantile), dtypes=_NAN_DTYPES if m == "linear" else ("float32",))
      for m in ("linear", "midpoint", "nearest")],
    OpRecord("nanquantile", shapes=((3, 4, 5),), kwargs=dict(q=0.5, axis=1), make=_with_nans(),
             id="nanquantile-axis1", np_fn=_q(np.nanquantile)),
    OpRecord("nanpercentile", shapes=((3, 4, 5),), kwargs=dict(q=[25, 75], axis=-1), make=_with_nans(),
             np_fn=_q(np.nanpercentile), dtypes=_NAN_DTYPES),
    OpRecord("nanpercentile", shapes=((3, 4, 5),), kwargs=dict(q=40), make=_with_nans(),
             id="nanpercentile-all", np_fn=_q(np.nanpercentile)),
]
for _name in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"):
    _fn = _red(getattr(np, _name))
    RECORDS += [
        OpRecord(_name, shapes=((3, 4, 5),), kwargs=dict(axis=-1), make=_with_nans(), np_fn=_fn,
                 dtypes=_NAN_DTYPES + (("bool",) if _name in ("nansum", "nanmax") else ())),
        OpRecord(_name, shapes=((3, 4, 5),), kwargs=dict(axis=(0, 2), keepdims=True),
                 make=_with_nans(), id=f"{_name}-axes", np_fn=_fn),
    ]
    if _name in ("nanmean", "nanmax"):
        RECORDS.append(OpRecord(_name, shapes=((3, 4, 5),), make=_with_nans(), id=f"{_name}-all", np_fn=_fn))
RECORDS += [
    OpRecord("nansum", shapes=((4, 5),), dtypes=("int8", "uint8"), id="nansum-widen", np_fn=_red(np.nansum)),
    OpRecord("nanmean", shapes=((2, 0),), kwargs=dict(axis=1), id="nanmean-empty", np_fn=_red(np.nanmean)),
    OpRecord("nanargmax", shapes=((3, 4, 5),), kwargs=dict(axis=-1), make=_with_nans(),
             np_fn=_nan_arg(np.nanargmax), dtypes=("float32", "float16", "int32", "bool")),
    OpRecord("nanargmax", shapes=((3, 4, 5),), make=_with_nans(), id="nanargmax-flat",
             np_fn=_nan_arg(np.nanargmax)),
    OpRecord("nanargmax", shapes=((3, 4, 5),), kwargs=dict(axis=1, keepdims=True), make=_with_nans(),
             id="nanargmax-keepdims", np_fn=_nan_arg(np.nanargmax)),
    OpRecord("nanargmin", shapes=((3, 4, 5),), kwargs=dict(axis=-1), make=_with_nans(),
             np_fn=_nan_arg(np.nanargmin), dtypes=("float32", "bfloat16", "int32")),
    OpRecord("nanargmin", shapes=((3, 4, 5),), make=_with_nans(), id="nanargmin-flat",
             np_fn=_nan_arg(np.nanargmin)),
]

# -- correlation --------------------------------------------------------------------------------
RECORDS += [
    OpRecord("corrcoef", shapes=((3, 6),), np_fn=lambda x: np.corrcoef(x), dtypes=("float32", "float16", "int32")),
    OpRecord("corrcoef", shapes=((6,),), id="corrcoef-1d", np_fn=lambda x: np.corrcoef(x)),
    OpRecord("corrcoef", shapes=((4, 1),), id="corrcoef-one-observation", np_fn=_quiet(np.corrcoef)),
]
