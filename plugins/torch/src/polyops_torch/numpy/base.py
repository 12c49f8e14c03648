"""PyTorch kernels of `polyops.ops.numpy.base`: creation, arithmetic, comparisons,
reductions, shape, matmul/einsum.

Kernels take the op's arguments positionally; tensors arrive as torch tensors
already promoted, reduction axes canonical (None or a sorted tuple of
non-negative ints), dtypes as canonical strings.  A kernel keeps the input
dtype unless the op says otherwise.
"""

from __future__ import annotations

import builtins
import math
import operator

import torch

from polyops import standardize_dtype
from polyops.plugin import any_dtype, nonempty
from polyops.plugin import reference as _reference

from .._compat import is_compiling as _is_compiling
from .._compat import is_wrapped as _is_wrapped
from ..core import TORCH_DTYPES
from ._common import (_F64, _HALF, _WIDER_BOOL, _flip_dims, _int_division, _max, _min,
                      _product, _spaced, _to, _valid_index, _widen, _widened)


# ===== creation =====================================================================


def full(shape, fill_value, dtype):
    td = TORCH_DTYPES[dtype]
    try:
        return torch.full(shape, fill_value, dtype=td)
    except RuntimeError:
        # torch refuses values that overflow the dtype (1e300 -> bfloat16 is inf
        # in numpy); fill in the widest dtype of the kind and cast.
        wide = torch.complex128 if isinstance(fill_value, complex) else (
            torch.float64 if isinstance(fill_value, float) else torch.int64)
        return torch.full(shape, fill_value, dtype=wide).to(td)


def zeros(shape, dtype):
    return torch.zeros(shape, dtype=TORCH_DTYPES[dtype])


def ones(shape, dtype):
    return torch.ones(shape, dtype=TORCH_DTYPES[dtype])


def full_like(x, fill_value, dtype):
    td = x.dtype if dtype is None else TORCH_DTYPES[standardize_dtype(dtype)]
    try:
        return torch.full_like(x, fill_value, dtype=td)
    except (RuntimeError, TypeError):  # a value past the dtype, a tensor fill_value
        return _reference("full_like")(x, fill_value, dtype)


def eye(N, M, k, dtype):
    # No prepare: operator.index fails on a float N or k, and core reports the rule's error
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    td = TORCH_DTYPES[standardize_dtype(dtype)]
    if k == 0:
        try:
            return torch.eye(N, M, dtype=td)
        except RuntimeError:  # no eye for the dtype (wide unsigned ints), negative sizes
            pass
    out = torch.zeros((N, M), dtype=torch.bool)
    out.diagonal(k).fill_(True)  # an offset past the matrix: an empty diagonal
    return out.to(td)


def arange(start, stop, step, dtype):
    td = TORCH_DTYPES[dtype]
    n = builtins.max(0, math.ceil((stop - start) / step))
    exact = td.is_floating_point or type(start) is type(step) is int
    if n and exact:
        try:
            out = torch.arange(start, stop, step, dtype=td)
        except RuntimeError:  # no arange for the dtype (bool, wide unsigned ints)
            pass
        else:
            if out.shape[0] == n:  # torch's float rounding may add or drop one
                return out
    if td.is_floating_point or td.is_complex:
        return (torch.arange(n, dtype=torch.float64) * step + start).to(td)
    # numpy casts start and start + step to the int dtype (truncating), and
    # steps by their difference: arange(0.5, 3, 1, dtype=int32) is 0, 1, 2.
    first = int(start)
    delta = int(start + step) - first
    return (torch.arange(n, dtype=torch.int64) * delta + first).to(td)


def linspace(start, stop, num, endpoint, retstep, dtype, axis):
    # core's reference step by step (torch.linspace rounds otherwise): start + i * step in
    # the float dtype itself, float64 for other 64-bit results, else float32, cast at the
    # end (ints truncate); the last value exactly stop.  No prepare: the reference's checks.
    for v in (start, stop):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"linspace: expected a Python number, got {v!r}")
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: expected num >= 0, got num={num}")
    dtype = standardize_dtype(dtype)
    td = TORCH_DTYPES[dtype]
    work = td if td.is_floating_point else _F64 if dtype in _WIDE64 else torch.float32
    div = num - 1 if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    if work in _HALF:  # rounded to the dtype first, as the reference's operands are (torch
        step, start = torch.tensor(step, dtype=work), torch.tensor(start, dtype=work)
    values = _to(_spaced(num, step, start, stop if endpoint and num > 1 else None, work), td)
    return (values, step) if retstep else values


_WIDE64 = ("int64", "uint64", "complex128")


# ===== elementwise primitives =======================================================


def abs(x):
    try:
        return torch.abs(x)
    except RuntimeError:
        if x.dtype in _WIDER_BOOL:  # bool and unsigned: abs is the identity
            return x
        raise


negative = _widened(torch.negative)
exp = torch.exp
log = torch.log
sqrt = torch.sqrt
sin = torch.sin
cos = torch.cos
tanh = torch.tanh
floor = torch.floor
ceil = torch.ceil
square = _widened(torch.square)


def _sign(x):
    if x.is_floating_point():
        # torch.sign(nan) is 0: min(x, -2) is below every sign, or NaN where x is NaN, so the
        # maximum is the sign (+0 for -0), NaN for NaN: float ops only (a bool mask and a
        # select cost ~10x torch.sign on a 512x512 CPU input).  Detached: sign's derivative
        # is 0, which no backward graph needs to compute.  (Not an in-place clamp_, a pass
        # less: torch.vmap has no batching rule for it and warns.)
        # (clamp_max: clamp's max= keyword parse costs a third of a small call)
        if x.requires_grad:
            x = x.detach()
        s = torch.sign(x)
        if _is_compiling() or _is_wrapped(x):  # (torch.vmap has no rule for maximum.out)
            return torch.maximum(s, torch.clamp_max(x, -2.0))
        return torch.maximum(s, torch.clamp_max(x, -2.0), out=s)  # a large tensor less
    return torch.sgn(x) if x.is_complex() else torch.sign(x)


sign = _widened(_sign)


def round(x, decimals):
    if x.is_floating_point() or x.is_complex():
        return torch.round(x, decimals=decimals) if decimals else torch.round(x)
    if decimals >= 0 or x.dtype == torch.bool:
        return x
    # numpy rounds integers to tens, hundreds... in float64, half to even.
    scale = 10.0 ** -decimals
    return (torch.round(x.to(torch.float64) / scale) * scale).to(x.dtype)


add = _widened(torch.add)
subtract = _widened(torch.subtract)
multiply = _widened(torch.multiply)
divide = torch.true_divide


def _floor_div(x1, x2):
    return torch.div(x1, x2, rounding_mode="floor")


def _float_divmod(x1, x2):
    """NumPy's divmod (``npy_divmod``, which eager torch also uses) for floats, spelled
    out for compiled graphs: inductor lowers floor division to ``floor(a / b)`` and
    remainder to ``a - b * floor(a / b)``, which differ where an operand is infinite."""
    mod = torch.fmod(x1, x2)
    div = (x1 - mod) / x2
    adj = (mod != 0) & ((x2 < 0) != (mod < 0))
    mod = torch.where(adj, mod + x2, mod)
    div = torch.where(adj, div - 1, div)
    mod = torch.where(mod == 0, torch.copysign(torch.zeros_like(mod), x2), mod)
    fl = torch.floor(div)
    fl = torch.where(div - fl > 0.5, fl + 1, fl)
    ratio = x1 / x2
    fl = torch.where(div == 0, torch.copysign(torch.zeros_like(fl), ratio), fl)
    return torch.where(x2 == 0, ratio, fl), mod


def _float_floor_divide(x1, x2):
    """`_float_divmod`'s quotient alone, in fewer graph nodes (issue 21: 15 where the pair
    takes 28): the remainder's sign against the divisor's as one product with sign(x2)
    (exact, no underflow), the half-up correction and the step down added as booleans, and
    the sign of a zero quotient (x1 / x2's) put on by copysign: a nonzero quotient already
    carries that sign (negative exactly where the operands' signs differ)."""
    mod = torch.fmod(x1, x2)
    div = torch.add((x1 - mod) / x2, mod * torch.sign(x2) < 0, alpha=-1)
    fl = torch.floor(div)
    fl = fl + (div - fl > 0.5)
    ratio = x1 / x2
    return torch.where(x2 == 0, ratio, torch.copysign(fl, ratio))


def _spelled_out(index, fn, x1, x2):
    """Division where eager CPU torch cannot be relied on: under torch.compile (see
    `_float_divmod`; integer x // 0 raises inside the graph) and for integers on an
    accelerator (CUDA returns garbage for x // 0 where the CPU raises)."""
    if x1.is_floating_point():
        if not _is_compiling():
            return fn(x1, x2)
        spelled = _float_floor_divide if index == 0 else lambda a, b: _float_divmod(a, b)[1]
        if x1.dtype in _HALF:  # eager torch computes half floats in float32, rounding once
            return spelled(x1.float(), x2.float()).to(x1.dtype)
        return spelled(x1, x2)
    if x1.is_complex():
        return fn(x1, x2)
    return _int_division(fn, x1, x2)


def floor_divide(x1, x2):
    if _is_compiling() or not x1.is_cpu:
        return _spelled_out(0, _floor_div, x1, x2)
    try:
        return _floor_div(x1, x2)
    except RuntimeError:
        if x1.is_floating_point() or x1.is_complex():
            raise
    return _int_division(_floor_div, x1, x2)


def mod(x1, x2):
    if _is_compiling() or not x1.is_cpu:
        return _spelled_out(1, torch.remainder, x1, x2)
    try:
        return torch.remainder(x1, x2)
    except RuntimeError:
        if x1.is_floating_point() or x1.is_complex():
            raise
    return _int_division(torch.remainder, x1, x2)


power = _widened(torch.pow, _WIDER_BOOL)
maximum = _widened(torch.maximum)
minimum = _widened(torch.minimum)


def _clip(x, x_min, x_max):
    # core hands Python-number bounds over as 0-d tensors: torch's clamp with tensor bounds
    # is a broadcasting kernel, 4-5x slower than with numbers on a 512x512 CPU input.  Read
    # them back where that is free of side effects (eager, CPU, no gradient, not NaN).
    # Below _CLAMP_SMALL elements on the CPU the tensor kernel costs less than the checks
    # and reads (the same values: the branch's own fallback).
    if x.numel() < _CLAMP_SMALL and x.is_cpu:
        return torch.clamp(x, x_min, x_max)
    if (type(x_min) is type(x_max) is torch.Tensor and x_min.ndim == 0 == x_max.ndim
            and x_min.is_cpu and x_max.is_cpu and not (x_min.requires_grad or x_max.requires_grad)
            and not _is_compiling()):
        lo, hi = x_min.item(), x_max.item()
        if lo == lo and hi == hi:  # (NaN bounds: the tensor kernel's NaN)
            return torch.clamp(x, lo, hi)
    return torch.clamp(x, x_min, x_max)


clip = _widened(_clip)
_CLAMP_SMALL = 1024  # (16x16 float32 CPU: 1.5 us where the reads take 2.5 us)


# ===== comparison and logic =========================================================

equal = _widened(torch.eq)
not_equal = _widened(torch.ne)
less = _widened(torch.lt)
less_equal = _widened(torch.le)
greater = _widened(torch.gt)
greater_equal = _widened(torch.ge)
# (any dtype read as truth values, as the cast to bool would: no cast first)
logical_and = any_dtype(torch.logical_and)
logical_or = any_dtype(torch.logical_or)
logical_not = any_dtype(torch.logical_not)
where = _widened(torch.where)


# ===== reductions ===================================================================
# torch reads dim=() as "all dims"; numpy's axis=() reduces nothing.


def _sum(x, axis, keepdims):
    if axis == ():
        return x
    if x.is_floating_point() and axis is None and not keepdims:
        return torch.sum(x)  # (a third faster on a small tensor than with the keywords)
    # dtype= keeps int32 from widening to int64.
    return torch.sum(x, axis, keepdims, dtype=x.dtype)


sum = _widened(_sum)


def _prod(x, axis, keepdims, dtype):
    if axis is None:
        out = torch.prod(x, dtype=x.dtype)
        return out.reshape((1,) * x.ndim) if keepdims else out
    # torch.prod takes one dim: reduce from the last so the others stay put.
    for a in reversed(axis):
        x = torch.prod(x, a, keepdim=keepdims, dtype=x.dtype)
    return x


prod = _widened(_prod)


# torch's amax/amin refuse an empty reduction: core answers those (with initial), `nonempty`
max = nonempty(_widened(_max))
min = nonempty(_widened(_min))


def argmax(x, axis, keepdims):
    try:
        out = torch.argmax(x, axis, keepdims)  # (positional: no keywords to parse)
    except RuntimeError:  # bool and wide unsigned ints
        out = torch.argmax(_widen(x, _WIDER_BOOL), dim=axis, keepdim=keepdims)
    return out.int()


def argmin(x, axis, keepdims):
    try:
        out = torch.argmin(x, axis, keepdims)  # (positional: no keywords to parse)
    except RuntimeError:
        out = torch.argmin(_widen(x, _WIDER_BOOL), dim=axis, keepdim=keepdims)
    return out.int()


# (any dtype read as truth values, NaN true: torch.all/any take the tensor as it is, no
# cast to bool first; the wide unsigned ints they lack raise, and core's rescue takes the
# general entry, which casts)
@any_dtype
def all(x, axis, keepdims):
    if axis == ():
        return x if x.dtype is torch.bool else x != 0
    out = torch.all(x, dim=axis, keepdim=keepdims)
    return out if out.dtype is torch.bool else out.bool()  # (uint8 in, uint8 out)


@any_dtype
def any(x, axis, keepdims):
    if axis == ():
        return x if x.dtype is torch.bool else x != 0
    out = torch.any(x, dim=axis, keepdim=keepdims)
    return out if out.dtype is torch.bool else out.bool()  # (uint8 in, uint8 out)


def mean(x, axis, keepdims):
    if axis == ():
        return x
    return torch.mean(x, dim=axis, keepdim=keepdims)


# torch's var and std of complex values are real; polyops keeps the complex dtype (the rule's)
@nonempty  # torch warns on an empty reduction (NumPy's NaN is core's fill)
def var(x, axis, keepdims):
    if axis == ():
        out = torch.square(torch.abs(x - x))  # 0, or nan for inf and nan
    else:
        out = torch.var(x, dim=axis, correction=0, keepdim=keepdims)
    return out.to(x.dtype) if x.is_complex() else out


@nonempty  # torch warns on an empty reduction (NumPy's NaN is core's fill)
def std(x, axis, keepdims):
    out = torch.abs(x - x) if axis == () else torch.std(x, dim=axis, correction=0, keepdim=keepdims)
    return out.to(x.dtype) if x.is_complex() else out


# ===== shape ========================================================================

reshape = torch.reshape
transpose = torch.permute


def concatenate(xs, axis):
    return torch.cat(xs, dim=axis)


def stack(x, axis):
    return torch.stack(x, dim=axis)


broadcast_to = torch.broadcast_to


def expand_dims(x, axis):
    if not isinstance(axis, (tuple, list)):
        return torch.unsqueeze(x, axis)
    ndim = x.ndim + len(axis)
    axes = {a % ndim for a in axis}
    dims = iter(x.shape)
    return x.reshape(tuple(1 if i in axes else next(dims) for i in range(ndim)))


def squeeze(x, axis):
    if axis is None:
        return torch.squeeze(x)
    # (axes of size 1: the op's prepare checked; torch would skip the others)
    return torch.squeeze(x, tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))


def flip(x, axis):
    if axis is None:
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    return _flip_dims(x, dims)


def take(x, indices, axis):
    # Advanced indexing at ``axis`` has np.take's shape and wraps negative indices.
    if axis is None:
        x, axis = x.reshape(-1), 0
    if _is_compiling():  # traced: out-of-range indices read 0 (eagerly core raised)
        indices, valid = _valid_index(indices, x.shape[axis])
        out = x[(slice(None),) * axis + (indices,)]
        valid = valid.reshape((1,) * axis + valid.shape + (1,) * (x.ndim - axis - 1))
        return torch.where(valid, out, torch.zeros((), dtype=out.dtype, device=out.device))
    return x[(slice(None),) * axis + (indices,)]


def get_item(x, key):
    try:
        return x[key]
    except ValueError:  # torch slices take no negative step
        return _get_item_flipped(x, key)


def _get_item_flipped(x, key):
    # Flip the axes that a negative step walks backwards, and slice forwards.
    key = key if isinstance(key, tuple) else (key,)
    used = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    out, flips, axis = [], [], 0
    for k in key:
        if k is Ellipsis:
            axis += x.ndim - used
        elif k is not None:
            if isinstance(k, slice) and k.step is not None and k.step < 0:
                r = range(*k.indices(x.shape[axis]))
                first = x.shape[axis] - 1 - r.start
                k = slice(first, first - len(r) * r.step, -r.step) if len(r) else slice(0, 0)
                flips.append(axis)
            axis += 1
        out.append(k)
    return _flip_dims(x, flips)[tuple(out)]


def zeros_like(x, dtype):
    if dtype is None:
        return torch.zeros_like(x)
    return torch.zeros_like(x, dtype=TORCH_DTYPES[standardize_dtype(dtype)])


def ones_like(x, dtype):
    if dtype is None:
        return torch.ones_like(x)
    return torch.ones_like(x, dtype=TORCH_DTYPES[standardize_dtype(dtype)])


# ===== linear algebra ===============================================================


def matmul(x1, x2):
    return _product(torch.matmul, x1, x2)


def _dot(x1, x2):
    if x1.ndim == 0 or x2.ndim == 0:
        return torch.mul(x1, x2)
    if x1.ndim == 1 or x2.ndim == 1:
        return torch.matmul(x1, x2)
    return torch.tensordot(x1, x2, dims=([x1.ndim - 1], [x2.ndim - 2]))


def dot(x1, x2):
    return _product(_dot, x1, x2)


def einsum(subscripts, *operands):
    return _product(torch.einsum, subscripts.replace(" ", ""), *operands)
