"""Array API 2024.12 namespaces over the polyops ops of any backend.

Example:
    >>> import polyops.array_api
    >>> xp = polyops.array_api.namespace("torch")
    >>> x = xp.linspace(0.0, 1.0, 5)
    >>> xp.sum(x * x).dtype
    polyops.array_api.float64

Each backend's namespace is a thin view of the same op records and kernels as
``polyops.ops`` (docs/array_api.md): its functions run the ops with that backend in
effect and in 64-bit mode, on `Array` objects that wrap the backend's tensors.
"""

from ._array import Array as Array
from ._array import Device as Device
from ._dtypes import DType as DType
from ._namespace import API_VERSION as API_VERSION
from ._namespace import namespace as namespace

__all__ = ["API_VERSION", "Array", "DType", "Device", "namespace"]
