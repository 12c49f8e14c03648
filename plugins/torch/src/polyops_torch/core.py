"""PyTorch runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import torch

from polyops.plugin import Runtime

TORCH_DTYPES = {
    "bool": torch.bool,
    "int8": torch.int8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "uint16": torch.uint16,
    "uint32": torch.uint32,
    "uint64": torch.uint64,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float32": torch.float32,
    "float64": torch.float64,
    "complex64": torch.complex64,
    "complex128": torch.complex128,
}

_NP_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def _from_numpy(x):
    if x.dtype == _NP_BFLOAT16:
        # torch.from_numpy does not know ml_dtypes; the bits are the same.
        return _from_numpy(x.view(np.uint16)).view(torch.bfloat16)
    if not x.flags.writeable:
        # torch warns on (and could write through) a read-only buffer.
        x = x.copy()
    try:
        return torch.from_numpy(x)
    except ValueError:  # negative strides
        return torch.from_numpy(np.ascontiguousarray(x))


def convert_to_tensor(x, dtype):
    td = TORCH_DTYPES[dtype]
    if isinstance(x, torch.Tensor):
        return x if x.dtype == td else _cast(x, td)
    if isinstance(x, (bool, int, float, complex)):
        try:
            return torch.scalar_tensor(x, dtype=td)  # twice as fast as torch.tensor
        except RuntimeError:  # ints past int64 (uint64)
            return torch.tensor(x, dtype=td)
    if not isinstance(x, np.ndarray):
        # Nested lists, numpy scalars and other frameworks' tensors: numpy reads
        # them all (torch.tensor is slow and warns on lists of arrays).
        x = np.asarray(x)
    t = _from_numpy(x)
    return t if t.dtype == td else t.to(td)


def convert_to_numpy(x):
    if x.requires_grad:
        x = x.detach()
    x = x.cpu().resolve_conj().resolve_neg()
    if x.dtype == torch.bfloat16:
        return x.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return x.numpy()


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``torch.func.jvp``."""
    import warnings

    import torch.func

    with warnings.catch_warnings():  # torch's first jvp registers decompositions with jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return torch.func.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)


RUNTIME = Runtime(
    name="torch",
    version=torch.__version__,
    tensor_types=(torch.Tensor,),
    dtypes={td: name for name, td in TORCH_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
    devices=lambda: ["cpu"] + [f"cuda:{i}" for i in range(torch.cuda.device_count())],
)


# float -> int targets that eager CPU torch reaches through a wider int, as NumPy on
# x86-64 does: truncate into int32 (int64 for uint32), then wrap (300.0 -> int8 is 44).
# Inductor (torch.compile) and CUDA convert directly and saturate (300.0 -> 127).
_VIA = {
    torch.int8: torch.int32, torch.int16: torch.int32, torch.uint8: torch.int32,
    torch.uint16: torch.int32, torch.uint32: torch.int64,
}
_is_compiling = torch.compiler.is_compiling


def _cast(x, td):
    via = _VIA.get(td)
    if via is not None and x.is_floating_point() and (not x.is_cpu or _is_compiling()):
        x = x.to(via)
    return x.to(td)


def cast(x, dtype):
    return _cast(x, TORCH_DTYPES[dtype])
