"""Registry behaviour with real fixture distributions installed in a throwaway venv."""

from __future__ import annotations

import threading

import pytest

import polyops
from polyops import ops

from _venv import make_venv, run_json

FIXTURES = [
    "polyops-fixture-broken-import",
    "polyops-fixture-bad-api",
    "polyops-fixture-duplicate",
    "polyops-fixture-minimal",
]


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    return make_venv(tmp_path_factory.mktemp("registry") / "venv", "polyops", "polyops-numpy", *FIXTURES)


PROBE = """
import json, warnings
warnings.simplefilter("ignore")
import polyops
from polyops import ops
out = {"available": polyops.available_backends(), "problems": polyops._registry.problems()}
for name in ("numpy", "minimal", "brokenimport", "badapi"):
    try:
        with polyops.use_backend(name):
            out[name] = ["ok", polyops.backend(), ops.convert_to_numpy(ops.add(ops.ones((2,)), 1)).tolist()]
    except Exception as exc:
        out[name] = [type(exc).__name__, str(exc)]
out["default"] = polyops.backend()
out["numpy_dist"] = polyops._registry.get_backend("numpy").distribution
print(json.dumps(out))
"""


def test_discovery_and_faulty_plugins(venv):
    out = run_json(venv, PROBE)
    assert out["available"] == ["badapi", "brokenimport", "minimal", "numpy"]
    # a working third-party backend from another distribution
    assert out["minimal"] == ["ok", "minimal", [2.0, 2.0]]
    # a plugin that raises on import: skipped, reported, the rest keep working
    assert out["brokenimport"][0] == "BackendLoadError"
    assert "ImportError" in out["brokenimport"][1] and "broken on purpose" in out["brokenimport"][1]
    assert out["brokenimport"][1].startswith("use_backend: backend 'brokenimport' could not be loaded")
    # a wrong API version
    assert out["badapi"][0] == "BackendLoadError"
    assert "API version 999" in out["badapi"][1]
    # a duplicate name: the first-party distribution wins, the duplicate is reported
    assert out["numpy_dist"] == "polyops-numpy"
    assert any("registered by both polyops-numpy and polyops-fixture-duplicate" in p for p in out["problems"])
    assert out["numpy"] == ["ok", "numpy", [2.0, 2.0]]
    assert out["default"] == "numpy"


def test_cli_reports_broken_backends(venv):
    out = run_json(venv, """
        import io, json, contextlib, warnings
        warnings.simplefilter("ignore")
        from polyops._cli import main
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            main(["backends"])
        print(json.dumps({"text": buf.getvalue()}))
    """)
    lines = {line.split()[1] if line.startswith("*") else line.split()[0]: line
             for line in out["text"].splitlines() if line.strip()}
    assert "broken" in lines["brokenimport"] and "ImportError" in lines["brokenimport"]
    assert "broken" in lines["badapi"] and "API version" in lines["badapi"]
    assert "loaded" in lines["minimal"] and lines["numpy"].startswith("*")
    assert "registered by both" in out["text"]


def test_environment_controls(venv):
    code = """
        import json, warnings
        warnings.simplefilter("ignore")
        import polyops
        out = {"available": polyops.available_backends()}
        try:
            out["backend"] = polyops.backend()
        except Exception as exc:
            out["backend"] = type(exc).__name__
        print(json.dumps(out))
    """
    assert run_json(venv, code, {"POLYOPS_BACKEND": "minimal"})["backend"] == "minimal"
    allow = run_json(venv, code, {"POLYOPS_ALLOWED_BACKENDS": "minimal"})
    assert allow == {"available": ["minimal"], "backend": "minimal"}
    off = run_json(venv, code, {"POLYOPS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert off["available"] == []
    # with autoload off, a backend can still be registered by hand
    manual = run_json(venv, """
        import json
        import polyops, polyops_numpy
        polyops.register_backend(polyops_numpy.plugin)
        print(json.dumps({"available": polyops.available_backends(), "backend": polyops.backend()}))
    """, {"POLYOPS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert manual == {"available": ["numpy"], "backend": "numpy"}


def test_unknown_backend_error_lists_installed_and_extra():
    with pytest.raises(polyops.BackendNotFoundError) as info:
        polyops.set_backend("mxnet")
    message = str(info.value)
    assert "mxnet" in message and "installed backends:" in message
    for name in polyops.available_backends():
        assert name in message
    assert isinstance(info.value, ValueError)


def test_uninstalled_first_party_names_the_pip_extra(venv):
    out = run_json(venv, """
        import json, polyops
        out = {}
        for name in ("torch", "pytorch", "numpi"):
            try:
                polyops.set_backend(name)
            except ValueError as exc:
                out[name] = {"type": type(exc).__name__, "message": str(exc)}
        print(json.dumps(out))
    """)
    assert out["torch"]["type"] == "BackendNotFoundError"
    assert "pip install 'polyops[torch]'" in out["torch"]["message"]
    assert "installed backends: badapi, brokenimport, minimal, numpy" in out["torch"]["message"]
    # another name of an uninstalled first-party backend: what it means, and how to install it
    assert out["pytorch"]["message"].endswith(
        "did you mean 'torch'? install it with: pip install 'polyops[torch]' (the polyops-torch plugin)")
    # a name close to an installed one: that one, and no advice to install anything
    assert out["numpi"]["message"].endswith("; did you mean 'numpy'?")


def test_unknown_name_close_to_an_installed_one_suggests_it():
    names = polyops.available_backends()
    name = names[0]
    typo = "py" + name if name == "torch" else name + name[-1]
    with pytest.raises(polyops.BackendNotFoundError) as info:
        polyops.set_backend(typo)
    message = str(info.value)
    assert message == (f"set_backend: unknown backend {typo!r}; installed backends: "
                       f"{', '.join(names)}; did you mean {name!r}?")
    assert "pip install" not in message  # advice to install only when nothing is close


def test_use_backend_errors_name_use_backend():
    with pytest.raises(polyops.BackendNotFoundError, match=r"^use_backend: unknown backend 'mxnet'"):
        with polyops.use_backend("mxnet"):
            pass
    with pytest.raises(TypeError, match=r"^use_backend: expected a backend name \(str\), got 3"):
        with polyops.use_backend(3):
            pass


@pytest.mark.parametrize("name, names, meant", [
    ("pytorch", ["numpy", "torch"], "torch"), ("Torch", ["torch"], "torch"),
    ("tf", ["numpy", "tensorflow"], "tensorflow"), ("np", ["jax", "numpy"], "numpy"),
    ("numpi", ["jax", "numpy"], "numpy"), ("polyops-jax", ["jax"], "jax"),
    ("openvin", ["numpy", "openvino"], "openvino"),
    ("cupy", ["numpy", "torch"], None), ("mxnet", ["jax", "numpy"], None), ("torch", ["numpy"], None),
])
def test_suggest(name, names, meant):
    assert polyops._registry.suggest(name, names) == meant


def test_set_backend_swaps_without_reloading_and_old_tensors_stay_valid():
    backends = polyops.available_backends()
    before = polyops.backend()
    first = backends[0]
    try:
        polyops.set_backend(first)
        x = ops.ones((3,))
        for name in backends:
            polyops.set_backend(name)
            assert polyops.backend() == name
            # a tensor from another backend is converted, not rejected
            assert ops.convert_to_numpy(ops.add(ops.convert_to_numpy(x), 1.0)).tolist() == [2.0] * 3
    finally:
        polyops.set_backend(before)


def test_use_backend_is_isolated_across_threads():
    names = polyops.available_backends()
    barrier = threading.Barrier(len(names) * 2)
    seen: dict[str, list] = {}
    errors = []

    def worker(name, i):
        try:
            with polyops.use_backend(name):
                barrier.wait(timeout=60)
                for _ in range(20):
                    y = ops.add(ops.ones((2,)), float(i))
                    seen.setdefault(f"{name}-{i}", []).append(
                        (polyops.backend(), ops.convert_to_numpy(y).tolist(), type(y).__module__.split(".")[0])
                    )
        except Exception as exc:  # reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(n, i)) for i, n in enumerate(names * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    for key, rows in seen.items():
        name, i = key.rsplit("-", 1)
        assert {r[0] for r in rows} == {name}
        assert {tuple(r[1]) for r in rows} == {(1.0 + int(i),) * 2}


def test_set_backend_in_a_thread_does_not_leak_into_a_scoped_thread():
    names = polyops.available_backends()
    if len(names) < 2:
        pytest.fail("this test needs two installed backends")
    before = polyops.backend()
    a, b = names[0], names[1]
    ready, switched = threading.Event(), threading.Event()
    result = {}

    def scoped():
        with polyops.use_backend(a):
            ready.set()
            switched.wait(timeout=60)
            result["scoped"] = polyops.backend()

    t = threading.Thread(target=scoped)
    t.start()
    ready.wait(timeout=60)
    try:
        polyops.set_backend(b)
        switched.set()
        t.join(timeout=60)
        assert result["scoped"] == a
        assert polyops.backend() == b
    finally:
        polyops.set_backend(before)
