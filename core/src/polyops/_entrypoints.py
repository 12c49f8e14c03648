"""Entry points of one group, read straight from the installed distributions' metadata.

``importlib.metadata.entry_points`` answers the same question, but importing it costs
about 20 ms of every start-up (its ``email`` parsers), a fifth of polyops' cold start on
numpy.  A distribution's entry points are one INI file, ``entry_points.txt``, in its
``*.dist-info`` (or ``*.egg-info``) folder on ``sys.path``: this module reads those, in
``sys.path`` order, the first distribution of a name winning, as ``importlib.metadata``
does.  Where that layout is not the whole story (a zip or egg file on ``sys.path``, a
meta-path finder of its own that finds distributions), it hands over to
``importlib.metadata``.
"""

from __future__ import annotations

import importlib
import os
import re
import sys

_SUFFIXES = (".dist-info", ".egg-info")


class Distribution:
    """The name and version of an installed distribution, read on first use from its
    metadata's header (``Name:``, ``Version:``)."""

    __slots__ = ("_path", "_header")

    def __init__(self, path: str):
        self._path = path
        self._header: dict | None = None

    def _field(self, key: str) -> str | None:
        if self._header is None:
            self._header = {}
            for fname in ("METADATA", "PKG-INFO"):
                try:
                    with open(os.path.join(self._path, fname), encoding="utf-8") as f:
                        for line in f:
                            if not line.strip():
                                break  # the end of the header
                            k, sep, v = line.partition(":")
                            if sep and k in ("Name", "Version"):
                                self._header.setdefault(k, v.strip())
                    break
                except OSError:
                    continue
        return self._header.get(key)

    @property
    def name(self) -> str | None:
        return self._field("Name")

    @property
    def version(self) -> str | None:
        return self._field("Version")


class EntryPoint:
    """``name = module:attr`` of a group, with the distribution that declares it."""

    __slots__ = ("name", "value", "group", "dist")

    def __init__(self, name: str, value: str, group: str, dist):
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self):
        """Import the module and return the object the entry point names."""
        target = self.value.split("[", 1)[0]  # (extras are not ours to check)
        module, _, attr = target.partition(":")
        obj = importlib.import_module(module.strip())
        for part in attr.strip().split(".") if attr.strip() else ():
            obj = getattr(obj, part)
        return obj

    def __repr__(self):
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> list:
    """The entry points of ``group`` of every installed distribution (see the module)."""
    if not _plain_layout():
        from importlib.metadata import entry_points as read

        return list(read(group=group))
    seen: set[str] = set()
    out = []
    for entry in sys.path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for fname in names:
            if not fname.endswith(_SUFFIXES):
                continue
            key = _normalize(fname.rsplit(".", 1)[0].split("-", 1)[0])
            if key in seen:
                continue  # the first of a name on sys.path wins
            path = os.path.join(folder, fname)
            try:
                with open(os.path.join(path, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                if os.path.isdir(path):
                    seen.add(key)
                continue
            seen.add(key)
            dist = Distribution(path)
            out.extend(EntryPoint(n, v, group, dist) for n, v in _section(text, group))
    return out


def _plain_layout() -> bool:
    """Whether every distribution lives in a folder on ``sys.path`` (none in a zip or egg
    file, no meta-path finder with distributions of its own)."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return False
    return not any(entry and os.path.isfile(entry) for entry in sys.path)


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _section(text: str, group: str):
    """``(name, value)`` pairs of the INI section ``[group]``."""
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            inside = line[1:-1].strip() == group
            continue
        if inside:
            name, sep, value = line.partition("=")
            if sep:
                yield name.strip(), value.strip()
