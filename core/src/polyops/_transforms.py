"""Function transformations on the current backend: `jit`, `grad`, `value_and_grad`, and
the device scope.

Core does what is the same everywhere (static arguments, the compile cache, Variables,
argument structures); each backend's `Runtime` supplies only the framework call
(``Runtime.jit``, ``Runtime.value_and_grad``, ``Runtime.device_scope``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import operator
import os

from . import _sparse, _tree, config
from ._op import EagerOnlyError
from ._state import _SCOPE, StateScope, Variable

_JIT_OFF: contextvars.ContextVar = contextvars.ContextVar(
    "polyops_jit_off", default=bool(os.environ.get("POLYOPS_DISABLE_JIT")))
_DIFFERENTIATING = ("jax", "tensorflow", "torch")


class JitFallbackWarning(UserWarning):
    """`polyops.jit` could not compile a function on this backend (it needs tensor values
    while tracing, or the compiler rejected it): the function runs eagerly instead."""


# The one policy for a function that cannot be compiled, the same on every backend: the
# backend's jit hook raises `EagerOnlyError` when the trace needs tensor values (each plugin
# translates its framework's errors: jax's ConcretizationTypeError, a bool() of a tf graph
# tensor, a data-dependent torch guard, an OpenVINO TracedValueError); core then warns once
# and runs that signature eagerly on every call.  A fallback rather than an error because
# results stay right and the function keeps working on every backend; the warning says why
# it is slow.


def _runtime():
    global _runtime
    from ._registry import current

    _runtime = current  # (bound on first use: _registry imports this module)
    return current()


class _Entry:
    """One compiled signature: the compiled pure function and the Variables it threads."""

    __slots__ = ("compiled", "variables", "out_tree", "out_leaves", "out_static", "backend",
                 "eager", "single", "finish", "stale", "shape", "first", "varying")

    def __init__(self, backend):
        self.backend = backend
        self.compiled = None
        self.eager = False  # the trace needed tensor values: this signature runs eagerly
        self.variables: list = []
        self.out_tree = None
        self.out_leaves = 0
        self.out_static: dict = {}
        # the compiled function returns the result itself (one tensor out, no Variables, a
        # retracing runtime's: jax.jit builds no tuple); else ``finish`` turns its flat
        # outputs into the result (`Jitted._outputs`, or less)
        self.single = False
        self.finish = None
        self.stale: list = []  # Variables a trace outside __call__'s watch read, not given
        # A runtime that retraces by itself (`Runtime.jit_retraces`) serves several
        # signatures from one entry: ``shape`` is what their traces must agree on (output
        # structure, static outputs, Variables), ``first`` the first trace's result fields
        # (_RESULT), ``varying`` that a later trace did not agree.
        self.shape = None
        self.first = None
        self.varying = False

    def split(self):
        """A new entry for the signature just traced, sharing the compiled function, with
        this trace's result fields; this entry gets its first trace's back."""
        new = _Entry(self.backend)
        new.compiled, new.variables = self.compiled, list(self.variables)
        for name, value in zip(_RESULT, [getattr(self, n) for n in _RESULT]):
            setattr(new, name, value)
        new.finish = _finisher(new)
        self.restore()
        return new

    def restore(self):
        for name, value in zip(_RESULT, self.first):
            setattr(self, name, value)
        self.varying, self.stale = False, []


_RESULT = ("out_tree", "out_leaves", "out_static", "single", "finish", "shape")

# the treedef of a flat tuple of n leaves (`_tree.flatten` of positional tensors)
_FLAT = [(tuple,) + (_tree.LEAF,) * n for n in range(17)]


_shape_dtype = operator.attrgetter("shape", "dtype")  # (the signature's default: no frame)


class Jitted:
    """A function compiled per input signature on the current backend (see `jit`).

    Attributes:
        traces: how many times the Python function has been traced (compiled).
    """

    def __init__(self, fn, static_argnums=(), static_argnames=()):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.static_argnums = frozenset(
            (static_argnums,) if isinstance(static_argnums, int) else static_argnums or ())
        self.static_argnames = frozenset(
            (static_argnames,) if isinstance(static_argnames, str) else static_argnames or ())
        self.traces = 0
        self._cache: dict = {}
        self._variables: list = []  # every Variable a trace has read: new signatures pass them
        # the last runtime's signing (see `_signing`), kept here: one identity test per call
        self._rt = self._exact = self._shared = self._contract = self._sign = None
        self._direct: dict = {}  # (backend, n args, floatx, x64) -> its shared _Entry
        self._undirected: set = set()  # keys whose traces varied: keyed per signature

    def cache_size(self) -> int:
        """How many signatures have been compiled."""
        return len(self._cache)

    def __get__(self, obj, objtype=None):  # usable as a method decorator
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        backend = _runtime()
        rt = backend.runtime
        if rt.jit is None or _JIT_OFF.get() or _SCOPE.get() is not None:
            # numpy, jit turned off, or inside another polyops.jit trace: run as is
            return self.fn(*args, **kwargs)
        if self._rt is not rt:
            self._exact, self._shared, self._contract = _signing(rt)
            self._sign = rt.jit_signature or _shape_dtype
            self._rt = rt
        exact, shared, c, sign = self._exact, self._shared, self._contract, self._sign
        direct = None
        if not kwargs and len(args) <= 16 and not self.static_argnums:
            # the common call: positional tensors only
            for x in args:
                if type(x) not in exact:
                    break
            else:
                if rt.jit_retraces:
                    # the compiled function keys signatures itself (jax.jit): hand it these
                    direct = (backend.name, len(args), config._FLOATX, config._X64)
                    entry = self._direct.get(direct)
                    if entry is not None:
                        out = self._call_direct(entry, direct, None, args)
                        if out is not _AGAIN:
                            return out
                else:
                    entry = self._cache.get(self._tensor_key(None, backend, args))
                    if entry is not None and entry.compiled is not None:
                        try:
                            flat = entry.compiled(*[v._value for v in entry.variables], *args) \
                                if entry.variables else entry.compiled(*args)
                        except EagerOnlyError:
                            flat = None  # (a retrace that needs values: said below)
                        if flat is not None and not entry.stale:
                            return flat if entry.single else entry.finish(flat)
                        self._forget(entry)
        if self.static_argnums or self.static_argnames or kwargs:
            static_args = tuple(a for i, a in enumerate(args) if i in self.static_argnums)
            static_kw = tuple(sorted((k, v) for k, v in kwargs.items() if k in self.static_argnames))
            dyn_args = tuple(None if i in self.static_argnums else a for i, a in enumerate(args))
            dyn_kw = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
            leaves, treedef = _tree.flatten((dyn_args, dyn_kw))
        else:  # the common call: positional arguments only
            static_args = static_kw = ()
            leaves, treedef = _tree.flatten(args)
        # the signature: each tensor leaf's (type, shape, dtype), each other leaf's value;
        # floatx and 64-bit mode change what a trace computes; a class holding sparse and
        # dense tensors (torch's) adds which this one is
        key = [backend.name, treedef, static_args, static_kw, config._FLOATX, config._X64]
        if rt.jit_retraces and direct is None:
            # nested tensors only (parameters in lists): one compiled function per structure
            # and static arguments, as for flat positional tensors above
            for x in leaves:
                if type(x) not in exact:
                    break
            else:
                try:
                    direct = tuple(key)
                    entry = self._direct.get(direct)
                except TypeError:  # (unhashable static arguments: said below)
                    direct = entry = None
                if entry is not None:
                    out = self._call_direct(entry, direct, key, leaves)
                    if out is not _AGAIN:
                        return out
        dynamic = []
        for i, x in enumerate(leaves):
            t = type(x)
            if t in exact:
                dynamic.append(x)
                key.append((t, sign(x), c.is_sparse(x)) if t in shared else (t, sign(x)))
            else:
                x = _leaf(x, i, rt, key)
                if x is not _STATIC:
                    leaves[i] = x
                    dynamic.append(x)
        key = tuple(key)
        try:
            entry = self._cache.get(key)
        except TypeError as exc:
            raise TypeError(f"jit: static arguments must be hashable: {exc}") from None
        if entry is None:
            entry = self._cache[key] = _Entry(backend)
            entry.variables = list(self._variables)
        if entry.eager:
            return self._eager(leaves, treedef, args, kwargs)
        while True:
            box = []  # a trace in this call reports the Variables it read but was not given
            token = _MISSING.set(box)
            try:
                if entry.compiled is None:
                    entry.compiled = rt.jit(self._pure(entry, leaves, treedef, args, kwargs))
                variables = entry.variables
                flat = entry.compiled(*[v._value for v in variables], *dynamic) if variables \
                    else entry.compiled(*dynamic)
            except EagerOnlyError as exc:
                _fall_back(self, entry, exc)
                return self._eager(leaves, treedef, args, kwargs)
            finally:
                _MISSING.reset(token)
            if box and box[0] or entry.stale:
                # the trace read Variables it did not receive: trace again with them
                entry.stale.extend(box[0] if box else ())
                self._forget(entry)
                continue
            break
        if direct is not None and direct not in self._undirected:
            self._direct.setdefault(direct, entry)  # later signatures: `_call_direct`
        if entry.single:
            return flat  # (one tensor out: the common call, nothing else to do)
        return entry.finish(flat)

    def _tensor_key(self, prefix, backend, tensors):
        """The key the general path of `__call__` builds where every leaf is a tensor of
        the backend's exact classes: ``prefix`` (None: that of flat positional tensors, the
        treedef of a flat tuple) and each tensor's part."""
        shared, c, sign = self._shared, self._contract, self._sign
        key = list(prefix) if prefix is not None else \
            [backend.name, _FLAT[len(tensors)], (), (), config._FLOATX, config._X64]
        for x in tensors:
            t = type(x)
            key.append((t, sign(x), c.is_sparse(x)) if t in shared else (t, sign(x)))
        return tuple(key)

    def _call_direct(self, entry, direct, prefix, args):
        """Call a retracing runtime's compiled function, shared by every signature of
        ``direct`` (a new one is traced by the framework and keyed here, as the general
        path would, from ``prefix``: see `_tensor_key`).  `_AGAIN`: the general path must
        take this call, because its trace needs values or read Variables it was not
        given.  A trace whose result differs from the first one's gets an entry of its
        own.  Either ends the sharing."""
        traces = self.traces
        try:
            flat = entry.compiled(*[v._value for v in entry.variables], *args) \
                if entry.variables else entry.compiled(*args)
        except EagerOnlyError:
            flat = _AGAIN
        if self.traces == traces and flat is not _AGAIN:
            return flat if entry.single else entry.finish(flat)
        if flat is not _AGAIN and not entry.stale and not entry.varying:
            # one more signature of this entry
            self._cache[self._tensor_key(prefix, entry.backend, args)] = entry
            return flat if entry.single else entry.finish(flat)
        del self._direct[direct]
        self._undirected.add(direct)
        self._variables.extend(v for v in entry.stale if v not in self._variables)
        if flat is _AGAIN or entry.stale:
            entry.restore()  # (this signature: traced again by the general path)
            return _AGAIN
        own = self._cache[self._tensor_key(prefix, entry.backend, args)] = entry.split()
        return flat if own.single else own.finish(flat)

    def _forget(self, entry):
        """Drop ``entry``'s compiled function: its trace read the Variables in
        ``entry.stale`` without receiving them, so the next call traces with them."""
        missing, entry.stale = entry.stale, []
        entry.variables.extend(v for v in missing if v not in entry.variables)
        self._variables.extend(v for v in missing if v not in self._variables)
        entry.compiled = entry.first = None  # (the next compiled function starts afresh)
        entry.varying = False

    @staticmethod
    def _outputs(entry, flat):
        """The function's result from the compiled function's flat outputs: the new
        Variable values written back, static outputs put back, the structure rebuilt."""
        n = len(entry.variables)
        if n:
            for v, new in zip(entry.variables, flat[:n]):
                v._value = new
            flat = flat[n:]
        if entry.out_static:
            outs = iter(flat)
            flat = [entry.out_static[i] if i in entry.out_static else next(outs)
                    for i in range(entry.out_leaves)]
        return _tree.unflatten(entry.out_tree, flat)

    def _call_args(self, treedef, leaves, args, kwargs):
        """``fn``'s (positional, keyword) arguments from the flat ``leaves``, with the
        static arguments of this call put back."""
        if not (self.static_argnums or self.static_argnames or kwargs):
            return _tree.unflatten(treedef, leaves), {}
        dyn_args, dyn_kw = _tree.unflatten(treedef, leaves)
        return ([args[i] if i in self.static_argnums else a for i, a in enumerate(dyn_args)],
                {**kwargs, **dyn_kw})

    def _eager(self, leaves, treedef, args, kwargs):
        """The function run as it is, on the arguments the compiled one would get (arrays
        converted to tensors), so both give the same result."""
        call_args, call_kw = self._call_args(treedef, leaves, args, kwargs)
        return self.fn(*call_args, **call_kw)

    def _pure(self, entry, leaves, treedef, args, kwargs):
        """The function the backend compiles: (variable values, dynamic leaves) -> flat
        (new variable values, dynamic outputs); static leaves are closed over."""
        native = entry.backend.runtime.tensor_types
        name = entry.backend.name
        dyn_pos = [i for i, x in enumerate(leaves)
                   if isinstance(x, native) or _sparse.owner(x) == name]
        fn = self.fn

        def pure(*flat):
            from .ops import core

            variables = list(entry.variables)
            n = len(variables)
            filled = list(leaves)
            for i, v in zip(dyn_pos, flat[n:]):
                filled[i] = v
            call_args, call_kw = self._call_args(treedef, filled, args, kwargs)
            scope = StateScope(dict(zip(variables, flat[:n])))
            token = _SCOPE.set(scope)
            try:
                out = fn(*call_args, **call_kw)
            finally:
                _SCOPE.reset(token)
            self.traces += 1
            if scope.missing:
                box = _MISSING.get()
                if box is not None:
                    box.append(scope.missing)
                else:  # a retrace by the compiler in a later call: that call sees it here
                    entry.stale.extend(scope.missing)
            out_leaves, entry.out_tree = _tree.flatten(out)
            entry.out_leaves = len(out_leaves)
            entry.out_static = {}
            dyn_out = []
            for i, o in enumerate(out_leaves):
                if o is None or isinstance(o, (str, bool, int, float)):
                    entry.out_static[i] = o
                else:
                    dyn_out.append(core.convert_to_tensor(o.value if type(o) is Variable else o))
            new_values = [scope.values.get(v, f) for v, f in zip(variables, flat[:n])]
            entry.single = bare and entry.out_tree is _tree.LEAF and not n and not entry.out_static
            entry.finish = _finisher(entry)
            entry.shape = (entry.out_tree, tuple(entry.out_static.items()), tuple(variables))
            if entry.first is None:
                entry.first = tuple(getattr(entry, n) for n in _RESULT)
            elif entry.shape != entry.first[-1]:
                entry.varying = True
            return dyn_out[0] if entry.single else tuple(new_values) + tuple(dyn_out)

        bare = entry.backend.runtime.jit_retraces  # (others' compilers want a tuple out)
        return pure


def _finisher(entry):
    """What turns ``entry``'s flat compiled outputs into the function's result: a flat
    list or tuple of tensors is rebuilt in one call (about 0.5 µs less than `_outputs`)."""
    td = entry.out_tree
    if entry.variables or entry.out_static:
        return functools.partial(Jitted._outputs, entry)
    if td is _tree.LEAF:
        return operator.itemgetter(0)
    if td[0] in (list, tuple) and all(c is _tree.LEAF for c in td[1:]):
        return td[0]
    return functools.partial(_tree.unflatten, td)


def _fall_back(jitted, entry, exc):
    """The policy (see JitFallbackWarning): this signature runs eagerly from now on."""
    import warnings

    entry.eager = True
    entry.compiled = None  # drop what the failed trace built
    name = getattr(jitted.fn, "__name__", "the function")
    warnings.warn(f"polyops.jit: {name} cannot be compiled on the {entry.backend.name} backend "
                  f"and runs eagerly at this signature: {exc}", JitFallbackWarning, stacklevel=3)


# The list a running trace appends the Variables it read without receiving them to; one per
# call of a Jitted function, in this context (threads and tasks tracing at once keep theirs).
_MISSING: contextvars.ContextVar = contextvars.ContextVar("polyops_jit_missing", default=None)
_STATIC = object()
_AGAIN = object()
_EXACT: dict = {}


def _signing(rt) -> tuple:
    """(the backend's tensor classes, for an exact ``type(x) in`` check per leaf; those
    that hold sparse and dense tensors, whose signature adds which this one is (none where
    the runtime's ``jit_signature`` tells them apart itself); the sparse contract), kept
    per runtime."""
    found = _EXACT.get(id(rt))
    if found is None or found[3] is not rt:
        c = _sparse.contract(rt)
        shared = () if c is None or rt.jit_signature is not None else c.shared
        found = _EXACT[id(rt)] = (frozenset(rt.tensor_types), shared, c, rt)
    return found[:3]


def _dense_key(x, rt):
    """A dense tensor's part of the signature, as the exact-type path of `Jitted.__call__`
    writes it."""
    t = type(x)
    sig = (rt.jit_signature or _shape_dtype)(x)
    _, shared, c = _signing(rt)
    return (t, sig, c.is_sparse(x)) if t in shared else (t, sig)


def _leaf(x, i, rt, key):
    """Classify a leaf that is not exactly a tensor class: append its part of the signature
    to ``key``; return the tensor to pass (arrays are converted), or _STATIC."""
    import numpy as np

    if isinstance(x, rt.tensor_types) or (
            isinstance(x, np.ndarray) and not isinstance(x, np.generic)):
        if not isinstance(x, rt.tensor_types):
            from .ops import core

            x = core.convert_to_tensor(x)
        key.append(_dense_key(x, rt))  # (as an exact tensor's: one entry for both)
        return x
    sparse = _sparse.owner(x)
    if sparse is not None or isinstance(x, _sparse.dense_forms(rt)):
        from .ops import core

        if sparse != rt.name:  # tf.IndexedSlices, another backend's sparse tensor: dense
            x = _sparse.contract(rt).to_dense(x) if sparse is None else core.convert_to_tensor(x)
            key.append(_dense_key(x, rt))
            return x
        # the backend's sparse tensor: an input of the compiled function, as in jax.jit
        # and tf.function; its signature adds what the backend says (a BCOO's size)
        c = _sparse.contract(rt)
        key.append((type(x), tuple(x.shape), x.dtype,
                    None if c.trace_key is None else c.trace_key(x)))
        return x
    if type(x) is Variable:  # passed as itself: reads and writes go through the trace's scope
        key.append(x)
    else:
        key.append(_static_key(x, i))
    return _STATIC


def _static_key(x, i):
    if type(x) in (bool, int, float, complex, str, type(None)):
        return (type(x), x)
    try:
        hash(x)
    except TypeError:
        raise TypeError(
            f"jit: argument leaf {i} ({type(x).__name__}) is neither a tensor nor hashable; "
            "pass arrays as tensors or name the argument in static_argnums") from None
    return x


def jit(fn=None, *, static_argnums=(), static_argnames=()):
    """Compile a function written with polyops ops, with the current backend's compiler.

    jax: ``jax.jit``; tensorflow: ``tf.function(jit_compile=True)`` (XLA; a function XLA
    cannot compile falls back to a plain tf.function); torch: ``torch.compile``; openvino:
    the ops the function calls are recorded into one OpenVINO model, compiled and cached;
    numpy: the function itself.

    Arguments: tensors and arrays (anywhere inside lists, tuples and dicts), the backend's
    sparse tensors included (docs/sparse.md), are the compiled function's inputs; each new combination of their shapes and dtypes traces
    and compiles again (retracing), later calls with a seen signature reuse the compiled
    one.  Everything else (Python numbers, strings, None, callables) is *static*: its
    value is part of the signature, so a new value recompiles; pass a number that changes
    on every call as a tensor.  ``static_argnums``/``static_argnames`` make whole
    arguments static (they must be hashable).

    State: `polyops.Variable` reads and ``assign`` calls inside are traced, the new values
    are written back after each call (so a `polyops.random.SeedGenerator` gives fresh
    numbers on every call).  Turn compilation off with ``polyops.disable_jit()`` (a
    context manager) or the environment variable ``POLYOPS_DISABLE_JIT=1``: the function
    then runs eagerly.  The returned object counts its traces in ``.traces``.

    A function whose trace needs tensor values (``bool``/``float`` of a tensor, a host
    computation, a value-dependent output size where the backend's shapes are static)
    runs eagerly at that signature, after one `JitFallbackWarning`: the same on every
    backend.

    Example:
        >>> @polyops.jit
        ... def layer(x, w):
        ...     return polyops.ops.relu(x @ w)
        >>> layer(np.ones((2, 3), "float32"), np.ones((3, 4), "float32"))
    """
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    return Jitted(fn, static_argnums, static_argnames)


@contextlib.contextmanager
def disable_jit():
    """Inside ``with polyops.disable_jit():``, `jit` functions run eagerly (for debugging)."""
    token = _JIT_OFF.set(True)
    try:
        yield
    finally:
        _JIT_OFF.reset(token)


# -- gradients ------------------------------------------------------------------------


def value_and_grad(fn, argnums=0, has_aux=False):
    """A function returning ``fn``'s value and its gradient w.r.t. the ``argnums`` arguments.

    ``fn`` returns a scalar float tensor (with ``has_aux=True``: ``(scalar, aux)``).
    Differentiated arguments may be nested lists, tuples and dicts of float tensors; the
    gradient has the same structure (a tuple of them when ``argnums`` is a tuple).  With
    respect to a sparse tensor: the gradient of its stored values, as a sparse tensor of
    the same indices (docs/sparse.md).
    Through jax.value_and_grad, tf.GradientTape or torch.autograd; numpy and openvino do
    not differentiate and raise NotImplementedError.

    Example:
        >>> f = polyops.value_and_grad(lambda x: polyops.ops.sum(x ** 2))
        >>> value, g = f(polyops.ops.array([1.0, 2.0]))      # 5.0, [2.0, 4.0]
    """
    multiple = not isinstance(argnums, int)
    nums = tuple(argnums) if multiple else (argnums,)
    name = getattr(fn, "__name__", "fn")

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        from .ops import core

        backend = _runtime()
        rt = backend.runtime
        if rt.value_and_grad is None:
            raise NotImplementedError(
                f"value_and_grad: the {backend.name} backend does not differentiate; "
                f"use one of {', '.join(_DIFFERENTIATING)}")
        for i in nums:
            if not -len(args) <= i < len(args):
                raise ValueError(f"value_and_grad: argnums={argnums!r} but {name} got "
                                 f"{len(args)} positional arguments")
        leaves, td = _tree.flatten(tuple(args[i] for i in nums))
        primals = []
        sparse = {}  # leaf -> the sparse tensor whose stored values are differentiated
        c = _sparse.contract(rt)
        for j, x in enumerate(leaves):
            x = x.value if type(x) is Variable else x
            if c is not None and isinstance(x, c.dense_forms):  # (tf.IndexedSlices)
                x = c.to_dense(x)
            x = core.convert_to_tensor(x)
            if core.dtype(x) not in ("float16", "bfloat16", "float32", "float64"):
                raise TypeError(f"value_and_grad: can only differentiate float inputs; leaf {j} "
                                f"of argnums={argnums!r} has dtype {core.dtype(x)}")
            if _sparse.owner(x) is not None:
                # w.r.t. a sparse tensor: its stored values (the gradient: sparse, same indices)
                x = c.sum_duplicates(x)
                sparse[j] = x
                x = c.values(x)
            primals.append(x)

        def flat_fn(*flat):
            if sparse:
                flat = [c.with_values(sparse[j], v) if j in sparse else v
                        for j, v in enumerate(flat)]
            parts = _tree.unflatten(td, flat)
            full = list(args)
            for i, p in zip(nums, parts):
                full[i] = p
            out = fn(*full, **kwargs)
            loss, aux = out if has_aux else (out, None)
            if tuple(core.shape(loss)) != ():
                raise TypeError(f"value_and_grad: {name} must return a scalar, got shape "
                                f"{tuple(core.shape(loss))}")
            return loss, aux

        (loss, aux), grads = rt.value_and_grad(flat_fn, tuple(primals))
        grads = [c.with_values(sparse[j], g) if j in sparse else g for j, g in enumerate(grads)]
        parts = _tree.unflatten(td, grads)
        g = tuple(parts) if multiple else parts[0]
        return ((loss, aux) if has_aux else loss), g

    return wrapped


def grad(fn, argnums=0, has_aux=False):
    """A function returning the gradient of ``fn`` w.r.t. the ``argnums`` arguments
    (``(gradient, aux)`` with ``has_aux``); see `value_and_grad`.

    Example:
        >>> polyops.grad(lambda x: polyops.ops.sum(x ** 3))(polyops.ops.array([1.0, 2.0]))
    """
    vg = value_and_grad(fn, argnums, has_aux)

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


# -- devices ----------------------------------------------------------------------------


def devices() -> list[str]:
    """The devices the current backend sees ("cpu:0", "cuda:0"...).

    Example:
        >>> polyops.devices()
        ['cpu:0']
    """
    return list(_runtime().runtime.devices())


def _canonical_device(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"device: expected a device name (str), got {name!r}")
    n = name.strip().lower().lstrip("/").replace("device:", "")
    kind, _, idx = n.partition(":")
    kind = {"gpu": "cuda"}.get(kind, kind)
    return f"{kind}:{idx or 0}"


@contextlib.contextmanager
def device(name: str):
    """Place new tensors on device ``name`` ("cpu", "cpu:0", "gpu:0"/"cuda:0") inside the block.

    On jax, tensorflow and torch this enters ``jax.default_device``, ``tf.device`` or
    ``torch.device``; on numpy and openvino (host memory only) it checks the name and does
    nothing else.  An unknown device raises ValueError listing `devices()`.

    Example:
        >>> with polyops.device("cpu"):
        ...     x = polyops.ops.ones((2,))
    """
    backend = _runtime()
    rt = backend.runtime
    want = _canonical_device(name)
    known = {_canonical_device(d): d for d in rt.devices()}
    if want not in known:
        raise ValueError(f"device: {name!r} is not a device of the {backend.name} backend; "
                         f"it sees {sorted(known.values())}")
    scope = rt.device_scope(known[want]) if rt.device_scope is not None else contextlib.nullcontext()
    with scope:
        yield
