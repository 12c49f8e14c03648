"""PyTorch kernels for the ``numpy`` op family.

Kernels take the op's arguments positionally; tensors arrive as torch tensors
already promoted, reduction axes canonical (None or a sorted tuple of
non-negative ints), dtypes as canonical strings.  A kernel keeps the input
dtype unless the op says otherwise.

Torch has almost no kernels for uint16/uint32/uint64: the kernels that can
meet them retry in a wider signed int when torch refuses, and cast back, so
the common dtypes pay nothing for it.
"""

from __future__ import annotations

import builtins
import math

import torch

from polyops import standardize_dtype
from polyops.plugin import SplitKernel, pad_index

from .core import TORCH_DTYPES

# Wider signed dtypes that hold every value (uint64: modulo 2**64, exact for
# wrapping arithmetic; core demotes uint64 operands to uint32 anyway).
_WIDER = {torch.uint16: torch.int32, torch.uint32: torch.int64, torch.uint64: torch.int64}
# Also for integer arithmetic that torch refuses on bool (floor_divide, mod, power).
_WIDER_BOOL = {**_WIDER, torch.bool: torch.uint8}


def _tensors(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def _widen(a, wider):
    if isinstance(a, torch.Tensor):
        return a.to(wider[a.dtype]) if a.dtype in wider else a
    if isinstance(a, (list, tuple)):
        return type(a)(_widen(t, wider) for t in a)
    return a


def _widened(fn, wider=_WIDER):
    """``fn``, retried in wider signed ints when torch has no kernel for the dtype.  The
    eager fast paths call ``fn`` itself for the other dtypes (no wrapper frame per call)."""

    def kernel(*args):
        try:
            return fn(*args)
        except RuntimeError:
            dtype = next((t.dtype for t in _tensors(args) if t.dtype in wider), None)
            if dtype is None:
                raise
        out = fn(*[_widen(a, wider) for a in args])
        return out.to(dtype) if out.dtype == wider[dtype] else out

    return SplitKernel(fn, kernel, (name for name, td in TORCH_DTYPES.items() if td not in wider))


def _out_shape(shape, axis, keepdims):
    if axis is None:
        return (1,) * len(shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


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


# ===== elementwise ==================================================================


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
        return torch.where(torch.isnan(x), x, torch.sign(x))  # torch.sign(nan) is 0
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


def _int_division(fn, x1, x2):
    # torch raises on integer division by zero, numpy gives 0; bool and wide
    # unsigned ints compute in a wider int.
    dtype = x1.dtype
    a, b = _widen(x1, _WIDER_BOOL), _widen(x2, _WIDER_BOOL)
    zero = b == 0
    out = torch.where(zero, 0, fn(a, torch.where(zero, 1, b)))
    return out.to(dtype)


def _floor_div(x1, x2):
    return torch.div(x1, x2, rounding_mode="floor")


_is_compiling = torch.compiler.is_compiling
_HALF = (torch.float16, torch.bfloat16)


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


def _spelled_out(index, fn, x1, x2):
    """Division where eager CPU torch cannot be relied on: under torch.compile (see
    `_float_divmod`; integer x // 0 raises inside the graph) and for integers on an
    accelerator (CUDA returns garbage for x // 0 where the CPU raises)."""
    if x1.is_floating_point():
        if not _is_compiling():
            return fn(x1, x2)
        if x1.dtype in _HALF:  # eager torch computes half floats in float32, rounding once
            return _float_divmod(x1.float(), x2.float())[index].to(x1.dtype)
        return _float_divmod(x1, x2)[index]
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
clip = _widened(torch.clamp)

# ===== comparison and logic =========================================================

equal = _widened(torch.eq)
not_equal = _widened(torch.ne)
less = _widened(torch.lt)
less_equal = _widened(torch.le)
greater = _widened(torch.gt)
greater_equal = _widened(torch.ge)
logical_and = torch.logical_and
logical_or = torch.logical_or
logical_not = torch.logical_not
where = _widened(torch.where)

# ===== reductions ===================================================================
# torch reads dim=() as "all dims"; numpy's axis=() reduces nothing.


def _sum(x, axis, keepdims):
    if axis == ():
        return x
    # dtype= keeps int32 from widening to int64.
    return torch.sum(x, dim=axis, keepdim=keepdims, dtype=x.dtype)


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


def _extremum(reduce, combine, x, axis, keepdims, initial):
    if axis == ():
        out = x
    elif x.numel() == 0 and (axis is None or builtins.any(x.shape[a] == 0 for a in axis)):
        # core only lets an empty reduction through with an initial value
        return torch.full(_out_shape(x.shape, axis, keepdims), initial, dtype=x.dtype)
    else:
        out = reduce(x, dim=() if axis is None else axis, keepdim=keepdims)
    if initial is None:
        return out
    return combine(out, torch.tensor(initial, dtype=x.dtype))


def _max(x, axis, keepdims, initial):
    return _extremum(torch.amax, torch.maximum, x, axis, keepdims, initial)


def _min(x, axis, keepdims, initial):
    return _extremum(torch.amin, torch.minimum, x, axis, keepdims, initial)


max = _widened(_max)
min = _widened(_min)


def argmax(x, axis, keepdims):
    try:
        out = torch.argmax(x, dim=axis, keepdim=keepdims)
    except RuntimeError:  # bool and wide unsigned ints
        out = torch.argmax(_widen(x, _WIDER_BOOL), dim=axis, keepdim=keepdims)
    return out.to(torch.int32)


def argmin(x, axis, keepdims):
    try:
        out = torch.argmin(x, dim=axis, keepdim=keepdims)
    except RuntimeError:
        out = torch.argmin(_widen(x, _WIDER_BOOL), dim=axis, keepdim=keepdims)
    return out.to(torch.int32)


def all(x, axis, keepdims):
    if axis == ():
        return x
    return torch.all(x, dim=axis, keepdim=keepdims)


def any(x, axis, keepdims):
    if axis == ():
        return x
    return torch.any(x, dim=axis, keepdim=keepdims)


def mean(x, axis, keepdims):
    if axis == ():
        return x
    return torch.mean(x, dim=axis, keepdim=keepdims)


def _empty_moment(x, axis, keepdims):
    """NaN of the reduced shape: torch warns on an empty reduction, NumPy gives NaN."""
    return torch.full(_out_shape(x.shape, axis, keepdims), float("nan"), dtype=x.dtype)


def var(x, axis, keepdims):
    if axis == ():
        return torch.square(x - x)  # 0, or nan for inf and nan
    if x.numel() == 0:
        return _empty_moment(x, axis, keepdims)
    return torch.var(x, dim=axis, correction=0, keepdim=keepdims)


def std(x, axis, keepdims):
    if axis == ():
        return torch.abs(x - x)
    if x.numel() == 0:
        return _empty_moment(x, axis, keepdims)
    return torch.std(x, dim=axis, correction=0, keepdim=keepdims)


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
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    # torch skips dims that are not 1 where numpy refuses; core runs the op's
    # rule on a kernel failure, which names the problem.
    if builtins.any(x.shape[a] != 1 for a in axes):
        raise ValueError(f"squeeze: axis {axis} is not of size 1 in shape {tuple(x.shape)}")
    return torch.squeeze(x, axes)


# Same-width signed dtypes: moving data around needs no arithmetic, only bits.
_SIGNED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _flip_dims(x, dims):
    try:
        return torch.flip(x, dims)
    except RuntimeError:
        if x.dtype not in _SIGNED:
            raise
    return torch.flip(x.view(_SIGNED[x.dtype]), dims).view(x.dtype)


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


def _valid_index(indices, n):
    """(indices with negatives counted from the end and those outside [-n, n) sent to 0,
    which are inside): polyops' policy under a trace, where they read 0 (a compiled
    gather would read out of bounds)."""
    indices = indices.to(torch.int64)
    indices = torch.where(indices < 0, indices + n, indices)
    valid = (indices >= 0) & (indices < n)
    return torch.where(valid, indices, 0), valid


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


def _product(fn, *args):
    """Run a matrix product ``fn``; where torch lacks it for the dtype, compute it wider."""
    dtype = next(_tensors(args)).dtype
    try:
        out = fn(*args)
    except RuntimeError:
        if dtype == torch.bool:
            out = fn(*_widen_all(args, torch.int32))
        elif dtype in _WIDER:
            out = fn(*[_widen(a, _WIDER) for a in args])
        elif dtype.is_floating_point or dtype.is_complex or args[-1].device.type == "cpu":
            raise
        else:  # integer products exist on the CPU only
            device = args[-1].device
            out = fn(*[a.cpu() if isinstance(a, torch.Tensor) else a for a in args]).to(device)
    if out.dtype == dtype:
        return out
    # A bool product is true where its sum of products is non-zero; einsum's
    # reductions widen ints to int64.
    return out != 0 if dtype == torch.bool else out.to(dtype)


def _widen_all(args, dtype):
    return [a.to(dtype) if isinstance(a, torch.Tensor) else a for a in args]


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


# ===== catalogue primitives ===========================================================

arctan2 = torch.atan2
bitwise_and = _widened(torch.bitwise_and)
bitwise_or = _widened(torch.bitwise_or)
bitwise_xor = _widened(torch.bitwise_xor)
bitwise_invert = _widened(torch.bitwise_not)

_BITS = {torch.int8: 8, torch.uint8: 8, torch.int16: 16, torch.uint16: 16, torch.int32: 32,
         torch.uint32: 32, torch.int64: 64, torch.uint64: 64}
_UNSIGNED_T = frozenset({torch.uint8, torch.uint16, torch.uint32, torch.uint64})


def _shift(fn, fill_negative):
    """Shifts with NumPy's result for counts >= the bit width (C leaves them undefined)."""

    def kernel(x, y):
        bits = _BITS[x.dtype]
        out = fn(x, torch.clamp(y, 0, bits - 1))
        over = y >= bits
        if fill_negative and x.dtype not in _UNSIGNED_T:
            return out  # a count of bits - 1 already gives the sign fill
        return torch.where(over, torch.zeros((), dtype=x.dtype), out)

    return _widened(kernel)


left_shift = _shift(torch.bitwise_left_shift, False)
right_shift = _shift(torch.bitwise_right_shift, True)


def view(x, dtype):
    target = TORCH_DTYPES[dtype]
    if x.dtype == target:
        return x
    if x.numel() == 0:  # torch's view checks strides even when there is no data
        a, b = x.element_size(), torch.empty((), dtype=target).element_size()
        shape = tuple(x.shape[:-1]) + ((x.shape[-1] * a) // b,) if x.ndim else ()
        return torch.empty(shape, dtype=target)
    return x.contiguous().view(target)


def argsort(x, axis):
    if axis is None or x.ndim == 0:
        x, axis = x.reshape(-1), 0
    if x.dtype in _WIDER:
        x = x.to(_WIDER[x.dtype])
    return torch.argsort(x, dim=axis, stable=True).to(torch.int32)  # NaN sorts last


# ===== products (polyops.ops.numpy.products) ==========================================

_F32 = torch.float32


def _in_float32(fn):
    """``fn`` computed in float32 for float16/bfloat16 operands (sums accumulate in float32)."""

    def kernel(*args):
        dtype = next(_tensors(args)).dtype
        if dtype not in _HALF:
            return fn(*args)
        out = fn(*[a.to(_F32) if isinstance(a, torch.Tensor) else a for a in args])
        if isinstance(out, tuple):
            return tuple(o.to(dtype) for o in out)
        return out.to(dtype)

    return kernel


def outer(x1, x2):
    return _widened(torch.outer)(x1.reshape(-1), x2.reshape(-1))


kron = _widened(torch.kron)


def _inner(x1, x2):
    if x1.ndim == 0 or x2.ndim == 0:
        return _widened(torch.mul)(x1, x2)
    return _product(torch.inner, x1, x2)


inner = _in_float32(_inner)


def _vdot(x1, x2):
    a, b = x1.reshape(-1), x2.reshape(-1)
    if a.is_complex():
        return torch.vdot(a, b)
    return _product(torch.dot, a, b)


vdot = _in_float32(_vdot)


def _tensordot(x1, x2, axes):
    a1, a2 = axes
    if not a1:  # no contraction: an outer product, no sums
        return _widened(torch.mul)(x1.reshape(tuple(x1.shape) + (1,) * x2.ndim), x2)
    return _product(torch.tensordot, x1, x2, (list(a1), list(a2)))


tensordot = _in_float32(_tensordot)


def _trapezoid(y, x, dx, axis):
    n = y.shape[axis]
    m = builtins.max(n - 1, 0)
    hi, lo = y.narrow(axis, builtins.min(n, 1), m), y.narrow(axis, 0, m)
    if x is None:
        d = dx
    else:
        xa = 0 if x.ndim == 1 else axis
        d = torch.diff(x, dim=xa)
        if x.ndim == 1 and y.ndim > 1:
            d = d.reshape(tuple(d.shape[0] if i == axis else 1 for i in range(y.ndim)))
    # NumPy's sum of d * (y[i+1] + y[i]) / 2 (torch.trapezoid factors dx out: inf - inf)
    return torch.sum(d * (hi + lo) / 2.0, dim=axis)


trapezoid = _in_float32(_trapezoid)


def _slogdet(x):
    if x.shape[-1] == 0:
        batch = x.shape[:-2]
        return torch.ones(batch, dtype=x.dtype), torch.zeros(batch, dtype=x.dtype)
    sign, logdet = torch.linalg.slogdet(x)
    return sign + 0.0, logdet  # a singular matrix gives sign -0.0


slogdet = _in_float32(_slogdet)


# Window functions: NumPy's formulas, in float64 as NumPy computes them.
_F64 = torch.float64


def _window(x, fn):
    from polyops import config

    dtype = TORCH_DTYPES[config.floatx()]
    if x <= 1:
        return torch.ones((builtins.max(x, 0),), dtype=dtype)
    n = torch.arange(1 - x, x, 2, dtype=_F64)
    return fn(n, x).to(dtype)


def bartlett(x):
    return _window(x, lambda n, m: torch.where(n <= 0, 1 + n / (m - 1), 1 - n / (m - 1)))


def blackman(x):
    return _window(x, lambda n, m: 0.42 + 0.5 * torch.cos(math.pi * n / (m - 1))
                   + 0.08 * torch.cos(2.0 * math.pi * n / (m - 1)))


def hamming(x):
    return _window(x, lambda n, m: 0.54 + 0.46 * torch.cos(math.pi * n / (m - 1)))


def hanning(x):
    return _window(x, lambda n, m: 0.5 + 0.5 * torch.cos(math.pi * n / (m - 1)))


def kaiser(x, beta):
    beta = builtins.abs(beta)

    def fn(n, m):
        # I0(beta r) / I0(beta) with the scaled i0e, so a large beta cannot overflow
        alpha = (m - 1) / 2.0
        r = torch.sqrt(torch.clamp(1 - (torch.arange(m, dtype=_F64) - alpha) ** 2 / alpha**2, min=0))
        i0e = torch.special.i0e
        return i0e(beta * r) / i0e(torch.tensor(beta, dtype=_F64)) * torch.exp(beta * (r - 1))

    return _window(x, fn)


# ===== sorting, searching, counting (polyops.ops.numpy.sorting) =======================


def _sortable(x):
    """x in a dtype torch sorts and compares (bool and wide unsigned ints: wider ints)."""
    return _widen(x, _WIDER_BOOL)


def sort(x, axis):
    if axis is None:
        x, axis = x.reshape(-1), 0
    dtype = x.dtype
    out = torch.sort(_widen(x, _WIDER), dim=axis, stable=True)[0]  # NaN sorts last
    return out if out.dtype == dtype else out.to(dtype)


def argpartition(x, kth, axis):
    return argsort(x, axis)  # the stable argsort is a valid partition for every kth


def _count_before(seq, values, side):
    """searchsorted in NumPy's order (NaN after +inf), int64."""
    seq, values = _sortable(seq), _sortable(values)
    if not seq.is_floating_point():
        return torch.searchsorted(seq.contiguous(), values.contiguous(), side=side)
    nan = torch.isnan(seq)
    numbers = seq.numel() - torch.sum(nan)  # NaNs sort last: numbers come first
    seq = torch.where(nan, math.inf, seq)
    out = torch.searchsorted(seq.contiguous(), values.contiguous(), side=side)
    out = torch.minimum(out, numbers)  # v <= inf counts no NaN
    vnan = torch.isnan(values)
    return torch.where(vnan, seq.numel() if side == "right" else numbers, out)


def searchsorted(sorted_sequence, values, side):
    return _count_before(sorted_sequence, values, side).to(torch.int32)


def digitize(x, bins):
    n = bins.shape[0]
    increasing = _count_before(bins, x, "right")
    if n >= 2:
        decreasing = n - _count_before(torch.flip(bins, (0,)), x, "right")
        increasing = torch.where(bins[n - 1] < bins[0], decreasing, increasing)
    return increasing.to(torch.int32)


def bincount(x, weights, minlength, sparse):
    index = x.to(torch.int64)
    shape = tuple(x.shape[:-1]) + (minlength,)
    if weights is None:
        src, acc = torch.ones_like(index, dtype=torch.int32), torch.int32
    else:
        dtype = weights.dtype
        # NumPy sums weights in float64 (complex128); ints wrap in their own dtype
        acc = (torch.complex128 if dtype.is_complex else _F64 if dtype.is_floating_point
               else _WIDER_BOOL.get(dtype, dtype))
        src = weights.to(acc)
    out = torch.zeros(shape, dtype=acc).scatter_add_(-1, index, src)
    return out if weights is None else out.to(weights.dtype)


def histogram(x, bins, range):
    from polyops import config

    fdt = x.dtype if x.is_floating_point() else TORCH_DTYPES[config.floatx()]
    flat = x.reshape(-1)
    if range is not None or flat.numel() == 0:
        lo, hi = range if range is not None else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo_t, hi_t = torch.tensor(lo, dtype=_F32), torch.tensor(hi, dtype=_F32)
    else:
        x32 = flat.to(_F32)
        lo_t, hi_t = torch.min(x32), torch.max(x32)
        same = lo_t == hi_t
        lo_t, hi_t = torch.where(same, lo_t - 0.5, lo_t), torch.where(same, hi_t + 0.5, hi_t)
    # the edges of the reference, in float32
    i = torch.arange(bins + 1, dtype=_F32)
    edges = torch.where(i == bins, hi_t, lo_t + i * ((hi_t - lo_t) / bins)).to(fdt)
    values = flat.to(fdt)
    # bin j holds e[j] <= v < e[j+1], the last also v == e[bins]
    j = _count_before(edges[:bins], values, "right") - 1
    inside = (j >= 0) & ((j < bins - 1) | (values <= edges[bins]))
    hist = torch.zeros(bins, dtype=_F64).scatter_add_(
        0, torch.where(inside, j, 0), inside.to(_F64))
    return hist.to(fdt), edges


def unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value):
    flat = x.reshape(-1)
    n = flat.numel()
    fill = 0 if fill_value is None else fill_value
    i32 = torch.int32
    if n == 0:
        m = size or 0
        outs = [full((m,), fill, standardize_dtype(x.dtype)), torch.ones(m, dtype=i32),
                torch.zeros(x.shape, dtype=i32), torch.zeros(m, dtype=i32)]
    else:
        sw, order = torch.sort(_widen(flat, _WIDER), stable=True)
        s = sw.to(x.dtype)
        step = sw[1:] != sw[:-1]
        if sw.is_floating_point():
            step &= ~(torch.isnan(sw[1:]) & torch.isnan(sw[:-1]))
        new = torch.cat([torch.ones(1, dtype=torch.bool), step])
        starts = torch.nonzero(new)[:, 0]  # the first sorted position of each value
        count = starts.numel()
        m = count if size is None else size
        bounds = torch.cat([starts, torch.tensor([n])])
        counts = bounds[1:] - bounds[:-1]
        values, index = s[starts], order[starts]
        if m < count:
            values, index, counts = values[:m], index[:m], counts[:m]
        elif m > count:
            pad = m - count
            values = torch.cat([values, full((pad,), fill, standardize_dtype(x.dtype))])
            index = torch.cat([index, torch.ones(pad, dtype=index.dtype)])
            counts = torch.cat([counts, torch.zeros(pad, dtype=counts.dtype)])
        inverse = torch.empty(n, dtype=torch.int64)
        inverse[order] = torch.cumsum(new, 0) - 1
        outs = [values, index.to(i32), inverse.reshape(x.shape).to(i32), counts.to(i32)]
    keep = (True, return_index, return_inverse, return_counts)
    outs = [o for o, k in zip(outs, keep) if k]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _nonzero_mask(x):
    return x.view(_SIGNED[x.dtype]) if x.dtype in _SIGNED else x  # same bits, same zeros


def nonzero(x):
    return tuple(i.to(torch.int32) for i in torch.nonzero(_nonzero_mask(x), as_tuple=True))


def isin(x1, x2, assume_unique, invert):
    a, b = _sortable(x1), _sortable(x2)
    if a.is_complex():  # no complex isin: compare with every element
        found = torch.any(a.unsqueeze(-1) == b.reshape(-1), dim=-1)
        return ~found if invert else found
    return torch.isin(a, b, assume_unique=assume_unique, invert=invert)


def count_nonzero(x, axis):
    x = _nonzero_mask(x)
    if axis == ():
        return (x != 0).to(torch.int32)
    return torch.count_nonzero(x, dim=axis).to(torch.int32)


def _cumulative(fn, nan_to):
    def kernel(x, axis, dtype):
        if axis is None:
            x, axis = x.reshape(-1), 0
        if nan_to is not None and x.is_floating_point():
            x = torch.where(torch.isnan(x), nan_to, x)
        return fn(x, axis, dtype=x.dtype)  # dtype= keeps ints from widening to int64

    return _widened(kernel)


cumsum = _cumulative(torch.cumsum, None)
cumprod = _cumulative(torch.cumprod, None)
nancumsum = _cumulative(torch.cumsum, 0.0)
nancumprod = _cumulative(torch.cumprod, 1.0)


# ===== elementwise (polyops.ops.numpy.elementwise) ====================================
# Floats arrive in the result dtype; torch's float16/bfloat16 CPU kernels compute in
# float32 and round once, as NumPy's own loops do.

fabs = torch.abs


def trunc(x):
    return torch.trunc(x) if x.is_floating_point() else x


reciprocal = torch.reciprocal
expm1 = torch.expm1
log1p = torch.log1p
exp2 = torch.exp2
log2 = torch.log2
log10 = torch.log10
logaddexp = torch.logaddexp
logaddexp2 = torch.logaddexp2
tan = torch.tan
arcsin = torch.asin
arccos = torch.acos
arctan = torch.atan
sinh = torch.sinh
cosh = torch.cosh
arcsinh = torch.asinh
arccosh = torch.acosh
arctanh = torch.atanh
deg2rad = torch.deg2rad
rad2deg = torch.rad2deg
sinc = torch.sinc


def i0(x):
    # In float64 (torch's float32 i0 is off by an ulp at 0 and overflows before
    # the result): i0e(x) * exp(|x|/2)**2 stays finite up to the overflow threshold;
    # i0(+-inf) is NaN (0 * inf), as NumPy.
    w = x.to(_F64)
    h = torch.exp(torch.abs(w) * 0.5)
    return (torch.special.i0e(w) * h * h).to(x.dtype)

hypot = torch.hypot  # inf if either is +-inf, even with a NaN


def heaviside(x1, x2):
    # torch.heaviside has no derivative; as selects, autograd gives the true one (0 in x1,
    # the cotangent in x2 where x1 == 0)
    x2 = x2.to(x1.dtype)
    out = torch.where(x1 > 0, torch.ones_like(x2), torch.where(x1 < 0, torch.zeros_like(x2), x2))
    return torch.where(torch.isnan(x1), x1, out)  # NumPy: NaN for NaN


def ldexp(x1, x2):
    if x1.dtype == _F64:
        # three factors 2**k, each finite (the reference's split): rounding as NumPy's
        n = torch.clamp(x2, -2200, 2200).to(torch.int64)
        n1 = torch.div(n, 3, rounding_mode="floor")
        n2 = torch.div(n - n1, 2, rounding_mode="floor")
        out = x1
        for k in (n1, n2, n - n1 - n2):
            out = out * torch.exp2(k.to(_F64))
        return out
    # x1 * 2**n is exact in float64 (or 0 / inf where x1's dtype would be too): round once
    n = torch.clamp(x2, -1000, 1000).to(_F64)
    return (x1.to(_F64) * torch.exp2(n)).to(x1.dtype)


def _nan_ignoring(fn, x1, x2):
    if x1.dtype == torch.bool:
        return (torch.logical_or if fn is torch.fmax else torch.logical_and)(x1, x2)
    return fn(x1, x2)


def _fmax(x1, x2):
    return _nan_ignoring(torch.fmax, x1, x2)


def _fmin(x1, x2):
    return _nan_ignoring(torch.fmin, x1, x2)


fmax = _widened(_fmax)
fmin = _widened(_fmin)


def fmod(x1, x2):
    if x1.is_floating_point():
        return torch.fmod(x1, x2)  # C's fmod: NaN for x / 0 and inf / y, x for x / inf
    return _int_division(torch.fmod, x1, x2)  # integer x / 0 is 0; torch raises


def _gcd(x1, x2):
    # torch leaves a negative gcd for an INT_MIN operand (gcd(INT_MIN, 6) is -2); abs of
    # INT_MIN wraps, so gcd(INT_MIN, 0) stays INT_MIN, as NumPy
    return torch.abs(torch.gcd(x1, x2))


gcd = _widened(_gcd)


def _lcm(x1, x2):
    # |x1| // gcd * |x2| wrapping (torch.lcm takes abs of the wrapped product)
    g = _gcd(x1, x2)
    zero = g == 0
    q = torch.div(torch.abs(x1), torch.where(zero, 1, g), rounding_mode="floor")
    return torch.where(zero, 0, q * torch.abs(x2))


lcm = _widened(_lcm)


def divide_no_nan(x1, x2):
    zero = x2 == 0
    return torch.where(zero, 0, x1 / torch.where(zero, 1, x2))


# ===== logic and complex parts (polyops.ops.numpy.logic) ==============================

logical_xor = torch.logical_xor
isfinite = torch.isfinite  # complex: both parts finite
isinf = torch.isinf  # complex: either part infinite
isnan = torch.isnan  # complex: either part NaN
isneginf = torch.isneginf
isposinf = torch.isposinf


def isreal(x):
    if x.is_complex():
        return torch.imag(x) == 0
    return torch.ones(x.shape, dtype=torch.bool)


def signbit(x):
    if x.dtype == torch.bool or x.dtype in _UNSIGNED_T:
        return torch.zeros(x.shape, dtype=torch.bool)
    return torch.signbit(x)  # floats by the bit: -0.0 and negative NaNs


def isclose(x1, x2, rtol, atol, equal_nan):
    # NumPy's formula (torch.isclose refuses a negative tolerance, asks for a finite
    # |x1 - x2| rather than a finite x2, and compares half floats in their own dtype)
    if x1.dtype in _HALF:
        x1, x2 = x1.to(_F32), x2.to(_F32)
    abs2 = torch.abs(x2)
    within = torch.abs(x1 - x2) <= abs2 * rtol + atol
    out = (within & (abs2 < math.inf)) | (x1 == x2)
    if equal_nan:
        out |= torch.isnan(x1) & torch.isnan(x2)
    return out


def allclose(x1, x2, rtol, atol, equal_nan):
    return torch.all(isclose(x1, x2, rtol, atol, equal_nan))


def nan_to_num(x, nan, posinf, neginf):
    if not (x.is_floating_point() or x.is_complex()):
        return x
    return torch.nan_to_num(x, nan, posinf, neginf)  # complex: each part


nextafter = torch.nextafter  # x2 where x1 == x2 (also for float16, as the contract says)


def real(x):
    return torch.real(x)  # real input: x itself


def imag(x):
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def conjugate(x):
    # conj_physical: a plain tensor, not one with torch's lazy conjugate bit
    return torch.conj_physical(x) if x.is_complex() else x


conj = conjugate


def angle(x):
    if x.is_complex():
        return torch.angle(x)  # atan2(imag, real)
    # torch.angle(-0.0) is 0; NumPy's arctan2(0, -0.0) is pi
    out = torch.where(torch.signbit(x), math.pi, 0.0).to(x.dtype)
    return torch.where(torch.isnan(x), x, out)


# ===== indexing (polyops.ops.numpy.indexing) ==========================================


def _moving(fn):
    """``fn`` that only moves data, run on the same-width signed ints for wide unsigned ones."""

    def kernel(x, *rest):
        if x.dtype in _SIGNED:
            return fn(x.view(_SIGNED[x.dtype]), *rest).view(x.dtype)
        return fn(x, *rest)

    return kernel


def _wrap_index(indices, n):
    indices = indices.to(torch.int64)
    return torch.where(indices < 0, indices + n, indices)


def _take_along_axis(x, indices, axis):
    if axis is None:
        return take(x, indices, None)
    if _is_compiling():  # traced: out-of-range indices read 0 (eagerly core raised)
        indices, valid = _valid_index(indices, x.shape[axis])
        out = torch.take_along_dim(x, indices, dim=axis)
        return torch.where(valid, out, torch.zeros((), dtype=out.dtype, device=out.device))
    return torch.take_along_dim(x, _wrap_index(indices, x.shape[axis]), dim=axis)


take_along_axis = _moving(_take_along_axis)


def array(x, dtype):
    from .core import cast

    out = cast(x, dtype)
    return out.clone() if out is x else out


def copy(x):
    return torch.clone(x)


def empty(shape, dtype):
    return torch.zeros(shape, dtype=TORCH_DTYPES[dtype])


def empty_like(x, dtype):
    return torch.zeros(x.shape, dtype=TORCH_DTYPES[dtype])


def identity(n, dtype):
    return torch.eye(n, dtype=torch.bool).to(TORCH_DTYPES[dtype])


def tri(N, M, k, dtype):
    return (torch.arange(N)[:, None] + k >= torch.arange(M)).to(TORCH_DTYPES[dtype])


tril = _moving(torch.tril)
triu = _moving(torch.triu)
diag = _moving(torch.diag)
diagflat = _moving(torch.diagflat)


def diagonal(x, offset, axis1, axis2):
    return torch.diagonal(x, offset, axis1, axis2)  # the diagonal becomes the last axis


def _trace(x, offset, axis1, axis2):
    return torch.sum(torch.diagonal(x, offset, axis1, axis2), -1, dtype=x.dtype)


trace = _widened(_trace)


def unravel_index(indices, shape):
    if not shape:
        return ()
    coords, rem = [], indices
    for d in reversed(shape[1:]):  # floor division: NumPy's coordinates in range
        coords.append(torch.remainder(rem, d) if d else torch.zeros_like(rem))
        rem = torch.div(rem, d, rounding_mode="floor") if d else torch.zeros_like(rem)
    coords.append(rem)
    return tuple(reversed(coords))


def vander(x, N, increasing):
    n = x.shape[0]
    if n == 0 or N == 0:
        return torch.zeros((n, N), dtype=x.dtype)
    # NumPy's multiply.accumulate of the repeated column, x**0 = 1 first
    cols = torch.cat([torch.ones((n, 1), dtype=x.dtype), x.reshape(n, 1).expand(n, N - 1)], 1)
    out = _widened(lambda c: torch.cumprod(c, 1, dtype=c.dtype))(cols)
    return out if increasing else torch.flip(out, (1,))


def _pad_stat(t, axis, mode):
    if mode == "maximum":
        return _max(t, (axis,), True, None)
    if mode == "minimum":
        return _min(t, (axis,), True, None)
    dtype = t.dtype
    f = t.to(_F64 if dtype == _F64 else _F32)
    if mode == "mean":
        stat = torch.mean(f, axis, keepdim=True)
    else:  # median: NaN if the line has one, else the middle (mean of the two middle ones)
        n = t.shape[axis]
        mid = torch.sort(f, axis)[0].narrow(axis, (n - 1) // 2, 2 - n % 2)
        stat = torch.mean(mid, axis, keepdim=True)
        stat = torch.where(torch.any(torch.isnan(f), axis, keepdim=True), math.nan, stat)
    if not (dtype.is_floating_point or dtype.is_complex):
        stat = torch.round(stat)
    return stat.to(dtype)


def _ramp(edge, width, axis, reverse):
    dtype = edge.dtype
    shape = [1] * edge.ndim
    shape[axis] = width
    j = torch.arange(width - 1, -1, -1) if reverse else torch.arange(width)
    work = _F64 if dtype == _F64 else _F32
    ramp = edge.to(work) * j.to(work).reshape(shape) / float(width)
    if not (dtype.is_floating_point or dtype.is_complex):
        ramp = torch.floor(ramp)
    return ramp.to(dtype)


def _pad(x, pad_width, mode, constant_values):
    out_shape = tuple(d + b + a for d, (b, a) in zip(x.shape, pad_width))
    if mode == "constant":
        out = full(out_shape, constant_values, standardize_dtype(x.dtype))
        out[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, pad_width))] = x
        return out
    if math.prod(out_shape) == 0:
        return torch.zeros(out_shape, dtype=x.dtype)
    for axis, (b, a) in enumerate(pad_width):
        if not (b or a):
            continue
        n = x.shape[axis]
        if mode in ("edge", "reflect", "symmetric", "wrap"):
            x = x.index_select(axis, torch.as_tensor(pad_index(n, b, a, mode)))
            continue
        shape = list(x.shape)
        if mode == "linear_ramp":
            before = _ramp(x.narrow(axis, 0, 1), b, axis, False)
            after = _ramp(x.narrow(axis, n - 1, 1), a, axis, True)
        else:  # NumPy pads axis by axis: later statistics see the earlier padding
            stat = _pad_stat(x, axis, mode)
            before = stat.expand(shape[:axis] + [b] + shape[axis + 1:])
            after = stat.expand(shape[:axis] + [a] + shape[axis + 1:])
        x = torch.cat([before, x, after], axis)
    return x


def pad(x, pad_width, mode, constant_values):
    if mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        return _moving(_pad)(x, pad_width, mode, constant_values)
    return _pad(x, pad_width, mode, constant_values)


# ===== manipulation (polyops.ops.numpy.manipulation) ==================================


def ravel(x):
    return x.reshape(-1)  # 0-d gives (1,)


def fliplr(x):
    return _flip_dims(x, (1,))


def flipud(x):
    return _flip_dims(x, (0,))


swapaxes = torch.swapaxes


def moveaxis(x, source, destination):
    return torch.movedim(x, source, destination)


def _rot90(array, k, axes):
    return torch.rot90(array, k, list(axes))


rot90 = _moving(_rot90)


def append(x1, x2, axis):
    if axis is None:
        return torch.cat([x1.reshape(-1), x2.reshape(-1)])
    return torch.cat([x1, x2], axis)


# NumPy's lifting (atleast_1d / 2d / 3d, column vectors) is torch's too
hstack = torch.hstack
vstack = torch.vstack
dstack = torch.dstack
column_stack = torch.column_stack


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
    return torch.repeat_interleave(x, repeats, axis)


def tile(x, repeats):
    return torch.tile(x, repeats)  # NumPy's leading 1s on either side


def roll(x, shift, axis):
    if axis is None:
        return torch.roll(x, shift)  # the flattened x, shape restored
    return torch.roll(x, shift, axis)


def _split(x, indices_or_sections, axis):
    if isinstance(indices_or_sections, int):
        # equal pieces where they divide; else NumPy's array_split sizes
        return list(torch.tensor_split(x, indices_or_sections, axis))
    lead = (slice(None),) * axis
    points = (0, *indices_or_sections)
    ends = (*indices_or_sections, x.shape[axis])
    return [x[lead + (slice(a, b),)] for a, b in zip(points, ends)]


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
