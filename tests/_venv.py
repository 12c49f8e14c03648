"""Throwaway virtual environments with real, separately installed distributions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = ROOT / "wheelhouse"
CONSTRAINTS = ROOT / "ci" / "constraints.txt"


def _stale() -> bool:
    wheels = list(WHEELHOUSE.glob("polyops_fixture_minimal-*.whl"))
    if not wheels:
        return True
    built = min(w.stat().st_mtime for w in WHEELHOUSE.glob("polyops*.whl"))
    sources = [p for d in ("core", "plugins", "tests/fixtures", "examples") for p in (ROOT / d).rglob("*")
               if p.suffix in (".py", ".toml") and ".egg-info" not in str(p)]
    return any(p.stat().st_mtime > built for p in sources)


def ensure_wheelhouse() -> Path:
    """The wheelhouse of our distributions, (re)built with scripts/wheelhouse.sh when stale."""
    import fcntl

    with open(ROOT / ".wheelhouse.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers build it once
        if _stale():
            subprocess.run(
                ["bash", str(ROOT / "scripts" / "wheelhouse.sh")],
                check=True, capture_output=True, env={**os.environ, "PYTHON": sys.executable},
            )
    return WHEELHOUSE


def make_venv(path: Path, *requirements: str, offline: bool = True) -> Path:
    """Create a venv at ``path`` and pip-install ``requirements`` from the wheelhouse."""
    ensure_wheelhouse()
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, capture_output=True)
    python = path / "bin" / "python"
    cmd = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--find-links", str(WHEELHOUSE), "-c", str(CONSTRAINTS)]
    if offline:
        cmd.append("--no-index")
    subprocess.run(cmd + list(requirements), check=True, capture_output=True, text=True)
    return python


def run_json(python: Path, code: str, env: dict | None = None) -> dict:
    """Run ``code`` in ``python``; it must print one JSON object as its last line."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("POLYOPS_")}
    full_env.update(env or {})
    proc = subprocess.run(
        [str(python), "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=full_env, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_cli(python: Path, *args: str, env: dict | None = None) -> dict:
    """Run ``polyops <args>`` (``polyops._cli.main``) in ``python``.

    Returns ``{"rc", "text", "rows"}``: ``rows`` maps the first word of each output
    line (after the current-backend star) to that line, so a backend's row is
    ``rows[name]`` and a warning line is ``rows["warning:"]``-style text in ``text``.
    """
    return run_json(python, f"""
        import contextlib, io, json, warnings
        warnings.simplefilter("ignore")
        from polyops._cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main({list(args)!r})
        text = buf.getvalue()
        rows = {{line[2:].split()[0]: line for line in text.splitlines() if line[2:].strip()}}
        print(json.dumps({{"rc": rc, "text": text, "rows": rows}}))
    """, env)


def copy_checkout(dest: Path) -> Path:
    """The checkout's sources, what pip and scripts/wheelhouse.sh read, copied to ``dest``.

    Commands that build from source (in-tree ``build/`` folders) or rebuild the wheelhouse
    run there, not in the checkout other tests use at the same time.
    """
    ignore = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".venv*", "wheelhouse")
    for name in ("core", "plugins", "examples", "tests/fixtures", "scripts", "ci"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    shutil.copy2(ROOT / "README.md", dest / "README.md")
    return dest


def shell_env(venv: Path | None = None, offline: bool = False) -> dict:
    """The environment of a user's shell, for running commands as they are typed.

    ``venv`` is activated (its ``bin`` first on PATH); no POLYOPS_* settings and no
    environment of the test run's own. ``offline``: pip reads the wheelhouse only, for
    builds (setuptools) and dependencies alike.
    """
    own = {"VIRTUAL_ENV", "PYTHON", "PYTHONPATH", "PYTHONHOME"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLYOPS_") and k not in own}
    active = os.environ.get("VIRTUAL_ENV")  # the test run's own venv, if activated
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not active or Path(p) != Path(active) / "bin")
    if offline:
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(ensure_wheelhouse()))
    if venv is not None:
        env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    return env
