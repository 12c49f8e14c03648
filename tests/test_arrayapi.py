"""The polyops-arrayapi example plugin, installed for real in one throwaway venv.

examples/polyops-arrayapi is a separate distribution registering two backends on
Array API standard namespaces: ``array_api_strict`` and ``dask``
(``array_api_compat.dask.array``).  The venv gets polyops, polyops-numpy and
polyops-arrayapi from the wheelhouse (as explicit wheel files, so that no index
can substitute a distribution of the same name) and array-api-strict,
array-api-compat and dask[array,distributed] from the package index; everything
runs in subprocesses of that venv.
"""

from __future__ import annotations


import pytest

from _venv import ROOT, WHEELHOUSE, ensure_wheelhouse, make_venv, run_cli, run_json

EXAMPLE = ROOT / "examples" / "polyops-arrayapi"
BACKENDS = ("array_api_strict", "dask")


def _wheel(dist: str) -> str:
    (path,) = WHEELHOUSE.glob(f"{dist.replace('-', '_')}-*.whl")
    return str(path)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    ensure_wheelhouse()
    ours = [_wheel(d) for d in ("polyops", "polyops-numpy", "polyops-arrayapi")]
    return make_venv(
        tmp_path_factory.mktemp("arrayapi") / "venv", *ours,
        "array-api-strict", "array-api-compat", "dask[array,distributed]", "scipy", offline=False,
    )


def test_conformance(venv):
    """check_backend passes on both backends, with the short expected-failure lists."""
    out = run_json(venv, """
        import json, time, warnings
        import polyops_arrayapi
        from polyops.testing import check_backend

        out = {}
        for name in ("array_api_strict", "dask"):
            expected = polyops_arrayapi.EXPECTED_FAILURES[name]
            start = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                report = check_backend(name, expected)
            out[name] = {
                "ok": report.ok, "summary": report.summary(), "passed": len(report.passed),
                "failed": len(report.failed), "xfailed": report.xfailed,
                "unsupported": len(report.unsupported), "expected": expected,
                "seconds": round(time.perf_counter() - start, 1),
                "warnings": sorted({f"{w.category.__name__}: {w.message}"[:200] for w in caught}),
            }
        print(json.dumps(out))
    """)
    for name in BACKENDS:
        r = out[name]
        run = r["passed"] + r["failed"]
        print(f"{name}: {r['passed']}/{run} passed ({100 * r['passed'] / run:.1f}%), "
              f"{len(r['xfailed'])} expected failures, {r['unsupported']} unsupported-dtype "
              f"cases, {r['seconds']}s")
        assert r["ok"], r["summary"]
        assert r["passed"] > 250, r["summary"]
        assert set(r["xfailed"]) == set(r["expected"]), r["summary"]
        assert len(r["expected"]) <= 8 and all(r["expected"].values())  # short, with reasons
        # NumPy's IEEE notes (divide by zero in log at 0, ...) are the math itself
        assert [w for w in r["warnings"] if " encountered" not in w] == [], r["warnings"]


def test_coverage_primitives_native_composites_reference(venv):
    cli = run_cli(venv, "coverage", "--backend", "array_api_strict")
    assert cli["rc"] == 0, cli["text"]
    summary = [line for line in cli["text"].splitlines() if line.startswith("array_api_strict ")]
    out = run_json(venv, """
        import json
        from polyops._op import every_op  # (the op modules load on first use)
        OPS = every_op()
        from polyops._registry import get_backend

        out = {"primitives": sorted(n for n, op in OPS.items() if op.ref is None), "ops": len(OPS),
               "host": sum(op.host for op in OPS.values())}
        for name in ("array_api_strict", "dask"):
            sources = get_backend(name).sources
            want = {n: "native" if op.ref is None else "host" if op.host else "reference"
                    for n, op in OPS.items()}
            out[name] = {n: s for n, s in sources.items() if s != want[n]}
            out[name + "_native"] = sum(s == "native" for s in sources.values())
            out[name + "_reference"] = sum(s != "native" for s in sources.values())
        print(json.dumps(out))
    """)
    n, total, host = len(out["primitives"]), out["ops"], out["host"]
    assert n >= 49, out["primitives"]
    assert summary == [f"array_api_strict {n:>4} native  {total - n - host:>4} reference  "
                       f"{host:>4} host     0 missing  of {total} ops"]
    for name in BACKENDS:
        assert out[name] == {}, f"{name}: ops whose source is wrong: {out[name]}"
        assert (out[name + "_native"], out[name + "_reference"]) == (n, total - n)


def test_dask_on_a_local_cluster(venv):
    """A reduction-heavy computation on the dask backend, run by a 2-process LocalCluster."""
    out = run_json(venv, """
        import faulthandler, json
        faulthandler.dump_traceback_later(150, exit=True)  # bound the whole run

        import numpy as np
        import polyops
        from polyops import ops


        def job(rechunk=lambda x: x):
            x = ops.reshape(ops.arange(6000, dtype="float32"), (60, 100))
            x = rechunk(ops.sin(x / 50.0) * 3.0)
            p = ops.softmax(x, axis=-1)
            return {
                "mean": ops.mean(x), "std": ops.std(x, axis=0), "var": ops.var(x, axis=1),
                "softmax_sum": ops.sum(p, axis=1), "softmax_max": ops.max(p, axis=0),
                "argmax": ops.argmax(x, axis=1), "total": ops.sum(ops.square(x - ops.mean(x))),
                "gram": ops.sum(ops.matmul(ops.transpose(x), x), axis=0),
            }


        if __name__ == "__main__":
            with polyops.use_backend("numpy"):
                want = {k: ops.convert_to_numpy(v) for k, v in job().items()}
            from dask.distributed import Client, LocalCluster, get_task_stream

            with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                              dashboard_address=None, silence_logs=40) as cluster, \\
                    Client(cluster, timeout="60s") as client:
                polyops.set_backend("dask")
                # four chunks of rows, so the reductions are tree reductions across workers
                lazy = job(lambda x: x.rechunk((15, 100)))
                kinds = sorted({type(v).__module__ + "." + type(v).__name__ for v in lazy.values()})
                with get_task_stream(client) as stream:
                    got = {k: ops.convert_to_numpy(v) for k, v in lazy.items()}
                workers = sorted({t["worker"] for t in stream.data})
                cluster_workers = sorted(w.worker_address for w in cluster.workers.values())
                dtypes = {k: ops.dtype(v) for k, v in lazy.items()}
            out = {
                "kinds": kinds, "tasks": len(stream.data),
                "on_cluster": set(workers) <= set(cluster_workers) and bool(workers),
                "workers": len(workers),
                "dtypes": dtypes,
                "want_dtypes": {k: str(v.dtype) for k, v in want.items()},
                "close": {k: bool(np.allclose(got[k], want[k], rtol=1e-4, atol=1e-4)) for k in want},
                "shapes": {k: [list(got[k].shape), list(want[k].shape)] for k in want},
            }
            print(json.dumps(out))
    """)
    print(f"dask on a LocalCluster: {out['tasks']} tasks on {out['workers']} worker(s)")
    assert out["kinds"] == ["dask.array.core.Array"]
    assert out["tasks"] > 0 and out["on_cluster"], out
    assert out["dtypes"] == out["want_dtypes"], out
    assert all(a == b for a, b in out["shapes"].values()), out["shapes"]
    assert all(out["close"].values()), out["close"]
