"""Random numbers, as ``keras.random``: normal, uniform, categorical, randint,
truncated_normal, dropout, shuffle, gamma, binomial, beta, and `SeedGenerator`.

Every function takes ``seed``:

* an int: stateless use; the same call with the same seed gives the same numbers on the
  same backend (backends use their own generators, so numbers differ between backends);
* a `SeedGenerator`: fresh numbers on each call; its state is a `polyops.Variable`, so
  inside `polyops.jit` each call of the compiled function still draws fresh numbers;
* None: the backend's global SeedGenerator (seeded from the OS);
* an int32 tensor of shape (2,): used as it is (as a JAX key).

The draws run the stateless ops of `polyops.ops.random` with the resolved seed.

Example:
    >>> gen = polyops.random.SeedGenerator(42)
    >>> a = polyops.random.normal((2, 3), seed=gen)
    >>> b = polyops.random.normal((2, 3), seed=gen)      # different numbers
    >>> polyops.random.uniform((2,), seed=7)             # the same on every call
"""

from __future__ import annotations

import os

from ._state import Variable
from .ops import random as _r

__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]

_MASK = 0xFFFFFFFF


def _int32(v: int) -> int:
    v &= _MASK
    return v - (1 << 32) if v >= 1 << 31 else v


class SeedGenerator:
    """A stream of seeds for the random functions, as ``keras.random.SeedGenerator``.

    Args:
        seed: an int (None: drawn from the OS).
        name: a name for the state Variable.

    Its state is an int32 Variable of shape (2,) on the backend current when it was made;
    each draw returns the state and advances it (``next``).  A distribution does not lay
    the state out: it stays a plain tensor in each process.

    Example:
        >>> gen = polyops.random.SeedGenerator(0)
        >>> polyops.random.uniform((3,), seed=gen)
    """

    def __init__(self, seed=None, name=None):
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"SeedGenerator: expected an int seed, got {seed!r}")
        self.initial_seed = seed
        # marked before __init__, which places a Variable made inside a distribution's
        # scope: the state stays a plain tensor of this process (a seed, read whole by
        # every draw; a DTensor state would not mix with plain constants on torch and tf)
        state = Variable.__new__(Variable)
        state._not_distributed = True
        state.__init__([_int32(seed), _int32(seed >> 32)], dtype="int32", trainable=False,
                       name=name or "seed_generator_state")
        self.state = state

    def next(self):
        """The current seed (int32, shape (2,)); advances the state."""
        from .ops import numpy as pnp

        seed = self.state.value
        self.state.assign(pnp.add(seed, _step()))
        return seed

    def __repr__(self):
        return f"<SeedGenerator seed={self.initial_seed}>"


def _step():
    from .ops import core

    return core.convert_to_tensor([0, 1], "int32")


_GLOBAL: dict = {}


def global_seed_generator() -> SeedGenerator:
    """The current backend's global SeedGenerator (used for ``seed=None``)."""
    from ._registry import current

    name = current().name
    gen = _GLOBAL.get(name)
    if gen is None:
        gen = _GLOBAL[name] = SeedGenerator(name="global_seed_generator")
    return gen


def draw_seed(seed):
    """The int32 (2,) seed tensor for ``seed`` (int, SeedGenerator, None or a seed tensor)."""
    from .ops import core

    if seed is None:
        return global_seed_generator().next()
    if isinstance(seed, SeedGenerator):
        return seed.next()
    if isinstance(seed, bool):
        raise TypeError(f"random: expected seed to be an int, a SeedGenerator or None, got {seed!r}")
    if isinstance(seed, int):
        return core.convert_to_tensor([_int32(seed), _int32(seed >> 32)], "int32")
    if core.is_tensor(seed) or hasattr(seed, "shape"):
        return seed
    raise TypeError(f"random: expected seed to be an int, a SeedGenerator or None, "
                    f"got {type(seed).__name__}")


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Numbers from a normal distribution.  Keras: ``keras.random.normal``.

    Example:
        >>> polyops.random.normal((2, 3), seed=1)
    """
    return _r.stateless_normal(draw_seed(seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Numbers from a uniform distribution on ``[minval, maxval)``.  Keras:
    ``keras.random.uniform``.

    Example:
        >>> polyops.random.uniform((2,), seed=1)
    """
    return _r.stateless_uniform(draw_seed(seed), shape, minval, maxval, dtype)


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers uniform on ``[minval, maxval)``.  Keras: ``keras.random.randint``.

    Example:
        >>> polyops.random.randint((4,), 0, 10, seed=1)
    """
    return _r.stateless_randint(draw_seed(seed), shape, minval, maxval, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Normal numbers within two standard deviations of ``mean``.  Keras:
    ``keras.random.truncated_normal``.

    Example:
        >>> polyops.random.truncated_normal((3,), seed=1)
    """
    return _r.stateless_truncated_normal(draw_seed(seed), shape, mean, stddev, dtype)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Class indices drawn from ``logits`` (batch, classes): shape (batch, num_samples).
    Keras: ``keras.random.categorical``.

    Example:
        >>> polyops.random.categorical(polyops.ops.zeros((1, 4)), 5, seed=1)
    """
    return _r.stateless_categorical(draw_seed(seed), logits, num_samples, dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zero elements with probability ``rate``, scale the rest by ``1 / (1 - rate)``.
    Keras: ``keras.random.dropout``.

    Example:
        >>> polyops.random.dropout(polyops.ops.ones((4,)), 0.5, seed=1)
    """
    return _r.stateless_dropout(draw_seed(seed), inputs, rate, noise_shape)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order.  Keras: ``keras.random.shuffle``.

    Example:
        >>> polyops.random.shuffle(polyops.ops.arange(5), seed=1)
    """
    return _r.stateless_shuffle(draw_seed(seed), x, axis)


def gamma(shape, alpha, dtype=None, seed=None):
    """Numbers from Gamma(``alpha``, 1).  Keras: ``keras.random.gamma``.

    Example:
        >>> polyops.random.gamma((3,), 2.0, seed=1)
    """
    return _r.stateless_gamma(draw_seed(seed), shape, alpha, dtype)


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Numbers from Binomial(``counts``, ``probabilities``), as floats of ``dtype``.  Keras:
    ``keras.random.binomial``.

    Example:
        >>> polyops.random.binomial((3,), 10, 0.5, seed=1)
    """
    return _r.stateless_binomial(draw_seed(seed), shape, counts, probabilities, dtype)


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Numbers from Beta(``alpha``, ``beta``).  Keras: ``keras.random.beta``.

    Example:
        >>> polyops.random.beta((3,), 2.0, 3.0, seed=1)
    """
    return _r.stateless_beta(draw_seed(seed), shape, alpha, beta, dtype)
