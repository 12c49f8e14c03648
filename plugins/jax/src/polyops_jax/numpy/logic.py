"""JAX kernels of ``polyops.ops.numpy.logic``: bitwise ops and shifts, bit views,
predicates (isnan, isclose...) and complex parts.

The predicates take x in its own dtype (complex included where the op allows it) and
return bool; jnp gives ints and bools their constant answers.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from polyops.plugin import any_dtype

from ..core import JAX_DTYPES
from ._common import _as, _compiled_reference, _jit_exact


# ===== catalogue primitives =========================================================

bitwise_and = jnp.bitwise_and
bitwise_or = jnp.bitwise_or
bitwise_xor = jnp.bitwise_xor
bitwise_invert = jnp.invert
left_shift = jnp.left_shift  # lax: a count >= the bit width gives 0
right_shift = jnp.right_shift  # arithmetic for signed: sign fill past the width


def view(x, dtype):
    """NumPy's ``x.view(dtype)``: a bit cast; the last dim scales with the item size."""
    target = JAX_DTYPES[dtype]
    if x.dtype == target:
        return x
    src = jnp.uint8 if x.dtype == jnp.bool_ else x.dtype
    dst = jnp.uint8 if target == jnp.bool_ else target
    x = x.astype(src)
    a, b = np.dtype(src).itemsize, np.dtype(dst).itemsize
    if a > b:  # bitcast adds a trailing dim of a // b
        out = jax.lax.bitcast_convert_type(x, dst)
        out = out.reshape(x.shape[:-1] + (x.shape[-1] * (a // b),))
    elif a < b:  # bitcast consumes a trailing dim of b // a
        out = jax.lax.bitcast_convert_type(x.reshape(x.shape[:-1] + (x.shape[-1] * a // b, b // a)), dst)
    else:
        out = jax.lax.bitcast_convert_type(x, dst)
    return out.astype(target) if dst != target else out


# ===== predicates and complex parts =================================================

logical_xor = any_dtype(jnp.logical_xor)  # (any dtype: truth values)
isfinite = jnp.isfinite  # complex: both parts finite
isinf = jnp.isinf  # complex: either part infinite
isnan = jnp.isnan  # complex: either part NaN
isneginf = jnp.isneginf
isposinf = jnp.isposinf
isreal = jnp.isreal  # complex: a zero imaginary part
signbit = jnp.signbit  # floats bit by bit: signbit(-0.0) and of a negative NaN is True


def _isclose(x1, x2, rtol, atol, equal_nan):
    # NumPy's formula, as core's reference
    abs2 = jnp.abs(x2)
    within = jnp.abs(x1 - x2) <= abs2 * rtol + atol
    out = (within & (abs2 < np.inf)) | (x1 == x2)
    if equal_nan:
        out = out | (jnp.isnan(x1) & jnp.isnan(x2))
    return out


isclose = _jit_exact(2, 3, 4)(_isclose)


@_jit_exact(2, 3, 4)
def allclose(x1, x2, rtol, atol, equal_nan):
    return jnp.all(_isclose(x1, x2, rtol, atol, equal_nan))


@_jit_exact(1, 2, 3)
def nan_to_num(x, nan, posinf, neginf):
    # posinf/neginf already resolved; complex parts each replaced; ints and bools as they are
    if x.dtype.kind in "biu":
        return x
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


# exact bit steps on the integer patterns (jnp.nextafter compares with denormals-are-zero on
# CPU): core's reference, compiled
nextafter = _compiled_reference("nextafter")

real = jnp.real  # complex64 -> float32; real input as it is
imag = jnp.imag  # zeros of x's dtype for real input
conjugate = jnp.conjugate


def angle(x):
    # arctan2(imag, real): pi for -0.0, NaN for NaN; jnp gives a 0-d float16 float32
    return _as(jnp.angle(x), jnp.finfo(x.dtype).dtype)
