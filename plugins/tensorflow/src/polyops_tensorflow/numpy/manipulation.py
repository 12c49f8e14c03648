"""TensorFlow kernels of ``polyops.ops.numpy.manipulation``: rearranging, joining and
splitting (roll, tile, split, hstack...).
"""

from __future__ import annotations

import builtins

import tensorflow as tf

from ._common import _BOOL, _INT32, _ints
from .base import subtract


def ravel(x):
    return tf.reshape(x, _ints((-1,)))


def fliplr(x):
    return tf.reverse(x, _ints((1,)))


def flipud(x):
    return tf.reverse(x, _ints((0,)))


def swapaxes(x, axis1, axis2):
    if axis1 == axis2:
        return x
    perm = list(range(x.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return tf.transpose(x, _ints(perm))


def moveaxis(x, source, destination):
    order = [a for a in range(x.shape.rank) if a not in source]
    for dst, src in builtins.sorted(zip(destination, source)):
        order.insert(dst, src)
    return x if order == list(range(len(order))) else tf.transpose(x, _ints(order))


def rot90(array, k, axes):
    a, b = axes
    if k == 0:
        return array
    if k == 2:
        return tf.reverse(array, _ints((a, b)))
    perm = list(range(array.shape.rank))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return tf.transpose(tf.reverse(array, _ints((b,))), _ints(perm))
    return tf.reverse(tf.transpose(array, _ints(perm)), _ints((b,)))


def append(x1, x2, axis):
    if axis is None:
        x1, x2, axis = tf.reshape(x1, _ints((-1,))), tf.reshape(x2, _ints((-1,))), 0
    return tf.concat([x1, x2], axis)


def _lifted(xs, lift):
    out = []
    for x in xs:
        shape = x.shape.as_list()
        want = lift(shape)
        out.append(x if want == shape else tf.reshape(x, _ints([-1 if s is None else s for s in want])))
    return out


def _lift_vstack(s):
    return s if len(s) >= 2 else [1] * (2 - len(s)) + s


def _lift_column(s):
    return s if len(s) >= 2 else [s[0], 1] if len(s) == 1 else [1, 1]


def _lift_dstack(s):
    n = len(s)
    return [1, 1, 1] if n == 0 else [1, s[0], 1] if n == 1 else s + [1] if n == 2 else s


def hstack(xs):
    parts = _lifted(xs, lambda s: s if s else [1])
    return tf.concat(parts, 0 if parts[0].shape.rank == 1 else 1)


def vstack(xs):
    return tf.concat(_lifted(xs, _lift_vstack), 0)


def dstack(xs):
    return tf.concat(_lifted(xs, _lift_dstack), 2)


def column_stack(xs):
    return tf.concat(_lifted(xs, _lift_column), 1)


def diff(a, n, axis):
    if n == 0:
        return a
    lead = (slice(None),) * axis
    size = a.shape[axis]
    if size is not None and n >= size:
        return a[lead + (slice(0, 0),)]
    op = tf.not_equal if a.dtype is _BOOL else subtract
    for _ in range(n):
        a = op(a[lead + (slice(1, None),)], a[lead + (slice(None, -1),)])
    return a


def _same_bits(fn):
    """``fn`` on uint16 through int16 (tf.repeat and tf.tile have no uint16 kernel)."""

    def kernel(x, *args):
        if x.dtype == tf.uint16:
            return tf.bitcast(kernel(tf.bitcast(x, tf.int16), *args), tf.uint16)
        return fn(x, *args)

    kernel.__name__ = kernel.__qualname__ = fn.__name__
    return kernel


@_same_bits
def repeat(x, repeats, axis):
    if axis is None:
        x, axis = tf.reshape(x, _ints((-1,))), 0
    if isinstance(repeats, int):
        if repeats == 1:
            return x
        return tf.repeat(x, repeats, axis=axis)
    return tf.repeat(x, _ints(repeats) if repeats else tf.zeros((0,), _INT32), axis=axis)


@_same_bits
def tile(x, repeats):
    shape = x.shape.as_list()
    nd = builtins.max(len(shape), len(repeats))
    if len(shape) < nd:
        x = tf.reshape(x, _ints([1] * (nd - len(shape)) + [-1 if s is None else s for s in shape]))
    repeats = (1,) * (nd - len(repeats)) + tuple(repeats)
    if builtins.all(r == 1 for r in repeats):
        return x
    return tf.tile(x, _ints(repeats))


def roll(x, shift, axis):
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(x, _ints((-1,))), shift, 0), tf.shape(x))
    if not axis:
        return x
    return tf.roll(x, _ints(shift), _ints(axis))


def _split(x, ios, axis, exact):
    n = x.shape[axis]
    if isinstance(ios, int):
        if exact or (n is not None and n % ios == 0):
            return tf.split(x, ios, axis)
        if n is None:
            raise ValueError("array_split: expected a known size on the split axis")
        each, extra = divmod(n, ios)
        return tf.split(x, _ints([each + 1] * extra + [each] * (ios - extra)), axis)
    if ios is None or n is None:
        raise ValueError("split: expected a known size on the split axis")
    edges = (0,) + tuple(ios) + (n,)
    sizes = [b - a for a, b in zip(edges[:-1], edges[1:])]
    if builtins.all(d >= 0 for d in sizes):  # contiguous pieces: one op
        return tf.split(x, _ints(sizes), axis)
    # NumPy's pieces x[p[i-1]:p[i]]: a point below its predecessor gives an empty piece
    lead = (slice(None),) * axis
    return [x[lead + (slice(a, b),)] for a, b in zip(edges[:-1], edges[1:])]


def split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis):
    return _split(x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 1 if x.shape.rank > 1 else 0, True)


def vsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 0, True)


def dsplit(x, indices_or_sections):
    return _split(x, indices_or_sections, 2, True)
