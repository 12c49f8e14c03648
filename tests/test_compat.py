"""Every plugin works without the private framework APIs it uses.

Each plugin reads private framework attributes (faster dtype reads, trace contexts, tape
state...) in its ``_compat.py`` only, through `polyops.plugin.private`, and lists their paths
in ``_compat.PRIVATE``.  Here all of them are hidden at once (``POLYOPS_HIDE_PRIVATE=all``, as
if a framework release had removed them) and a subprocess runs eager ops, fast paths, jit,
grad and a Variable on that backend: the public-API fallbacks must give the same numbers.
(``POLYOPS_HIDE_PRIVATE=<path>`` hides one; one subprocess per path costs minutes of CI.)
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import polyops
from polyops.plugin import private

_SMOKE = r"""
import json, sys
import numpy as np
import polyops
from polyops import ops

backend = sys.argv[1]
polyops.set_backend(backend)
a = np.arange(12, dtype="float32").reshape(3, 4) / 7
x = ops.convert_to_tensor(a)
out = {
    "add": ops.add(x, x), "neg": ops.negative(x), "sum": ops.sum(x, axis=1),
    "matmul": ops.matmul(x, ops.transpose(x)), "concat": ops.concatenate([x, x], axis=0),
    "sort": ops.sort(-x, axis=-1), "take": ops.take(x, ops.convert_to_tensor([2, 0]), axis=0),
    "softmax": ops.softmax(x), "cast": ops.cast(x * 10, "int32"),
    "jit": polyops.jit(lambda t: ops.sum(ops.tanh(t) * t))(x),
    "loop": ops.fori_loop(0, 3, lambda i, t: t + ops.cast(i, "float32"), x),
}
v = polyops.Variable(a)
v.assign_add(x)
out["variable"] = v.value
if backend in ("jax", "tensorflow", "torch"):
    out["grad"] = polyops.grad(lambda t: ops.sum(ops.sin(t) * t))(x)
    out["jit_grad"] = polyops.jit(polyops.grad(lambda t: ops.sum(ops.square(t))))(x)
out["dtypes"] = [ops.dtype(out["cast"]), ops.dtype(out["add"])]
print(json.dumps({k: (v if k == "dtypes" else np.asarray(ops.convert_to_numpy(v)).tolist())
                  for k, v in out.items()}))
"""


def _expected(backend: str) -> dict:
    a = np.arange(12, dtype="float32").reshape(3, 4) / 7
    want = {
        "add": a + a, "neg": -a, "sum": a.sum(1), "matmul": a @ a.T,
        "concat": np.concatenate([a, a]), "sort": np.sort(-a, -1), "take": a[[2, 0]],
        "softmax": np.exp(a) / np.exp(a).sum(-1, keepdims=True),
        "cast": (a * 10).astype("int32"), "jit": (np.tanh(a) * a).sum(),
        "loop": a + 3.0, "variable": a + a,
    }
    if backend in ("jax", "tensorflow", "torch"):
        want["grad"] = np.sin(a) + a * np.cos(a)
        want["jit_grad"] = 2 * a
    return want


@pytest.mark.parametrize("backend_name", polyops.available_backends())
def test_plugin_runs_without_private_apis(backend_name, path="all"):
    env = dict(os.environ, POLYOPS_HIDE_PRIVATE=path)
    run = subprocess.run([sys.executable, "-c", _SMOKE, backend_name], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got.pop("dtypes") == ["int32", "float32"]
    want = _expected(backend_name)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(np.asarray(got[key]), value, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{backend_name} without {path}: {key}")


def test_every_plugin_lists_its_private_apis():
    """``PRIVATE`` names only paths that exist with the frameworks pinned for the tests (a
    stale entry would make the fallback the only path tested)."""
    stale = []
    for backend in polyops.available_backends():
        compat = importlib.import_module(f"polyops_{backend}._compat")
        stale += [p for p in compat.PRIVATE if private(p) is None]
    assert stale == []


def test_private_hides_and_falls_back(monkeypatch):
    assert private("json:dumps") is json.dumps
    assert private("json:no_such_attr", "fallback") == "fallback"
    assert private("no_such_module_xyz:attr", 3) == 3
    monkeypatch.setenv("POLYOPS_HIDE_PRIVATE", "os:sep,json:dumps")
    assert private("json:dumps") is None
    assert private("json:loads") is json.loads
