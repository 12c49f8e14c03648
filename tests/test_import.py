"""``import polyops`` imports no framework, even with all five plugins installed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FRAMEWORKS = ("jax", "jaxlib", "tensorflow", "torch", "openvino", "keras")


def test_import_polyops_imports_no_framework():
    code = (
        "import json, sys, polyops, polyops.ops\n"
        "polyops.available_backends()\n"
        "x = polyops.SymbolicTensor((None, 3)); polyops.ops.sum(x * 2.0, axis=0)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_selecting_a_backend_imports_only_its_framework():
    code = (
        "import json, sys, polyops\n"
        "polyops.set_backend('numpy'); polyops.ops.add(1.0, 2.0)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_a_script_loads_only_the_op_modules_it_uses():
    """Defining the 345 ops costs ~35 ms: ``polyops.ops`` loads an op module on first use
    of one of its names (polyops.ops._lazy), and a backend loads without defining any."""
    code = (
        "import json, sys, polyops\nfrom polyops import ops\n"
        "polyops.set_backend('numpy'); ops.add(ops.ones((3,)), 1.0)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('polyops.ops.')"
        " and not m.split('.')[-1].startswith('_'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == ["polyops.ops.core", "polyops.ops.core.base",
                                      "polyops.ops.numpy", "polyops.ops.numpy.base"]


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


@pytest.mark.parametrize("name", ["numpy", "torch", "openvino"])
def test_ml_dtypes_is_imported_only_for_bfloat16(name):
    """Importing ml_dtypes costs about half a second: a user who never asks for bfloat16
    does not pay it (issue 17); asking for it, or passing one in, still works."""
    code = (
        "import sys, numpy as np, polyops\n"
        "from polyops import ops\n"
        f"polyops.set_backend({name!r})\n"
        "x = ops.ones((2, 2)); ops.matmul(ops.add(x, 1.0), x); ops.sum(x, axis=0)\n"
        "print('ml_dtypes' in sys.modules)\n"
        "y = ops.exp(ops.ones((2, 2), 'bfloat16'))\n"
        "print(ops.convert_to_numpy(y).dtype, 'ml_dtypes' in sys.modules)\n"
    )
    assert _run(code) == ["False", "bfloat16", "True"]


def test_numpy_backend_learns_bfloat16_from_user_arrays():
    """ml_dtypes imported by the user after the numpy backend loaded: its bfloat16 arrays
    are recognised, and kernels with bfloat16 branches take them (matmul, sort)."""
    code = (
        "import polyops\n"
        "from polyops import ops\n"
        "ops.add(ops.ones((3,)), 1.0)\n"
        "import ml_dtypes, numpy as np\n"
        "a = np.array([[3.0, float('nan')], [1.0, 2.0]], ml_dtypes.bfloat16)\n"
        "print(ops.matmul(a, a).dtype, ops.add(a, a).dtype, ops.convert_to_tensor(a).dtype)\n"
        "print(np.isnan(ops.sort(a, axis=-1)[0, -1]))\n"
    )
    assert _run(code) == ["bfloat16", "bfloat16", "bfloat16", "True"]


def test_backends_are_found_without_importlib_metadata():
    """Entry points are read from the distributions' entry_points.txt directly:
    ``importlib.metadata`` costs ~20 ms of every start (issue 17's cold start)."""
    code = ("import sys, polyops\n"
            "print(sorted(polyops.available_backends()) != [], 'importlib.metadata' in sys.modules)")
    assert _run(code) == ["True", "False"]


@pytest.mark.parametrize("group", ["polyops.backends", "console_scripts"])
def test_entry_points_agree_with_importlib_metadata(group):
    import importlib.metadata

    from polyops import _entrypoints

    def rows(eps):
        return sorted((e.name, e.value, e.dist.name, e.dist.version) for e in eps)

    theirs = rows(importlib.metadata.entry_points(group=group))
    assert theirs, f"nothing installed declares {group!r}: the comparison would be empty"
    assert rows(_entrypoints.entry_points(group)) == theirs


def test_generated_public_functions_are_cached_like_bytecode(tmp_path):
    """The public functions' generated code is compiled once and then read from a cache
    beside the .pyc files (``sys.pycache_prefix`` here), unless bytecode may not be
    written; the functions from the cache behave the same."""
    import os

    head = "import sys, polyops; from polyops import ops, _public, _op\npolyops.set_backend('numpy')\n"
    some = head + ("v = float(ops.sum(ops.add(ops.ones((3,)), 1.0)))\n"
                   "print(_public._compiled, len(_public._used), v)")
    every = head + "_op.every_op()\nprint(_public._compiled, len(_public._used), len(_op.OPS))"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(code, prefix, **extra):
        out = subprocess.run([sys.executable, "-X", f"pycache_prefix={prefix}", "-c", code],
                             capture_output=True, text=True, env={**env, **extra})
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()

    # a script loads the op modules it uses (polyops.ops._lazy): the cache gets their code
    compiled, used, value = run(some, tmp_path / "a")
    assert int(compiled) == int(used) > 10 and value == "6.0"
    assert len(list((tmp_path / "a").rglob("_public_generated.*"))) == 1
    assert run(some, tmp_path / "a") == ["0", used, "6.0"]  # all from the cache
    # every op: only the code the first script did not use is compiled, and added
    compiled, total, n = run(every, tmp_path / "a")
    assert int(compiled) == int(total) - int(used) > 50 and int(n) == 345
    assert run(every, tmp_path / "a") == ["0", total, n]
    assert run(some, tmp_path / "a") == ["0", used, "6.0"]
    # no bytecode written: no cache written either
    assert run(every, tmp_path / "b", PYTHONDONTWRITEBYTECODE="1")[0] == total
    assert not list((tmp_path / "b").rglob("_public_generated.*"))
