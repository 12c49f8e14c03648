"""Structural properties the design relies on: thin eager path, framework-free core, same plugin files."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np

import polyops
from polyops import ops
from polyops._op import Operation

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {"jax", "jaxlib", "tensorflow", "torch", "openvino", "keras"}


def test_eager_path_creates_no_operation_and_imports_nothing(backend, monkeypatch):
    created = []
    monkeypatch.setattr(Operation, "__init__", lambda self, *a, **k: created.append(self))
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        b = ops.convert_to_tensor(np.ones((3,), "float32"))
        calls = [lambda: ops.add(a, b), lambda: ops.add(a, 2.0), lambda: ops.sum(a, axis=1),
                 lambda: ops.matmul(a, ops.transpose(a)), lambda: ops.softmax(a), lambda: ops.flip(a, 0)]
        for call in calls:  # warm: first calls may load kernels or compile
            call()
        before = set(sys.modules)
        for call in calls:
            call()
        assert set(sys.modules) == before
    assert created == []


def _python_frames(call):
    """The names of the Python functions entered while ``call()`` runs (C calls excluded)."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names[1:]  # the lambda itself


def test_fast_path_is_one_python_frame():
    """Native tensors that already have the result dtype go from the public function
    straight to a C kernel: numpy's ufuncs are called with no entry frame between."""
    with polyops.use_backend("numpy"):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        assert _python_frames(lambda: ops.add(a, a)) == ["add"]
        assert _python_frames(lambda: ops.exp(a)) == ["exp"]
        assert _python_frames(lambda: ops.multiply(a, a)) == ["multiply"]


def test_fast_path_skips_promotion(backend):
    """Same-dtype native tensors, and a tensor with a Python scalar, never reach the
    general entry (promotion, conversion) on any backend."""
    general = {"general", "_slot_values", "promote", "result_type_of_keys"}
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        calls = [lambda: ops.add(a, a), lambda: ops.add(a, 2.0), lambda: ops.add(3, a),
                 lambda: ops.exp(a), lambda: ops.sum(a, axis=1), lambda: ops.softmax(a)]
        for call in calls:
            call()
            entered = _python_frames(call)
            assert not general & set(entered), entered


def test_core_imports_no_framework():
    for path in (ROOT / "core" / "src" / "polyops").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FRAMEWORKS, f"{path}: imports {name}"


def test_every_plugin_has_the_same_files():
    files = {}
    for plugin in sorted((ROOT / "plugins").iterdir()):
        pkg = plugin / "src" / f"polyops_{plugin.name}"
        files[plugin.name] = sorted(p.name for p in pkg.glob("*.py") if not p.name.startswith("_")
                                    or p.name == "__init__.py")
    expected = ["__init__.py", "core.py", "image.py", "linalg.py", "math.py", "nn.py", "numpy.py"]
    assert files == {name: expected for name in files}


def test_plugin_modules_are_import_light():
    """Importing a plugin's entry-point module imports no framework."""
    import subprocess

    code = ("import sys, importlib.metadata as m\n"
            "[ep.load() for ep in m.entry_points(group='polyops.backends')]\n"
            f"print(sorted(x for x in sys.modules if x.split('.')[0] in {sorted(FRAMEWORKS)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_op_has_a_docstring_with_an_example():
    from polyops._op import OPS

    missing = [n for n, op in OPS.items() if "Example" not in (op.public.__doc__ or "")]
    assert missing == [], f"ops without a docstring example: {missing}"
