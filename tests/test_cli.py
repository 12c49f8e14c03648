"""The ``polyops`` command line."""

from __future__ import annotations

import polyops
from polyops._cli import main
from polyops._op import OPS


def test_backends_lists_every_installed_backend(capsys):
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    for name in polyops.available_backends():
        assert name in out
    assert "loaded" in out and "* = current backend" in out


def test_coverage_has_no_missing_op(capsys):
    assert main(["coverage", "--strict"]) == 0
    out = capsys.readouterr().out
    for name in OPS:
        assert f"\n{name} " in out
    for name in polyops.available_backends():
        assert f"{name}" in out and "0 missing" in out


def test_check_runs_the_conformance_table(capsys):
    assert main(["check", "numpy"]) == 0
    out = capsys.readouterr().out
    assert "conformance of backend 'numpy'" in out and "0 failed" in out


def test_demo_runs_the_same_code_everywhere(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    for name in polyops.available_backends():
        if name != polyops.backend():
            assert f"use_backend({name!r})" in out
    assert out.count("[10., 10.]") == len(polyops.available_backends())


def test_coverage_as_markdown_and_png(capsys, tmp_path):
    png = tmp_path / "coverage.png"
    assert main(["coverage", "--format", "markdown", "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| op | family |") and "| **total** |" in out
    assert out.count("\n| ") == len(OPS) + 1  # one row per op, then the totals
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ----- names that are not backends, and what the kit needs -------------------------------

import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402


def _typo() -> tuple[str, str]:
    """A misspelling of an installed backend's name, and that name."""
    names = polyops.available_backends()
    if not names:
        pytest.fail("this test needs an installed backend")
    if "torch" in names:
        return "pytorch", "torch"
    return names[0] + names[0][-1], names[0]


@pytest.mark.parametrize("argv", [["check", "{typo}"], ["coverage", "--backend", "{typo}", "--strict"],
                                  ["demo", "--backend", "{typo}"]])
def test_unknown_backend_name_is_one_line_and_exit_2(argv, capsys):
    typo, meant = _typo()
    assert main([a.format(typo=typo) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"polyops {argv[0]}: unknown backend {typo!r}")
    assert f"did you mean {meant!r}?" in lines[0]
    assert "installed backends: " + ", ".join(polyops.available_backends()) in lines[0]


def test_unknown_backend_name_from_the_console_has_no_traceback():
    typo, meant = _typo()
    for argv in (["check", typo], ["coverage", "--backend", typo, "--strict"]):
        proc = subprocess.run([sys.executable, "-m", "polyops", *argv], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 2, proc
        assert "Traceback" not in proc.stderr and proc.stdout == ""
        assert proc.stderr.count("\n") == 1 and f"did you mean {meant!r}?" in proc.stderr


def test_check_says_up_front_what_the_kit_needs():
    """Without SciPy (which computes the kit's expected values) `polyops check` prints one
    line naming it and the extra to install, and runs no case; `check_backend` raises."""
    name = polyops.available_backends()[0]
    code = ("import sys; sys.modules['scipy'] = None\n"  # as if it were not installed
            "from polyops._cli import main\n"
            "from polyops.testing import check_backend\n"
            "try:\n    check_backend(%r)\nexcept ImportError as exc:\n    print(exc)\n"
            "sys.exit(main(['check', %r]))\n" % (name, name))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc
    need = "the conformance kit needs scipy (its reference values); install it with: " \
           "pip install 'polyops[testing]'"
    assert proc.stdout == f"check_backend: {need}\n"
    assert proc.stderr == f"polyops check: {need}\n"
    # the kit's pytest form stops before collecting anything, with the same line
    code = ("import sys; sys.modules['scipy'] = None\n"
            "import pytest\n"
            "sys.exit(pytest.main(['--pyargs', 'polyops.testing', '--polyops-backend', %r, "
            "'-q', '-p', 'no:cacheprovider']))\n" % name)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc
    assert proc.stderr.startswith(f"ERROR: the polyops {need.removeprefix('the ')}")
    assert "passed" not in proc.stdout


def test_check_prints_no_warnings():
    """The cases reach overflow and NaN on purpose: NumPy's RuntimeWarnings about them are
    not printed (they were, about sixty lines of them)."""
    proc = subprocess.run([sys.executable, "-m", "polyops", "check", "numpy"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "0 failed" in proc.stdout, proc
    assert proc.stderr == ""
