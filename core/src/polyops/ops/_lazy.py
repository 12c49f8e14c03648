"""The op families load on first use, one module at a time.

Defining an op (its public function, Operation class and symbolic rule) costs ~0.1 ms, so
defining all 345 at ``from polyops import ops`` cost ~35 ms of every start-up, twice the
time of the one op a short script calls.  Instead, `polyops.ops` and each family package
(``polyops.ops.numpy``, ``.nn``...) know their names from a static index, `_index`, and
import the module that defines a name when it is first read: ``ops.add`` loads
``polyops.ops.numpy.base`` (and what it imports), not the image or linalg ops.

An op module ends with `polyops.ops._base.finish`, which calls `publish`: its public names
are then plain attributes of its family package and (for the flat families) of
`polyops.ops`, so only the first read of a name goes through ``__getattr__``.

`_index` is generated: after adding, removing or renaming a public name of an op module,
run ``python -m polyops.ops._lazy`` (tests/test_structure.py fails until it matches).
"""

from __future__ import annotations

import importlib
import sys
import types

from . import _index

ROOT = "polyops.ops"
FLAT = ("core", "nn", "numpy", "math", "linalg")  # families whose names polyops.ops has too
_OWNER: dict[str, dict[str, str]] = {}  # package -> {public name: defining module}


def _owners(package: str) -> dict[str, str]:
    owners = _OWNER.get(package)
    if owners is None:
        owners = {}
        for module, (ops, others) in _index.MODULES.items():
            family = module.split(".")[0]
            if package == ROOT and family in FLAT or package == f"{ROOT}.{family}":
                for name in (*ops, *others):
                    owners[name] = module
        _OWNER[package] = owners
    return owners


class _Family(types.ModuleType):
    """A family package.  The import system binds a loaded submodule to its package's
    attribute after the submodule ran; where the submodule published an op of the same
    name (``nn.conv``, ``math.fft``: the function shadows the module), the op keeps it."""

    def __setattr__(self, name, value):
        if not (isinstance(value, types.ModuleType) and name in _owners(self.__name__)
                and name in vars(self)):
            super().__setattr__(name, value)


def attach(namespace: dict) -> None:
    """Make the package whose globals are ``namespace`` (`polyops.ops` or a family package)
    define its names on first use: ``__all__``, ``__getattr__`` and ``__dir__``."""
    package = namespace["__name__"]
    owners = _owners(package)
    if package == ROOT:  # the family packages and modules
        children = {m.split(".")[0] for m in _index.MODULES}
    else:  # the family's submodules
        prefix = package[len(ROOT) + 1:] + "."
        children = {m[len(prefix):] for m in _index.MODULES if m.startswith(prefix)}
        sys.modules[package].__class__ = _Family

    def __getattr__(name: str):
        module = owners.get(name)
        if module is not None:
            importlib.import_module(f"{ROOT}.{module}")  # (its finish publishes its names)
            return namespace[name]
        if name in children:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted({*namespace, *owners, *children})

    namespace.update(__getattr__=__getattr__, __dir__=__dir__, __all__=list(owners))


def publish(namespace: dict) -> None:
    """Called by an op module's `finish`: its ``__all__`` names become attributes of its
    family package and, for a flat family, of `polyops.ops`."""
    module = namespace["__name__"][len(ROOT) + 1:]
    family = module.split(".")[0]
    names = {name: namespace[name] for name in namespace["__all__"]}
    if "." in module:
        vars(sys.modules[f"{ROOT}.{family}"]).update(names)
    if family in FLAT:
        vars(sys.modules[ROOT]).update(names)
    from .._public import save_cache

    save_cache()  # the public functions' code, for the next start (see polyops._public)


def load_all() -> None:
    """Define every op (in the index's order, which fixes the op indices of a process that
    has loaded nothing yet)."""
    for module in _index.MODULES:
        importlib.import_module(f"{ROOT}.{module}")


def module_of(name: str) -> str | None:
    """The module (``"numpy.base"``) that defines the op named ``name``, or None."""
    return _ops().get(name)


def op_count() -> int:
    """How many ops the index lists (`polyops._op.OPS` has them all once every module loaded)."""
    return len(_ops())


_OPS: dict[str, str] = {}


def _ops() -> dict[str, str]:
    if not _OPS:
        for module, (ops, _) in _index.MODULES.items():
            _OPS.update(dict.fromkeys(ops, module))
    return _OPS


# -- the index ------------------------------------------------------------------------------

def build() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The index as it should be: every op module (the index's order, then new ones found
    on disk), with the op names and the other public names its ``__all__`` lists."""
    import pkgutil

    from .._op import OPS

    here = sys.modules[ROOT]
    found = []
    for info in pkgutil.walk_packages(here.__path__, f"{ROOT}."):
        leaf = info.name.rsplit(".", 1)[-1]
        if not info.ispkg and not leaf.startswith("_"):
            found.append(info.name[len(ROOT) + 1:])
    order = [m for m in _index.MODULES if m in found] + sorted(set(found) - set(_index.MODULES))
    index = {}
    for module in order:
        names = importlib.import_module(f"{ROOT}.{module}").__all__
        ops = tuple(n for n in names if n in OPS and OPS[n].public is getattr(
            sys.modules[f"{ROOT}.{module}"], n))
        index[module] = (ops, tuple(n for n in names if n not in ops))
    return index


def write(path: str | None = None) -> None:
    """Write `build`'s index to ``_index.py``."""
    import os

    index = build()
    lines = ['"""Generated by ``python -m polyops.ops._lazy``: the public names of each op module',
             "(op names, then the rest), in the order that fixes op indices.  Do not edit.\"\"\"",
             "", "MODULES = {"]
    for module, parts in index.items():
        lines.append(f"    {module!r}: (")
        for names in parts:
            lines.append("        (")
            row = "           "
            for name in names:
                item = f" {name!r},"
                if len(row) + len(item) > 99:
                    lines.append(row)
                    row = "           "
                row += item
            if row.strip():
                lines.append(row)
            lines.append("        ),")
        lines.append("    ),")
    lines.append("}")
    path = path or os.path.join(os.path.dirname(__file__), "_index.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write()
