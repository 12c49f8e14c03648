"""Shared fixtures: every test that takes ``backend`` runs once per installed backend."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
import polyops.ops  # noqa: F401
from polyops._op import every_op

# The op modules load on first use (polyops.ops._lazy); tests read polyops._op.OPS and the op
# records directly, so every op is defined before collection.  (tests/test_import.py checks
# the lazy loading itself, in fresh processes.)
every_op()

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


def tensor(values, dtype="float32"):
    """``values`` (lists, numpy data) as a tensor of the current backend, cast by numpy.

    ``dtype=None`` keeps the values' own numpy dtype, 64-bit ones too (where
    ``ops.convert_to_tensor`` would demote them and turn Python floats into floatx).
    """
    values = np.asarray(values)
    if dtype is None:
        dtype = polyops.standardize_dtype(values.dtype)
    return polyops.ops.convert_to_tensor(values.astype(dtype), dtype)


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


# -- memory of a long run ---------------------------------------------------------------
# The table-wide transform tests compile hundreds of programs (jax executables, Dynamo
# graphs, OpenVINO models) that each framework keeps cached for the life of the process.
# After those modules the jax and torch caches are dropped, so an xdist worker's memory
# stays bounded on a 24 GiB machine; later modules then compile what they need, as in a
# fresh process.  OpenVINO's models are left to the plugin's own bounded cache (about
# 0.2 MiB a model): destroying thousands at once took up to 29 minutes in CI.
_COMPILE_HEAVY = frozenset({"test_gradients", "test_jit_table", "test_repeated_calls"})


@pytest.fixture(autouse=True, scope="module")
def _drop_compiled_programs(request):
    yield
    if request.module.__name__.rpartition(".")[2] not in _COMPILE_HEAVY:
        return
    import gc
    import sys

    if "jax" in sys.modules:
        sys.modules["jax"].clear_caches()
    if "torch._dynamo" in sys.modules:
        sys.modules["torch._dynamo"].reset()
    gc.collect()
