"""TensorFlow runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from polyops.plugin import Runtime  # noqa: E402

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
)
TF_DTYPES = {name: tf.as_dtype(name) for name in _NAMES}
NP_DTYPES = {name: np.dtype(name) for name in _NAMES if name != "bfloat16"}
NP_DTYPES["bfloat16"] = np.dtype(ml_dtypes.bfloat16)

_INT_BOUNDS = {td: (td.min, td.max) for td in TF_DTYPES.values() if td.is_integer}
EagerTensor = type(tf.constant(1.0))
_TF_TYPES = (tf.Tensor, tf.Variable)
_PY_SCALARS = frozenset({bool, int, float, complex})
_BF16 = tf.bfloat16


def _cast(x, td):
    if x.dtype is _BF16 and td.is_integer:
        # tf's bfloat16 -> int kernels saturate (and differ from tf's own float32 ->
        # int cast); every bfloat16 is exact in float32, which casts as NumPy does
        x = tf.cast(x, tf.float32)
    return tf.cast(x, td)


def convert_to_tensor(x, dtype):
    td = TF_DTYPES[dtype]
    if isinstance(x, _TF_TYPES):
        if x.dtype == td:
            return tf.convert_to_tensor(x) if isinstance(x, tf.Variable) else x
        return _cast(x, td)
    if type(x) in _PY_SCALARS:
        bounds = _INT_BOUNDS.get(td)
        # the fast way, unless tf would wrap an out-of-range int (NumPy raises), or x
        # is a float zero: tf's eager scalar cache keys 0.0 and -0.0 alike, so after
        # tf.constant(0.0) a tf.constant(-0.0) is +0.0 (and 1 / -0.0 gives +inf)
        if (bounds is None or type(x) is not int or bounds[0] <= x <= bounds[1]) and (
            x != 0 or type(x) is not float
        ):
            try:
                return tf.constant(x, td)
            except (TypeError, ValueError):  # NumPy's rules decide (2.5 -> int32...)
                pass
    if not isinstance(x, np.ndarray):
        try:
            # NumPy's own conversion rules, as in the numpy backend.
            x = np.asarray(x, dtype=NP_DTYPES[dtype])
        except (TypeError, ValueError):
            if not hasattr(x, "numpy"):
                raise
            x = np.asarray(x.numpy())  # another framework's tensor
    if x.dtype != NP_DTYPES[dtype]:
        x = x.astype(NP_DTYPES[dtype])
    return tf.constant(x, dtype=td)


def convert_to_numpy(x):
    return np.asarray(x.numpy())


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``tf.autodiff.ForwardAccumulator``."""
    primals, tangents = tuple(primals), tuple(tangents)
    with tf.autodiff.ForwardAccumulator(primals=primals, tangents=tangents) as acc:
        out = fun(*primals)
        aux = None
        if has_aux:
            out, aux = out
        tout = tf.nest.map_structure(
            lambda o: acc.jvp(o, unconnected_gradients=tf.UnconnectedGradients.ZERO), out)
    return (out, tout, aux) if has_aux else (out, tout)


RUNTIME = Runtime(
    name="tensorflow",
    version=tf.__version__,
    tensor_types=(EagerTensor, tf.Tensor, tf.Variable),
    dtypes={td: name for name, td in TF_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
)


def cast(x, dtype):
    return _cast(x, TF_DTYPES[dtype])


def _skip_autograph():
    """Have tf.function's AutoGraph call polyops ops as they are (as it does for keras).

    The public op functions are generated code without source, so AutoGraph
    would try to convert each one, fail, and log a warning per op.
    """
    try:
        from tensorflow.python.autograph.core import config

        rule = config.DoNotConvert("polyops")
        if not any(getattr(r, "_prefix", None) == "polyops" for r in config.CONVERSION_RULES):
            config.CONVERSION_RULES = (rule,) + tuple(config.CONVERSION_RULES)
    except Exception:  # a private API: if it moved, only the warnings come back
        pass


_skip_autograph()
