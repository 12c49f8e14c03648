"""A renamed copy of examples/plugin-template installs, is discovered, and the kit runs on it."""

from __future__ import annotations

import shutil
import subprocess
import sys

from _venv import ROOT, make_venv, run_json


def test_template_copy_installs_and_is_discovered(tmp_path):
    src = tmp_path / "polyops-acme"
    shutil.copytree(ROOT / "examples" / "plugin-template", src)
    (src / "src" / "polyops_mybackend").rename(src / "src" / "polyops_acme")
    for path in [src / "pyproject.toml", src / "conftest.py", *(src / "src" / "polyops_acme").glob("*.py")]:
        path.write_text(path.read_text().replace("mybackend", "acme"))
    python = make_venv(tmp_path / "venv", "polyops[testing]", "polyops-numpy")
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(wheels), str(src)], check=True, capture_output=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
    out = run_json(python, """
        import json, polyops
        b = polyops._registry.get_backend("acme")
        print(json.dumps({"available": polyops.available_backends(), "status": b.status,
                          "sources": sorted(set(b.sources.values())),
                          "missing": sorted(n for n, s in b.sources.items() if s == "missing")}))
    """)
    assert out["available"] == ["acme", "numpy"]
    assert out["status"] == "loaded"
    # an empty template has no kernels: the primitives are missing, composites have references
    assert "add" in out["missing"] and "flip" not in out["missing"]
    # the template's conftest runs the conformance kit, which reports what is missing
    proc = subprocess.run([str(python), "-m", "pytest", "-q", "-x", "-k", "test_op and add"],
                          cwd=src, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and "MissingKernelError" in proc.stdout
