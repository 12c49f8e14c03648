"""tensorflow's part of `polyops.distribution` (``Runtime.distribution``): polyops meshes
and layouts as ``tf.experimental.dtensor`` Mesh and Layout, placement with
``dtensor.copy_to_mesh`` and ``dtensor.relayout``, gathering with a relayout to
replicated.

The devices are tensorflow's logical devices: on a machine with one CPU, split it before
tensorflow starts (before any tensor is made), e.g.
``tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 8)``.
What DTensor (tensorflow 2.21) cannot do raises ValueError naming the backend: a tensor
dimension split over two mesh axes (a DTensor layout gives each dimension one mesh
axis) and jobs of more than one process (DTensor's multi-client mode is configured by
its own ``DTENSOR_*`` environment and a coordination service, which polyops does not
drive).  Core has checked every argument before these run."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.experimental import dtensor

from .core import EagerTensor

_TF_KIND = {"cpu": "CPU", "cuda": "GPU", "gpu": "GPU", "tpu": "TPU"}
_KIND = {"CPU": "cpu", "GPU": "cuda", "TPU": "tpu"}


def list_devices(device_type=None) -> list[str]:
    """The logical devices of one type (the default: accelerators if any, else CPUs)."""
    found = [d for d in tf.config.list_logical_devices() if d.device_type in _KIND]
    if device_type is None:
        accel = [d for d in found if d.device_type != "CPU"]
        found = accel or found
    else:
        found = [d for d in found if d.device_type == _TF_KIND.get(device_type)]
    return [f"{_KIND[d.device_type]}:{d.name.rsplit(':', 1)[-1]}" for d in found]


def initialize(job_addresses, num_processes, process_id) -> None:
    """One process: nothing to join.  More: not supported (see the module's docstring)."""
    if (num_processes or 1) > 1 or (process_id or 0) > 0 \
            or len((job_addresses or "").split(",")) > 1:
        raise ValueError(f"initialize(num_processes={num_processes}, process_id={process_id}): "
                         f"the tensorflow backend distributes over the devices of one process "
                         f"(DTensor's multi-client jobs are not driven by polyops); use jax or "
                         f"torch for jobs of many processes")


def num_processes() -> int:
    return 1


def process_id() -> int:
    return 0


def to_backend_mesh(mesh) -> dtensor.Mesh:
    names = list(mesh.devices.ravel())
    kinds = {n.partition(":")[0] for n in names}
    if len(kinds) > 1:
        raise ValueError(f"DeviceMesh: the tensorflow backend (DTensor) needs devices of one "
                         f"type in a mesh, got {names}")
    devices = [f"{_TF_KIND[n.partition(':')[0]]}:{n.partition(':')[2]}" for n in names]
    return dtensor.create_mesh(list(zip(mesh.axis_names, mesh.shape, strict=True)),
                               devices=devices)


def to_backend_layout(layout) -> dtensor.Layout:
    specs = []
    for entry in layout.axes:
        if isinstance(entry, tuple) and len(entry) > 1:
            raise ValueError(f"TensorLayout: the tensorflow backend (DTensor) splits a tensor "
                             f"dimension over one mesh axis, got {entry!r} in axes "
                             f"{layout.axes}")
        if isinstance(entry, tuple):
            entry = entry[0]
        specs.append(dtensor.UNSHARDED if entry is None else entry)
    return dtensor.Layout(specs, layout.device_mesh.backend_mesh)


def _tensor(x):
    if isinstance(x, np.ndarray):
        from polyops.ops import core

        return core.convert_to_tensor(x)  # the dtype polyops gives it (float64 -> float32)
    return x


def _is_dtensor(x) -> bool:
    return isinstance(x, EagerTensor) and dtensor.is_dtensor(x)


def distribute_tensor(x, layout):
    """``x`` placed as ``layout``: a plain tensor copied to the mesh, a DTensor
    relaid out (inside `polyops.jit`, a relayout in the graph, which DTensor runs on the
    mesh only when an argument of the function is a DTensor)."""
    x = _tensor(x)
    if isinstance(x, tf.Variable):
        x = x.read_value()
    if layout.mesh.size == 1:  # one device: nothing to place (tensors stay plain)
        return x
    if not tf.executing_eagerly():
        return dtensor.relayout(x, layout)
    if _is_dtensor(x):
        current = dtensor.fetch_layout(x)
        if current == layout:
            return x
        if current.mesh == layout.mesh:
            return dtensor.relayout(x, layout)
        x = gather(x)
    replicated = dtensor.Layout.replicated(layout.mesh, len(x.shape))
    out = dtensor.copy_to_mesh(x, replicated)
    return out if layout == replicated else dtensor.relayout(out, layout)


distribute_variable = distribute_tensor


def distribute_data_input(x, layout, batch_dim_name):
    """One process holds the whole batch: it is the global tensor, placed as ``layout``."""
    return distribute_tensor(x, layout)


def gather(x):
    """A DTensor's whole value as a plain tensor (a relayout to replicated, then one
    device's copy); any other tensor as it is."""
    if not _is_dtensor(x):
        return x
    layout = dtensor.fetch_layout(x)
    if not layout.is_fully_replicated():
        x = dtensor.relayout(x, dtensor.Layout.replicated(layout.mesh, layout.rank))
    return dtensor.unpack(x)[0]
