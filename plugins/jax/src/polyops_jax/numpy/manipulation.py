"""JAX kernels of ``polyops.ops.numpy.manipulation``: rearranging, joining and
splitting (flips, moveaxis, stacks, diff, repeat, tile, roll, the splits)."""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import numpy as np

from ._common import _b_max, _jit, builtins_range

ravel = jnp.ravel


def fliplr(x):
    return jnp.flip(x, 1)


def flipud(x):
    return jnp.flip(x, 0)


def swapaxes(x, axis1, axis2):
    return jnp.swapaxes(x, axis1, axis2)


def moveaxis(x, source, destination):
    return jnp.moveaxis(x, source, destination)


def rot90(array, k, axes):
    return jnp.rot90(array, k, axes)


def append(x1, x2, axis):
    return jnp.append(x1, x2, axis)


def hstack(xs):
    return jnp.hstack(xs)


def vstack(xs):
    return jnp.vstack(xs)


def dstack(xs):
    return jnp.dstack(xs)


def column_stack(xs):
    return jnp.column_stack(xs)


def diff(a, n, axis):
    # bool differences are not_equal (jnp.diff's own rule), ints wrap; n >= size: empty
    if n == 0:
        return a
    if n >= a.shape[axis]:
        return jax.lax.slice_in_dim(a, 0, 0, axis=axis)
    return jnp.diff(a, n, axis)


@_jit(1, 2)
def repeat(x, repeats, axis):
    # repeats is static (an int or a tuple of ints): the output length is known
    if type(repeats) is int:  # jnp's broadcast-reshape path (a total length takes a scatter)
        return jnp.repeat(x, repeats, axis)
    total = builtins.sum(repeats)
    return jnp.repeat(x, np.asarray(repeats, np.int32), axis, total_repeat_length=total)


def tile(x, repeats):
    return jnp.tile(x, repeats)


def roll(x, shift, axis):
    return jnp.roll(x, shift, axis)


def _split_bounds(size, sections, exact):
    if type(sections) is int:
        if exact:
            step = size // sections
            return [(i * step, (i + 1) * step) for i in builtins_range(sections)]
        q, r = divmod(size, sections)
        out, start = [], 0
        for i in builtins_range(sections):
            stop = start + q + (1 if i < r else 0)
            out.append((start, stop))
            start = stop
        return out
    points = (0,) + tuple(sections) + (size,)
    return [(points[i], _b_max(points[i], points[i + 1])) for i in builtins_range(len(points) - 1)]


def _split(x, sections, axis, exact):
    bounds = _split_bounds(x.shape[axis], sections, exact)
    if all(b[0] == a[1] for a, b in zip(bounds, bounds[1:])) and bounds[-1][1] == x.shape[axis]:
        # pieces that tile the axis: one lax.split, whose transpose is one concatenate (the
        # slices' is a zero pad per piece and their sum: 4x slower gradients at 256x256)
        return list(jax.lax.split(x, [b - a for a, b in bounds], axis=axis))
    # a point below its predecessor gives an empty piece, the next starts at that point
    return [jax.lax.slice_in_dim(x, a, b, axis=axis) for a, b in bounds]


@_jit(1, 2)
def split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, True)


@_jit(1, 2)
def array_split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, False)


@_jit(1)
def hsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 1 if x.ndim > 1 else 0, True)


@_jit(1)
def vsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 0, True)


@_jit(1)
def dsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 2, True)
