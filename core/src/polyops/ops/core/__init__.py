"""Core ops (``keras.ops.core``), one submodule per kind:

* `base`: shape, dtype, cast, convert_to_tensor, convert_to_numpy, is_tensor;
* `tensors`: scatter, scatter_update, slice, slice_update, saturate_cast, stop_gradient,
  unstack, rearrange, custom_gradient;
* `control`: map, scan, associative_scan, switch, cond, while_loop, fori_loop,
  vectorized_map (callables and nested structures; see its docstring)."""

from .._lazy import attach as _attach

_attach(globals())  # names load on first use (see polyops.ops._lazy)
