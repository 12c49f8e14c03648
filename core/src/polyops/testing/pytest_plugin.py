"""The polyops conformance kit as a pytest plugin.

Installed with polyops (entry point ``pytest11``); it only adds options and does
nothing unless they are given::

    pytest --pyargs polyops.testing --polyops-backend mybackend
    pytest --pyargs polyops.testing --polyops-backend mybackend --polyops-xfail xfails.txt

An expected-failures file has one case per line, ``<case id>: <reason>``
(``#`` starts a comment); a backend's plugin object may also declare
``expected_failures = {case id: reason}``.  The summary prints pass rates per
op family.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("polyops", "polyops conformance kit")
    group.addoption("--polyops-backend", action="append", default=[], metavar="NAME",
                    help="backend(s) to run the polyops conformance kit against")
    group.addoption("--polyops-xfail", default=None, metavar="FILE",
                    help="expected failures: one '<case id>: <reason>' per line")


def read_expected_failures(path) -> dict[str, str]:
    """Parse an expected-failures file; every entry must give a reason."""
    out = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        case, sep, reason = line.partition(":")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{n}: expected '<case id>: <reason>', got {line!r}")
        out[case.strip()] = reason.strip()
    return out


def expected_failures(config, backend: str) -> dict[str, str]:
    from .._registry import get_backend

    out = dict(getattr(get_backend(backend).plugin, "expected_failures", None) or {})
    path = config.getoption("--polyops-xfail")
    if path:
        out.update(read_expected_failures(path))
    return out


@pytest.hookimpl(trylast=True)  # after a conftest.py that picks the backend (the template's)
def pytest_configure(config):
    config._polyops_results = {}
    if config.getoption("--polyops-backend"):
        from ._check import missing_requirements

        missing = missing_requirements()
        if missing:  # say so once, up front, not as a failure per case
            raise pytest.UsageError(
                f"the polyops conformance kit needs {', '.join(missing)} (its reference "
                "values); install it with: pip install 'polyops[testing]'")




def pytest_terminal_summary(terminalreporter, exitstatus, config):
    results = getattr(config, "_polyops_results", None)
    if not results:
        return
    from .._op import get_op
    from ..ops._lazy import module_of

    terminalreporter.section("polyops conformance")
    for backend, rows in sorted(results.items()):
        rates: dict[str, list[int]] = {}
        for name, outcome in rows:
            r = rates.setdefault(get_op(name).family if module_of(name) else "registry", [0, 0])
            r[0] += outcome == "passed"
            r[1] += 1
        total = sum(p for p, _ in rates.values()), sum(n for _, n in rates.values())
        terminalreporter.write_line(f"{backend}: {total[0]}/{total[1]} passed")
        for family, (p, n) in sorted(rates.items()):
            terminalreporter.write_line(f"  {family:<9} {p}/{n} ({100 * p / n:.0f}%)")
