"""All ops, flat as in ``keras.ops``, and by family (`polyops.ops.numpy`, ``.nn``, ``.core``,
``.math``, ``.linalg``, ``.image``, ``.random``).  Image ops are not flat:
``polyops.ops.image.resize``, as ``keras.ops.image.resize``; nor are the stateless random
ops (``polyops.ops.random``), whose Keras API is `polyops.random`."""

from . import core, nn, numpy, math, linalg, image, random  # noqa: F401  (import order: op indices)
from .core import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .nn import *  # noqa: F401,F403
from .numpy import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += core.__all__
__all__ += nn.__all__
__all__ += numpy.__all__
__all__ += math.__all__
__all__ += linalg.__all__

from .._public import save_cache as _save_cache  # noqa: E402

_save_cache()  # the public functions' code, for the next start (see polyops._public)
