"""Neural-network ops (``keras.ops.nn``), one submodule per kind of op.

* `activations`: relu, gelu, softmax, sparsemax... (elementwise or along an axis);
* `conv`: conv, depthwise/separable/transposed conv, pools, unfold/fold, depth_to_space;
* `losses`: one_hot, multi_hot, the crossentropies, ctc_loss and ctc_decode;
* `normalization`: moments, batch/layer/RMS normalization, normalize, psnr,
  dot_product_attention, polar.

Ops are declared as in `polyops.ops.numpy` (see its docstring): the decorated
function is the shape/dtype rule and fixes the public signature, and
``@op.reference`` gives a reference written with `polyops.ops` calls only
(``@op.host_reference`` for a marked host computation, eager only).
"""

from .._lazy import attach as _attach

_attach(globals())  # names load on first use (see polyops.ops._lazy)
