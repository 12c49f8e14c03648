"""JAX kernels of ``polyops.ops.numpy.indexing``: structured arrays (identity, tri,
vander, meshgrid...), triangles and diagonals, take_along_axis, select and pad."""

from __future__ import annotations

import jax.numpy as jnp

from polyops.plugin import nonempty

from ..core import JAX_DTYPES
from ..core import _cast
from ._common import _INT32, _as, _compiled_reference, _jit, _jit_exact


def take_along_axis(x, indices, axis):
    # negative indices wrap; out-of-range ones read 0, like take above
    return jnp.take_along_axis(x, indices, axis, mode="fill", fill_value=0)


def copy(x):
    return jnp.array(x, copy=True)


def array(x, dtype):
    # a new tensor: a copy, or the cast (always new), with core's cast rules
    jd = JAX_DTYPES[dtype]
    return jnp.array(x, copy=True) if x.dtype == jd else _cast(x, jd)


# core's references compiled (NumPy's endpoint and sign rules exactly)
geomspace = _compiled_reference("geomspace", 2, 3, 4, 5)
logspace = _compiled_reference("logspace", 2, 3, 4, 5, 6, exact=True)


def empty(shape, dtype):
    return jnp.zeros(shape, JAX_DTYPES[dtype])  # zeros: polyops' deterministic "empty"


def empty_like(x, dtype):
    return jnp.zeros(x.shape, JAX_DTYPES[dtype])


def identity(n, dtype):
    return jnp.identity(n, JAX_DTYPES[dtype])


def tri(N, M, k, dtype):
    return jnp.tri(N, M, k, JAX_DTYPES[dtype])


def tril(x, k):
    return jnp.tril(x, k)


def triu(x, k):
    return jnp.triu(x, k)


def diag(x, k):
    return jnp.diag(x, k)


def diagflat(x, k):
    return jnp.diagflat(x, k)


def diagonal(x, offset, axis1, axis2):
    return jnp.diagonal(x, offset, axis1, axis2)


def trace(x, offset, axis1, axis2):
    # x arrives in its accumulation dtype; dtype= keeps it (no widening)
    return jnp.trace(x, offset, axis1, axis2, dtype=x.dtype)


def vander(x, N, increasing):
    return _as(jnp.vander(x, N, increasing), x.dtype)


def meshgrid(*args):
    return _meshgrid(args[:-1], args[-1])


@_jit(1)
def _meshgrid(x, indexing):
    return list(jnp.meshgrid(*(t.reshape(-1) for t in x), indexing=indexing))


def unravel_index(indices, shape):
    # jnp.unravel_index clamps out-of-range indices; NumPy raises and core's contract gives
    # the floor-division/modulo coordinates (the first one unbounded)
    if not shape:
        return ()
    coords = []
    rem = indices
    for d in reversed(shape[1:]):
        coords.append(jnp.mod(rem, d))
        rem = jnp.floor_divide(rem, d)
    coords.append(rem)
    return tuple(_as(c, _INT32) for c in reversed(coords))


def select(condlist, choicelist, default):
    shape = jnp.broadcast_shapes(*(t.shape for t in (*condlist, *choicelist, default)))
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = jnp.where(cond, choice, out)
    return jnp.broadcast_to(out, shape)


# jnp.pad's stat modes reduce an empty axis and raise (core builds the empty results)
@nonempty
@_jit_exact(1, 2, 3)
def pad(x, pad_width, mode, constant_values):
    # jnp.pad pads axis by axis with NumPy's rules (stat modes over the whole axis, ints
    # rounded half to even); "circular" and "empty" arrive resolved
    if x.ndim == 0:  # nothing to pad (jnp.pad rejects the empty pad_width)
        return x
    if mode == "constant":
        return jnp.pad(x, pad_width, "constant", constant_values=constant_values)
    return jnp.pad(x, pad_width, mode)
