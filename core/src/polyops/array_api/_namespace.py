"""The namespace object of one backend, and the context its functions share.

`namespace(name)` builds, once per backend, a module object holding the standard's
functions, dtypes, constants and extensions.  Every function unwraps its `Array`
arguments to the backend's tensors, calls `polyops.ops` with that backend in effect
and in 64-bit mode (`Context.run`), and wraps the result: the same op records and
kernels as ``polyops.ops``, never a second implementation.
"""

from __future__ import annotations

import math
import threading
import types
import warnings

import numpy as np

from .. import _registry
from .. import config as _config
from ._array import Array, Device, install_operators
from ._dtypes import DTYPES

API_VERSION = "2024.12"
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

_LOCK = threading.Lock()
_NAMESPACES: dict[str, types.ModuleType] = {}

# the dtypes a namespace gets when its backend has them all (openvino has no complex)
_STANDARD = tuple(DTYPES)


class Context:
    """What the functions of one backend's namespace share: the backend, its Array class,
    `run` (a call with the backend in effect, in 64-bit mode), wrap/unwrap helpers and
    the default dtypes."""

    def __init__(self, name: str):
        self.name = name
        self.backend = _registry.get_backend(name)
        self.rt = self.backend.runtime
        supported = set(self.rt.dtypes.values())
        self.dtypes = tuple(d for d in _STANDARD if d in supported)
        self.complex = "complex64" in supported
        # OpenVINO's CPU plugin computes float64 in float32 and int64 in 32 bits
        # (docs/numerics.md): its namespace defaults to the 32-bit dtypes it computes in
        narrow = name == "openvino"
        self.default_int = "int32" if narrow else "int64"
        self.default_uint = "uint32" if narrow else "uint64"
        self.default_float = "float32" if narrow else "float64"
        self.default_complex = "complex128" if self.complex else None
        self.device = Device(self.rt.devices()[0], name)
        self.run = _make_run(self.backend)
        # The namespace turns 64-bit mode on for each call (`run`); openvino's plugin warns
        # once when that mode first meets it.  Its namespace says what it computes in (the
        # 32-bit defaults, docs/array_api.md): the warning is spent here, silenced.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self.run(lambda: None)
        self.A = type("Array", (Array,), {"__slots__": (), "_ctx": self,
                                          "__module__": "polyops.array_api"})
        self.ns: types.ModuleType | None = None
        native = self.rt.tensor_types
        host = native[0] is np.ndarray  # numpy and openvino: results may be numpy scalars
        A = self.A
        if host:
            ndarray = np.ndarray

            def wrap(t):
                if type(t) is not ndarray:
                    t = np.asarray(t)
                return A(t)
        else:
            wrap = A
        self.wrap = wrap

    # -- operands --------------------------------------------------------------------
    def un(self, x, op: str, name: str = "x"):
        """The backend tensor of an Array argument (TypeError for anything else)."""
        if type(x) is self.A:
            return x._t
        raise self.not_array(x, op, name)

    def not_array(self, x, op, name="x"):
        if isinstance(x, Array):
            return TypeError(f"{op}: expected an array of the {self.name} namespace for "
                             f"{name!r}, got one of the {x._ctx.name} namespace")
        return TypeError(f"{op}: expected an array for {name!r}, got {type(x).__name__}")

    def operand(self, x, op: str, name: str):
        """An elementwise operand: the tensor of an Array, or a Python scalar as it is."""
        if type(x) is self.A:
            return x._t
        if type(x) in (bool, int, float, complex):
            return x
        raise self.not_array(x, op, name)

    def dtype_of(self, t) -> str:
        """The canonical dtype of a backend tensor."""
        return self.dtype_name(t.dtype)

    def dtype_name(self, native) -> str:
        rt = self.rt
        name = rt.dtypes.get(native)
        if name is None:
            from .. import _dtypes

            name = _dtypes.standardize_dtype(native)
        return name

    def shape_of(self, t) -> tuple:
        return tuple(t.shape)

    def wrap_all(self, ts):
        return tuple(self.wrap(t) for t in ts)

    def check_device(self, device, op: str):
        """Check a ``device=`` argument: None, a Device of this namespace, or its name."""
        if device is None or device == self.device:
            return
        if isinstance(device, str) and device in self.rt.devices():
            return
        raise ValueError(f"{op}: expected device=None or {self.device!r}, got {device!r}")

    def size(self, shape) -> int:
        return math.prod(shape)

    def complex_kernel(self, op: str, name: str):
        """The backend's native kernel of ``op``, for complex operands that the op's
        promotion rejects: the kernel (np.arccos, torch.acos, jnp.arccos, tf.math.acos...)
        computes them, with the framework's complex semantics."""
        from .._op import NonEmpty, SplitKernel

        kernel = self.backend._kernels.get(op)
        if isinstance(kernel, NonEmpty):
            kernel = kernel.kernel
        if isinstance(kernel, SplitKernel):
            kernel = kernel.general
        if kernel is None:
            raise TypeError(f"{name}: complex arrays need a native {op} kernel; the "
                            f"{self.name} backend has none")
        return kernel

    def reducer(self, name: str, op, doc: str | None = None):
        """``name(x, /, *, axis=None, keepdims=False)``: ``op(tensor, axes, keepdims)`` with
        the standard's axis checks (``all``, ``any``, ``max``, ``min``, ``mean``)."""
        from ._manipulation import norm_axes

        un, run, wrap = self.un, self.run, self.wrap

        def fn(x, /, *, axis=None, keepdims=False):
            t = un(x, name)
            return wrap(run(op, t, norm_axes(axis, len(t.shape), name), keepdims))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc or f"Array API ``{name}``: ``polyops.ops.{name}``."
        return fn

    def join(self, re, im):
        """A complex tensor from its real and imaginary parts (``ops`` calls)."""
        from .. import ops

        if self.dtype_of(re) != "float64":  # ops.view_as_complex is always complex64
            return ops.view_as_complex(ops.stack([re, im], -1))
        return ops.add(ops.cast(re, "complex128"), ops.multiply(ops.cast(im, "complex128"), 1j))


class _Mode:
    """64-bit mode for namespace calls.  polyops' mode is process-wide: the first call in
    flight turns it on (unless the user had), the last one out turns it off again, so
    concurrent calls from several threads all run in it.  (Other polyops code running at
    that moment sees 64-bit mode too: docs/array_api.md.)"""

    active = 0  # namespace calls in flight that needed the mode turned on
    turned_on = False
    lock = threading.Lock()

    @classmethod
    def enter(cls):
        with cls.lock:
            cls.active += 1
            if cls.active == 1 and not _config._X64:
                _config._set_x64(True)
                cls.turned_on = True

    @classmethod
    def exit(cls):
        with cls.lock:
            cls.active -= 1
            if cls.active == 0 and cls.turned_on:
                cls.turned_on = False
                _config._set_x64(False)


def _make_run(backend):
    current = _registry._CURRENT
    config = _config
    mode = _Mode

    def run(fn, *args):
        """``fn(*args)`` with ``backend`` in effect and 64-bit mode on."""
        token = current.set(backend)
        try:
            if config._X64 and not mode.turned_on:  # the user's own 64-bit mode: as it is
                return fn(*args)
            mode.enter()
            try:
                return fn(*args)
            finally:
                mode.exit()
        finally:
            current.reset(token)

    return run


def namespace(backend: str) -> types.ModuleType:
    """The Array API 2024.12 namespace of a polyops backend (built once, then cached).

    Its functions run the ``polyops.ops`` of that backend (in 64-bit mode) on `Array`
    objects that wrap the backend's tensors; ``linalg`` and ``fft`` are its extensions.

    Raises:
        BackendNotFoundError: ``backend`` is not installed.

    Example:
        >>> xp = polyops.array_api.namespace("numpy")
        >>> xp.sum(xp.asarray([1, 2, 3]))
        Array(6, dtype=polyops.array_api.int64)
    """
    ns = _NAMESPACES.get(backend)
    if ns is not None:
        return ns
    if not isinstance(backend, str):
        raise TypeError(f"namespace: expected a backend name (str), got {backend!r}")
    with _LOCK:
        ns = _NAMESPACES.get(backend)
        if ns is None:
            ns = _NAMESPACES[backend] = _build(Context(backend))
    return ns


def _build(c: Context) -> types.ModuleType:
    from . import _creation, _elementwise, _fft, _info, _linalg, _manipulation, _statistics

    ns = types.ModuleType(f"polyops.array_api.{c.name}")
    ns.__doc__ = (f"The Array API {API_VERSION} namespace of the polyops {c.name} backend "
                  "(`polyops.array_api.namespace`).")
    c.ns = ns
    # The standard requires complex dtypes since 2022.12: a backend without them (openvino)
    # conforms to 2021.12.  Its namespace still names complex64 and complex128 (creating
    # such an array raises TypeError naming the backend); its info's dtypes() omits them.
    ns.__array_api_version__ = API_VERSION if c.complex else "2021.12"
    ns.__version__ = _version()
    for name in _STANDARD:
        setattr(ns, name, DTYPES[name])
    ns.e, ns.inf, ns.nan, ns.pi, ns.newaxis = math.e, math.inf, math.nan, math.pi, None
    for family in (_elementwise, _creation, _manipulation, _statistics, _info):
        family.install(ns, c)
    ns.linalg = _linalg.extension(ns, c)
    if c.complex:  # the FFTs return complex arrays
        ns.fft = _fft.extension(ns, c)
    c.A._dt = {native: DTYPES[name] for native, name in c.rt.dtypes.items() if name in c.dtypes}
    install_operators(c.A, ns)
    ns.Array = c.A
    return ns


def _version() -> str:
    from .. import __version__

    return __version__
