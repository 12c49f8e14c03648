"""Dispatch overhead of polyops against each framework's own call, in one run.

    python benchmarks/dispatch.py [--backend NAME ...] [--quick]

Prints a table and writes benchmarks/RESULTS.md.  Every figure is a median over
repeated, interleaved timing rounds (polyops and native alternate in each
round, so machine noise hits both); ratios are polyops / native.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def per_call(fn, args, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn(*args)
    return (time.perf_counter() - t0) / n


def compare(ours, native, args, n, rounds):
    """Median seconds per call of ``ours`` and ``native``, interleaved round by round."""
    a, b = [], []
    ours(*args), native(*args)  # warm caches (OpenVINO compiles on first call)
    for _ in range(rounds):
        a.append(per_call(ours, args, n))
        b.append(per_call(native, args, n))
    return statistics.median(a), statistics.median(b)


def natives(name):
    """The framework's own add and sum, and a converter to native tensors."""
    if name == "numpy":
        return np.add, np.sum
    if name == "jax":
        import jax.numpy as jnp

        return jnp.add, jnp.sum
    if name == "tensorflow":
        import tensorflow as tf

        return tf.add, tf.reduce_sum
    if name == "torch":
        import torch

        return torch.add, torch.sum
    if name == "openvino":
        import openvino as ov
        import openvino.opset13 as opset

        core = ov.Core()

        def compiled(build, shapes):
            # The direct way to call an already compiled single-op model: the same
            # calls the plugin makes (tensor views in, one copy out).
            params = [opset.parameter(s, ov.Type.f32) for s in shapes]
            model = ov.Model([build(*params)], params)
            request = core.compile_model(model, "CPU").create_infer_request()

            def run(*arrays):
                for i, a in enumerate(arrays):
                    request.set_input_tensor(i, ov.Tensor(a, a.shape, ov.Type.f32))
                request.infer()
                return np.array(request.get_output_tensor(0).data, copy=True)

            return run

        add = compiled(lambda a, b: opset.add(a, b), [(8,), (8,)])
        total = compiled(lambda a: opset.reduce_sum(a, opset.constant(np.array([0, 1], np.int64)), False),
                         [(1000, 1000)])
        return add, total
    return None


def dispatch_rows(names, quick):
    import polyops
    from polyops import ops

    rows = []
    n_small, n_big, rounds = (200, 5, 5) if quick else (2000, 20, 15)
    for name in names:
        native = natives(name)
        if native is None:
            continue
        native_add, native_sum = native
        with polyops.use_backend(name):
            a = ops.convert_to_tensor(np.ones(8, np.float32))
            b = ops.convert_to_tensor(np.ones(8, np.float32))
            big = ops.convert_to_tensor(np.ones((1000, 1000), np.float32))
            ours, theirs = compare(ops.add, native_add, (a, b), n_small, rounds)
            rows.append((name, "add 8xf32", ours, theirs))
            # large arrays: wait for the result, so asynchronous dispatch (jax) is timed fairly
            sync = (lambda y: y.block_until_ready()) if name == "jax" else (lambda y: y)
            ours, theirs = compare(lambda t: sync(ops.sum(t)), lambda t: sync(native_sum(t)),
                                   (big,), n_big, rounds)
            rows.append((name, "sum 1000x1000", ours, theirs))
    return rows


def import_ratio(repeats):
    code = ("import time; t=time.perf_counter(); import {mod}; "
            "print(time.perf_counter()-t)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import polyops"], check=True, env=env)  # write .pyc
    times = {"numpy": [], "polyops": []}
    for _ in range(repeats):
        for mod in times:
            out = subprocess.run([sys.executable, "-c", code.format(mod=mod)], check=True,
                                 capture_output=True, text=True, env=env)
            times[mod].append(float(out.stdout))
    # VmRSS, not ru_maxrss: the latter keeps the forking parent's high-water mark.
    rss = subprocess.run(
        [sys.executable, "-c", "import polyops; print(next(l.split()[1] for l in "
         "open('/proc/self/status') if l.startswith('VmRSS')))"],
        check=True, capture_output=True, text=True, env=env)
    return statistics.median(times["polyops"]), statistics.median(times["numpy"]), int(rss.stdout) / 1024


def switch_cost(names, repeats=2000):
    import polyops

    if len(names) < 2:
        return None, None
    a, b = names[0], names[1]
    polyops.set_backend(a), polyops.set_backend(b)  # load both
    t0 = time.perf_counter()
    for _ in range(repeats):
        polyops.set_backend(a)
        polyops.set_backend(b)
    switch = (time.perf_counter() - t0) / (2 * repeats)
    t0 = time.perf_counter()
    for _ in range(repeats):
        with polyops.use_backend(a):
            pass
    scope = (time.perf_counter() - t0) / repeats
    return switch, scope


def main(argv=None):
    import polyops

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", action="append")
    parser.add_argument("--quick", action="store_true", help="fewer rounds (smoke run)")
    parser.add_argument("--output", default=str(HERE / "RESULTS.md"))
    args = parser.parse_args(argv)
    names = args.backend or polyops.available_backends()
    imp, imp_np, rss = import_ratio(5 if args.quick else 15)  # before any framework loads
    rows = dispatch_rows(names, args.quick)
    switch, scope = switch_cost(names)

    lines = [
        "# polyops dispatch benchmark",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}. Medians of interleaved rounds; ratio = polyops / native.",
        "",
        "| backend | call | polyops | native | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for name, what, ours, theirs in rows:
        lines.append(f"| {name} | {what} | {ours * 1e6:.2f} µs | {theirs * 1e6:.2f} µs | {ours / theirs:.2f}x |")
    lines += [
        "",
        f"- `import polyops` (numpy included): {imp * 1e3:.1f} ms vs `import numpy` {imp_np * 1e3:.1f} ms: "
        f"**{imp / imp_np:.2f}x**; RSS after import {rss:.0f} MiB",
    ]
    if switch is not None:
        lines.append(f"- warm `set_backend` switch: {switch * 1e6:.2f} µs; "
                     f"`use_backend` enter+exit: {scope * 1e6:.2f} µs")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
