"""Empty operands answered by core: the ``empty`` fills that ops declare equal NumPy's.

For a kernel that takes no zero-size operand (`polyops.plugin.nonempty`, or every kernel of
a runtime with ``empty_tensors=False``) core builds the result of a call with a zero-size
operand itself: from the rule's specs, filled with the op's declared ``empty`` value where
the result is not zero-size (sum 0, prod 1, det 1, mean NaN...).  The cases are the op
table's, with dims set to 0; the numpy backend (whose kernels take empty operands) is the
reference.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops._op import OPS, NonEmpty, make_entry
from polyops._registry import get_backend
from polyops.testing import OpRecord, cases, make_inputs
from polyops.testing._check import call, outputs, specs, symbolic_call
from polyops.testing._records import arrange

from conftest import BACKENDS


def _variants(inputs):
    """Shapes with zeros: each dim size set to 0 in every input at once (a contraction
    dim empties both operands), then each dim of each input alone."""
    seen = set()
    for d in sorted({d for a in inputs for d in a.shape}):
        seen.add(tuple(tuple(0 if x == d else x for x in a.shape) for a in inputs))
    for i, a in enumerate(inputs):
        for ax in range(a.ndim):
            seen.add(tuple(tuple(0 if (j == i and k == ax) else x for k, x in enumerate(b.shape))
                           for j, b in enumerate(inputs)))
    return sorted(s for s in seen if any(0 in x for x in s))


def _numpy_call(rec, arrays):
    """The numpy backend's outputs, or None where the call fails (the op rejects it)."""
    with polyops.use_backend("numpy"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in arrays]
            return [np.asarray(ops.convert_to_numpy(o)) for o in outputs(call(rec, tensors))]
        except Exception:
            return None


# ops whose table has no case that reaches the fill
_EXTRA = [
    (OpRecord("min", shapes=((0, 3),), kwargs=dict(axis=0, initial=5.0), id="min-empty-initial"),
     "float32"),
    (OpRecord("vdot", shapes=((0,), (0,))), "float32"),
    (OpRecord("norm", shapes=((3, 0),), kwargs=dict(ord=-1, axis=1), id="norm-negative-ord"),
     "float32"),
]


def _empty_cases():
    """(record, dtype, inputs) with a zero-size operand and a result that is not zero-size
    on the numpy backend, one per distinct output shape set, for the ops with ``empty``."""
    out, seen = [], set()
    for rec, dtype in cases() + _EXTRA:
        op = OPS[rec.name]
        if op.empty is None or op.tree or not (rec.shapes or rec.make):
            continue
        inputs = make_inputs(rec, dtype)
        for shapes in _variants(inputs):
            arrays = [np.zeros(s, a.dtype) if 0 in s else a for s, a in zip(shapes, inputs)]
            got = _numpy_call(rec, arrays)
            if got is None or all(o.size == 0 for o in got):
                continue
            # (a conv kernel with a zero spatial size: numpy's output shape is not the rule's)
            spec = outputs(symbolic_call(rec, specs(arrays)))
            if [tuple(t.shape) for t in spec] != [o.shape for o in got]:
                continue
            key = (rec.name, dtype, tuple(o.shape for o in got))
            if key not in seen:
                seen.add(key)
                out.append((rec, dtype, arrays))
    return out


CASES = _empty_cases()
IDS = [f"{rec.case_id}-{dtype}-{'x'.join(str(a.shape) for a in arrays)}"
       for rec, dtype, arrays in CASES]


def _assert_same(got, want):
    assert len(got) == len(want), f"{len(got)} outputs, numpy gives {len(want)}"
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{g.shape} {g.dtype} != {w.shape} {w.dtype}"
        np.testing.assert_array_equal(g, w)


def _no_kernel(*args):
    raise AssertionError("the kernel was called: core should answer an empty operand")


def test_every_fill_has_a_case():
    """Each op that declares ``empty`` meets a call where its fill is used (take's fill is
    reached only under a trace, where an index into an empty axis is not checked)."""
    covered = {rec.name for rec, _, _ in CASES}
    declared = {name for name, op in OPS.items() if op.empty is not None}
    assert declared - covered <= {"take"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fill_matches_numpy(case):
    """Core's answer (a kernel marked nonempty, never called) equals the numpy kernel's."""
    rec, dtype, arrays = case
    want = _numpy_call(rec, arrays)
    op = OPS[rec.name]
    backend = get_backend("numpy")
    with polyops.use_backend("numpy"):
        tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in arrays]
        bound = op.signature.bind(*rec.pre, *arrange(rec, tensors), **rec.kwargs)
        bound.apply_defaults()
        entry = make_entry(op, NonEmpty(_no_kernel), backend)
        got = outputs(entry(*bound.args, *bound.kwargs.values()))
        got = [np.asarray(ops.convert_to_numpy(o)) for o in got]
    _assert_same(got, want)


@pytest.mark.skipif("openvino" not in BACKENDS, reason="openvino is not installed")
def test_openvino_empty_operands_match_numpy():
    """The real path: openvino's runtime takes no empty tensors, so core answers them."""
    assert get_backend("openvino").runtime.empty_tensors is False
    failures = []
    for (rec, dtype, arrays), case_id in zip(CASES, IDS):
        want = _numpy_call(rec, arrays)
        with polyops.use_backend("openvino"):
            try:
                tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype))
                           for a in arrays]
                got = [np.asarray(ops.convert_to_numpy(o)) for o in outputs(call(rec, tensors))]
            except TypeError:  # a dtype openvino lacks (complex, float64...)
                continue
        try:
            _assert_same(got, want)
        except AssertionError as exc:
            failures.append(f"{case_id}: {exc}")
    assert not failures, "\n".join(failures)
