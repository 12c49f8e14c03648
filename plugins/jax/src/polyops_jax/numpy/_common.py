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
