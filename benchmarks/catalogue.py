"""Catalogue-wide dispatch cost: every op that has a direct framework counterpart, polyops
against the framework's own call, on small and on mid-size inputs.

    python benchmarks/catalogue.py [--backend NAME ...] [--size small|mid ...] [--quick]
                                   [--ops OP,OP...] [--keep] [--output RESULTS.md]
                                   [--png catalogue.png] [--json catalogue.json]

``--ops`` (or ``--only``, repeatable) times those ops only: it prints their table and
leaves RESULTS.md, the plot and catalogue.json as they are (unless ``--json`` is given).

The cases come from the op table (`polyops.testing`): per op, the first record that runs
in float32 (else its first record).  Its input shapes are scaled so that the largest input
has about 16x16 elements ("small") or 512x512 ("mid"), or smaller where the result would
exceed 16 times that (outer, kron, diag: the result then has about that size); when the
scaled call fails or the native disagrees there, the record's own shapes are used and the
row says so.

The native is found by name, in order, in the framework's own namespaces (below), with
Keras's keyword names translated (torch: ``axis`` -> ``dim``, ``keepdims`` -> ``keepdim``).
It counts as a *direct counterpart* only when it returns the same values and shape as
polyops on that case; the others are listed with the reason.  On openvino the native is
the very compiled model polyops runs for the op, called directly (bound inputs, infer,
copy out): what is left is polyops's dispatch.

Ops whose result size depends on the input values (the symbolic rule gives a None
dimension for fully known input shapes: unique, nonzero, ...) are reported apart.

Every timing is the median of interleaved rounds (see suite.py); a ratio is the median of
per-round ratios.  Each backend runs in its own child process.  The report replaces the
section between the ``catalogue`` markers of RESULTS.md (suite.py keeps that section).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import suite  # noqa: E402  (timing helpers)

BACKENDS = ("numpy", "torch", "jax", "tensorflow", "openvino")
SIZES = {"small": 16 * 16, "mid": 512 * 512}
FULL = {"target": 0.002, "rounds": 5}
QUICK = {"target": 0.001, "rounds": 3}
# A mid-size native call under this many seconds does no work proportional to the input
# (a view, a metadata change): it measures dispatch again, reported apart at mid size.
CONSTANT_TIME = 10e-6
# targets of issue 17 (polyops / native)
TARGETS = {"small": {"p90": 1.3, "worst": 2.0}, "mid": {"median": 1.02, "worst": 1.1}}
OPS_TREE: dict = {}
BEGIN, END = "<!-- catalogue: begin -->", "<!-- catalogue: end -->"

# Where the native of op ``name`` is looked for, in order (attribute paths).
NAMESPACES = {
    "numpy": ("numpy", "numpy.linalg", "numpy.fft"),
    "jax": ("jax.numpy", "jax.nn", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax",
            "jax.scipy.special"),
    "torch": ("torch", "torch.linalg", "torch.special", "torch.nn.functional", "torch.fft"),
    "tensorflow": ("tensorflow.math", "tensorflow", "tensorflow.linalg", "tensorflow.nn",
                   "tensorflow.signal", "tensorflow.experimental.numpy"),
}
# the same function under another name
ALIASES = {
    "torch": {"arctan2": "atan2", "power": "pow", "absolute": "abs", "amax": "amax",
              "log_softmax": "log_softmax", "cumsum": "cumsum"},
    "tensorflow": {"arctan2": "atan2", "power": "pow", "arcsin": "asin", "arccos": "acos",
                   "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
                   "arctanh": "atanh", "sum": "reduce_sum", "mean": "reduce_mean",
                   "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod",
                   "all": "reduce_all", "any": "reduce_any", "std": "reduce_std",
                   "var": "reduce_variance", "logsumexp": "reduce_logsumexp",
                   "negative": "negative", "floor_divide": "floordiv", "mod": "floormod",
                   "less_equal": "less_equal", "logical_and": "logical_and",
                   "transpose": "transpose", "square": "square"},
}
KWARGS = {"torch": {"axis": "dim", "keepdims": "keepdim"}}


# ======================================================================================
# cases
# ======================================================================================


def _scaled_shapes(shapes, elems):
    """The record's shapes with every dim above 1 set to one size ``s``, chosen so that the
    largest input has about ``elems`` elements."""
    big = max((sum(d > 1 for d in s) for s in shapes), default=0)
    if big == 0:
        return None
    s = max(2, round(elems ** (1 / big)))
    return tuple(tuple(s if d > 1 else d for d in shape) for shape in shapes)


def _pick(name, records):
    recs = [r for r in records if r.name == name]
    if not recs:
        return None
    for r in recs:
        if "float32" in r.dtypes:
            return r
    return recs[0]


def _case_inputs(rec, size):
    """(inputs as numpy arrays, dtype, scaled?) for one record at ``size`` (or unscaled).
    A case whose result would exceed 16x ``size`` elements at that size (outer, kron,
    diag...) takes smaller inputs, a quarter at a time, until its result fits."""
    import dataclasses
    import math

    from polyops.testing._records import make_inputs

    dtype = "float32" if "float32" in rec.dtypes else rec.dtypes[0]
    if size is not None and rec.make is None and rec.shapes:
        elems = SIZES[size]
        while elems >= 16:
            shapes = _scaled_shapes(rec.shapes, elems)
            if shapes is None:
                break
            scaled = dataclasses.replace(rec, shapes=shapes)
            n = _result_elems(scaled, dtype)
            if n <= 16 * SIZES[size]:
                return make_inputs(scaled, dtype), dtype, True
            if n == math.inf:
                break
            elems //= 4
    return make_inputs(rec, dtype), dtype, False


def _result_elems(rec, dtype):
    """Elements of the record's symbolic result (inf when unknown)."""
    import math

    import polyops
    from polyops.testing._check import outputs, symbolic_call

    specs = [polyops.SymbolicTensor(s, dtype) for s in rec.shapes]
    try:
        outs = outputs(symbolic_call(rec, specs))
    except Exception:  # noqa: BLE001
        return math.inf
    total = 0
    for o in outs:
        if isinstance(o, polyops.SymbolicTensor):
            if None in tuple(o.shape):
                return math.inf
            total += math.prod(o.shape)
    return total


def _value_dependent(rec, inputs):
    """Whether the op's result size depends on values: a None dim from known shapes."""
    import polyops
    from polyops.testing._check import outputs, symbolic_call, specs

    try:
        out = symbolic_call(rec, specs(inputs))
    except Exception:  # noqa: BLE001 - no symbolic answer: not decided here
        return False
    return any(None in tuple(o.shape) for o in outputs(out) if isinstance(o, polyops.SymbolicTensor))


def _resolve(backend, name):
    import importlib

    wanted = ALIASES.get(backend, {}).get(name, name)
    for path in NAMESPACES[backend]:
        try:
            mod = importlib.import_module(path)
        except ImportError:
            continue
        fn = getattr(mod, wanted, None) or getattr(mod, name, None)
        if callable(fn) and not isinstance(fn, type):
            return fn, f"{path.replace('tensorflow', 'tf')}.{getattr(fn, '__name__', wanted)}"
    return None, None


def _to_numpy(y):
    if isinstance(y, (list, tuple)):
        return [_to_numpy(v) for v in y]
    return suite._to_numpy(y)


def _agree(a, b):
    a, b = _to_numpy(a), _to_numpy(b)
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(_agree(x, y) for x, y in zip(a, b)))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "V" or b.dtype.kind == "V":  # bfloat16
        a, b = a.astype(np.float32), b.astype(np.float32)
    try:
        return bool(np.allclose(a.astype(np.complex128), b.astype(np.complex128),
                                rtol=1e-4, atol=1e-5, equal_nan=True))
    except (TypeError, ValueError):
        return bool(np.array_equal(a, b))


def _sync(backend):
    if backend == "jax":
        import jax

        return jax.block_until_ready
    return None


def _blocked(fn, sync):
    if sync is None:
        return fn

    def call(*args):
        return sync(fn(*args))

    return call


# ======================================================================================
# child: one backend
# ======================================================================================


def job(backend, sizes, cfg, only):
    import polyops
    from polyops._op import every_op
    from polyops._registry import get_backend
    from polyops.testing._records import RECORDS, arrange

    polyops.set_backend(backend)
    OPS_TREE.update((n, op.tree) for n, op in every_op().items())
    be = get_backend(backend)
    rt = be.runtime
    sync = _sync(backend)
    out = {}
    for name, op in every_op().items():
        if only and name not in only:
            continue
        rec = _pick(name, RECORDS)
        if rec is None:
            out[name] = {"status": "no op-table record"}
            continue
        fn = getattr(polyops.ops, name, None)
        for fam in ("linalg", "math", "image", "nn", "core", "random"):
            fn = fn or getattr(getattr(polyops.ops, fam, None), name, None)
        if fn is None:
            out[name] = {"status": "not public"}
            continue
        row = {"family": op.family, "source": be.sources.get(name)}
        for size in sizes:
            t0 = time.perf_counter()
            try:
                row[size] = _one(backend, rt, name, fn, rec, size, cfg, sync, arrange)
            except Exception as exc:  # noqa: BLE001 - reported
                row[size] = {"status": "error (" + suite._err(exc) + ")"}
            took = time.perf_counter() - t0
            if took > 5 or os.environ.get("CATALOGUE_VERBOSE"):
                print(f"    {backend} {name} {size}: {took:.0f} s", file=sys.stderr, flush=True)
        out[name] = row
    return out


def _one(backend, rt, name, fn, rec, size, cfg, sync, arrange):
    # control flow takes callables whose trip counts follow the record's shapes: not scaled
    attempts = [None] if OPS_TREE.get(name) else [size, None]
    for attempt in attempts:
        inputs, dtype, scaled = _case_inputs(rec, attempt)
        if size == "mid" and not scaled:
            return {"status": "record shapes only (cannot scale)"}
        tensors = [rt.convert_to_tensor(a, dtype if a.dtype.kind == "f" else
                                        _canonical(a.dtype)) for a in inputs]
        args = (*rec.pre, *arrange(rec, tensors))
        kwargs = dict(rec.kwargs)
        if _value_dependent(rec, inputs):
            res = _time_pair(backend, rt, name, fn, args, kwargs, rec, cfg, sync, dtype,
                             floor=size == "small")
            res["value_dependent"] = True
            res["scaled"] = scaled
            return res
        try:
            want = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            if attempt is not None:
                continue
            return {"status": "polyops fails (" + suite._err(exc) + ")"}
        res = _time_pair(backend, rt, name, fn, args, kwargs, rec, cfg, sync, dtype, want,
                         floor=size == "small")
        if res.get("status", "").startswith("differs") and attempt is not None:
            continue
        res["scaled"] = scaled
        res["shapes"] = [list(a.shape) for a in inputs]
        return res
    return res


def _canonical(nd):
    return "bool" if nd == np.bool_ else str(nd)


def _time_pair(backend, rt, name, fn, args, kwargs, rec, cfg, sync, dtype, want=None,
               floor=False):
    """polyops against the native call; with ``floor``, also a Python function that only
    forwards its arguments to the native (`_forwarder`)."""
    if backend == "openvino":
        native, label = _ov_native(fn, args, kwargs)
        if native is None:
            return {"status": label}
        nargs, nkw = label[1], {}
        label = label[0]
    else:
        native, label = _resolve(backend, name)
        if native is None:
            return {"status": "no function of that name"}
        tr = KWARGS.get(backend, {})
        nkw = {tr.get(k, k): v for k, v in kwargs.items()}
        nargs = args
        try:
            got = native(*nargs, **nkw)
        except Exception as exc:  # noqa: BLE001 - Keras's keyword names: try them positionally
            nargs, nkw = _positional(fn, args, kwargs)
            try:
                got = native(*nargs, **nkw)
            except Exception:  # noqa: BLE001
                return {"status": "signature differs (" + suite._err(exc) + ")", "native": label}
        if want is not None and not _agree(want, got):
            return {"status": "differs", "native": label}
    poly = _bound(fn, args, kwargs)
    nat = _bound(native, nargs, nkw)
    contenders = {"native": (_blocked(nat, sync), ()), "polyops": (_blocked(poly, sync), ())}
    if floor:
        contenders["forwarder"] = (_blocked(_bound(_forwarder(native, nargs, nkw), nargs, nkw),
                                            sync), ())
    r = suite.bench(contenders, cfg)
    if "rounds" not in r["native"] or "rounds" not in r["polyops"]:
        return {"status": "timing failed", "native": label}
    ratios = [p / n for p, n in zip(r["polyops"]["rounds"], r["native"]["rounds"])]
    out = {"native": label, "t_native": r["native"]["median"], "t_polyops": r["polyops"]["median"],
           "ratio": statistics.median(ratios)}
    if "rounds" in r.get("forwarder", {}):
        fw = r["forwarder"]["rounds"]
        out["t_forwarder"] = r["forwarder"]["median"]
        out["forwarder_ratio"] = statistics.median(f / n for f, n in zip(fw, r["native"]["rounds"]))
        out["over_forwarder"] = statistics.median(p / f for p, f in zip(r["polyops"]["rounds"], fw))
    return out


def _forwarder(native, args, kwargs):
    """A Python function of the call's arity that only passes its arguments on to
    ``native``: the least any Python layer over the framework adds (one frame, its
    arguments bound), the floor under polyops's small-input ratios."""
    pos = [f"a{i}" for i in range(len(args))]
    params = ", ".join(pos + [f"{k}=None" for k in kwargs])
    call = ", ".join(pos + [f"{k}={k}" for k in kwargs])
    ns = {"native": native}
    exec(f"def forward({params}):\n    return native({call})\n", ns)  # noqa: S102 - our text
    return ns["forward"]


def _positional(fn, args, kwargs):
    """The call's keyword arguments as positionals, in the op's parameter order, up to the
    last one given (earlier omitted ones take the op's defaults)."""
    import inspect

    sig = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    names = [p.name for p in sig.parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    given = {n for n in names[:len(args)]} | set(kwargs)
    last = max((i for i, n in enumerate(names) if n in given), default=-1)
    return tuple(bound.arguments[n] for n in names[:last + 1]), {}


def _bound(fn, args, kwargs):
    if kwargs:
        return lambda: fn(*args, **kwargs)
    return lambda: fn(*args)


def _ov_native(fn, args, kwargs):
    """The compiled model polyops ran for this call, called directly; None for a call that
    runs no model or several (a composition on the reference)."""
    from polyops_openvino import _graph

    ran = []
    real = _graph._run  # (a warm call: the entry's shared request, small inputs copied in)

    def spy(entry, arrays):
        ran.append((entry, list(arrays)))
        return real(entry, arrays)

    _graph._run = spy
    try:
        fn(*args, **kwargs)
        ran.clear()
        fn(*args, **kwargs)
    finally:
        _graph._run = real
    if not ran:
        return None, "no compiled model (answered without OpenVINO)"
    if len(ran) > 1:
        return None, f"composition of {len(ran)} models"
    entry, arrays = ran[0]
    return (lambda: real(entry, arrays)), ("compiled model", ())


# ======================================================================================
# parent
# ======================================================================================


def spawn(backend, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", backend, "--json", str(out)]
        for s in args.size:
            cmd += ["--size", s]
        for o in args.only or ():
            cmd += ["--only", o]
        if args.quick:
            cmd.append("--quick")
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        print(f"  [{backend}: {time.perf_counter() - t0:.0f} s]", file=sys.stderr)
        if not out.exists():
            return {"error": f"child exited {proc.returncode}:\n{proc.stderr[-3000:]}"}
        return json.loads(out.read_text())


def _rows(res, size):
    """(timed, value-dependent, constant-time at mid, others) rows of one size."""
    timed, value_dep, constant, other = [], [], [], []
    for name, row in sorted(res.items()):
        cell = row.get(size) if isinstance(row, dict) else None
        if cell is None:
            other.append((name, row.get("status", "?") if isinstance(row, dict) else "?"))
        elif "ratio" in cell:
            if cell.get("value_dependent"):
                value_dep.append((name, row, cell))
            elif size == "mid" and cell["t_native"] < CONSTANT_TIME:
                constant.append((name, row, cell))
            else:
                timed.append((name, row, cell))
        else:
            other.append((name, cell.get("status", "?")))
    return timed, value_dep, constant, other


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def summary(res, size):
    timed, value_dep, constant, other = _rows(res, size)
    rs = [c["ratio"] for _, _, c in timed]
    if not rs:
        return None
    worst = sorted(timed, key=lambda t: -t[2]["ratio"])
    out = {"n": len(rs), "median": statistics.median(rs), "p90": _pct(rs, 0.9),
           "worst": worst[0][2]["ratio"], "worst_list": [(n, c["ratio"]) for n, _, c in worst[:8]],
           "value_dependent": [(n, c["ratio"]) for n, _, c in value_dep],
           "constant": [(n, c["ratio"]) for n, _, c in constant], "other": len(other)}
    fw = [(n, c) for n, _, c in timed if "forwarder_ratio" in c]
    if fw:
        floor = [c["forwarder_ratio"] for _, c in fw]
        over = sorted(fw, key=lambda t: -t[1]["over_forwarder"])
        out["forwarder"] = {
            "n": len(fw), "median": statistics.median(floor), "p90": _pct(floor, 0.9),
            "over_median": statistics.median(c["over_forwarder"] for _, c in fw),
            "over_p90": _pct([c["over_forwarder"] for _, c in fw], 0.9),
            "over_worst": [(n, c["over_forwarder"]) for n, c in over[:8]],
            # what a forwarder's frame costs, and what polyops adds, per call
            "frame_us": statistics.median((c["t_forwarder"] - c["t_native"]) * 1e6 for _, c in fw),
            "extra_us": statistics.median((c["t_polyops"] - c["t_native"]) * 1e6 for _, c in fw)}
    return out


def _verdict(s, size):
    t = TARGETS[size]
    parts = []
    for key, limit in t.items():
        parts.append(f"{key} ≤{limit}: {'met' if s[key] <= limit else 'missed'}")
    return "; ".join(parts)


def report(all_res, args):
    lines = [BEGIN, "", "## Catalogue-wide dispatch (issue 17)", ""]
    lines.append(f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with "
                 f"`python benchmarks/catalogue.py{' --quick' if args.quick else ''}`. "
                 "Every op of the op table with a direct counterpart in the framework "
                 "(found by name in its own namespaces, and giving the same values on the case), "
                 "`polyops.ops.X` / the framework's call on the same native tensors, float32. "
                 "small: the largest input about 16x16 elements; mid: about 512x512 (smaller inputs "
                 "where the result would exceed 16 times that). "
                 "openvino: against the compiled model polyops itself runs, called directly. "
                 "Ops whose result size depends on values are listed apart (targets exclude them).")
    lines.append("")
    lines.append("| backend | size | ops timed | median | 90th pct | worst | targets | worst ops |")
    lines.append("|---|---|---:|---:|---:|---:|---|---|")
    for backend, res in all_res.items():
        if "error" in res:
            lines.append(f"| {backend} | — | — | — | — | — | child failed | |")
            continue
        for size in args.size:
            s = summary(res, size)
            if s is None:
                continue
            worst = ", ".join(f"{n} {r:.2f}x" for n, r in s["worst_list"])
            lines.append(f"| {backend} | {size} | {s['n']} | {s['median']:.2f}x | {s['p90']:.2f}x | "
                         f"{s['worst']:.2f}x | {_verdict(s, size)} | {worst} |")
    lines.append("")
    lines.append("The floor under the small-input ratios: each small case is also timed through "
                 "a *forwarder*, a Python function of the call's arity that does nothing but pass "
                 "its arguments on to the native function (`_forwarder`), the least any Python "
                 "layer over the framework can add. Its ratio to the native is the floor; "
                 "polyops / forwarder is what polyops adds above that floor (its checks, "
                 "conversions and the kernel's contract).")
    lines.append("")
    lines.append("| backend | ops | polyops p90 | forwarder median | forwarder p90 | "
                 "polyops / forwarder median | polyops / forwarder p90 | per call: forwarder's "
                 "frame, polyops's extra (medians) | most above the forwarder |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for backend, res in all_res.items():
        s = summary(res, "small") if "error" not in res and "small" in args.size else None
        if s and "forwarder" in s:
            f = s["forwarder"]
            worst = ", ".join(f"{n} {r:.2f}x" for n, r in f["over_worst"])
            lines.append(f"| {backend} | {f['n']} | {s['p90']:.2f}x | {f['median']:.2f}x | "
                         f"{f['p90']:.2f}x | {f['over_median']:.2f}x | {f['over_p90']:.2f}x | "
                         f"{f['frame_us']:.2f} µs, {f['extra_us']:.2f} µs | {worst} |")
    lines.append("")
    lines.append("Value-dependent result sizes (each needs the values on the host, or a "
                 "size computed from them, before the result can be allocated):")
    lines.append("")
    for backend, res in all_res.items():
        if "error" in res:
            continue
        for size in args.size:
            s = summary(res, size)
            if s and s["value_dependent"]:
                vd = ", ".join(f"{n} {r:.2f}x" for n, r in s["value_dependent"])
                lines.append(f"- {backend}, {size}: {vd}")
    lines.append("")
    lines.append(f"Constant-time at mid size (the native call takes under "
                 f"{CONSTANT_TIME * 1e6:.0f} µs on a 512x512 input: a view or a metadata change, "
                 "so the row measures dispatch as the small one does; excluded from the mid "
                 "targets):")
    lines.append("")
    for backend, res in all_res.items():
        s = summary(res, "mid") if "error" not in res and "mid" in args.size else None
        if s and s["constant"]:
            lines.append(f"- {backend}: " + ", ".join(f"{n} {r:.2f}x" for n, r in s["constant"]))
    lines.append("")
    for backend, res in all_res.items():
        if "error" in res:
            lines += [f"### {backend}", "", "```", res["error"][-1500:], "```", ""]
            continue
        lines += [f"<details><summary>{backend}: every op</summary>", ""]
        lines.append("| op | source | " + " | ".join(
            f"{s} native | {s} polyops | {s} ratio" + (" | small forwarder" if s == "small" else "")
            for s in args.size) + " | native function |")
        lines.append("|---|---|" + "|".join("---:|---:|---:" + ("|---:" if s == "small" else "")
                                            for s in args.size) + "|---|")
        for name, row in sorted(res.items()):
            if not isinstance(row, dict) or "family" not in row:
                continue
            cells, native = [], ""
            for size in args.size:
                c = row.get(size, {})
                if "ratio" in c:
                    mark = "" if c.get("scaled", True) else " (record shape)"
                    cells += [suite.fmt_t(c["t_native"]), suite.fmt_t(c["t_polyops"]),
                              f"**{c['ratio']:.2f}x**{mark}"]
                    if size == "small":
                        cells.append(f"{c['forwarder_ratio']:.2f}x" if "forwarder_ratio" in c else "")
                    native = c.get("native", native)
                else:
                    cells += ["", "", c.get("status", "")] + ([""] if size == "small" else [])
                    native = native or c.get("native", "")
            lines.append(f"| {name} | {row['source']} | " + " | ".join(cells) + f" | {native} |")
        lines += ["", "</details>", ""]
    lines.append(END)
    return "\n".join(lines)


def write_section(path, text, begin=BEGIN, end=END):
    """Replace the section between ``begin`` and ``end`` of ``path`` (or append it)."""
    old = path.read_text() if path.exists() else "# polyops benchmarks\n"
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        tail = rest.split(end, 1)[1]
        new = head + text + tail
    else:
        new = old.rstrip() + "\n\n" + text + "\n"
    path.write_text(new)


def plot(all_res, sizes, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        data, labels = [], []
        for backend, res in all_res.items():
            if "error" in res:
                continue
            timed = _rows(res, size)[0]
            if timed:
                data.append([c["ratio"] for _, _, c in timed])
                labels.append(f"{backend}\n({len(timed)})")
        if not data:
            continue
        ax.boxplot(data, whis=(10, 90), showfliers=True)
        ax.set_xticks(range(1, len(labels) + 1), labels)
        ax.set_yscale("log")
        ax.axhline(1.0, color="grey", lw=0.8)
        for y, style in ((1.3, ":"), (2.0, "--")) if size == "small" else ((1.02, ":"), (1.1, "--")):
            ax.axhline(y, color="red", lw=0.8, ls=style)
        ax.set_title(f"polyops / native, {size} inputs (whiskers: 10th-90th pct)")
        ax.set_ylabel("ratio (log)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", action="append")
    p.add_argument("--size", action="append", choices=tuple(SIZES))
    p.add_argument("--only", "--ops", action="append", metavar="OP[,OP...]",
                   help="time these ops only (comma-separated or repeated); prints their "
                        "table, leaves RESULTS.md, the plot and catalogue.json alone")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--output", default=str(HERE / "RESULTS.md"))
    p.add_argument("--png", default=str(HERE / "catalogue.png"))
    p.add_argument("--json")
    p.add_argument("--keep", action="store_true",
                   help="keep the other backends' results from --json (run in parts)")
    p.add_argument("--child")
    args = p.parse_args(argv)
    args.size = args.size or list(SIZES)
    if args.only:
        args.only = [o.strip() for item in args.only for o in item.split(",") if o.strip()]
    save = args.json is not None or not args.only
    args.json = args.json or str(HERE / "catalogue.json")
    cfg = QUICK if args.quick else FULL
    if args.child:
        try:
            res = job(args.child, args.size, cfg, set(args.only or ()))
        except Exception:  # noqa: BLE001
            res = {"error": traceback.format_exc()}
        Path(args.json).write_text(json.dumps(res))
        return 0
    all_res = {}
    if args.keep:  # earlier results of the backends not run now (a run in parts)
        old = json.loads(Path(args.json).read_text())
        all_res.update((b, old[b]) for b in BACKENDS if b in old)
    for backend in args.backend or BACKENDS:
        all_res[backend] = spawn(backend, args)
    all_res = {b: all_res[b] for b in BACKENDS if b in all_res}
    if save:
        Path(args.json).write_text(json.dumps(all_res, indent=1))
    text = report(all_res, args)
    if not args.only:
        write_section(Path(args.output), text)
        plot(all_res, args.size, args.png)
        print(text.split("<details>")[0])
    else:  # the rows of the ops asked for
        rows = text[text.find("<details>"):].splitlines() if "<details>" in text else []
        print("\n".join(line for line in rows
                        if line.startswith(("<details>", "| op ", "|---|---|")) or
                        any(line.startswith(f"| {o} |") for o in args.only)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
