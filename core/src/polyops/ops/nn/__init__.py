"""Neural-network ops (``keras.ops.nn``), one submodule per kind of op.

* `activations`: relu, gelu, softmax, sparsemax... (elementwise or along an axis);
* `conv`: conv, depthwise/separable/transposed conv, pools, unfold/fold, depth_to_space;
* `losses`: one_hot, multi_hot, the crossentropies, ctc_loss and ctc_decode;
* `normalization`: moments, batch/layer/RMS normalization, normalize, psnr,
  dot_product_attention, polar.

Ops are declared as in `polyops.ops.numpy` (see its docstring): the decorated
function is the shape/dtype rule and fixes the public signature, and
``@op.reference`` gives a reference written with `polyops.ops` calls only
(``@op.host_reference`` for a marked host computation, eager only).  The import
order below fixes the op indices.
"""

from . import activations, conv, losses, normalization  # noqa: F401
from . import conv as _conv  # (the module: ``conv`` the function shadows it below)
from .activations import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += activations.__all__
__all__ += _conv.__all__
__all__ += losses.__all__
__all__ += normalization.__all__
