"""polyops.distribution on tensorflow (DTensor) with the CPU split into 8 logical devices,
run by tests/test_distribution.py in a subprocess (the split must come before tensorflow
makes its first tensor, so not in the test process).

``python tests/_distributed_tf.py`` runs every scenario below and prints one JSON object:
scenario name -> the facts it found (layouts, differences to one device, the errors bad
input raised), or ``{"error": traceback}``; the test asserts on them.
"""

from __future__ import annotations

import contextlib
import json
import traceback

import numpy as np
import tensorflow as tf

# before polyops loads the backend: logical devices are fixed once tensorflow starts
tf.config.set_logical_device_configuration(
    tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 8)

import polyops  # noqa: E402
from _distributed_common import NAMES, STEPS, data, error, sgd_step  # noqa: E402
from polyops import distribution as dist  # noqa: E402
from polyops import ops  # noqa: E402
from tensorflow.experimental import dtensor  # noqa: E402


def _spec(x) -> list:
    """A DTensor's sharding specs (None for unsharded dimensions); [] for a plain tensor."""
    if not dtensor.is_dtensor(x):
        return []
    return [None if s == dtensor.UNSHARDED else s
            for s in dtensor.fetch_layout(x).sharding_specs]


def _numpy(x) -> np.ndarray:
    """The whole value (`ops.convert_to_numpy` gathers a sharded DTensor)."""
    return ops.convert_to_numpy(x)


def train(distribution=None, steps=STEPS, jit=True):
    """An MLP trained by a step (value_and_grad, Variable.assign), under `polyops.jit` or
    eagerly, inside ``distribution``'s scope (None: one device).
    Returns (variables, losses, x)."""
    init, x, y = data()
    scope = distribution.scope() if distribution is not None else contextlib.nullcontext()
    with scope:
        variables = [polyops.Variable(init[n], name=n) for n in NAMES]
        if distribution is not None:
            x = dist.distribute_data_input(x)
            y = dist.distribute_data_input(y)

        step = sgd_step(variables)
        if jit:
            step = polyops.jit(step)
        losses = [step(x, y) for _ in range(steps)]
    return variables, losses, x


def _diff(variables, reference):
    return max(float(np.max(np.abs(_numpy(v.value) - _numpy(r.value))))
               for v, r in zip(variables, reference, strict=True))


def scenario_devices():
    return {"list": dist.list_devices(), "count": dist.get_device_count(),
            "cpu_count": dist.get_device_count("cpu"), "processes": dist.num_processes(),
            "process_id": dist.process_id(),
            "two_processes": error(lambda: dist.initialize("127.0.0.1:1", 2, 0))}


def scenario_data_parallel():
    """The jitted step (XLA over DTensors) against one device; the eager one raises
    tensorflow's UnimplementedError (DTensor's eager gradients mix in plain tensors)."""
    one, one_losses, _ = train()
    found = {}
    for mode in ("jit", "eager"):
        try:
            variables, losses, x = train(dist.DataParallel(), jit=mode == "jit")
        except Exception as exc:  # noqa: BLE001  (eager: see docs/distribution.md)
            found[mode] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            continue
        found[mode] = {"input": _spec(x), "weights": {v.name: _spec(v.value) for v in variables},
                       "loss": _spec(losses[-1]), "max_param_diff": _diff(variables, one),
                       "loss_diff": float(abs(_numpy(losses[-1]) - _numpy(one_losses[-1]))),
                       "loss_decreased": float(_numpy(losses[-1])) < float(_numpy(losses[0]))}
    return found


def _model_parallel():
    mesh = dist.DeviceMesh((2, 4), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense_1/kernel"] = (None, "model")
    layout_map["dense_1/bias"] = ("model",)
    layout_map["dense_2/kernel"] = ("model", None)
    return dist.ModelParallel(layout_map=layout_map, batch_dim_name="batch")


def scenario_model_parallel():
    one, _, _ = train()
    mp = _model_parallel()
    init, _, _ = data()
    with mp.scope():  # the layouts at creation, before any step
        created = {n: _spec(polyops.Variable(init[n], name=n).value) for n in NAMES}
    variables, _, x = train(mp)
    diff = _diff(variables, one)
    layout = dist.TensorLayout(("batch", "model"), mp.device_mesh)

    @polyops.jit
    def hidden(x, w):
        return dist.distribute_tensor(ops.relu(ops.matmul(x, w)), layout)

    h = hidden(x, variables[0].value)
    eager = ops.add(variables[0].value, 1.0)
    variables[2].assign(np.zeros((32, 4), "float32"))  # eager: keeps the layout
    return {"created": created, "after_steps": {v.name: _spec(v.value) for v in variables},
            "input": _spec(x), "max_param_diff": diff, "constrained_output": _spec(h),
            "eager_op": _spec(eager), "eager_assign": _spec(variables[2].value),
            "gathered_equal": bool(np.array_equal(_numpy(eager),
                                                  _numpy(variables[0].value) + 1.0)),
            "convert_to_numpy": error(lambda: ops.convert_to_numpy(eager))}


def _placed_draw(layout):
    return lambda z: z + dist.distribute_tensor(polyops.random.normal((8, 16), seed=3), layout)


def scenario_random():
    """polyops.random under a distribution: the numbers of one device (seeded calls, a
    SeedGenerator made inside the scope, a Variable initializer sharded on "model"),
    eager and jitted."""
    def draws():
        gen = polyops.random.SeedGenerator(5)
        return [_numpy(polyops.random.normal((8, 16), seed=3)),
                _numpy(polyops.random.uniform((8, 16), seed=3)),
                _numpy(polyops.random.normal((8, 16), seed=gen)),
                _numpy(polyops.random.normal((8, 16), seed=gen))]

    def kernel():
        return polyops.Variable(lambda shape, dtype: polyops.random.normal(shape, dtype=dtype,
                                                                             seed=7),
                                shape=(16, 32), dtype="float32", name="dense_1/kernel")

    one, one_kernel = draws(), _numpy(kernel().value)
    found = {}
    for name, d in (("data_parallel", dist.DataParallel()), ("model_parallel", _model_parallel())):
        with d.scope():
            got = draws()
            v = kernel()
            layout = dist.TensorLayout(("batch", "model"), d.device_mesh) \
                if name == "model_parallel" else dist.TensorLayout(("batch", None), d.device_mesh)
            # DTensor runs a tf.function on the mesh when an argument is on it
            jitted = polyops.jit(_placed_draw(layout))(
                dist.distribute_tensor(np.zeros((8, 16), "float32"), layout))
            # a SeedGenerator's state is not placed on the mesh: no DTensor
            state = _spec(polyops.random.SeedGenerator(5).state.value)
        found[name] = {"equal": [bool(np.array_equal(a, b)) for a, b in zip(one, got, strict=True)],
                       "kernel_equal": bool(np.array_equal(_numpy(v.value), one_kernel)),
                       "kernel": _spec(v.value), "jitted": _spec(jitted),
                       "jitted_equal": bool(np.array_equal(_numpy(jitted), one[0])),
                       "seed_generator_state": state}
    return found


def scenario_bad_input():
    mesh = dist.DeviceMesh((2, 4), ("batch", "model"))
    return {
        "mesh_shape": error(lambda: dist.DeviceMesh((3,), ("batch",))),
        "mesh_unknown_device": error(lambda: dist.DeviceMesh((2,), ("batch",),
                                                              ["cpu:0", "cpu:9"])),
        "divisible": error(lambda: dist.distribute_tensor(
            np.ones((4, 6), "float32"), dist.TensorLayout((None, "model"), mesh))),
        "rank": error(lambda: dist.distribute_tensor(
            np.ones((4,), "float32"), dist.TensorLayout(("batch", None), mesh))),
        "two_axes": error(lambda: dist.distribute_tensor(
            np.ones((8, 2), "float32"), dist.TensorLayout((("batch", "model"), None), mesh))),
        "distribution_unchanged": dist.distribution() is None,
    }


def run() -> dict:
    polyops.set_backend("tensorflow")
    found = {}
    for name, fn in sorted(globals().items()):
        if name.startswith("scenario_"):
            try:
                found[name[len("scenario_"):]] = fn()
            except Exception:  # noqa: BLE001  (reported to the test, which shows it)
                found[name[len("scenario_"):]] = {"error": traceback.format_exc()}
    return found


if __name__ == "__main__":
    print(json.dumps(run()))
