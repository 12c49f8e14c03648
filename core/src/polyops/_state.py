"""Mutable state: `Variable`, mixed-precision `DTypePolicy`, `AutocastScope`.

A Variable holds a native tensor of the backend that was current when it was made.
Reads and writes go through ``value`` and ``assign``.  Inside `polyops.jit` a
*state scope* is active: reads return the traced value that the compiled function
received as an input, and writes are collected and returned as outputs, so that the
compiled function stays pure and every backend's compiler accepts it (see
``polyops._transforms``).
"""

from __future__ import annotations

import contextvars
import itertools

from . import _dtypes, config

_SCOPE: contextvars.ContextVar = contextvars.ContextVar("polyops_state_scope", default=None)
_AUTOCAST: contextvars.ContextVar = contextvars.ContextVar("polyops_autocast", default=None)
_IDS = itertools.count()
_FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})


class StateScope:
    """Variable values as a traced function sees them (`polyops.jit` builds one per trace).

    ``values`` maps each known Variable to its traced value; a Variable read that is not
    known is recorded in ``missing`` (the trace must be redone with it as an input).
    """

    def __init__(self, values: dict):
        self.values = dict(values)
        self.missing: list = []
        self.assigned: set = set()

    def read(self, var):
        v = self.values.get(var, _MISS)
        if v is _MISS:
            if var not in self.missing:
                self.missing.append(var)
            return var._value
        return v

    def write(self, var, value):
        if var not in self.values and var not in self.missing:
            self.missing.append(var)
        self.values[var] = value
        self.assigned.add(var)


_MISS = object()
# set by polyops.distribution when imported: ``(variable, value) -> value`` laid out as the
# variable's layout (from the current distribution at creation); None costs nothing
_DISTRIBUTE = None


class Variable:
    """Mutable state on the current backend, as ``keras.Variable``.

    Args:
        initializer: the initial value (tensor, array, scalar, nested list), or a
            callable ``(shape, dtype) -> value`` used with ``shape``.
        shape: the shape, needed only with a callable initializer.
        dtype: the stored dtype; default: the initializer's dtype, or for Python floats
            the global dtype policy's ``variable_dtype`` (float32 unless set).
        trainable: a flag for optimizers (polyops does not use it).
        autocast: read in the compute dtype inside an `AutocastScope` (float variables).
        name: a name for messages.

    Reading ``.value`` (or using the variable in an op) gives a tensor; ``assign``,
    ``assign_add`` and ``assign_sub`` replace the value with one of the same shape
    (converted to the variable's dtype).  Under `polyops.jit` reads and writes are traced
    and the new values come back after each call.

    Example:
        >>> v = polyops.Variable([1.0, 2.0])
        >>> v.assign_add([1.0, 1.0])
        >>> polyops.ops.sum(v)          # 5.0
    """

    __array_priority__ = 1000
    _layout = None  # a polyops.distribution.TensorLayout, set inside a distribution's scope

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True,
                 name=None):
        from ._registry import current
        from .ops import core

        self.name = name or f"variable_{next(_IDS)}"
        self.trainable = bool(trainable)
        self.autocast = bool(autocast)
        self._backend = current()
        if callable(initializer):
            if shape is None:
                raise ValueError(f"Variable {self.name!r}: a callable initializer needs shape=")
            initializer = initializer(tuple(shape), _dtypes.standardize_dtype(dtype)
                                      if dtype is not None else config.floatx())
        if dtype is None and _is_python_float(initializer):
            dtype = dtype_policy().variable_dtype
        value = core.convert_to_tensor(initializer, dtype)
        if shape is not None and tuple(core.shape(value)) != tuple(shape):
            raise ValueError(f"Variable {self.name!r}: initial value has shape "
                             f"{tuple(core.shape(value))}, expected shape={tuple(shape)}")
        self._value = value
        self._dtype = core.dtype(value)
        self._shape = tuple(core.shape(value))
        if _DISTRIBUTE is not None:
            self._value = _DISTRIBUTE(self, value)

    # -- reading ---------------------------------------------------------------------
    @property
    def value(self):
        """The current value as a tensor (in the autocast dtype inside an `AutocastScope`)."""
        scope = _SCOPE.get()
        v = self._value if scope is None else scope.read(self)
        if self.autocast:
            target = _AUTOCAST.get()
            if target is not None and target != self._dtype and self._dtype in _FLOATS:
                from .ops import core

                return core.cast(v, target)
        return v

    def numpy(self):
        from .ops import core

        return core.convert_to_numpy(self.value)

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    # -- writing ---------------------------------------------------------------------
    def assign(self, value):
        """Replace the value (same shape; converted to the variable's dtype); returns it."""
        from ._symbolic import SymbolicTensor
        from .ops import core

        if isinstance(value, Variable):
            value = value.value
        if isinstance(value, SymbolicTensor):
            raise TypeError(f"Variable.assign: expected a concrete value for {self.name!r}, "
                            f"got a SymbolicTensor {value.shape}")
        value = core.convert_to_tensor(value, self._dtype)
        shape = tuple(core.shape(value))
        if shape != self._shape:
            raise ValueError(f"Variable.assign: {self.name!r} has shape {self._shape}, "
                             f"got a value of shape {shape}")
        if self._layout is not None:
            value = _DISTRIBUTE(self, value)
        scope = _SCOPE.get()
        if scope is None:
            self._value = value
        else:
            scope.write(self, value)
        return value

    def assign_add(self, value):
        """``assign(value + delta)``."""
        from .ops import numpy as np_ops

        return self.assign(np_ops.add(self._raw(), value))

    def assign_sub(self, value):
        """``assign(value - delta)``."""
        from .ops import numpy as np_ops

        return self.assign(np_ops.subtract(self._raw(), value))

    def _raw(self):
        scope = _SCOPE.get()
        return self._value if scope is None else scope.read(self)

    def __repr__(self):
        return f"<polyops.Variable {self.name!r} shape={self._shape} dtype={self._dtype}>"

    # -- use as a tensor ---------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __bool__(self):
        return bool(self.numpy())

    def __len__(self):
        return self._shape[0]

    def __getitem__(self, key):
        from .ops import numpy as np_ops

        return np_ops.get_item(self.value, key)


def _binary(name, reflected=False):
    def method(self, other):
        from .ops import numpy as np_ops

        fn = getattr(np_ops, name)
        return fn(other, self.value) if reflected else fn(self.value, other)

    return method


for _name, _op in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "divide"), ("floordiv", "floor_divide"), ("mod", "mod"),
                   ("pow", "power"), ("matmul", "matmul")):
    setattr(Variable, f"__{_name}__", _binary(_op))
    setattr(Variable, f"__r{_name}__", _binary(_op, reflected=True))
for _name, _op in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                   ("ge", "greater_equal")):
    setattr(Variable, f"__{_name}__", _binary(_op))
Variable.__neg__ = lambda self: __import__("polyops").ops.negative(self.value)
Variable.__abs__ = lambda self: __import__("polyops").ops.abs(self.value)
Variable.__hash__ = object.__hash__


def _is_python_float(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return any(_is_python_float(y) for y in x)
    return False


# -- mixed precision ---------------------------------------------------------------------

_POLICIES = {
    "float32": ("float32", "float32"),
    "float16": ("float16", "float16"),
    "bfloat16": ("bfloat16", "bfloat16"),
    "float64": ("float64", "float64"),
    "mixed_float16": ("float16", "float32"),
    "mixed_bfloat16": ("bfloat16", "float32"),
}


class DTypePolicy:
    """A dtype policy, as ``keras.DTypePolicy``: the dtype computations run in
    (``compute_dtype``) and the dtype variables are stored in (``variable_dtype``).

    Args:
        name: "float32", "float16", "bfloat16", "float64", "mixed_float16" (compute in
            float16, store float32) or "mixed_bfloat16"; None means `polyops.config.floatx`.

    Example:
        >>> p = polyops.DTypePolicy("mixed_float16")
        >>> p.compute_dtype, p.variable_dtype
        ('float16', 'float32')
    """

    def __init__(self, name=None):
        if name is None:
            name = config.floatx()
        if isinstance(name, DTypePolicy):
            name = name.name
        if name not in _POLICIES:
            raise ValueError(f"DTypePolicy: expected one of {', '.join(_POLICIES)}, got {name!r}")
        self.name = name
        self.compute_dtype, self.variable_dtype = _POLICIES[name]

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'


_POLICY: DTypePolicy | None = None


def dtype_policy() -> DTypePolicy:
    """The global dtype policy (from floatx unless `set_dtype_policy` set one)."""
    return _POLICY if _POLICY is not None else DTypePolicy(config.floatx())


def set_dtype_policy(policy) -> None:
    """Set the global dtype policy: a `DTypePolicy` or its name (None resets it)."""
    global _POLICY
    _POLICY = None if policy is None else DTypePolicy(policy)


class AutocastScope:
    """Inside ``with AutocastScope(dtype):`` float Variables (with ``autocast=True``) are read
    in ``dtype``; ``AutocastScope(None)`` turns autocasting off inside.

    Example:
        >>> policy = polyops.DTypePolicy("mixed_float16")
        >>> v = polyops.Variable(1.0, dtype=policy.variable_dtype)
        >>> with polyops.AutocastScope(policy.compute_dtype):
        ...     v.value.dtype      # float16
    """

    def __init__(self, dtype):
        if dtype is not None:
            dtype = _dtypes.standardize_dtype(dtype)
            if dtype not in _FLOATS:
                raise ValueError(f"AutocastScope: expected a float dtype, got {dtype!r}")
        self.dtype = dtype
        self._token = None

    def __enter__(self):
        self._token = _AUTOCAST.set(self.dtype)
        return self

    def __exit__(self, *exc):
        _AUTOCAST.reset(self._token)
        return False
