"""The conformance suite: collected by ``pytest --pyargs polyops.testing --polyops-backend NAME``.

Checks, for every op record x the chosen backend(s): the eager shape and dtype
equal the symbolic spec, values match NumPy, the reference implementation agrees
with a native kernel where both exist; and, backend-independently, that rules
infer with None dims.  Registry behaviour: the backend loads, selects, scopes,
and leaves no op missing.
"""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops._op import get_op
from polyops._registry import get_backend
from polyops.testing import (
    assert_case, assert_reference_matches, case_id, cases,
)
from polyops.testing._check import assert_none_dims, lacks_dtype
from polyops.testing.pytest_plugin import expected_failures

CASES = cases()


def pytest_generate_tests(metafunc):
    backends = metafunc.config.getoption("--polyops-backend")
    if "kit_backend" in metafunc.fixturenames:
        if not backends:
            raise pytest.UsageError("the polyops conformance kit needs --polyops-backend NAME")
        metafunc.parametrize("kit_backend", backends)


def _record(request, backend, name, outcome):
    request.config._polyops_results.setdefault(backend, []).append((name, outcome))


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_op(case, kit_backend, request):
    rec, dtype = case
    cid = f"{rec.name}|{case_id(case)}"
    backend = get_backend(kit_backend)
    supported = set(backend.runtime.dtypes.values())
    if lacks_dtype(rec, dtype, supported):
        _record(request, kit_backend, rec.name, "unsupported")
        pytest.skip(f"{kit_backend} does not support a dtype of this case (not in its Runtime.dtypes)")
    reason = expected_failures(request.config, kit_backend).get(cid)
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    try:
        assert_case(rec, dtype, kit_backend)
    except BaseException:
        _record(request, kit_backend, rec.name, "failed")
        raise
    _record(request, kit_backend, rec.name, "passed")


@pytest.mark.parametrize("case", [c for c in CASES if c[0].shapes][::3],
                         ids=[case_id(c) for c in CASES if c[0].shapes][::3])
def test_reference_agrees_with_native(case, kit_backend):
    rec, dtype = case
    op = get_op(rec.name)
    backend = get_backend(kit_backend)
    if op.ref is None or backend.sources.get(rec.name) != "native":
        return  # nothing to compare: the op is primitive here or served by the reference
    if rec.shapes and dtype not in set(backend.runtime.dtypes.values()):
        return
    assert_reference_matches(rec, dtype, kit_backend)


@pytest.mark.parametrize("case", [c for c in CASES if c[0].shapes][::2],
                         ids=[case_id(c) for c in CASES if c[0].shapes][::2])
def test_none_dims(case):
    assert_none_dims(*case)


def test_registry_behaviour(kit_backend, request):
    backend = get_backend(kit_backend)
    assert backend.status == "loaded"
    missing = sorted(n for n, s in backend.sources.items() if s == "missing")
    assert not missing, f"{kit_backend} has no kernel and no reference for {missing}"
    before = polyops.backend()
    with polyops.use_backend(kit_backend):
        assert polyops.backend() == kit_backend
        x = ops.convert_to_tensor(np.arange(3, dtype="float32"))
        assert isinstance(x, backend.runtime.tensor_types)
        assert ops.dtype(x) == "float32"
        np.testing.assert_array_equal(ops.convert_to_numpy(x), [0, 1, 2])
    assert polyops.backend() == before
    _record(request, kit_backend, "registry", "passed")
