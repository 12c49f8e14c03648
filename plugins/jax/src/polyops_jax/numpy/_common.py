"""Helpers shared by the ``numpy`` family's kernel modules (dtypes, casts, builtins).

The kernel modules shadow sum/max/min/abs/round/all/any/range with kernels, hence the
builtins' aliases here.
"""

from __future__ import annotations

import builtins

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from ..core import HALF_JAX as _LOW_FLOATS
from ..core import JAX_DTYPES

_INT32 = np.dtype(np.int32)
_F32 = np.dtype(np.float32)
_b_max, _b_min, _b_abs = builtins.max, builtins.min, builtins.abs
builtins_range = builtins.range
_i0e = jax.scipy.special.i0e


def _floating(d) -> bool:
    return jnp.issubdtype(d, jnp.floating)


def _as(x, d):
    """x in dtype d (no-op when it already is)."""
    return x if x.dtype == d else x.astype(d)


def _floatx():
    from polyops import config

    return JAX_DTYPES[config.floatx()]


def _widen(x):
    """float16/bfloat16 -> float32, for ops without a compute dtype (bincount's weights
    accumulate in float32, as sum)."""
    return x.astype(_F32) if x.dtype in _LOW_FLOATS else x


@jax.jit
def _int_floor_divide(x1, x2):
    # XLA's integer x // 0 is -1 (jnp floors that to -1 or -2); NumPy's, and polyops', is 0
    return jnp.where(x2 == 0, jnp.zeros((), x1.dtype), jnp.floor_divide(x1, x2))


def _jit(*static):
    """Compile a kernel of several jnp calls with ``jax.jit``, once per input signature;
    ``static`` are the positions of its Python arguments (axes, modes, floats), which key
    the cache.  Eagerly each jnp call is a dispatch of its own (~10us), compiled the kernel
    is one; inside a trace the inner jit is inlined."""

    def wrap(fn):
        return jax.jit(fn, static_argnums=static)

    return wrap


def _key(v):
    # floats by repr: jit's static cache compares by ==, where -0.0 == 0.0, 1 == 1.0 and
    # nan != nan (a fresh compile on every call)
    t = type(v)
    if t is float:
        return t, repr(v)
    if t is tuple or t is list:
        return t, tuple(_key(e) for e in v)
    return t, v


class _Static:
    """A static argument keyed exactly (`_key`); the kernel body gets ``.value``."""

    __slots__ = ("value", "key")

    def __init__(self, value):
        self.value = value
        self.key = _key(value)

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return type(other) is _Static and self.key == other.key


def _jit_exact(*static):
    """`_jit` for kernels with static Python floats (fill values, tolerances, alpha):
    each keys the cache by its exact value, sign of zero and NaN included."""

    def wrap(fn):
        def inner(*args):
            return fn(*(a.value if i in static else a for i, a in enumerate(args)))

        compiled = jax.jit(inner, static_argnums=static)

        def kernel(*args):
            return compiled(*(_Static(a) if i in static else a for i, a in enumerate(args)))

        kernel.__name__ = kernel.__qualname__ = fn.__name__
        kernel.__doc__ = fn.__doc__
        return kernel

    return wrap


def _compiled_reference(name, *static, exact=False):
    """Core's reference of op ``name`` compiled as one jax function (static: as `_jit`):
    the same composition of polyops ops, each traced to its jax kernel, dispatched once
    instead of op by op (an eager reference pays core's entry and a dispatch per op)."""
    from polyops.plugin import reference

    ref = reference(name)
    if exact:
        return _jit_exact(*static)(ref)
    return jax.jit(ref, static_argnums=static)
