"""Private helpers shared by the torch ``numpy`` family's submodules.

Torch has almost no kernels for uint16/uint32/uint64: the kernels that can meet
them retry in a wider signed int when torch refuses (`_widened`), or move the
same bits as signed ints (`_moving`), and cast back, so the common dtypes pay
nothing for it.
"""

from __future__ import annotations

import numpy as np
import torch

from polyops.plugin import SplitKernel

from .._compat import is_compiling as _is_compiling
from .._compat import is_function_mode_enabled as _function_mode_on
from ..core import TORCH_DTYPES

_HALF = (torch.float16, torch.bfloat16)
_F32 = torch.float32
_F64 = torch.float64


# ===== wider dtypes =================================================================

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



# ===== casts ========================================================================

# Tensor.to(dtype) parses its arguments against several overloads: the dtype's own method
# (float(), int()...) casts at half its cost, and returns the tensor itself at a quarter
# of it where the dtype is already that one.
_CASTS = {torch.bool: torch.Tensor.bool, torch.uint8: torch.Tensor.byte,
          torch.int8: torch.Tensor.char, torch.int16: torch.Tensor.short,
          torch.int32: torch.Tensor.int, torch.int64: torch.Tensor.long,
          torch.float16: torch.Tensor.half, torch.bfloat16: torch.Tensor.bfloat16,
          torch.float32: torch.Tensor.float, torch.float64: torch.Tensor.double,
          torch.complex64: torch.Tensor.cfloat, torch.complex128: torch.Tensor.cdouble}


def _to(x, dtype):
    """``x.to(dtype)``, cheaper."""
    cast = _CASTS.get(dtype)
    return x.to(dtype) if cast is None else cast(x)



# ===== same bits, signed ============================================================

# Same-width signed dtypes: moving data around needs no arithmetic, only bits.
_SIGNED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _flip_dims(x, dims):
    try:
        return torch.flip(x, dims)
    except RuntimeError:
        if x.dtype not in _SIGNED:
            raise
    return torch.flip(x.view(_SIGNED[x.dtype]), dims).view(x.dtype)


def _moving(fn):
    """``fn`` that only moves data, run on the same-width signed ints for wide unsigned ones."""

    def kernel(x, *rest):
        if x.dtype in _SIGNED:
            return fn(x.view(_SIGNED[x.dtype]), *rest).view(x.dtype)
        return fn(x, *rest)

    return kernel



# ===== shared by several kernels ====================================================

def _int_division(fn, x1, x2):
    # torch raises on integer division by zero, numpy gives 0; bool and wide
    # unsigned ints compute in a wider int.
    dtype = x1.dtype
    a, b = _widen(x1, _WIDER_BOOL), _widen(x2, _WIDER_BOOL)
    zero = b == 0
    out = torch.where(zero, 0, fn(a, torch.where(zero, 1, b)))
    return out.to(dtype)


def _extremum(reduce, combine, x, axis, keepdims, initial):
    if axis == ():
        out = x
    else:
        out = reduce(x, () if axis is None else axis, keepdims)
    if initial is None:
        return out
    return combine(out, torch.tensor(initial, dtype=x.dtype))


def _max(x, axis, keepdims, initial):
    if axis is None and not keepdims and initial is None:
        return torch.max(x)  # (the whole tensor: half amax's cost on a small one; NaN too)
    return _extremum(torch.amax, torch.maximum, x, axis, keepdims, initial)


def _min(x, axis, keepdims, initial):
    if axis is None and not keepdims and initial is None:
        return torch.min(x)
    return _extremum(torch.amin, torch.minimum, x, axis, keepdims, initial)


def _valid_index(indices, n):
    """(indices with negatives counted from the end and those outside [-n, n) sent to 0,
    which are inside): polyops' policy under a trace, where they read 0 (a compiled
    gather would read out of bounds)."""
    indices = indices.to(torch.int64)
    indices = torch.where(indices < 0, indices + n, indices)
    valid = (indices >= 0) & (indices < n)
    return torch.where(valid, indices, 0), valid


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


# ===== evenly spaced values (linspace, logspace) ====================================

_NP_FLOATS = {torch.float32: np.float32, torch.float64: np.float64}


def _spaced(num, step, start, last, work):
    """``start + i * step`` for ``i < num`` in the float dtype ``work``, in place, the last
    value ``last`` where not None.  Eager on the CPU (no function mode placing tensors
    elsewhere) in NumPy: the same float32/float64 roundings (NumPy also rounds a Python
    step to the dtype first) at a third of the cost of torch's three calls on a few values."""
    scalar = _NP_FLOATS.get(work)
    if scalar is not None and num <= _EXACT_INDEX and not (_function_mode_on() or _is_compiling()):
        y = np.arange(num, dtype=scalar)
        y *= scalar(step)
        y += scalar(start)
        if last is not None:
            y[-1] = last
        return torch.from_numpy(y)
    out = torch.arange(num, dtype=work).mul_(step).add_(start)
    if last is not None:
        out[-1] = last
    return out


_EXACT_INDEX = 2 ** 24  # float32 counts exactly up to here
