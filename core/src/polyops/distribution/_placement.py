"""Placing tensors, input batches and Variables as their layouts say."""

from __future__ import annotations

import numpy as np

from .. import _state
from ._devices import _backend, _hook, _one_device_error, num_processes
from ._layouts import TensorLayout
from ._strategies import _path, distribution


def _place(backend, x, layout, caller: str, kind: str = "distribute_tensor"):
    """``x`` laid out as ``layout`` (checked) on ``backend``; ``kind`` names the hook."""
    from ..ops import core

    rt = backend.runtime
    hook = _hook(backend)
    if hook is None:
        mesh = layout._mesh(caller)
        if mesh.devices.size > 1:
            raise _one_device_error(backend, f"{caller} over {mesh.devices.size} devices")
        return core.convert_to_tensor(x)
    if not isinstance(x, (rt.tensor_types, np.ndarray)):
        x = core.convert_to_tensor(x)
    fn = getattr(hook, kind, None) or hook.distribute_tensor
    return fn(x, layout.backend_layout)


def distribute_tensor(tensor, layout):
    """``tensor`` laid out as ``layout`` (a `TensorLayout`, or the backend's own, e.g. a
    ``jax.sharding.Sharding``); inside `polyops.jit` a sharding constraint.

    Example:
        >>> mesh = polyops.distribution.DeviceMesh((1,), ["batch"])
        >>> layout = polyops.distribution.TensorLayout(("batch", None), mesh)
        >>> polyops.distribution.distribute_tensor(np.ones((2, 3), "float32"), layout).shape
        (2, 3)
    """
    from .._symbolic import SymbolicTensor

    if isinstance(tensor, SymbolicTensor):
        return tensor
    if isinstance(tensor, _state.Variable):
        tensor = tensor.value
    backend = _backend()
    if not isinstance(layout, TensorLayout):
        hook = _hook(backend)
        if hook is None:
            raise ValueError(f"distribute_tensor: expected a TensorLayout, got {layout!r}")
        return hook.distribute_tensor(tensor, layout)
    layout._check_shape(_shape(tensor), "distribute_tensor")
    return _place(backend, tensor, layout, "distribute_tensor")


def _shape(x) -> tuple:
    shape = getattr(x, "shape", None)
    return tuple(np.shape(x) if shape is None else shape)


def distribute_data_input(per_process_batch, layout=None, batch_dim_name=None):
    """This process's part of an input batch (a tensor, array, or a nested structure of
    them), made one global tensor split along dimension 0 over the batch axis.

    Args:
        per_process_batch: this process's batch (the whole batch in a single process).
        layout: a `TensorLayout`; default: the current distribution's data layout.
        batch_dim_name: the mesh axis of dimension 0; default: the distribution's.

    Example:
        >>> with polyops.distribution.DataParallel().scope():
        ...     x = polyops.distribution.distribute_data_input(np.ones((8, 3), "float32"))
    """
    from .. import _tree

    dist = distribution()
    if layout is None and dist is None:
        raise ValueError("distribute_data_input: expected a layout, or a current distribution "
                         "(set_distribution or Distribution.scope), got neither")
    if layout is not None and not isinstance(layout, TensorLayout):
        raise ValueError(f"distribute_data_input: expected layout a TensorLayout, got {layout!r}")
    backend = _backend()
    n = num_processes()

    def one(x):
        if x is None:
            return None
        lay = layout if layout is not None else dist.get_data_layout(_shape(x))
        name = batch_dim_name or (dist.batch_dim_name if dist is not None else None) \
            or lay.axes[0]
        lay._check_shape(_shape(x), "distribute_data_input", per_process=n)
        hook = _hook(backend)
        if hook is None:
            return _place(backend, x, lay, "distribute_data_input")
        from ..ops import core

        if not isinstance(x, (backend.runtime.tensor_types, np.ndarray)):
            x = core.convert_to_tensor(x)
        return hook.distribute_data_input(x, lay.backend_layout, name)

    return _tree.map_structure(one, per_process_batch)


def _place_variable(variable, value):
    """A Variable's value laid out as its layout: the current distribution's for its path
    when it has none yet (at creation), else its own (on assign); as it is for a Variable
    marked ``_not_distributed`` (a SeedGenerator's state)."""
    layout = variable._layout
    if layout is None:
        if getattr(variable, "_not_distributed", False):
            return value
        dist = distribution()
        if dist is None:
            return value
        layout = dist.get_variable_layout(variable)
        if layout is None:
            return value
        layout._check_shape(variable.shape, f"Variable {_path(variable)!r}")
        variable._layout = layout
    return _place(variable._backend, value, layout, f"Variable {_path(variable)!r}",
                  "distribute_variable")
