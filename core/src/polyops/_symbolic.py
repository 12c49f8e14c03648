"""SymbolicTensor: a shape/dtype spec that records the graph of ops applied to it."""

from __future__ import annotations

from . import _dtypes
from ._shapes import normalize_shape as _normalize_shape

_CANONICAL = frozenset(_dtypes.ALLOWED_DTYPES)


class Node:
    """One recorded op application: the op, its arguments, and its output(s)."""

    __slots__ = ("op", "args", "outputs")

    def __init__(self, op, args: tuple, outputs):
        self.op = op
        self.args = args  # positional arguments in signature order; tensors may be symbolic
        self.outputs = outputs  # a SymbolicTensor, or a tuple/list of them


class SymbolicTensor:
    """A tensor known only by shape and dtype; ops on it infer specs and record a graph.

    Args:
        shape: tuple of ints or ``None`` (an unknown dim).
        dtype: any dtype `standardize_dtype` accepts; stored canonical ("float32").
        sparse: whether the tensor is sparse (``keras.KerasTensor``'s ``sparse``); each
            op's rule says whether its result is (`polyops._sparse`, docs/sparse.md).
        name: optional name, used when printing and by `polyops.Function`.

    Example:
        >>> x = SymbolicTensor((None, 3))
        >>> (x + 1.0).shape, (x @ SymbolicTensor((3, 4))).shape
        ((None, 3), (None, 4))
    """

    __slots__ = ("shape", "dtype", "sparse", "name", "_node", "_const")
    __array_priority__ = 1000  # numpy defers to our reflected operators

    def __init__(self, shape, dtype="float32", sparse=False, name=None):
        # rules build their outputs from tuples of ints/None and canonical names: take
        # those as they are (a few hundred ns a spec), validate anything else
        if type(shape) is tuple:
            for d in shape:
                if d is not None and (type(d) is not int or d < 0):
                    shape = _normalize_shape(shape, "SymbolicTensor")
                    break
        else:
            shape = _normalize_shape(shape, "SymbolicTensor")
        self.shape = shape
        self.dtype = dtype if type(dtype) is str and dtype in _CANONICAL else _dtypes.standardize_dtype(dtype)
        if sparse is not False:
            sparse = _sparse_arg(sparse)
        self.sparse = sparse
        self.name = name
        self._node = None
        self._const = None  # set when the spec stands for a concrete captured value

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        name = f", name={self.name!r}" if self.name else ""
        sparse = ", sparse=True" if self.sparse else ""
        return f"<SymbolicTensor shape={self.shape}, dtype={self.dtype}{sparse}{name}>"

    # Misuse of symbolic values gets a clear TypeError instead of a wrong answer.
    def __bool__(self):
        raise TypeError(
            "bool: expected a concrete tensor, got a SymbolicTensor "
            f"{self.shape} {self.dtype}; its value is unknown until the graph runs"
        )

    def __array__(self, *args, **kwargs):
        raise TypeError(
            "convert_to_numpy: expected a concrete tensor, got a SymbolicTensor "
            f"{self.shape} {self.dtype}; run it through polyops.Function first"
        )

    def __len__(self):
        if not self.shape or self.shape[0] is None:
            raise TypeError(f"len: expected a known leading dim, got shape={self.shape}")
        return self.shape[0]

    def __iter__(self):
        raise TypeError(f"iter: cannot iterate over a SymbolicTensor of shape {self.shape}")

    __hash__ = object.__hash__

    # Operators go through the ops, so they infer and record like any call.
    def __add__(self, other):
        return _np().add(self, other)

    def __radd__(self, other):
        return _np().add(other, self)

    def __sub__(self, other):
        return _np().subtract(self, other)

    def __rsub__(self, other):
        return _np().subtract(other, self)

    def __mul__(self, other):
        return _np().multiply(self, other)

    def __rmul__(self, other):
        return _np().multiply(other, self)

    def __truediv__(self, other):
        return _np().divide(self, other)

    def __rtruediv__(self, other):
        return _np().divide(other, self)

    def __floordiv__(self, other):
        return _np().floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _np().floor_divide(other, self)

    def __mod__(self, other):
        return _np().mod(self, other)

    def __rmod__(self, other):
        return _np().mod(other, self)

    def __pow__(self, other):
        return _np().power(self, other)

    def __rpow__(self, other):
        return _np().power(other, self)

    def __matmul__(self, other):
        return _np().matmul(self, other)

    def __rmatmul__(self, other):
        return _np().matmul(other, self)

    def __neg__(self):
        return _np().negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _np().abs(self)

    def __invert__(self):
        return _np().logical_not(self)

    def __and__(self, other):
        return _np().logical_and(self, other)

    def __or__(self, other):
        return _np().logical_or(self, other)

    def __eq__(self, other):  # type: ignore[override]
        return _np().equal(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return _np().not_equal(self, other)

    def __lt__(self, other):
        return _np().less(self, other)

    def __le__(self, other):
        return _np().less_equal(self, other)

    def __gt__(self, other):
        return _np().greater(self, other)

    def __ge__(self, other):
        return _np().greater_equal(self, other)

    def __getitem__(self, key):
        return _np().get_item(self, key)


def _sparse_arg(sparse) -> bool:
    """``sparse`` as a bool; a sparse spec tells the ops' rules to look for sparseness."""
    if type(sparse) is not bool:
        raise TypeError(f"SymbolicTensor: expected sparse=True or False, got {sparse!r}")
    if sparse:
        from . import _sparse

        _sparse.SEEN[0] = True
    return sparse


def _np():
    from .ops import numpy

    return numpy


def is_symbolic(x) -> bool:
    return isinstance(x, SymbolicTensor)


def any_symbolic(args) -> bool:
    for a in args:
        if isinstance(a, SymbolicTensor):
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(b, SymbolicTensor) for b in a):
            return True
    return False
