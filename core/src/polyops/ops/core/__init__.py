"""Core ops (``keras.ops.core``), one submodule per kind:

* `base`: shape, dtype, cast, convert_to_tensor, convert_to_numpy, is_tensor;
* `tensors`: scatter, scatter_update, slice, slice_update, saturate_cast, stop_gradient,
  unstack, rearrange, custom_gradient;
* `control`: map, scan, associative_scan, switch, cond, while_loop, fori_loop,
  vectorized_map (callables and nested structures; see its docstring).

The import order fixes the op indices.
"""

from . import base, control, tensors  # noqa: F401
from .base import *  # noqa: F401,F403
from .control import *  # noqa: F401,F403
from .tensors import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += base.__all__
__all__ += control.__all__
__all__ += tensors.__all__
