"""Shared fixtures: every test that takes ``backend`` runs once per installed backend."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
import polyops.ops  # noqa: F401  (the op families load on first use; tests read the op records)

BACKENDS = polyops.available_backends()


def pytest_generate_tests(metafunc):
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", BACKENDS)


def pytest_report_header(config):
    return f"polyops backends: {', '.join(BACKENDS) or 'none'}"


def to_numpy(x):
    """A result (tensor, tuple of tensors, scalar) as numpy, through the current backend."""
    if isinstance(x, (tuple, list)):
        return type(x)(to_numpy(t) for t in x)
    return polyops.ops.convert_to_numpy(x)


@pytest.fixture
def rng():
    return np.random.default_rng(0)


# -- hypothesis profiles (tests/test_properties.py) ----------------------------------
# "ci" (default): few examples per op, derandomized so every run tests the same inputs.
# "thorough": many random examples; select with `pytest --hypothesis-profile thorough`.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci", max_examples=10, deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)
settings.load_profile("ci")
