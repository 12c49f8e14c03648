"""All ops, flat as in ``keras.ops``, and by family (`polyops.ops.numpy`, ``.nn``, ``.core``)."""

from . import core, nn, numpy  # noqa: F401  (import order defines op indices)
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .nn import *  # noqa: F401,F403
from .nn import __all__ as _nn_all
from .numpy import *  # noqa: F401,F403
from .numpy import __all__ as _numpy_all

__all__ = sorted(set(_core_all) | set(_nn_all) | set(_numpy_all))
