"""`Distribution`, `DataParallel`, `ModelParallel`, and the current distribution."""

from __future__ import annotations

import contextlib
import contextvars
import warnings

import numpy as np

from ._devices import list_devices, num_processes, process_id
from ._layouts import DeviceMesh, LayoutMap, TensorLayout

DEFAULT_BATCH_DIM_NAME = "batch"

_UNSET = object()
# the distribution set in this context (`Distribution.scope`, `set_distribution`), else
# the process-wide one `set_distribution` set last: as use_backend/set_backend
_CURRENT: contextvars.ContextVar = contextvars.ContextVar("polyops_distribution",
                                                          default=_UNSET)
_GLOBAL = None


class Distribution:
    """Where variables and input batches go: the base of `DataParallel` and `ModelParallel`.

    Args:
        device_mesh: the `DeviceMesh`.
        batch_dim_name: the mesh axis input batches are split over.
        auto_shard_dataset: whether each process reads its own part of a dataset
            (kept for Keras compatibility; polyops takes per-process batches).
    """

    def __init__(self, device_mesh, batch_dim_name=None, auto_shard_dataset=True):
        name = type(self).__name__
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(f"{name}: expected device_mesh a DeviceMesh, got {device_mesh!r}")
        if batch_dim_name is not None and batch_dim_name not in device_mesh.axis_names:
            raise ValueError(f"{name}: batch_dim_name {batch_dim_name!r} is not an axis of the "
                             f"mesh; its axis names are {device_mesh.axis_names}")
        self._device_mesh = device_mesh
        self._batch_dim_name = batch_dim_name
        self._auto_shard_dataset = auto_shard_dataset
        self._num_processes = num_processes()
        self._process_id = process_id()

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh

    @property
    def batch_dim_name(self):
        return self._batch_dim_name

    @property
    def auto_shard_dataset(self) -> bool:
        return self._auto_shard_dataset

    @auto_shard_dataset.setter
    def auto_shard_dataset(self, value):
        self._auto_shard_dataset = value

    @property
    def num_processes(self) -> int:
        return self._num_processes

    @property
    def num_model_replicas(self) -> int:
        raise NotImplementedError

    @property
    def num_data_shards(self) -> int:
        return min(self.num_model_replicas, self.num_processes)

    @property
    def data_shard_id(self) -> int:
        replicas = self.num_model_replicas
        if replicas >= self._num_processes:
            return self._process_id
        return self._process_id // (self._num_processes // replicas)

    def get_data_layout(self, data_shape) -> TensorLayout:
        """The layout of an input batch of ``data_shape``: dimension 0 split over the
        batch axis."""
        if len(tuple(data_shape)) == 0:
            raise ValueError(f"{type(self).__name__}: expected input data with a batch "
                             f"dimension, got shape {tuple(data_shape)}")
        axes = [None] * len(tuple(data_shape))
        axes[0] = self._batch_dim_name
        return TensorLayout(axes, self._device_mesh)

    def get_variable_layout(self, variable) -> TensorLayout:
        raise NotImplementedError

    def get_tensor_layout(self, path):
        raise NotImplementedError

    @contextlib.contextmanager
    def scope(self):
        """Make this the current distribution inside a ``with`` block (in this thread or task)."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    def __repr__(self):
        return f"<{type(self).__name__} device_mesh={self._device_mesh}>"


def _replicated(variable, mesh) -> TensorLayout:
    layout = getattr(variable, "_layout", None)
    return layout if layout is not None else TensorLayout([None] * len(variable.shape), mesh)


class DataParallel(Distribution):
    """Data parallelism, as ``keras.distribution.DataParallel``: variables replicated on
    every device, input batches split along dimension 0.

    Args:
        device_mesh: a `DeviceMesh` (its first axis splits the batch), or
        devices: device names for a 1-D mesh with axis "batch" (give one of the two);
            neither: every device of `list_devices()`.

    Example:
        >>> dp = polyops.distribution.DataParallel()
        >>> dp.device_mesh.axis_names, dp.batch_dim_name
        (('batch',), 'batch')
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is not None and devices is not None:
            raise ValueError("DataParallel: expected device_mesh or devices, got both")
        if device_mesh is None:
            devices = list_devices() if devices is None else devices
            device_mesh = DeviceMesh((int(np.asarray(devices, dtype=object).size),),
                                     [DEFAULT_BATCH_DIM_NAME], devices)
        elif not isinstance(device_mesh, DeviceMesh):
            raise ValueError(f"DataParallel: expected device_mesh a DeviceMesh, "
                             f"got {device_mesh!r}")
        elif len(device_mesh.shape) != 1:
            warnings.warn(f"DataParallel: expected a 1-D mesh, got shape {device_mesh.shape}; "
                          f"its first axis {device_mesh.axis_names[0]!r} splits the batch",
                          stacklevel=2)
        super().__init__(device_mesh, device_mesh.axis_names[0], auto_shard_dataset)

    @property
    def num_model_replicas(self) -> int:
        return int(self._device_mesh.devices.size)

    def get_variable_layout(self, variable) -> TensorLayout:
        return _replicated(variable, self._device_mesh)

    def get_tensor_layout(self, path):
        return None


class ModelParallel(Distribution):
    """Model (and data) parallelism, as ``keras.distribution.ModelParallel``: each
    variable split as the `LayoutMap` says for its path (its name), else replicated;
    input batches split over ``batch_dim_name``.

    Args:
        layout_map: a `LayoutMap` (its mesh is the distribution's).
        batch_dim_name: the mesh axis splitting input batches; default the mesh's first.

    Example:
        >>> mesh = polyops.distribution.DeviceMesh((1, 1), ["batch", "model"])
        >>> layout_map = polyops.distribution.LayoutMap(mesh)
        >>> layout_map[".*kernel"] = (None, "model")
        >>> mp = polyops.distribution.ModelParallel(layout_map=layout_map)
        >>> mp.batch_dim_name
        'batch'
    """

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True,
                 **kwargs):
        kwargs.pop("device_mesh", None)  # Keras 3.0's argument: the layout map's mesh is used
        if kwargs:
            raise TypeError(f"ModelParallel: unexpected arguments {sorted(kwargs)}")
        if not isinstance(layout_map, LayoutMap):
            raise ValueError(f"ModelParallel: expected layout_map a LayoutMap, "
                             f"got {layout_map!r}")
        mesh = layout_map.device_mesh
        super().__init__(mesh, batch_dim_name or mesh.axis_names[0], auto_shard_dataset)
        self._layout_map = layout_map
        replicas = self.num_model_replicas
        if self._num_processes > replicas and self._num_processes % replicas:
            raise ValueError(f"ModelParallel: {self._num_processes} processes do not divide "
                             f"into the {replicas} model replicas of batch axis "
                             f"{self._batch_dim_name!r}")

    @property
    def layout_map(self) -> LayoutMap:
        return self._layout_map

    @property
    def num_model_replicas(self) -> int:
        return self._device_mesh.axis_size(self._batch_dim_name)

    def get_variable_layout(self, variable) -> TensorLayout:
        if getattr(variable, "_layout", None) is not None:
            return variable._layout
        found = self._layout_map[_path(variable)]
        return found if found is not None else _replicated(variable, self._device_mesh)

    def get_tensor_layout(self, path):
        return self._layout_map[path]


def _path(variable) -> str:
    return getattr(variable, "path", None) or variable.name


def distribution():
    """The current `Distribution` (a ``scope`` in effect here, else the one
    `set_distribution` set), or None.

    Example:
        >>> polyops.distribution.distribution() is None
        True
    """
    found = _CURRENT.get()
    return _GLOBAL if found is _UNSET else found


def set_distribution(value) -> None:
    """Make ``value`` (a `Distribution`, or None to clear) the current distribution,
    process-wide and in the current context.

    Example:
        >>> polyops.distribution.set_distribution(polyops.distribution.DataParallel())
    """
    global _GLOBAL
    if value is not None and not isinstance(value, Distribution):
        raise ValueError(f"set_distribution: expected a Distribution or None, got {value!r}")
    _GLOBAL = value
    _CURRENT.set(value)
