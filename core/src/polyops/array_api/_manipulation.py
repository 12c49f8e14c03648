"""Manipulation, indexing, searching, sorting, set and utility functions, the top-level
linear algebra functions, and the Array's ``__getitem__``/``__setitem__``.

Each maps the standard's keywords onto one ``ops`` call where the op has them, and
composes ``ops`` calls where the standard asks for more (descending stable sorts,
boolean-mask and integer-array indexing, NaNs distinct in the set functions).
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

from ._dtypes import INTEGRAL, name_of

UniqueAll = namedtuple("UniqueAll", ["values", "indices", "inverse_indices", "counts"])
UniqueCounts = namedtuple("UniqueCounts", ["values", "counts"])
UniqueInverse = namedtuple("UniqueInverse", ["values", "inverse_indices"])
_FLOATS = ("float32", "float64", "complex64", "complex128")


def norm_axis(axis, ndim: int, op: str, name: str = "axis") -> int:
    """A non-negative axis (IndexError-free ValueError naming the op otherwise)."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{op}: expected an int {name}, got {axis!r}") from None
    if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
        raise ValueError(f"{op}: {name}={axis} is out of range for {ndim} dimensions")
    return a % ndim if ndim else 0


def norm_axes(axis, ndim: int, op: str):
    """None, or a tuple of distinct non-negative axes."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        out = tuple(norm_axis(a, ndim, op) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError(f"{op}: repeated axis in {axis!r}")
        return out
    return (norm_axis(axis, ndim, op),)


def install(ns, c):
    from .. import ops

    A, wrap, run = c.A, c.wrap, c.run
    un = c.un

    # -- manipulation --------------------------------------------------------------
    def broadcast_arrays(*arrays):
        """Array API ``broadcast_arrays``: ``ops.broadcast_to`` to the common shape."""
        ts = [un(a, "broadcast_arrays", "arrays") for a in arrays]
        from .._shapes import broadcast_shapes

        shape = broadcast_shapes(*(tuple(t.shape) for t in ts), op="broadcast_arrays") if ts else ()
        return [wrap(run(ops.broadcast_to, t, shape)) for t in ts]

    def broadcast_to(x, /, shape):
        """Array API ``broadcast_to``: ``ops.broadcast_to``."""
        return wrap(run(ops.broadcast_to, un(x, "broadcast_to"), tuple(shape)))

    def concat(arrays, /, *, axis=0):
        """Array API ``concat``: ``ops.concatenate`` (``axis=None`` flattens first)."""
        ts = [un(a, "concat", "arrays") for a in arrays]
        if not ts:
            raise ValueError("concat: expected at least one array, got none")
        dtype = c.ns.result_type(*arrays).name

        def go():
            xs = [ops.cast(t, dtype) for t in ts]
            if axis is None:
                return ops.concatenate([ops.reshape(t, (-1,)) for t in xs], 0)
            return ops.concatenate(xs, axis)

        return wrap(run(go))

    def expand_dims(x, /, axis=0):
        """Array API ``expand_dims``: ``ops.expand_dims``."""
        t = un(x, "expand_dims")
        ndim = len(t.shape) + 1
        if not -ndim <= axis < ndim:
            raise IndexError(f"expand_dims: axis={axis} is out of range for {ndim - 1}-D input")
        return wrap(run(ops.expand_dims, t, axis))

    def flip(x, /, *, axis=None):
        """Array API ``flip``: ``ops.flip``."""
        t = un(x, "flip")
        axes = norm_axes(axis, len(t.shape), "flip")

        def go():
            out = t
            for a in axes if axes is not None else range(len(t.shape)):
                out = ops.flip(out, a)
            return out

        return wrap(run(go))

    def moveaxis(x, source, destination, /):
        """Array API ``moveaxis``: ``ops.moveaxis``."""
        return wrap(run(ops.moveaxis, un(x, "moveaxis"), source, destination))

    def permute_dims(x, /, axes):
        """Array API ``permute_dims``: ``ops.transpose``."""
        return wrap(run(ops.transpose, un(x, "permute_dims"), tuple(axes)))

    def repeat(x, repeats, /, *, axis=None):
        """Array API ``repeat``: ``ops.repeat`` (an Array or an int of repeats)."""
        t = un(x, "repeat")
        r = repeats._t if type(repeats) is A else repeats

        def go():
            src = ops.reshape(t, (-1,)) if axis is None else t
            return ops.repeat(src, r, 0 if axis is None else axis)

        return wrap(run(go))

    def reshape(x, /, shape, *, copy=None):
        """Array API ``reshape``: ``ops.reshape``."""
        t = un(x, "reshape")
        shape = tuple(shape)
        if copy is False and not _can_view(tuple(t.shape), shape):
            raise ValueError("reshape: copy=False, but this reshape needs a copy")
        return wrap(run(ops.reshape, t, shape))

    def roll(x, /, shift, *, axis=None):
        """Array API ``roll``: ``ops.roll``."""
        t = un(x, "roll")
        if isinstance(shift, (tuple, list)):
            axes = tuple(axis) if isinstance(axis, (tuple, list)) else None
            if axes is None or len(axes) != len(shift):
                raise ValueError(f"roll: expected one axis per shift, got shift={shift!r} and "
                                 f"axis={axis!r}")

            def go():
                out = t
                for s, a in zip(shift, axes, strict=True):
                    out = ops.roll(out, s, a)
                return out

            return wrap(run(go))
        if isinstance(axis, (tuple, list)):
            def go():
                out = t
                for a in axis:
                    out = ops.roll(out, shift, a)
                return out

            return wrap(run(go))
        return wrap(run(ops.roll, t, shift, axis))

    def squeeze(x, /, axis):
        """Array API ``squeeze``: ``ops.squeeze`` of axes of size 1 (ValueError otherwise)."""
        t = un(x, "squeeze")
        shape = tuple(t.shape)
        axes = norm_axes(axis, len(shape), "squeeze")
        for a in axes:
            if shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} has size {shape[a]}, not 1")
        return wrap(run(ops.reshape, t, tuple(s for i, s in enumerate(shape) if i not in axes)))

    def stack(arrays, /, *, axis=0):
        """Array API ``stack``: ``ops.stack``."""
        ts = [un(a, "stack", "arrays") for a in arrays]
        dtype = c.ns.result_type(*arrays).name
        return wrap(run(lambda: ops.stack([ops.cast(t, dtype) for t in ts], axis)))

    def tile(x, repetitions, /):
        """Array API ``tile``: ``ops.tile``."""
        return wrap(run(ops.tile, un(x, "tile"), tuple(repetitions)))

    def unstack(x, /, *, axis=0):
        """Array API ``unstack``: ``ops.unstack``, a tuple of arrays."""
        t = un(x, "unstack")
        a = norm_axis(axis, len(t.shape), "unstack")
        n = t.shape[a]
        return tuple(wrap(r) for r in run(lambda: ops.unstack(t, n, a))) if n else ()

    for fn in (broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis,
               permute_dims, repeat, reshape, roll, squeeze, stack, tile, unstack):
        setattr(ns, fn.__name__, fn)

    # -- indexing functions ----------------------------------------------------------
    def take(x, indices, /, *, axis=None):
        """Array API ``take``: ``ops.take``."""
        t, i = un(x, "take"), un(indices, "take", "indices")
        if axis is None:
            if len(t.shape) != 1:
                raise ValueError(f"take: expected axis for a {len(t.shape)}-D array")
            axis = 0
        return wrap(run(ops.take, t, i, axis))

    def take_along_axis(x, indices, /, *, axis=-1):
        """Array API ``take_along_axis``: ``ops.take_along_axis``."""
        t, i = un(x, "take_along_axis"), un(indices, "take_along_axis", "indices")
        return wrap(run(ops.take_along_axis, t, i, axis))

    ns.take, ns.take_along_axis = take, take_along_axis

    # -- searching ------------------------------------------------------------------
    def arg(name, op):
        def fn(x, /, *, axis=None, keepdims=False):
            t = un(x, name)

            def go():
                if axis is None:
                    out = op(ops.reshape(t, (-1,)), 0)
                    return ops.reshape(out, (1,) * len(t.shape)) if keepdims else out
                return op(t, axis, keepdims)

            return wrap(run(lambda: ops.cast(go(), c.default_int)))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{name}``, default-int indices."
        return fn

    ns.argmax, ns.argmin = arg("argmax", ops.argmax), arg("argmin", ops.argmin)

    def count_nonzero(x, /, *, axis=None, keepdims=False):
        """Array API ``count_nonzero``: ``ops.sum`` of ``x != 0`` in the default int dtype."""
        t = un(x, "count_nonzero")
        axes = norm_axes(axis, len(t.shape), "count_nonzero")
        return wrap(run(lambda: ops.sum(ops.cast(ops.not_equal(t, 0), c.default_int),
                                        axes, keepdims)))

    def nonzero(x, /):
        """Array API ``nonzero``: ``ops.nonzero``, a tuple of default-int index arrays."""
        t = un(x, "nonzero")
        if len(t.shape) == 0:
            raise ValueError("nonzero: expected an array of at least one dimension, got a 0-d one")
        return tuple(wrap(r) for r in run(
            lambda: [ops.cast(r, c.default_int) for r in ops.nonzero(t)]))

    def searchsorted(x1, x2, /, *, side="left", sorter=None):
        """Array API ``searchsorted``: ``ops.searchsorted`` (``sorter`` applied first)."""
        t1, t2 = un(x1, "searchsorted", "x1"), c.operand(x2, "searchsorted", "x2")
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: expected side 'left' or 'right', got {side!r}")
        s = None if sorter is None else un(sorter, "searchsorted", "sorter")

        def go():
            seq = t1 if s is None else ops.take(t1, s, 0)
            dtype = c.ns.result_type(x1, x2).name
            out = ops.searchsorted(ops.cast(seq, dtype), ops.cast(t2, dtype), side)
            return ops.cast(out, c.default_int)

        return wrap(run(go))

    def where(condition, x1, x2, /):
        """Array API ``where``: ``ops.where``; Python scalars take the other operand's dtype."""
        cond = un(condition, "where", "condition")
        t1, t2 = c.operand(x1, "where", "x1"), c.operand(x2, "where", "x2")
        return wrap(run(ops.where, cond, t1, t2))

    ns.count_nonzero, ns.nonzero, ns.searchsorted, ns.where = (count_nonzero, nonzero,
                                                               searchsorted, where)

    # -- sorting --------------------------------------------------------------------
    def _argsort(t, axis, descending):
        if not descending:
            return ops.argsort(t, axis)
        # stable descending: a stable ascending sort of the reversed array, reversed, with
        # indices mapped back (equal elements keep their order)
        n = t.shape[axis]
        rev = ops.argsort(ops.flip(t, axis), axis)
        return ops.subtract(n - 1, ops.flip(rev, axis))

    def argsort(x, /, *, axis=-1, descending=False, stable=True):
        """Array API ``argsort``: ``ops.argsort`` (stable; descending composed)."""
        t = un(x, "argsort")
        a = norm_axis(axis, len(t.shape), "argsort")
        return wrap(run(lambda: ops.cast(_argsort(t, a, descending), c.default_int)))

    def sort(x, /, *, axis=-1, descending=False, stable=True):
        """Array API ``sort``: ``ops.sort`` (descending composed)."""
        t = un(x, "sort")
        a = norm_axis(axis, len(t.shape), "sort")
        if not descending:
            return wrap(run(ops.sort, t, a))
        return wrap(run(lambda: ops.take_along_axis(t, _argsort(t, a, True), a)))

    ns.argsort, ns.sort = argsort, sort

    # -- set functions ----------------------------------------------------------------
    def _unique(t):
        # NaNs are distinct in the standard: ops.unique on the other values, each NaN
        # appended as its own value (count 1)
        flat = ops.reshape(t, (-1,))
        dtype = c.dtype_of(t)
        n = flat.shape[0]
        if dtype in _FLOATS and n and bool(ops.convert_to_numpy(ops.any(ops.isnan(flat)))):
            return _unique_nan(flat, n)
        if n == 0:
            empty = ops.zeros((0,), c.default_int)
            return flat, empty, ops.reshape(empty, tuple(t.shape)), empty
        if dtype in ("complex64", "complex128"):  # ops.unique takes ordered dtypes only
            return _unique_complex(flat, n, tuple(t.shape))
        vals, idx, inv, cnt = ops.unique(flat, True, True, True, True)
        return (vals, ops.cast(idx, c.default_int),
                ops.reshape(ops.cast(inv, c.default_int), tuple(t.shape)),
                ops.cast(cnt, c.default_int))

    def _unique_complex(flat, n, shape):
        # sorted by (real, imag) with two stable argsorts; a new value starts wherever
        # either part differs from the previous one (NaN != NaN: each NaN is distinct)
        i64 = c.default_int
        re, im = ops.real(flat), ops.imag(flat)
        by_im = ops.argsort(im, 0)
        order = ops.take(by_im, ops.argsort(ops.take(re, by_im, 0), 0), 0)
        sre, sim = ops.take(re, order, 0), ops.take(im, order, 0)
        changed = ops.logical_or(ops.not_equal(sre[1:], sre[:-1]), ops.not_equal(sim[1:], sim[:-1]))
        new = ops.concatenate([ops.ones((1,), "bool"), changed], 0)
        seg = ops.subtract(ops.cumsum(ops.cast(new, i64), 0), 1)
        (starts,) = ops.nonzero(new)
        starts = ops.cast(starts, i64)
        vals = ops.take(ops.take(flat, order, 0), starts, 0)
        idx = ops.take(ops.cast(order, i64), starts, 0)
        cnt = ops.diff(ops.concatenate([starts, ops.full((1,), n, i64)], 0), 1, 0)
        at = ops.reshape(ops.cast(order, i64), (n, 1))
        inv = ops.scatter_update(ops.zeros((n,), i64), at, seg)
        return vals, idx, ops.reshape(inv, shape), cnt

    def _unique_nan(flat, n):
        # the positions of NaNs and of the other values are data-dependent: found on the host
        import numpy as np

        i64 = c.default_int
        nan = np.isnan(np.asarray(ops.convert_to_numpy(flat)))
        pos, nan_pos = np.nonzero(~nan)[0], np.nonzero(nan)[0]
        pos_t, nan_t = ops.convert_to_tensor(pos, i64), ops.convert_to_tensor(nan_pos, i64)
        full_inv = np.zeros(n, np.int64)
        if len(pos):
            vals, idx, inv, cnt = ops.unique(ops.take(flat, pos_t, 0), True, True, True, True)
            idx = ops.take(pos_t, ops.cast(idx, i64), 0)
            full_inv[pos] = np.asarray(ops.convert_to_numpy(inv))
        else:
            vals = ops.zeros((0,), c.dtype_of(flat))
            idx = cnt = ops.zeros((0,), i64)
        full_inv[nan_pos] = vals.shape[0] + np.arange(len(nan_pos))
        vals = ops.concatenate([vals, ops.take(flat, nan_t, 0)], 0)
        idx = ops.concatenate([ops.cast(idx, i64), nan_t], 0)
        cnt = ops.concatenate([ops.cast(cnt, i64), ops.ones((len(nan_pos),), i64)], 0)
        return vals, idx, ops.convert_to_tensor(full_inv, i64), cnt

    def unique_all(x, /):
        """Array API ``unique_all``: ``ops.unique`` with indices, inverse and counts."""
        t = un(x, "unique_all")
        v, i, inv, cnt = run(_unique, t)
        return UniqueAll(wrap(v), wrap(i), wrap(run(ops.reshape, inv, tuple(t.shape))), wrap(cnt))

    def unique_counts(x, /):
        """Array API ``unique_counts``: ``ops.unique`` with counts."""
        v, _, _, cnt = run(_unique, un(x, "unique_counts"))
        return UniqueCounts(wrap(v), wrap(cnt))

    def unique_inverse(x, /):
        """Array API ``unique_inverse``: ``ops.unique`` with the inverse indices."""
        t = un(x, "unique_inverse")
        v, _, inv, _ = run(_unique, t)
        return UniqueInverse(wrap(v), wrap(run(ops.reshape, inv, tuple(t.shape))))

    def unique_values(x, /):
        """Array API ``unique_values``: ``ops.unique``."""
        return wrap(run(_unique, un(x, "unique_values"))[0])

    ns.unique_all, ns.unique_counts = unique_all, unique_counts
    ns.unique_inverse, ns.unique_values = unique_inverse, unique_values

    # -- utility ------------------------------------------------------------------------
    ns.all, ns.any = c.reducer("all", ops.all), c.reducer("any", ops.any)

    def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
        """Array API ``diff``: ``ops.diff`` (prepend/append concatenated first)."""
        t = un(x, "diff")
        a = norm_axis(axis, len(t.shape), "diff")
        parts = [t]
        if prepend is not None:
            parts.insert(0, un(prepend, "diff", "prepend"))
        if append is not None:
            parts.append(un(append, "diff", "append"))
        dtype = c.dtype_of(t)

        def go():
            src = ops.concatenate([ops.cast(p, dtype) for p in parts], a) if len(parts) > 1 else t
            return ops.diff(src, n, a)

        return wrap(run(go))

    ns.diff = diff

    # -- linear algebra (top level) ----------------------------------------------------
    def matmul(x1, x2, /):
        """Array API ``matmul``: ``ops.matmul`` in the promoted dtype (int8 stays int8)."""
        t1, t2 = un(x1, "matmul", "x1"), un(x2, "matmul", "x2")
        if len(t1.shape) == 0 or len(t2.shape) == 0:
            raise ValueError("matmul: expected arrays of at least one dimension, got a 0-d one")
        dtype = c.ns.result_type(x1, x2).name

        def go():
            out = ops.matmul(t1, t2)
            return out if c.dtype_of(out) == dtype else ops.cast(out, dtype)

        return wrap(run(go))

    def matrix_transpose(x, /):
        """Array API ``matrix_transpose``: ``ops.swapaxes`` of the last two axes."""
        t = un(x, "matrix_transpose")
        if len(t.shape) < 2:
            raise ValueError("matrix_transpose: expected at least 2 dimensions, got shape "
                             f"{tuple(t.shape)}")
        return wrap(run(ops.swapaxes, t, -1, -2))

    def tensordot(x1, x2, /, *, axes=2):
        """Array API ``tensordot``: ``ops.tensordot`` in the promoted dtype."""
        t1, t2 = un(x1, "tensordot", "x1"), un(x2, "tensordot", "x2")
        dtype = c.ns.result_type(x1, x2).name
        if not isinstance(axes, int):
            axes = tuple(tuple(a) for a in axes)

        def go():
            out = ops.tensordot(ops.cast(t1, dtype), ops.cast(t2, dtype), axes)
            return out if c.dtype_of(out) == dtype else ops.cast(out, dtype)

        return wrap(run(go))

    def vecdot(x1, x2, /, *, axis=-1):
        """Array API ``vecdot``: ``ops.sum`` of ``conj(x1) * x2`` over ``axis``."""
        t1, t2 = un(x1, "vecdot", "x1"), un(x2, "vecdot", "x2")
        dtype = c.ns.result_type(x1, x2).name
        from .._shapes import broadcast_shapes

        shape = broadcast_shapes(tuple(t1.shape), tuple(t2.shape), op="vecdot")
        a = norm_axis(axis, len(shape), "vecdot")
        if a < len(shape) - min(len(t1.shape), len(t2.shape)):
            raise ValueError(f"vecdot: axis={axis} is not an axis of both operands")
        if len(t1.shape) and len(t2.shape) and t1.shape[a - len(shape)] != t2.shape[a - len(shape)]:
            raise ValueError(f"vecdot: axis {axis} has sizes {t1.shape[a - len(shape)]} and "
                             f"{t2.shape[a - len(shape)]}")

        def go():
            u = ops.cast(t1, dtype)
            if dtype in ("complex64", "complex128"):
                u = ops.conjugate(u)
            return ops.cast(ops.sum(ops.multiply(u, ops.cast(t2, dtype)), a - len(shape)), dtype)

        return wrap(run(go))

    ns.matmul, ns.matrix_transpose, ns.tensordot, ns.vecdot = (matmul, matrix_transpose,
                                                               tensordot, vecdot)
    install_indexing(c)


def _can_view(src: tuple, dst: tuple) -> bool:
    return True  # polyops reshapes never copy observable data (arrays are immutable here)


# -- indexing of the Array object ------------------------------------------------------


def install_indexing(c):
    from .. import ops

    A, wrap, run = c.A, c.wrap, c.run

    def key_parts(key):
        return key if isinstance(key, tuple) else (key,)

    def is_array_key(key):
        return any(type(k) is A for k in key_parts(key))

    def basic_key(key, op):
        """A key of ints, slices, None and Ellipsis (0-d integer Arrays as ints)."""
        out = []
        for k in key_parts(key):
            if k is None or k is Ellipsis:
                out.append(k)
            elif isinstance(k, slice):  # (bounds may be 0-d integer Arrays)
                out.append(slice(*(None if b is None else operator.index(b)
                                   for b in (k.start, k.stop, k.step))))
            elif type(k) is bool:
                raise IndexError(f"{op}: bool indices are not supported, got {key!r}")
            else:
                try:
                    out.append(operator.index(k))
                except TypeError:
                    raise IndexError(f"{op}: expected ints, slices, None, Ellipsis or "
                                     f"arrays as indices, got {k!r}") from None
        return tuple(out) if isinstance(key, tuple) else out[0]

    def check_basic(shape, key, op):
        parts = key_parts(key)
        n_ell = sum(1 for k in parts if k is Ellipsis)
        if n_ell > 1:
            raise IndexError(f"{op}: at most one Ellipsis, got {key!r}")
        n_real = sum(1 for k in parts if k is not None and k is not Ellipsis)
        if n_real > len(shape):
            raise IndexError(f"{op}: too many indices ({n_real}) for shape {shape}")
        i = 0
        for k in parts:
            if k is Ellipsis:
                i += len(shape) - n_real
                continue
            if k is None:
                continue
            if isinstance(k, int):
                size = shape[i]
                if not -size <= k < size:
                    raise IndexError(f"{op}: index {k} is out of bounds for axis {i} of "
                                     f"size {size}")
            i += 1

    def mask_parts(t, key, op):
        """(mask tensor, its ndim) when ``key`` is a single boolean Array, else None."""
        if type(key) is A and c.dtype_of(key._t) == "bool":
            m = key._t
            shape, mshape = tuple(t.shape), tuple(m.shape)
            # (a mask dimension of size 0 selects nothing, whatever the array's size)
            fits = all(ms in (s, 0) for ms, s in zip(mshape, shape, strict=False))
            if len(mshape) > len(shape) or not fits:
                raise IndexError(f"{op}: mask of shape {mshape} does not match the array's "
                                 f"shape {shape}")
            return m
        if isinstance(key, tuple) and any(type(k) is A and c.dtype_of(k._t) == "bool" for k in key):
            raise IndexError(f"{op}: a boolean mask must be the only index, got {key!r}")
        return None

    def getitem_mask(t, m):
        shape, mshape = tuple(t.shape), tuple(m.shape)
        if len(mshape) == 0:  # x[True] -> (1, ...), x[False] -> (0, ...)
            out = ops.expand_dims(t, 0)
            return out if bool(ops.convert_to_numpy(m)) else ops.get_item(out, slice(0, 0))
        k = len(mshape)
        if 0 in mshape:
            return ops.zeros((0,) + shape[k:], c.dtype_of(t))
        flat = ops.reshape(t, (math.prod(shape[:k]),) + shape[k:])
        (idx,) = ops.nonzero(ops.reshape(m, (-1,)))
        return ops.take(flat, idx, 0)

    def int_array_key(t, key, op):
        """Integer array indexing: every index an int or an integer Array; the indexed
        leading axes gather through one flat index."""
        shape = tuple(t.shape)
        parts = key_parts(key)
        if any(k is None or k is Ellipsis or isinstance(k, slice) for k in parts):
            raise IndexError(f"{op}: integer array indices mix only with ints, got {key!r}")
        if len(parts) > len(shape):
            raise IndexError(f"{op}: too many indices ({len(parts)}) for shape {shape}")
        idx = []
        for axis, k in enumerate(parts):
            if type(k) is A:
                if c.dtype_of(k._t) not in INTEGRAL:
                    raise IndexError(f"{op}: expected integer index arrays, got dtype {k.dtype}")
                idx.append(ops.cast(k._t, "int64"))
            else:
                k = operator.index(k)
                if not -shape[axis] <= k < shape[axis]:
                    raise IndexError(f"{op}: index {k} is out of bounds for axis {axis}")
                idx.append(k)
        n = len(parts)
        flat = None
        for axis, k in enumerate(idx):
            if isinstance(k, int):
                k = k % shape[axis]
            else:
                k = ops.where(ops.less(k, 0), ops.add(k, shape[axis]), k)
            stride = math.prod(shape[axis + 1:n])
            term = ops.multiply(k, stride) if not isinstance(k, int) else k * stride
            flat = term if flat is None else ops.add(flat, term)
        flat = ops.convert_to_tensor(flat, "int64") if isinstance(flat, int) else flat
        src = ops.reshape(t, (math.prod(shape[:n]),) + shape[n:])
        return ops.take(src, flat, 0)

    def getitem(self, key, /):
        t = self._t
        if type(key) is A or (isinstance(key, tuple) and is_array_key(key)):
            m = mask_parts(t, key, "__getitem__")
            if m is not None:
                return wrap(run(getitem_mask, t, m))
            if type(key) is A and key.ndim == 0 and c.dtype_of(key._t) in INTEGRAL:
                key = operator.index(key)
            else:
                return wrap(run(int_array_key, t, key, "__getitem__"))
        key = basic_key(key, "__getitem__")
        check_basic(tuple(t.shape), key, "__getitem__")
        return wrap(run(ops.get_item, t, key))

    def setitem(self, key, value, /):
        t = self._t
        dtype = c.dtype_of(t)
        if type(value) is A:
            v = value._t
        elif type(value) in (bool, int, float, complex):
            v = value
        else:
            raise TypeError(f"__setitem__: expected an array or a Python scalar value, got "
                            f"{type(value).__name__}")
        shape = tuple(t.shape)
        m = mask_parts(t, key, "__setitem__") if type(key) is A or isinstance(key, tuple) else None

        def go():
            vv = ops.cast(ops.convert_to_tensor(v) if not hasattr(v, "shape") else v, dtype)
            if m is not None:
                mm = ops.reshape(m, tuple(m.shape) + (1,) * (len(shape) - len(m.shape)))
                return ops.where(mm, vv, t)
            # the flat positions the key selects, then one scatter of the values there
            pos = ops.reshape(ops.arange(0, math.prod(shape), 1, "int64"), shape)
            if type(key) is A or isinstance(key, tuple) and is_array_key(key):
                sel = int_array_key(pos, key, "__setitem__")
            else:
                k = basic_key(key, "__setitem__")
                check_basic(shape, k, "__setitem__")
                sel = ops.get_item(pos, k)
            if 0 in tuple(sel.shape):
                return t
            vals = ops.broadcast_to(vv, tuple(sel.shape))
            flat = ops.scatter_update(ops.reshape(t, (-1,)), ops.reshape(sel, (-1, 1)),
                                      ops.reshape(vals, (-1,)))
            return ops.reshape(flat, shape)

        self._t = run(go)

    A.__getitem__ = getitem
    A.__setitem__ = setitem
    _ = name_of
