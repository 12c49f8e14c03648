"""Cold start: a fresh process that imports polyops and runs its first op, against the
same with the framework alone.

    python benchmarks/coldstart.py [--backend NAME ...] [--repeats N] [--output RESULTS.md]

Per backend, interleaved fresh processes (``.pyc`` files written first):

- framework: ``import <framework>`` and its own first op (``np.add(np.ones((3,)), 1.0)``,
  ``torch.add``, ``jnp.add`` + block, ``tf.add``, and for openvino a compiled one-op model);
- polyops: ``import polyops; polyops.set_backend(name); ops.add(ops.ones((3,)), 1.0)``.

Wall time of the child from start to exit (the interpreter's own start-up included in
both), median of the repeats.  Then ``python -X importtime`` of the polyops process on
numpy: the slowest modules, cumulative.  The report replaces the section between the
``coldstart`` markers of RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from catalogue import write_section  # noqa: E402

BEGIN, END = "<!-- coldstart: begin -->", "<!-- coldstart: end -->"
TARGETS = {"numpy": 1.5}  # x the numpy-only process; the others: 1.1x framework + first op
NATIVE = {
    "numpy": "import numpy as np; np.add(np.ones((3,)), 1.0)",
    "torch": "import torch; torch.add(torch.ones((3,)), 1.0)",
    "jax": "import jax.numpy as jnp; jnp.add(jnp.ones((3,)), 1.0).block_until_ready()",
    "tensorflow": "import tensorflow as tf; tf.add(tf.ones((3,)), 1.0)",
    "openvino": ("import numpy as np, openvino as ov, openvino.opset16 as o; "
                 "p = o.parameter([3], ov.Type.f32); "
                 "m = ov.Core().compile_model(ov.Model([o.add(p, o.constant(np.float32(1)))], [p]), 'CPU'); "
                 "m(np.ones(3, np.float32))"),
}
POLYOPS = ("import polyops; from polyops import ops; polyops.set_backend({name!r}); "
           "ops.add(ops.ones((3,)), 1.0)")
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "TF_CPP_MIN_LOG_LEVEL": "3"}  # (.pyc files are written, as in a user's environment)


def _run(code):
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV)
    took = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(proc.stderr[-1500:])
    return took


def measure(backends, repeats):
    out = {}
    for name in backends:
        codes = {"framework": NATIVE[name], "polyops": POLYOPS.format(name=name)}
        for code in codes.values():  # .pyc files, caches
            _run(code)
        times = {k: [] for k in codes}
        for _ in range(repeats):
            for k, code in codes.items():
                times[k].append(_run(code))
        out[name] = {k: statistics.median(v) for k, v in times.items()}
        print(f"  {name}: framework {out[name]['framework']:.3f} s, polyops "
              f"{out[name]['polyops']:.3f} s", file=sys.stderr)
    return out


def importtime(name="numpy", top=15):
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", POLYOPS.format(name=name)],
                          capture_output=True, text=True, env=ENV)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        head, cum_us, mod = line.split("|")
        rows.append((int(cum_us), int(head.split(":")[1]), mod.rstrip()))
    rows.sort(reverse=True)
    return rows[:top]


def report(res, imports, repeats):
    lines = [BEGIN, "", "## Cold start (issue 17)", "",
             f"`python benchmarks/coldstart.py --repeats {repeats}`: wall time of a fresh process, "
             "median of interleaved runs, interpreter start-up included in both columns.", "",
             "| backend | framework alone + its first op | polyops + first op | ratio | target |",
             "|---|---:|---:|---:|---|"]
    for name, r in res.items():
        ratio = r["polyops"] / r["framework"]
        target = TARGETS.get(name, 1.1)
        lines.append(f"| {name} | {r['framework'] * 1e3:.0f} ms | {r['polyops'] * 1e3:.0f} ms | "
                     f"**{ratio:.2f}x** | ≤{target}: {'met' if ratio <= target else 'missed'} |")
    lines += ["", "`python -X importtime` of the polyops process on numpy, the slowest imports "
              "(cumulative, µs):", "", "| module | cumulative | self |", "|---|---:|---:|"]
    for cum, self_us, mod in imports:
        lines.append(f"| `{mod.strip()}` | {cum:,} | {self_us:,} |")
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", action="append")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--output", default=str(HERE / "RESULTS.md"))
    args = p.parse_args(argv)
    res = measure(args.backend or list(NATIVE), args.repeats)
    text = report(res, importtime(), args.repeats)
    write_section(Path(args.output), text, BEGIN, END)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
