"""The plugin contract: what a backend distribution provides, and helpers to provide it.

A backend is a distribution with an entry point in the group ``polyops.backends``::

    [project.entry-points."polyops.backends"]
    mybackend = "polyops_mybackend:plugin"

The entry point names an *import-light* plugin object (importing it must not
import the framework).  The object declares ``polyops_api_version`` and
implements the hooks below, as a pluggy plugin.  An entry point named
``<backend>.<extra>`` (``torch.fastconv``) does not define a backend: it
contributes kernels to an existing one, ordered by pluggy's tryfirst/trylast.

See docs/plugins.md for the whole guide.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import pluggy

API_VERSION = 1
"""The version of this contract.  A plugin declaring another one is not loaded."""

SUPPORTED_API_VERSIONS = frozenset({1})

from ._op import NonEmpty as NonEmpty  # noqa: E402,F401  (a kernel that takes no empty operand)
from ._op import SplitKernel as SplitKernel  # noqa: E402,F401  (a kernel with a fast variant)
from ._op import AnyDtype as AnyDtype  # noqa: E402,F401  (a kernel that converts operands itself)
from ._dtypes import numpy_dtype as numpy_dtype  # noqa: E402,F401  (bfloat16: ml_dtypes, lazily)


def nonempty(kernel):
    """Mark ``kernel`` as taking no zero-size operand: core answers those calls itself,
    from the op's rule (a zero-size result) or its declared ``empty`` fill (sum 0, det 1),
    so the kernel body is the math only.  Use it where the framework fails or differs
    on empty input; a runtime with ``empty_tensors=False`` marks every kernel."""
    return NonEmpty(kernel)


def any_dtype(kernel):
    """Mark ``kernel`` as taking operands of every dtype and converting them as the op's
    promotion would (``np.logical_and`` reads floats as truth values, as a cast to bool
    does): the fast paths then skip the cast, one framework call fewer.  The general entry
    still casts mixed dtypes first.  The op table checks the answers stay the same."""
    return AnyDtype(kernel)


hookspec = pluggy.HookspecMarker("polyops")
hookimpl = pluggy.HookimplMarker("polyops")


@dataclass(frozen=True)
class Runtime:
    """How core talks to a framework, beyond kernels.

    Attributes:
        name: the backend name.
        version: the framework's version string.
        tensor_types: the framework's tensor classes (isinstance checks; the
            first exact match also enables the eager fast path).
        dtypes: framework dtype object -> canonical dtype string, for every
            dtype the backend supports.  A dict subclass may learn a dtype late with
            ``__missing__`` (core looks it up that way before it rejects a dtype): the
            numpy plugin adds ml_dtypes' bfloat16 when it first meets one, so that
            importing ml_dtypes is paid only by users of bfloat16.
        convert_to_tensor: ``(value, dtype) -> tensor``; ``dtype`` is always a
            canonical string; ``value`` may be a native tensor (cast it), a numpy
            array, a Python scalar or nested list, or another framework's tensor.
        convert_to_numpy: ``tensor -> numpy.ndarray`` (bfloat16 as ml_dtypes).
        devices: optional ``() -> list[str]``.
        jvp: optional ``(fun, primals, tangents, has_aux) -> (primals_out, tangents_out[, aux])``
            through the framework's forward-mode autodiff (``primals``/``tangents`` are
            tuples of native tensors); None on backends that do not differentiate.
        value_and_grad: optional ``(fun, primals) -> ((loss, aux), grads)``: reverse-mode
            autodiff of ``fun(*primals) -> (loss, aux)`` (``loss`` a scalar float tensor,
            ``aux`` any structure, passed through) with respect to every primal (a tuple of
            float native tensors); ``grads`` a tuple, zeros for primals ``loss`` does not
            depend on.  None on backends that do not differentiate.
        custom_gradient: optional ``(f) -> g``: ``f(*args)`` returns ``(output, grad_fn)``
            and ``g`` computes ``output`` with ``grad_fn(upstream)`` (the cotangent of
            ``output``) giving the gradients of the tensor arguments.  None: ``g`` computes
            the output only (backends that do not differentiate).
        jit: optional ``(fun) -> compiled``: compile a *pure* function of native tensors
            (positional) returning a flat tuple of native tensors.  Core handles the rest:
            static arguments, the cache by signature, Variables (passed in and returned).
            A trace that needs tensor values raises `polyops.EagerOnlyError` (translated
            from the framework's error); core then runs the function eagerly after one
            JitFallbackWarning.  None: polyops.jit calls the function as it is (numpy).
        device_scope: optional ``(name) -> context manager`` placing new tensors on the
            device ``name`` (one of ``devices()``); None: a scope that does nothing.
        on_tape: optional ``tensor -> bool``: whether the framework's autodiff is recording
            operations on this tensor now (a torch tensor that requires grad under grad
            mode, a tensor a tf.GradientTape watches, a jax JVP tracer).  A host
            computation on such a tensor would cut it off the tape, so it raises
            `polyops.NotDifferentiableError` instead of giving zero gradients.  None on
            backends that do not differentiate.
        dtype_code: optional ``tensor -> hashable``, a cheaper read of a native tensor's
            dtype than ``tensor.dtype`` for the eager fast paths (TensorFlow's ``dtype`` is
            a Python property and ``tf.DType`` hashes in Python: ``EagerTensor._datatype_enum``
            costs a tenth); with it, ``dtype_codes`` maps each code to its canonical dtype.
        jit_signature: optional ``tensor -> hashable``, a cheaper read of a native tensor's
            shape and dtype together than ``(tensor.shape, tensor.dtype)``: `polyops.jit`
            keys its compiled signatures by it on every call (jax: ``Array.aval``, a
            tenth of the two properties).  It must tell apart what would trace differently:
            for a class that holds sparse and dense tensors, the layout too (core then adds
            nothing; without it core adds ``sparse.is_sparse(x)``).
        jit_retraces: whether the function ``jit`` returns traces and compiles again by
            itself for arguments of a new signature and keeps each (``jax.jit`` does).
            `polyops.jit` then hands it positional tensors of any shape and dtype without
            keying each call's signature itself (a third of its per-call Python on jax).
        set_x64: optional ``(enabled) -> None``, called when 64-bit mode
            (`polyops.config.enable_x64`) switches, and at load when it is on: for a framework
            with a 64-bit switch of its own (jax's ``jax_enable_x64``).  None: the framework
            keeps whatever dtype core asks for.
        distribution: optional: the backend's part of `polyops.distribution` (meshes,
            layouts, many devices and processes), a namespace (or the name of a module,
            imported on first use) with ``list_devices(device_type)``,
            ``initialize(job_addresses, num_processes, process_id)``, ``num_processes()``,
            ``process_id()``, ``to_backend_mesh(mesh)``, ``to_backend_layout(layout)``,
            ``distribute_tensor(x, backend_layout)``, ``distribute_data_input(x,
            backend_layout, batch_dim_name)`` and optionally ``distribute_variable`` (the
            contract: docs/distribution.md).  None: one device in one process; a mesh of
            more raises ValueError naming the backend.
        sparse: optional: the backend's sparse tensors, a namespace (or the name of a
            module, imported on first use) with ``types`` (the sparse classes, or a function
            returning them), ``to_dense``, ``from_dense``, ``values``, ``with_values``,
            ``sum_duplicates`` and ``kernels`` (``{op name: kernel}`` taking sparse operands;
            the contract: `polyops._sparse`, docs/sparse.md).  None: no sparse tensors;
            ``convert_to_tensor(x, sparse=True)`` raises ValueError naming the backend.
        empty_tensors: whether the framework computes on zero-size tensors.  False (an
            engine that rejects them, like OpenVINO's): core answers every call with a
            zero-size operand, as for kernels marked with `nonempty`.
    """

    name: str
    version: str
    tensor_types: tuple
    dtypes: Mapping[Any, str]
    convert_to_tensor: Callable[[Any, str], Any]
    convert_to_numpy: Callable[[Any], Any]
    devices: Callable[[], list] = field(default=lambda: ["cpu:0"])
    jvp: Callable | None = None
    value_and_grad: Callable | None = None
    custom_gradient: Callable | None = None
    jit: Callable | None = None
    device_scope: Callable | None = None
    dtype_code: Callable | None = None
    on_tape: Callable | None = None
    dtype_codes: Mapping[Any, str] | None = None
    jit_signature: Callable | None = None
    jit_retraces: bool = False
    empty_tensors: bool = True
    set_x64: Callable[[bool], None] | None = None
    distribution: Any = None
    sparse: Any = None


class BackendSpec:
    """The hook specifications.  Hook implementations take only the arguments they use."""

    @hookspec(firstresult=True)
    def polyops_runtime(self, backend: str) -> Runtime | None:  # type: ignore[empty-body]
        """Return the `Runtime` of ``backend`` if this plugin defines that backend, else None.

        Called once, when ``backend`` is first selected: import the framework here.
        """

    @hookspec
    def polyops_kernels(self, backend: str) -> Mapping[str, Callable] | None:  # type: ignore[empty-body]
        """Return ``{op name: kernel}`` that this plugin contributes to ``backend``, or None.

        A kernel takes the op's arguments positionally, in the public signature's
        order; tensor operands arrive as native tensors already promoted to the
        op's input dtypes.  Ops without a kernel fall back to core's reference.
        """


class LateBfloat16:
    """ml_dtypes' bfloat16 for a plugin whose tensors are numpy arrays, imported only when
    bfloat16 is first asked for or met (importing ml_dtypes takes about half a second).

    Until then `placeholder` stands for it: a numpy dtype that no array has, so that
    ``x.dtype == BF16`` is False.  `learn` imports ml_dtypes, calls each of ``on_learn``
    (functions of the dtype: the plugin adds it to its dtype tables; more may be appended)
    and replaces the placeholder, and each tuple or
    frozenset holding it, in every loaded module of ``package``.  Dtype tables whose
    ``__missing__`` calls `learn` (`names` and `dtypes`) learn it on first lookup.  It is
    learned at once if ml_dtypes is already loaded (jax, tensorflow or the user did).
    """

    def __init__(self, package: str, *on_learn: Callable[[Any], None]):
        import numpy as np

        self.package = package
        self.on_learn = list(on_learn)
        self.placeholder = np.dtype([("bfloat16, not loaded yet", np.uint16)])
        self.learned = False

    def learn(self):
        import sys

        if self.learned:
            return
        bf16 = numpy_dtype("bfloat16")  # imports ml_dtypes
        self.learned = True
        for fn in self.on_learn:
            fn(bf16)
        p = self.placeholder

        def swap(value):
            if value is p:
                return bf16
            if type(value) in (tuple, frozenset) and any(v is p for v in value):
                return type(value)(bf16 if v is p else v for v in value)
            return None

        for name, module in list(sys.modules.items()):
            if module is not None and (name == self.package or name.startswith(self.package + ".")):
                for attr, value in list(vars(module).items()):
                    new = swap(value)
                    if new is not None:
                        setattr(module, attr, new)

    def learn_if_loaded(self):
        import sys

        if "ml_dtypes" in sys.modules:
            self.learn()

    def names(self, pairs):
        """canonical name -> numpy dtype, learning bfloat16 on first lookup."""
        return _LateNames(pairs, self)

    def dtypes(self, pairs):
        """numpy dtype -> canonical name (a `Runtime.dtypes`), learning bfloat16 when it
        meets an ml_dtypes bfloat16 array's dtype."""
        return _LateDtypes(pairs, self)


class _LateNames(dict):
    def __init__(self, pairs, late):
        super().__init__(pairs)
        self._late = late

    def __missing__(self, name):
        if name != "bfloat16" or self._late.learned:
            raise KeyError(name)
        self._late.learn()
        return self[name]


class _LateDtypes(dict):
    def __init__(self, pairs, late):
        super().__init__(pairs)
        self._late = late

    def __missing__(self, dtype):
        if (getattr(dtype, "kind", None) != "V" or getattr(dtype, "name", None) != "bfloat16"
                or self._late.learned):
            raise KeyError(dtype)
        self._late.learn()
        return self[dtype]


def kernels_from(*modules, ops: Mapping | None = None) -> dict[str, Callable]:
    """Collect the kernels of plugin family modules: public attributes named after ops.

    Each module (``numpy.py``, ``nn.py``, ``core.py``...) or family package (``numpy/``,
    whose public submodules are read too) defines functions named after the ops they
    implement (``def sum(x, axis, keepdims)``) or binds them (``add = np.add``).  Names starting with ``_`` and names that are not
    ops of that module's family are ignored.
    """
    if ops is None:  # (the index: defining the ops is not needed to collect their kernels)
        from .ops import _lazy

        def family_of(name):
            module = _lazy.module_of(name)
            return None if module is None else module.split(".")[0]
    else:
        def family_of(name):
            op = ops.get(name)
            return None if op is None else op.family
    found: dict[str, Callable] = {}
    for module in modules:
        family = module.__name__.rsplit(".", 1)[-1]
        for part in _parts(module):
            for name, value in vars(part).items():
                if callable(value) and not name.startswith("_") and family_of(name) == family:
                    found[name] = value
    return found


def _parts(module) -> list:
    """``module``, or for a family package (``numpy/`` with ``base.py``, ``elementwise.py``...
    mirroring core's submodules) the package and its public submodules."""
    if not hasattr(module, "__path__"):
        return [module]
    import pkgutil

    return [module] + [importlib.import_module(f"{module.__name__}.{info.name}")
                       for info in pkgutil.iter_modules(module.__path__)
                       if not info.name.startswith("_")]


class BackendPlugin:
    """The standard plugin object: every first-party plugin is one of these.

    Args:
        name: the backend name (the entry point's name).
        package: the plugin's import package; its ``core`` module defines
            ``RUNTIME`` and its family modules define kernels.
        families: the family modules to collect kernels from.
    """

    polyops_api_version = API_VERSION

    def __init__(self, name: str, package: str,
                 families=("core", "numpy", "nn", "math", "linalg", "image", "random")):
        self.name = name
        self.package = package
        self.families = families

    def _module(self, family):
        try:
            return importlib.import_module(f"{self.package}.{family}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{self.package}.{family}":
                return None
            raise

    @hookimpl
    def polyops_runtime(self, backend: str):
        if backend != self.name:
            return None
        return self._module("core").RUNTIME

    @hookimpl
    def polyops_kernels(self, backend: str):
        if backend != self.name:
            return None
        return kernels_from(*(m for m in map(self._module, self.families) if m is not None))

    def __repr__(self):
        return f"<polyops backend plugin {self.name!r} ({self.package})>"


def private(path: str, default: Any = None) -> Any:
    """A framework's private attribute, ``"module:attr.attr"``, or ``default`` when it is missing.

    Plugins reach private framework APIs only through this, from their ``_compat.py``
    (which lists every path it reads in ``PRIVATE``) and keep a public-API fallback for
    ``default``: a framework release that moves the attribute then costs speed, not
    correctness.  The environment variable ``POLYOPS_HIDE_PRIVATE`` (comma-separated
    paths, or ``all``) hides attributes as if they were missing; tests/test_compat.py
    runs every plugin with all of them hidden.
    """
    import os

    hidden = os.environ.get("POLYOPS_HIDE_PRIVATE", "")
    if hidden and (hidden == "all" or path in hidden.split(",")):
        return default
    module, _, attrs = path.partition(":")
    try:
        value = importlib.import_module(module)
    except ImportError:
        return default
    for attr in attrs.split(".") if attrs else ():
        value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return default
    return value


_MISSING = object()


# ----- helpers for kernel authors ------------------------------------------------------
# Static computations (on shapes and static arguments, never on tensor data) that core's
# references use and that native kernels need too, so every backend agrees with them.


def reference(name: str) -> Callable | None:
    """Core's reference implementation of op ``name`` (None for a primitive).

    A kernel may fall back to it for inputs its framework does not cover (a rare dtype
    or mode); it takes the kernel's positional arguments and runs on the current backend.
    """
    from ._op import get_op

    return get_op(name).ref


def pad_index(n: int, before: int, after: int, mode: str):
    """NumPy's source indices (an int64 ``numpy.ndarray``) of an axis of size ``n`` padded
    by ``(before, after)`` in one of ``np.pad``'s index modes: "edge", "wrap", "reflect" or
    "symmetric".  Gathering them along the axis is the padding."""
    import numpy as np

    q = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(q, 0, n - 1)
    if mode == "wrap":
        return q % n
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(q)
        m = q % (2 * (n - 1))
        return np.where(m < n, m, 2 * (n - 1) - m)
    if mode != "symmetric":
        raise ValueError(f"pad_index: expected mode edge, wrap, reflect or symmetric, got {mode!r}")
    m = q % (2 * n)
    return np.where(m < n, m, 2 * n - 1 - m)


def quantile_plan(counts, q: float, method: str, int_q: bool = False):
    """NumPy's interpolation plan of quantile ``q`` over sorted samples of sizes ``counts``
    (an int64 ``numpy.ndarray``): ``(prev, next, gamma)``, int64 index arrays into each
    sorted sample (NaNs sorted last) and float64 weights (None: take ``prev`` as is).
    ``method`` is one of linear, lower, higher, midpoint, nearest; ``int_q`` says ``q``
    came as an integer percentage-free value (quantile's integer fast path)."""
    from .ops.numpy.statistics import _virtual_indexes

    return _virtual_indexes(counts, q, method, int_q)


def _sign_columns(v):
    """The signs (+-1, shape (..., k)) that make each column's largest-|entry| positive:
    the first entry within a relative 1e-3 of the largest, so that rounding noise between
    backends cannot pick another entry on a (near) tie."""
    import numpy as np

    if v.shape[-2] == 0:
        return np.ones(v.shape[:-2] + v.shape[-1:], v.dtype)
    a = np.abs(v)
    idx = np.argmax(a >= a.max(axis=-2, keepdims=True) * (1 - 1e-3), axis=-2)[..., None, :]
    sign = np.sign(np.take_along_axis(v, idx, -2))[..., 0, :]
    return np.where(sign == 0, 1, sign).astype(v.dtype)


def canonical_svd(u, s, vh):
    """``np.linalg.svd``'s ``(u, s, vh)`` in polyops's sign convention: each column of ``u``
    has its entry of largest magnitude positive (the first within a relative 1e-3 of the
    largest), and ``vh``'s matching row flips with it
    (``u @ diag(s) @ vh`` is unchanged); the columns of ``u`` and rows of ``vh`` beyond
    ``min(m, n)`` (``full_matrices``) are normalised on their own.  numpy arrays in and out."""
    import numpy as np

    k = s.shape[-1]
    u, vh = np.array(u, copy=True), np.array(vh, copy=True)
    sign = _sign_columns(u[..., :, :k])
    u[..., :, :k] *= sign[..., None, :]
    vh[..., :k, :] *= sign[..., :, None]
    if u.shape[-1] > k:
        u[..., :, k:] *= _sign_columns(u[..., :, k:])[..., None, :]
    if vh.shape[-2] > k:
        vh[..., k:, :] *= _sign_columns(np.swapaxes(vh[..., k:, :], -1, -2))[..., :, None]
    return u, s, vh


def canonical_eigh(w, v):
    """``np.linalg.eigh``'s ``(w, v)`` with each eigenvector (column of ``v``) having its
    entry of largest magnitude positive.  numpy arrays in and out."""
    return w, v * _sign_columns(v)[..., None, :]


def eig_vectors_error(backend: str) -> Exception:
    """The error a kernel's eig gradient raises when the loss depends on the eigenvectors:
    each is unique only up to a complex phase, so polyops differentiates the eigenvalues
    only (as ``jax.numpy.linalg.eig``), the same on every backend."""
    from ._op import NotDifferentiableError

    return NotDifferentiableError(
        f"eig: expected a loss of the eigenvalues only, got a gradient through the "
        f"eigenvectors on the {backend} backend; eigenvectors are unique only up to a "
        f"complex phase, so polyops differentiates eig's eigenvalues only")


def error_chain(exc: BaseException):
    """``exc`` and each error it came from (``__cause__``, else ``__context__``), once each:
    for a jit hook that asks whether a framework error anywhere in the chain means "the
    trace needs tensor values" (kernels wrap framework errors in KernelError).  A chain
    that loops back stops there."""
    seen: list = []
    while exc is not None and not any(exc is e for e in seen):
        seen.append(exc)
        yield exc
        exc = exc.__cause__ or exc.__context__


def same_padding(n: int, k: int, stride: int, dilation: int) -> tuple[int, int]:
    """TF's (and Keras's) "same" padding of one spatial dim of size ``n`` for a window of
    ``k`` taps: ``(before, after)``, the odd extra after."""
    from .ops.nn.conv import _same_pads

    return _same_pads(n, k, stride, dilation)


def conv_transpose_padding(k: int, stride: int, dilation: int, padding: str, output_padding):
    """Keras's ``(before, after)`` padding of the stride-dilated input of a transposed conv
    (JAX's convention) for one spatial dim; ``output_padding`` an int or None."""
    from .ops.nn.conv import _tr_pads

    return _tr_pads(k, stride, dilation, padding, output_padding)


def conv_transpose_size(n: int, k: int, stride: int, dilation: int, padding: str, output_padding):
    """Keras's output size of a transposed conv along one spatial dim of size ``n``."""
    from .ops.nn.conv import _tr_size

    return _tr_size(n, k, stride, dilation, padding, output_padding)


def average_pool_counts(spatial, pool, strides, outs, pads):
    """float32 ``(1, *outs, 1)``: the non-padded elements under each average-pool window
    (TF's "same" average divides by these)."""
    from .ops.nn.conv import _avg_counts

    return _avg_counts(spatial, pool, strides, outs, pads)


def erf_polynomials() -> dict[str, tuple]:
    """The polynomial coefficients (highest degree first) core's references use for erf,
    erfc and erfinv in float32, so a kernel built from the same polynomials matches them:
    ``"erf"`` (Cephes erff: erf(x) = x T(x^2), |x| < 1), ``"erfc_p"``/``"erfc_r"``
    (erfc(x) = exp(-x^2)/x P(1/x^2) for 1 <= x < 2, R(1/x^2) beyond),
    ``"erfinv_central"``/``"erfinv_tail"`` (Giles 2011, in w - 2.5 and sqrt(w) - 3)."""
    from .ops.math import functions as f

    return {"erf": f._ERF_T, "erfc_p": f._ERFC_P, "erfc_r": f._ERFC_R,
            "erfinv_central": f._ERFINV_CENTRAL, "erfinv_tail": f._ERFINV_TAIL}


def static_starts(start_indices):
    """The ``start_indices`` of slice/slice_update as Python ints (a list or tuple of ints,
    or an integer numpy array), or None when any is a tensor: the kernel then slices with
    the framework's dynamic-slice op."""
    from .ops.core.tensors import _static_starts

    return _static_starts(start_indices)


# ----- helpers for control-flow kernels and compilers ------------------------------------


def tree_flatten(tree):
    """``(leaves, treedef)`` of a nested structure of lists, tuples, namedtuples and dicts
    (dicts in sorted key order; everything else, None included, is a leaf)."""
    from ._tree import flatten

    return flatten(tree)


def tree_unflatten(treedef, leaves):
    """The structure ``treedef`` (from `tree_flatten`) describes, with ``leaves``."""
    from ._tree import unflatten

    return unflatten(treedef, leaves)


def tree_map(fn, tree, *rest):
    """``fn`` applied leaf by leaf to ``tree`` and the same-shaped ``rest``."""
    from ._tree import map_structure

    return map_structure(fn, tree, *rest)


def state_scope():
    """The `polyops.jit` trace's state, or None outside one: ``.values`` maps each Variable
    the trace has read or assigned to its current (traced) value.  A kernel that traces
    several branches of which one runs (cond, switch) snapshots and restores ``.values``
    around each branch and merges the assignments itself."""
    from ._state import _SCOPE

    return _SCOPE.get()


def trace_discarded() -> bool:
    """Whether the `polyops.jit` trace that just ran read Variables it was not given: core
    traces the function again with them, so a compiler need not compile this trace."""
    from ._transforms import _MISSING

    return bool(_MISSING.get())
