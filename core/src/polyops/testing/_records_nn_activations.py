"""Op records of `polyops.ops.nn.activations` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import FLOATS, OpRecord

RECORDS: list[OpRecord] = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F = FLOATS + ("int32",)  # ints -> floatx


def _f(x):
    return np.asarray(x).astype(np.float64)


def _specials(shape=(2, 5)):
    """Normal values with NaN, +-inf and -0.0 mixed in (the first four slots)."""

    def make(dtype, rng):
        a = rng.normal(0, 2, shape).astype(np.float32)
        a.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.0]
        return [a.astype(_BF16 if dtype == "bfloat16" else dtype)]

    return make


def _wide(dtype, rng):
    """Values up to +-80 (+-30000 in float32): where naive exp/log overflow."""
    big = 30000.0 if dtype == "float32" else 80.0
    a = np.array([-big, -80, -30, -5, -1e-3, 0, 1e-3, 5, 30, 80, big], np.float32)
    return [a.astype(_BF16 if dtype == "bfloat16" else dtype)]


def _softplus(x):
    x = _f(x)
    return np.logaddexp(x, 0.0)


def _log_sigmoid(x):
    return -np.logaddexp(-_f(x), 0.0)


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * _f(x)))  # sigmoid, without overflow


def _silu(x):
    x = _f(x)
    return x * _sigmoid(x)


def _hard_sigmoid(x):
    return np.clip(_f(x) / 6 + 0.5, 0, 1)


def _elu(x, alpha=1.0):
    x = _f(x)
    with np.errstate(over="ignore"):
        return np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0)))


_SA, _SS = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _gelu(x, approximate=True):
    x = _f(x)
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    from scipy.special import erf

    return 0.5 * x * (1 + erf(x / np.sqrt(2)))


def _celu(x, alpha=1.0):
    x = _f(x)
    return np.maximum(x, 0) + alpha * np.expm1(np.minimum(x, 0) / alpha)


def _glu(x, axis=-1):
    a, b = np.split(_f(x), 2, axis)
    return a * _sigmoid(b)


def _soft_shrink(x, threshold=0.5):
    x = _f(x)
    return np.where(x > threshold, x - threshold, np.where(x < -threshold, x + threshold, 0.0))


def _hard_shrink(x, threshold=0.5):
    x = _f(x)
    return np.where(np.abs(x) > threshold, x, 0.0)


def _log_softmax(x, axis=-1):
    from scipy.special import log_softmax

    return log_softmax(_f(x), axis=axis)


def _sparsemax(x, axis=-1):
    """Sparsemax by bisection on tau (independent of the sort-based algorithm)."""
    x = np.moveaxis(_f(x), axis, -1)
    out = np.empty_like(x)
    if x.shape[-1] == 0:
        return np.moveaxis(out, -1, axis)
    for idx in np.ndindex(x.shape[:-1]):
        z = x[idx]
        lo, hi = z.max() - 1.0, z.max()
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if np.maximum(z - mid, 0).sum() > 1:
                lo = mid
            else:
                hi = mid
        out[idx] = np.maximum(z - 0.5 * (lo + hi), 0)
    return np.moveaxis(out, -1, axis)


RECORDS += [
    OpRecord("relu6", np_fn=lambda x: np.minimum(np.maximum(x, 0), 6), dtypes=FLOATS + ("int32", "uint8", "int8")),
    OpRecord("relu6", make=_specials(), id="relu6-specials",
             np_fn=lambda x: np.minimum(np.maximum(x, 0), 6)),
    OpRecord("sparse_sigmoid", dtypes=_F,
             np_fn=lambda x: np.clip(0.5 * (_f(x) + 1), 0, 1)),
    OpRecord("softplus", dtypes=_F, np_fn=_softplus),
    OpRecord("softplus", make=_wide, id="softplus-wide", dtypes=FLOATS, np_fn=_softplus),
    OpRecord("softplus", shapes=((),), id="softplus-0d", np_fn=_softplus),
    OpRecord("softplus", shapes=((0, 3),), id="softplus-empty", np_fn=_softplus),
    OpRecord("softsign", dtypes=_F, np_fn=lambda x: _f(x) / (1 + np.abs(_f(x)))),
    OpRecord("soft_shrink", dtypes=_F, np_fn=_soft_shrink),
    OpRecord("soft_shrink", kwargs=dict(threshold=1.5), id="soft_shrink-threshold", np_fn=_soft_shrink),
    OpRecord("sparse_plus", dtypes=_F,
             np_fn=lambda x: np.where(_f(x) <= -1, 0.0, np.where(_f(x) < 1, (_f(x) + 1) ** 2 / 4, _f(x)))),
    OpRecord("silu", dtypes=_F, np_fn=_silu),
    OpRecord("squareplus", dtypes=_F, np_fn=lambda x: (_f(x) + np.sqrt(_f(x) ** 2 + 4)) / 2),
    OpRecord("squareplus", kwargs=dict(b=0.5), id="squareplus-b",
             np_fn=lambda x, b: (_f(x) + np.sqrt(_f(x) ** 2 + b)) / 2),
    OpRecord("log_sigmoid", dtypes=_F, np_fn=_log_sigmoid),
    OpRecord("log_sigmoid", make=_wide, id="log_sigmoid-wide", dtypes=FLOATS, np_fn=_log_sigmoid),
    OpRecord("leaky_relu", dtypes=_F, np_fn=lambda x: np.where(_f(x) >= 0, _f(x), 0.2 * _f(x))),
    OpRecord("leaky_relu", kwargs=dict(negative_slope=1.5), id="leaky_relu-slope",
             np_fn=lambda x, negative_slope: np.where(_f(x) >= 0, _f(x), negative_slope * _f(x))),
    OpRecord("hard_sigmoid", dtypes=_F, np_fn=_hard_sigmoid),
    OpRecord("hard_silu", dtypes=_F, np_fn=lambda x: _f(x) * _hard_sigmoid(x)),
    OpRecord("elu", dtypes=_F, np_fn=_elu),
    OpRecord("elu", kwargs=dict(alpha=0.5), id="elu-alpha", np_fn=_elu),
    OpRecord("selu", dtypes=_F, np_fn=lambda x: _SS * _elu(x, _SA)),
    OpRecord("gelu", dtypes=_F, np_fn=_gelu),
    OpRecord("gelu", kwargs=dict(approximate=False), id="gelu-exact", dtypes=_F, np_fn=_gelu),
    OpRecord("gelu", make=_wide, kwargs=dict(approximate=False), id="gelu-exact-wide", dtypes=FLOATS,
             np_fn=_gelu),
    OpRecord("celu", dtypes=_F, np_fn=_celu),
    OpRecord("celu", kwargs=dict(alpha=2.0), id="celu-alpha", np_fn=_celu),
    OpRecord("glu", shapes=((2, 6),), dtypes=_F, np_fn=_glu),
    OpRecord("glu", shapes=((4, 3),), kwargs=dict(axis=0), id="glu-axis0", np_fn=_glu),
    OpRecord("glu", shapes=((2, 4, 3),), kwargs=dict(axis=-2), id="glu-axis-neg", np_fn=_glu),
    OpRecord("tanh_shrink", dtypes=_F, np_fn=lambda x: _f(x) - np.tanh(_f(x)),
             # x - tanh(x) cancels near 0: the relative error of the 16-bit inputs' tanh shows
             tol={"float16": dict(rtol=2e-3, atol=4e-3), "bfloat16": dict(rtol=2e-2, atol=4e-2)}),
    OpRecord("hard_tanh", dtypes=_F, np_fn=lambda x: np.clip(_f(x), -1, 1)),
    OpRecord("hard_tanh", make=_specials(), id="hard_tanh-specials", np_fn=lambda x: np.clip(_f(x), -1, 1)),
    OpRecord("hard_shrink", dtypes=_F, np_fn=_hard_shrink),
    OpRecord("hard_shrink", kwargs=dict(threshold=2.0), id="hard_shrink-threshold", np_fn=_hard_shrink),
    OpRecord("threshold", pre=(), kwargs=dict(threshold=0.5, default_value=-3.0), dtypes=_F,
             np_fn=lambda x, threshold, default_value: np.where(_f(x) > threshold, _f(x), default_value)),
    OpRecord("log_softmax", shapes=((3, 5),), dtypes=FLOATS, np_fn=_log_softmax),
    OpRecord("log_softmax", shapes=((3, 5),), kwargs=dict(axis=0), id="log_softmax-axis0", np_fn=_log_softmax),
    OpRecord("log_softmax", shapes=((4,),), make=lambda dtype, rng: [np.array([-1e4, 0, 5e3, 1e4], dtype)],
             id="log_softmax-large", np_fn=_log_softmax),
    OpRecord("sparsemax", shapes=((3, 5),), dtypes=_F, np_fn=_sparsemax,
             # bfloat16's cumulative sums and 1/k round; a few ulps of bfloat16 where the output is ~1
             tol={"bfloat16": dict(rtol=3e-2, atol=4e-2)}),
    OpRecord("sparsemax", shapes=((3, 4, 2),), kwargs=dict(axis=1), id="sparsemax-axis1", np_fn=_sparsemax),
    OpRecord("sparsemax", shapes=((2, 0),), id="sparsemax-empty", np_fn=_sparsemax),
    # IEEE specials (NaN, +-inf, -0.0): NaN propagates, the infinities take their limits
    OpRecord("softplus", make=_specials(), id="softplus-specials", dtypes=("float32", "float16"), np_fn=_softplus),
    OpRecord("log_sigmoid", make=_specials(), id="log_sigmoid-specials", np_fn=_log_sigmoid),
    OpRecord("elu", make=_specials(), id="elu-specials", np_fn=_elu),
    OpRecord("leaky_relu", make=_specials(), id="leaky_relu-specials",
             np_fn=lambda x: np.where(_f(x) >= 0, _f(x), 0.2 * _f(x))),
    OpRecord("hard_shrink", make=_specials(), id="hard_shrink-specials",
             np_fn=lambda x: np.where(np.abs(_f(x)) <= 0.5, 0.0, _f(x))),
    OpRecord("soft_shrink", make=_specials(), id="soft_shrink-specials",
             np_fn=lambda x: np.where(np.isnan(_f(x)), np.nan, _soft_shrink(x))),
    OpRecord("threshold", make=_specials(), kwargs=dict(threshold=0.0, default_value=2.0), id="threshold-specials",
             np_fn=lambda x, threshold, default_value: np.where(_f(x) <= threshold, default_value, _f(x))),
    OpRecord("sparse_sigmoid", make=_specials(), id="sparse_sigmoid-specials",
             np_fn=lambda x: np.where(np.isnan(_f(x)), np.nan, np.clip(0.5 * (_f(x) + 1), 0, 1))),
    OpRecord("gelu", dtypes=("bool", "uint8"), id="gelu-promote", np_fn=_gelu),
    OpRecord("relu6", shapes=((0, 4),), id="relu6-empty", np_fn=lambda x: np.minimum(np.maximum(x, 0), 6)),
    OpRecord("selu", shapes=((),), id="selu-0d", np_fn=lambda x: _SS * _elu(x, _SA)),
]

