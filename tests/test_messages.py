"""What a user sees when something is off: other frameworks' argument names, tensors another
framework will not hand over, no backend to run on, third-party noise, device names, docs."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops._op import every_op

from conftest import BACKENDS, tensor

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter of this environment (POLYOPS_* variables unset)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("POLYOPS_")}
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=full, timeout=timeout)


# ----- torch's and tensorflow's names for Keras's parameters -----------------------------

_ALIASES = [
    # call, the op, the names given, the names meant
    (lambda x: ops.sum(x, dim=1), "sum", "'dim'", "'axis'"),
    (lambda x: ops.mean(x, axis=0, keepdim=True), "mean", "'keepdim'", "'keepdims'"),
    (lambda x: ops.argmax(x, dim=1, keepdim=True), "argmax", "'dim', 'keepdim'", "'axis', 'keepdims'"),
    (lambda x: ops.add(x, other=x), "add", "'other'", "'x2'"),
    (lambda x: ops.add(input=x, other=x), "add", "'input', 'other'", "'x1', 'x2'"),
    (lambda x: ops.exp(input=x), "exp", "'input'", "'x'"),
    (lambda x: ops.concatenate([x, x], dim=0), "concatenate", "'dim'", "'axis'"),
    (lambda x: ops.binary_crossentropy(x, input=x), "binary_crossentropy", "'input'", "'output'"),
]


@pytest.mark.parametrize("case", range(len(_ALIASES)))
def test_other_frameworks_names_get_the_ops_names(case, backend):
    call, name, given, meant = _ALIASES[case]
    with polyops.use_backend(backend):
        x = tensor(np.ones((2, 3)))
        with pytest.raises(TypeError) as info:
            call(x)
    message = str(info.value)
    assert message.startswith(f"{name}: got ")
    assert f"argument{'s' if ',' in given else ''} {given}; did you mean {meant}?" in message
    assert f"{name}{every_op()[name].signature}" in message


def test_extra_positional_arguments_and_missing_tensors(backend):
    with polyops.use_backend(backend):
        x = tensor(np.ones((2, 3)))
        with pytest.raises(TypeError, match=r"^add: got more positional arguments than it takes"):
            ops.add(x, x, x)
        with pytest.raises(TypeError, match=r"^concatenate: got more positional arguments"):
            ops.concatenate([x, x], 0, 1)
        with pytest.raises(TypeError, match=r"^add: missing required argument 'x2' \(add\(x1, x2\)\)"):
            ops.add(x)
        with pytest.raises(TypeError, match=r"^sum: missing required argument 'x'"):
            ops.sum(axis=1)
        # names no framework uses keep Python's message, which names the op
        with pytest.raises(TypeError, match=r"^sum\(\) got an unexpected keyword argument 'axes'"):
            ops.sum(x, axes=1)
        # the right names still work, by keyword and by position
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.sum(x, axis=1, keepdims=True)), [[3], [3]])
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.add(x1=x, x2=x)), np.full((2, 3), 2))


def test_signatures_show_only_the_ops_own_parameters():
    for name, op in every_op().items():
        sig = inspect.signature(op.public)
        assert str(sig) == str(op.signature), name
        assert list(sig.parameters) == op.params, name


# ----- a torch tensor that requires grad, on another backend -----------------------------


@pytest.mark.parametrize("name", [b for b in BACKENDS if b != "torch"])
def test_tensor_that_requires_grad_on_another_backend(name):
    if "torch" not in BACKENDS:
        pytest.fail("this test needs the torch backend installed")
    import torch

    t = torch.ones(3, requires_grad=True)
    calls = [(lambda: ops.add(t, 1.0), "add", "x1"), (lambda: ops.add(1.0, t), "add", "x2"),
             (lambda: ops.sum(t, axis=0), "sum", "x"),
             (lambda: ops.concatenate([t.detach(), t]), "concatenate", "xs[1]")]
    with polyops.use_backend(name):
        for call, op, param in calls:
            with pytest.raises(TypeError) as info:
                call()
            assert str(info.value) == (
                f"{op}: expected a tensor the {name} backend can read for {param!r}, got a "
                f"torch.Tensor that requires grad; pass {param}.detach() (gradients do not "
                f"flow across frameworks), or compute on the torch backend")
        # detached, it converts
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.add(t.detach(), 1.0)), [2, 2, 2])


# ----- no backend to run on --------------------------------------------------------------


def test_autoload_off_says_so_and_how_to_register():
    proc = _run("""
        import json, polyops
        from polyops import ops
        out = {}
        for key, call in (("op", lambda: ops.add(1, 2)), ("select", lambda: polyops.set_backend("numpy"))):
            try:
                call()
            except Exception as exc:
                out[key] = [type(exc).__name__, str(exc)]
        print(json.dumps(out))
    """, {"POLYOPS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    import json

    out = json.loads(proc.stdout.strip().splitlines()[-1])
    kind, message = out["op"]
    assert kind == "BackendNotFoundError" and message.startswith("add: no backend is registered")
    assert "no backend is installed" not in message
    assert "POLYOPS_DISABLE_PLUGIN_AUTOLOAD is set" in message
    assert "polyops.register_backend(polyops_numpy.plugin)" in message
    kind, message = out["select"]
    assert message.startswith("set_backend: unknown backend 'numpy'; installed backends: none; "
                              "POLYOPS_DISABLE_PLUGIN_AUTOLOAD is set")
    assert "register_backend" in message


# ----- no third-party noise --------------------------------------------------------------

_NOISE = ("os.fork()", "oneDNN", "absl::InitializeLog", "cpu_feature_guard", "JAX is multithreaded")


def test_using_every_backend_prints_nothing(tmp_path):
    """jax then openvino (whose telemetry forked a process on import: jax's fork warning),
    tensorflow (oneDNN and absl lines at import), torch: stderr stays empty of them, and
    openvino's telemetry is neither imported nor writes its files, unless the user opted in."""
    proc = _run("""
        import sys
        import polyops
        from polyops import ops
        for name in ("jax", "openvino", "tensorflow", "torch", "numpy"):
            if name in polyops.available_backends():
                with polyops.use_backend(name):
                    ops.convert_to_numpy(ops.add(ops.ones((2,)), 1.0))
        print("openvino_telemetry" in sys.modules)
    """, {"HOME": str(tmp_path)})  # (openvino's consent and client-id files live there)
    assert proc.returncode == 0, proc.stderr
    assert not [line for line in proc.stderr.splitlines() if any(n in line for n in _NOISE)], proc.stderr
    assert proc.stdout.strip() == "False"
    assert not (tmp_path / "intel").exists()


def test_cli_prints_no_framework_noise():
    proc = subprocess.run([sys.executable, "-m", "polyops", "backends"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0
    assert not [line for line in proc.stderr.splitlines() if any(n in line for n in _NOISE)], proc.stderr


def test_the_users_own_settings_win(tmp_path):
    """A user who asks TensorFlow for every log line gets them; one who opted in to
    OpenVINO's telemetry gets it."""
    if "tensorflow" in BACKENDS:
        proc = _run("""
            import polyops
            with polyops.use_backend("tensorflow"):
                pass
        """, {"TF_CPP_MIN_LOG_LEVEL": "0"})
        assert "oneDNN custom operations are on" in proc.stderr
    if "openvino" in BACKENDS:
        (tmp_path / "intel").mkdir()
        (tmp_path / "intel" / "openvino_telemetry").write_text("1")
        proc = _run("""
            import sys, polyops
            with polyops.use_backend("openvino"):
                pass
            print("openvino_telemetry" in sys.modules)
        """, {"HOME": str(tmp_path), "CI": "true"})  # CI=true: imported, but sends nothing
        assert proc.stdout.strip() == "True", proc.stderr


# ----- devices and docs ------------------------------------------------------------------


def test_devices_are_named_kind_and_index(backend):
    with polyops.use_backend(backend):
        devices = polyops.devices()
    assert devices and all(re.fullmatch(r"[a-z]+:\d+", d) for d in devices), devices
    assert "cpu:0" in devices


def test_docs_call_no_existing_op_planned():
    ops_names = set(every_op())
    stale = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name in re.findall(r"`(?:ops\.)?(\w+)`\s*\(planned\)", path.read_text()):
            if name in ops_names:
                stale.append(f"{path.name}: {name}")
    assert stale == []
