"""``pip install polyops[torch]`` from the wheelhouse installs core and the torch plugin only."""

from __future__ import annotations

import json
import subprocess

from _venv import make_venv, run_json


def test_extra_installs_core_and_one_plugin(tmp_path):
    python = make_venv(tmp_path / "venv", "polyops[torch]", offline=False)
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"],
                            capture_output=True, text=True, check=True)
    names = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert {"polyops", "polyops-torch", "torch"} <= names
    assert not names & {"polyops-numpy", "polyops-jax", "polyops-tensorflow", "polyops-openvino",
                        "jax", "tensorflow", "tensorflow-cpu", "openvino"}
    out = run_json(python, """
        import json, polyops
        from polyops import ops
        y = ops.sum(ops.ones((2, 3)), axis=1)
        print(json.dumps({"available": polyops.available_backends(), "backend": polyops.backend(),
                          "type": type(y).__module__, "value": ops.convert_to_numpy(y).tolist()}))
    """)
    assert out == {"available": ["torch"], "backend": "torch", "type": "torch", "value": [3.0, 3.0]}
