"""Kernels of the ``numpy`` op family, written with Array API standard functions only.

`make_kernels(xp)` returns ``{op name: kernel}`` with closures over the namespace
``xp``; only primitive ops (those without a reference in core) are here.  The
kernel contract is docs/kernels.md of polyops: tensors arrive already promoted,
axes canonical, dtypes as canonical strings, and a kernel keeps the input dtype
unless the op says otherwise.

Where the standard is narrower than the op, the kernel builds the op from
standard functions:

* bool operands: the standard's arithmetic, ordering and statistical functions
  reject bool, the ops accept it (``add`` is OR, ``max`` is ANY, ``abs`` is the
  identity, orderings compare False < True, matmul/einsum count in int32);
* ``round(x, decimals)``: scale, ``xp.round`` (half to even), unscale, as NumPy;
* ``max``/``min`` with ``initial``: the initial value is appended along the
  flattened reduced axes, so empty reductions work;
* ``take``: N-D indices are flattened and the result reshaped; axis None takes
  from the flattened tensor; negative indices are wrapped explicitly;
* ``einsum``: parsed here (ellipsis, implicit output, repeated labels) and
  computed with ``permute_dims``/``reshape``/``take`` (diagonals), ``sum`` and
  pairwise ``matmul``.
"""

from __future__ import annotations

import builtins
import math

from .core import array_dtypes, dtype_of, namespace_dtypes


def make_kernels(xp) -> dict:
    """The ``numpy`` family kernels over namespace ``xp``."""
    DT = namespace_dtypes(xp)
    NAMES = array_dtypes(xp)
    BOOL, INT32, UINT8 = DT["bool"], DT["int32"], DT["uint8"]
    WIDE = DT.get("float64", DT["float32"])  # for exact integer rounding
    LOW = [DT[n] for n in ("float16", "bfloat16") if n in DT]  # accumulate in float32
    F32 = DT["float32"]

    def _is_bool(x):
        return x.dtype == BOOL

    def _is_int(x):
        return xp.isdtype(x.dtype, "integral")

    def _is_low(x):
        return builtins.any(x.dtype == d for d in LOW)

    def _py(value, x_or_name):
        """A Python scalar of the kind of a dtype, as the standard's ``full`` wants."""
        name = x_or_name if isinstance(x_or_name, str) else NAMES[x_or_name.dtype]
        if name == "bool":
            return builtins.bool(value)
        if name.startswith(("int", "uint")):
            return int(value)
        if name.startswith("complex"):
            return complex(value)
        return float(value)

    # -- creation -------------------------------------------------------------------
    def full(shape, fill_value, dtype):
        return xp.full(tuple(shape), _py(fill_value, dtype), dtype=dtype_of(xp, dtype))

    def arange(start, stop, step, dtype):
        target = dtype_of(xp, dtype)
        if dtype.startswith(("int", "uint")):
            if builtins.all(isinstance(v, int) for v in (start, stop, step)):
                return xp.arange(start, stop, step, dtype=target)
            return xp.astype(xp.arange(float(start), float(stop), float(step), dtype=WIDE), target)
        return xp.arange(float(start), float(stop), float(step), dtype=target)

    # -- elementwise unary ----------------------------------------------------------
    def abs(x):
        return x if _is_bool(x) else xp.abs(x)

    negative = xp.negative
    exp = xp.exp
    log = xp.log
    sqrt = xp.sqrt
    sin = xp.sin
    cos = xp.cos
    tanh = xp.tanh
    sign = xp.sign
    floor = xp.floor
    ceil = xp.ceil

    def round(x, decimals):
        if _is_bool(x):
            return x
        if _is_int(x):
            if decimals >= 0:
                return x
            scale = float(10 ** -decimals)
            return xp.astype(xp.round(xp.astype(x, WIDE) / scale) * scale, x.dtype)
        if decimals == 0:
            return xp.round(x)
        # NumPy's algorithm: scale in the input's precision, round half to even, unscale.
        if decimals > 0:
            scale = float(10 ** decimals)
            return xp.round(x * scale) / scale
        scale = float(10 ** -decimals)
        return xp.round(x / scale) * scale

    # -- elementwise binary ---------------------------------------------------------
    def _bool_as(logical, arith):
        def kernel(x1, x2):
            return logical(x1, x2) if _is_bool(x1) else arith(x1, x2)

        return kernel

    add = _bool_as(xp.logical_or, xp.add)
    multiply = _bool_as(xp.logical_and, xp.multiply)
    maximum = _bool_as(xp.logical_or, xp.maximum)
    minimum = _bool_as(xp.logical_and, xp.minimum)
    subtract = xp.subtract
    divide = xp.divide
    floor_divide = xp.floor_divide
    mod = xp.remainder
    power = xp.pow

    def _ordered(compare):
        def kernel(x1, x2):
            if _is_bool(x1):  # the standard orders real numbers only; False < True
                x1, x2 = xp.astype(x1, UINT8), xp.astype(x2, UINT8)
            return compare(x1, x2)

        return kernel

    equal = xp.equal
    not_equal = xp.not_equal
    less = _ordered(xp.less)
    less_equal = _ordered(xp.less_equal)
    greater = _ordered(xp.greater)
    greater_equal = _ordered(xp.greater_equal)
    logical_and = xp.logical_and
    logical_or = xp.logical_or
    logical_not = xp.logical_not
    where = xp.where

    # -- reductions -----------------------------------------------------------------
    def _accumulating(reduce):
        def kernel(x, axis, keepdims, dtype=None):
            if _is_low(x):  # float16 sums stall; accumulate in float32, as JAX does
                return xp.astype(reduce(x, axis=axis, keepdims=keepdims, dtype=F32), x.dtype)
            # dtype= keeps int32 from widening to the default integer dtype
            return reduce(x, axis=axis, keepdims=keepdims, dtype=x.dtype)

        return kernel

    sum = _accumulating(xp.sum)
    prod = _accumulating(xp.prod)  # called with a 4th argument `dtype`, always None

    def all(x, axis, keepdims):
        return xp.all(x, axis=axis, keepdims=keepdims)

    def any(x, axis, keepdims):
        return xp.any(x, axis=axis, keepdims=keepdims)

    def _extremum(reduce, bool_reduce, bool_combine):
        def kernel(x, axis, keepdims, initial):
            if _is_bool(x):
                out = bool_reduce(x, axis=axis, keepdims=keepdims)
                return out if initial is None else bool_combine(out, builtins.bool(initial))
            if initial is None:
                return reduce(x, axis=axis, keepdims=keepdims)
            # No ``initial`` in the standard: append it along the flattened reduced axes
            # (this also makes empty reductions work).
            axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
            kept = tuple(a for a in range(x.ndim) if a not in axes)
            kept_shape = tuple(x.shape[a] for a in kept)
            size = math.prod(x.shape[a] for a in axes)
            y = xp.reshape(xp.permute_dims(x, kept + axes), kept_shape + (size,))
            pad = xp.full(kept_shape + (1,), _py(initial, x), dtype=x.dtype)
            out = reduce(xp.concat([y, pad], axis=len(kept)), axis=len(kept))
            if keepdims:
                out = xp.reshape(out, tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)))
            return out

        return kernel

    max = _extremum(xp.max, xp.any, xp.logical_or)
    min = _extremum(xp.min, xp.all, xp.logical_and)

    def _arg_extremum(reduce):
        def kernel(x, axis, keepdims):
            if _is_bool(x):
                x = xp.astype(x, UINT8)
            return xp.astype(reduce(x, axis=axis, keepdims=keepdims), INT32)

        return kernel

    argmax = _arg_extremum(xp.argmax)
    argmin = _arg_extremum(xp.argmin)

    # -- shape ------------------------------------------------------------------------
    def reshape(x, newshape):
        return xp.reshape(x, tuple(newshape))

    def transpose(x, axes):
        return xp.permute_dims(x, tuple(axes))

    def concatenate(xs, axis):
        return xp.concat(list(xs), axis=axis)

    def broadcast_to(x, shape):
        return xp.broadcast_to(x, tuple(shape))

    def take(x, indices, axis):
        if axis is None:
            x, axis = xp.reshape(x, (-1,)), 0
        n = x.shape[axis]
        # The standard takes 1-D indices and leaves negative ones unspecified.
        wrapped = xp.where(indices < 0, indices + n, indices)
        out = xp.take(x, xp.reshape(wrapped, (-1,)), axis=axis)
        return xp.reshape(out, tuple(x.shape[:axis]) + tuple(indices.shape) + tuple(x.shape[axis + 1:]))

    # -- linear algebra ---------------------------------------------------------------
    def _widened(operands):
        """(operands, finish): bool counts in int32 (true where any product is true),
        float16/bfloat16 accumulate in float32; other dtypes pass through."""
        first = operands[0]
        if _is_bool(first):
            return [xp.astype(o, INT32) for o in operands], lambda out: out != 0
        if _is_low(first):
            return [xp.astype(o, F32) for o in operands], lambda out: xp.astype(out, first.dtype)
        return list(operands), lambda out: out

    def matmul(x1, x2):
        (x1, x2), finish = _widened((x1, x2))
        return finish(xp.matmul(x1, x2))

    def einsum(subscripts, *operands):
        wide, finish = _widened(operands)
        return finish(_einsum(xp, subscripts, wide))

    # Every public local named in lower case is a kernel (kernels_from keeps the op names).
    # -- catalogue primitives ----------------------------------------------------------
    arctan2 = xp.atan2
    bitwise_and = _bool_as(xp.logical_and, xp.bitwise_and)
    bitwise_or = _bool_as(xp.logical_or, xp.bitwise_or)
    bitwise_xor = _bool_as(xp.logical_xor, xp.bitwise_xor)

    def bitwise_invert(x):
        return xp.logical_not(x) if _is_bool(x) else xp.bitwise_invert(x)

    def _shift(fn, sign_fill):
        # NumPy's answer for counts >= the bit width, which the standard leaves undefined
        def kernel(x, y):
            bits = xp.iinfo(x.dtype).bits
            out = fn(x, xp.clip(y, 0, bits - 1))
            if sign_fill and xp.iinfo(x.dtype).min < 0:
                return out  # a count of bits - 1 already gives the sign fill
            return xp.where(y >= bits, xp.zeros_like(x), out)

        return kernel

    left_shift = _shift(xp.bitwise_left_shift, False)
    right_shift = _shift(xp.bitwise_right_shift, True)

    def _last_along(x, idx):
        """take_along_axis on the last axis (not every namespace has it): flat take."""
        n = x.shape[-1]
        rows = math.prod(x.shape[:-1])
        offsets = xp.reshape(xp.arange(rows, dtype=idx.dtype) * n, x.shape[:-1] + (1,))
        flat = xp.reshape(idx + offsets, (-1,))
        return xp.reshape(xp.take(xp.reshape(x, (-1,)), flat, axis=0), x.shape)

    def argsort(x, axis):
        if axis is None or x.ndim == 0:
            x, axis = xp.reshape(x, (-1,)), 0
        if _is_bool(x):
            x = xp.astype(x, INT32)
        if not xp.isdtype(x.dtype, "real floating") or x.shape[axis] < 2:
            return xp.astype(xp.argsort(x, axis=axis, stable=True), INT32)
        # the standard leaves NaN's place open: sort NaN as +inf, then move NaNs last
        last = x.ndim - 1
        if axis != last:
            perm = tuple(i for i in range(x.ndim) if i != axis) + (axis,)
            back = tuple(perm.index(i) for i in range(x.ndim))
            return xp.permute_dims(argsort(xp.permute_dims(x, perm), last), back)
        nan = xp.isnan(x)
        first = xp.argsort(xp.where(nan, xp.asarray(math.inf, dtype=x.dtype), x), axis=last, stable=True)
        late = xp.astype(_last_along(nan, first), INT32)
        second = xp.argsort(late, axis=last, stable=True)
        return xp.astype(_last_along(first, second), INT32)

    def view(x, dtype):
        """The standard has no bit cast: dask arrays have ``.view``; others are
        reinterpreted on the host through DLPack and NumPy (eager only)."""
        import numpy as np

        if not hasattr(x, "__dlpack__") and hasattr(x, "view"):  # dask
            if np.dtype(dtype).itemsize == x.dtype.itemsize:  # 0-d included
                return x.map_blocks(lambda b: b.view(dtype), dtype=np.dtype(dtype))
            return x.view(dtype)
        return xp.asarray(np.from_dlpack(x).view(np.dtype(dtype)).copy())

    return {k: v for k, v in locals().items() if k.islower() and not k.startswith("_") and callable(v)}


# -- einsum with standard functions ----------------------------------------------------


def _parse_einsum(subscripts: str, ndims: list[int]):
    """(input label lists, output label list); ellipsis dims become labels (0, 1, ...)."""
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise ValueError(
            f"einsum: {subscripts!r} names {len(terms)} operands, got {len(ndims)}"
        )
    n_ell = 0
    for term, nd in zip(terms, ndims, strict=True):
        if "..." in term:
            n_ell = builtins.max(n_ell, nd - len(term.replace("...", "")))
    ell = list(range(n_ell))  # ints, so they cannot collide with letters

    def labels(term, nd):
        if "..." not in term:
            if len(term) != nd:
                raise ValueError(f"einsum: {term!r} has {len(term)} labels for {nd} dims")
            return list(term)
        head, _, tail = term.partition("...")
        k = nd - len(head) - len(tail)
        if k < 0:
            raise ValueError(f"einsum: {term!r} has more labels than {nd} dims")
        return list(head) + ell[n_ell - k:] + list(tail)

    inputs = [labels(t, nd) for t, nd in zip(terms, ndims, strict=True)]
    if arrow:
        head, dots, tail = rhs.partition("...")
        output = list(head) + (ell if dots else []) + list(tail)
    else:
        letters = [c for term in inputs for c in term if isinstance(c, str)]
        output = ell + sorted(c for c in set(letters) if letters.count(c) == 1)
    for c in output:
        if not builtins.any(c in term for term in inputs):
            raise ValueError(f"einsum: output label {c!r} is in no operand")
    return inputs, output


def _diagonal(xp, x, labels):
    """Take the diagonal over each repeated label: one axis per label remains."""
    labels = list(labels)
    for c in dict.fromkeys(labels):
        pos = [i for i, label in enumerate(labels) if label == c]
        if len(pos) < 2:
            continue
        rest = [i for i in range(len(labels)) if i not in pos]
        n = x.shape[pos[0]]
        x = xp.permute_dims(x, tuple(rest + pos))
        x = xp.reshape(x, tuple(x.shape[: len(rest)]) + (n ** len(pos),))
        stride = builtins.sum(n**p for p in range(len(pos)))
        x = xp.take(x, xp.arange(n) * stride, axis=len(rest))
        labels = [labels[i] for i in rest] + [c]
    return x, labels


def _sum_out(xp, x, labels, keep):
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return xp.sum(x, axis=axes, dtype=x.dtype), [c for c in labels if c in keep]


def _contract(xp, a, la, b, lb, keep):
    """Contract ``a`` and ``b`` over their shared labels not in ``keep``, with one matmul."""
    sizes = {}
    for x, ls in ((a, la), (b, lb)):
        for c, n in zip(ls, x.shape, strict=True):
            prev = sizes.get(c)
            sizes[c] = n if prev is None or prev == 1 else prev  # ellipsis dims may broadcast (0 too)
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]

    def arrange(x, ls, order, grouping):
        x = xp.permute_dims(x, tuple(ls.index(c) for c in order))
        x = xp.broadcast_to(x, tuple(sizes[c] for c in order))
        return xp.reshape(x, tuple(math.prod(sizes[c] for c in g) for g in grouping))

    a2 = arrange(a, la, batch + left + summed, (batch, left, summed))
    b2 = arrange(b, lb, batch + summed + right, (batch, summed, right))
    out = xp.matmul(a2, b2)
    out = xp.reshape(out, tuple(sizes[c] for c in batch + left + right))
    return out, batch + left + right


def _einsum(xp, subscripts, operands):
    inputs, output = _parse_einsum(subscripts, [o.ndim for o in operands])
    terms = []
    for x, labels in zip(operands, inputs, strict=True):
        terms.append(_diagonal(xp, x, labels))
    # Sum out the labels no other operand and not the output needs, then fold pairwise.
    x, labels = terms[0]
    for i in range(1, len(terms)):
        later = {c for _, ls in terms[i:] for c in ls} | set(output)
        x, labels = _sum_out(xp, x, labels, later)
        y, ly = terms[i]
        keep = {c for _, ls in terms[i + 1:] for c in ls} | set(output)
        y, ly = _sum_out(xp, y, ly, keep | set(labels))
        x, labels = _contract(xp, x, labels, y, ly, keep)
    x, labels = _sum_out(xp, x, labels, set(output))
    if labels != output:
        x = xp.permute_dims(x, tuple(labels.index(c) for c in output))
    return x
