"""Op records of `polyops.ops.numpy.manipulation` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import numpy as np

from ._records import OpRecord

RECORDS: list[OpRecord] = []

_SHAPE_DTYPES = ("float32", "int8", "bool")  # shape ops: one float, one int, bool


def _counts(dtype, rng):
    """x of shape (2, 3) and a tensor of per-column counts (int32)."""
    return [(rng.normal(0, 2, (2, 3)) * 3).astype(dtype), np.array([2, 0, 3], np.int32)]


RECORDS += [
    # flattening, flipping, axes
    OpRecord("ravel", shapes=((2, 3, 4),), dtypes=_SHAPE_DTYPES),
    OpRecord("ravel", shapes=((),), id="ravel-0d"),
    OpRecord("ravel", shapes=((2, 0),), id="ravel-zero-size"),
    OpRecord("fliplr", shapes=((2, 3, 4),), dtypes=_SHAPE_DTYPES),
    OpRecord("flipud", shapes=((3, 4),), dtypes=_SHAPE_DTYPES),
    OpRecord("flipud", shapes=((5,),), id="flipud-1d"),
    OpRecord("swapaxes", shapes=((2, 3, 4),), kwargs=dict(axis1=0, axis2=-1), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, axis1, axis2: np.swapaxes(x, axis1, axis2)),
    OpRecord("moveaxis", shapes=((2, 3, 4),), kwargs=dict(source=0, destination=-1), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, source, destination: np.moveaxis(x, source, destination)),
    OpRecord("moveaxis", shapes=((2, 3, 4, 5),), kwargs=dict(source=(0, -1), destination=(2, 0)),
             id="moveaxis-tuple", np_fn=lambda x, source, destination: np.moveaxis(x, source, destination)),
    OpRecord("rot90", shapes=((2, 3),), dtypes=_SHAPE_DTYPES),
    *[OpRecord("rot90", shapes=((2, 3, 4),), kwargs=dict(k=k, axes=(2, 0)), id=f"rot90-k{k}",
               np_fn=lambda x, k, axes: np.rot90(x, k, axes)) for k in (0, 2, 3, -1)],
    # joining
    OpRecord("append", shapes=((2, 3), (4,)), dtypes=("float32", "int32", "bool")),
    OpRecord("append", shapes=((2, 3), (2, 1)), kwargs=dict(axis=-1), id="append-axis",
             np_fn=lambda a, b, axis: np.append(a, b, axis=axis)),
    OpRecord("append", shapes=((), ()), id="append-0d"),
    OpRecord("hstack", shapes=((2, 3), (2, 1)), lists=(2,), dtypes=("float32", "int32", "bool")),
    OpRecord("hstack", shapes=((3,), (2,), ()), lists=(3,), id="hstack-1d-0d"),
    OpRecord("vstack", shapes=((2, 3), (1, 3)), lists=(2,), dtypes=("float32", "int32", "bool")),
    OpRecord("vstack", shapes=((3,), (2, 3)), lists=(2,), id="vstack-1d"),
    OpRecord("vstack", shapes=((), ()), lists=(2,), id="vstack-0d"),
    OpRecord("dstack", shapes=((2, 3), (2, 3, 2)), lists=(2,), dtypes=("float32", "int32", "bool")),
    OpRecord("dstack", shapes=((3,), (3,)), lists=(2,), id="dstack-1d"),
    OpRecord("dstack", shapes=((), ()), lists=(2,), id="dstack-0d"),
    OpRecord("column_stack", shapes=((3,), (3, 2)), lists=(2,), dtypes=("float32", "int32", "bool")),
    OpRecord("column_stack", shapes=((), ()), lists=(2,), id="column_stack-0d"),
    OpRecord("column_stack", shapes=((0,), (0, 2)), lists=(2,), id="column_stack-zero-size"),
    # differences
    OpRecord("diff", shapes=((3, 5),), dtypes=("float32", "float16", "int8", "uint8", "bool")),
    OpRecord("diff", shapes=((4, 5),), kwargs=dict(n=2, axis=0), id="diff-n2-axis0",
             np_fn=lambda a, n, axis: np.diff(a, n, axis)),
    OpRecord("diff", shapes=((4, 5),), kwargs=dict(n=0), id="diff-n0",
             np_fn=lambda a, n: np.diff(a, n)),
    OpRecord("diff", shapes=((2, 3),), kwargs=dict(n=7), id="diff-n-large",
             np_fn=lambda a, n: np.diff(a, n), dtypes=("float32", "bool")),
    # repeating and rolling
    OpRecord("repeat", shapes=((2, 3),), kwargs=dict(repeats=2), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, repeats: np.repeat(x, repeats)),
    OpRecord("repeat", shapes=((2, 3),), kwargs=dict(repeats=[1, 0, 2], axis=1), id="repeat-counts",
             np_fn=lambda x, repeats, axis: np.repeat(x, repeats, axis)),
    OpRecord("repeat", shapes=((2, 3),), kwargs=dict(repeats=3, axis=-2), id="repeat-axis",
             np_fn=lambda x, repeats, axis: np.repeat(x, repeats, axis)),
    OpRecord("repeat", shapes=((),), kwargs=dict(repeats=0), id="repeat-0d-zero",
             np_fn=lambda x, repeats: np.repeat(x, repeats)),
    # the counts as a tensor: the size along the axis is data-dependent (None in the spec)
    OpRecord("repeat", shapes=((2, 3), (3,)), kwargs=dict(axis=1), id="repeat-tensor", make=_counts,
             np_fn=lambda x, r, axis: np.repeat(x, r, axis), dtypes=("float32", "int32")),
    OpRecord("tile", shapes=((2, 3),), kwargs=dict(repeats=(2, 1, 2)), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, repeats: np.tile(x, repeats)),
    OpRecord("tile", shapes=((2, 3, 2),), kwargs=dict(repeats=3), id="tile-int",
             np_fn=lambda x, repeats: np.tile(x, repeats)),
    OpRecord("tile", shapes=((2, 3),), kwargs=dict(repeats=(0, 2)), id="tile-zero",
             np_fn=lambda x, repeats: np.tile(x, repeats)),
    OpRecord("tile", shapes=((),), kwargs=dict(repeats=(2, 2)), id="tile-0d",
             np_fn=lambda x, repeats: np.tile(x, repeats)),
    OpRecord("roll", shapes=((3, 4),), kwargs=dict(shift=5), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, shift: np.roll(x, shift)),
    OpRecord("roll", shapes=((3, 4),), kwargs=dict(shift=(1, -3), axis=(0, 1)), id="roll-tuple",
             np_fn=lambda x, shift, axis: np.roll(x, shift, axis)),
    OpRecord("roll", shapes=((3, 4),), kwargs=dict(shift=(1, 2), axis=-1), id="roll-same-axis",
             np_fn=lambda x, shift, axis: np.roll(x, shift, axis)),
    OpRecord("roll", shapes=((3, 0),), kwargs=dict(shift=2, axis=1), id="roll-zero-size",
             np_fn=lambda x, shift, axis: np.roll(x, shift, axis)),
    # splitting (several outputs: lists of tensors)
    OpRecord("split", shapes=((6, 2),), kwargs=dict(indices_or_sections=3), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, indices_or_sections: np.split(x, indices_or_sections)),
    OpRecord("split", shapes=((2, 7),), kwargs=dict(indices_or_sections=[2, -2, 10], axis=-1),
             id="split-indices", np_fn=lambda x, indices_or_sections, axis: np.split(x, indices_or_sections, axis)),
    OpRecord("split", shapes=((5,),), kwargs=dict(indices_or_sections=[3, 1]), id="split-decreasing",
             np_fn=lambda x, indices_or_sections: np.split(x, indices_or_sections)),
    OpRecord("split", shapes=((0, 3),), kwargs=dict(indices_or_sections=2), id="split-zero-size",
             np_fn=lambda x, indices_or_sections: np.split(x, indices_or_sections)),
    OpRecord("array_split", shapes=((7, 2),), kwargs=dict(indices_or_sections=3), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, indices_or_sections: np.array_split(x, indices_or_sections)),
    OpRecord("array_split", shapes=((2, 3),), kwargs=dict(indices_or_sections=5, axis=1), id="array_split-more",
             np_fn=lambda x, indices_or_sections, axis: np.array_split(x, indices_or_sections, axis)),
    OpRecord("array_split", shapes=((6,),), kwargs=dict(indices_or_sections=(1, 4)), id="array_split-indices",
             np_fn=lambda x, indices_or_sections: np.array_split(x, indices_or_sections)),
    OpRecord("hsplit", shapes=((2, 4),), kwargs=dict(indices_or_sections=2), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, indices_or_sections: np.hsplit(x, indices_or_sections)),
    OpRecord("hsplit", shapes=((6,),), kwargs=dict(indices_or_sections=[2]), id="hsplit-1d",
             np_fn=lambda x, indices_or_sections: np.hsplit(x, indices_or_sections)),
    OpRecord("vsplit", shapes=((4, 3),), kwargs=dict(indices_or_sections=2), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, indices_or_sections: np.vsplit(x, indices_or_sections)),
    OpRecord("dsplit", shapes=((2, 3, 4),), kwargs=dict(indices_or_sections=[1, 3]), dtypes=_SHAPE_DTYPES,
             np_fn=lambda x, indices_or_sections: np.dsplit(x, indices_or_sections)),
]
