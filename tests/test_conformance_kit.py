"""The shipped conformance kit (`pytest --pyargs polyops.testing`) on our own backends."""

from __future__ import annotations

import re
import subprocess
import sys


def _kit(tmp_path, *args):
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--pyargs", "polyops.testing", "-q", "-p", "no:cacheprovider",
         "-n", "0", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_the_kit_passes_on_numpy(tmp_path):
    """The kit as a third party runs it, on the numpy backend.  (Every backend's
    conformance is checked in process by test_op_table's
    test_conformance_report_of_every_backend: the kit over all five in one process
    takes longer than the rest of the suite.)"""
    names = ["numpy"]
    rc, out = _kit(tmp_path, *[f"--polyops-backend={n}" for n in names])
    assert rc == 0, out[-3000:]
    assert "polyops conformance" in out
    for name in names:
        m = re.search(rf"^{name}: (\d+)/(\d+) passed$", out, re.M)
        assert m and m.group(1) == m.group(2), out[-3000:]


def test_expected_failures_are_strict(tmp_path):
    """An expected failure that passes fails the run, so the list cannot rot."""
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("# a case that passes on numpy\nadd|add-float32: claimed broken\n")
    rc, out = _kit(tmp_path, "--polyops-backend=numpy", f"--polyops-xfail={xfails}", "-k", "test_op and add")
    assert rc != 0 and "XPASS(strict)" in out


def test_expected_failure_entries_need_a_reason(tmp_path):
    from polyops.testing.pytest_plugin import read_expected_failures

    bad = tmp_path / "bad.txt"
    bad.write_text("add|add-float32\n")
    import pytest

    with pytest.raises(ValueError, match="expected '<case id>: <reason>'"):
        read_expected_failures(bad)


def test_kit_requires_a_backend(tmp_path):
    rc, out = _kit(tmp_path)
    assert rc != 0 and "--polyops-backend" in out
