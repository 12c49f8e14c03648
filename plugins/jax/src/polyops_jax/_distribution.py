"""jax's part of `polyops.distribution` (``Runtime.distribution``): polyops meshes and
layouts as ``jax.sharding`` Mesh and NamedSharding, placement with ``jax.device_put``,
per-process batches with ``jax.make_array_from_process_local_data``, many processes with
``jax.distributed``.  Core has checked every argument before these run."""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from polyops import standardize_dtype

from .core import JAX_DTYPES


def _name(device) -> str:
    return f"{'cuda' if device.platform == 'gpu' else device.platform}:{device.id}"


def _platform(kind):
    return {"cuda": "gpu"}.get(kind, kind)


def list_devices(device_type=None) -> list[str]:
    """The global devices of one platform (the default one: accelerators, else CPUs)."""
    try:
        return [_name(d) for d in jax.devices(_platform(device_type))]
    except RuntimeError:  # no such platform
        return []


def initialize(job_addresses, num_processes, process_id) -> None:
    coordinator = job_addresses.split(",")[0] if job_addresses else None
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                               process_id=process_id)


def num_processes() -> int:
    return jax.process_count()


def process_id() -> int:
    return jax.process_index()


def to_backend_mesh(mesh) -> Mesh:
    names = mesh.devices.ravel()
    by_name = {}
    for kind in {n.partition(":")[0] for n in names}:
        by_name.update((_name(d), d) for d in jax.devices(_platform(kind)))
    grid = np.empty(len(names), dtype=object)
    grid[:] = [by_name[n] for n in names]
    return Mesh(grid.reshape(mesh.shape), tuple(mesh.axis_names))


def to_backend_layout(layout) -> NamedSharding:
    return NamedSharding(layout.device_mesh.backend_mesh, PartitionSpec(*layout.axes))


def _host(x):
    """A numpy array in the dtype polyops gives it (float64 -> float32 outside x64 mode)."""
    return np.asarray(x, JAX_DTYPES[standardize_dtype(x.dtype)])


def distribute_tensor(x, sharding):
    """``x`` placed as ``sharding``; inside a trace, a sharding constraint."""
    if isinstance(x, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(x, sharding)
    if isinstance(x, np.ndarray):
        x = _host(x)
    elif x.sharding.is_equivalent_to(sharding, x.ndim):
        return x
    return jax.device_put(x, sharding)


distribute_variable = distribute_tensor


def distribute_data_input(x, sharding, batch_dim_name):
    """This process's batch ``x`` as its part of the global array laid out as ``sharding``."""
    if isinstance(x, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(x, sharding)
    if isinstance(x, np.ndarray):
        x = _host(x)
    return jax.make_array_from_process_local_data(sharding, x)
