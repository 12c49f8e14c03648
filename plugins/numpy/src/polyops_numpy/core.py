"""NumPy runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import builtins

import numpy as np

from polyops._dtypes import HALF_FLOATS
from polyops.plugin import LateBfloat16, Runtime, reference

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)


# bfloat16 is ml_dtypes', imported when bfloat16 is first asked for (NP_DTYPES["bfloat16"])
# or met (a bfloat16 array: the user has imported ml_dtypes); until then `_BF16` is a
# placeholder dtype that no array has (see polyops.plugin.LateBfloat16).
def _learn(bf16):
    dict.__setitem__(NP_DTYPES, "bfloat16", bf16)
    dict.__setitem__(DTYPES, bf16, "bfloat16")


_LATE = LateBfloat16(__package__, _learn)
_BF16 = _LATE.placeholder
NP_DTYPES = _LATE.names((name, np.dtype(name)) for name in _NAMES)
HALF_NP = tuple(_BF16 if d == "bfloat16" else NP_DTYPES[d] for d in HALF_FLOATS)
DTYPES = _LATE.dtypes((nd, name) for name, nd in NP_DTYPES.items())
_LATE.learn_if_loaded()


def convert_to_tensor(x, dtype):
    nd = NP_DTYPES[dtype]
    if isinstance(x, np.ndarray):
        return x if x.dtype == nd else x.astype(nd)
    return np.asarray(x, dtype=nd)


def convert_to_numpy(x):
    return np.asarray(x)


RUNTIME = Runtime(
    name="numpy",
    version=np.__version__,
    tensor_types=(np.ndarray, np.generic),
    dtypes=DTYPES,
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    devices=lambda: ["cpu:0"],  # host memory, named as jax, tensorflow and torch name it
    sparse="polyops_numpy._sparse",  # scipy.sparse COO arrays, the [sparse] extra (docs/sparse.md)
)



def cast(x, dtype):
    x = np.asarray(x)
    nd = NP_DTYPES[dtype]
    if x.dtype == _BF16 and nd.kind in "iu":
        # ml_dtypes 0.7 converts bfloat16 -> int8 directly (300 -> 0); through float32, which
        # holds every bfloat16 exactly, NumPy's float -> int rule applies (300 -> 44)
        x = x.astype(np.float32)
    return x.astype(nd)


# ----- scatter / slice (control flow keeps core's references: they are the Python loops)


def _rows(indices, dims):
    """The index columns of the in-range rows of ``indices`` (N, k) into ``dims``
    (negatives wrapped once; rows out of range dropped) and the mask of those rows."""
    d = np.asarray(dims, indices.dtype)
    idx = np.where(indices < 0, indices + d, indices)
    ok = np.all((idx >= 0) & (idx < d), axis=1)
    return tuple(idx[ok].T), ok


def scatter(indices, values, shape):
    shape = tuple(shape)
    k = indices.shape[-1]
    if k == 0:  # rows that index nothing: the reference's sum
        return reference("scatter")(indices, values, shape)
    idx = indices.reshape(-1, k)
    vals = values.reshape(idx.shape[:1] + shape[k:])
    cols, ok = _rows(idx, shape[:k])
    out = np.zeros(shape, values.dtype)
    # ufunc.at accumulates duplicates (plain fancy assignment would keep one); bool: or
    (np.logical_or if values.dtype == bool else np.add).at(out, cols, vals[ok])
    return out


_AT = {"add": np.add, "max": np.maximum, "min": np.minimum, "mul": np.multiply}
_AT_BOOL = {"add": np.logical_or, "max": np.logical_or, "min": np.logical_and,
            "mul": np.logical_and}


def scatter_update(inputs, indices, updates, reduction=None):
    target = inputs.shape
    k = indices.shape[-1]
    if k == 0:
        return reference("scatter_update")(inputs, indices, updates, reduction)
    cols, ok = _rows(indices, target[:k])
    updates = updates[ok]
    out = np.array(inputs)  # a copy, and an ndarray for 0-d (np.generic) inputs
    if reduction is None:
        # NumPy does not promise which of duplicate indices an assignment keeps: keep
        # only the last row of each position (the first one in reversed order).
        lin = np.ravel_multi_index(cols, target[:k])
        _, first = np.unique(lin[::-1], return_index=True)
        last = len(lin) - 1 - first
        out[tuple(c[last] for c in cols)] = updates[last]
        return out
    (_AT_BOOL if inputs.dtype == bool else _AT)[reduction].at(out, cols, updates)
    return out


def _starts(start_indices):
    """The start indices as Python ints (their count checked by the op's prepare)."""
    return [int(s) for s in np.asarray(start_indices).reshape(-1)]


def slice(inputs, start_indices, shape):
    key = []
    for s, d, n in zip(_starts(start_indices), inputs.shape, shape):
        if n == -1:
            n = d - min(max(s, 0), d)
        s = min(max(s, 0), d - n)  # clamped so that the block fits
        key.append(builtins.slice(s, s + n))
    return inputs[tuple(key)]


def slice_update(inputs, start_indices, updates):
    key = []
    for s, d, u in zip(_starts(start_indices), inputs.shape, updates.shape):
        s = min(max(s, 0), d - u)
        key.append(builtins.slice(s, s + u))
    out = np.array(inputs)
    out[tuple(key)] = updates
    return out
