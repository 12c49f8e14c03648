"""Issue 17's OpenVINO targets: a new input shape compiles no new model.

    python benchmarks/openvino_shapes.py [--lengths N] [--rss-shapes N] [--output RESULTS.md]

Each case runs in a fresh process (so no other case's models serve its shapes):

- **sweep**: one call at each of ``--lengths`` (200) distinct lengths of the case's dynamic
  dim, after one warm-up call at another length.  Reported: models compiled during the
  sweep (`_graph.compiles`), the median time of a call with a shape not met before, and
  that over the median warm call (the same shapes called again, each once, after the sweep:
  the model and the CPU plugin's preparation for that shape are there);
- **memory**: per case in a fresh process, VmRSS after a warm start (import, one call),
  then after ``--rss-shapes`` (1,000) distinct shapes, and the number of models the cache
  holds against its bound (`polyops_openvino.set_cache_size`, default 1024 models, or
  ``POLYOPS_OPENVINO_CACHE_SIZE``; each keeps the CPU plugin's preparation for at most
  ``POLYOPS_OPENVINO_SHAPE_CACHE`` shapes, default 64).

Targets: at most a handful of models per op for 200 lengths; a new shape ≤3x a warm call;
RSS ≤300 MiB above the warm start after 1,000 distinct shapes.  The report replaces the
section between the ``openvino-shapes`` markers of RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from catalogue import write_section  # noqa: E402

BEGIN, END = "<!-- openvino-shapes: begin -->", "<!-- openvino-shapes: end -->"
MODELS_TARGET, NEW_SHAPE_TARGET, RSS_TARGET = 4, 3.0, 300

# case -> (its inputs for dynamic length n, the call on them ``a``): source for the child
CASES = {
    "add": ("(v(n), v(n))", "ops.add(*a)"),
    "add with a Python scalar": ("(v(n),)", "ops.add(a[0], 2.0)"),
    "exp": ("(v(n),)", "ops.exp(*a)"),
    "sum along the last axis": ("(m(8, n),)", "ops.sum(a[0], axis=-1)"),
    "softmax along the last axis": ("(m(8, n),)", "ops.softmax(a[0], axis=-1)"),
    "matmul (n, 64) @ (64, 32)": ("(m(n, 64), W)", "ops.matmul(*a)"),
    # (past _graph.PAD_MAX, 512 KiB, rows are not padded to a few shapes: see there)
    "matmul (4n, 64) @ (64, 32), 1 MiB inputs": ("(m(4 * n, 64), W)", "ops.matmul(*a)"),
    "concatenate two vectors": ("(v(n), v(n))", "ops.concatenate(list(a))"),
    "where": ("(v(n) > 0, v(n))", "ops.where(a[0], a[1], 0.0)"),
}

CHILD = r"""
import json, statistics, sys, time
import numpy as np
import polyops
from polyops import ops
from polyops_openvino import _graph

polyops.set_backend("openvino")
rng = np.random.default_rng(0)
W = rng.standard_normal((64, 32)).astype("float32")
def v(n):
    return rng.standard_normal(n).astype("float32")
def m(r, c):
    return rng.standard_normal((r, c)).astype("float32")
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
mode, cases, count = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
makes = {name: eval("lambda n: " + make) for name, (make, _) in cases.items()}
calls = {name: eval("lambda a: " + call) for name, (_, call) in cases.items()}
out = {}
if mode == "sweep":
    (name, call), = calls.items()
    make = makes[name]
    call(make(3000))  # warm: the op's dynamic model
    before = _graph.compiles
    inputs = [make(n) for n in range(1001, 1001 + count)]  # (made before the clock starts)
    first, warm = [], []
    for a in inputs:
        t = time.perf_counter(); call(a); first.append(time.perf_counter() - t)
    compiled = _graph.compiles - before
    for a in inputs:
        t = time.perf_counter(); call(a); warm.append(time.perf_counter() - t)
    out = {"models": compiled, "new": statistics.median(first), "warm": statistics.median(warm),
           "ratio": statistics.median(f / w for f, w in zip(first, warm))}
else:
    for name, call in calls.items():
        call(makes[name](7))
    start = rss()
    for n in range(11, 11 + count):
        for name, call in calls.items():
            call(makes[name](n))
    out = {"start": start, "end": rss(), "models": len(_graph._cache),
           "bound": _graph._MAX_ENTRIES, "compiles": _graph.compiles}
print(json.dumps(out))
"""


def _child(mode, cases, count):
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, json.dumps(cases), str(count)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def report(sweeps, memory, args):
    us = lambda s: f"{s * 1e6:.1f} µs"  # noqa: E731
    lines = [BEGIN, "", "## OpenVINO: new shapes (issue 17)", "",
             f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with "
             f"`python benchmarks/openvino_shapes.py`. Per case, a fresh process: one warm-up "
             f"call, then one call at each of {args.lengths} lengths not met before (the models "
             "compiled meanwhile; the median call), then the same lengths again (warm). "
             f"Targets: ≤{MODELS_TARGET} models per op for the sweep, a new shape "
             f"≤{NEW_SHAPE_TARGET:g}x a warm call.", "",
             f"Memory: per case, a fresh process, VmRSS after {args.rss_shapes:,} distinct "
             f"shapes above a warm start (target ≤{RSS_TARGET} MiB).", "",
             f"| case | models compiled | new shape | warm call | new / warm | RSS after "
             f"{args.rss_shapes:,} shapes | targets |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name, r in sweeps.items():
        m = memory[name]
        grew = m["end"] - m["start"]
        verdict = (f"models: {'met' if r['models'] <= MODELS_TARGET else 'missed'}; new shape: "
                   f"{'met' if r['ratio'] <= NEW_SHAPE_TARGET else 'missed'}; RSS: "
                   f"{'met' if grew <= RSS_TARGET else 'missed'}")
        lines.append(f"| {name} | {r['models']} | {us(r['new'])} | {us(r['warm'])} | "
                     f"**{r['ratio']:.2f}x** | +{grew:.0f} MiB | {verdict} |")
    bound = next(iter(memory.values()))["bound"]
    lines += ["", f"Model cache bound: {bound} models (`polyops_openvino.set_cache_size` or "
                  "`POLYOPS_OPENVINO_CACHE_SIZE`), each keeping the CPU plugin's preparation for "
                  "at most `POLYOPS_OPENVINO_SHAPE_CACHE` shapes (default 64).", "",
              "Warm calls against a compiled single-op model (add, add with a Python scalar, "
              "softmax...): section 2 above.", "", END]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lengths", type=int, default=200)
    p.add_argument("--rss-shapes", type=int, default=1000)
    p.add_argument("--output", default=str(HERE / "RESULTS.md"))
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    sweeps = {name: _child("sweep", {name: case}, args.lengths) for name, case in CASES.items()}
    memory = {name: _child("memory", {name: case}, args.rss_shapes) for name, case in CASES.items()}
    text = report(sweeps, memory, args)
    write_section(Path(args.output), text, BEGIN, END)
    print(text)
    print(f"[{time.perf_counter() - t0:.0f} s]", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
