"""The op counts README.md states, computed from the op table and the loaded backends.

The counts are typed by hand; these tests keep them true when an op or a kernel is added
(a new native kernel changes its backend's row of the Backends table).
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import polyops.ops
from polyops._op import every_op
from polyops._registry import get_backend

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
OPS = every_op()
FAMILIES = collections.Counter(op.family for op in OPS.values())


def _stated(pattern: str, text: str = README) -> int:
    """The one number ``pattern`` (a regex with one group) finds in ``text``."""
    found = re.findall(pattern, text)
    assert len(found) == 1, f"README: {pattern!r} matches {len(found)} times, not once"
    return int(found[0])


def _counts_paragraph() -> str:
    """The paragraph from "Counts are of the ... ops" to the next blank line."""
    start = README.index("Counts are of the ")
    return README[start:README.index("\n\n", start)]


def _backends_table() -> dict[str, dict[str, str]]:
    """The table under "## Backends": backend name -> {column header: cell}."""
    rows = []
    for line in README[README.index("## Backends"):].splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    header, body = rows[0], rows[2:]  # rows[1]: the |---| line
    return {row[0]: dict(zip(header, row, strict=True)) for row in body}


def test_op_and_family_counts():
    text = _counts_paragraph()
    assert _stated(r"Counts are of the (\d+) ops", text) == len(OPS)
    stated = {family: _stated(rf"`{family}` \((\d+)\b", text) for family in FAMILIES}
    assert stated == dict(FAMILIES)


def test_numpy_names_with_aliases():
    """The numpy family's public names: its ops, their aliases and the plain functions."""
    mod = polyops.ops.numpy
    names = [n for n in mod.__all__ if not isinstance(getattr(mod, n), type)]  # no Add, Sum...
    assert _stated(r"(\d+) names with the aliases", _counts_paragraph()) == len(names)


def test_primitives_and_references():
    primitives = sum(op.ref is None for op in OPS.values())
    assert _stated(r"(\d+) ops are primitives") == primitives
    assert _stated(r"the other (\d+) have a reference implementation") == len(OPS) - primitives


def test_random_distributions():
    assert _stated(r"\((\d+) distributions") == FAMILIES["random"]


def test_backends_table_has_every_installed_backend(backend):
    assert backend in _backends_table()


def test_backend_native_reference_host_counts(backend):
    """A backend's row: ops with a native kernel, on core's reference, on core's host
    computation, as `polyops coverage` counts them; and no op missing."""
    row = _backends_table()[backend]
    sources = collections.Counter(get_backend(backend).sources.values())
    stated = {kind: int(row[kind]) for kind in ("native", "reference", "host")}
    assert stated == {kind: sources[kind] for kind in stated}
    assert sources["missing"] == 0  # "No op is missing on any backend."
