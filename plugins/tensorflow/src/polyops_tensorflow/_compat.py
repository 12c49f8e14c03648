"""Every private TensorFlow API the plugin uses, read here and only here.

Each is read through `polyops.plugin.private`, which gives the default when a tensorflow
release drops or moves the attribute (or when ``POLYOPS_HIDE_PRIVATE`` names its path:
the tests run the plugin so, all of them hidden, tests/test_compat.py).  Each default is a public-API
fallback: slower or noisier where it must be, never wrong.  The rest of the plugin
imports the names below, never tensorflow's private ones.
"""

from __future__ import annotations

import contextlib
import functools
import threading

import tensorflow as tf

from polyops.plugin import private

PRIVATE = (
    "tensorflow.python.framework.ops:EagerTensor._datatype_enum",
    "tensorflow.python.eager.record:should_record_backprop",
    "tensorflow.python.autograph.core.config",
    "tensorflow.python.eager.polymorphic_function.polymorphic_function:Function",
    "tensorflow.python.eager.polymorphic_function.concrete_function:ConcreteFunction._call_flat",
    "tensorflow.python.ops.control_flow_util:GraphOrParentsInXlaContext",
)


# ----- dtype codes ---------------------------------------------------------------------------
# EagerTensor.dtype is a Python property and tf.DType hashes in Python (~0.6 us a lookup);
# the enum read is a C method (17 ns).  Fallback: no code, so core's fast paths read
# ``x.dtype`` itself (the Runtime default).


def _dtype_code():
    code = private("tensorflow.python.framework.ops:EagerTensor._datatype_enum")
    if code is None:
        return None
    try:  # the class found there must be the eager tensor's own
        probe = tf.constant(1.0)
        return code if code(probe) == probe.dtype.as_datatype_enum else None
    except Exception:
        return None


dtype_code = _dtype_code()


def dtype_codes(dtypes):
    """``{code: canonical name}`` for ``dtypes`` (canonical name -> tf.DType), None without
    ``dtype_code``."""
    if dtype_code is None:
        return None
    return {td.as_datatype_enum: name for name, td in dtypes.items()}


# ----- is a tensor on a gradient tape --------------------------------------------------------
# tensorflow's own test (a tape keeps no public list of what it watches).  Fallback:
# tensorflow has no public way to ask, so the plugin counts the tf.GradientTape contexts
# open in each thread (tapes are per thread in tf too), wrapping the public
# ``GradientTape.__enter__``/``__exit__``, and while one is open treats every float or
# complex tensor as on it: a host computation there raises NotDifferentiableError even on
# a tensor no tape watches (stricter than tensorflow's test), never gives a silent zero
# gradient.  A kernel that runs a host computation on a tensor it cut off the tape says
# so with ``off_tape()``.  A tape entered before this module was imported is not counted.

_should_record_backprop = private("tensorflow.python.eager.record:should_record_backprop")

if _should_record_backprop is not None:

    def on_tape(x) -> bool:
        """Whether a tf.GradientTape records operations on ``x``."""
        return isinstance(x, tf.Tensor) and bool(_should_record_backprop([x]))

    off_tape = contextlib.nullcontext

else:

    def _counting(method, step, tapes):
        @functools.wraps(method)
        def wrapper(self, *args):
            out = method(self, *args)  # counts only a tape that entered (or left) cleanly
            tapes.open = max(0, getattr(tapes, "open", 0) + step)  # 0: tapes from before
            return out

        wrapper._polyops_tapes = tapes  # one count per process, if this module is reloaded
        return wrapper

    _tapes = getattr(tf.GradientTape.__enter__, "_polyops_tapes", None)
    if _tapes is None:
        _tapes = threading.local()
        tf.GradientTape.__enter__ = _counting(tf.GradientTape.__enter__, 1, _tapes)
        tf.GradientTape.__exit__ = _counting(tf.GradientTape.__exit__, -1, _tapes)

    def on_tape(x) -> bool:
        """Whether a tf.GradientTape may record operations on ``x``: a float or complex
        tensor while a tape is open (tensorflow's test is False for other dtypes too)."""
        return (isinstance(x, tf.Tensor) and getattr(_tapes, "open", 0) > 0
                and (x.dtype.is_floating or x.dtype.is_complex))

    @contextlib.contextmanager
    def off_tape():
        """A block that computes on tensors cut off the tapes (tf.stop_gradient): the
        count sees no open tape there.  (tensorflow's own test needs no such hint.)"""
        count = getattr(_tapes, "open", 0)
        _tapes.open = 0
        try:
            yield
        finally:
            _tapes.open = count


# ----- AutoGraph -------------------------------------------------------------------------------


def skip_autograph():
    """Have tf.function's AutoGraph call polyops ops as they are (as it does for keras).

    The public op functions are generated code without source, so AutoGraph
    would try to convert each one, fail, and log a warning per op.  AutoGraph's rules are
    a private global; without it (fallback) those warnings come back, nothing else
    changes: a function AutoGraph cannot convert runs as it is.
    """
    config = private("tensorflow.python.autograph.core.config")
    if config is None:
        return
    try:
        rule = config.DoNotConvert("polyops")
        if not any(r.matches("polyops") for r in config.CONVERSION_RULES):
            config.CONVERSION_RULES = (rule,) + tuple(config.CONVERSION_RULES)
    except Exception:  # a private API: if it moved, only the warnings come back
        pass


# ----- tf.function internals -----------------------------------------------------------------

_Function = private("tensorflow.python.eager.polymorphic_function.polymorphic_function:Function")


def quiet_retracing(f):
    """``f`` (a tf.function) without tf's "frequent retracing" warning: a private flag of
    the instance, checked through its private class.  Fallback: the warning is back."""
    if _Function is not None and isinstance(f, _Function) and hasattr(
            f, "_omit_frequent_tracing_warning"):
        f._omit_frequent_tracing_warning = True
    return f


_CALL_FLAT = private(
    "tensorflow.python.eager.polymorphic_function.concrete_function:ConcreteFunction._call_flat")


def flat_call(concrete):
    """``concrete._call_flat`` (a ConcreteFunction's flat call, gradient tape included), or
    None: the caller then goes through the tf.function's own dispatch (slower, same result)."""
    if _CALL_FLAT is None:
        return None
    return getattr(concrete, "_call_flat", None)


# ----- is the trace compiled by XLA ----------------------------------------------------------
# ``tf.function(jit_compile=True)`` (polyops.jit) traces inside an XLA context; XLA's
# lowerings of some ops already give NumPy's special values (softmax: NaN along an axis
# holding +inf or NaN), so a kernel can leave its guard out of such a graph.  Fallback:
# never in XLA, so the guards stay (a larger graph, the same values).

_in_xla = private("tensorflow.python.ops.control_flow_util:GraphOrParentsInXlaContext")


def in_xla() -> bool:
    """Whether the graph being traced is compiled by XLA (False eagerly)."""
    if _in_xla is None or tf.executing_eagerly():
        return False
    try:
        return bool(_in_xla(tf.compat.v1.get_default_graph()))
    except Exception:  # a private API: if it changed, keep the guards
        return False
