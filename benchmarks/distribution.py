"""Distribution: a data-parallel training step through `polyops.distribution`, against the
same step written directly with the framework's own sharding.

    python benchmarks/distribution.py [--backend jax torch] [--rounds N] [--calls N]

- jax (8 simulated CPU devices, ``XLA_FLAGS`` set here before jax loads): polyops'
  ``DataParallel`` scope, Variables, ``distribute_data_input`` and a ``polyops.jit`` step
  (``value_and_grad``, ``Variable.assign``), against ``jax.jit`` of the same step over
  arrays placed with ``NamedSharding`` (batch split, weights replicated).
- torch (a job of ``--processes`` processes on 127.0.0.1, gloo, started here): the polyops
  step on DTensors, eager and under ``polyops.jit`` (compiled on the local tensors, the
  all-reduce a functional collective in the graph: docs/distribution.md), each against the
  same step in eager torch (``torch.autograd.grad`` on DTensors, the new weights
  redistributed to ``Replicate``).

Per round, the two contenders alternate, each timed over ``--calls`` steps (results
blocked on); the figure is the median over rounds of polyops' time / the framework's.
Prints a markdown table (the torch rows from process 0).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import polyops  # noqa: E402
from polyops import distribution as dist  # noqa: E402
from polyops import ops  # noqa: E402

BATCH, FEATURES, HIDDEN, OUT = 256, 64, 256, 16


def _data():
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(FEATURES, HIDDEN)).astype("float32") * 0.1,
              np.zeros(HIDDEN, "float32"),
              rng.normal(size=(HIDDEN, OUT)).astype("float32") * 0.1,
              np.zeros(OUT, "float32")]
    x = rng.normal(size=(BATCH, FEATURES)).astype("float32")
    y = rng.normal(size=(BATCH, OUT)).astype("float32")
    return params, x, y


def _polyops_step(variables, jit):
    def step(x, y):
        def loss_fn(params):
            w1, b1, w2, b2 = params
            h = ops.relu(ops.matmul(x, w1) + b1)
            return ops.mean((ops.matmul(h, w2) + b2 - y) ** 2)

        loss, grads = polyops.value_and_grad(loss_fn)([v.value for v in variables])
        for v, g in zip(variables, grads, strict=True):
            v.assign(v.value - 0.1 * g)
        return loss

    return polyops.jit(step) if jit else step


def _timed(fn, calls, block):
    t0 = time.perf_counter()
    for _ in range(calls):
        out = fn()
    block(out)
    return (time.perf_counter() - t0) / calls


def _race(a, b, rounds, calls, block):
    """Median over rounds of a's time / b's, and the two medians (seconds per call)."""
    for fn in (a, b):  # compile and warm up
        _timed(fn, 2, block)
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(_timed(a, calls, block))
        tb.append(_timed(b, calls, block))
    ratio = statistics.median(x / y for x, y in zip(ta, tb, strict=True))
    return ratio, statistics.median(ta), statistics.median(tb)


def bench_jax(rounds, calls):
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    polyops.set_backend("jax")
    init, x_np, y_np = _data()
    dp = dist.DataParallel()
    with dp.scope():
        variables = [polyops.Variable(p, name=f"p{i}") for i, p in enumerate(init)]
        x, y = dist.distribute_data_input(x_np), dist.distribute_data_input(y_np)
    step = _polyops_step(variables, jit=True)

    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("batch",))
    params = [jax.device_put(p, NamedSharding(mesh, PartitionSpec())) for p in init]
    jx = jax.device_put(x_np, NamedSharding(mesh, PartitionSpec("batch")))
    jy = jax.device_put(y_np, NamedSharding(mesh, PartitionSpec("batch")))

    def loss_fn(params, x, y):
        w1, b1, w2, b2 = params
        h = jax.nn.relu(x @ w1 + b1)
        return jax.numpy.mean((h @ w2 + b2 - y) ** 2)

    @jax.jit
    def jax_step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return loss, [p - 0.1 * g for p, g in zip(params, grads, strict=True)]

    def native():
        nonlocal params
        loss, params = jax_step(params, jx, jy)
        return loss

    def block(out):
        jax.block_until_ready(out)
        jax.block_until_ready([v.value for v in variables] + params)

    ratio, tp, tn = _race(lambda: step(x, y), native, rounds, calls, block)
    return {"backend": "jax", "setup": f"DataParallel, {len(jax.devices())} devices, jit",
            "ratio": ratio, "polyops_us": tp * 1e6, "native_us": tn * 1e6}


def bench_torch_process(rank, processes, port, rounds, calls):
    import torch
    from torch.distributed.tensor import Replicate

    polyops.set_backend("torch")
    dist.initialize(f"127.0.0.1:{port}", num_processes=processes, process_id=rank)
    torch.set_num_threads(1)
    init, x_np, y_np = _data()
    rows = BATCH // processes
    local = slice(rows * rank, rows * (rank + 1))
    dp = dist.DataParallel()
    with dp.scope():
        variables = [polyops.Variable(p, name=f"p{i}") for i, p in enumerate(init)]
        x, y = dist.distribute_data_input(x_np[local]), dist.distribute_data_input(y_np[local])
    params = [v.value for v in variables]  # the same DTensors, for torch's own step

    def native():
        nonlocal params
        ps = [p.detach().requires_grad_() for p in params]
        h = torch.relu(x @ ps[0] + ps[1])
        loss = torch.mean((h @ ps[2] + ps[3] - y) ** 2)
        grads = torch.autograd.grad(loss, ps)
        params = [(p - 0.1 * g).detach().redistribute(p.device_mesh, [Replicate()])
                  for p, g in zip(ps, grads, strict=True)]
        return loss

    rows = []
    for jit in (False, True):
        step = _polyops_step(variables, jit=jit)
        ratio, tp, tn = _race(lambda step=step: step(x, y), native, rounds, calls,
                              lambda out: None)
        rows.append({"backend": "torch", "ratio": ratio, "polyops_us": tp * 1e6,
                     "setup": f"DataParallel, {processes} processes (gloo), "
                              f"{'polyops.jit' if jit else 'eager'}",
                     "native_us": tn * 1e6})
    return rows


def bench_torch(processes, rounds, calls):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, "--torch-process", str(i),
                               "--processes", str(processes), "--port", str(port),
                               "--rounds", str(rounds), "--calls", str(calls)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(processes)]
    try:
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    if procs[0].returncode:
        raise RuntimeError(outs[0][1][-2000:])
    return json.loads(outs[0][0].splitlines()[-1])  # process 0's rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", nargs="+", default=["jax", "torch"],
                        choices=("jax", "torch"))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--torch-process", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.torch_process is not None:
        print(json.dumps(bench_torch_process(args.torch_process, args.processes, args.port,
                                             args.rounds, args.calls)))
        return
    rows = []
    if "jax" in args.backend:
        rows.append(bench_jax(args.rounds, args.calls))
    if "torch" in args.backend:
        rows.extend(bench_torch(args.processes, args.rounds, args.calls))
    print(f"MLP {FEATURES}-{HIDDEN}-{OUT}, batch {BATCH}; median of {args.rounds} rounds "
          f"of {args.calls} steps\n")
    print("| backend | setup | polyops / framework | polyops (µs/step) | framework (µs/step) |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['backend']} | {r['setup']} | {r['ratio']:.3f}x | {r['polyops_us']:.0f} "
              f"| {r['native_us']:.0f} |")


if __name__ == "__main__":
    main()
