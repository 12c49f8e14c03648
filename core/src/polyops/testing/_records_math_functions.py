"""Op records of `polyops.ops.math.functions` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import FLOATS, OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
_INTS = ("int32", "int8", "int16", "uint8")


def _npd(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


def _f64(a):
    return np.asarray(a).astype(np.float64)


def _sp(name):
    """scipy.special.<name> in float64 (imported lazily)."""

    def run(*xs):
        import scipy.special

        return getattr(scipy.special, name)(*[_f64(x) for x in xs])

    return run


# ----- segment reductions ---------------------------------------------------------------

_EMPTY = {"sum": lambda d: 0, "prod": lambda d: 1,
          "max": lambda d: -np.inf if d.kind == "f" or d == _BF16 else np.iinfo(d).min,
          "min": lambda d: np.inf if d.kind == "f" or d == _BF16 else np.iinfo(d).max}


def _segment_np(kind):
    def run(data, segment_ids, num_segments=None, sorted=False):
        data, ids = np.asarray(data), np.asarray(segment_ids)
        if num_segments is None:
            num_segments = max(int(ids.max()) + 1, 0) if ids.size else 0
        dt = data.dtype
        out = np.empty((num_segments,) + data.shape[1:], np.float64 if dt.kind == "f" or dt == _BF16 else np.int64)
        for s in range(num_segments):
            rows = data[ids == s].astype(out.dtype)
            if kind == "sum":
                out[s] = rows.sum(0)
            elif kind == "prod":
                out[s] = rows.prod(0)
            elif rows.shape[0] == 0:
                out[s] = _EMPTY[kind](dt)
            else:
                out[s] = rows.max(0) if kind == "max" else rows.min(0)
        return out

    return run


def _segment_make(n=6, rest=(3,), num_ids=4, sort=False):
    def make(dtype, rng):
        data = rng.integers(-4, 5, (n,) + rest) if dtype in _INTS else rng.normal(0, 2, (n,) + rest)
        if dtype == "uint8":
            data = np.abs(data)
        ids = rng.integers(-1, num_ids + 1, (n,))  # -1 and num_ids: dropped
        if sort:
            ids = np.sort(ids)
        return [np.asarray(data).astype(np.float32).astype(_npd(dtype)), ids.astype(np.int32)]

    return make


for _kind in ("sum", "max", "min", "prod"):
    _name = f"segment_{_kind}"
    RECORDS += [
        OpRecord(_name, make=_segment_make(), kwargs=dict(num_segments=4), np_fn=_segment_np(_kind),
                 dtypes=FLOATS + ("int32", "int8")),
        OpRecord(_name, make=_segment_make(5, (), 3, sort=True), kwargs=dict(num_segments=5, sorted=True),
                 np_fn=_segment_np(_kind), id=f"{_name}-1d-sorted-empty-segments"),
        OpRecord(_name, make=_segment_make(4, (2, 2), 3), np_fn=_segment_np(_kind),
                 id=f"{_name}-num-segments-none"),
        OpRecord(_name, make=_segment_make(0, (2,), 3), kwargs=dict(num_segments=3),
                 np_fn=_segment_np(_kind), id=f"{_name}-zero-rows"),
    ]


# ----- top_k, in_top_k ------------------------------------------------------------------


def _top_k_np(x, k, sorted=True):
    x = np.asarray(x)
    key = np.where(np.isnan(x.astype(np.float64)), np.inf, x.astype(np.float64))
    nan_first = np.isnan(x.astype(np.float64))
    # lexsort: last key is primary -> NaN first, then descending value, then ascending index
    n = x.shape[-1]
    flat = x.reshape(-1, n)
    idx = np.empty(flat.shape[:-1] + (k,), np.int32)
    for r in range(flat.shape[0]):
        kr, nr = key.reshape(-1, n)[r], nan_first.reshape(-1, n)[r]
        order = np.lexsort((np.arange(n), -kr, ~nr))
        idx[r] = order[:k]
    idx = idx.reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, idx, -1), idx


def _ties(dtype, rng):
    x = rng.integers(-3, 4, (3, 7)).astype(np.float32)  # many ties
    if dtype in ("float32", "float16", "bfloat16"):
        x[0, 2] = np.nan
        x[1, 4] = np.inf
    if dtype == "uint8":
        x = np.abs(x)
    return [x.astype(_npd(dtype))]


RECORDS += [
    OpRecord("top_k", shapes=((3, 6),), kwargs=dict(k=3), np_fn=_top_k_np, dtypes=FLOATS + ("int32", "uint8")),
    OpRecord("top_k", make=_ties, kwargs=dict(k=5), np_fn=_top_k_np, id="top_k-ties-nan",
             dtypes=("float32", "int8", "bfloat16")),
    OpRecord("top_k", shapes=((2, 3, 4),), kwargs=dict(k=4, sorted=False), np_fn=_top_k_np, id="top_k-full-unsorted"),
    OpRecord("top_k", shapes=((5,),), kwargs=dict(k=0), np_fn=_top_k_np, id="top_k-k0"),
    OpRecord("top_k", shapes=((0, 3),), kwargs=dict(k=2), np_fn=_top_k_np, id="top_k-zero-size"),
]


def _in_top_k_np(targets, predictions, k):
    t, p = np.asarray(targets), np.asarray(predictions).astype(np.float64)
    out = np.zeros(t.shape, bool)
    for i, c in enumerate(t):
        if 0 <= c < p.shape[1]:
            at = -np.inf if np.isnan(p[i, c]) else p[i, c]
            out[i] = (p[i] > at).sum() < k
    return out


def _in_top_k_make(b=6, c=5, ties=False):
    def make(dtype, rng):
        p = rng.integers(0, 3, (b, c)) if ties else rng.normal(0, 2, (b, c))
        p = np.asarray(p, np.float32)
        if dtype in FLOATS and b > 1:
            p[0, 1] = np.nan
            p[1, :] = np.nan
        t = rng.integers(-1, c + 1, (b,)).astype(np.int32)
        if b > 1:
            t[:2] = 1
        return [t, p.astype(_npd(dtype))]

    return make


RECORDS += [
    OpRecord("in_top_k", make=_in_top_k_make(), kwargs=dict(k=2), np_fn=_in_top_k_np,
             dtypes=FLOATS + ("int32",)),
    OpRecord("in_top_k", make=_in_top_k_make(8, 4, ties=True), kwargs=dict(k=1), np_fn=_in_top_k_np,
             id="in_top_k-ties", dtypes=("float32", "int8")),
    OpRecord("in_top_k", make=_in_top_k_make(0, 3), kwargs=dict(k=1), np_fn=_in_top_k_np, id="in_top_k-empty"),
]


# ----- logsumexp ------------------------------------------------------------------------


def _logsumexp_np(x, axis=None, keepdims=False):
    import scipy.special

    x = _f64(x)
    with np.errstate(all="ignore"):
        return scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)


def _lse_specials(dtype, rng):
    x = (rng.normal(0, 30, (4, 5))).astype(np.float32)
    x[0] = -np.inf
    x[1, 2] = np.inf
    x[2, 0] = 80.0  # exp overflows float32 without the max shift
    return [x.astype(_npd(dtype))]


RECORDS += [
    OpRecord("logsumexp", shapes=((3, 4, 5),), np_fn=_logsumexp_np, dtypes=FLOATS + ("int32", "uint8")),
    OpRecord("logsumexp", shapes=((3, 4, 5),), kwargs=dict(axis=(0, -1), keepdims=True), np_fn=_logsumexp_np,
             id="logsumexp-axes-keepdims"),
    OpRecord("logsumexp", make=_lse_specials, kwargs=dict(axis=-1), np_fn=_logsumexp_np, id="logsumexp-inf-large",
             dtypes=("float32",)),
    OpRecord("logsumexp", shapes=((),), np_fn=_logsumexp_np, id="logsumexp-0d"),
    OpRecord("logsumexp", shapes=((2, 0),), kwargs=dict(axis=1), np_fn=_logsumexp_np, id="logsumexp-empty"),
]


# ----- cdist, extract_sequences, logdet ---------------------------------------------------


def _cdist_np(x, y):
    x, y = _f64(x), _f64(y)
    return np.sqrt(((x[..., :, None, :] - y[..., None, :, :]) ** 2).sum(-1))


def _frames_np(x, sequence_length, sequence_stride):
    x = np.asarray(x)
    n = max(1 + (x.shape[-1] - sequence_length) // sequence_stride, 0)
    idx = np.arange(n)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]
    return x[..., idx]


def _spd(dtype, rng, batch=(2,), n=3):
    a = rng.normal(0, 1, batch + (n, n))
    m = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return [m.astype(np.float32).astype(_npd(dtype))]


RECORDS += [
    OpRecord("cdist", shapes=((4, 3), (5, 3)), np_fn=_cdist_np, dtypes=FLOATS + ("int32",)),
    OpRecord("cdist", shapes=((2, 1, 3, 2), (4, 2, 2)), np_fn=_cdist_np, id="cdist-batch-broadcast"),
    OpRecord("cdist", shapes=((0, 3), (2, 3)), np_fn=_cdist_np, id="cdist-zero-size"),
    OpRecord("extract_sequences", shapes=((2, 10),), kwargs=dict(sequence_length=4, sequence_stride=3),
             np_fn=_frames_np, dtypes=FLOATS + ("int32", "uint8", "bool")),
    OpRecord("extract_sequences", shapes=((7,),), kwargs=dict(sequence_length=2, sequence_stride=1),
             np_fn=_frames_np, id="extract_sequences-1d-overlap"),
    OpRecord("extract_sequences", shapes=((2, 3, 2),), kwargs=dict(sequence_length=3, sequence_stride=2),
             np_fn=_frames_np, id="extract_sequences-too-short"),
    OpRecord("logdet", make=_spd, np_fn=lambda x: np.linalg.slogdet(_f64(x))[1], dtypes=FLOATS,
             # bfloat16 input rounding moves log det by ~1e-2 relative to the float32 reference
             tol={"bfloat16": dict(rtol=5e-2, atol=5e-2)}),
    OpRecord("logdet", make=lambda d, rng: _spd(d, rng, (), 4), np_fn=lambda x: np.linalg.slogdet(_f64(x))[1],
             id="logdet-2d"),
    OpRecord("logdet", make=lambda d, rng: [np.eye(3, dtype=np.int32) * 2], np_fn=lambda x: np.linalg.slogdet(_f64(x))[1],
             id="logdet-int", dtypes=("int32",)),
    OpRecord("logdet", make=lambda d, rng: _spd(d, rng, (0,), 2), np_fn=lambda x: np.linalg.slogdet(_f64(x))[1],
             id="logdet-empty-batch"),
]


# ----- special functions ------------------------------------------------------------------


def _grid(lo, hi, n=41, extra=()):
    def make(dtype, rng):
        x = np.concatenate([np.linspace(lo, hi, n), extra]).astype(np.float32)
        if dtype in _INTS:
            x = np.round(x)
            if dtype == "uint8":
                x = np.abs(x)
        return [x.astype(_npd(dtype))]

    return make


RECORDS += [
    OpRecord("rsqrt", domain="positive", np_fn=lambda x: 1 / np.sqrt(_f64(x)), dtypes=FLOATS + ("int32",)),
    OpRecord("rsqrt", make=_grid(0, 4, 9, (-1.0, np.inf, np.nan)), np_fn=lambda x: _quiet(lambda: 1 / np.sqrt(_f64(x))),
             id="rsqrt-specials"),
    OpRecord("rsqrt", shapes=((),), domain="positive", np_fn=lambda x: 1 / np.sqrt(_f64(x)), id="rsqrt-0d"),
    OpRecord("erf", np_fn=_sp("erf"), dtypes=FLOATS + ("int32", "int8")),
    OpRecord("erf", make=_grid(-6, 6, 121, (np.inf, -np.inf, np.nan, -0.0)), np_fn=_sp("erf"), id="erf-grid"),
    OpRecord("erf", shapes=((0, 2),), np_fn=_sp("erf"), id="erf-zero-size"),
    OpRecord("erfc", np_fn=_sp("erfc"), dtypes=FLOATS + ("int32", "uint8")),
    # erfc spans 2 .. 1e-37 here: values from 1e-37 up compare relatively (atol tiny)
    OpRecord("erfc", make=_grid(-6, 9, 151, (np.inf, -np.inf, np.nan)), np_fn=_sp("erfc"), id="erfc-grid-tail",
             tol={"float32": dict(rtol=2e-5, atol=1e-38)}),
    OpRecord("erfc", shapes=((),), np_fn=_sp("erfc"), id="erfc-0d"),
    OpRecord("erfinv", domain="unit", np_fn=_sp("erfinv"), dtypes=FLOATS),
    OpRecord("erfinv", make=_grid(-1, 1, 201, (1.5, -2.0, np.nan, 0.999999, -0.9999999)), np_fn=_sp("erfinv"),
             id="erfinv-grid-edges"),
    OpRecord("erfinv", make=lambda d, rng: [np.array([-1, 0, 1, 2], d)], np_fn=_sp("erfinv"), id="erfinv-int",
             dtypes=("int32", "int8")),
]


def _gammainc_make(dtype, rng):
    a = np.array([0.05, 0.5, 1.0, 2.5, 7.0, 15.0, 40.0, 90.0], np.float32)[:, None]
    x = np.array([0.0, 0.01, 0.3, 1.0, 3.0, 6.5, 14.0, 45.0, 100.0, 250.0, np.inf], np.float32)[None, :]
    return [a.astype(_npd(dtype)), x.astype(_npd(dtype))]


def _gammainc_bad(dtype, rng):
    return [np.array([-1.0, 0.0, 1.0, np.nan, 2.0], np.float32), np.array([1.0, 1.0, -0.5, 1.0, np.nan], np.float32)]


RECORDS += [
    OpRecord("gammainc", make=_gammainc_make, np_fn=_sp("gammainc"), dtypes=FLOATS,
             # float32 P near a ~ x ~ 90 is good to ~3e-5 relative (see the docstring)
             tol={"float32": dict(rtol=5e-5, atol=3e-6)}),
    OpRecord("gammainc", shapes=((2, 3), (3,)), domain="positive", np_fn=_sp("gammainc"), id="gammainc-broadcast",
             dtypes=("float32", "int32")),
    # a <= 0 is NaN by design (SciPy gives its limit 1 at a = 0, x > 0)
    OpRecord("gammainc", make=_gammainc_bad, id="gammainc-nan-domain",
             np_fn=lambda a, x: np.where(_f64(a) <= 0, np.nan, _sp("gammainc")(a, x))),
    OpRecord("gammainc", shapes=((), ()), domain="positive", np_fn=_sp("gammainc"), id="gammainc-0d"),
]


def _quiet(fn):
    with np.errstate(all="ignore"):
        return fn()
