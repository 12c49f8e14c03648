"""Private shape rules of `polyops.ops.numpy.base`, on static shapes (tuples of ints or
None): reshape's -1, transpose's permutation, expand_dims/squeeze, concatenation,
broadcast_to's check, the plan of a basic index, and the matmul, dot and einsum shapes."""

from __future__ import annotations

import operator

from ..._shapes import broadcast_shapes, canonicalize_axes, canonicalize_axis, size_of


def _resolve_newshape(x_shape, newshape, op="reshape"):
    if isinstance(newshape, int) and not isinstance(newshape, bool):
        newshape = (newshape,)
    try:
        dims = tuple(newshape)
    except TypeError:
        raise TypeError(f"{op}: expected a shape (tuple of ints), got newshape={newshape!r}") from None
    for d in dims:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
            try:
                operator.index(d)
            except TypeError:
                raise TypeError(f"{op}: expected a shape of ints, got newshape={newshape!r}") from None
    dims = tuple(None if d is None else operator.index(d) for d in dims)
    if dims.count(-1) > 1:
        raise ValueError(f"{op}: expected at most one -1 in newshape, got {dims}")
    if any(d is not None and d < -1 for d in dims):
        raise ValueError(f"{op}: expected dims >= -1, got newshape={dims}")
    n = size_of(x_shape)
    if -1 in dims:
        rest = size_of(tuple(d for d in dims if d != -1))
        if n is None or rest is None:
            return tuple(None if d == -1 else d for d in dims)
        if rest == 0 or n % rest:
            raise ValueError(f"{op}: cannot reshape shape {x_shape} into {dims}")
        return tuple(n // rest if d == -1 else d for d in dims)
    m = size_of(dims)
    if n is not None and m is not None and n != m:
        raise ValueError(f"{op}: cannot reshape shape {x_shape} ({n} elements) into {dims}")
    return dims


def _perm(axes, ndim):
    if axes is None:
        return tuple(range(ndim))[::-1]
    try:
        perm = tuple(canonicalize_axis(a, ndim, "transpose") for a in axes)
    except TypeError:
        raise TypeError(f"transpose: expected a sequence of axes, got axes={axes!r}") from None
    if sorted(perm) != list(range(ndim)):
        raise ValueError(f"transpose: expected a permutation of range({ndim}), got axes={tuple(axes)}")
    return perm


def _expanded_shape(shape, axis):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = len(shape) + len(axes)
    axes = canonicalize_axes(tuple(axes), out_ndim, "expand_dims")
    it = iter(shape)
    return tuple(1 if i in axes else next(it) for i in range(out_ndim))


def _squeezed_shape(shape, axis):
    if axis is None:
        return tuple(d for d in shape if d != 1)
    axes = canonicalize_axes(axis, len(shape), "squeeze")
    for a in axes:
        if shape[a] not in (1, None):
            raise ValueError(f"squeeze: expected axis {a} of size 1, got shape={shape}")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _concat_shape(shapes, axis, op="concatenate"):
    if not shapes:
        raise ValueError(f"{op}: expected at least one tensor, got none")
    ndim = len(shapes[0])
    if ndim == 0:
        raise ValueError(f"{op}: expected tensors of rank >= 1, got shape ()")
    for s in shapes:
        if len(s) != ndim:
            raise ValueError(f"{op}: expected tensors of equal rank, got shapes {list(shapes)}")
    axis = canonicalize_axis(axis, ndim, op)
    out = []
    for i in range(ndim):
        dims = [s[i] for s in shapes]
        if i == axis:
            out.append(None if None in dims else sum(dims))
            continue
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ValueError(f"{op}: expected equal dims off axis {axis}, got shapes {list(shapes)}")
        out.append(known.pop() if known else None)
    return tuple(out), axis


def _broadcast_check(x_shape, shape):
    if len(x_shape) > len(shape):
        raise ValueError(f"broadcast_to: cannot broadcast shape {x_shape} to {shape}")
    out = broadcast_shapes(x_shape, shape, op="broadcast_to")
    for got, want in zip(out, shape):
        if want is not None and got is not None and got != want:
            raise ValueError(f"broadcast_to: cannot broadcast shape {x_shape} to {shape}")


def _index_plan(shape, key_, op="get_item"):
    """Resolve a basic index into ([(axis, start, stop, step) or (axis, int)], out_shape)."""
    key_ = key_ if isinstance(key_, tuple) else (key_,)
    for k in key_:
        if not (k is None or k is Ellipsis or isinstance(k, slice)
                or (isinstance(k, int) and not isinstance(k, bool))):
            raise TypeError(
                f"{op}: expected ints, slices, None or Ellipsis in the index, got {k!r}"
            )
    if sum(k is Ellipsis for k in key_) > 1:
        raise IndexError(f"{op}: an index can only have a single Ellipsis, got {key_}")
    used = sum(1 for k in key_ if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"{op}: too many indices for shape {shape}: {key_}")
    if Ellipsis in key_:
        i = key_.index(Ellipsis)
        key_ = key_[:i] + (slice(None),) * (len(shape) - used) + key_[i + 1:]
    else:
        key_ = key_ + (slice(None),) * (len(shape) - used)
    plan, out, axis = [], [], 0
    for k in key_:
        if k is None:
            out.append(1)
            continue
        dim = shape[axis]
        if isinstance(k, int):
            if dim is not None and not -dim <= k < dim:
                raise IndexError(f"{op}: index {k} is out of bounds for axis {axis} with size {dim}")
            plan.append((axis, k))
        else:
            if k.step == 0:
                raise ValueError(f"{op}: expected a non-zero slice step, got {k}")
            if dim is None:
                out.append(None if k != slice(None) else None)
            else:
                r = range(*k.indices(dim))
                out.append(len(r))
                if len(r) != dim or r.step != 1:
                    plan.append((axis, r))
        axis += 1
    return plan, tuple(out)


def _matmul_shape(a, b, op="matmul"):
    if not a or not b:
        raise ValueError(f"{op}: expected operands of rank >= 1, got shapes {a} and {b}")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] is not None and b2[-2] is not None and a2[-1] != b2[-2]:
        raise ValueError(f"{op}: expected matching inner dims, got shapes {a} and {b}")
    batch = broadcast_shapes(a2[:-2], b2[:-2], op=op)
    out = batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())
    return out


def _dot_shape(a, b):
    if not a or not b:
        return broadcast_shapes(a, b, op="dot") if not (a and b) else None
    if len(b) == 1:
        if a[-1] is not None and b[0] is not None and a[-1] != b[0]:
            raise ValueError(f"dot: expected matching contraction dims, got shapes {a} and {b}")
        return a[:-1]
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise ValueError(f"dot: expected matching contraction dims, got shapes {a} and {b}")
    return a[:-1] + b[:-2] + b[-1:]


def _einsum_shape(subscripts, shapes):
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: expected a subscripts string, got {subscripts!r}")
    s = subscripts.replace(" ", "")
    ins, arrow, out = s.partition("->")
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: expected {len(terms)} operands for {subscripts!r}, got {len(shapes)}"
        )
    dims: dict[str, object] = {}
    counts: dict[str, int] = {}
    ellipses = []
    for term, shape in zip(terms, shapes):
        if term.count("...") > 1:
            raise ValueError(f"einsum: expected at most one '...' per operand, got {term!r}")
        pre, ell, post = term.partition("...")
        for c in pre + post:
            if not c.isalpha():
                raise ValueError(f"einsum: invalid subscript {c!r} in {subscripts!r}")
        n_ell = len(shape) - len(pre) - len(post)
        if (ell and n_ell < 0) or (not ell and n_ell != 0):
            raise ValueError(
                f"einsum: operand {term!r} does not match an operand of shape {shape}"
            )
        if ell:
            ellipses.append(shape[len(pre): len(pre) + n_ell])
        labelled = list(zip(pre, shape[: len(pre)])) + list(zip(post, shape[len(shape) - len(post):]))
        for c, d in labelled:
            counts[c] = counts.get(c, 0) + 1
            prev = dims.get(c, 1)
            if prev in (1, None) or d == prev:
                dims[c] = d if prev in (1,) else (prev if d in (1, None) else d)
            elif d not in (1, None):
                raise ValueError(
                    f"einsum: dim {c!r} has sizes {prev} and {d} in {subscripts!r} for shapes {shapes}"
                )
    ell_shape = broadcast_shapes(*ellipses, op="einsum") if ellipses else ()
    if not arrow:
        out = ("..." if ellipses else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    result = []
    pre, ell, post = out.partition("...")
    for c in pre:
        if c not in dims:
            raise ValueError(f"einsum: output subscript {c!r} is not in the inputs of {subscripts!r}")
        result.append(dims[c])
    if ell:
        result.extend(ell_shape)
    for c in post:
        if c not in dims:
            raise ValueError(f"einsum: output subscript {c!r} is not in the inputs of {subscripts!r}")
        result.append(dims[c])
    return tuple(result)
