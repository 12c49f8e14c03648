"""The ``polyops`` command: ``backends``, ``coverage``, ``check`` and ``demo``."""

from __future__ import annotations

import argparse
import sys


def _backends(args) -> int:
    from . import _registry

    why = ""
    try:
        current = _registry.current().name
    except Exception as exc:  # no loadable default: report the table anyway, and why
        current, why = None, f": {exc}"
    if current == "none":  # the symbolic-only stand-in: no backend is installed or allowed
        current = None
    rows = _registry.backends_report(load=not args.quick)
    table = [("backend", "distribution", "version", "framework", "status")]
    for r in rows:
        status = r["status"] + (f": {r['error']}" if r["error"] else "")
        table.append((r["name"], str(r["distribution"]), str(r["version"]),
                      str(r["framework"] or "-"), status))
    widths = [max(len(row[i]) for row in table) + 2 for i in range(4)]
    for row in table:
        star = "*" if row[0] == current else " "
        print(f"{star} " + "".join(f"{c:<{w}}" for c, w in zip(row, widths)) + row[4])
    for problem in _registry.problems():
        if not any(problem.startswith(r["name"] + ":") for r in rows if r["status"] == "broken"):
            print(f"  warning: {problem}")
    if current:
        print("\n* = current backend")
    else:
        import os

        off = " (POLYOPS_DISABLE_PLUGIN_AUTOLOAD is set)" if os.environ.get(
            "POLYOPS_DISABLE_PLUGIN_AUTOLOAD") else ""
        print(f"\nno backend could be selected{off}{why}")
    return 0


def require_backends(names, command: str) -> None:
    """Raise `BackendNotFoundError` (one line: the installed names, "did you mean ...?")
    unless every name in ``names`` is a discovered backend."""
    from . import _registry

    for name in names or ():
        if name not in _registry.available_backends():
            raise _registry.BackendNotFoundError(
                f"polyops {command}: {_registry._missing_message(name)}")


def coverage_table(names=None) -> tuple[list[str], dict[str, dict[str, str]]]:
    """(op names, {backend: {op: native|reference|missing}}) for the loadable backends, or
    for ``names`` (each must load: an unknown or broken one raises)."""
    from . import _registry
    from ._op import every_op

    table = {}
    if names:
        require_backends(names, "coverage")
        for name in dict.fromkeys(names):
            table[name] = dict(_registry.get_backend(name, "polyops coverage").sources)
        return list(every_op()), table
    for row in _registry.backends_report(load=True):
        if row["status"] == "loaded":
            table[row["name"]] = dict(_registry.get_backend(row["name"]).sources)
    return list(every_op()), table


_MARK = {"native": "N", "reference": "r", "host": "h", "missing": "-"}
_LEGEND = ("N = native kernel, r = core's reference implementation, h = core's host computation "
           "(numpy, eager only), - = missing")


def coverage_markdown(ops, table) -> str:
    """The coverage matrix as a Markdown table, with totals per backend."""
    from ._op import every_op

    OPS = every_op()
    backends = list(table)
    lines = ["| op | family | " + " | ".join(backends) + " |",
             "|---|---|" + "---|" * len(backends)]
    for op in ops:
        lines.append(f"| {op} | {OPS[op].family} | "
                     + " | ".join(_MARK[table[b][op]] for b in backends) + " |")
    totals = []
    for b in backends:
        counts = {k: sum(1 for v in table[b].values() if v == k) for k in _MARK}
        totals.append(f"{counts['native']} N / {counts['reference']} r / {counts['host']} h / "
                      f"{counts['missing']} -")
    lines.append("| **total** | | " + " | ".join(totals) + " |")
    return "\n".join(lines) + "\n\n" + _LEGEND + "\n"


def coverage_png(ops, table, path) -> None:
    """The coverage matrix as a PNG heat map (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
    except ImportError:
        raise SystemExit("polyops coverage --png needs matplotlib: pip install matplotlib") from None
    import numpy as np

    backends = list(table)
    code = {"missing": 0, "host": 1, "reference": 2, "native": 3}
    grid = np.array([[code[table[b][op]] for b in backends] for op in ops])
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(backends), 0.8 + 0.16 * len(ops)))
    ax.imshow(grid, aspect="auto", cmap=ListedColormap(["#d62728", "#fdae6b", "#9ecae1", "#2ca02c"]), vmin=0, vmax=3)
    ax.set_xticks(range(len(backends)), backends, rotation=30, ha="right")
    ax.set_yticks(range(len(ops)), ops, fontsize=6)
    ax.set_title("polyops coverage: green native, blue reference, orange host, red missing", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _coverage(args) -> int:
    from ._op import every_op

    OPS = every_op()
    ops, table = coverage_table(args.backend)
    backends = list(table)
    if args.format == "markdown":
        print(coverage_markdown(ops, table), end="")
    else:
        width = max(len(o) for o in ops) + 2
        print(f"{'op':<{width}}{'family':<8}" + "".join(f"{b:<12}" for b in backends))
        for op in ops:
            print(f"{op:<{width}}{OPS[op].family:<8}"
                  + "".join(f"{_MARK[table[b][op]]:<12}" for b in backends))
        print()
        for b in backends:
            counts = {k: sum(1 for v in table[b].values() if v == k) for k in _MARK}
            print(f"{b:<12} {counts['native']:>4} native  {counts['reference']:>4} reference  "
                  f"{counts['host']:>4} host  {counts['missing']:>4} missing  of {len(ops)} ops")
        print("\n" + _LEGEND)
    if args.png:
        coverage_png(ops, table, args.png)
    missing = sum(1 for b in backends for v in table[b].values() if v == "missing")
    return 1 if missing and args.strict else 0


def _check(args) -> int:
    from . import _registry
    from .testing import check_backend, missing_requirements

    require_backends(args.backend, "check")
    missing = missing_requirements()
    if missing:
        print(f"polyops check: the conformance kit needs {', '.join(missing)} (its reference "
              "values); install it with: pip install 'polyops[testing]'", file=sys.stderr)
        return 2
    status = 0
    for name in args.backend:
        _registry.get_backend(name, "polyops check")
        report = check_backend(name)
        print(report.summary())
        status |= 0 if report.ok else 1
    return status


def _demo(args) -> int:
    import polyops
    from polyops import ops

    require_backends(args.backend, "demo")
    print("$ polyops backends")
    _backends(argparse.Namespace(quick=True))

    def job():
        x = ops.reshape(ops.arange(6, dtype="float32"), (2, 3))
        y = ops.softmax(ops.matmul(x, ops.transpose(x)), axis=-1)
        return ops.sum(y * 10.0, axis=1), ops.std(x), ops.flip(x, axis=1)

    print(f"\non the default backend ({polyops.backend()}):")
    for out in job():
        print(" ", f"{type(out).__module__.split('.')[0]}.{type(out).__name__:<12}", ops.dtype(out), _fmt(out))
    for name in polyops.available_backends():
        if name == polyops.backend() or name not in (args.backend or [name]):
            continue
        try:
            with polyops.use_backend(name):
                outs = job()
                print(f"\nthe same code with use_backend({name!r}):")
                for out in outs:
                    print(" ", f"{type(out).__module__.split('.')[0]}.{type(out).__name__:<12}", ops.dtype(out), _fmt(out))
        except polyops.BackendLoadError as exc:
            print(f"\n{name}: {exc}")
    x = polyops.SymbolicTensor((None, 3), name="x")
    print("\nsymbolic:", ops.sum(ops.softmax(x @ ops.transpose(x)), axis=1))
    return 0


def _fmt(x) -> str:
    import numpy as np

    from polyops import ops

    return np.array2string(np.asarray(ops.convert_to_numpy(x), dtype=np.float64), precision=4,
                           separator=", ", max_line_width=200).replace("\n", "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="polyops", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("backends", help="list discovered backends and whether they load")
    p.add_argument("--quick", action="store_true", help="do not import the frameworks")
    p.set_defaults(fn=_backends)
    p = sub.add_parser("coverage", help="op x backend matrix: native, reference or missing")
    p.add_argument("--backend", action="append", help="only this backend (repeatable)")
    p.add_argument("--strict", action="store_true", help="exit 1 when any op is missing")
    p.add_argument("--format", choices=("text", "markdown"), default="text")
    p.add_argument("--png", metavar="FILE", help="also write the matrix as a PNG heat map")
    p.set_defaults(fn=_coverage)
    p = sub.add_parser("check", help="run the op table against a backend (conformance)")
    p.add_argument("backend", nargs="+", help="backend name(s)")
    p.set_defaults(fn=_check)
    p = sub.add_parser("demo", help="a small computation on the default and every other backend")
    p.add_argument("--backend", action="append", help="only these other backends (repeatable)")
    p.set_defaults(fn=_demo)
    args = parser.parse_args(argv)
    from ._registry import BackendLoadError, BackendNotFoundError

    try:
        return args.fn(args)
    except BackendNotFoundError as exc:  # a name given on the command line: one line, no traceback
        print(exc, file=sys.stderr)
        return 2
    except BackendLoadError as exc:
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
