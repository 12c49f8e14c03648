"""PyTorch kernels of `polyops.ops.numpy.manipulation`: rearranging, joining and
splitting (ravel, rot90, roll, tile, split, hstack...)."""

from __future__ import annotations

import torch

from ._common import _flip_dims, _moving, _widened


# ===== rearranging ==================================================================


ravel = torch.ravel  # 0-d gives (1,)


def fliplr(x):
    return _flip_dims(x, (1,))


def flipud(x):
    return _flip_dims(x, (0,))


swapaxes = torch.swapaxes


moveaxis = torch.movedim


def _rot90(array, k, axes):
    return torch.rot90(array, k, list(axes))


rot90 = _moving(_rot90)


# ===== joining ======================================================================


def append(x1, x2, axis):
    if axis is None:
        return torch.cat([x1.reshape(-1), x2.reshape(-1)])
    return torch.cat([x1, x2], axis)


# NumPy's lifting (atleast_1d / 2d / 3d, column vectors) is torch's too
hstack = torch.hstack
vstack = torch.vstack
dstack = torch.dstack
column_stack = torch.column_stack


# ===== differences and repeats ======================================================


def _diff(a, n, axis):
    if n == 0:
        return a
    return torch.diff(a, n, axis)  # bool: xor, which is NumPy's not_equal


diff = _widened(_diff)


def repeat(x, repeats, axis):
    if axis is None:
        x, axis = x.reshape(-1), 0
    if isinstance(repeats, tuple):
        repeats = torch.tensor(repeats, dtype=torch.int64)
    signed = _SAME_BITS.get(x.dtype)
    if signed is not None:  # torch's index_select has no uint16/32/64 kernel: move the bits
        return torch.repeat_interleave(x.view(signed), repeats, axis).view(x.dtype)
    return torch.repeat_interleave(x, repeats, axis)


_SAME_BITS = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def tile(x, repeats):
    return torch.tile(x, repeats)  # NumPy's leading 1s on either side


def roll(x, shift, axis):
    if axis is None:
        return torch.roll(x, shift)  # the flattened x, shape restored
    return torch.roll(x, shift, axis)


# ===== splitting ====================================================================


def _split(x, indices_or_sections, axis):
    # sections: equal pieces where they divide, else NumPy's array_split sizes; split
    # points: x[a:b] between them, as NumPy's (views, one torch call)
    return list(torch.tensor_split(x, indices_or_sections, axis))


def split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis)


def array_split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis)


def hsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 2)
