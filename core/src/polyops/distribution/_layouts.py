"""`DeviceMesh`, `TensorLayout` and `LayoutMap`: where a tensor's pieces go."""

from __future__ import annotations

import collections.abc
import math
import re

import numpy as np

from ._devices import _backend, _canonical, _hook, _one_device_error, list_devices


class DeviceMesh:
    """Devices arranged in a named grid, as ``keras.distribution.DeviceMesh`` (jax's ``Mesh``).

    Args:
        shape: the grid's shape, e.g. ``(8,)`` for data parallelism or ``(2, 4)`` for
            data x model parallelism; its product is the number of devices.
        axis_names: one distinct name per axis (``("batch", "model")``), used by
            `TensorLayout` to say which tensor dimension is split over which axis.
        devices: the device names, in the grid's order (row-major); default:
            `list_devices()`.  They must be devices of the current backend.

    Example:
        >>> mesh = polyops.distribution.DeviceMesh((1,), ["batch"])
        >>> mesh.devices
        array(['cpu:0'], dtype='<U5')
    """

    def __init__(self, shape, axis_names, devices=None):
        if isinstance(shape, (int, np.integer)):
            shape = (shape,)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        if not shape or not axis_names:
            raise ValueError(f"DeviceMesh: expected a non-empty shape and axis_names, got "
                             f"shape={shape!r}, axis_names={axis_names!r}")
        shape, axis_names = tuple(shape), tuple(axis_names)
        if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1
               for s in shape):
            raise ValueError(f"DeviceMesh: expected shape a tuple of positive ints, "
                             f"got {shape!r}")
        if len(shape) != len(axis_names):
            raise ValueError(f"DeviceMesh: expected one axis name per mesh dimension, got "
                             f"shape={shape} and axis_names={axis_names}")
        if not all(isinstance(a, str) and a for a in axis_names) \
                or len(set(axis_names)) != len(axis_names):
            raise ValueError(f"DeviceMesh: expected distinct axis names (str), "
                             f"got {axis_names!r}")
        backend = _backend()
        if devices is None:
            devices = list_devices()
        flat = [_canonical(d, "DeviceMesh") for d in np.asarray(devices, dtype=object).ravel()]
        if len(set(flat)) != len(flat):
            raise ValueError(f"DeviceMesh: expected distinct devices, got {flat}")
        if math.prod(shape) != len(flat):
            raise ValueError(f"DeviceMesh: shape {tuple(int(s) for s in shape)} holds "
                             f"{math.prod(shape)} devices, got {len(flat)}: {flat}")
        _check_devices(backend, flat, "DeviceMesh")
        self._shape = tuple(int(s) for s in shape)
        self._axis_names = axis_names
        self._devices = np.array(flat).reshape(self._shape)
        self._backend_meshes: dict = {}

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def axis_names(self) -> tuple:
        return self._axis_names

    @property
    def devices(self) -> np.ndarray:
        """The device names as a numpy array of the mesh's shape."""
        return self._devices

    def axis_size(self, name: str) -> int:
        """The number of devices along axis ``name``."""
        if name not in self._axis_names:
            raise ValueError(f"DeviceMesh: expected an axis name in {self._axis_names}, "
                             f"got {name!r}")
        return self._shape[self._axis_names.index(name)]

    @property
    def backend_mesh(self):
        """The current backend's mesh (jax: ``jax.sharding.Mesh``), made once per backend."""
        backend = _backend()
        found = self._backend_meshes.get(backend.name)
        if found is None:
            hook = _hook(backend)
            _check_devices(backend, list(self._devices.ravel()), "DeviceMesh")
            if hook is None:
                return None
            found = self._backend_meshes[backend.name] = hook.to_backend_mesh(self)
        return found

    def __repr__(self):
        return f"<DeviceMesh shape={self._shape}, axis_names={self._axis_names}>"


def _check_devices(backend, flat: list, caller: str) -> None:
    """Every device of ``flat`` is one of ``backend``'s; more than one needs the hook."""
    hook = _hook(backend)
    if hook is None and len(flat) > 1:
        raise _one_device_error(backend, f"{caller} of {len(flat)} devices")
    kinds = {d.partition(":")[0] for d in flat}
    known: set = set()
    for kind in kinds:
        if hook is not None:
            known.update(_canonical(d, caller) for d in hook.list_devices(kind))
        else:
            known.update(_canonical(d, caller) for d in backend.runtime.devices())
    unknown = [d for d in flat if d not in known]
    if unknown:
        raise ValueError(f"{caller}: {unknown} are not devices of the {backend.name} backend; "
                         f"it has {sorted(known) or list(backend.runtime.devices())}")


def _axis_entry(entry):
    """A layout entry's mesh axes: None -> (), "model" -> ("model",), a tuple -> itself."""
    if entry is None:
        return ()
    if isinstance(entry, str):
        return (entry,)
    if isinstance(entry, tuple) and entry and all(isinstance(e, str) for e in entry):
        return entry
    raise ValueError(f"TensorLayout: expected each axis None, a mesh axis name or a tuple "
                     f"of them, got {entry!r}")


class TensorLayout:
    """How a tensor is split over a `DeviceMesh`, as ``keras.distribution.TensorLayout``
    (jax's ``NamedSharding``).

    Args:
        axes: one entry per tensor dimension: a mesh axis name (that dimension is split
            over that axis's devices), None (not split), or a tuple of axis names.
        device_mesh: the mesh; may be given later (a `LayoutMap` fills in its own).

    Example:
        >>> mesh = polyops.distribution.DeviceMesh((1,), ["model"])
        >>> polyops.distribution.TensorLayout((None, "model"), mesh)
        <TensorLayout axes=(None, 'model'), device_mesh=<DeviceMesh shape=(1,), axis_names=('model',)>>
    """

    def __init__(self, axes, device_mesh=None):
        if isinstance(axes, str) or not isinstance(axes, collections.abc.Iterable):
            raise ValueError(f"TensorLayout: expected axes a tuple with one entry per tensor "
                             f"dimension, got {axes!r}")
        self._axes = tuple(axes)
        used = [a for entry in self._axes for a in _axis_entry(entry)]
        if len(set(used)) != len(used):
            raise ValueError(f"TensorLayout: each mesh axis may split one dimension only, "
                             f"got axes={self._axes}")
        self._device_mesh = None
        self._backend_layouts: dict = {}
        if device_mesh is not None:
            self.device_mesh = device_mesh

    @property
    def axes(self) -> tuple:
        return self._axes

    @property
    def device_mesh(self):
        return self._device_mesh

    @device_mesh.setter
    def device_mesh(self, device_mesh):
        if self._device_mesh is not None:
            raise ValueError(f"TensorLayout: the device mesh is already set "
                             f"({self._device_mesh}); it cannot be replaced")
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(f"TensorLayout: expected device_mesh a DeviceMesh, "
                             f"got {device_mesh!r}")
        unknown = sorted({a for e in self._axes for a in _axis_entry(e)}
                         - set(device_mesh.axis_names))
        if unknown:
            raise ValueError(f"TensorLayout: axes {self._axes} name {unknown}, which the mesh "
                             f"does not have; its axis names are {device_mesh.axis_names}")
        self._device_mesh = device_mesh

    @property
    def backend_layout(self):
        """The current backend's layout (jax: ``NamedSharding``), made once per backend."""
        mesh = self._mesh("TensorLayout.backend_layout")
        backend = _backend()
        found = self._backend_layouts.get(backend.name)
        if found is None:
            _check_devices(backend, list(mesh.devices.ravel()), "TensorLayout")
            hook = _hook(backend)
            if hook is None:
                return None
            found = self._backend_layouts[backend.name] = hook.to_backend_layout(self)
        return found

    def _mesh(self, caller: str) -> DeviceMesh:
        if self._device_mesh is None:
            raise ValueError(f"{caller}: the layout {self._axes} has no device mesh; give "
                             f"TensorLayout(axes, device_mesh) or add it to a LayoutMap")
        return self._device_mesh

    def _factor(self, i: int) -> int:
        """How many pieces dimension ``i`` is split into."""
        mesh = self._device_mesh
        return math.prod(mesh.axis_size(a) for a in _axis_entry(self._axes[i]))

    def _check_shape(self, shape, caller: str, per_process: int = 1) -> None:
        """``shape`` fits: one axis per dimension, each dimension divisible by its split
        (``per_process``: the processes dimension 0 is already split over)."""
        self._mesh(caller)
        shape = tuple(shape)
        if len(shape) != len(self._axes):
            raise ValueError(f"{caller}: the layout axes {self._axes} have rank "
                             f"{len(self._axes)}, the tensor has shape {shape}")
        for i, n in enumerate(shape):
            f = self._factor(i)
            if i == 0 and per_process > 1:
                f = max(1, f // per_process)
            if n is not None and f > 1 and n % f:
                raise ValueError(f"{caller}: dimension {i} of shape {shape} has size {n}, "
                                 f"not divisible by the {f} devices of mesh axis "
                                 f"{self._axes[i]!r}")

    def __repr__(self):
        return f"<TensorLayout axes={self._axes}, device_mesh={self._device_mesh}>"


class LayoutMap(collections.abc.MutableMapping):
    """Regular expressions of variable paths -> `TensorLayout`, as
    ``keras.distribution.LayoutMap``.

    Looking up a path returns the layout stored under it, else the one whose key (a
    regex) ``re.fullmatch``-es it, else None; a path two keys match raises ValueError.
    A tuple stored is made a `TensorLayout` on this map's mesh.

    Example:
        >>> layout_map = polyops.distribution.LayoutMap(
        ...     polyops.distribution.DeviceMesh((1,), ["model"]))
        >>> layout_map["dense.*kernel"] = (None, "model")
        >>> layout_map["dense_1/kernel"].axes
        (None, 'model')
    """

    def __init__(self, device_mesh):
        if not isinstance(device_mesh, DeviceMesh):
            raise ValueError(f"LayoutMap: expected device_mesh a DeviceMesh, got {device_mesh!r}")
        self._device_mesh = device_mesh
        self._layout_map: dict = {}

    def __getitem__(self, key):
        if key in self._layout_map:
            return self._layout_map[key]
        matches = [k for k in self._layout_map if re.fullmatch(k, key)]
        if len(matches) > 1:
            raise ValueError(f"LayoutMap: path {key!r} matches several keys {matches}; "
                             f"make each path match one key at most")
        return self._layout_map[matches[0]] if matches else None

    def __setitem__(self, key, layout):
        if not isinstance(key, str):
            raise ValueError(f"LayoutMap: expected a str key (a regex of paths), got {key!r}")
        if key in self._layout_map:
            raise ValueError(f"LayoutMap: key {key!r} is already set to "
                             f"{self._layout_map[key]}; keys must be unique")
        try:
            re.compile(key)
        except re.error as exc:
            raise ValueError(f"LayoutMap: key {key!r} is not a regular expression: {exc}") \
                from None
        if isinstance(layout, (tuple, list)):
            layout = TensorLayout(layout, self._device_mesh)
        if not isinstance(layout, TensorLayout):
            raise ValueError(f"LayoutMap: expected a TensorLayout or a tuple of axes for "
                             f"{key!r}, got {layout!r}")
        if layout.device_mesh is None:
            layout.device_mesh = self._device_mesh
        elif layout.device_mesh is not self._device_mesh:
            raise ValueError(f"LayoutMap: the layout for {key!r} is on {layout.device_mesh}, "
                             f"not this map's {self._device_mesh}")
        self._layout_map[key] = layout

    def __delitem__(self, key):
        del self._layout_map[key]

    def __len__(self):
        return len(self._layout_map)

    def __iter__(self):
        return iter(self._layout_map)

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._device_mesh
