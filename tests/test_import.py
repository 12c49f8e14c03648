"""``import polyops`` imports no framework, even with all five plugins installed."""

from __future__ import annotations

import json
import subprocess
import sys

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
