"""Device meshes, tensor layouts, data and model parallelism, as ``keras.distribution``.

The objects here (`DeviceMesh`, `TensorLayout`, `LayoutMap`, `DataParallel`,
`ModelParallel`) are core's, the same on every backend, and so is their validation: a
mesh that does not match its devices, a layout naming an axis the mesh lacks, a tensor of
the wrong rank or with a dimension its mesh axis does not divide, `initialize` twice.
Each raises before anything changes.  A backend's part is one optional hook,
``Runtime.distribution`` (docs/plugins.md): jax maps meshes and layouts to
``jax.sharding``.  A backend without the hook has one device; a mesh of more, or a
process group of more than one process, raises ValueError naming the backend.

Example:
    >>> from polyops import distribution as dist
    >>> mesh = dist.DeviceMesh((2, 4), ("batch", "model"))           # 8 devices
    >>> layout_map = dist.LayoutMap(mesh)
    >>> layout_map["dense.*kernel"] = (None, "model")
    >>> with dist.ModelParallel(layout_map=layout_map).scope():
    ...     w = polyops.Variable(np.zeros((16, 32), "float32"), name="dense_1/kernel")
"""

from .. import _state
from ._devices import get_device_count as get_device_count
from ._devices import initialize as initialize
from ._devices import list_devices as list_devices
from ._devices import num_processes as num_processes
from ._devices import process_id as process_id
from ._layouts import DeviceMesh as DeviceMesh
from ._layouts import LayoutMap as LayoutMap
from ._layouts import TensorLayout as TensorLayout
from ._placement import _place_variable
from ._placement import distribute_data_input as distribute_data_input
from ._placement import distribute_tensor as distribute_tensor
from ._strategies import DEFAULT_BATCH_DIM_NAME as DEFAULT_BATCH_DIM_NAME
from ._strategies import DataParallel as DataParallel
from ._strategies import Distribution as Distribution
from ._strategies import ModelParallel as ModelParallel
from ._strategies import distribution as distribution
from ._strategies import set_distribution as set_distribution

__all__ = [
    "DataParallel",
    "DeviceMesh",
    "Distribution",
    "LayoutMap",
    "ModelParallel",
    "TensorLayout",
    "distribute_data_input",
    "distribute_tensor",
    "distribution",
    "get_device_count",
    "initialize",
    "list_devices",
    "num_processes",
    "process_id",
    "set_distribution",
]

# Variables made from now on take their layout from the current distribution
_state._DISTRIBUTE = _place_variable
