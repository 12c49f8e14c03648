"""What the distributed scenario scripts share (tests/_distributed_jax.py, _tf.py,
_torch.py): the MLP's names, data and training step, and errors as data."""

from __future__ import annotations

import numpy as np
import polyops
from polyops import ops

NAMES = ("dense_1/kernel", "dense_1/bias", "dense_2/kernel", "dense_2/bias")
STEPS = 5
BATCH = 32


def data():
    """(initial parameters by name, x, y) of a 16-32-4 MLP, a batch of `BATCH`."""
    rng = np.random.default_rng(0)
    params = {"dense_1/kernel": rng.normal(size=(16, 32)).astype("float32") * 0.3,
              "dense_1/bias": np.zeros(32, "float32"),
              "dense_2/kernel": rng.normal(size=(32, 4)).astype("float32") * 0.3,
              "dense_2/bias": np.zeros(4, "float32")}
    x = rng.normal(size=(BATCH, 16)).astype("float32")
    y = rng.normal(size=(BATCH, 4)).astype("float32")
    return params, x, y


def sgd_step(variables):
    """``step(x, y) -> loss``: one SGD step (value_and_grad, Variable.assign) of the MLP
    whose parameters are ``variables`` (in `NAMES` order)."""

    def step(x, y):
        def loss_fn(params):
            w1, b1, w2, b2 = params
            h = ops.relu(ops.matmul(x, w1) + b1)
            return ops.mean((ops.matmul(h, w2) + b2 - y) ** 2)

        loss, grads = polyops.value_and_grad(loss_fn)([v.value for v in variables])
        for v, g in zip(variables, grads, strict=True):
            v.assign(v.value - 0.1 * g)
        return loss

    return step


def error(fn):
    """``fn()``'s exception as ``[type name, message]``, or None."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the test asserts the type)
        return [type(exc).__name__, str(exc)]
    return None
