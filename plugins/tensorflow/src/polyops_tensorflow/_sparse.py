"""TensorFlow's sparse tensors (``Runtime.sparse``): ``tf.SparseTensor``, and the kernels
that take them.  Core applies the rule of which results are sparse (`polyops._sparse`),
promotes the operands before these kernels and maps the zero-preserving unary ops over
the stored values itself; a kernel returns NotImplemented for a case it does not cover
(core then computes densely)."""

from __future__ import annotations

import weakref

from ._quiet import tf

types = (tf.SparseTensor,)
dense_forms = (tf.IndexedSlices,)  # (gradients of tf.gather: densified on entry)


def to_dense(x):
    """Duplicates summed (``tf.sparse.to_dense`` rejects them; scatter_nd adds them);
    a ``tf.IndexedSlices`` (a `dense_forms` class) as ``tf.convert_to_tensor`` makes it."""
    if isinstance(x, tf.IndexedSlices):
        return tf.convert_to_tensor(x)
    if x.dtype == tf.bool:  # (no bool scatter_nd kernel: or-ing is summing for bools)
        return tf.cast(to_dense(values_as(x, tf.int8)), tf.bool)
    return tf.scatter_nd(x.indices, x.values, x.dense_shape)


def from_dense(x):
    return _canonical(tf.sparse.from_dense(x))


def values(x):
    return x.values


def with_values(x, v):
    return tf.SparseTensor(x.indices, v, x.dense_shape)


def values_as(x, dtype):
    return with_values(x, tf.cast(x.values, dtype))


def _linear(indices, shape):
    """Each index as one int64: its position in the row-major dense tensor."""
    strides = tf.math.cumprod(shape, exclusive=True, reverse=True)
    return tf.reduce_sum(indices * strides, axis=1)


# id(indices) -> a weak reference to an eager indices tensor known sorted with each index
# once (made by from_dense or sum_duplicates; with_values keeps it): sum_duplicates, which
# every non-linear op calls first, then costs nothing for it
_KNOWN: dict = {}


def _canonical(x):
    if tf.executing_eagerly():
        key = id(x.indices)
        try:
            _KNOWN[key] = weakref.ref(x.indices, lambda _, key=key: _KNOWN.pop(key, None))
        except TypeError:  # (no weak references to it)
            pass
    return x


def sum_duplicates(x):
    """``x`` with sorted indices, each once (their values summed)."""
    if x.shape.rank == 0:
        return x
    known = _KNOWN.get(id(x.indices))
    if known is not None and known() is x.indices:
        return x
    flat = _linear(x.indices, x.dense_shape)
    if tf.executing_eagerly() and bool(tf.reduce_all(flat[1:] > flat[:-1])):
        return _canonical(x)  # already sorted, each index once
    x = tf.sparse.reorder(x)
    flat = _linear(x.indices, x.dense_shape)
    unique, where = tf.unique(flat)
    if x.dtype == tf.bool:
        summed = tf.math.unsorted_segment_max(tf.cast(x.values, tf.int8), where, tf.size(unique))
        summed = tf.cast(summed, tf.bool)
    else:
        summed = tf.math.unsorted_segment_sum(x.values, where, tf.size(unique))
    first = tf.math.unsorted_segment_min(tf.range(tf.size(flat)), where, tf.size(unique))
    return _canonical(tf.SparseTensor(tf.gather(x.indices, first), summed, x.dense_shape))


def _sparse(x) -> bool:
    return isinstance(x, tf.SparseTensor)


def _same_shape(x1, x2) -> bool:
    return tuple(x1.shape) == tuple(x2.shape) and None not in tuple(x1.shape)


def add(x1, x2):
    if _sparse(x1) and _sparse(x2):
        return tf.sparse.add(x1, x2) if _same_shape(x1, x2) else NotImplemented
    sp, dense = (x1, x2) if _sparse(x1) else (x2, x1)
    if _same_shape(sp, dense):  # the union with a dense tensor is dense
        return tf.sparse.add(sp, dense)
    return NotImplemented


def subtract(x1, x2):
    if _sparse(x2):
        x2 = tf.sparse.map_values(tf.negative, x2)
    else:
        x2 = tf.negative(x2)
    return add(x1, x2)


def maximum(x1, x2):
    if _sparse(x1) and _sparse(x2) and _same_shape(x1, x2):
        return tf.sparse.maximum(sum_duplicates(x1), sum_duplicates(x2))
    return NotImplemented


def minimum(x1, x2):
    if _sparse(x1) and _sparse(x2) and _same_shape(x1, x2):
        return tf.sparse.minimum(sum_duplicates(x1), sum_duplicates(x2))
    return NotImplemented


def _gather_broadcast(dense, indices, shape):
    """``dense`` (broadcastable to ``shape``) read at each of ``indices`` (into ``shape``)."""
    rank = len(shape)
    dense = tf.reshape(dense, (1,) * (rank - dense.shape.rank) + tuple(dense.shape))
    keep = tf.constant([d != 1 for d in dense.shape], tf.int64)
    return tf.gather_nd(dense, indices * keep)


def multiply(x1, x2):
    if _sparse(x1) and _sparse(x2):
        if not _same_shape(x1, x2):
            return NotImplemented
        x1, x2 = sum_duplicates(x1), sum_duplicates(x2)
        l1, l2 = _linear(x1.indices, x1.dense_shape), _linear(x2.indices, x2.dense_shape)
        # where each of x1's indices would sit among x2's (sorted); -1 past the end matches none
        pos = tf.searchsorted(l2, l1)
        hit = tf.equal(tf.gather(tf.concat([l2, tf.constant([-1], l2.dtype)], 0), pos), l1)
        return tf.SparseTensor(tf.boolean_mask(x1.indices, hit),
                               tf.boolean_mask(x1.values, hit)
                               * tf.gather(x2.values, tf.boolean_mask(pos, hit)),
                               x1.dense_shape)
    sp, dense = (x1, x2) if _sparse(x1) else (x2, x1)
    shape = tuple(sp.shape)
    if None in shape or tuple(tf.broadcast_static_shape(sp.shape, dense.shape)) != shape:
        return NotImplemented  # (the dense operand widens the result)
    return with_values(sp, sp.values * _gather_broadcast(dense, sp.indices, shape))


def matmul(x1, x2):
    if x1.shape.rank != 2 or x2.shape.rank != 2 or _sparse(x1) == _sparse(x2):
        return NotImplemented
    if _sparse(x1):
        return tf.sparse.sparse_dense_matmul(x1, x2)
    # dense @ sparse = (sparse^T @ dense^T)^T
    return tf.transpose(tf.sparse.sparse_dense_matmul(x2, x1, adjoint_a=True, adjoint_b=True))


def transpose(x, axes):
    return tf.sparse.transpose(x, axes)


def reshape(x, newshape):
    return tf.sparse.reshape(x, newshape)


def concatenate(xs, axis):
    if not all(map(_sparse, xs)):
        return NotImplemented  # dense parts: a dense result, computed densely
    return tf.sparse.concat(axis, xs)


def sum(x, axis=None, keepdims=False):  # noqa: A001  (the op's name)
    if axis == ():
        return NotImplemented
    if x.dtype == tf.bool:
        return NotImplemented
    return tf.sparse.reduce_sum(x, axis=axis, keepdims=keepdims)


def _hot_indices(x, num_classes, axis):
    """The (k, rank + 1) indices of the ones of ``x``'s one-hot encoding (class axis at
    ``axis``), in row-major order of ``x``; out-of-range classes (possible only under a
    trace: eagerly core raises first) have none, as densely."""
    x = tf.cast(x, tf.int64)
    at = tf.where((x >= 0) & (x < num_classes))  # (k, rank), row-major
    cls = tf.gather_nd(x, at)[:, None]
    return tf.concat([at[:, :axis], cls, at[:, axis:]], axis=1)


def _hot_shape(x, num_classes, axis):
    shape = list(x.shape)
    if None in shape:  # (under a trace with unknown dims: the dynamic shape)
        shape = tf.shape(x, out_type=tf.int64)
        return tf.concat([shape[:axis], [num_classes], shape[axis:]], axis=0)
    return shape[:axis] + [num_classes] + shape[axis:]


def one_hot(x, num_classes, axis, dtype):
    """The indices built directly: ``x.size`` stored ones, never the dense tensor."""
    from .core import TF_DTYPES

    indices = _hot_indices(x, num_classes, axis)
    out = tf.SparseTensor(indices, tf.ones(tf.shape(indices)[:1], TF_DTYPES[dtype]),
                          _hot_shape(x, num_classes, axis))
    return out if axis == x.shape.rank else tf.sparse.reorder(out)


def multi_hot(inputs, num_classes, axis, dtype):
    """one_hot's indices with the reduced axis dropped, each once."""
    from .core import TF_DTYPES

    red = 1 if inputs.shape.rank > 1 else 0
    indices = _hot_indices(inputs, num_classes, axis)
    indices = tf.concat([indices[:, :red], indices[:, red + 1:]], axis=1)
    shape = _hot_shape(inputs, num_classes, axis)
    shape = (shape[:red] + shape[red + 1:] if isinstance(shape, list) else
             tf.concat([shape[:red], shape[red + 1:]], axis=0))
    ones = tf.ones(tf.shape(indices)[:1], tf.int8)
    out = sum_duplicates(tf.SparseTensor(indices, ones, shape))  # (sorted, each once)
    return with_values(out, tf.ones_like(out.values, TF_DTYPES[dtype]))


kernels = {
    "add": add, "subtract": subtract, "maximum": maximum, "minimum": minimum,
    "multiply": multiply, "matmul": matmul, "transpose": transpose, "reshape": reshape,
    "concatenate": concatenate, "sum": sum, "one_hot": one_hot, "multi_hot": multi_hot,
}
