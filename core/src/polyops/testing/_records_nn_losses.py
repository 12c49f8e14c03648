"""Op records of `polyops.ops.nn.losses` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

RECORDS: list = []

_BF16 = np.dtype(ml_dtypes.bfloat16)
EPS = 1e-7  # polyops.config.epsilon() default


def _np_dtype(dtype):
    return _BF16 if dtype == "bfloat16" else np.dtype(dtype)


# -- one_hot, multi_hot ----------------------------------------------------------------


def _np_one_hot(x, num_classes, axis=-1, dtype="float32"):
    x = np.asarray(x).astype(np.int64)
    out = (x[..., None] == np.arange(num_classes)).astype(np.float32)
    return np.moveaxis(out, -1, axis)


def _labels(shape, lo=0, hi=3):  # in range: out-of-range labels raise (tests/test_indices.py)
    def make(dtype, rng):
        if dtype.startswith("u"):
            lo_ = 0
        else:
            lo_ = lo
        return [rng.integers(lo_, hi, shape).astype(dtype)]

    return make


def _np_multi_hot(x, num_classes, axis=-1, dtype="float32"):
    oh = _np_one_hot(x, num_classes, axis)
    return oh.max(axis=1 if x.ndim > 1 else 0) if oh.size else oh.sum(axis=1 if x.ndim > 1 else 0)


RECORDS += [
    OpRecord("one_hot", make=_labels((2, 3)), kwargs=dict(num_classes=5), np_fn=_np_one_hot,
             dtypes=("int32", "int8", "uint8", "int16")),
    OpRecord("one_hot", make=_labels((2, 3)), kwargs=dict(num_classes=4, axis=0), id="one_hot-axis0",
             np_fn=_np_one_hot, dtypes=("int32",)),
    OpRecord("one_hot", make=_labels((2, 3)), kwargs=dict(num_classes=4, axis=-2, dtype="int32"),
             id="one_hot-neg-axis-int32", np_fn=_np_one_hot, dtypes=("int32",)),
    OpRecord("one_hot", make=_labels(()), kwargs=dict(num_classes=3, dtype="bfloat16"), id="one_hot-0d",
             np_fn=_np_one_hot, dtypes=("int32",)),
    OpRecord("one_hot", make=_labels((0, 2)), kwargs=dict(num_classes=3), id="one_hot-empty",
             np_fn=_np_one_hot, dtypes=("int32",)),
    OpRecord("multi_hot", make=_labels((3, 4)), kwargs=dict(num_classes=5), np_fn=_np_multi_hot,
             dtypes=("int32", "uint8")),
    OpRecord("multi_hot", make=_labels((4,)), kwargs=dict(num_classes=6), id="multi_hot-1d",
             np_fn=_np_multi_hot, dtypes=("int32",)),
    OpRecord("multi_hot", make=_labels((2, 3, 2)), kwargs=dict(num_classes=4, axis=0, dtype="int32"),
             id="multi_hot-3d-axis0", np_fn=_np_multi_hot, dtypes=("int32",)),
]


# -- crossentropies ---------------------------------------------------------------------


def _probs_pair(shape, logits=False, soft=False):
    def make(dtype, rng):
        t = rng.uniform(0, 1, shape) if soft else (rng.uniform(0, 1, shape) > 0.5).astype(np.float64)
        o = rng.normal(0, 2, shape) if logits else rng.uniform(0.02, 0.98, shape)
        o[..., 0] = 0.0 if not logits else o[..., 0]  # a probability of 0 exercises the clip
        return [t.astype(np.float32).astype(_np_dtype(dtype)), o.astype(np.float32).astype(_np_dtype(dtype))]

    return make


def _np_bce(t, o, from_logits=False):
    t, o = t.astype(np.float64), o.astype(np.float64)
    if from_logits:
        # independent: -(t log sigmoid(o) + (1 - t) log sigmoid(-o)) via logaddexp
        return t * np.logaddexp(0, -o) + (1 - t) * np.logaddexp(0, o)
    o = np.clip(o, EPS, 1 - EPS)
    return -(t * np.log(o) + (1 - t) * np.log(1 - o))


def _np_log_probs(o, from_logits, axis):
    o = o.astype(np.float64)
    if from_logits:
        return o - np.log(np.sum(np.exp(o - o.max(axis=axis, keepdims=True)), axis=axis, keepdims=True)) \
            - o.max(axis=axis, keepdims=True)
    p = o / o.sum(axis=axis, keepdims=True)
    return np.log(np.clip(p, EPS, 1 - EPS))


def _np_cce(t, o, from_logits=False, axis=-1):
    return -np.sum(t.astype(np.float64) * _np_log_probs(o, from_logits, axis), axis=axis)


# 16-bit outputs of a loss with log(epsilon)-sized terms: the rounding of the result shows
_LOW_TOL = {"float16": dict(rtol=5e-3, atol=5e-3), "bfloat16": dict(rtol=2e-2, atol=3e-2)}

RECORDS += [
    OpRecord("binary_crossentropy", make=_probs_pair((3, 4)), np_fn=_np_bce,
             dtypes=("float32", "float16", "bfloat16"), tol=_LOW_TOL),
    OpRecord("binary_crossentropy", make=_probs_pair((3, 4), logits=True, soft=True),
             kwargs=dict(from_logits=True), id="binary_crossentropy-logits", np_fn=_np_bce,
             dtypes=("float32", "float16"), tol=_LOW_TOL),
    OpRecord("binary_crossentropy", make=lambda dtype, rng: [
        np.asarray(rng.uniform(0, 1), np.float32), np.asarray(rng.uniform(0.1, 0.9), np.float32)],
        id="binary_crossentropy-0d", np_fn=_np_bce),
    OpRecord("categorical_crossentropy", make=_probs_pair((3, 5), soft=True), np_fn=_np_cce,
             dtypes=("float32", "float16", "bfloat16"), tol=_LOW_TOL),
    OpRecord("categorical_crossentropy", make=_probs_pair((3, 4, 2), logits=True, soft=True),
             kwargs=dict(from_logits=True, axis=1), id="categorical_crossentropy-logits-axis1",
             np_fn=_np_cce),
    OpRecord("categorical_crossentropy", make=_probs_pair((4, 3), soft=True), kwargs=dict(axis=0),
             id="categorical_crossentropy-axis0", np_fn=_np_cce),
]


def _sparse_pair(tshape, oshape, logits=False, hi=None):
    def make(dtype, rng):
        classes = oshape[-1] if hi is None else hi
        t = rng.integers(0, classes, tshape).astype(np.int32)
        o = rng.normal(0, 2, oshape) if logits else rng.uniform(0.02, 0.98, oshape)
        return [t, o.astype(np.float32).astype(_np_dtype(dtype))]

    return make


def _np_scce(t, o, from_logits=False, axis=-1):
    axis = axis % o.ndim
    if t.ndim == o.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    lp = _np_log_probs(o, from_logits, axis)
    lp = np.moveaxis(lp, axis, -1)
    c = lp.shape[-1]
    t = t.astype(np.int64)
    valid = (t >= 0) & (t < c)
    picked = np.take_along_axis(lp, np.where(valid, t, 0)[..., None], axis=-1)[..., 0]
    return -np.where(valid, picked, 0.0)


RECORDS += [
    OpRecord("sparse_categorical_crossentropy", make=_sparse_pair((3,), (3, 5)), np_fn=_np_scce,
             dtypes=("float32", "float16", "bfloat16"), tol=_LOW_TOL),
    OpRecord("sparse_categorical_crossentropy", make=_sparse_pair((2, 3), (2, 3, 4), logits=True),
             kwargs=dict(from_logits=True), id="sparse_categorical_crossentropy-logits", np_fn=_np_scce),
    OpRecord("sparse_categorical_crossentropy", make=_sparse_pair((3, 1), (3, 4)),
             id="sparse_categorical_crossentropy-trailing1", np_fn=_np_scce),
    OpRecord("sparse_categorical_crossentropy", make=_sparse_pair((2,), (4, 2), hi=4), kwargs=dict(axis=0),
             id="sparse_categorical_crossentropy-axis0", np_fn=_np_scce),
]


# -- CTC -------------------------------------------------------------------------------


def _np_ctc(target, output, target_length, output_length, mask_index=0):
    """Textbook CTC forward recursion over the blank-extended label (float64, log space)."""
    x = output.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    logp = x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
    out = []
    for b in range(x.shape[0]):
        labels = [int(v) for v in target[b, : int(target_length[b])]]
        ext = [mask_index]
        for lab in labels:
            ext += [lab, mask_index]
        s_len = len(ext)
        t_len = int(output_length[b])
        alpha = np.full(s_len, -np.inf)
        alpha[0] = logp[b, 0, ext[0]]
        if s_len > 1:
            alpha[1] = logp[b, 0, ext[1]]
        for t in range(1, t_len):
            new = np.full(s_len, -np.inf)
            for s in range(s_len):
                terms = [alpha[s]]
                if s >= 1:
                    terms.append(alpha[s - 1])
                if s >= 2 and ext[s] != mask_index and ext[s] != ext[s - 2]:
                    terms.append(alpha[s - 2])
                new[s] = np.logaddexp.reduce(terms) + logp[b, t, ext[s]]
            alpha = new
        total = np.logaddexp(alpha[-1], alpha[-2]) if s_len > 1 else alpha[-1]
        out.append(-total)
    return np.asarray(out, np.float32)


def _ctc_make(batch, time, classes, labels, lengths, out_lengths, mask_index=0, repeats=False):
    def make(dtype, rng):
        choices = [c for c in range(classes) if c != mask_index]
        target = rng.choice(choices, size=(batch, labels)).astype(np.int32)
        if repeats:
            target[:, 1] = target[:, 0]
        output = rng.normal(0, 1.5, (batch, time, classes)).astype(np.float32).astype(_np_dtype(dtype))
        return [target, output, np.asarray(lengths, np.int32), np.asarray(out_lengths, np.int32)]

    return make


# 16-bit logits are rounded before a float32 computation: compare with the same inputs,
# the loss itself is float32 (a sum over frames of log-probabilities)
RECORDS += [
    OpRecord("ctc_loss", make=_ctc_make(2, 6, 5, 3, [3, 2], [6, 5]), np_fn=_np_ctc,
             dtypes=("float32", "float16", "bfloat16"), tol={"float32": dict(rtol=1e-4, atol=1e-4)}),
    OpRecord("ctc_loss", make=_ctc_make(3, 7, 4, 3, [3, 1, 2], [7, 4, 6], repeats=True), np_fn=_np_ctc,
             id="ctc_loss-repeats", tol={"float32": dict(rtol=1e-4, atol=1e-4)}),
    OpRecord("ctc_loss", make=_ctc_make(2, 5, 4, 2, [2, 1], [5, 5], mask_index=3),
             kwargs=dict(mask_index=3), id="ctc_loss-mask3", np_fn=_np_ctc,
             tol={"float32": dict(rtol=1e-4, atol=1e-4)}),
]


def _np_greedy(inputs, lengths, strategy="greedy", merge_repeated=True, mask_index=0):
    x = inputs.astype(np.float32)
    b, t, c = x.shape
    paths = np.full((1, b, t), -1, np.int32)
    scores = np.zeros((b, 1), np.float32)
    for i in range(b):
        n = int(lengths[i])
        best = [int(np.argmax(x[i, j])) for j in range(min(n, t))]
        scores[i, 0] = -sum(float(x[i, j, best[j]]) for j in range(len(best)))
        seq, prev = [], None
        for k in best:
            if not (merge_repeated and k == prev) and k != mask_index:
                seq.append(k)
            prev = k
        paths[0, i, : len(seq)] = seq
    return paths, scores


def _decode_make(batch, time, classes, lengths):
    def make(dtype, rng):
        x = rng.normal(0, 2, (batch, time, classes)).astype(np.float32)
        x[0, 1] = x[0, 0]  # a repeat
        return [x.astype(_np_dtype(dtype)), np.asarray(lengths, np.int32)]

    return make


RECORDS += [
    OpRecord("ctc_decode", make=_decode_make(3, 6, 4, [6, 3, 0]), np_fn=_np_greedy,
             dtypes=("float32", "float16", "bfloat16")),
    OpRecord("ctc_decode", make=_decode_make(2, 5, 3, [5, 4]), kwargs=dict(strategy="greedy", merge_repeated=False),
             id="ctc_decode-no-merge", np_fn=_np_greedy),
    OpRecord("ctc_decode", make=_decode_make(2, 5, 4, [5, 5]), kwargs=dict(strategy="greedy", mask_index=3),
             id="ctc_decode-mask3", np_fn=_np_greedy),
]
