"""polyops backends on any Python Array API standard namespace.

One plugin class, `ArrayAPIPlugin`, parameterized by a backend name and the
import path of an Array API namespace; this distribution registers two of them
(see pyproject.toml):

==================  =================================  =====================================
backend             namespace                          array type
==================  =================================  =====================================
``array_api_strict``  ``array_api_strict``             ``array_api_strict.Array``
``dask``              ``array_api_compat.dask.array``  ``dask.array.Array`` (lazy)
==================  =================================  =====================================

Only the *primitive* ops (those without a reference in core) have kernels here,
written with the standard's functions only; core's references compose every
other op from them.  This module is what the entry points load: it must stay
import-light, so the namespace is imported when a backend is first selected.
"""

from __future__ import annotations

import importlib
import types

from polyops.plugin import API_VERSION, hookimpl, kernels_from

FAMILIES = ("core", "numpy", "nn")


class ArrayAPIPlugin:
    """A polyops backend running on the Array API namespace at import path ``namespace``.

    Args:
        name: the backend name (the entry point's name).
        namespace: the namespace's import path, e.g. ``"array_api_strict"`` or
            ``"array_api_compat.dask.array"`` (array-api-compat's wrapper, for
            libraries that do not follow the standard by themselves).
    """

    polyops_api_version = API_VERSION

    def __init__(self, name: str, namespace: str):
        self.name = name
        self.namespace = namespace

    def xp(self):
        """The namespace module (imports the framework)."""
        return importlib.import_module(self.namespace)

    @hookimpl
    def polyops_runtime(self, backend: str):
        if backend != self.name:
            return None
        from .core import make_runtime

        return make_runtime(self.name, self.xp())

    @hookimpl
    def polyops_kernels(self, backend: str):
        if backend != self.name:
            return None
        xp = self.xp()
        modules = []
        for family in FAMILIES:
            source = importlib.import_module(f"{__name__}.{family}")
            # kernels_from keeps the names that are ops of the module's family; give it a
            # module of that family's name holding the closures built over ``xp``.
            built = types.ModuleType(source.__name__)
            vars(built).update(source.make_kernels(xp))
            modules.append(built)
        return kernels_from(*modules)

    def __repr__(self):
        return f"<polyops Array API backend plugin {self.name!r} ({self.namespace})>"


array_api_strict = ArrayAPIPlugin("array_api_strict", "array_api_strict")
dask = ArrayAPIPlugin("dask", "array_api_compat.dask.array")

PLUGINS = {p.name: p for p in (array_api_strict, dask)}

_NO_BF16 = "the namespace has no bfloat16 dtype (the Array API standard defines none)"
_NO_F16 = "array_api_strict has no float16 dtype (the standard does not require one)"
_NO_F16_COMPAT = "array_api_compat's dask namespace lists no float16 dtype (the standard has none)"
_COMPLEX_PARTS = ("view_as_real of complex input needs real/imag kernels for complex dtypes; "
                  "this example implements the primitives only, and their references take real input")

EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    # Conformance cases (``polyops.testing.check_backend``) that fail on purpose.  Cases
    # whose inputs or outputs are in a dtype the backend lacks are not listed: the check
    # counts them as unsupported.  These are the cases that ask for such a dtype through
    # an argument the check cannot see (ones' dtype=None with floatx...), and one
    # complex case that needs more than the primitives.
    "array_api_strict": {
        "ones|ones--": _NO_BF16,
        "logspace|logspace-base--": _NO_F16,
        "view_as_real|view_as_real-complex64": _COMPLEX_PARTS,
    },
    "dask": {
        "ones|ones--": _NO_BF16,
        "logspace|logspace-base--": _NO_F16_COMPAT,
        "view_as_real|view_as_real-complex64": _COMPLEX_PARTS,
    },
}
"""``{backend: {case id: reason}}`` for `polyops.testing.check_backend`."""

__all__ = ["ArrayAPIPlugin", "array_api_strict", "dask", "PLUGINS", "EXPECTED_FAILURES"]
