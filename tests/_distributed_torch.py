"""polyops.distribution on torch: one process of a job of 2 or 4 on 127.0.0.1 (gloo, one CPU
device per process), started by tests/test_distribution.py.

``python tests/_distributed_torch.py <rank> <processes> <port>`` joins the job through
`polyops.distribution.initialize`, runs every scenario below and prints one JSON object:
scenario name -> the facts it found (DTensor placements, differences to one device, the
errors bad input raised), or ``{"error": traceback}``; the test asserts on them.
"""

from __future__ import annotations

import contextlib
import json
import sys
import traceback
import warnings

import numpy as np
import polyops
from _distributed_common import BATCH, NAMES, STEPS, data, error, sgd_step
from polyops import distribution as dist
from polyops import ops


def _placements(x) -> list:
    """A DTensor's placements as strings ("S(0)", "R", "P(avg)"); [] for a plain tensor."""
    return [str(p) if p.is_partial() else "R" if p.is_replicate() else f"S({p.dim})"
            for p in getattr(x, "placements", ())]


def train(distribution=None, steps=STEPS, jit=False):
    """An MLP trained by a step (value_and_grad, Variable.assign) inside ``distribution``'s
    scope (None: one device), each process feeding its data shard's rows of the batch.
    Returns (variables, losses, x, step): x the global input, step the (jitted) step."""
    init, x, y = data()
    scope = distribution.scope() if distribution is not None else contextlib.nullcontext()
    with scope:
        variables = [polyops.Variable(init[n], name=n) for n in NAMES]
        if distribution is not None:
            rows = BATCH // distribution.num_data_shards
            start = rows * distribution.data_shard_id
            x = dist.distribute_data_input(x[start:start + rows])
            y = dist.distribute_data_input(y[start:start + rows])
        else:
            x, y = ops.convert_to_tensor(x), ops.convert_to_tensor(y)

        step = sgd_step(variables)
        if jit:
            step = polyops.jit(step)
        losses = [step(x, y) for _ in range(steps)]
    return variables, losses, x, step


def _diff(variables, reference):
    return max(float(np.max(np.abs(v.numpy() - r.numpy())))
               for v, r in zip(variables, reference, strict=True))


def scenario_devices():
    return {"list": dist.list_devices(), "count": dist.get_device_count(),
            "cpu_count": dist.get_device_count("cpu"), "processes": dist.num_processes(),
            "process_id": dist.process_id(),
            "again": error(lambda: dist.initialize("127.0.0.1:1", 2, 0))}


def scenario_data_parallel():
    """DataParallel over every process; in the job of 2 the step under `polyops.jit`,
    compiled on the DTensors' local tensors (the gradients' all-reduce a functional
    collective in the graph)."""
    one, one_losses, _, _ = train()
    jit = dist.num_processes() == 2  # only in the job of 2: compiling costs ~5 s a process
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        variables, losses, x, step = train(dist.DataParallel(), jit=jit)
    loss, one_loss = (float(ops.convert_to_numpy(v[-1])) for v in (losses, one_losses))
    return {"input": _placements(x), "global_batch": list(x.shape),
            "traces": step.traces if jit else None,
            "local_batch": list(x.to_local().shape),
            "weights": {v.name: _placements(v.value) for v in variables},
            "loss": _placements(losses[-1]), "max_param_diff": _diff(variables, one),
            "loss_diff": abs(loss - one_loss),
            "loss_decreased": loss < float(ops.convert_to_numpy(losses[0])),
            "warnings": sorted({f"{type(w.message).__name__}: {w.message}" for w in caught})}


def _model_parallel():
    n = dist.num_processes()
    mesh = dist.DeviceMesh((n // 2, 2), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense_1/kernel"] = (None, "model")
    layout_map["dense_1/bias"] = ("model",)
    layout_map["dense_2/kernel"] = ("model", None)
    return dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def scenario_model_parallel():
    """ModelParallel on a (n/2, 2) mesh; in the job of 2 the step under `polyops.jit`."""
    one, _, _, _ = train()
    mp = _model_parallel()
    init, _, _ = data()
    with mp.scope():  # the layouts at creation, before any step
        created = {n: _placements(polyops.Variable(init[n], name=n).value) for n in NAMES}
    jit = dist.num_processes() == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        variables, _, x, step = train(mp, jit=jit)
    diff = _diff(variables, one)
    w1 = variables[0].value
    h = ops.relu(ops.matmul(x, w1))  # an op on DTensors gives a DTensor
    both = dist.distribute_tensor(h, dist.TensorLayout(("batch", "model"), mp.device_mesh))
    eager = ops.add(w1, 1.0)
    variables[2].assign(np.zeros((32, 4), "float32"))  # keeps the layout
    return {"created": created, "after_steps": {v.name: _placements(v.value) for v in variables},
            "local_kernel": list(w1.to_local().shape), "input": _placements(x),
            "mesh": list(mp.device_mesh.backend_mesh.mesh.shape), "max_param_diff": diff,
            "hidden": _placements(h), "redistributed": _placements(both),
            "eager_op": _placements(eager), "eager_assign": _placements(variables[2].value),
            "traces": step.traces if jit else None,
            "warnings": sorted({f"{type(w.message).__name__}: {w.message}" for w in caught}),
            "gathered_equal": bool(np.array_equal(ops.convert_to_numpy(eager),
                                                  variables[0].numpy() + 1.0))}


def scenario_random():
    """polyops.random under a distribution gives the numbers of one device: a seeded
    draw, a SeedGenerator made inside the scope (its state stays a plain tensor of each
    process), a Variable initializer sharded on "model"; in the job of 2 the
    SeedGenerator's draws also under `polyops.jit`."""
    jit = dist.num_processes() == 2

    def draws(jitted=False):
        gen = polyops.random.SeedGenerator(5)

        def draw():
            return polyops.random.normal((8, 16), seed=gen)

        draw = polyops.jit(draw) if jitted else draw
        return gen, [ops.convert_to_numpy(x) for x in
                     (polyops.random.normal((8, 16), seed=3), draw(), draw())]

    def kernel():
        return polyops.Variable(lambda shape, dtype: polyops.random.normal(shape, dtype=dtype,
                                                                             seed=7),
                                shape=(16, 32), dtype="float32", name="dense_1/kernel")

    _, one = draws()
    one_kernel = kernel().numpy()
    found = {}
    for name, d in (("data_parallel", dist.DataParallel()), ("model_parallel", _model_parallel())):
        with d.scope():
            gen, got = draws()
            mixed = ops.convert_to_numpy(ops.add(gen.state, ops.ones((2,), "int32")))
            v = kernel()
            jitted = draws(jitted=True)[1] if jit else None
        found[name] = {"equal": [bool(np.array_equal(a, b)) for a, b in zip(one, got, strict=True)],
                       "state": _placements(gen.state.value),
                       "state_mixes": mixed.tolist(),
                       "kernel": _placements(v.value),
                       "kernel_equal": bool(np.array_equal(v.numpy(), one_kernel)),
                       # inductor's kernels round differently from eager ones (1 ulp)
                       "jitted_diff": None if jitted is None else
                       max(float(np.max(np.abs(a - b))) for a, b in zip(one, jitted, strict=True))}
    return found


def scenario_bad_input():
    n = dist.num_processes()
    mesh = dist.DeviceMesh((n // 2, 2), ("batch", "model"))
    return {
        "mesh_shape": error(lambda: dist.DeviceMesh((n + 1,), ("batch",))),
        "mesh_unknown_device": error(lambda: dist.DeviceMesh((2,), ("batch",),
                                                              ["cpu:0", "cpu:9"])),
        "divisible": error(lambda: dist.distribute_tensor(
            np.ones((4, 3), "float32"), dist.TensorLayout((None, "model"), mesh))),
        "rank": error(lambda: dist.distribute_tensor(
            np.ones((4,), "float32"), dist.TensorLayout(("batch", None), mesh))),
        "distribution_unchanged": dist.distribution() is None,
    }


def run(rank: int, processes: int, port: str) -> dict:
    polyops.set_backend("torch")
    dist.initialize(f"127.0.0.1:{port}", num_processes=processes, process_id=rank)
    found = {}
    for name, fn in sorted(globals().items()):
        if name.startswith("scenario_"):
            try:
                found[name[len("scenario_"):]] = fn()
            except Exception:  # noqa: BLE001  (reported to the test, which shows it)
                found[name[len("scenario_"):]] = {"error": traceback.format_exc()}
    return found


if __name__ == "__main__":
    print(json.dumps(run(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])))
