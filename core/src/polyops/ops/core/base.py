"""Core ops (``keras.ops.core``): dtype and shape queries, casts, conversions."""

from __future__ import annotations

import numpy as np

from ... import _dtypes
from ..._op import defop, infer_dtype, late_dtype
from ..._symbolic import SymbolicTensor
from .._base import dtype_arg, shape_of, spec
from .._base import finish as _finish


def shape(x) -> tuple:
    """The shape of ``x`` as a tuple (None for unknown dims of a SymbolicTensor).

    Keras: ``keras.ops.shape``.  NumPy: ``np.shape``.

    Example:
        >>> polyops.ops.shape(polyops.ops.zeros((2, 3)))
        (2, 3)
    """
    if isinstance(x, SymbolicTensor):
        return x.shape
    s = getattr(x, "shape", None)
    if s is None:
        return np.shape(x)
    return tuple(s)


def dtype(x) -> str:
    """The canonical dtype string of ``x`` ("float32", "int32", ...).

    Example:
        >>> polyops.ops.dtype(polyops.ops.ones((1,)))
        'float32'
    """
    if isinstance(x, SymbolicTensor):
        return x.dtype
    d = getattr(x, "dtype", None)
    return infer_dtype(x) if d is None else _dtypes.standardize_dtype(d)


def _cast_prepare(x, dtype):
    return x, dtype_arg("cast", dtype) if dtype is not None else _none_dtype()


def _none_dtype():
    raise TypeError("cast: expected a dtype, got dtype=None")


@defop("core", tensors=("x",), promote=None, prepare=_cast_prepare)
def cast(x, dtype):
    """Cast a tensor to ``dtype`` (honoured exactly, 64-bit included).  NumPy: ``x.astype``.

    Example:
        >>> polyops.ops.cast(polyops.ops.arange(3), "float16")
        array([0., 1., 2.], dtype=float16)
    """
    if dtype is None:
        _none_dtype()
    return spec(shape_of(x), dtype_arg("cast", dtype))


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """Convert a value (array, list, scalar, another framework's tensor) to a backend tensor.

    ``dtype=None`` keeps a tensor's dtype (64-bit demoted to 32-bit) and gives
    bool/int32/floatx for Python data.  ``sparse`` (docs/sparse.md): None keeps a sparse
    tensor of this backend sparse (and dense values dense); False densifies; True makes a
    sparse tensor (ValueError on a backend without them).  Another backend's sparse tensor
    is densified first.  ``ragged=True`` is not supported (ValueError).

    Example:
        >>> polyops.ops.convert_to_tensor([1, 2])   # int32 tensor of the current backend
        >>> polyops.ops.convert_to_tensor([[0, 2.0]], sparse=True)   # tf.SparseTensor, BCOO
    """
    if ragged:
        raise ValueError("convert_to_tensor: ragged tensors are not supported")
    if sparse not in (None, False, True):
        raise TypeError(f"convert_to_tensor: expected sparse=None, False or True, got {sparse!r}")
    if isinstance(x, SymbolicTensor):
        return x if dtype is None else cast(x, dtype)
    from ... import _sparse
    from ..._registry import current

    rt = current().runtime
    if sparse is True and _sparse.contract(rt) is None:
        raise ValueError(f"convert_to_tensor: the {rt.name} backend has no sparse tensors "
                         "(sparse=True); use a backend that has them (tensorflow, jax, torch, "
                         "numpy with SciPy)")
    name = _sparse.owner(x)
    if name is not None:
        if name == rt.name and sparse is not False:
            return x if dtype is None else cast(x, dtype)  # (cast keeps it sparse)
        x = _sparse.densify(x)
        if name != rt.name:  # another framework's dense tensor: through numpy
            x = _sparse.backend_of(name)[0].runtime.convert_to_numpy(x)
    if sparse is True:
        return _sparse.contract(rt).from_dense(convert_to_tensor(x, dtype))
    if dtype is not None:
        target = dtype_arg("convert_to_tensor", dtype)
    elif isinstance(x, rt.tensor_types):
        native = rt.dtypes.get(x.dtype)
        if native is None:
            native = late_dtype(rt, x.dtype, "convert_to_tensor")
        target = _dtypes.canonical(native)
        if target == native:
            return x
    else:
        try:
            target = infer_dtype(x)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"convert_to_tensor: expected array-like data, got {x!r:.80}") from exc
    try:
        return rt.convert_to_tensor(x, target)
    except Exception as exc:  # a tensor its framework will not hand over: say what to do
        from ..._public import foreign_error

        error = foreign_error("convert_to_tensor", ("x",), (x,))
        if error is None:
            raise
        raise error from exc


def convert_to_numpy(x):
    """Copy (or view) a tensor as a ``numpy.ndarray``; bfloat16 comes as ml_dtypes.bfloat16.

    Raises TypeError for a SymbolicTensor, whose value does not exist yet.

    Example:
        >>> polyops.ops.convert_to_numpy(polyops.ops.ones((2,)))
        array([1., 1.], dtype=float32)
    """
    if isinstance(x, SymbolicTensor):
        raise TypeError(
            f"convert_to_numpy: expected a concrete tensor, got a SymbolicTensor "
            f"{x.shape} {x.dtype}; run the graph with polyops.Function first"
        )
    from ... import _sparse
    from ..._registry import current

    name = _sparse.owner(x)
    if name is not None:  # densified, by its own backend
        b = _sparse.backend_of(name)[0]
        return b.runtime.convert_to_numpy(_sparse.densify(x))
    rt = current().runtime
    if isinstance(x, rt.tensor_types):
        return rt.convert_to_numpy(x)
    for b in _loaded_backends():
        if isinstance(x, b.runtime.tensor_types):
            return b.runtime.convert_to_numpy(x)
    return np.asarray(x)


def _loaded_backends():
    from ..._registry import _discover

    return [b for b in _discover().values() if b.status == "loaded"]


def is_tensor(x) -> bool:
    """Whether ``x`` is a tensor of the current backend, dense or sparse (or a SymbolicTensor)."""
    if isinstance(x, SymbolicTensor):
        return True
    from ... import _sparse
    from ..._registry import current

    b = current()
    return isinstance(x, b.runtime.tensor_types) or _sparse.owner(x) == b.name


def is_sparse(x) -> bool:
    """Whether ``x`` is a sparse tensor (of any loaded backend), or a sparse SymbolicTensor.

    Keras 3 has no ``keras.ops`` equivalent (Keras 2 had ``tf.keras.backend.is_sparse``;
    Keras 3 reads ``KerasTensor.sparse``).  See docs/sparse.md for what is sparse where.

    Example:
        >>> polyops.ops.is_sparse(polyops.SymbolicTensor((2, 3), sparse=True))
        True
        >>> with polyops.use_backend("jax"):  # a BCOO (tf.SparseTensor on tensorflow)
        ...     polyops.ops.is_sparse(polyops.ops.convert_to_tensor([[0.0, 1.0]], sparse=True))
        True
    """
    if isinstance(x, SymbolicTensor):
        return x.sparse
    from ... import _sparse

    return _sparse.owner(x) is not None


__all__ = [
    "Cast", "cast", "convert_to_numpy", "convert_to_tensor", "dtype", "is_sparse", "is_tensor",
    "shape",
]

_finish(globals())
