"""Generic op tests driven by the op table (`polyops.testing`), for every case x backend."""

from __future__ import annotations

import pytest

import polyops
from polyops._op import OPS
from polyops._registry import get_backend
from polyops.testing import (
    assert_case, assert_reference_matches, case_id, cases,
)
from polyops.testing._check import assert_none_dims

from conftest import BACKENDS
from xfails import mark

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_values_shape_and_dtype(case, backend, request):
    """Eager result: values match NumPy; shape and dtype equal the symbolic spec."""
    rec, dtype = case
    mark(request, case_id(case), backend)
    assert_case(rec, dtype, backend)


TENSOR_CASES = [c for c in CASES if c[0].shapes]


@pytest.mark.parametrize("case", TENSOR_CASES, ids=[case_id(c) for c in TENSOR_CASES])
def test_none_dims(case):
    """With every input dim unknown, the rule still infers: each dim is None or the true size."""
    assert_none_dims(*case)


def _ref_pairs():
    pairs = []
    for backend in BACKENDS:
        sources = get_backend(backend).sources
        for rec, dtype in CASES:
            op = OPS[rec.name]
            if op.ref is not None and sources.get(rec.name) == "native":
                pairs.append(((rec, dtype), backend))
    return pairs


REF_PAIRS = _ref_pairs()


@pytest.mark.parametrize(
    "case,backend_name", REF_PAIRS, ids=[f"{case_id(c)}-{b}" for c, b in REF_PAIRS]
)
def test_reference_matches_native(case, backend_name):
    """Where a backend has a native kernel for a composite op, the reference agrees with it."""
    rec, dtype = case
    assert_reference_matches(rec, dtype, backend_name)


def test_every_op_has_a_record():
    """The table covers every op that core defines, but the random family: its numbers come
    from polyops's own generator, not NumPy's, so tests/test_random.py checks them
    (statistics, reproducibility, the same numbers on every backend)."""
    tabled = {name for name in OPS if OPS[name].family != "random"}
    assert tabled - {rec.name for rec, _ in CASES} == set()
    assert all(OPS[rec.name].family != "random" for rec, _ in CASES)


@pytest.mark.parametrize("name", sorted(OPS))
def test_reference_or_kernel_on_every_backend(name, backend):
    """No op is missing on any installed backend."""
    assert get_backend(backend).sources[name] in ("native", "reference", "host")


def test_conformance_report_of_every_backend(backend):
    """The shipped conformance check passes on our own backends and reports per family."""
    report = polyops.testing.check_backend(backend)
    assert report.ok, report.summary()
    assert set(report.family_rates()) == {"core", "nn", "numpy", "math", "linalg", "image"}
