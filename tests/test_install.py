"""The install commands README.md shows, each run as typed in a throwaway environment.

Every line of the README's ```bash blocks, to the end of its "## Install", is one
command; each is claimed by one test here (``test_every_readme_command_is_exercised``),
which runs the README's own text. Source builds run in a copy of the checkout; offline
where the wheelhouse has all a command needs (numpy's), online where frameworks come in
(torch: pip's cache and ``-c ci/constraints.txt``'s pin). About 2 minutes on CI's 2
cores: three installs (numpy; torch twice), one wheelhouse build, one dry run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile

from _venv import ROOT, copy_checkout, ensure_wheelhouse, run_json, shell_env

README = (ROOT / "README.md").read_text(encoding="utf-8")
CONSTRAINTS = (ROOT / "ci" / "constraints.txt").read_text(encoding="utf-8")
PLUGINS = {"polyops-numpy", "polyops-jax", "polyops-tensorflow", "polyops-torch", "polyops-openvino"}
FRAMEWORKS = {"jax", "tensorflow", "tensorflow-cpu", "torch", "openvino"}

# how each README command is exercised, by a pattern on its text
KINDS = {
    "first": r"^python3\.11 -m venv \.venv && \.venv/bin/pip install \./core \./plugins/numpy && ",
    "test.sh": r"^bash scripts/test\.sh$",
    "checkout": r"^pip install \./core \./plugins/\w+ ",
    "wheelhouse.sh": r"^bash scripts/wheelhouse\.sh$",
    "extra": r"^pip install --find-links wheelhouse .*'polyops\[torch\]'$",
    "all": r"^pip install --find-links wheelhouse .*'polyops\[all\]'$",
}


def readme_commands() -> list[str]:
    """The lines of README.md's ```bash blocks up to the end of "## Install", comments cut."""
    start = README.index("\n## Install\n")
    text = README[:README.index("\n## ", start + 1)]
    lines = (re.sub(r"(^|\s+)#.*$", "", line).strip()
             for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines())
    return [line for line in lines if line]


def command(kind: str) -> str:
    found = [c for c in readme_commands() if re.search(KINDS[kind], c)]
    assert len(found) == 1, f"README: {len(found)} commands match {KINDS[kind]!r}: {found}"
    return found[0]


def run(cmd: str, cwd, env) -> subprocess.CompletedProcess:
    proc = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"{cmd!r} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


def new_venv(path):
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    return path


def installed(venv) -> dict[str, str]:
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                            capture_output=True, text=True, check=True)
    return {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed.stdout)}


def pinned(name: str) -> str:
    (pin,) = re.findall(rf"^{name}==(\S+)$", CONSTRAINTS, re.M)
    return pin


def test_every_readme_command_is_exercised():
    commands = readme_commands()
    assert len(commands) >= len(KINDS)
    for cmd in commands:
        kinds = [k for k, pattern in KINDS.items() if re.search(pattern, cmd)]
        assert len(kinds) == 1, f"README command {cmd!r}: no test here runs it (or two claim it)"
    for kind in KINDS:
        command(kind)


def test_first_command_as_typed(tmp_path):
    """The README's opening line, in a copy of the checkout, offline from the wheelhouse."""
    repo = copy_checkout(tmp_path / "repo")
    out = run(command("first"), repo, shell_env(offline=True)).stdout
    assert re.search(r"^\* numpy +polyops-numpy ", out, re.M), out
    assert "[10., 10.]" in out and "<SymbolicTensor shape=(None,), dtype=float32>" in out


def test_test_sh_is_what_ci_runs():
    # `bash scripts/test.sh` runs the whole suite from nothing: CI's own entry point runs it
    assert command("test.sh") in (ROOT / ".ci" / "run").read_text()


def test_wheelhouse_script_in_a_fresh_venv(tmp_path):
    """With the venv's bundled setuptools (65.5 on 3.11; the pyprojects need >=77)."""
    ensure_wheelhouse()
    repo = copy_checkout(tmp_path / "repo")
    venv = new_venv(tmp_path / "venv")
    bundled = installed(venv).get("setuptools")
    assert bundled is None or int(bundled.split(".")[0]) < 77, "not the old-setuptools case"
    run(command("wheelhouse.sh"), repo, shell_env(venv, offline=True))
    built = sorted(p.name for p in (repo / "wheelhouse").glob("polyops*.whl"))
    assert built == sorted(p.name for p in (ROOT / "wheelhouse").glob("polyops*.whl"))
    assert {"polyops", *PLUGINS} <= {n.split("-")[0].replace("_", "-") for n in built}, built
    assert installed(venv).get("setuptools") == bundled  # nothing installed into the user's venv
    (core,) = (repo / "wheelhouse").glob("polyops-*.whl")
    with zipfile.ZipFile(core) as whl:
        (meta,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        assert "License-Expression: Apache-2.0" in whl.read(meta).decode()


def test_checkout_command_installs_core_and_one_backend(tmp_path):
    """``pip install ./core ./plugins/<name> -c ci/constraints.txt`` in a fresh venv."""
    cmd = command("checkout")
    (name,) = re.findall(r"\./plugins/(\w+)", cmd)
    repo = copy_checkout(tmp_path / "repo")
    venv = new_venv(tmp_path / "venv")
    run(cmd, repo, shell_env(venv))
    names = installed(venv)
    assert {"polyops", f"polyops-{name}"} <= names.keys()
    assert not names.keys() & (PLUGINS - {f"polyops-{name}"})
    if name == "torch":
        assert names["torch"].split("+")[0] == pinned("torch")
        assert not [n for n in names if n.startswith("nvidia-")], "a CUDA build of torch came in"
    out = run_json(venv / "bin" / "python", """
        import json, polyops
        print(json.dumps({"available": polyops.available_backends(), "backend": polyops.backend()}))
    """)
    assert out == {"available": [name], "backend": name}


def test_readme_names_the_torch_pin_of_the_constraints():
    assert f"`torch=={pinned('torch')}`" in README and f"{pinned('torch')}+cpu" in README


def test_constraints_comment_names_scripts_that_exist():
    scripts = re.findall(r"\b(scripts/[\w.-]+|benchmarks/[\w.-]+)", CONSTRAINTS)
    assert scripts and all((ROOT / s).is_file() for s in scripts), scripts


def test_extra_installs_core_and_one_plugin(tmp_path):
    """``pip install --find-links wheelhouse ... 'polyops[torch]'``: core and the torch plugin only."""
    ensure_wheelhouse()
    venv = new_venv(tmp_path / "venv")
    run(command("extra"), ROOT, shell_env(venv))
    names = installed(venv)
    assert {"polyops", "polyops-torch", "torch"} <= names.keys()
    assert not names.keys() & (PLUGINS | FRAMEWORKS) - {"polyops-torch", "torch"}
    out = run_json(venv / "bin" / "python", """
        import json, polyops
        from polyops import ops
        y = ops.sum(ops.ones((2, 3)), axis=1)
        print(json.dumps({"available": polyops.available_backends(), "backend": polyops.backend(),
                          "type": type(y).__module__, "value": ops.convert_to_numpy(y).tolist()}))
    """)
    assert out == {"available": ["torch"], "backend": "torch", "type": "torch", "value": [3.0, 3.0]}


def test_all_extra_resolves_to_the_pinned_frameworks(tmp_path):
    """``'polyops[all]'`` resolved (pip --dry-run): scripts/test.sh installs it for real."""
    ensure_wheelhouse()
    venv = new_venv(tmp_path / "venv")
    report = tmp_path / "report.json"
    run(f"{command('all')} --dry-run --quiet --report {report}", ROOT, shell_env(venv))
    names = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
             for i in json.loads(report.read_text())["install"]}
    assert PLUGINS | {"polyops", "jax", "tensorflow-cpu", "torch", "openvino"} <= names.keys()
    for framework in ("jax", "torch"):
        assert names[framework].split("+")[0] == pinned(framework)
