"""Backend discovery, loading and selection.

Discovery reads entry-point metadata only (group ``polyops.backends``); nothing
is imported until a backend is selected.  Loading a backend registers its plugin
(and any ``<backend>.<extra>`` contributors) with a pluggy PluginManager, asks
for its Runtime and kernels, and builds one flat table ``op index -> entry``:
the native kernel when a plugin has one, else the op's reference
implementation, else an entry that raises `MissingKernelError`.  pluggy is used
here only, never on the per-op path.

Selection: `set_backend` sets the process-wide default and the current
context's choice; `use_backend` scopes a choice in a ContextVar, so threads and
asyncio tasks do not see each other's.  A thread that never chose sees the
process-wide default.

Environment:
    POLYOPS_BACKEND: the default backend (else numpy when installed).
    POLYOPS_DISABLE_PLUGIN_AUTOLOAD: when set (non-empty), no entry point is read;
        backends come only from `register_backend`.
    POLYOPS_ALLOWED_BACKENDS: comma-separated allowlist of backends that may load.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import threading
import warnings
import weakref
from typing import Any

from . import _sparse, config

ENTRY_POINT_GROUP = "polyops.backends"
FIRST_PARTY = ("numpy", "jax", "tensorflow", "torch", "openvino")

_CURRENT: contextvars.ContextVar = contextvars.ContextVar("polyops_backend", default=None)
_LOCK = threading.RLock()
_BACKENDS: dict[str, "Backend"] | None = None
_EXTENSIONS: dict[str, list] = {}
_PROBLEMS: list[str] = []
_DEFAULT: "Backend | None" = None


class PolyopsPluginWarning(UserWarning):
    """A backend plugin was skipped (broken, incompatible or duplicated)."""


class BackendNotFoundError(ValueError):
    """The requested backend is not installed (or not allowed)."""


class BackendLoadError(RuntimeError):
    """The requested backend is installed but could not be loaded."""


class Backend:
    """One discovered backend: where it comes from, its state, and once loaded, its table."""

    def __init__(self, name: str, entry_point=None, plugin=None):
        self.name = name
        self.entry_point = entry_point
        self.plugin = plugin
        dist = getattr(entry_point, "dist", None)
        self.distribution = dist.name if dist is not None else None
        self.version = dist.version if dist is not None else None
        self.status = "not loaded"
        self.error: str | None = None
        self.runtime = None
        self.table: list = []  # op index -> entry
        self.fast: list = []  # op index -> the (type, dtypes, kernel) its public function checks
        self._kernels: dict = {}
        self._modes: dict = {}  # 64-bit mode -> (entries, fast-path specs) by op index

    def __repr__(self):
        return f"<polyops backend {self.name!r} {self.status}>"

    @property
    def sources(self) -> dict[str, str]:
        """Op name -> "native" | "reference" | "host" | "missing" (every op module loads)."""
        from . import _op

        kernels = self._kernels
        return {name: "native" if name in kernels
                else "missing" if op.ref is None else "host" if op.host else "reference"
                for name, op in _op.every_op().items()}

    # -- loading -------------------------------------------------------------------
    def load(self, caller: str = "set_backend") -> "Backend":
        """Load the backend (its framework, kernels and table) once; ``caller`` names the
        function in the error message of a broken backend."""
        with _LOCK:
            if self.status == "loaded":
                return self
            if self.status == "broken":
                raise BackendLoadError(f"{caller}: backend {self.name!r} is broken: {self.error}")
            try:
                self._load()
            except Exception as exc:
                self.status = "broken"
                self.error = f"{type(exc).__name__}: {exc}"
                _PROBLEMS.append(f"{self.name}: {self.error}")
                warnings.warn(
                    f"polyops: backend {self.name!r} could not be loaded: {self.error}",
                    PolyopsPluginWarning,
                    stacklevel=3,
                )
                raise BackendLoadError(
                    f"{caller}: backend {self.name!r} could not be loaded: {self.error}"
                ) from exc
            self.status = "loaded"
            return self

    def _load(self):
        import pluggy

        from .ops import _lazy
        from .plugin import SUPPORTED_API_VERSIONS, BackendSpec

        pm = pluggy.PluginManager("polyops")
        pm.add_hookspecs(BackendSpec)
        plugin = self.plugin if self.plugin is not None else self.entry_point.load()
        self.plugin = plugin
        _check_api_version(self.name, plugin, SUPPORTED_API_VERSIONS)
        pm.register(plugin, name=self.name)
        for ep in _EXTENSIONS.get(self.name, ()):
            try:
                extra = ep.load()
                _check_api_version(ep.name, extra, SUPPORTED_API_VERSIONS)
                pm.register(extra, name=ep.name)
            except Exception as exc:
                _report(f"{ep.name}: skipped: {type(exc).__name__}: {exc}")
        pm.check_pending()
        runtime = pm.hook.polyops_runtime(backend=self.name)
        if runtime is None:
            raise TypeError(f"plugin {plugin!r} returned no Runtime for {self.name!r}")
        kernels: dict = {}
        # pluggy calls the highest-priority implementation first; it must win.
        for contribution in reversed(pm.hook.polyops_kernels(backend=self.name)):
            kernels.update(contribution or {})
        for name in sorted(n for n in kernels if _lazy.module_of(n) is None):
            _report(f"{self.name}: kernel for unknown op {name!r} ignored")
        self.runtime = runtime
        if runtime.set_x64 is not None and config._X64:
            runtime.set_x64(True)
        if self.version is None:
            self.version = runtime.version
        self.framework_version = runtime.version
        # Entries are built on an op's first call (a stub stands in until then): loading a
        # backend costs a table of stubs, not the fast-path analysis of all 345 ops.
        self._kernels = kernels
        self.set_x64(config._X64)

    def _tables(self, x64: bool) -> tuple[list, list]:
        """(entries, fast-path specs) by op index for one 64-bit mode: stubs until an op's
        first call; the second mode's are made when it is first switched on."""
        tables = self._modes.get(x64)
        if tables is None:
            from . import _op

            defined = _op.OPS.values()  # (an op defined later gets its slot from `grow`)
            tables = self._modes[x64] = ([self._stub(op, x64) for op in defined],
                                         [_op.NO_FAST] * len(defined))
            _WITH_TABLES.add(self)
        return tables

    def _grow(self, op) -> None:
        from . import _op

        for x64, (table, fast) in self._modes.items():
            assert len(table) == op.index, (self.name, op.name)
            table.append(self._stub(op, x64))
            fast.append(_op.NO_FAST)

    def set_x64(self, x64: bool) -> None:
        """Serve calls from the tables of 64-bit mode ``x64`` (the dtypes that the fast paths
        keep, and so the entries, differ between the modes)."""
        self.table, self.fast = self._tables(x64)

    def _stub(self, op, x64: bool):
        def first_call(*args):
            return self.entry(op, x64)(*args)

        first_call.stub = True
        return first_call

    def entry(self, op, x64: bool | None = None):
        """The eager entry of ``op`` on this backend in 64-bit mode ``x64`` (None: the
        current mode), built (with the fast-path spec its public function reads) on first
        use."""
        from . import _op

        if x64 is None:
            x64 = config._X64
        table, fast = self._tables(x64)
        entry = table[op.index]
        if not getattr(entry, "stub", False):
            return entry
        kernel = self._kernels.get(op.name)
        if kernel is None:
            kernel = op.ref
        # (one_hot, multi_hot, bincount: sparse=True builds the backend's sparse result)
        if kernel is not None:
            kernel = _sparse.guard(op, _sparse.by_argument(op, kernel, self), self)
        if kernel is None:
            entry, folded = _op.missing_kernel(op, self), _op.NO_FAST
        else:
            # once for the entry and the public function
            spec = _op._Fast(op, kernel, self.runtime, x64)
            entry, folded = _op.make_entry(op, kernel, self, spec), spec.folded()
        fast[op.index] = folded
        table[op.index] = entry
        return entry


_WITH_TABLES: "weakref.WeakSet[Backend]" = weakref.WeakSet()  # backends whose tables exist


def grow(op) -> None:
    """Give the op just defined (the next op index) a slot in every backend's tables: the
    op modules load one at a time (`polyops.ops._lazy`), after backends may have loaded."""
    for backend in list(_WITH_TABLES):
        backend._grow(op)


def _check_api_version(name, plugin, supported):
    version = getattr(plugin, "polyops_api_version", None)
    if version is None:
        raise TypeError(f"plugin {name!r} declares no polyops_api_version")
    if version not in supported:
        raise TypeError(
            f"plugin {name!r} declares API version {version!r}; this polyops supports "
            f"{sorted(supported)}"
        )


def x64_changed(enabled: bool) -> None:
    """Tell each loaded backend's runtime that 64-bit mode is now ``enabled``."""
    for backend in list((_BACKENDS or {}).values()):
        if backend.status == "loaded":
            backend.set_x64(enabled)
            if backend.runtime.set_x64 is not None:
                backend.runtime.set_x64(enabled)


def _report(message: str) -> None:
    _PROBLEMS.append(message)
    warnings.warn(f"polyops: {message}", PolyopsPluginWarning, stacklevel=3)


# -- discovery -----------------------------------------------------------------------


def _allowed() -> set[str] | None:
    raw = os.environ.get("POLYOPS_ALLOWED_BACKENDS")
    if not raw:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def _discover() -> dict[str, Backend]:
    global _BACKENDS
    if _BACKENDS is not None:
        return _BACKENDS
    with _LOCK:
        if _BACKENDS is not None:
            return _BACKENDS
        found: dict[str, Backend] = {}
        if not os.environ.get("POLYOPS_DISABLE_PLUGIN_AUTOLOAD"):
            from ._entrypoints import entry_points  # (importlib.metadata's, lighter)

            allowed = _allowed()
            providers: dict[str, list] = {}
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                base = ep.name.split(".", 1)[0]
                if allowed is not None and base not in allowed:
                    continue
                if "." in ep.name:
                    if all(e.value != ep.value for e in _EXTENSIONS.get(base, [])):
                        _EXTENSIONS.setdefault(base, []).append(ep)
                    continue
                same = providers.setdefault(ep.name, [])
                if all(e.value != ep.value for e in same):  # one dist seen twice on sys.path
                    same.append(ep)
            for name, eps in sorted(providers.items()):
                # Deterministic winner: the first-party distribution, else by dist name.
                eps.sort(key=lambda e: (_dist_name(e) != f"polyops-{name}", _dist_name(e)))
                found[name] = Backend(name, entry_point=eps[0])
                for other in eps[1:]:
                    _report(
                        f"backend name {name!r} is registered by both {_dist_name(eps[0])} "
                        f"and {_dist_name(other)}; {_dist_name(other)} is skipped"
                    )
        _BACKENDS = found
        return found


def _dist_name(ep) -> str:
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else ep.value


def register_backend(plugin: Any, name: str | None = None) -> None:
    """Register a backend plugin object by hand (works with autoload disabled).

    Example:
        >>> import polyops_numpy
        >>> polyops.register_backend(polyops_numpy.plugin)
    """
    name = name or getattr(plugin, "name", None)
    if not name:
        raise ValueError("register_backend: expected a plugin with a name, got no name")
    backends = _discover()
    with _LOCK:
        if name in backends and backends[name].plugin is not plugin:
            _report(f"backend name {name!r} is already registered; the new plugin is skipped")
            return
        backends[name] = Backend(name, plugin=plugin)


# Other spellings of the first-party backends' names (framework, module and package names)
_ALIASES = {
    "pytorch": "torch", "pt": "torch", "tf": "tensorflow", "tensorflow-cpu": "tensorflow",
    "keras": "tensorflow", "np": "numpy", "ov": "openvino", "openvino-cpu": "openvino",
    "jaxlib": "jax", "jnp": "jax",
}


def suggest(name: str, names, fuzzy: bool = True) -> str | None:
    """The name in ``names`` that ``name`` most likely means ('pytorch' -> 'torch', 'Torch'
    -> 'torch', 'tf' -> 'tensorflow', 'numpi' -> 'numpy'), or None; ``fuzzy=False``: other
    spellings only, no look-alikes."""
    import difflib

    names = sorted(names)
    key = name.strip().lower().replace("_", "-")
    for candidate in (key, _ALIASES.get(key), key.removeprefix("polyops-")):
        if candidate in names and candidate != name:
            return candidate
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75) if fuzzy else []
    return close[0] if close else None


def _missing_message(name: str) -> str:
    """Why ``name`` is not a backend here, and what to do: one line."""
    found = _discover()
    installed = ", ".join(sorted(found)) or "none"
    close = suggest(name, found)
    first_party = name if name in FIRST_PARTY else suggest(name, FIRST_PARTY, fuzzy=False)
    allowed = _allowed()
    if close is not None:
        hint = f"did you mean {close!r}?"
    elif os.environ.get("POLYOPS_DISABLE_PLUGIN_AUTOLOAD"):
        hint = ("POLYOPS_DISABLE_PLUGIN_AUTOLOAD is set, so no installed plugin is read: "
                "register one with polyops.register_backend(plugin) (e.g. "
                "polyops_numpy.plugin) or unset the variable")
    elif allowed is not None and name not in allowed:
        hint = f"it is not in POLYOPS_ALLOWED_BACKENDS={os.environ['POLYOPS_ALLOWED_BACKENDS']!r}"
    elif first_party is not None:
        meant = "" if first_party == name else f"did you mean {first_party!r}? "
        hint = (f"{meant}install it with: pip install 'polyops[{first_party}]' "
                f"(the polyops-{first_party} plugin)")
    else:
        hint = (
            f"install a distribution that registers {name!r} in the entry-point group "
            f"{ENTRY_POINT_GROUP!r}"
        )
    return f"unknown backend {name!r}; installed backends: {installed}; {hint}"


def get_backend(name: str, caller: str = "set_backend") -> Backend:
    """The loaded `Backend` called ``name`` (loading it on first use); ``caller`` names the
    function in its errors (`BackendNotFoundError`, `BackendLoadError`)."""
    if not isinstance(name, str):
        raise TypeError(f"{caller}: expected a backend name (str), got {name!r}")
    backend = _discover().get(name)
    if backend is None:
        raise BackendNotFoundError(f"{caller}: {_missing_message(name)}")
    if backend.status != "loaded":
        backend.load(caller)
    return backend


def _default_backend() -> Backend:
    """The process-wide default backend, chosen and loaded on first need."""
    global _DEFAULT
    if _DEFAULT is not None:
        return _DEFAULT
    with _LOCK:
        if _DEFAULT is None:
            name = os.environ.get("POLYOPS_BACKEND")
            if not name:
                backends = _discover()
                if not backends:
                    return _symbolic_only()
                name = "numpy" if "numpy" in backends else sorted(backends)[0]
                _set_default(get_backend(name))
            else:
                _set_default(get_backend(name, caller="POLYOPS_BACKEND"))
        return _DEFAULT


def _set_default(backend: "Backend | None") -> None:
    """Make ``backend`` the process-wide default.  The generated public functions read it
    through ``_default()``: once it is known that is ``itertools.repeat(backend).__next__``,
    a C call that returns it (no Python frame on every op call); before, and after a reset,
    `_default_backend`, which chooses and loads it."""
    global _DEFAULT
    _DEFAULT = backend
    from . import _op

    if _op._NAMESPACE:
        _op._NAMESPACE["_default"] = default_getter()


def default_getter():
    """What the generated public functions call for the default backend (see `_set_default`)."""
    if _DEFAULT is None:
        return _default_backend
    return itertools.repeat(_DEFAULT).__next__


_SYMBOLIC_ONLY: "Backend | None" = None


def _symbolic_only() -> Backend:
    """A stand-in used when no backend is installed: symbolic calls still infer."""
    global _SYMBOLIC_ONLY
    if _SYMBOLIC_ONLY is None:
        from . import _op

        b = Backend("none")
        b.status = "loaded"

        def make(op):
            def entry(*args):
                if _op._any_symbolic_operand(op, args):
                    return op.symbolic_call(args)
                raise BackendNotFoundError(f"{op.name}: {_no_backend_message()}")

            return entry

        b.table = [make(op) for op in _op.every_op().values()]
        b.fast = [_op.NO_FAST] * len(b.table)
        _SYMBOLIC_ONLY = b
    return _SYMBOLIC_ONLY


def _no_backend_message() -> str:
    """Why there is no backend to run an op on, and what to do."""
    if os.environ.get("POLYOPS_DISABLE_PLUGIN_AUTOLOAD"):
        return ("no backend is registered: POLYOPS_DISABLE_PLUGIN_AUTOLOAD is set, so installed "
                "plugins are not read; register one with polyops.register_backend(plugin) "
                "(e.g. import polyops_numpy; polyops.register_backend(polyops_numpy.plugin)) "
                "or unset the variable")
    if _allowed() is not None:
        return (f"no installed backend is allowed by POLYOPS_ALLOWED_BACKENDS="
                f"{os.environ['POLYOPS_ALLOWED_BACKENDS']!r}")
    return "no backend is installed; install one, e.g. pip install 'polyops[numpy]'"


def current() -> Backend:
    """The Backend in effect here: this context's choice, else the process default."""
    return _CURRENT.get() or _default_backend()


# -- public selection API ------------------------------------------------------------


def set_backend(name: str) -> None:
    """Select the backend by name, process-wide and in the current context.

    No module is reloaded; tensors created before stay valid.  Raises
    `BackendNotFoundError` (a ValueError) listing the installed backends and the
    pip extra to install when ``name`` is unknown.

    Example:
        >>> polyops.set_backend("jax")
    """
    backend = get_backend(name)
    with _LOCK:
        _set_default(backend)
    _CURRENT.set(backend)


@contextlib.contextmanager
def use_backend(name: str):
    """Use a backend inside a ``with`` block only; isolated per thread and asyncio task.

    Example:
        >>> with polyops.use_backend("torch"):
        ...     y = polyops.ops.add(1.0, 2.0)   # a torch tensor
    """
    token = _CURRENT.set(get_backend(name, caller="use_backend"))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def backend() -> str:
    """The name of the backend in effect, as ``keras.backend.backend()``."""
    return current().name


def available_backends() -> list[str]:
    """The names of the discovered backends (nothing is imported)."""
    return sorted(_discover())


def backends_report(load: bool = True) -> list[dict]:
    """One dict per discovered backend: name, distribution, version, status, error.

    With ``load=True`` each backend is loaded (its framework imported) so that
    broken ones show why.
    """
    rows = []
    for name, b in sorted(_discover().items()):
        if load and b.status == "not loaded":
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", PolyopsPluginWarning)
                    b.load()
            except BackendLoadError:
                pass
        rows.append(
            {
                "name": name,
                "distribution": b.distribution,
                "version": b.version,
                "framework": getattr(b, "framework_version", None),
                "status": b.status,
                "error": b.error,
            }
        )
    return rows


def problems() -> list[str]:
    """Messages about skipped or broken plugins seen so far."""
    _discover()
    return list(_PROBLEMS)


def _reset_for_tests() -> None:
    """Forget discovery and the default (test helper; loaded tables are dropped)."""
    global _BACKENDS
    with _LOCK:
        _BACKENDS = None
        _set_default(None)
        _EXTENSIONS.clear()
        _PROBLEMS.clear()
