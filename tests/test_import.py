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
