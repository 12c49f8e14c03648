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
