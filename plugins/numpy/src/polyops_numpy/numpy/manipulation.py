"""NumPy kernels of ``polyops.ops.numpy.manipulation``: rearranging, joining and
splitting (flips, moveaxis, stacks, diff, repeat, tile, roll, the splits).

Most are NumPy's own function, bound directly (no Python frame; ``diff`` only clamps
``n``): core's prepare hooks hand over exactly NumPy's arguments (axes canonical, repeats
static), and NumPy's semantics are the ops' (bool ``diff`` is ``not_equal``).  The splits
slice the pieces themselves (faster than np.split) and return a list.  Results may be
views of the input, as ``reshape``'s and ``transpose``'s are.
"""

from __future__ import annotations

import numpy as np

ravel = np.ravel
fliplr = np.fliplr
flipud = np.flipud
swapaxes = np.swapaxes
moveaxis = np.moveaxis
rot90 = np.rot90

append = np.append


def _joiner(np_fn, rank, axis, lifts=True):
    """``np_fn`` (a stacking function) as one np.concatenate along ``axis`` when every input
    has ``rank`` dims or more, or (``lifts``) ``rank - 1``, lifted by a view with a new
    axis ``axis`` as ``np_fn`` lifts it: half the time of np.vstack at 16x16.  Other ranks
    (0-d, hstack's 1-D...) go to ``np_fn``."""
    lift = (slice(None),) * axis + (None,)
    low = rank - 1 if lifts else rank

    def kernel(xs):
        parts = []
        for x in xs:
            if x.ndim >= rank:
                parts.append(x)
            elif x.ndim == low:
                parts.append(x[lift])
            else:
                return np_fn(xs)
        return np.concatenate(parts, axis)

    kernel.__name__ = np_fn.__name__
    return kernel


hstack = _joiner(np.hstack, 2, 1, lifts=False)  # (1-D inputs join along axis 0)
vstack = _joiner(np.vstack, 2, 0)  # (n,) -> (1, n)
column_stack = _joiner(np.column_stack, 2, 1)  # (n,) -> (n, 1)
dstack = _joiner(np.dstack, 3, 2)  # (m, n) -> (m, n, 1)


def diff(a, n, axis):
    # n beyond the axis size gives the same empty axis; np.diff would loop n times
    return np.diff(a, min(n, a.shape[axis]), axis)


repeat = np.repeat
tile = np.tile
roll = np.roll


def _pieces(x, sections, axis):
    # basic slices (views), as np.split's but without its Python swapaxes per piece: an int
    # gives NumPy's array_split sizes (equal where it divides), points the pieces between
    # them (one below its predecessor gives an empty piece)
    n = x.shape[axis]
    if type(sections) is int:
        each, extra = divmod(n, sections)
        edges = [i * each + min(i, extra) for i in range(sections + 1)]
    else:
        edges = (0, *sections, n)
    lead = (slice(None),) * axis
    return [x[(*lead, slice(a, b))] for a, b in zip(edges[:-1], edges[1:])]


split = array_split = _pieces


def hsplit(x, indices_or_sections):
    return _pieces(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(x, indices_or_sections):
    return _pieces(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    return _pieces(x, indices_or_sections, 2)
