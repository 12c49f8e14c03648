"""numpy's sparse tensors (``Runtime.sparse``): SciPy's COO arrays
(``scipy.sparse.coo_array``), and the kernels that take them.  Core applies the rule of
which results are sparse (`polyops._sparse`), promotes the operands before these kernels
and maps the zero-preserving unary ops over the stored values itself; a kernel returns
NotImplemented for a case it does not cover (core then computes densely).

SciPy is an optional dependency (``pip install polyops-numpy[sparse]``), imported only
when a sparse value is first made (``convert_to_tensor(x, sparse=True)``): `types` reads
``scipy.sparse`` from ``sys.modules``, since no SciPy array exists before its import.
Every SciPy sparse array or matrix (``sparray``, ``spmatrix``: CSR, CSC...) is taken as
input, read as COO; results are ``coo_array``.

Limits (SciPy's): n-D COO arrays need SciPy 1.15 (the extra's floor); no 0-d sparse
arrays (a 0-d result is dense anyway); no float16 or bfloat16 values (TypeError: cast to
float32 first, or densify).  The kernels work on the COO coordinates with numpy, so they
hold for any rank; matmul of 2-D operands is SciPy's CSR product.
"""

from __future__ import annotations

import sys

import numpy as np
from polyops._dtypes import HALF_FLOATS  # (float16, bfloat16: scipy.sparse refuses them)


def _sp():
    try:
        import scipy.sparse as sp
    except ImportError:  # the extra not installed
        raise ImportError(
            "the numpy backend's sparse tensors are SciPy's COO arrays: install them with "
            "pip install 'polyops-numpy[sparse]' (scipy>=1.15)") from None
    return sp


def types() -> tuple:
    sp = sys.modules.get("scipy.sparse")
    return (sp.sparray, sp.spmatrix) if sp is not None else ()


def _sparse(x) -> bool:
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and isinstance(x, (sp.sparray, sp.spmatrix))


def _coo(x):
    """``x`` as a ``coo_array`` (itself if it is one)."""
    sp = sys.modules["scipy.sparse"]
    return x if type(x) is sp.coo_array else sp.coo_array(x)


def _check_dtype(dtype) -> None:
    if np.dtype(dtype).name in HALF_FLOATS:
        raise TypeError(
            f"numpy sparse tensors (scipy.sparse): expected values of a dtype SciPy holds "
            f"(bool, integers, float32, float64, complex), got {np.dtype(dtype).name}; cast "
            f"to float32 first, or densify with polyops.ops.convert_to_tensor(x, sparse=False)")


def _make(data, coords, shape, canonical=False):
    _check_dtype(data.dtype)
    out = sys.modules["scipy.sparse"].coo_array((data, tuple(coords)), shape=tuple(shape))
    if canonical:
        out.has_canonical_format = True  # (sorted, each index once: scipy skips its check)
    return out


def to_dense(x):
    return x.toarray()  # (duplicates summed; or-ed for bool)


def from_dense(x):
    x = np.asarray(x)
    _check_dtype(x.dtype)
    if x.ndim == 0:
        raise ValueError("convert_to_tensor: expected a value of rank >= 1 for sparse=True on "
                         "the numpy backend (scipy.sparse has no 0-d arrays), got a 0-d value")
    return _sp().coo_array(x)


def values(x):
    return _coo(x).data


def with_values(x, v):
    x = _coo(x)
    return _make(np.asarray(v), x.coords, x.shape, x.has_canonical_format)


def _linear(coords, shape):
    """Each stored index as one int: its position in the row-major dense tensor."""
    if not shape:
        return np.zeros(0, np.intp)
    return np.ravel_multi_index(tuple(np.asarray(c, np.intp) for c in coords), shape)


def _summed(lin, data, shape):
    """A canonical COO array from linear indices ``lin`` and ``data`` (duplicates summed)."""
    unique, where = np.unique(lin, return_inverse=True)
    out = np.zeros(unique.shape, data.dtype)
    np.add.at(out, where, data)  # (or-ing for bools)
    return _make(out, np.unravel_index(unique, shape), shape, canonical=True)


def sum_duplicates(x):
    x = _coo(x)
    if x.has_canonical_format:
        return x
    return _summed(_linear(x.coords, x.shape), x.data, x.shape)


def _same_shape(x1, x2) -> bool:
    return tuple(x1.shape) == tuple(x2.shape)


def _aligned(x1, x2):
    """``x1`` and ``x2`` (sparse, one shape) on the union of their indices, each once:
    ``(coords, values of x1, values of x2)``, zeros where one stores nothing."""
    x1, x2 = sum_duplicates(x1), sum_duplicates(x2)
    l1, l2 = _linear(x1.coords, x1.shape), _linear(x2.coords, x2.shape)
    lin = np.union1d(l1, l2)
    v1 = np.zeros(lin.shape, x1.dtype)
    v2 = np.zeros(lin.shape, x2.dtype)
    v1[np.searchsorted(lin, l1)] = x1.data
    v2[np.searchsorted(lin, l2)] = x2.data
    return np.unravel_index(lin, x1.shape), v1, v2


def _binary_union(func):
    def kernel(x1, x2):
        if not (_sparse(x1) and _sparse(x2) and _same_shape(x1, x2)):
            return NotImplemented  # (a dense operand, or broadcasting: a dense computation)
        coords, v1, v2 = _aligned(x1, x2)
        return _make(func(v1, v2), coords, x1.shape, canonical=True)

    return kernel


def add(x1, x2):
    if not (_sparse(x1) and _sparse(x2) and _same_shape(x1, x2)):
        return NotImplemented
    a, b = _coo(x1), _coo(x2)
    if a.dtype == np.bool_:  # (bool add is or: the union's alignment does it)
        return _binary_union(np.logical_or)(a, b)
    # the stored entries side by side: linear, so duplicates may stay (summed when read)
    coords = [np.concatenate([c1, c2]) for c1, c2 in zip(a.coords, b.coords, strict=True)]
    return _make(np.concatenate([a.data, b.data]), coords, a.shape)


def subtract(x1, x2):
    if not (_sparse(x1) and _sparse(x2) and _same_shape(x1, x2)):
        return NotImplemented
    return add(x1, with_values(x2, np.negative(values(x2))))


def multiply(x1, x2):
    if _sparse(x1) and _sparse(x2):
        if not _same_shape(x1, x2):
            return NotImplemented
        a, b = sum_duplicates(x1), sum_duplicates(x2)
        lin, i1, i2 = np.intersect1d(_linear(a.coords, a.shape), _linear(b.coords, b.shape),
                                     assume_unique=True, return_indices=True)
        return _make(a.data[i1] * b.data[i2], np.unravel_index(lin, a.shape), a.shape,
                     canonical=True)
    sp, dense = (x1, x2) if _sparse(x1) else (x2, x1)
    shape = tuple(sp.shape)
    if np.broadcast_shapes(shape, np.shape(dense)) != shape:
        return NotImplemented  # (the dense operand widens the result)
    sp = _coo(sp)
    dense = np.broadcast_to(dense, shape)
    # (each stored value times the dense one at its index: linear, duplicates may stay)
    return with_values(sp, sp.data * dense[tuple(sp.coords)])


def divide(x1, x2):
    if _sparse(x2) or not _sparse(x1):
        return NotImplemented  # (core computes densely: the rule makes the result dense)
    shape = tuple(x1.shape)
    if np.broadcast_shapes(shape, np.shape(x2)) != shape:
        return NotImplemented
    if not np.all(x2 != 0) or np.any(np.isnan(x2)):
        return NotImplemented  # (0 / 0 and 0 / nan are nan where x1 stores nothing: dense)
    x1 = _coo(x1)
    return with_values(x1, x1.data / np.broadcast_to(x2, shape)[tuple(x1.coords)])


_MATMUL_KINDS = frozenset("iufc")  # (scipy's bool product is not numpy's: dense for bools)


def matmul(x1, x2):
    if np.ndim(x1) != 2 or np.ndim(x2) != 2 or np.dtype(x1.dtype).kind not in _MATMUL_KINDS:
        return NotImplemented
    out = x1 @ x2  # (SciPy's own product, in the operands' formats; sparse @ sparse: sparse)
    return _coo(out) if _sparse(out) else np.asarray(out)


def transpose(x, axes):
    x = _coo(x)
    return _make(x.data, [x.coords[a] for a in axes], [x.shape[a] for a in axes])


def reshape(x, newshape):
    x = _coo(x)
    newshape = tuple(newshape)
    if not newshape:  # (0-d: never sparse)
        return np.reshape(to_dense(x), ())
    if -1 in newshape:  # (core resolves it; a direct call may not)
        known = int(np.prod([d for d in newshape if d != -1]))
        newshape = tuple(int(np.prod(x.shape)) // known if d == -1 else d for d in newshape)
    coords = np.unravel_index(_linear(x.coords, x.shape), newshape)
    return _make(x.data, coords, newshape, x.has_canonical_format)


def concatenate(xs, axis):
    if not all(map(_sparse, xs)):
        return NotImplemented  # dense parts: a dense result, computed densely
    xs = [_coo(x) for x in xs]
    offsets = np.cumsum([0] + [x.shape[axis] for x in xs[:-1]])
    coords = [np.concatenate([np.asarray(x.coords[d], np.intp) + (o if d == axis else 0)
                              for x, o in zip(xs, offsets, strict=True)])
              for d in range(xs[0].ndim)]
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return _make(np.concatenate([x.data for x in xs]), coords, shape)


def sum_(x, axis=None, keepdims=False):  # (not ``sum``: the builtin is used above)
    x = _coo(x)
    if axis == ():
        return NotImplemented
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    keep = [d for d in range(x.ndim) if d not in axes]
    if not keep:  # (a numpy scalar, as the dense kernel's np.sum gives)
        total = np.sum(x.data, dtype=x.dtype)
        return np.reshape(total, (1,) * x.ndim) if keepdims else total
    out = np.zeros([x.shape[d] for d in keep], x.dtype)
    np.add.at(out, tuple(x.coords[d] for d in keep), x.data)
    if keepdims:
        out = np.reshape(out, tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    return out


kernels = {
    "add": add, "subtract": subtract,
    "maximum": _binary_union(np.maximum), "minimum": _binary_union(np.minimum),
    "multiply": multiply, "divide": divide, "matmul": matmul, "transpose": transpose,
    "reshape": reshape, "concatenate": concatenate, "sum": sum_,
}
