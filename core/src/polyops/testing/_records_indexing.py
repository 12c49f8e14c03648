"""Op records of `polyops.ops.numpy.indexing` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import numpy as np

from ._records import OpRecord

F = ("float32",)
FIB = ("float32", "int32", "bool")  # a float, an int, bool: ops that only move values
FHI = ("float32", "float16", "int8")


def _arr(dtype, rng, shape, lo=-5, hi=6):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype.startswith("u") else lo, hi, shape).astype(dtype)
    return rng.normal(0, 2, shape).astype(np.float32).astype(
        "float32" if dtype == "bfloat16" else dtype)


def _tal(xshape, ishape, axis, n):
    def make(dtype, rng):
        return [_arr(dtype, rng, xshape), rng.integers(-n, n, ishape).astype(np.int32)]
    return make


def _tal_np(x, idx, axis=None):
    if axis is None:
        x = x.ravel()
        n = x.shape[0]
        return np.take_along_axis(x, np.where(idx < 0, idx + n, idx), 0)
    n = x.shape[axis]
    idx = np.where(idx < 0, idx + n, idx)
    shape = np.broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                idx.shape[:axis] + (1,) + idx.shape[axis + 1:])
    full = shape[:axis] + (idx.shape[axis],) + shape[axis + 1:]
    xs = shape[:axis] + (x.shape[axis],) + shape[axis + 1:]
    return np.take_along_axis(np.broadcast_to(x, xs), np.broadcast_to(idx, full), axis)


def _geom_make(dtype, rng):
    return [np.array([1.0, -2.0, 3.0], np.float32), np.array([[100.0, -0.5, 3.0]] * 2, np.float32)]


def _select_make(dtype, rng):
    conds = [rng.random((3, 4)) > 0.5, rng.random((4,)) > 0.5]
    return conds + [_arr(dtype, rng, (3, 4)), _arr(dtype, rng, (3, 1))]


def _unravel_make(dtype, rng):
    return [rng.integers(0, 24, (2, 5)).astype(dtype)]


def _pad_np(mode):
    def fn(x, pad_width, mode=mode, **kw):
        return np.pad(x, pad_width, mode=mode, **kw)
    return fn


RECORDS: list[OpRecord] = [
    # gathers
    OpRecord("take_along_axis", make=_tal((3, 4), (3, 2), 1, 4), kwargs=dict(axis=1),
             np_fn=_tal_np, dtypes=FIB),
    OpRecord("take_along_axis", make=_tal((3, 4, 2), (5, 1, 2), 0, 3), kwargs=dict(axis=-3),
             np_fn=_tal_np, id="take_along_axis-broadcast"),
    OpRecord("take_along_axis", make=_tal((2, 3), (4,), None, 6), np_fn=_tal_np,
             id="take_along_axis-flat", dtypes=("float32", "int8")),
    OpRecord("take_along_axis", make=_tal((3, 0), (3, 0), 1, 1), kwargs=dict(axis=1),
             np_fn=lambda x, i, axis: np.zeros((3, 0), x.dtype), id="take_along_axis-empty"),
    # creation
    OpRecord("array", shapes=((2, 3),), np_fn=np.array, dtypes=("float32", "int8", "bool")),
    OpRecord("array", shapes=((2, 3),), kwargs=dict(dtype="float16"), id="array-dtype",
             np_fn=lambda x, dtype: x.astype(dtype), dtypes=("int32", "bool")),
    OpRecord("copy", shapes=((2, 3),), dtypes=("float32", "bfloat16", "int32", "bool")),
    OpRecord("copy", shapes=((),), id="copy-0d"),
    OpRecord("empty", shapes=(), pre=((2, 3),), np_fn=lambda s: np.zeros(s, np.float32)),
    OpRecord("empty", shapes=(), pre=((0, 2),), kwargs=dict(dtype="int8"), id="empty-int8",
             np_fn=lambda s, dtype: np.zeros(s, dtype)),
    OpRecord("empty_like", shapes=((2, 3),), np_fn=np.zeros_like, dtypes=FIB),
    OpRecord("empty_like", shapes=((2, 3),), kwargs=dict(dtype="float16"), id="empty_like-dtype",
             np_fn=lambda x, dtype: np.zeros(x.shape, dtype), dtypes=("int32",)),
    OpRecord("identity", shapes=(), pre=(3,), np_fn=lambda n: np.identity(n, np.float32)),
    OpRecord("identity", shapes=(), pre=(2,), kwargs=dict(dtype="bool"), id="identity-bool",
             np_fn=lambda n, dtype: np.identity(n, dtype)),
    OpRecord("tri", shapes=(), pre=(3,), np_fn=lambda n: np.tri(n, dtype=np.float32)),
    OpRecord("tri", shapes=(), pre=(3, 5, -1), kwargs=dict(dtype="int32"), id="tri-rect",
             np_fn=lambda n, m, k, dtype: np.tri(n, m, k, dtype)),
    # triangles and diagonals
    OpRecord("tril", shapes=((3, 4),), np_fn=np.tril, dtypes=FIB),
    OpRecord("tril", shapes=((2, 3, 4),), kwargs=dict(k=-1), id="tril-batch-k",
             np_fn=lambda x, k: np.tril(x, k)),
    OpRecord("triu", shapes=((3, 4),), np_fn=np.triu, dtypes=FIB),
    OpRecord("triu", shapes=((2, 4, 3),), kwargs=dict(k=2), id="triu-batch-k",
             np_fn=lambda x, k: np.triu(x, k)),
    OpRecord("diag", shapes=((3,),), np_fn=np.diag, dtypes=FIB),
    OpRecord("diag", shapes=((3,),), kwargs=dict(k=-2), id="diag-vector-k",
             np_fn=lambda x, k: np.diag(x, k)),
    OpRecord("diag", shapes=((3, 4),), kwargs=dict(k=1), id="diag-matrix",
             np_fn=lambda x, k: np.diag(x, k), dtypes=("float32", "int32")),
    OpRecord("diag", shapes=((0,),), kwargs=dict(k=1), id="diag-empty",
             np_fn=lambda x, k: np.diag(x, k)),
    OpRecord("diagflat", shapes=((2, 2),), np_fn=np.diagflat, dtypes=FIB),
    OpRecord("diagflat", shapes=((3,),), kwargs=dict(k=1), id="diagflat-k",
             np_fn=lambda x, k: np.diagflat(x, k)),
    OpRecord("diagonal", shapes=((3, 4),), np_fn=np.diagonal, dtypes=FIB),
    OpRecord("diagonal", shapes=((2, 3, 4),), kwargs=dict(offset=-1, axis1=2, axis2=-2),
             id="diagonal-axes", np_fn=lambda x, offset, axis1, axis2: np.diagonal(x, offset, axis1, axis2)),
    OpRecord("diagonal", shapes=((2, 3),), kwargs=dict(offset=5), id="diagonal-empty",
             np_fn=lambda x, offset: np.diagonal(x, offset)),
    OpRecord("trace", shapes=((3, 4),), np_fn=np.trace, dtypes=("float32", "int8", "bool")),
    OpRecord("trace", shapes=((2, 3, 4),), kwargs=dict(offset=1, axis1=1, axis2=2), id="trace-axes",
             np_fn=lambda x, offset, axis1, axis2: np.trace(x, offset, axis1, axis2)),
    OpRecord("trace", shapes=((2, 3),), kwargs=dict(offset=-4), id="trace-empty",
             np_fn=lambda x, offset: np.trace(x, offset)),
    # spaced values
    OpRecord("geomspace", shapes=(), pre=(1.0, 1000.0, 4), np_fn=np.geomspace),
    OpRecord("geomspace", shapes=(), pre=(-2, -50, 5), kwargs=dict(endpoint=False),
             id="geomspace-negative", np_fn=lambda a, b, n, endpoint: np.geomspace(a, b, n, endpoint)),
    OpRecord("geomspace", make=_geom_make, pre=(), kwargs=dict(num=4, axis=-1),
             id="geomspace-tensors", np_fn=lambda a, b, num, axis: np.geomspace(a, b, num, axis=axis)),
    OpRecord("logspace", shapes=(), pre=(0.0, 3.0, 4), np_fn=np.logspace),
    OpRecord("logspace", shapes=(), pre=(1, -2, 5), kwargs=dict(base=2.0, endpoint=False, dtype="float16"),
             id="logspace-base", np_fn=lambda a, b, n, base, endpoint, dtype: np.logspace(
                 a, b, n, endpoint, base).astype(np.float32)),
    OpRecord("logspace", make=_geom_make, kwargs=dict(num=3, axis=1), id="logspace-tensors",
             np_fn=lambda a, b, num, axis: np.logspace(a, b, num, axis=axis)),
    # structured
    OpRecord("vander", shapes=((4,),), np_fn=lambda x: np.vander(x).astype(x.dtype),
             dtypes=("float32", "int32", "int8")),
    OpRecord("vander", shapes=((3,),), kwargs=dict(N=5, increasing=True), id="vander-N",
             np_fn=lambda x, N, increasing: np.vander(x, N, increasing)),
    OpRecord("vander", shapes=((3,),), kwargs=dict(N=0), id="vander-N0",
             np_fn=lambda x, N: np.vander(x, N)),
    OpRecord("meshgrid", shapes=((3,), (4,)), np_fn=lambda a, b: np.meshgrid(a, b),
             dtypes=("float32", "int32")),
    OpRecord("meshgrid", shapes=((2,), (3,), (2, 2)), kwargs=dict(indexing="ij"), id="meshgrid-ij",
             np_fn=lambda a, b, c, indexing: np.meshgrid(a, b, c, indexing=indexing)),
    OpRecord("meshgrid", shapes=((3,),), id="meshgrid-one", np_fn=np.meshgrid),
    # index arithmetic and selection
    OpRecord("unravel_index", make=_unravel_make, kwargs=dict(shape=(2, 3, 4)),
             np_fn=lambda i, shape: np.unravel_index(i, shape), dtypes=("int32", "uint8")),
    OpRecord("unravel_index", make=lambda dtype, rng: [np.array(7, dtype)], kwargs=dict(shape=(8,)),
             id="unravel_index-0d", np_fn=lambda i, shape: np.unravel_index(i, shape), dtypes=("int32",)),
    OpRecord("select", make=_select_make, lists=(2, 2), np_fn=lambda c, ch: np.select(c, ch),
             dtypes=("float32", "int8", "bool"),
             tol={}),
    OpRecord("select", make=_select_make, lists=(2, 2), kwargs=dict(default=-1.5), id="select-default",
             np_fn=lambda c, ch, default: np.select(c, ch, default), dtypes=("float32", "float16")),
    # pad
    OpRecord("pad", shapes=((2, 3),), kwargs=dict(pad_width=((1, 2), (0, 1))),
             np_fn=_pad_np("constant"), dtypes=("float32", "int8", "bool")),
    OpRecord("pad", shapes=((2, 3),), kwargs=dict(pad_width=1, constant_values=7), id="pad-value",
             np_fn=_pad_np("constant"), dtypes=("float32", "uint8")),
    *[OpRecord("pad", shapes=((3, 4),), kwargs=dict(pad_width=((2, 5), (4, 1)), mode=mode),
               id=f"pad-{mode}", np_fn=_pad_np(mode), dtypes=("float32", "int32"))
      for mode in ("edge", "reflect", "symmetric", "wrap", "maximum", "minimum")],
    *[OpRecord("pad", shapes=((3, 4),), kwargs=dict(pad_width=((2, 1), (1, 2)), mode=mode),
               id=f"pad-{mode}", np_fn=_pad_np(mode), dtypes=("float32", "int32", "float16"))
      for mode in ("mean", "median", "linear_ramp")],
    OpRecord("pad", shapes=((4, 5),), kwargs=dict(pad_width=(2,), mode="median"), id="pad-median-odd",
             np_fn=_pad_np("median"), dtypes=("float32", "int8")),
    OpRecord("pad", shapes=((2, 3),), kwargs=dict(pad_width=(1, 2), mode="empty"), id="pad-empty",
             np_fn=lambda x, pad_width, mode: np.pad(x, pad_width), dtypes=("float32",)),
    OpRecord("pad", shapes=((0, 3),), kwargs=dict(pad_width=((1, 1), (0, 0))), id="pad-zero-size",
             np_fn=_pad_np("constant")),
    OpRecord("pad", shapes=((),), kwargs=dict(pad_width=1), id="pad-0d", np_fn=_pad_np("constant")),
]
