"""All ops, flat as in ``keras.ops``, and by family (`polyops.ops.numpy`, ``.nn``, ``.core``,
``.math``, ``.linalg``, ``.image``, ``.random``).  Image ops are not flat:
``polyops.ops.image.resize``, as ``keras.ops.image.resize``; nor are the stateless random
ops (``polyops.ops.random``), whose Keras API is `polyops.random`."""

from . import core, nn, numpy, math, linalg, image, random  # noqa: F401  (import order: op indices)
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .linalg import *  # noqa: F401,F403
from .linalg import __all__ as _linalg_all
from .math import *  # noqa: F401,F403
from .math import __all__ as _math_all
from .nn import *  # noqa: F401,F403
from .nn import __all__ as _nn_all
from .numpy import *  # noqa: F401,F403
from .numpy import __all__ as _numpy_all

__all__ = sorted(set(_core_all) | set(_nn_all) | set(_numpy_all) | set(_math_all) | set(_linalg_all))
