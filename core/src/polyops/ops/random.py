"""Stateless random ops: each takes an explicit ``seed``, an int32 tensor of shape (2,),
and gives the same numbers for the same seed on the same backend (as
``tf.random.stateless_*`` and ``jax.random`` with a key).  The user API with int seeds
and `polyops.random.SeedGenerator` is `polyops.random`.

References: a counter-based generator written with polyops int32 ops (a murmur3
finalizer over (seed, counter)), so they run, and trace, on every backend; native
kernels use the framework's own generator (jax.random, tf.random.stateless_*,
torch.Generator, numpy.random.Generator), so numbers differ between backends.

Kernel contract: ``stateless_<name>(seed, ...)`` gets ``seed`` as an int32 (2,) native
tensor, ``shape`` a tuple of ints, ``dtype`` a canonical string; ``mean``, ``stddev``,
``minval``, ``maxval`` and ``rate`` are Python numbers, ``alpha``, ``beta``, ``counts`` and
``probabilities`` float32 native tensors that broadcast to ``shape``; results have
``shape`` and ``dtype``.
"""

from __future__ import annotations

import math as _math

import numpy as np

from .. import _dtypes, _promote
from .._op import defop
from .._shapes import normalize_shape
from .._symbolic import SymbolicTensor
from ._base import dtype_arg, key, shape_of, spec
from ._base import finish as _finish
from .core import cast, convert_to_tensor
from .core import dtype as _dtype_of
from .core import shape as _shape_of


def _pnp():
    from . import numpy

    return numpy


@_promote.cached
def _seed_promote(keys):
    """seed: any integer dtype -> int32; other tensor operands (parameters) -> float32."""
    if keys[0] is not None and keys[0] not in _dtypes.INT_TYPES and keys[0] != "int":
        raise _promote.PromotionError(f"expected an integer seed tensor, got dtype {keys[0]}")
    rest = tuple(None if k is None else "float32" for k in keys[1:])
    return ("int32",) + rest


def _check_seed(op, seed):
    if isinstance(seed, SymbolicTensor) and seed.shape not in ((2,), (None,)):
        raise ValueError(f"{op}: expected a seed of shape (2,), got shape {seed.shape}")


def _shape(op, shape):
    shape = normalize_shape(shape, op)
    if any(d is None for d in shape):
        raise ValueError(f"{op}: expected a fully known shape, got {shape}")
    return shape


def _float_dtype(op, dtype):
    d = dtype_arg(op, dtype)
    if d not in _dtypes.FLOAT_TYPES:
        raise ValueError(f"{op}: expected a float dtype, got dtype={d}")
    return d


def _int_dtype(op, dtype):
    d = dtype_arg(op, dtype, "int32")
    if d not in _dtypes.INT_TYPES:
        raise ValueError(f"{op}: expected an integer dtype, got dtype={d}")
    return d


# ----- the counter-based generator of the references ----------------------------------------

_M1, _M2 = 0x85EBCA6B - 2**32, 0xC2B2AE35 - 2**32  # murmur3 fmix32 constants as int32
_GOLDEN = 0x9E3779B1 - 2**32


def _srl(x, n):
    """Logical right shift of int32 bits."""
    pnp = _pnp()
    return pnp.bitwise_and(pnp.right_shift(x, n), (1 << (32 - n)) - 1)


def _fmix(x):
    pnp = _pnp()
    x = pnp.bitwise_xor(x, _srl(x, 16))
    x = pnp.multiply(x, _M1)
    x = pnp.bitwise_xor(x, _srl(x, 13))
    x = pnp.multiply(x, _M2)
    return pnp.bitwise_xor(x, _srl(x, 16))


def random_bits(seed, n: int, stream: int = 0):
    """``n`` pseudo-random 32-bit words (int32, shape (n,)) from ``seed`` (int32 (2,)):
    murmur3's finalizer over the counter, keyed by both seed words and ``stream``."""
    pnp = _pnp()
    c = pnp.arange(n, dtype="int32")
    k0 = pnp.add(cast(seed[0], "int32"), _int32(stream * 0x3C6EF372))
    k1 = pnp.add(cast(seed[1], "int32"), _int32(stream + 0x1B873593))
    x = _fmix(pnp.add(pnp.multiply(c, _GOLDEN), k0))
    return _fmix(pnp.add(pnp.bitwise_xor(x, _fmix(k1)), c))


def _int32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _uniform01(seed, shape, stream=0, open_low=False):
    """float32 uniform numbers in [0, 1) (in (0, 1] with ``open_low``), 24 random bits each."""
    pnp = _pnp()
    n = _math.prod(shape)
    bits = _srl(random_bits(seed, n, stream), 8)
    u = cast(bits, "float32") * (2.0 ** -24)
    if open_low:
        u = u + 2.0 ** -24
    return pnp.reshape(u, shape)


def _std_normal(seed, shape, stream=0):
    """float32 standard normal numbers (Box-Muller)."""
    pnp = _pnp()
    u1 = _uniform01(seed, shape, stream, open_low=True)
    u2 = _uniform01(seed, shape, stream + 1)
    return pnp.sqrt(-2.0 * pnp.log(u1)) * pnp.cos((2 * _math.pi) * u2)


def _sub_seed(seed, k):
    """A seed for an independent stream ``k`` of the same seed."""
    pnp = _pnp()
    return pnp.stack([pnp.bitwise_xor(cast(seed[0], "int32"), _int32(0x5BD1E995 * (k + 1))),
                      pnp.add(cast(seed[1], "int32"), 7919 * (k + 1))])


# ----- ops -------------------------------------------------------------------------------------


def _dist_rule(op, seed, shape, dtype, kind="float"):
    _check_seed(op, seed)
    shape = _shape(op, shape)
    d = _float_dtype(op, dtype) if kind == "float" else _int_dtype(op, dtype)
    return spec(shape, d)


def _dist_prepare(kind="float"):
    def prepare(seed, shape, *rest):
        dtype = rest[-1]
        return (seed, _shape("random", shape), *rest[:-1],
                _float_dtype("random", dtype) if kind == "float" else _int_dtype("random", dtype))

    return prepare


@defop("random", tensors=("seed",), promote=_seed_promote, prepare=_dist_prepare())
def stateless_normal(seed, shape, mean=0.0, stddev=1.0, dtype=None):
    """Normal numbers of ``shape`` from an explicit int32 (2,) ``seed``.
    ``polyops.random.normal`` is the Keras API.

    Example:
        >>> y = polyops.ops.random.stateless_normal(polyops.ops.array([1, 2]), (3,))
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    return _dist_rule("stateless_normal", seed, shape, dtype)


@stateless_normal.reference
def _normal_ref(seed, shape, mean=0.0, stddev=1.0, dtype=None):
    return cast(_std_normal(seed, shape) * stddev + mean, dtype)


@defop("random", tensors=("seed",), promote=_seed_promote, prepare=_dist_prepare())
def stateless_uniform(seed, shape, minval=0.0, maxval=1.0, dtype=None):
    """Uniform numbers in ``[minval, maxval)`` of ``shape`` from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_uniform(polyops.ops.array([1, 2]), (3,))
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    return _dist_rule("stateless_uniform", seed, shape, dtype)


@stateless_uniform.reference
def _uniform_ref(seed, shape, minval=0.0, maxval=1.0, dtype=None):
    u = _uniform01(seed, shape)
    return cast(u * (maxval - minval) + minval, dtype)


@defop("random", tensors=("seed",), promote=_seed_promote, prepare=_dist_prepare("int"))
def stateless_randint(seed, shape, minval, maxval, dtype="int32"):
    """Integers in ``[minval, maxval)`` of ``shape`` from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_randint(polyops.ops.array([1, 2]), (3,), 0, 10)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'int32')
    """
    if int(maxval) <= int(minval):
        raise ValueError(f"stateless_randint: expected maxval > minval, got minval={minval}, "
                         f"maxval={maxval}")
    return _dist_rule("stateless_randint", seed, shape, dtype, "int")


@stateless_randint.reference
def _randint_ref(seed, shape, minval, maxval, dtype="int32"):
    pnp = _pnp()
    lo, hi = int(minval), int(maxval)
    if hi <= lo:
        raise ValueError(f"randint: expected maxval > minval, got minval={lo}, maxval={hi}")
    bits = pnp.bitwise_and(random_bits(seed, _math.prod(shape)), 0x7FFFFFFF)
    r = hi - lo
    if r > 2**31 - 1:
        raise ValueError(f"randint: the range [{lo}, {hi}) is wider than 2**31 - 1")
    out = cast(pnp.reshape(pnp.mod(bits, r), shape), dtype)
    return out + lo if lo else out


_PHI2 = 0.5 * (1 + _math.erf(-2 / _math.sqrt(2)))  # P(Z < -2)


@defop("random", tensors=("seed",), promote=_seed_promote, prepare=_dist_prepare())
def stateless_truncated_normal(seed, shape, mean=0.0, stddev=1.0, dtype=None):
    """Normal numbers redrawn outside two standard deviations, from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_truncated_normal(polyops.ops.array([1, 2]), (3,))
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    return _dist_rule("stateless_truncated_normal", seed, shape, dtype)


@stateless_truncated_normal.reference
def _truncated_normal_ref(seed, shape, mean=0.0, stddev=1.0, dtype=None):
    from .math import erfinv

    pnp = _pnp()
    u = _uniform01(seed, shape) * (1 - 2 * _PHI2) + _PHI2
    z = _math.sqrt(2.0) * erfinv(2.0 * u - 1.0)
    return cast(pnp.clip(z, -2.0, 2.0) * stddev + mean, dtype)


def _categorical_prepare(seed, logits, num_samples, dtype="int32"):
    return seed, logits, _num_samples(num_samples), _int_dtype("categorical", dtype)


def _num_samples(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"categorical: expected a non-negative int num_samples, got {n!r}")
    return int(n)


@_promote.cached
def _categorical_promote(keys):
    seed, logits = _seed_promote(keys[:1])[0], keys[1]
    if logits in _dtypes.COMPLEX_TYPES or logits == "complex":
        raise _promote.PromotionError(f"expected real logits, got {logits}")
    return seed, _promote.floating((logits,))[0]


@defop("random", tensors=("seed", "logits"), promote=_categorical_promote,
       prepare=_categorical_prepare)
def stateless_categorical(seed, logits, num_samples, dtype="int32"):
    """Class indices drawn from ``logits`` (batch, classes): shape (batch, num_samples).

    Example:
        >>> y = polyops.ops.random.stateless_categorical(polyops.ops.array([1, 2]),
        ...                                              polyops.ops.zeros((2, 5)), 3)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((2, 3), 'int32')
    """
    _check_seed("stateless_categorical", seed)
    _categorical_promote((key(seed), key(logits)))
    shape = shape_of(logits)
    if len(shape) != 2:
        raise ValueError(f"categorical: expected logits of shape (batch, classes), got {shape}")
    return spec((shape[0], _num_samples(num_samples)), _int_dtype("categorical", dtype))


@stateless_categorical.reference
def _categorical_ref(seed, logits, num_samples, dtype="int32"):
    pnp = _pnp()
    b, k = _shape_of(logits)
    u = _uniform01(seed, (b, num_samples, k), open_low=True)
    u = pnp.minimum(u, 1.0 - 2.0 ** -24)
    gumbel = -pnp.log(-pnp.log(u))
    scores = pnp.expand_dims(cast(logits, "float32"), 1) + gumbel
    return cast(pnp.argmax(scores, axis=-1), dtype)


def _dropout_prepare(seed, inputs, rate, noise_shape=None):
    return seed, inputs, _rate(rate), _noise_shape(inputs, noise_shape)


def _rate(rate):
    r = float(rate)
    if not 0.0 <= r < 1.0:
        raise ValueError(f"dropout: expected 0 <= rate < 1, got rate={rate!r}")
    return r


def _noise_shape(inputs, noise_shape):
    shape = tuple(_shape_of(inputs)) if not isinstance(inputs, SymbolicTensor) else inputs.shape
    if noise_shape is None:
        return None
    ns = tuple(d if d is not None else s for d, s in zip(noise_shape, shape))
    if len(ns) != len(shape) or any(d not in (1, s) and s is not None for d, s in zip(ns, shape)):
        raise ValueError(f"dropout: noise_shape {tuple(noise_shape)} does not broadcast to the "
                         f"inputs shape {shape}")
    return ns


@_promote.cached
def _dropout_promote(keys):
    return _seed_promote(keys[:1])[0], _promote.floating((keys[1],))[0]


@defop("random", tensors=("seed", "inputs"), promote=_dropout_promote, prepare=_dropout_prepare)
def stateless_dropout(seed, inputs, rate, noise_shape=None):
    """Zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)``;
    ``noise_shape`` (1 where the mask is shared) broadcasts the mask.

    Example:
        >>> y = polyops.ops.random.stateless_dropout(polyops.ops.array([1, 2]),
        ...                                          polyops.ops.ones((4,)), 0.5)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((4,), 'float32')
    """
    _check_seed("stateless_dropout", seed)
    _rate(rate)
    _noise_shape(inputs, noise_shape)
    return spec(shape_of(inputs), _dropout_promote((key(seed), key(inputs)))[1])


@stateless_dropout.reference
def _dropout_ref(seed, inputs, rate, noise_shape=None):
    pnp = _pnp()
    if rate == 0.0:
        return inputs
    shape = noise_shape or tuple(_shape_of(inputs))
    keep = _uniform01(seed, shape) >= rate
    d = _dtype_of(inputs)
    return pnp.where(keep, inputs / cast(convert_to_tensor(1.0 - rate), d), pnp.zeros((), d))


def _shuffle_prepare(seed, x, axis=0):
    from .._shapes import canonicalize_axis

    return seed, x, canonicalize_axis(axis, len(_shape_of(x)), "shuffle")


@_promote.cached
def _shuffle_promote(keys):
    return _seed_promote(keys[:1])[0], _promote.preserve((keys[1],))[0]


@defop("random", tensors=("seed", "x"), promote=_shuffle_promote, prepare=_shuffle_prepare)
def stateless_shuffle(seed, x, axis=0):
    """``x`` with its slices along ``axis`` in a random order.

    Example:
        >>> y = polyops.ops.random.stateless_shuffle(polyops.ops.array([1, 2]), polyops.ops.arange(5))
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((5,), 'int32')
    """
    from .._shapes import canonicalize_axis

    _check_seed("stateless_shuffle", seed)
    canonicalize_axis(axis, len(shape_of(x)), "shuffle")
    return spec(shape_of(x), _shuffle_promote((key(seed), key(x)))[1])


@stateless_shuffle.reference
def _shuffle_ref(seed, x, axis=0):
    pnp = _pnp()
    n = _shape_of(x)[axis]
    keys = random_bits(seed, n)
    return pnp.take(x, pnp.argsort(keys), axis=axis)


def _param_prepare(n_params):
    def prepare(seed, shape, *rest):
        params, dtype = rest[:n_params], rest[n_params]
        return (seed, _shape("random", shape), *params, _float_dtype("random", dtype))

    return prepare


def _check_param_shape(op, name, p, shape):
    ps = shape_of(p) if isinstance(p, SymbolicTensor) else ()
    from .._shapes import broadcast_shapes

    if tuple(broadcast_shapes(ps, shape, op=op)) != tuple(shape):
        raise ValueError(f"{op}: {name} of shape {ps} does not broadcast to shape {shape}")


@defop("random", tensors=("seed", "alpha"), promote=_seed_promote, prepare=_param_prepare(1))
def stateless_gamma(seed, shape, alpha, dtype=None):
    """Gamma(``alpha``, 1) numbers of ``shape`` (``alpha`` > 0, a number or a tensor that
    broadcasts to ``shape``), from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_gamma(polyops.ops.array([1, 2]), (3,), 2.0)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    out = _dist_rule("stateless_gamma", seed, shape, dtype)
    _check_param_shape("stateless_gamma", "alpha", alpha, out.shape)
    return out


_GAMMA_ROUNDS = 8


def _gamma_f32(seed, shape, alpha):
    """float32 Gamma(alpha) by Marsaglia and Tsang, 8 rounds of proposals (a proposal is
    accepted with probability > 0.95, so all fail with probability < 1e-10)."""
    pnp = _pnp()
    a = pnp.broadcast_to(cast(convert_to_tensor(alpha), "float32"), shape)
    small = a < 1.0
    a1 = pnp.where(small, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / pnp.sqrt(9.0 * d)
    out = d  # the mode, should every round fail
    done = pnp.zeros(shape, "bool")
    for r in range(_GAMMA_ROUNDS):
        z = _std_normal(seed, shape, stream=4 * r + 2)
        u = _uniform01(seed, shape, stream=4 * r + 4, open_low=True)
        v = (1.0 + c * z) ** 3
        ok = (v > 0) & (pnp.log(u) < 0.5 * z * z + d - d * v + d * pnp.log(pnp.maximum(v, 1e-30)))
        take = ok & pnp.logical_not(done)
        out = pnp.where(take, d * v, out)
        done = done | ok
    boost = _uniform01(seed, shape, stream=1, open_low=True) ** (1.0 / a)
    return pnp.where(small, out * boost, out)


@stateless_gamma.reference
def _gamma_ref(seed, shape, alpha, dtype=None):
    return cast(_gamma_f32(seed, shape, alpha), dtype)


@defop("random", tensors=("seed", "alpha", "beta"), promote=_seed_promote,
       prepare=_param_prepare(2))
def stateless_beta(seed, shape, alpha, beta, dtype=None):
    """Beta(``alpha``, ``beta``) numbers of ``shape`` from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_beta(polyops.ops.array([1, 2]), (3,), 2.0, 3.0)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    out = _dist_rule("stateless_beta", seed, shape, dtype)
    _check_param_shape("stateless_beta", "alpha", alpha, out.shape)
    _check_param_shape("stateless_beta", "beta", beta, out.shape)
    return out


@stateless_beta.reference
def _beta_ref(seed, shape, alpha, beta, dtype=None):
    x = _gamma_f32(_sub_seed(seed, 0), shape, alpha)
    y = _gamma_f32(_sub_seed(seed, 1), shape, beta)
    return cast(x / (x + y), dtype)


@defop("random", tensors=("seed", "counts", "probabilities"), promote=_seed_promote,
       prepare=_param_prepare(2))
def stateless_binomial(seed, shape, counts, probabilities, dtype=None):
    """Binomial(``counts``, ``probabilities``) numbers of ``shape`` (as floats of ``dtype``,
    as Keras), from an explicit seed.

    Example:
        >>> y = polyops.ops.random.stateless_binomial(polyops.ops.array([1, 2]), (3,), 10, 0.5)
        >>> polyops.ops.shape(y), polyops.ops.dtype(y)
        ((3,), 'float32')
    """
    out = _dist_rule("stateless_binomial", seed, shape, dtype)
    _check_param_shape("stateless_binomial", "counts", counts, out.shape)
    _check_param_shape("stateless_binomial", "probabilities", probabilities, out.shape)
    return out


@stateless_binomial.reference
def _binomial_ref(seed, shape, counts, probabilities, dtype=None):
    """The sum of ``max(counts)`` Bernoulli trials, masked per element to its count (the
    largest count is read on the host: a tensor ``counts`` is eager only)."""
    from ._base import to_host

    pnp = _pnp()
    n = to_host("binomial", counts)
    k = int(np.max(n)) if np.size(n) else 0
    if k <= 0:
        return pnp.zeros(shape, dtype)
    u = _uniform01(seed, tuple(shape) + (k,))
    trial = pnp.reshape(pnp.arange(k, dtype="float32"), (1,) * len(shape) + (k,))
    cnt = pnp.expand_dims(pnp.broadcast_to(cast(convert_to_tensor(counts), "float32"), shape), -1)
    p = pnp.expand_dims(pnp.broadcast_to(cast(convert_to_tensor(probabilities), "float32"), shape), -1)
    hits = (u < p) & (trial < cnt)
    return cast(pnp.sum(cast(hits, "float32"), axis=-1), dtype)


__all__ = [
    "StatelessBeta", "StatelessBinomial", "StatelessCategorical", "StatelessDropout",
    "StatelessGamma", "StatelessNormal", "StatelessRandint", "StatelessShuffle",
    "StatelessTruncatedNormal", "StatelessUniform", "random_bits", "stateless_beta",
    "stateless_binomial", "stateless_categorical", "stateless_dropout", "stateless_gamma",
    "stateless_normal", "stateless_randint", "stateless_shuffle", "stateless_truncated_normal",
    "stateless_uniform",
]

_finish(globals())
