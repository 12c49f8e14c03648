"""JAX runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from polyops.plugin import Runtime

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
_NP = {name: np.dtype(name) for name in _NAMES}
_NP["bfloat16"] = np.dtype(ml_dtypes.bfloat16)

# canonical name -> the numpy dtype object jax arrays of that name carry.  With
# x64 disabled (the default) jax cannot hold 64-bit values: core's promotion
# already demotes 64-bit results, so only an explicit cast / convert_to_tensor
# to "int64"/"float64"/... asks for one, and it gets the 32-bit dtype instead
# (what jax itself would do, minus jax's UserWarning about truncation).
_X64 = bool(jax.config.jax_enable_x64)
_DEMOTE = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}
JAX_DTYPES = {
    name: (nd if _X64 else _NP[_DEMOTE.get(name, name)]) for name, nd in _NP.items()
}

_ArrayImpl = type(jnp.zeros(()))
_Tracer = jax.core.Tracer
_NATIVE = (_ArrayImpl, jax.Array, _Tracer)
_SCALARS = frozenset((bool, int, float, complex))
_convert = jax.lax.convert_element_type  # what x.astype does, minus its checks


def _complex_to_real(x, target):
    # jax (like numpy) warns when casting complex -> real; drop the imaginary part first.
    if x.dtype.kind == "c" and target.kind != "c":
        return jnp.real(x)
    return x


# Python scalar -> jax array, by (value, type, dtype).  Making a device array from a
# scalar costs ~30us, which would dominate ``add(x, 2.0)``; jax arrays are immutable,
# so the eager path can reuse them.  Only concrete arrays are kept (under jit the
# conversion gives a tracer), and never float zeros or NaN (-0.0 == 0.0, nan != nan).
_SCALAR_CACHE: dict = {}
_SCALAR_CACHE_SIZE = 512


def _scalar(x, jd):
    key = (x, type(x), jd)
    try:
        return _SCALAR_CACHE[key]
    except KeyError:
        pass
    out = jnp.asarray(x, dtype=jd)
    if type(out) is _ArrayImpl and x == x and (x != 0 or type(x) is int or type(x) is bool):
        if len(_SCALAR_CACHE) >= _SCALAR_CACHE_SIZE:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[key] = out
    return out


_FLOATS = frozenset(_NP[n] for n in ("bfloat16", "float16", "float32", "float64"))
_INT_MIN = np.int32(-(2**31))
_UINT32 = _NP["uint32"]
# targets whose float -> int casts follow x86-64 (NumPy, torch, tensorflow, openvino there)
_X86_TARGETS = frozenset(_NP[n] for n in ("int8", "int16", "int32", "uint8", "uint16", "uint32"))


@partial(jax.jit, static_argnums=1)
def _float_to_int(x, jd):
    """float -> int as the x86-64 conversion NumPy and the other backends use: truncate
    into int32, where NaN, +-inf and values outside int32 give INT_MIN ("integer
    indefinite"), then wrap to the target width (XLA saturates instead).  uint32 keeps
    XLA's exact conversion for [0, 2**32) and wraps negatives through int32."""
    bad = jnp.isnan(x) | (x >= 2.0**31) | (x < -(2.0**31))
    i = jnp.where(bad, _INT_MIN, _convert(x, jnp.int32))
    if jd == _UINT32:
        return jnp.where(x < 0, _convert(i, jd), _convert(x, jd))
    return _convert(i, jd)


def _cast(x, jd):
    if jd in _X86_TARGETS and x.dtype in _FLOATS:
        return _float_to_int(x, jd)
    return _convert(_complex_to_real(x, jd), jd)


def convert_to_tensor(x, dtype):
    jd = JAX_DTYPES[dtype]
    if isinstance(x, _NATIVE):
        if x.dtype == jd:
            return x
        return _cast(x, jd)
    if type(x) in _SCALARS:
        return _scalar(x, jd)
    if not isinstance(x, np.ndarray):
        try:
            x = np.asarray(x)
        except (TypeError, RuntimeError, ValueError):
            # e.g. a torch bfloat16 tensor, which numpy cannot view: go through dlpack.
            return convert_to_tensor(jnp.from_dlpack(x), dtype)
    if x.dtype != jd:
        if x.dtype.kind == "c" and jd.kind != "c":
            x = x.real
        x = x.astype(jd)
    return jnp.asarray(x)


def convert_to_numpy(x):
    return np.asarray(x)


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``jax.jvp``."""
    return jax.jvp(fun, tuple(primals), tuple(tangents), has_aux=has_aux)


def _value_and_grad(fun, primals):
    """Reverse-mode autodiff (`polyops.value_and_grad`) through ``jax.value_and_grad``."""
    argnums = tuple(range(len(primals)))
    return jax.value_and_grad(fun, argnums=argnums, has_aux=True)(*primals)


def _custom_gradient(f):
    """`polyops.ops.custom_gradient` through ``jax.custom_gradient``: the grad function
    gets the output's cotangent and returns one gradient per argument."""

    @jax.custom_gradient
    def wrapped(*args):
        out, grad_fn = f(*args)

        def vjp(upstream):
            grads = grad_fn(upstream)
            return tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)

        return out, vjp

    return wrapped


def _device_scope(name):
    kind, _, index = name.partition(":")
    platform = {"cuda": "gpu"}.get(kind, kind)
    return jax.default_device(jax.devices(platform)[int(index or 0)])


def _devices():
    return [f"{'cuda' if d.platform == 'gpu' else d.platform}:{d.id}" for d in jax.devices()]


RUNTIME = Runtime(
    name="jax",
    version=jax.__version__,
    tensor_types=_NATIVE,
    dtypes={nd: name for name, nd in _NP.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
    value_and_grad=_value_and_grad,
    custom_gradient=_custom_gradient,
    jit=jax.jit,
    device_scope=_device_scope,
    devices=_devices,
)


def cast(x, dtype):
    # "float64"/"int64"/... give the 32-bit dtype while jax runs with x64 disabled.
    jd = JAX_DTYPES[dtype]
    if x.dtype == jd:
        return x
    return _cast(x, jd)


stop_gradient = jax.lax.stop_gradient
