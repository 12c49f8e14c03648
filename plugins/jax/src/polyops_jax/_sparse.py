"""jax's sparse tensors (``Runtime.sparse``): ``jax.experimental.sparse.BCOO``, and the
kernels that take them.  Core applies the rule of which results are sparse
(`polyops._sparse`), promotes the operands before these kernels and maps the
zero-preserving unary ops over the stored values itself; a kernel returns NotImplemented
for a case it does not cover (core then computes densely).

``jax.experimental.sparse`` is imported only when a BCOO is first met or made (about
0.3 s): `types` reads it from ``sys.modules``, since no BCOO exists before its import.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp


def _js():
    import jax.experimental.sparse as js

    return js


def types() -> tuple:
    js = sys.modules.get("jax.experimental.sparse")
    return (js.BCOO,) if js is not None else ()


def _sparse(x) -> bool:
    js = sys.modules.get("jax.experimental.sparse")
    return js is not None and isinstance(x, js.BCOO)


def to_dense(x):
    if x.dtype == jnp.bool_:  # (no bool scatter-add: or-ing is summing for bools)
        return x.astype(jnp.int8).todense() != 0
    return x.todense()


def from_dense(x):
    # under a trace the number of stored elements must be static: every element is stored
    nse = x.size if isinstance(x, jax.core.Tracer) else None
    return _js().BCOO.fromdense(x, nse=nse)


def values(x):
    return x.data


def with_values(x, v):
    return _js().BCOO((v, x.indices), shape=x.shape, indices_sorted=x.indices_sorted,
                      unique_indices=x.unique_indices)


def _traced(x) -> bool:
    return isinstance(x.data, jax.core.Tracer) or isinstance(x.indices, jax.core.Tracer)


def sum_duplicates(x):
    if x.unique_indices:
        return x
    if x.dtype == jnp.bool_:
        return sum_duplicates(x.astype(jnp.int8)).astype(jnp.bool_)
    # under a trace the number of stored elements must stay static: keep it
    return _js().bcoo_sum_duplicates(x, nse=x.nse if _traced(x) else None)


def _same_shape(x1, x2) -> bool:
    return tuple(x1.shape) == tuple(x2.shape)


def _union(x1, x2):
    """``x1`` and ``x2`` on one set of indices (each's missing ones stored as zeros)."""
    js = _js()

    def with_indices_of(a, b):
        axis = a.indices.ndim - 2
        data = jnp.concatenate([a.data, jnp.zeros(b.data.shape, a.data.dtype)], axis=axis)
        indices = jnp.concatenate([a.indices, b.indices], axis=axis)
        return sum_duplicates(js.BCOO((data, indices), shape=a.shape))

    x1 = with_indices_of(x1, x2)
    return x1, with_indices_of(x2, x1)


def _binary_union(func):
    def kernel(x1, x2):
        if not (_sparse(x1) and _sparse(x2) and _same_shape(x1, x2)) or _traced(x1):
            return NotImplemented  # (a union's size depends on the values: eager only)
        if x1.n_batch or x2.n_batch or x1.n_dense or x2.n_dense:
            return NotImplemented
        a, b = _union(x1, x2)
        return _js().BCOO((func(a.data, b.data), a.indices), shape=a.shape,
                          indices_sorted=True, unique_indices=True)

    return kernel


def multiply(x1, x2):
    js = _js()
    if _sparse(x1) and _sparse(x2):
        return js.bcoo_multiply_sparse(x1, x2) if _same_shape(x1, x2) else NotImplemented
    sp, dense = (x1, x2) if _sparse(x1) else (x2, x1)
    if jnp.broadcast_shapes(sp.shape, dense.shape) != tuple(sp.shape):
        return NotImplemented  # (the dense operand widens the result)
    if dense.ndim == 0:
        return with_values(sp, sp.data * dense)
    return with_values(sp, js.bcoo_multiply_dense(sp, dense))  # (it gives the values)


def matmul(x1, x2):
    if x1.ndim < 2 or x2.ndim < 2:
        return NotImplemented
    return x1 @ x2  # (BCOO's matmul: bcoo_dot_general; sparse @ sparse stays sparse)


def transpose(x, axes):
    return _js().bcoo_transpose(x, permutation=tuple(axes))


def reshape(x, newshape):
    return _js().bcoo_reshape(x, new_sizes=tuple(newshape))


def concatenate(xs, axis):
    if not all(map(_sparse, xs)):
        return NotImplemented  # dense parts: a dense result, computed densely
    return _js().bcoo_concatenate(list(xs), dimension=axis)


def sum(x, axis=None, keepdims=False):  # noqa: A001  (the op's name)
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    out = _js().bcoo_reduce_sum(x, axes=axes).todense()
    if keepdims:
        out = jnp.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return out


def trace_key(x):
    """A compiled function's signature depends on the number of stored elements (the
    shape of ``data``) and on what BCOO keeps static."""
    return (x.nse, x.n_batch, x.n_dense, x.indices_sorted, x.unique_indices)


def _hot(x, num_classes, axis, dtype):
    """The one-hot BCOO of ``x``: one stored element per element of ``x`` (a static count,
    so it traces), class axis at ``axis``; an out-of-range class (possible only under a
    trace) is stored as a zero at class 0."""
    from .core import JAX_DTYPES as _JD

    valid = (x >= 0) & (x < num_classes)
    at = jnp.indices(x.shape).reshape(x.ndim, -1).T  # row-major positions
    cls = jnp.where(valid, x, 0).astype(at.dtype).reshape(-1, 1)
    indices = jnp.concatenate([at[:, :axis], cls, at[:, axis:]], axis=1)
    shape = x.shape[:axis] + (num_classes,) + x.shape[axis:]
    return _js().BCOO((valid.reshape(-1).astype(_JD[dtype]), indices), shape=shape,
                      indices_sorted=axis == x.ndim, unique_indices=True)


def one_hot(x, num_classes, axis, dtype):
    """The indices built directly, never the dense tensor."""
    return _hot(x, num_classes, axis, dtype)


def multi_hot(inputs, num_classes, axis, dtype):
    """one_hot's indices with the reduced axis dropped, duplicates merged."""
    from .core import JAX_DTYPES as _JD

    red = 1 if inputs.ndim > 1 else 0
    oh = _hot(inputs, num_classes, axis, "int32")
    indices = jnp.concatenate([oh.indices[:, :red], oh.indices[:, red + 1:]], axis=1)
    shape = oh.shape[:red] + oh.shape[red + 1:]
    out = sum_duplicates(_js().BCOO((oh.data, indices), shape=shape))
    return with_values(out, (out.data != 0).astype(_JD[dtype]))


def _linear_union(negate):
    """add, subtract: both operands' stored elements side by side (a linear op may keep
    duplicate indices: they are summed where it matters), static in size, so it traces."""
    def kernel(x1, x2):
        if not (_sparse(x1) and _sparse(x2) and _same_shape(x1, x2)):
            return NotImplemented
        if x1.n_batch or x2.n_batch or x1.n_dense or x2.n_dense:
            return NotImplemented
        data2 = -x2.data if negate else x2.data
        return _js().BCOO((jnp.concatenate([x1.data, data2]),
                           jnp.concatenate([x1.indices, x2.indices.astype(x1.indices.dtype)])),
                          shape=x1.shape)

    return kernel


kernels = {
    "add": _linear_union(False), "subtract": _linear_union(True),
    "maximum": _binary_union(jnp.maximum), "minimum": _binary_union(jnp.minimum),
    "multiply": multiply, "matmul": matmul, "transpose": transpose, "reshape": reshape,
    "concatenate": concatenate, "sum": sum, "one_hot": one_hot, "multi_hot": multi_hot,
}
