"""The Array API standard's own conformance suite (array-api-tests) on every backend.

``polyops.array_api.namespace(<backend>)`` is tested by the vendored, unmodified suite
(``../shared/array-api-tests``, or ``$ARRAY_API_TESTS_DIR``), copied to a temporary
folder (it writes caches) and run in a subprocess per backend with a small, derandomized
``--max-examples``: every run draws the same inputs, so the expected failures are exact.

Expected failures: ``tests/array_api_xfails/<backend>.txt``, one test id a line followed
by ``# reason``.  The test fails on any other failure, and on an expected failure that
passes (the list is stale: delete the line), unless its reason starts with ``[flaky]``:
a few of the suite's tests draw differently from run to run even derandomized, and pass
or fail with the draw (``tanh(+inf + yj)``: the sign of the zero imaginary part follows
``sin(2y)`` in C99, where the standard says ``+0``).  The figures per module are printed (``-s``)
and written to ``$ARRAY_API_TESTS_REPORT_DIR/<backend>.json`` when that is set.

OpenVINO computes float64, int64 and uint64 in 32 bits and has no complex dtypes (its
namespace conforms to 2021.12): its run skips float64, int64 and uint64
(``ARRAY_API_TESTS_SKIP_DTYPES``); the suite needs complex dtype objects to exist, which
the namespace names but cannot create (docs/array_api.md).
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
XFAILS = ROOT / "tests" / "array_api_xfails"
MAX_EXAMPLES = 5
SKIP_DTYPES = {"openvino": "float64,int64,uint64"}
TIMEOUT = 900  # seconds for one backend's run


def _origin() -> Path | None:
    """The checkout this one was cloned from, when it is a local folder (a CI clone of the
    work tree), whose ../shared holds the suite too."""
    try:
        url = subprocess.run(["git", "-C", str(ROOT), "config", "remote.origin.url"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    path = Path(url.removeprefix("file://"))
    return path if url and path.is_absolute() and path.is_dir() else None


def suite_dir() -> Path:
    """The vendored array-api-tests: $ARRAY_API_TESTS_DIR, else <repo>/../shared/array-api-tests
    (for a clone of a local checkout, also that checkout's ../shared)."""
    env = os.environ.get("ARRAY_API_TESTS_DIR")
    if env:
        path = Path(env)
    else:
        roots = [ROOT] + ([_origin()] if _origin() is not None else [])
        found = [r.parent / "shared" / "array-api-tests" for r in roots]
        path = next((f for f in found if (f / "array_api_tests").is_dir()), found[0])
    if not (path / "array_api_tests" / "__init__.py").is_file():
        pytest.fail(
            f"array-api-tests not found at {path}: set ARRAY_API_TESTS_DIR to a checkout of "
            "data-apis/array-api-tests with its array-api submodule (see "
            "../shared/array-api-tests/PROVENANCE.md)", pytrace=False)
    return path


def read_xfails(backend: str) -> dict[str, str]:
    """``{test id: reason}`` from tests/array_api_xfails/<backend>.txt (every line needs a
    reason)."""
    path = XFAILS / f"{backend}.txt"
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test_id, sep, reason = line.partition(" # ")
        if not sep or not reason.strip():
            raise ValueError(f"{path.name}:{n}: expected '<test id>  # <reason>', got {line!r}")
        out[test_id.strip()] = reason.strip()
    return out


def run_suite(backend: str, workdir: Path, max_examples: int = MAX_EXAMPLES,
              only: list[str] | None = None) -> dict:
    """Run array-api-tests (``only`` these test ids, if given) on ``backend``'s namespace in a
    subprocess; the JSON report."""
    suite = workdir / "array-api-tests"
    shutil.copytree(suite_dir(), suite, ignore=shutil.ignore_patterns(".git", ".hypothesis",
                                                                       "__pycache__"))
    xfails = read_xfails(backend)
    ids = workdir / "xfails.txt"
    ids.write_text("".join(f"{t}\n" for t in xfails))
    report = workdir / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARRAY_API_TESTS_")}
    env.update(
        ARRAY_API_TESTS_MODULE=(
            f"exec('import polyops.array_api as a; xp = a.namespace(\"{backend}\")')"),
        TF_CPP_MIN_LOG_LEVEL="3",
        PYTHONWARNINGS="ignore",
        PYTHONHASHSEED="0",  # (set and dict orders feed some strategies: the same draws each run)
    )
    if backend in SKIP_DTYPES:
        env["ARRAY_API_TESTS_SKIP_DTYPES"] = SKIP_DTYPES[backend]
    cmd = [sys.executable, "-m", "pytest", *(only or ["array_api_tests"]), "-q", "-p", "no:cacheprovider",
           "-p", "no:xdist", "--max-examples", str(max_examples), "--disable-deadline",
           "--derandomize", "--xfails-file", str(ids), "--json-report",
           f"--json-report-file={report}", "--json-report-omit", "collectors", "log",
           "-W", "ignore"]
    proc = subprocess.run(cmd, cwd=suite, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT)
    if not report.exists():
        pytest.fail(f"array-api-tests did not run on {backend} (exit {proc.returncode}):\n"
                    f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}", pytrace=False)
    data = json.loads(report.read_text())
    data["xfail_reasons"] = xfails
    return data


def summarize(data: dict) -> dict:
    """Outcome counts per test module, and the failing / XPASS ids."""
    per_module: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failed, xpassed, xfailed = [], [], []
    for t in data["tests"]:
        outcome = t["outcome"]
        module = t["nodeid"].split("::")[0].rsplit("/", 1)[-1]
        per_module[module][outcome] += 1
        if outcome in ("failed", "error"):
            failed.append(t)
        elif outcome == "xpassed":
            xpassed.append(t["nodeid"])
        elif outcome == "xfailed":
            xfailed.append(t["nodeid"])
    return {"per_module": {m: dict(c) for m, c in sorted(per_module.items())},
            "failed": failed, "xpassed": xpassed, "xfailed": xfailed,
            "duration": data.get("duration")}


def _message(t: dict) -> str:
    call = t.get("call") or t.get("setup") or {}
    crash = call.get("crash") or {}
    return f"{t['nodeid']}\n    {crash.get('message', '')[:300]}"


def test_array_api_conformance(backend, tmp_path):
    """array-api-tests passes on ``backend`` but for the listed expected failures."""
    data = run_suite(backend, tmp_path)
    s = summarize(data)
    totals = collections.Counter()
    lines = [f"array-api-tests on polyops.array_api.namespace({backend!r}): "
             f"{s['duration']:.0f} s, --max-examples {MAX_EXAMPLES}"]
    for module, counts in s["per_module"].items():
        totals.update(counts)
        lines.append(f"  {module:48} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    lines.append("  total: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    print("\n".join(lines))
    out_dir = os.environ.get("ARRAY_API_TESTS_REPORT_DIR")
    if out_dir:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        Path(out_dir, f"{backend}.json").write_text(json.dumps(
            {"per_module": s["per_module"], "totals": dict(totals), "duration": s["duration"],
             "failed": [t["nodeid"] for t in s["failed"]], "xpassed": s["xpassed"],
             "xfailed": s["xfailed"]}, indent=1))
    problems = []
    failed = s["failed"]
    if failed:
        # A few of the suite's tests draw their inputs outside hypothesis' derandomized
        # strategies (``example()``): a failure is run once more, and only one that fails
        # again counts; one that passes then is printed as flaky (to be listed with a reason).
        again = summarize(run_suite(backend, tmp_path / "again",
                                    only=[t["nodeid"] for t in failed]))
        still = {t["nodeid"] for t in again["failed"]}
        print("flaky (failed once, passed when run again): " +
              ", ".join(t["nodeid"] for t in failed if t["nodeid"] not in still))
        failed = [t for t in failed if t["nodeid"] in still]
    if failed:
        problems.append(f"{len(failed)} unexpected failures:\n" +
                        "\n".join(_message(t) for t in failed))
    reasons = data["xfail_reasons"]
    stale = [t for t in s["xpassed"] if not reasons.get(t, "").startswith("[flaky]")]
    if stale:
        problems.append(f"{len(stale)} expected failures passed (delete them from "
                        f"tests/array_api_xfails/{backend}.txt):\n" + "\n".join(stale))
    assert not problems, "\n".join(lines + problems)


# The target is at most 30 expected failures per backend.  jax is over it: its 35 (3 of
# them [flaky]) are XLA's complex special values (C99 Annex G) at infinities and NaNs,
# which polyops' jax kernels pass through (docs/array_api.md); the cap keeps the list from
# growing.
CAPS = {"jax": 35}


def test_xfail_files_are_well_formed():
    """Each expected-failure file parses (an id and a reason a line), has no duplicated id
    and stays within the target of 30 expected failures (`CAPS` for the documented
    exceptions)."""
    for path in sorted(XFAILS.glob("*.txt")):
        entries = read_xfails(path.stem)
        lines = [ln.split(" # ")[0].strip() for ln in path.read_text().splitlines()
                 if ln.strip() and not ln.startswith("#")]
        assert len(lines) == len(set(lines)), f"{path.name}: duplicated test ids"
        cap = CAPS.get(path.stem, 30)
        assert len(entries) <= cap, f"{path.name}: {len(entries)} expected failures (cap {cap})"
