"""Concurrency: backend selection under threads, asyncio tasks, and first-use races.

Every check that could reveal cross-talk (a thread or task seeing another's
backend, getting another backend's tensor type, or another's values) is
counted; the tests require the count to be zero.  Everything is bounded: a
deadlock fails a test (threads joined with a timeout, asyncio under
``wait_for``, subprocesses under a timeout) instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import polyops
from polyops import _registry, ops

NAMES = polyops.available_backends()
JOIN_TIMEOUT = 120  # seconds, for every join / barrier / wait_for below (a deadlock fails)
ITERATIONS = 30


@pytest.fixture
def fast_switching():
    """Make the interpreter switch threads often, so the threads really interleave."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _foreign_types(name):
    """Tensor types of the other backends that ``name``'s results must never be."""
    own = set(_registry.get_backend(name).runtime.tensor_types)
    foreign = []
    for other in NAMES:
        if other != name:
            foreign += [t for t in _registry.get_backend(other).runtime.tensor_types if t not in own]
    return tuple(dict.fromkeys(foreign))


class Recorder:
    """Counts ops and checks; keeps every mismatch (cross-talk or error) seen."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ops = 0
        self.checks = 0
        self.problems: list[str] = []

    def add(self, ops_done, checks, problems):
        with self.lock:
            self.ops += ops_done
            self.checks += checks
            self.problems += problems


class Checker:
    """Per thread/task: checks that what runs here is ``name``'s, and nobody else's."""

    def __init__(self, name, tag):
        self.name = name
        self.tag = tag
        self.backend = _registry.get_backend(name)
        self.own = self.backend.runtime.tensor_types
        self.foreign = _foreign_types(name)
        self.ops = 0
        self.checks = 0
        self.problems: list[str] = []

    def where(self, label):
        self.checks += 1
        seen = polyops.backend()
        if seen != self.name or _registry.current() is not self.backend:
            self.problems.append(f"{self.tag} {label}: polyops.backend() is {seen!r}, expected {self.name!r}")

    def result(self, label, r, expected, rtol=1e-5, atol=1e-5):
        self.where(label)
        self.checks += 1
        if not isinstance(r, self.own) or (self.foreign and isinstance(r, self.foreign)):
            self.problems.append(f"{self.tag} {label}: result is a {type(r)!r}, not a {self.name} tensor")
            return
        got = ops.convert_to_numpy(r)
        if got.dtype != expected.dtype or got.shape != expected.shape:
            self.problems.append(
                f"{self.tag} {label}: got {got.dtype}{got.shape}, expected {expected.dtype}{expected.shape}"
            )
        elif not np.allclose(got, expected, rtol=rtol, atol=atol):
            self.problems.append(f"{self.tag} {label}: got {got.tolist()}, expected {expected.tolist()}")


def op_sequence(check: Checker, i: int, k: int):
    """A mixed op sequence with data unique to (i, k); yields after every op.

    The expected values are computed with NumPy here, independently of polyops.
    The shapes vary with ``i`` so that backends that compile per shape
    (openvino) also compile concurrently.
    """
    rows = 2 + i % 3
    rng = np.random.default_rng([i, k])
    base = rng.standard_normal((rows, 4)).astype(np.float32)
    off = float(7 * i + k)
    ar = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
    y_np = ar + np.float32(off)

    a = ops.arange(rows * 4, dtype="float32")
    check.result("arange", a, ar.reshape(-1))
    yield
    a = ops.reshape(a, (rows, 4))
    check.result("reshape", a, ar)
    yield
    x = ops.convert_to_tensor(base)
    check.result("convert_to_tensor", x, base)
    yield
    y = ops.add(a, off)  # a weak Python scalar: stays float32
    check.result("add", y, y_np)
    yield
    yi = ops.cast(y, "int32")
    check.result("cast", yi, y_np.astype(np.int32))
    yield
    p = ops.add(ops.ones((rows,), "int8"), off + 0.5)  # int8 + weak float -> float32
    check.result("promote", p, np.full((rows,), 1.0 + off + 0.5, np.float32))
    yield
    at = ops.transpose(a)
    check.result("transpose", at, ar.T)
    yield
    m = ops.matmul(x, at)
    check.result("matmul", m, base @ ar.T, rtol=1e-4, atol=1e-4)
    yield
    s = ops.sum(m, axis=1)
    check.result("sum", s, (base @ ar.T).sum(axis=1), rtol=1e-4, atol=1e-3)
    yield
    sm = ops.softmax(x, axis=-1)
    e = np.exp(base - base.max(axis=-1, keepdims=True))
    check.result("softmax", sm, e / e.sum(axis=-1, keepdims=True), atol=1e-6)
    yield
    g = ops.greater(x, 0.0)
    check.result("greater", g, base > 0)
    yield
    n = ops.negative(y)
    check.result("negative", n, -y_np)
    yield
    w = ops.where(g, y, n)
    check.result("where", w, np.where(base > 0, y_np, -y_np))
    yield
    c = ops.concatenate([a, x], axis=0)
    check.result("concatenate", c, np.concatenate([ar, base], axis=0))
    yield
    am = ops.argmax(x, axis=1)
    check.result("argmax", am, np.argmax(base, axis=1).astype(np.int32), rtol=0, atol=0)
    yield


def run_sequence_sync(check: Checker, i: int):
    for k in range(ITERATIONS):
        for _ in op_sequence(check, i, k):
            check.ops += 1
            check.where("between ops")


def _run_threads(threads):
    for t in threads:
        t.start()
    deadline = time.monotonic() + JOIN_TIMEOUT
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    alive = [t.name for t in threads if t.is_alive()]
    assert not alive, f"threads still running after {JOIN_TIMEOUT}s (deadlock?): {alive}"


def _in_fresh_thread(fn, *args):
    """``fn(*args)`` in a new thread: one that never chose a backend (a fresh context)."""
    out = {}

    def target():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # reported by the caller
            out["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout=JOIN_TIMEOUT)
    assert not t.is_alive(), f"{fn!r} did not return within {JOIN_TIMEOUT}s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _report(title, **figures):
    print(f"\n[concurrency] {title}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))


# -- 1. threads -----------------------------------------------------------------------


def test_threads_use_backend_stress(fast_switching):
    n_threads = 16
    assignment = [NAMES[i % len(NAMES)] for i in range(n_threads)]
    barrier = threading.Barrier(n_threads, timeout=JOIN_TIMEOUT)
    record = Recorder()

    def worker(i, name):
        check = None
        try:
            with polyops.use_backend(name):
                check = Checker(name, f"thread {i} ({name})")
                barrier.wait()
                run_sequence_sync(check, i)
            check.checks += 1
            if _registry._CURRENT.get() is not None:
                check.problems.append(f"thread {i}: the use_backend scope was not reset on exit")
        except BaseException as exc:  # counted as a problem below
            barrier.abort()
            if check is None:
                check = Checker(name, f"thread {i} ({name})")
            check.problems.append(f"thread {i} ({name}): {type(exc).__name__}: {exc}")
        record.add(check.ops, check.checks, check.problems)

    threads = [threading.Thread(target=worker, args=(i, n), name=f"stress-{i}-{n}", daemon=True)
               for i, n in enumerate(assignment)]
    start = time.perf_counter()
    _run_threads(threads)
    wall = time.perf_counter() - start
    _report("threads", threads=n_threads, backends=len(NAMES), ops=record.ops, checks=record.checks,
            cross_talk=len(record.problems), wall_s=f"{wall:.2f}")
    assert record.problems == [], f"{len(record.problems)} problems, first: {record.problems[:10]}"
    assert record.ops == n_threads * ITERATIONS * 15


# -- 2. asyncio tasks -----------------------------------------------------------------


def test_asyncio_tasks_use_backend_isolated():
    tasks_per_backend = 2
    record = Recorder()
    default_name = _in_fresh_thread(polyops.backend)
    figures = {}

    async def scoped(i, name, started, go):
        with polyops.use_backend(name):
            check = Checker(name, f"task {i} ({name})")
            started.release()
            await go.wait()
            for k in range(ITERATIONS):
                for _ in op_sequence(check, i, k):
                    check.ops += 1
                    await asyncio.sleep(0)  # let every other task run between two ops
                    check.where("after await")
        record.add(check.ops, check.checks, check.problems)

    async def unscoped(i, go):
        # A task that never chose: sees the process default, whatever the others scope.
        check = Checker(default_name, f"unscoped task {i}")
        await go.wait()
        for k in range(ITERATIONS):
            for _ in op_sequence(check, i, k):
                check.ops += 1
                await asyncio.sleep(0)
                check.where("after await")
        record.add(check.ops, check.checks, check.problems)

    async def main():
        before = _registry._CURRENT.get()
        go = asyncio.Event()
        started = asyncio.Semaphore(0)
        jobs = [(i, name) for i, name in enumerate(NAMES * tasks_per_backend)]
        tasks = [asyncio.create_task(scoped(i, name, started, go)) for i, name in jobs]
        tasks += [asyncio.create_task(unscoped(len(jobs) + j, go)) for j in range(2)]
        for _ in jobs:  # every scoped task is inside its scope before any op runs
            await started.acquire()
        go.set()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        errors = [f"{type(r).__name__}: {r}" for r in results if isinstance(r, BaseException)]
        if _registry._CURRENT.get() is not before:
            errors.append("the tasks' use_backend scopes leaked into the parent")
        figures["tasks"] = len(tasks)
        return errors

    def run_loop():
        return asyncio.run(asyncio.wait_for(main(), timeout=JOIN_TIMEOUT))

    start = time.perf_counter()
    # The loop runs in its own thread so that a synchronous deadlock (which wait_for
    # cannot interrupt) still fails the test.
    errors = _in_fresh_thread(run_loop)
    wall = time.perf_counter() - start
    _report("asyncio", tasks=figures.get("tasks"), ops=record.ops, checks=record.checks,
            cross_talk=len(record.problems) + len(errors), wall_s=f"{wall:.2f}")
    assert errors == []
    assert record.problems == [], f"{len(record.problems)} problems, first: {record.problems[:10]}"
    assert record.ops == figures["tasks"] * ITERATIONS * 15


# -- 3. set_backend while others are scoped ---------------------------------------------


def test_set_backend_in_a_thread_while_others_are_scoped(fast_switching):
    if len(NAMES) < 2:
        pytest.fail("this test needs two installed backends")
    original = _in_fresh_thread(polyops.backend)  # the process default, not this thread's choice
    final = next(n for n in NAMES if n != original)
    switches = 4 * len(NAMES)
    scoped_jobs = [(i, name) for i, name in enumerate(NAMES * 2)]
    n_unscoped = 3
    barrier = threading.Barrier(len(scoped_jobs) + n_unscoped + 1, timeout=JOIN_TIMEOUT)
    switched = threading.Event()
    record = Recorder()
    during = {"scoped": 0, "unscoped": 0}
    during_lock = threading.Lock()

    def probe(check, i, label):
        y = ops.add(ops.ones((2,)), float(i))
        check.result(label, y, np.full((2,), 1.0 + i, np.float32))
        check.ops += 2

    def scoped(i, name):
        check = Checker(name, f"scoped thread {i} ({name})")
        try:
            with polyops.use_backend(name):
                barrier.wait()
                n = 0
                while (not switched.is_set() or n < 20) and n < 20000:
                    probe(check, i, "during switching")
                    n += 1
                with during_lock:
                    during["scoped"] += n
                assert switched.wait(JOIN_TIMEOUT), "the switcher never finished"
                probe(check, i, "after switching")
            # leaving the scope: back to the process default, which is now `final`
            after = Checker(final, f"scoped thread {i} after its scope")
            probe(after, i, "after the scope")
            check.ops += after.ops
            check.checks += after.checks
            check.problems += after.problems
        except BaseException as exc:
            barrier.abort()
            check.problems.append(f"scoped thread {i} ({name}): {type(exc).__name__}: {exc}")
        record.add(check.ops, check.checks, check.problems)

    def unscoped(i):
        check = Checker(final, f"unscoped thread {i}")
        try:
            barrier.wait()
            n = 0
            while not switched.is_set() and n < 20000:
                # mid-switch any installed backend is acceptable, never an error
                check.checks += 1
                seen = polyops.backend()
                if seen not in NAMES:
                    check.problems.append(f"unscoped thread {i}: saw {seen!r}")
                y = ops.convert_to_numpy(ops.add(ops.ones((2,)), float(i)))
                check.ops += 3
                if y.tolist() != [1.0 + i] * 2:
                    check.problems.append(f"unscoped thread {i}: got {y.tolist()} mid-switch")
                n += 1
            with during_lock:
                during["unscoped"] += n
            assert switched.wait(JOIN_TIMEOUT), "the switcher never finished"
            probe(check, i, "after the switch: the new process default")
        except BaseException as exc:
            barrier.abort()
            check.problems.append(f"unscoped thread {i}: {type(exc).__name__}: {exc}")
        record.add(check.ops, check.checks, check.problems)

    def switcher():
        problems = []
        try:
            barrier.wait()
            for r in range(switches):
                name = NAMES[r % len(NAMES)]
                polyops.set_backend(name)
                if polyops.backend() != name:  # its own context follows its own choice
                    problems.append(f"switcher: set {name!r}, sees {polyops.backend()!r}")
                time.sleep(0.002)
            polyops.set_backend(final)
        except BaseException as exc:
            barrier.abort()
            problems.append(f"switcher: {type(exc).__name__}: {exc}")
        finally:
            switched.set()
        record.add(switches + 1, switches, problems)

    threads = [threading.Thread(target=scoped, args=job, name=f"scoped-{job[0]}", daemon=True)
               for job in scoped_jobs]
    threads += [threading.Thread(target=unscoped, args=(len(scoped_jobs) + j,), name=f"unscoped-{j}",
                                 daemon=True) for j in range(n_unscoped)]
    threads.append(threading.Thread(target=switcher, name="switcher", daemon=True))
    start = time.perf_counter()
    try:
        _run_threads(threads)
        # the main thread's own context is untouched by the other threads' set_backend,
        # and a fresh thread sees the new default
        assert _in_fresh_thread(polyops.backend) == final
    finally:
        _in_fresh_thread(polyops.set_backend, original)  # restores the default only
    wall = time.perf_counter() - start
    _report("set_backend vs scopes", threads=len(threads), switches=switches + 1, ops=record.ops,
            checks=record.checks, scoped_iterations=during["scoped"],
            unscoped_iterations=during["unscoped"], cross_talk=len(record.problems),
            wall_s=f"{wall:.2f}")
    assert record.problems == [], f"{len(record.problems)} problems, first: {record.problems[:10]}"


# -- 4. first-use race in a fresh process --------------------------------------------------

FIRST_USE = r"""
import json, os, sys, threading, time
import numpy as np
import polyops
from polyops import _registry, ops
from polyops.plugin import BackendPlugin

names = json.loads(sys.argv[1])
per_backend = int(sys.argv[2])
fresh = {n: b.status for n, b in _registry._discover().items()}

lock = threading.Lock()
loads, hooks = {}, {}
original_load = _registry.Backend._load
original_hook = BackendPlugin.polyops_runtime

def counting_load(self):
    with lock:
        loads[self.name] = loads.get(self.name, 0) + 1
    time.sleep(0.02)  # widen the window a check-then-load race would need
    return original_load(self)

def counting_hook(self, backend):
    if backend == self.name:
        with lock:
            hooks[backend] = hooks.get(backend, 0) + 1
    return original_hook(self, backend)

counting_hook.polyops_impl = original_hook.polyops_impl  # keep pluggy's hookimpl marker
_registry.Backend._load = counting_load
BackendPlugin.polyops_runtime = counting_hook

jobs = [(name, i, "set" if i % 2 else "use") for name in names for i in range(per_backend)]
barrier = threading.Barrier(len(jobs), timeout=120)
results, errors = {}, []

def worker(name, i, mode):
    try:
        barrier.wait()
        if mode == "set":
            polyops.set_backend(name)
            scope = None
        else:
            scope = polyops.use_backend(name)
            scope.__enter__()
        try:
            y = ops.sum(ops.add(ops.reshape(ops.arange(6, dtype="float32"), (2, 3)), float(i)), axis=1)
            types = _registry.get_backend(name).runtime.tensor_types
            results[f"{name}/{i}/{mode}"] = {
                "backend": polyops.backend(),
                "native": isinstance(y, types),
                "value": ops.convert_to_numpy(y).tolist(),
            }
        finally:
            if scope is not None:
                scope.__exit__(None, None, None)
    except BaseException as exc:
        barrier.abort()
        errors.append(f"{name}/{i}/{mode}: {type(exc).__name__}: {exc}")

threads = [threading.Thread(target=worker, args=job, daemon=True) for job in jobs]
start = time.perf_counter()
for t in threads:
    t.start()
deadline = time.monotonic() + 150
for t in threads:
    t.join(timeout=max(0.0, deadline - time.monotonic()))
out = {
    "fresh": fresh,
    "threads": len(jobs),
    "loads": loads,
    "hooks": hooks,
    "status": {n: _registry._discover()[n].status for n in names},
    "results": results,
    "errors": errors,
    "alive": sum(t.is_alive() for t in threads),
    "wall": time.perf_counter() - start,
}
print(json.dumps(out), flush=True)
os._exit(0)  # do not wait on deadlocked daemon threads at shutdown
"""


def test_first_use_race_loads_each_backend_once():
    per_backend = 8
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYOPS_")}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FIRST_USE), json.dumps(NAMES), str(per_backend)],
        capture_output=True, text=True, env=env, timeout=240,
    )
    wall = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    _report("first use", threads=out["threads"], backends=len(NAMES), loads=out["loads"],
            runtime_hooks=out["hooks"], thread_wall_s=f"{out['wall']:.2f}", wall_s=f"{wall:.2f}")
    assert out["fresh"] == {n: "not loaded" for n in NAMES}
    assert out["alive"] == 0, f"{out['alive']} threads deadlocked; stderr: {proc.stderr[-2000:]}"
    assert out["errors"] == []
    assert out["loads"] == {n: 1 for n in NAMES}
    assert out["hooks"] == {n: 1 for n in NAMES}
    assert out["status"] == {n: "loaded" for n in NAMES}
    assert len(out["results"]) == per_backend * len(NAMES)
    for key, r in out["results"].items():
        name, i, _mode = key.split("/")
        # set_backend threads also set their own context, so each sees its own choice
        assert r == {"backend": name, "native": True, "value": [3.0 + 3 * int(i), 12.0 + 3 * int(i)]}, key
