"""The private jax APIs this plugin uses, each read here only and with a public fallback.

Each path goes through `polyops.plugin.private`, which gives the fallback when jax no
longer has the attribute or when ``POLYOPS_HIDE_PRIVATE`` names it (the tests run the
plugin that way, all of them hidden, tests/test_compat.py): a jax release that moves one costs speed, not
correctness.  ``PRIVATE`` lists every path read here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from polyops.plugin import private

PRIVATE = (
    "jax._src.interpreters.ad:JVPTracer",
    "jax._src.interpreters.ad:LinearizeTracer",
    "jax._src.core:trace_ctx",
    "jax._src.array:ArrayImpl",
)

_Tracer = jax.core.Tracer


# ----- autodiff tracers ------------------------------------------------------------------
# The tracers of jax.jvp (JVPTracer) and of jax.linearize / grad / vjp (LinearizeTracer):
# a value that is one is being differentiated.  jax exports neither class publicly; the
# fallback asks jax.jvp and jax.linearize which class they hand a function, which is
# exactly the class the private path names (one tiny eager trace each, once).


def _tracer_type(transform):
    """The class of the tracer ``transform(f)`` passes to ``f``."""
    seen = []

    def f(x):
        seen.append(type(x))
        return x

    transform(f)
    return seen[0]


JVPTracer = private(PRIVATE[0]) or _tracer_type(lambda f: jax.jvp(f, (0.0,), (1.0,)))
LinearizeTracer = private(PRIVATE[1]) or _tracer_type(lambda f: jax.linearize(f, 0.0))
AD_TRACERS = (JVPTracer, LinearizeTracer)

# The concrete array class.  Read by name, not from a value: making any array starts
# XLA's backend, and ``jax.distributed.initialize`` (polyops.distribution.initialize)
# must run before that; the fallback (a transfer) starts it.
ARRAY_IMPL = private(PRIVATE[3])


# ----- is jax computing on concrete values here? ------------------------------------------

_trace_ctx = private(PRIVATE[2])
_CONCRETE_TRACES = frozenset(("EvalTrace", "JVPTrace", "LinearizeTrace"))


def _concrete_from_trace(*trees) -> bool:
    # the current trace and its parents, from jax's trace context (trees are not needed)
    t = _trace_ctx.trace
    while t is not None and type(t).__name__ in _CONCRETE_TRACES:
        if type(t).__name__ == "EvalTrace":
            return True
        t = getattr(t, "parent_trace", None)
    return False


def _concrete_from_values(*trees) -> bool:
    # jax has no public "which transformation is running" test: two public probes.  An op
    # on a fresh numpy constant is staged (gives a Tracer) under jit and eval_shape; an
    # argument's stop_gradient, which strips the autodiff tracers, is still a Tracer under
    # vmap or jit of it.  A vmap whose batched values reach the loop only through a
    # closure is missed: the reference loop then runs on the batched values, the same
    # results for map/scan/fori_loop and a clear error (a traced bool) for a while_loop
    # condition that depends on them, never wrong values.
    if isinstance(jax.lax.neg(np.float32(1)), _Tracer):
        return False
    for x in jax.tree_util.tree_leaves(trees):
        if isinstance(x, _Tracer):
            if not jnp.issubdtype(x.dtype, jnp.inexact):
                x = x.astype(jnp.float32)  # stop_gradient leaves ints as they are
            if isinstance(jax.lax.stop_gradient(x), _Tracer):
                return False
    return True


# concrete(*trees): whether jax computes on concrete values here: no transformation, or
# only autodiff (JVP/linearize) over eager values; not under jit (staging) or vmap
# (batches).  ``trees``: the values the caller is about to loop or branch on.
concrete = _concrete_from_trace if _trace_ctx is not None else _concrete_from_values
