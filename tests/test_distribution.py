"""polyops.distribution (issue 20): meshes, layouts, DataParallel and ModelParallel.

In this process every backend has one device: the API, its validation (the same ValueError
on every backend) and one-device distributions.  Many devices run in subprocesses:
tests/_distributed_jax.py with 8 simulated CPU devices for jax, tests/_distributed_torch.py
as jobs of 2 and 4 processes on 127.0.0.1 (gloo) for torch, tests/_distributed_tf.py with
the CPU split into 8 logical devices for tensorflow (DTensor).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import polyops
from polyops import distribution as dist
from polyops import ops
from polyops.distribution import _devices

from conftest import BACKENDS

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _no_distribution():
    """Every test starts and ends without a distribution set."""
    dist.set_distribution(None)
    yield
    dist.set_distribution(None)


def _mesh(shape=(1,), names=("batch",)):
    return dist.DeviceMesh(shape, names, ["cpu:0"])


# -- one device, every backend ------------------------------------------------------------


def test_devices_and_processes(backend):
    with polyops.use_backend(backend):
        assert dist.list_devices("cpu")[0] == "cpu:0"
        assert dist.get_device_count() == len(dist.list_devices()) >= 1
        assert (dist.num_processes(), dist.process_id()) == (1, 0)


def test_data_parallel_on_one_device(backend):
    with polyops.use_backend(backend):
        dp = dist.DataParallel(devices=["cpu:0"])
        assert (dp.device_mesh.shape, dp.batch_dim_name, dp.num_model_replicas) == ((1,), "batch", 1)
        x = np.arange(8.0).reshape(4, 2)  # float64: placed as convert_to_tensor would
        with dp.scope():
            assert dist.distribution() is dp
            v = polyops.Variable(np.ones((2, 3), "float32"), name="w")
            batch = dist.distribute_data_input({"x": x, "y": None})
        assert dist.distribution() is None
        assert v._layout.axes == (None, None) and v._layout.device_mesh is dp.device_mesh
        assert ops.dtype(batch["x"]) == "float32" and batch["y"] is None
        np.testing.assert_array_equal(ops.convert_to_numpy(batch["x"]), x.astype("float32"))
        layout = dist.TensorLayout(("batch", None), dp.device_mesh)
        np.testing.assert_array_equal(ops.convert_to_numpy(dist.distribute_tensor(x, layout)), x)
        v.assign(np.zeros((2, 3), "float32"))  # keeps working with its layout
        np.testing.assert_array_equal(v.numpy(), np.zeros((2, 3)))


def test_model_parallel_layouts_from_the_layout_map(backend):
    with polyops.use_backend(backend):
        mesh = _mesh((1, 1), ("batch", "model"))
        layout_map = dist.LayoutMap(mesh)
        layout_map[".*dense.*kernel"] = (None, "model")
        layout_map[".*dense.*bias"] = dist.TensorLayout(("model",))
        mp = dist.ModelParallel(layout_map=layout_map)
        with mp.scope():
            kernel = polyops.Variable(np.ones((3, 4), "float32"), name="mlp/dense_1/kernel")
            bias = polyops.Variable(np.zeros(4, "float32"), name="mlp/dense_1/bias")
            other = polyops.Variable(np.zeros((2, 2), "float32"), name="embedding")
        assert kernel._layout is layout_map["mlp/dense_1/kernel"]
        assert bias._layout.axes == ("model",) and bias._layout.device_mesh is mesh
        assert other._layout.axes == (None, None)
        assert (mp.batch_dim_name, mp.num_model_replicas) == ("batch", 1)
        assert mp.get_data_layout((8, 3)).axes == ("batch", None)
        assert mp.get_tensor_layout("mlp/dense_1/kernel").axes == (None, "model")
        with pytest.raises(ValueError, match=r"Variable 'dense_2/kernel'.*rank 2.*shape \(4,\)"):
            with mp.scope():
                polyops.Variable(np.zeros(4, "float32"), name="dense_2/kernel")


def test_a_mesh_of_two_devices_names_the_backend(backend):
    """numpy, openvino, tensorflow: no hook, one device; jax here: one CPU device; torch
    without a process group: one process, one device."""
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=f"the {backend} backend"):
            dist.DeviceMesh((2,), ["batch"], ["cpu:0", "cpu:1"])
        with pytest.raises(ValueError, match=f"{backend} backend"):
            dist.DataParallel(devices=["cpu:0", "cpu:1"])


_BAD = {
    "mesh size": (lambda: dist.DeviceMesh((2,), ["batch"], ["cpu:0"]),
                  r"shape \(2,\) holds 2 devices, got 1"),
    "empty mesh": (lambda: dist.DeviceMesh((), []), "non-empty shape"),
    "mesh rank": (lambda: dist.DeviceMesh((1,), ("a", "b"), ["cpu:0"]), "one axis name per"),
    "mesh names": (lambda: dist.DeviceMesh((1, 1), ("a", "a"), ["cpu:0"]), "distinct axis"),
    "mesh dims": (lambda: dist.DeviceMesh((1.5,), ("a",), ["cpu:0"]), "positive ints"),
    "device name": (lambda: dist.DeviceMesh((1,), ("a",), [0]), "device names"),
    "device type": (lambda: dist.list_devices("tpu"), "no 'tpu' devices"),
    "layout axis": (lambda: dist.TensorLayout(("batch", "model"), _mesh()),
                    r"name \['model'\], which the mesh does not have"),
    "layout twice": (lambda: dist.TensorLayout(("batch", "batch")), "one dimension only"),
    "layout entry": (lambda: dist.TensorLayout((3,)), "None, a mesh axis name"),
    "rank": (lambda: dist.distribute_tensor(np.ones(3), dist.TensorLayout(("batch", None), _mesh())),
             r"rank 2, the tensor has shape \(3,\)"),
    "no mesh": (lambda: dist.distribute_tensor(np.ones(3), dist.TensorLayout(("batch",))),
                "has no device mesh"),
    "mesh type": (lambda: dist.DataParallel(device_mesh="cpu:0"), "a DeviceMesh"),
    "both": (lambda: dist.DataParallel(device_mesh=_mesh(), devices=["cpu:0"]), "got both"),
    "no layout map": (lambda: dist.ModelParallel(), "a LayoutMap"),
    "batch axis": (lambda: dist.ModelParallel(layout_map=dist.LayoutMap(_mesh()),
                                              batch_dim_name="data"), "'data' is not an axis"),
    "set": (lambda: dist.set_distribution("data"), "a Distribution or None"),
    "no data layout": (lambda: dist.distribute_data_input(np.ones((2, 2))), "got neither"),
    "scalar batch": (lambda: dist.DataParallel(devices=["cpu:0"]).get_data_layout(()),
                     "batch dimension"),
    "processes": (lambda: dist.initialize(num_processes=2, process_id=2),
                  r"process_id in \[0, 2\)"),
    "addresses": (lambda: dist.initialize("a:1,b:2", num_processes=3), "names 2 processes"),
}


@pytest.mark.parametrize("case", sorted(_BAD))
def test_bad_input_raises_the_same_error_on_every_backend(case, backend):
    fn, message = _BAD[case]
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match=message):
            fn()
    assert dist.distribution() is None and _devices._INITIALIZED is None


def test_layout_map_lookup_and_errors_change_nothing():
    mesh = _mesh((1, 1), ("batch", "model"))
    layout_map = dist.LayoutMap(mesh)
    layout_map["dense.*"] = (None, "model")
    layout_map["dense_1/kernel"] = ("model", None)
    assert layout_map["dense_1/kernel"].axes == ("model", None)  # the exact key first
    assert layout_map["dense_2/bias"].axes == (None, "model")  # else the regex fullmatch
    assert layout_map["conv/kernel"] is None and layout_map.get("x") is None
    layout_map["conv.*"] = ("model",)
    layout_map[".*kernel"] = (None, "model")
    with pytest.raises(ValueError, match="matches several keys"):
        layout_map["conv/kernel"]
    before = dict(layout_map)
    for key, value, message in [("dense.*", ("model",), "already set"),
                                ("bad", ("nope",), "does not have"),
                                ("(", ("model",), "not a regular expression"),
                                ("x", "model", "a TensorLayout or a tuple"),
                                ("y", dist.TensorLayout(("model",), _mesh((1,), ("model",))),
                                 "not this map's")]:
        with pytest.raises(ValueError, match=message):
            layout_map[key] = value
    assert dict(layout_map) == before and len(layout_map) == 4
    layout = dist.TensorLayout(("model",))
    with pytest.raises(ValueError, match="does not have"):
        layout.device_mesh = _mesh()
    assert layout.device_mesh is None
    layout.device_mesh = mesh
    with pytest.raises(ValueError, match="already set"):
        layout.device_mesh = mesh


def test_scope_nests_and_is_per_thread():
    a, b = dist.DataParallel(devices=["cpu:0"]), dist.DataParallel(devices=["cpu:0"])
    dist.set_distribution(a)
    with b.scope():
        assert dist.distribution() is b
        seen = []
        thread = threading.Thread(target=lambda: seen.append(dist.distribution()))
        thread.start()
        thread.join()
        assert seen == [a]  # a thread sees the process-wide one, not this scope
    assert dist.distribution() is a
    with pytest.raises(ValueError):
        dist.set_distribution(object())
    assert dist.distribution() is a


def test_symbolic_tensors_pass_through():
    s = polyops.SymbolicTensor((None, 3))
    assert dist.distribute_tensor(s, dist.TensorLayout(("batch", None), _mesh())) is s


@pytest.mark.skipif("numpy" not in BACKENDS, reason="a backend without the hook: numpy")
def test_initialize_once(monkeypatch):
    monkeypatch.setattr(_devices, "_INITIALIZED", None)
    with polyops.use_backend("numpy"):
        with pytest.raises(ValueError, match="the numpy backend runs on one device"):
            dist.initialize("10.0.0.1:1234", num_processes=2, process_id=0)
        monkeypatch.setenv("POLYOPS_DISTRIBUTION_NUM_PROCESSES", "2")
        with pytest.raises(ValueError, match="num_processes=2"):
            dist.initialize()
        assert _devices._INITIALIZED is None  # nothing changed
        monkeypatch.setenv("POLYOPS_DISTRIBUTION_NUM_PROCESSES", "1")
        dist.initialize()
        with pytest.raises(RuntimeError, match="already called"):
            dist.initialize()
        assert dist.num_processes() == 1


def test_import_polyops_does_not_import_distribution():
    code = ("import sys, polyops\n"
            "print('polyops.distribution' in sys.modules)\n"
            "print(polyops.distribution.DEFAULT_BATCH_DIM_NAME)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.split() == ["False", "batch"], out.stderr[-2000:]


# -- jax, 8 devices (a subprocess) ---------------------------------------------------------

needs_jax = pytest.mark.skipif("jax" not in BACKENDS, reason="the jax backend is not installed")


def _run_jax(mode: str) -> dict:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
           "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, str(HERE / "_distributed_jax.py"), mode],
                         capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def jax8():
    return _run_jax("devices")


def _scenario(jax8, name):
    found = jax8[name]
    assert "error" not in found, found.get("error")
    return found


def _spec(found):
    """A PartitionSpec as a tuple without trailing Nones (jax drops them after a jit)."""
    spec = list(found["spec"])
    while spec and spec[-1] is None:
        spec.pop()
    return tuple(spec)


@needs_jax
def test_jax_sees_eight_devices(jax8):
    found = _scenario(jax8, "devices")
    assert found["list"] == [f"cpu:{i}" for i in range(8)]
    assert (found["count"], found["cpu_count"], found["processes"]) == (8, 8, 1)


@needs_jax
def test_jax_data_parallel_training_equals_one_device(jax8):
    found = _scenario(jax8, "data_parallel")
    assert _spec(found["input"]) == ("batch",) and found["input"]["devices"] == 8
    for name, w in found["weights"].items():
        assert w["replicated"] and w["devices"] == 8, name
    assert found["loss"]["replicated"] and found["loss_decreased"]
    assert found["max_param_diff"] < 1e-5 and found["loss_diff"] < 1e-5


@needs_jax
def test_jax_model_parallel_shards_weights_on_the_model_axis(jax8):
    found = _scenario(jax8, "model_parallel")
    want = {"dense_1/kernel": (None, "model"), "dense_1/bias": ("model",),
            "dense_2/kernel": ("model",), "dense_2/bias": ()}
    for stage in ("created", "after_steps"):  # a jitted step keeps the layouts
        assert {n: _spec(w) for n, w in found[stage].items()} == want, stage
        assert all(w["devices"] == 8 for w in found[stage].values())
    assert _spec(found["input"]) == ("batch",)
    assert found["max_param_diff"] < 1e-5
    assert _spec(found["constrained_output"]) == ("batch", "model")  # distribute_tensor in jit
    assert _spec(found["eager_op"]) == (None, "model") and found["gathered_equal"]
    assert _spec(found["eager_assign"]) == ("model",)


@needs_jax
def test_jax_bad_input_on_eight_devices(jax8):
    found = _scenario(jax8, "bad_input")
    messages = {"mesh_shape": r"holds 3 devices, got 8",
                "mesh_unknown_device": r"\['cpu:9'\] are not devices of the jax backend",
                "layout_axis": "'modle'", "rank": "rank 2", "layout_map_bad": "'nope'",
                "divisible": "dimension 1 of shape \\(4, 6\\) has size 6, not divisible by "
                             "the 4 devices of mesh axis 'model'",
                "data_divisible": "size 3, not divisible by the 2 devices of mesh axis 'batch'",
                "variable_rank": "Variable 'dense_1/kernel'"}
    import re

    for case, message in messages.items():
        kind, text = found[case]
        assert kind == "ValueError" and re.search(message, text), (case, text)
    assert found["layout_map_unchanged"] and found["distribution_unchanged"]


@needs_jax
def test_jax_random_gives_the_one_device_numbers(jax8):
    found = _scenario(jax8, "random")
    for name, f in found.items():
        assert f["equal"] == [True] * 4 and f["kernel_equal"] and f["jitted_equal"], name
    assert _spec(found["model_parallel"]["kernel"]) == (None, "model")
    assert _spec(found["model_parallel"]["jitted"]) == ("batch", "model")


@needs_jax
def test_jax_initialize_once():
    found = _run_jax("initialize")
    assert (found["processes"], found["process_id"], found["computes"]) == (1, 0, 3.0)
    assert found["again"][0] == "RuntimeError" and "already called" in found["again"][1]


@needs_jax
def test_jax_two_processes_data_parallel_equals_one_device():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
           "JAX_PLATFORMS": "cpu"}
    procs = [subprocess.Popen([sys.executable, str(HERE / "_distributed_jax.py"), "process",
                               str(i), port], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for i in range(2)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-3000:]
            outs.append(json.loads(out.splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()
    for i, found in enumerate(outs):
        assert (found["devices"], found["processes"], found["process_id"]) == (4, 2, i)
        assert found["global_batch"] == [32, 16] and found["max_param_diff"] < 1e-5


# -- torch, jobs of 2 and 4 processes (gloo on 127.0.0.1) -----------------------------------

needs_torch = pytest.mark.skipif("torch" not in BACKENDS,
                                 reason="the torch backend is not installed")


def _free_port() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _run_torch_job(processes: int) -> list[dict]:
    """Every process's findings (tests/_distributed_torch.py), the job bound to 150 s."""
    port = _free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, str(HERE / "_distributed_torch.py"), str(i),
                               str(processes), port], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for i in range(processes)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=150)
            assert p.returncode == 0, err[-3000:]
            outs.append(json.loads(out.splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()
    return outs


@pytest.fixture(scope="module", params=[2, 4], ids=["2-processes", "4-processes"])
def torch_job(request):
    return request.param, _run_torch_job(request.param)


def _each(torch_job, name):
    processes, outs = torch_job
    for found in outs:
        assert "error" not in found[name], found[name].get("error")
    return processes, [found[name] for found in outs]


@needs_torch
def test_torch_devices_are_the_ranks(torch_job):
    n, found = _each(torch_job, "devices")
    for i, f in enumerate(found):
        assert f["list"] == [f"cpu:{r}" for r in range(n)]
        assert (f["count"], f["cpu_count"], f["processes"], f["process_id"]) == (n, n, n, i)
        assert f["again"][0] == "RuntimeError" and "already called" in f["again"][1]


@needs_torch
def test_torch_data_parallel_training_equals_one_device(torch_job):
    n, found = _each(torch_job, "data_parallel")
    for f in found:
        assert f["input"] == ["S(0)"] and f["global_batch"] == [32, 16]
        assert f["local_batch"] == [32 // n, 16]
        assert all(p == ["R"] for p in f["weights"].values()), f["weights"]
        assert f["loss"] == ["P(avg)"] and f["loss_decreased"]  # gathered by convert_to_numpy
        assert f["max_param_diff"] < 1e-5 and f["loss_diff"] < 1e-5
        # polyops.jit (the job of 2) compiles the step on the DTensors' local tensors:
        # traced twice (the second time with the Variables it read), never run eagerly
        assert not [w for w in f["warnings"] if w.startswith("JitFallbackWarning")], \
            f["warnings"]
        assert f["traces"] == (2 if n == 2 else None)


@needs_torch
def test_torch_model_parallel_shards_weights_on_the_model_axis(torch_job):
    n, found = _each(torch_job, "model_parallel")
    want = {"dense_1/kernel": ["R", "S(1)"], "dense_1/bias": ["R", "S(0)"],
            "dense_2/kernel": ["R", "S(0)"], "dense_2/bias": ["R", "R"]}
    for f in found:
        assert f["mesh"] == [n // 2, 2] and f["local_kernel"] == [16, 16]
        assert f["created"] == want and f["after_steps"] == want  # the steps keep the layouts
        assert f["input"] == ["S(0)", "R"] and f["max_param_diff"] < 1e-5
        assert f["hidden"] == ["S(0)", "S(1)"] and f["redistributed"] == ["S(0)", "S(1)"]
        assert f["eager_op"] == ["R", "S(1)"] and f["eager_assign"] == ["R", "S(0)"]
        assert f["gathered_equal"]
        # the job of 2 jits the step (on local tensors, see the data-parallel test)
        assert f["traces"] == (2 if n == 2 else None) and not f["warnings"], f["warnings"]


@needs_torch
def test_torch_random_gives_the_one_device_numbers(torch_job):
    n, found = _each(torch_job, "random")
    for f in found:
        for name, r in f.items():
            assert r["equal"] == [True] * 3 and r["kernel_equal"], name
            # a SeedGenerator's state is no DTensor: it mixes with plain tensors
            assert r["state"] == [] and r["state_mixes"] == [6, 3], name
            # jitted (the job of 2): the same numbers, as inductor rounds them
            assert (r["jitted_diff"] < 1e-6) if n == 2 else r["jitted_diff"] is None, name
        assert f["data_parallel"]["kernel"] == ["R"]
        assert f["model_parallel"]["kernel"] == ["R", "S(1)"]


@needs_torch
def test_torch_bad_input_in_a_job(torch_job):
    n, found = _each(torch_job, "bad_input")
    import re

    messages = {"mesh_shape": rf"holds {n + 1} devices, got {n}",
                "mesh_unknown_device": r"\['cpu:9'\] are not devices of the torch backend",
                "divisible": "dimension 1 of shape \\(4, 3\\) has size 3, not divisible by "
                             "the 2 devices of mesh axis 'model'",
                "rank": "rank 2"}
    for f in found:
        for case, message in messages.items():
            kind, text = f[case]
            assert kind == "ValueError" and re.search(message, text), (case, text)
        assert f["distribution_unchanged"]


# -- tensorflow, 8 logical CPU devices (a subprocess) -----------------------------------------

needs_tf = pytest.mark.skipif("tensorflow" not in BACKENDS,
                              reason="the tensorflow backend is not installed")


@pytest.fixture(scope="module")
def tf8():
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    out = subprocess.run([sys.executable, str(HERE / "_distributed_tf.py")], capture_output=True,
                         text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


@needs_tf
def test_tf_devices_are_the_logical_devices(tf8):
    found = _scenario(tf8, "devices")
    assert found["list"] == [f"cpu:{i}" for i in range(8)]
    assert (found["count"], found["cpu_count"], found["processes"]) == (8, 8, 1)
    kind, text = found["two_processes"]  # DTensor's multi-client jobs: not driven
    assert kind == "ValueError" and "tensorflow backend" in text


@needs_tf
def test_tf_data_parallel_training_equals_one_device(tf8):
    found = _scenario(tf8, "data_parallel")
    jit = found["jit"]
    assert jit["input"] == ["batch", None] and jit["loss"] == [] and jit["loss_decreased"]
    assert all(all(s is None for s in w) for w in jit["weights"].values()), jit["weights"]
    assert jit["max_param_diff"] < 1e-5 and jit["loss_diff"] < 1e-5
    # eager gradients of DTensors: tensorflow's own error (docs/distribution.md)
    assert found["eager"]["error"].startswith("UnimplementedError"), found["eager"]


@needs_tf
def test_tf_model_parallel_shards_weights_on_the_model_axis(tf8):
    found = _scenario(tf8, "model_parallel")
    want = {"dense_1/kernel": [None, "model"], "dense_1/bias": ["model"],
            "dense_2/kernel": ["model", None], "dense_2/bias": [None]}
    assert found["created"] == want and found["after_steps"] == want
    assert found["input"] == ["batch", None] and found["max_param_diff"] < 1e-5
    assert found["constrained_output"] == ["batch", "model"]
    assert found["eager_op"] == [None, "model"] and found["eager_assign"] == ["model", None]
    assert found["gathered_equal"] and found["convert_to_numpy"] is None  # (no error)


@needs_tf
def test_tf_random_gives_the_one_device_numbers(tf8):
    found = _scenario(tf8, "random")
    for name, f in found.items():
        assert f["equal"] == [True] * 4 and f["kernel_equal"] and f["jitted_equal"], name
        assert f["seed_generator_state"] == [], name  # a plain tensor: no DTensor
    assert found["model_parallel"]["kernel"] == [None, "model"]
    assert found["model_parallel"]["jitted"] == ["batch", "model"]


@needs_tf
def test_tf_bad_input(tf8):
    import re

    found = _scenario(tf8, "bad_input")
    messages = {"mesh_shape": r"holds 3 devices, got 8",
                "mesh_unknown_device": r"\['cpu:9'\] are not devices of the tensorflow backend",
                "divisible": "dimension 1 of shape \\(4, 6\\) has size 6, not divisible",
                "rank": "rank 2",
                "two_axes": r"tensorflow backend \(DTensor\) splits a tensor dimension over one"}
    for case, message in messages.items():
        kind, text = found[case]
        assert kind == "ValueError" and re.search(message, text), (case, text)
    assert found["distribution_unchanged"]


# -- the example -----------------------------------------------------------------------------


@needs_jax
def test_example_trains_on_eight_jax_devices_as_on_one():
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # the script sets 8
    out = subprocess.run([sys.executable, str(HERE.parent / "examples" / "distributed_mlp.py")],
                         capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    assert out.stdout.count(" ok\n") == 2 and "FAILED" not in out.stdout, out.stdout
    assert "mesh (8,) ('batch',)" in out.stdout and "mesh (2, 4)" in out.stdout
    assert "dense_1/kernel  (16, 32)  P(None, 'model')" in out.stdout
