"""The standard's array object: a thin wrapper of one backend tensor.

Each namespace has its own subclass of `Array` (``xp.Array``), whose class attributes
tie it to its backend (``_ctx``); its operators are the namespace's own functions
(``Array.__add__ is xp.add``), installed by `install_operators`.  ``__setitem__`` is
functional on every backend: it computes the updated tensor with ``ops`` and rebinds
the wrapper to it, so it works on immutable tensors (jax, tensorflow) alike.
"""

from __future__ import annotations

import math

import numpy as np

from ._dtypes import DTYPES


class Device:
    """A device of a namespace: compares equal to a device of the same name."""

    __slots__ = ("name", "backend")

    def __init__(self, name: str, backend: str):
        self.name = name
        self.backend = backend

    def __eq__(self, other):
        if isinstance(other, Device):
            return other.name == self.name and other.backend == self.backend
        return NotImplemented

    def __hash__(self):
        return hash((self.name, self.backend))

    def __repr__(self):
        return f"Device({self.name!r})"


class Array:
    """An array of a polyops Array API namespace, wrapping one backend tensor (``_t``).

    Example:
        >>> xp = polyops.array_api.namespace("numpy")
        >>> x = xp.asarray([1.0, 2.0])
        >>> (x * 2 + 1).shape, x.dtype
        ((2,), polyops.array_api.float64)
    """

    __slots__ = ("_t", "__weakref__")
    _ctx = None  # the namespace's Context, on each namespace's subclass
    _dt: dict = {}  # native dtype -> DType, likewise
    # numpy defers to our reflected operators (np.float64(2) * x is an Array)
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, t):
        self._t = t

    # -- attributes ------------------------------------------------------------------
    @property
    def dtype(self):
        """The array's dtype, a namespace dtype object (``xp.float32``...)."""
        try:
            return self._dt[self._t.dtype]
        except KeyError:
            return DTYPES[self._ctx.dtype_of(self._t)]

    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints (None for a dimension unknown under a trace)."""
        return tuple(self._t.shape)

    @property
    def ndim(self) -> int:
        return len(self._t.shape)

    @property
    def size(self):
        """The number of elements (None when a dimension is unknown)."""
        shape = self.shape
        if None in shape:
            return None
        return math.prod(shape)

    @property
    def device(self) -> Device:
        return self._ctx.device

    @property
    def T(self):
        """The transpose of a 2-D array."""
        if self.ndim != 2:
            raise ValueError(f"Array.T: expected a 2-D array, got shape {self.shape}; "
                             "use .mT or permute_dims")
        return self._ctx.ns.permute_dims(self, (1, 0))

    @property
    def mT(self):
        """The transpose of the last two axes (a stack of matrices)."""
        return self._ctx.ns.matrix_transpose(self)

    def to_device(self, device, /, *, stream=None):
        """This array on ``device`` (the namespace's devices are those of its backend)."""
        self._ctx.check_device(device, "to_device")
        return self

    def __array_namespace__(self, /, *, api_version=None):
        if api_version is not None and api_version not in _versions():
            raise ValueError(f"__array_namespace__: expected api_version in {_versions()}, "
                             f"got {api_version!r}")
        return self._ctx.ns

    # -- conversions -----------------------------------------------------------------
    def _scalar(self, method):
        if self.ndim != 0:
            raise TypeError(f"{method}: expected a 0-d array, got shape {self.shape}")
        return self._ctx.run(_to_numpy, self._t)[()]

    def __bool__(self):
        return bool(self._scalar("__bool__"))

    def __int__(self):
        value = self._scalar("__int__")
        if isinstance(value, (np.complexfloating, complex)):
            raise TypeError("__int__: expected a real array, got a complex one")
        return int(value)

    def __float__(self):
        value = self._scalar("__float__")
        if isinstance(value, (np.complexfloating, complex)):
            raise TypeError("__float__: expected a real array, got a complex one")
        return float(value)

    def __complex__(self):
        return complex(self._scalar("__complex__"))

    def __index__(self):
        value = self._scalar("__index__")
        if not isinstance(value, (np.integer, np.bool_)) or isinstance(value, np.bool_):
            raise TypeError(f"__index__: expected an integer array, got dtype {self.dtype}")
        return int(value)

    def __array__(self, dtype=None, copy=None):
        out = self._ctx.run(_to_numpy, self._t)
        if dtype is not None:
            out = out.astype(dtype, copy=bool(copy))
        elif copy:
            out = out.copy()
        return out

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        t = self._t
        kwargs = {}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        if stream is not None:
            kwargs["stream"] = stream
        if hasattr(t, "__dlpack__"):
            try:
                return t.__dlpack__(**kwargs)
            except (TypeError, BufferError, RuntimeError):
                # a framework without that protocol version or keyword (jax supports
                # versions >= 0.5 only, tensorflow no copy=True): the host copy below
                # exports instead
                pass
        # (tensorflow's tensors have no __dlpack__; a writable copy: numpy exports no
        # read-only array through the pre-1.0 protocol)
        return np.array(self).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        t = self._t
        if hasattr(t, "__dlpack_device__"):
            return t.__dlpack_device__()
        return (1, 0)  # kDLCPU

    def __repr__(self):
        try:
            body = np.array2string(np.asarray(self), separator=", ")
        except Exception:  # a traced tensor has no values
            body = "?"
        return f"Array({body}, dtype={self.dtype!r})"

    def __str__(self):
        return str(np.asarray(self))

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    __hash__ = None  # type: ignore[assignment]


def _to_numpy(t):
    from .. import ops

    return np.asarray(ops.convert_to_numpy(t))


def _versions():
    from ._namespace import API_VERSIONS

    return API_VERSIONS


# operator -> namespace function; "r" marks the reflected form (operands swapped)
OPERATORS = {
    "__add__": "add", "__sub__": "subtract", "__mul__": "multiply", "__truediv__": "divide",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
    "__matmul__": "matmul", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__xor__": "bitwise_xor", "__lshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift",
}
COMPARISONS = {
    "__eq__": "equal", "__ne__": "not_equal", "__lt__": "less", "__le__": "less_equal",
    "__gt__": "greater", "__ge__": "greater_equal",
}
UNARY = {"__neg__": "negative", "__pos__": "positive", "__abs__": "abs",
         "__invert__": "bitwise_invert"}


def install_operators(A, ns):
    """Give the Array class ``A`` of namespace ``ns`` its operators, from ``ns``'s functions."""
    scalars = (bool, int, float, complex)

    def reflected(fn):
        def method(self, other):
            if type(other) not in scalars:
                return NotImplemented
            return fn(other, self)

        return method

    def inplace(fn, name):
        def method(self, other):
            out = fn(self, other)
            if out.dtype is not self.dtype:
                raise TypeError(f"{name}: the result's dtype {out.dtype} is not the array's "
                                f"dtype {self.dtype}")
            if out.shape != self.shape:
                raise ValueError(f"{name}: the result's shape {out.shape} is not the array's "
                                 f"shape {self.shape}")
            self._t = out._t
            return self

        return method

    def forward(fn):
        def method(self, other):
            if type(other) is not A and type(other) not in scalars:
                return NotImplemented
            return fn(self, other)

        return method

    for dunder, name in OPERATORS.items():
        fn = getattr(ns, name)
        setattr(A, dunder, fn)  # the namespace function itself: no extra frame
        setattr(A, "__r" + dunder[2:], reflected(fn))
        setattr(A, "__i" + dunder[2:], inplace(fn, "__i" + dunder[2:]))
    for dunder, name in COMPARISONS.items():
        setattr(A, dunder, forward(getattr(ns, name)))
    for dunder, name in UNARY.items():
        setattr(A, dunder, getattr(ns, name))
