"""Range checks of index operands: gathers, scatters, one-hot encodings, sparse labels.

Eagerly, an index outside its range raises `polyops.IndexOutOfRangeError` naming the op,
the offending value and the size it indexes, the same on every backend.  Under a trace
(jax.jit, tf.function, polyops.jit, torch's fake tensors, openvino's lazy tensors) the
values do not exist yet, so nothing is checked and the op's documented result applies:
gathers read 0, scatters drop the row, one-hot rows are all zero, sparse losses give 0
(docs/numerics.md).  The ops' ``prepare`` hooks call these, so kernels and references
see only valid indices eagerly.

The cost is one read of small indices to the host (a min and a max there), or one min and
one max reduction of larger ones on the backend and a read of each.
"""

from __future__ import annotations

import math

import numpy as np

from .._op import IndexOutOfRangeError


def concrete(x) -> bool:
    """Whether the values of tensor ``x`` can be read here: an eager tensor of the current
    backend, not a tracer, graph, fake or lazy tensor (those are other types: a torch
    FakeTensor subclasses torch.Tensor)."""
    if isinstance(x, (np.ndarray, np.generic)):  # numpy and openvino tensors
        return True
    from .._registry import current

    return type(x) is current().runtime.tensor_types[0]


def _bounds(x, columns: bool):
    """(lowest, highest) of the integer tensor ``x`` as NumPy or Python numbers
    (``columns``: one per column of the last axis), or None when ``x`` is empty or has no
    values yet (traced)."""
    shape = tuple(x.shape)
    if 0 in shape or not concrete(x):
        return None
    axis = tuple(range(len(shape) - 1)) if columns else None
    if isinstance(x, (np.ndarray, np.generic)):  # no copy, no dispatch
        return _minmax(x, axis)
    from .._registry import current

    rt = current().runtime
    try:
        if math.prod(shape) <= _HOST_READ:  # one small read beats two reductions and reads
            return _minmax(rt.convert_to_numpy(x), axis)
        from .numpy import max as _max, min as _min

        return rt.convert_to_numpy(_min(x, axis)), rt.convert_to_numpy(_max(x, axis))
    except Exception:  # a value that only exists when a compiled graph runs
        return None


def _minmax(arr: np.ndarray, axis):
    if axis is None and arr.size <= _LISTED:  # a few values: Python's min and max (2.5x)
        values = arr.ravel().tolist()
        return min(values), max(values)
    return _MIN(arr, axis), _MAX(arr, axis)  # (the ufuncs' own reduce: np.min adds a frame)


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_HOST_READ = 1 << 14  # indices up to 64 KiB (int32) are read whole
_LISTED = 16  # up to this many: as a list (two reductions cost ~1.2 us; 64 values: the same)


def check_index(op: str, x, size, where: str, *, wrap: bool = True,
                what: str = "indices") -> None:
    """Raise unless every value of concrete ``x`` lies in ``[-size, size)`` (``wrap``:
    negative indices count from the end) or ``[0, size)``.  ``where`` names the indexed
    axis in the message ("for axis 0 of size 3")."""
    if size is None:  # an unknown dim: only under a trace
        return
    b = _bounds(x, False)
    if b is None:
        return
    lo, hi = int(b[0]), int(b[1])
    low = -size if wrap else 0
    if hi >= size or lo < low:
        raise IndexOutOfRangeError(
            f"{op}: expected {what} in [{low}, {size}) {where}, got {hi if hi >= size else lo}")


def check_rows(op: str, indices, shape: tuple) -> None:
    """Raise unless each column j of concrete ``indices`` (..., k) lies in
    ``[-shape[j], shape[j])``: the rows of a scatter into the first k dims of ``shape``."""
    k = indices.shape[-1] if len(indices.shape) else 0
    if not k or k > len(shape) or None in shape[:k]:
        return
    b = _bounds(indices, True)
    if b is None:
        return
    lo, hi = np.reshape(b[0], (-1,)), np.reshape(b[1], (-1,))
    for j in range(k):
        n = shape[j]
        if hi[j] >= n or lo[j] < -n:
            bad = int(hi[j] if hi[j] >= n else lo[j])
            raise IndexOutOfRangeError(
                f"{op}: expected indices[..., {j}] in [{-n}, {n}) for dim {j} of shape "
                f"{tuple(shape)}, got {bad}")
