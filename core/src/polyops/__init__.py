"""polyops: the Keras 3 ops API on any array framework, through backend plugins.

Example:
    >>> import polyops
    >>> from polyops import ops
    >>> ops.sum(ops.ones((2, 3)), axis=1)      # on the default backend (numpy)
    >>> polyops.set_backend("torch")           # same code, torch tensors
"""

from . import config as config
from ._dtypes import result_type as result_type
from ._dtypes import standardize_dtype as standardize_dtype
from ._function import Function as Function
from ._op import EagerOnlyError as EagerOnlyError
from ._op import IndexOutOfRangeError as IndexOutOfRangeError
from ._op import KernelError as KernelError
from ._op import MissingKernelError as MissingKernelError
from ._op import NotDifferentiableError as NotDifferentiableError
from ._operation import Operation as Operation
from ._registry import BackendLoadError as BackendLoadError
from ._registry import BackendNotFoundError as BackendNotFoundError
from ._registry import PolyopsPluginWarning as PolyopsPluginWarning
from ._registry import available_backends as available_backends
from ._registry import backend as backend
from ._registry import register_backend as register_backend
from ._registry import set_backend as set_backend
from ._registry import use_backend as use_backend
from ._shapes import broadcast_shapes as broadcast_shapes
from ._state import AutocastScope as AutocastScope
from ._state import DTypePolicy as DTypePolicy
from ._state import Variable as Variable
from ._transforms import device as device
from ._transforms import devices as devices
from ._transforms import disable_jit as disable_jit
from ._transforms import JitFallbackWarning as JitFallbackWarning
from ._transforms import grad as grad
from ._transforms import jit as jit
from ._transforms import value_and_grad as value_and_grad
from ._symbolic import SymbolicTensor as SymbolicTensor

__version__ = "0.1.0"

_LAZY = ("ops", "random", "testing", "distribution")


def __getattr__(name):
    # The op families (335 op definitions) load on first use of ``polyops.ops`` or
    # ``polyops.random``, not at ``import polyops``: importing stays close to importing numpy.
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "AutocastScope",
    "BackendLoadError",
    "BackendNotFoundError",
    "DTypePolicy",
    "EagerOnlyError",
    "JitFallbackWarning",
    "Function",
    "IndexOutOfRangeError",
    "KernelError",
    "MissingKernelError",
    "NotDifferentiableError",
    "Operation",
    "PolyopsPluginWarning",
    "SymbolicTensor",
    "Variable",
    "available_backends",
    "backend",
    "broadcast_shapes",
    "config",
    "device",
    "devices",
    "disable_jit",
    "distribution",
    "grad",
    "jit",
    "ops",
    "random",
    "register_backend",
    "result_type",
    "set_backend",
    "standardize_dtype",
    "use_backend",
    "value_and_grad",
]
