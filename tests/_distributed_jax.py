"""polyops.distribution on jax with 8 simulated CPU devices, run by tests/test_distribution.py
in a subprocess (``XLA_FLAGS=--xla_force_host_platform_device_count=8`` must be set before
jax loads, so not in the test process).

``python tests/_distributed_jax.py devices`` runs every scenario below and prints one JSON
object: scenario name -> the facts it found (shardings, differences to one device, the
errors bad input raised), or ``{"error": traceback}``; the test asserts on them.
``python tests/_distributed_jax.py initialize`` joins a one-process job through
`polyops.distribution.initialize` (it must come before any computation);
``python tests/_distributed_jax.py process <0|1> <port>`` is one process of a two-process
job on 127.0.0.1 (XLA_FLAGS with 2 devices each).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import traceback

import numpy as np
import polyops
from _distributed_common import NAMES, STEPS, data, error, sgd_step
from polyops import distribution as dist
from polyops import ops


def _spec(x):
    """A tensor's layout as data: its PartitionSpec and how many devices hold it."""
    s = x.sharding
    return {"spec": [list(a) if isinstance(a, tuple) else a for a in getattr(s, "spec", ())],
            "devices": len(s.device_set), "replicated": bool(s.is_fully_replicated)}


def train(distribution=None, steps=STEPS, rows=slice(None)):
    """An MLP trained by a jitted step (value_and_grad, Variable.assign) inside
    ``distribution``'s scope (None: one device), on this process's ``rows`` of the batch.
    Returns (variables, losses, x, y)."""
    init, x, y = data()
    scope = distribution.scope() if distribution is not None else contextlib.nullcontext()
    with scope:
        variables = [polyops.Variable(init[n], name=n) for n in NAMES]
        if distribution is not None:
            x = dist.distribute_data_input(x[rows])
            y = dist.distribute_data_input(y[rows])

        step = polyops.jit(sgd_step(variables))

        losses = [step(x, y) for _ in range(steps)]
    return variables, losses, x, y


def _diff(variables, reference):
    return max(float(np.max(np.abs(v.numpy() - r.numpy()))) for v, r in zip(variables, reference, strict=True))


def scenario_devices():
    return {"list": dist.list_devices(), "count": dist.get_device_count(),
            "cpu_count": dist.get_device_count("cpu"), "processes": dist.num_processes(),
            "process_id": dist.process_id()}


def scenario_data_parallel():
    one, one_losses, _, _ = train()
    variables, losses, x, y = train(dist.DataParallel())
    return {"input": _spec(x), "weights": {v.name: _spec(v.value) for v in variables},
            "loss": _spec(losses[-1]), "max_param_diff": _diff(variables, one),
            "loss_diff": float(abs(ops.convert_to_numpy(losses[-1])
                                   - ops.convert_to_numpy(one_losses[-1]))),
            "loss_decreased": float(losses[-1]) < float(losses[0])}


def _model_parallel():
    mesh = dist.DeviceMesh((2, 4), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense_1/kernel"] = (None, "model")
    layout_map["dense_1/bias"] = ("model",)
    layout_map["dense_2/kernel"] = ("model", None)
    return dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def scenario_model_parallel():
    one, _, _, _ = train()
    mp = _model_parallel()
    with mp.scope():  # the layouts at creation, before any step
        created = {n: _spec(polyops.Variable(np.zeros((16, 32) if n.endswith("1/kernel") else
                                                      (32,) if n.endswith("1/bias") else
                                                      (32, 4) if n.endswith("2/kernel") else
                                                      (4,), "float32"), name=n).value)
                   for n in NAMES}
    variables, losses, x, _ = train(mp)
    diff = _diff(variables, one)

    @polyops.jit
    def hidden(x, w):
        h = ops.relu(ops.matmul(x, w))
        return dist.distribute_tensor(h, dist.TensorLayout(("batch", "model"), mp.device_mesh))

    h = hidden(x, variables[0])
    eager = ops.add(variables[0].value, 1.0)
    variables[2].assign(np.zeros((32, 4), "float32"))  # eager: keeps the layout
    return {"created": created, "after_steps": {v.name: _spec(v.value) for v in variables},
            "input": _spec(x), "max_param_diff": diff,
            "constrained_output": _spec(h), "eager_op": _spec(eager),
            "eager_assign": _spec(variables[2].value),
            "gathered_equal": bool(np.array_equal(
                ops.convert_to_numpy(eager), variables[0].numpy() + 1.0))}


def _placed_draw(layout):
    return lambda: dist.distribute_tensor(polyops.random.uniform((8, 16), seed=3), layout)


def scenario_random():
    """polyops.random under DataParallel and ModelParallel: the numbers of one device
    (seeded calls, a SeedGenerator, a Variable initializer sharded on "model", a draw
    constrained to a layout inside polyops.jit)."""
    def draws():
        gen = polyops.random.SeedGenerator(5)
        return [ops.convert_to_numpy(polyops.random.normal((8, 16), seed=3)),
                ops.convert_to_numpy(polyops.random.uniform((8, 16), seed=3)),
                ops.convert_to_numpy(polyops.random.normal((8, 16), seed=gen)),
                ops.convert_to_numpy(polyops.random.normal((8, 16), seed=gen))]

    def kernel():
        return polyops.Variable(lambda shape, dtype: polyops.random.normal(shape, dtype=dtype,
                                                                             seed=7),
                                shape=(16, 32), dtype="float32", name="dense_1/kernel")

    one, one_kernel = draws(), kernel().numpy()
    found = {}
    for name, d in (("data_parallel", dist.DataParallel()), ("model_parallel", _model_parallel())):
        layout = dist.TensorLayout(("batch", "model") if name == "model_parallel"
                                   else ("batch", None), d.device_mesh)
        with d.scope():
            got = draws()
            v = kernel()
            jitted = polyops.jit(_placed_draw(layout))()
        found[name] = {"equal": [bool(np.array_equal(a, b)) for a, b in zip(one, got, strict=True)],
                       "kernel_equal": bool(np.array_equal(v.numpy(), one_kernel)),
                       "kernel": _spec(v.value), "jitted": _spec(jitted),
                       "jitted_equal": bool(np.array_equal(ops.convert_to_numpy(jitted), one[1]))}
    return found


def scenario_bad_input():
    mesh = dist.DeviceMesh((2, 4), ("batch", "model"))
    mp = _model_parallel()
    layout_map = mp.layout_map
    before = dict(layout_map)
    out = {
        "mesh_shape": error(lambda: dist.DeviceMesh((3,), ("batch",))),
        "mesh_unknown_device": error(lambda: dist.DeviceMesh((2,), ("batch",),
                                                              ["cpu:0", "cpu:9"])),
        "layout_axis": error(lambda: dist.TensorLayout((None, "modle"), mesh)),
        "rank": error(lambda: dist.distribute_tensor(
            np.ones((4,), "float32"), dist.TensorLayout(("batch", None), mesh))),
        "divisible": error(lambda: dist.distribute_tensor(
            np.ones((4, 6), "float32"), dist.TensorLayout((None, "model"), mesh))),
        "data_divisible": error(lambda: dist.distribute_data_input(
            np.ones((3, 2), "float32"), dist.TensorLayout(("batch", None), mesh))),
        "layout_map_bad": error(lambda: layout_map.__setitem__("x", (None, "nope"))),
    }

    def variable_rank():
        with mp.scope():
            polyops.Variable(np.zeros((32,), "float32"), name="dense_1/kernel")

    out["variable_rank"] = error(variable_rank)
    out["layout_map_unchanged"] = dict(layout_map) == before
    out["distribution_unchanged"] = dist.distribution() is None
    return out


def run_devices():
    polyops.set_backend("jax")
    found = {}
    for name, fn in sorted(globals().items()):
        if name.startswith("scenario_"):
            try:
                found[name[len("scenario_"):]] = fn()
            except Exception:  # noqa: BLE001  (reported to the test, which shows it)
                found[name[len("scenario_"):]] = {"error": traceback.format_exc()}
    return found


def run_initialize():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    polyops.set_backend("jax")
    dist.initialize(f"127.0.0.1:{port}", num_processes=1, process_id=0)
    again = error(lambda: dist.initialize(f"127.0.0.1:{port}", num_processes=1,
                                           process_id=0))
    return {"processes": dist.num_processes(), "process_id": dist.process_id(),
            "again": again, "computes": float(ops.add(1.0, 2.0))}


def run_process(index: int, port: str):
    """Process ``index`` of 2 (2 devices each) training with DataParallel on its half of
    the batch; the weights (replicated: this process's copy) against one device's."""
    polyops.set_backend("jax")
    dist.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=index)
    one, _, _, _ = train()
    rows = slice(16 * index, 16 * index + 16)
    variables, _, x, _ = train(dist.DataParallel(), rows=rows)
    local = [np.asarray(v.value.addressable_shards[0].data) for v in variables]
    return {"devices": dist.get_device_count(), "processes": dist.num_processes(),
            "process_id": dist.process_id(), "global_batch": list(x.shape),
            "max_param_diff": max(float(np.max(np.abs(a - r.numpy())))
                                  for a, r in zip(local, one, strict=True))}


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    mode = sys.argv[1] if len(sys.argv) > 1 else "devices"
    if mode == "process":
        found = run_process(int(sys.argv[2]), sys.argv[3])
    else:
        found = run_devices() if mode == "devices" else run_initialize()
    print(json.dumps(found))
