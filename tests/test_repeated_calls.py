"""Repeated calls are cheap and flat: after the first call of an op at a signature, further
calls compile nothing and the process memory stays flat, for every op on every backend.

One case per op: the op table's first case (`polyops.testing.cases`), and for the random
family (which the table leaves to tests/test_random.py) a draw through `polyops.random`
with a SeedGenerator, so every call gets a new seed tensor of the same signature.  Calls
alternate two input sets of the same shapes and dtypes (seeds 0 and 1; seed 0's values in
new tensors where seed 1's are not valid for the case), so a cache keyed on values or on
objects shows as a compile.

Compiles are counted with each framework's own instrument:
  jax         `jax.monitoring` duration events of a trace or a backend compile;
  tensorflow  the graph-building time counter of tf.function's tracing (any trace adds to it);
  torch       TorchDynamo's frame and graph counters (torch.compile);
  openvino    the plugin's count of compiled models (`polyops_openvino._graph.compiles`).
numpy compiles nothing: it is checked for memory only.

Memory: the resident set size (RSS) over a window of calls after warm-up.  The window is
1,000 calls where an op costs at most 30 us a call, else as many calls as fit in
``_WINDOW_S`` (at least ``_MIN_CALLS``), so the file fits CI; set POLYOPS_REPEAT_FULL=1
for 1,000 calls of every op.  A window may grow by up to ``_SLACK`` (allocator arenas,
framework caches filling one step); a window that grows more is repeated after a garbage
collection, and only growth in both windows fails: a leak grows every window, noise does
not repeat.  The bound per call is ``_SLACK / calls`` (1 KiB a call at 1,000 calls); a
compile on every call leaks about 1 MiB a call, far above it.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops import random as prandom
from polyops._op import every_op
from polyops.testing import case_id, cases, make_inputs
from polyops.testing._check import call as call_record

from conftest import BACKENDS
from xfails import mark

_CHECKS = 3  # calls after the first whose compiles are counted
_WARMUP = 3  # calls before the memory window (they also time the op)
_FULL = bool(os.environ.get("POLYOPS_REPEAT_FULL"))
_MAX_CALLS = 1000
_MIN_CALLS = 3
_WINDOW_S = 0.03
_SLACK = 1 << 20
_MiB = float(1 << 20)

# The table's first case of every op.
PICKS: dict = {}
for _case in cases():
    PICKS.setdefault(_case[0].name, _case)

_LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))

# stateless op -> draw(seed): the public function that calls it, with fixed arguments
RANDOM_DRAWS = {
    "stateless_normal": lambda seed: prandom.normal((16,), 2.0, 3.0, seed=seed),
    "stateless_uniform": lambda seed: prandom.uniform((16,), -2.0, 3.0, seed=seed),
    "stateless_randint": lambda seed: prandom.randint((16,), -3, 7, seed=seed),
    "stateless_truncated_normal": lambda seed: prandom.truncated_normal((16,), seed=seed),
    "stateless_categorical": lambda seed: prandom.categorical(_LOGITS, 8, seed=seed),
    "stateless_dropout": lambda seed: prandom.dropout(ops.ones((16,)), 0.3, seed=seed),
    "stateless_shuffle": lambda seed: prandom.shuffle(ops.arange(16), seed=seed),
    "stateless_gamma": lambda seed: prandom.gamma((16,), 2.5, seed=seed),
    "stateless_beta": lambda seed: prandom.beta((16,), 2.0, 5.0, seed=seed),
    "stateless_binomial": lambda seed: prandom.binomial((16,), 10, 0.3, seed=seed),
}

NAMES = sorted(PICKS) + sorted(RANDOM_DRAWS)


def test_every_op_is_covered():
    """Each op of the catalogue is called here: a table case, or a random draw."""
    assert set(NAMES) == set(every_op())
    assert not set(PICKS) & set(RANDOM_DRAWS)


def _first_call(name, backend, request, count=lambda: 0):
    """Call the op's case once on the current backend; returns ``call(i)``, which calls it
    again with input set ``i % 2``, and the compiles (steps of ``count``) of the calls
    made here after the first."""
    if name in RANDOM_DRAWS:
        draw, seeds = RANDOM_DRAWS[name], prandom.SeedGenerator(7)
        draw(seeds)
        return (lambda i: draw(seeds)), []
    rec, dtype = PICKS[name]
    mark(request, case_id((rec, dtype)), backend)  # the op table's own expected failures

    def tensors(seed):
        return [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype))
                for a in make_inputs(rec, dtype, seed)]

    sets = [tensors(0)]
    call_record(rec, sets[0])
    other, compiled = tensors(1), []
    same = [(ops.shape(a), ops.dtype(a)) for a in other] == [
        (ops.shape(a), ops.dtype(a)) for a in sets[0]]
    if same:  # seed 1's values, where the op accepts them
        before = count()
        try:
            call_record(rec, other)
            compiled.append(count() - before)
        except Exception:  # values the op rejects (a record's indices valid for seed 0 only)
            same = False
    sets.append(other if same else tensors(0))  # else seed 0's values in new tensors
    return (lambda i: call_record(rec, sets[i % 2])), compiled


# ----- compile counters ------------------------------------------------------------------


def _jax_counter():
    import jax.monitoring

    from jax._src import dispatch  # the event names; a trace or a compile of any jit

    events = (dispatch.JAXPR_TRACE_EVENT, dispatch.BACKEND_COMPILE_EVENT)
    seen = []

    def listener(event, duration_secs, **kwargs):
        if event in events:
            seen.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    return lambda: len(seen)


def _tensorflow_counter():
    # tf.function adds each trace's graph-building time here; it has no count of its own
    from tensorflow.python.eager.polymorphic_function import tracing_compilation

    cell = tracing_compilation._graph_building_time_counter.get_cell()
    return cell.value


def _torch_counter():
    import torch._dynamo.utils

    counters = torch._dynamo.utils.counters
    return lambda: counters["frames"]["total"] + counters["stats"]["unique_graphs"]


def _openvino_counter():
    from polyops_openvino import _graph

    return lambda: _graph.compiles


_COUNTERS = {"jax": _jax_counter, "tensorflow": _tensorflow_counter, "torch": _torch_counter,
             "openvino": _openvino_counter}
COMPILING = [b for b in BACKENDS if b in _COUNTERS]
_counters: dict = {}


def _counter(backend):
    if backend not in _counters:
        _counters[backend] = _COUNTERS[backend]()
    return _counters[backend]


@pytest.mark.parametrize("compiling", COMPILING)
@pytest.mark.parametrize("name", NAMES)
def test_later_calls_compile_nothing(name, compiling, request):
    """The first call at a signature may compile; the next calls (other values, the same
    shapes and dtypes) compile nothing."""
    count = _counter(compiling)
    with polyops.use_backend(compiling):
        call, compiled = _first_call(name, compiling, request, count)
        for i in range(1, 1 + _CHECKS):
            before = count()
            call(i)
            compiled.append(count() - before)
    assert not any(compiled), (
        f"{name} on {compiling}: calls after the first compiled again "
        f"(counter steps {compiled})")


# ----- memory ----------------------------------------------------------------------------


def _rss() -> int:
    """The process's resident set size in bytes (its peak where /proc is missing)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _window(call, n) -> int:
    before = _rss()
    for i in range(n):
        call(i)
    return _rss() - before


@pytest.mark.parametrize("name", NAMES)
def test_memory_stays_flat(name, backend, request):
    """After warm-up, a window of calls leaves RSS flat: within _SLACK, or a confirming
    second window is."""
    with polyops.use_backend(backend):
        call, _ = _first_call(name, backend, request)
        times = []
        for i in range(1, 1 + _WARMUP):
            start = time.perf_counter()
            call(i)
            times.append(time.perf_counter() - start)
        per_call = statistics.median(times)
        n = _MAX_CALLS if _FULL else int(min(_MAX_CALLS, max(_MIN_CALLS, _WINDOW_S / per_call)))
        growth = _window(call, n)
        if growth > _SLACK:
            gc.collect()
            again = _window(call, n)
            assert again <= _SLACK, (
                f"{name} on {backend}: RSS grew {growth / _MiB:.1f} MiB then {again / _MiB:.1f} "
                f"MiB over two windows of {n} calls ({again / n / 1024:.1f} KiB a call)")
