"""Plugin faults and opt-in controls, with real fixture distributions in a throwaway venv.

Every fault case runs in its own subprocess of one shared venv and checks three things:
the fault is reported clearly (error type, and a message naming the backend and the
cause), the other backends keep working in the same process (numpy computes correctly
afterwards), and ``polyops backends`` reports it when it is visible at load time.
"""

from __future__ import annotations

import textwrap

import pytest

from _venv import make_venv, run_cli, run_json

FIXTURES = [
    "polyops-fixture-broken-import",   # brokenimport: the import raises
    "polyops-fixture-hook-raises",     # hookruntime, hookkernels: a hook raises
    "polyops-fixture-bad-api",         # badapi: API version 999
    "polyops-fixture-no-api",          # noapi: no polyops_api_version
    "polyops-fixture-duplicate",       # a second "numpy"
    "polyops-fixture-unknown-op",      # unknownop: a kernel for "no_such_op"
    "polyops-fixture-raising-kernel",  # raisingkernel: add raises at call time
    "polyops-fixture-wrong-results",   # wrongresults: sum's shape, add's dtype are wrong
    "polyops-fixture-marker",          # marker: its import writes a marker file
]
ALL = ["badapi", "brokenimport", "hookkernels", "hookruntime", "marker", "noapi", "numpy",
       "raisingkernel", "unknownop", "wrongresults"]
NUMPY_OK = [[21.0, 66.0], "float32", "numpy"]  # what numpy_works() gives


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    # scipy: some op records' expected values come from it (check_backend runs them)
    return make_venv(tmp_path_factory.mktemp("faults") / "venv", "polyops", "polyops-numpy", "scipy",
                     *FIXTURES)


PROBE = """
import json, sys, warnings
import polyops
from polyops import ops


def numpy_works():
    with polyops.use_backend("numpy"):
        x = ops.reshape(ops.arange(6, dtype="float32"), (2, 3))
        y = ops.sum(ops.add(ops.matmul(x, ops.transpose(x)), 1.0), axis=1)
        return [ops.convert_to_numpy(y).tolist(), ops.dtype(y), type(y).__module__]


def attempt(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = {"value": fn()}
        except Exception as exc:
            res = {"error": type(exc).__name__, "message": str(exc),
                   "cause": type(exc.__cause__).__name__ if exc.__cause__ else None,
                   "mro": [c.__name__ for c in type(exc).__mro__]}
    res["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
    return res


def plugin_modules():
    return sorted(m for m in sys.modules if m.split(".")[0].startswith(("fx_", "polyops_")))


out = {}
#BODY#
out["problems"] = polyops._registry.problems()
out["numpy_after"] = numpy_works()
out["plugin_modules"] = plugin_modules()
print(json.dumps(out))
"""


def probe(venv, body: str, env: dict | None = None) -> dict:
    """Run ``body`` inside PROBE (helpers: attempt, numpy_works, plugin_modules; fill ``out``)."""
    return run_json(venv, PROBE.replace("#BODY#", textwrap.dedent(body)), env)


def assert_load_fault(res: dict, name: str, *causes: str) -> None:
    """A backend that fails to load: BackendLoadError naming it and the cause, and a warning."""
    assert res.get("error") == "BackendLoadError", res
    message = res["message"]
    assert f"backend {name!r} could not be loaded" in message, message
    for cause in causes:
        assert cause in message, message
    assert "RuntimeError" in res["mro"]
    assert any(c == "PolyopsPluginWarning" and repr(name) in m and causes[0] in m
               for c, m in res["warnings"]), res["warnings"]


LOAD_FAULTS = {
    # backend: (the original exception type, words of its message)
    "brokenimport": ("ImportError", "broken on purpose"),
    "hookruntime": ("RuntimeError", "polyops_runtime fails on purpose"),
    "hookkernels": ("RuntimeError", "polyops_kernels fails on purpose"),
    "badapi": ("TypeError", "declares API version 999"),
    "noapi": ("TypeError", "declares no polyops_api_version"),
}


# -- 1-3: faults at load time ---------------------------------------------------------


@pytest.mark.parametrize("name", list(LOAD_FAULTS))
def test_a_backend_that_fails_to_load_is_reported_and_the_others_keep_working(venv, name):
    exc_type, words = LOAD_FAULTS[name]
    out = probe(venv, f"""
        out["first"] = attempt(lambda: polyops.set_backend({name!r}))
        out["again"] = attempt(lambda: polyops.set_backend({name!r}))
        out["status"] = polyops._registry.get_backend("numpy").status
        out["default"] = polyops.backend()
        out["still_broken"] = polyops._registry._discover()[{name!r}].status
    """)
    first = out["first"]
    assert_load_fault(first, name, exc_type, words)
    assert first["cause"] == exc_type
    # selecting it again fails the same way, without another import attempt
    assert out["again"]["error"] == "BackendLoadError"
    assert f"backend {name!r} is broken: {exc_type}" in out["again"]["message"]
    assert out["still_broken"] == "broken"
    assert any(p.startswith(f"{name}: {exc_type}") and words in p for p in out["problems"])
    # the failed selection changed nothing: numpy is still the default and computes
    assert out["default"] == "numpy"
    assert out["numpy_after"] == NUMPY_OK


# -- 4: a duplicate name ----------------------------------------------------------------


def test_a_duplicate_backend_name_is_reported_and_the_first_party_one_wins(venv):
    out = probe(venv, """
        out["discover"] = attempt(polyops.available_backends)
        out["modules_after_discovery"] = plugin_modules()
        out["dist"] = polyops._registry.get_backend("numpy").distribution
    """)
    assert out["discover"]["value"] == ALL
    expected = "backend name 'numpy' is registered by both polyops-numpy and polyops-fixture-duplicate"
    assert any(c == "PolyopsPluginWarning" and expected in m for c, m in out["discover"]["warnings"])
    assert any(expected in p for p in out["problems"])
    assert out["modules_after_discovery"] == []  # discovery reads metadata only
    assert out["dist"] == "polyops-numpy"
    assert out["numpy_after"] == NUMPY_OK
    assert "fx_duplicate" not in out["plugin_modules"]


# -- 5: a kernel for an op that does not exist -------------------------------------------


def test_a_kernel_for_an_unknown_op_is_ignored_with_a_warning(venv):
    out = probe(venv, """
        out["select"] = attempt(lambda: polyops.set_backend("unknownop"))
        b = polyops._registry.get_backend("unknownop")
        out["status"] = b.status
        out["in_sources"] = "no_such_op" in b.sources
        out["compute"] = attempt(lambda: ops.convert_to_numpy(ops.add(ops.ones((2,)), 1)).tolist())
        out["backend"] = polyops.backend()
    """)
    assert "error" not in out["select"], out["select"]
    assert [c for c, m in out["select"]["warnings"] if "no_such_op" in m] == ["PolyopsPluginWarning"]
    assert any("unknownop" in m and "unknown op 'no_such_op'" in m for _, m in out["select"]["warnings"])
    assert "unknownop: kernel for unknown op 'no_such_op' ignored" in out["problems"]
    # the backend itself loads and works
    assert out["status"] == "loaded" and out["in_sources"] is False
    assert out["compute"]["value"] == [2.0, 2.0] and out["backend"] == "unknownop"
    assert out["numpy_after"] == NUMPY_OK


# -- 6: a kernel that raises at call time ----------------------------------------------


def test_a_kernel_that_raises_gives_a_kernel_error_naming_op_and_backend(venv):
    out = probe(venv, """
        polyops.set_backend("raisingkernel")
        x = ops.ones((2,))
        out["general"] = attempt(lambda: ops.add(x, 1.0))        # converting path
        out["fast"] = attempt(lambda: ops.add(x, x))             # elementwise fast path
        out["operator"] = attempt(lambda: ops.Add()(x, x))       # the Operation class
        out["other_op"] = attempt(lambda: ops.convert_to_numpy(ops.subtract(x, x)).tolist())
        out["backend"] = polyops.backend()
    """)
    for key in ("general", "fast", "operator"):
        res = out[key]
        assert res.get("error") == "KernelError", (key, res)
        assert "RuntimeError" in res["mro"] and res["cause"] == "RuntimeError"
        message = res["message"]
        assert message.startswith("add:"), message
        assert "raisingkernel" in message, message
        assert "RuntimeError: fx_raising_kernel: add fails on purpose" in message, message
    # the backend's other ops, and the other backends, keep working
    assert out["other_op"]["value"] == [0.0, 0.0] and out["backend"] == "raisingkernel"
    assert out["numpy_after"] == NUMPY_OK


# -- 7: kernels that return the wrong shape or dtype -----------------------------------


def test_check_backend_fails_wrong_shapes_and_dtypes_and_passes_the_rest(venv):
    out = probe(venv, """
        from polyops.testing import check_backend
        report = check_backend("wrongresults")
        out["passed"], out["failed"] = report.passed, report.failed
        out["summary"] = report.summary()
        out["sources"] = polyops._registry.get_backend("wrongresults").sources
        numpy_report = check_backend("numpy")
        out["numpy_passed"], out["numpy_failed"] = numpy_report.passed, numpy_report.failed
    """)
    passed, failed, sources = out["passed"], out["failed"], out["sources"]
    assert out["numpy_failed"] == {}  # the reference: numpy passes every case
    assert set(passed) | set(failed) == set(out["numpy_passed"]) and not set(passed) & set(failed)

    def op_of(cid):
        return cid.split("|")[0]

    add_cases = [c for c in out["numpy_passed"] if op_of(c) == "add"]
    sum_cases = [c for c in out["numpy_passed"] if op_of(c) == "sum"]
    assert add_cases and sum_cases
    for cid in add_cases:  # every add case: caught on dtype
        assert cid in failed and failed[cid].startswith("AssertionError: dtype: wrongresults gave"), cid
    for cid in sum_cases:  # every sum case: caught on shape
        assert cid in failed and failed[cid].startswith("AssertionError: shape: wrongresults gave"), cid
    # everything else passes, except composites that call add or sum through core's reference,
    # and native kernels that hand some inputs to it (polyops.plugin.reference): numpy's gelu
    # has no erf for approximate=False; its linalg kernels pass singular or zero-size input
    hands_over = {"gelu", "norm", "cholesky", "solve", "inv", "matrix_power"}
    for cid in failed:
        assert (op_of(cid) in ("add", "sum") or sources[op_of(cid)] == "reference"
                or op_of(cid) in hands_over), (cid, failed[cid])
    native_others = {op for op, src in sources.items() if src == "native"} - {"add", "sum"} - hands_over
    assert native_others and all(op_of(c) not in native_others for c in failed)
    assert len(passed) > len(failed)
    assert f"{len(passed)} passed, {len(failed)} failed" in out["summary"]
    assert "FAIL add " in out["summary"] and "FAIL sum " in out["summary"]
    assert out["numpy_after"] == NUMPY_OK


# -- the command line ---------------------------------------------------------------------


def test_polyops_backends_reports_every_load_time_fault(venv):
    cli = run_cli(venv, "backends")
    rows, text = cli["rows"], cli["text"]
    assert cli["rc"] == 0
    assert set(ALL) <= set(rows)
    for name, (exc_type, words) in LOAD_FAULTS.items():
        assert f"broken: {exc_type}" in rows[name] and words in rows[name], rows[name]
    assert "  warning: backend name 'numpy' is registered by both polyops-numpy and polyops-fixture-duplicate" in text
    assert "  warning: unknownop: kernel for unknown op 'no_such_op' ignored" in text
    for name in ("numpy", "unknownop", "raisingkernel", "wrongresults", "marker"):
        assert rows[name].rstrip().endswith("loaded"), rows[name]
    assert rows["numpy"].startswith("* ") and "polyops-numpy" in rows["numpy"]
    # after the CLI loaded (and failed to load) everything, numpy still computes
    out = probe(venv, """
        import contextlib, io
        from polyops._cli import main
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            main(["backends"])
        out["statuses"] = {r["name"]: r["status"] for r in polyops._registry.backends_report(load=False)}
    """)
    assert out["statuses"] == {n: "broken" if n in LOAD_FAULTS else "loaded" for n in ALL}
    assert out["numpy_after"] == NUMPY_OK


# -- 8: opt-in controls ------------------------------------------------------------------


def test_disable_plugin_autoload_loads_no_plugin(venv, tmp_path):
    marker = tmp_path / "marker.txt"
    env = {"POLYOPS_DISABLE_PLUGIN_AUTOLOAD": "1", "POLYOPS_FIXTURE_MARKER": str(marker)}
    out = run_json(venv, PROBE.replace("#BODY#", textwrap.dedent("""
        out["available"] = polyops.available_backends()
        out["symbolic"] = str(ops.sum(polyops.SymbolicTensor((None, 3)), axis=1))
        out["select"] = {n: attempt(lambda n=n: polyops.set_backend(n))
                         for n in ("numpy", "marker", "brokenimport")}
        out["problems_now"] = polyops._registry.problems()
        out["modules"] = plugin_modules()
        # registering by hand still works with autoload off
        import polyops_numpy
        polyops.register_backend(polyops_numpy.plugin)
        out["manual"] = [polyops.available_backends(), polyops.backend()]
    """)), env)
    assert out["available"] == []
    assert out["symbolic"] == "<SymbolicTensor shape=(None,), dtype=float32>"
    for name, res in out["select"].items():
        assert res.get("error") == "BackendNotFoundError", (name, res)
        assert f"unknown backend {name!r}; installed backends: none" in res["message"]
    assert out["problems_now"] == []  # not even the duplicate was seen: no entry point read
    assert out["modules"] == []       # no plugin package imported
    assert not marker.exists()
    assert out["manual"] == [["numpy"], "numpy"]
    assert out["numpy_after"] == NUMPY_OK
    cli = run_cli(venv, "backends", env=env)
    assert cli["rc"] == 0 and not set(ALL) & set(cli["rows"]) and "warning" not in cli["text"]
    assert not marker.exists()


def test_allowed_backends_restricts_which_may_load(venv, tmp_path):
    marker = tmp_path / "marker.txt"
    env = {"POLYOPS_ALLOWED_BACKENDS": "numpy, marker", "POLYOPS_FIXTURE_MARKER": str(marker)}
    out = probe(venv, """
        out["available"] = polyops.available_backends()
        out["select"] = {n: attempt(lambda n=n: polyops.set_backend(n))
                         for n in ("raisingkernel", "brokenimport", "unknownop", "marker")}
        out["backend"] = polyops.backend()
    """, env)
    assert out["available"] == ["marker", "numpy"]
    for name in ("raisingkernel", "brokenimport", "unknownop"):
        res = out["select"][name]
        assert res.get("error") == "BackendNotFoundError", (name, res)
        assert "ValueError" in res["mro"]
        assert f"unknown backend {name!r}" in res["message"]
        assert "it is not in POLYOPS_ALLOWED_BACKENDS='numpy, marker'" in res["message"]
    assert "value" in out["select"]["marker"] and out["backend"] == "marker"
    assert marker.exists()  # the allowed one was imported when selected...
    # ...and no disallowed plugin was imported at all
    assert [m for m in out["plugin_modules"] if m.startswith("fx_")] == ["fx_marker"]
    assert not any("brokenimport" in p or "unknownop" in p for p in out["problems"])
    assert out["numpy_after"] == NUMPY_OK
    cli = run_cli(venv, "backends", env=env)
    assert {n for n in ALL if n in cli["rows"]} == {"marker", "numpy"}
    assert "broken" not in cli["text"] and "no_such_op" not in cli["text"]


def test_an_installed_but_unselected_plugin_is_never_imported(venv, tmp_path):
    marker = tmp_path / "marker.txt"
    out = probe(venv, """
        import os
        exists = lambda: os.path.exists(os.environ["POLYOPS_FIXTURE_MARKER"])
        out["after_import"] = [exists(), plugin_modules()]
        out["available"] = polyops.available_backends()
        out["after_available"] = [exists(), plugin_modules()]
        out["numpy_ops"] = numpy_works()
        out["backend"] = polyops.backend()
        out["after_ops"] = [exists(), plugin_modules()]
        with polyops.use_backend("numpy"):
            out["symbolic"] = str(ops.sum(polyops.SymbolicTensor((None, 3)), axis=1))
        out["after_backend"] = [exists(), plugin_modules()]
        polyops.set_backend("marker")
        out["after_select"] = [exists(), plugin_modules(), polyops.backend()]
        out["marker_ops"] = ops.convert_to_numpy(ops.add(ops.ones((2,)), 1)).tolist()
    """, {"POLYOPS_FIXTURE_MARKER": str(marker)})
    assert out["after_import"] == [False, []]
    assert "marker" in out["available"]
    assert out["after_available"] == [False, []]
    assert out["numpy_ops"] == NUMPY_OK and out["backend"] == "numpy"
    for key in ("after_ops", "after_backend"):
        exists, modules = out[key]
        assert not exists, key
        # only the selected backend's package: no fixture plugin, no other framework plugin
        assert {m.split(".")[0] for m in modules} == {"polyops_numpy"}, (key, modules)
    exists, modules, backend = out["after_select"]
    assert exists and "fx_marker" in modules and backend == "marker"
    assert not [m for m in modules if m.startswith("fx_") and m != "fx_marker"]
    assert marker.read_text() == "fx_marker imported\n"  # imported exactly once
    assert out["marker_ops"] == [2.0, 2.0]
    assert out["numpy_after"] == NUMPY_OK
