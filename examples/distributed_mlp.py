"""Train a two-layer MLP with `polyops.distribution`, and check it against one device.

    python examples/distributed_mlp.py                   # jax, 8 simulated CPU devices
    python examples/distributed_mlp.py --backend torch   # torch, 4 processes (gloo, 127.0.0.1)

jax: ``DataParallel`` over 8 devices (the batch split 8 ways, weights replicated), then
``ModelParallel`` on a (2, 4) mesh ("batch" x "model": the hidden layer's weights split
over "model"), each step jitted.  torch: the same in a job of 4 processes that this script
starts (one CPU device each, so the model-parallel mesh is (2, 2)), the steps eager.  After
20 steps of plain gradient descent the parameters must equal those of the same training
on one device to float32 tolerance; the script prints the layouts and the differences and
exits with 1 when they do not.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys

import numpy as np

# jax reads XLA_FLAGS when it loads, which polyops does at set_backend("jax"), below
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import polyops  # noqa: E402
from polyops import distribution as dist  # noqa: E402
from polyops import ops  # noqa: E402

STEPS, BATCH, TOLERANCE = 20, 32, 1e-5
NAMES = ("dense_1/kernel", "dense_1/bias", "dense_2/kernel", "dense_2/bias")


def data():
    """The initial parameters and one global batch (the same in every process)."""
    rng = np.random.default_rng(0)
    params = {"dense_1/kernel": rng.normal(size=(16, 32)).astype("float32") * 0.3,
              "dense_1/bias": np.zeros(32, "float32"),
              "dense_2/kernel": rng.normal(size=(32, 4)).astype("float32") * 0.3,
              "dense_2/bias": np.zeros(4, "float32")}
    x = rng.normal(size=(BATCH, 16)).astype("float32")
    y = rng.normal(size=(BATCH, 4)).astype("float32")
    return params, x, y


def train(distribution=None, jit=True):
    """``STEPS`` steps of gradient descent inside ``distribution``'s scope (None: one
    device); each process feeds its own rows of the batch.  Returns the Variables and
    the global input."""
    init, x, y = data()
    scope = distribution.scope() if distribution is not None else contextlib.nullcontext()
    with scope:
        # Variables made in the scope take their layout from the distribution
        variables = [polyops.Variable(init[n], name=n) for n in NAMES]
        if distribution is None:
            x, y = ops.convert_to_tensor(x), ops.convert_to_tensor(y)
        else:  # this process's part of the batch -> its part of one global tensor
            rows = BATCH // distribution.num_data_shards
            start = rows * distribution.data_shard_id
            x = dist.distribute_data_input(x[start:start + rows])
            y = dist.distribute_data_input(y[start:start + rows])

        def step(x, y):
            def loss_fn(params):
                w1, b1, w2, b2 = params
                h = ops.relu(ops.matmul(x, w1) + b1)
                return ops.mean((ops.matmul(h, w2) + b2 - y) ** 2)

            loss, grads = polyops.value_and_grad(loss_fn)([v.value for v in variables])
            for v, g in zip(variables, grads, strict=True):
                v.assign(v.value - 0.1 * g)
            return loss

        step = polyops.jit(step) if jit else step
        for _ in range(STEPS):
            loss = step(x, y)
    return variables, x, float(ops.convert_to_numpy(loss))


def layout(x) -> str:
    """jax: the PartitionSpec; torch: the DTensor placements."""
    if hasattr(x, "placements"):
        return str(tuple(x.placements))
    return str(getattr(x.sharding, "spec", x.sharding))


def compare(title, distribution, jit=True) -> bool:
    one, _, one_loss = train(jit=jit)
    variables, x, loss = train(distribution, jit=jit)
    diff = max(float(np.max(np.abs(v.numpy() - r.numpy())))
               for v, r in zip(variables, one, strict=True))
    ok = diff < TOLERANCE
    if dist.process_id() == 0:
        print(f"{title}: mesh {distribution.device_mesh.shape} "
              f"{distribution.device_mesh.axis_names}, input {tuple(x.shape)} {layout(x)}")
        for v in variables:
            print(f"  {v.name:15} {str(v.shape):9} {layout(v.value)}")
        print(f"  after {STEPS} steps: loss {loss:.6f} (one device {one_loss:.6f}), "
              f"max |param - one device's| = {diff:.2e} {'ok' if ok else 'FAILED'}")
    return ok


def model_parallel(shape):
    mesh = dist.DeviceMesh(shape, ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense_1/kernel"] = (None, "model")  # the hidden units split over "model"
    layout_map["dense_1/bias"] = ("model",)
    layout_map["dense_2/kernel"] = ("model", None)
    return dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def run_jax() -> bool:
    polyops.set_backend("jax")
    ok = compare("DataParallel on jax", dist.DataParallel())
    return compare("ModelParallel on jax", model_parallel((2, 4))) and ok


def run_torch_process(rank: int, processes: int, port: int) -> bool:
    polyops.set_backend("torch")
    dist.initialize(f"127.0.0.1:{port}", num_processes=processes, process_id=rank)
    # eager: compiling the jitted step costs ~10 s in each of 4 processes on 2 cores
    ok = compare(f"DataParallel on torch, {processes} processes", dist.DataParallel(),
                 jit=False)
    return compare(f"ModelParallel on torch, {processes} processes",
                   model_parallel((processes // 2, 2)), jit=False) and ok


def run_torch(processes: int = 4, timeout: float = 300) -> bool:
    """Start the job's processes on 127.0.0.1; True when every one found equal weights."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, "--backend", "torch", "--rank",
                               str(i), "--processes", str(processes), "--port", str(port)])
             for i in range(processes)]
    try:
        return all(p.wait(timeout=timeout) == 0 for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("jax", "torch"), default="jax")
    parser.add_argument("--processes", type=int, default=4, help="torch: the job's size")
    parser.add_argument("--rank", type=int, help=argparse.SUPPRESS)  # a process of the job
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.backend == "jax":
        ok = run_jax()
    elif args.rank is None:
        ok = run_torch(args.processes)
    else:
        ok = run_torch_process(args.rank, args.processes, args.port)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
