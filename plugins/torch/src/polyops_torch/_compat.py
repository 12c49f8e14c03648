"""Every private PyTorch API the plugin uses, read here and only here.

Each is read through `polyops.plugin.private`, which gives the default when a torch
release drops or moves the attribute (or when ``POLYOPS_HIDE_PRIVATE`` names its path:
the tests run the plugin so, all of them hidden, tests/test_compat.py).  Each default is a public-API
fallback: slower where it must be, never wrong.  The rest of the plugin imports the
names below, never torch's private ones.
"""

from __future__ import annotations

import contextlib
import functools
import inspect

import torch

from polyops import plugin as _plugin
from polyops.plugin import private

PRIVATE = (
    "torch._C:_is_torch_function_mode_enabled",
    "torch.compiler:_compile_session_context",
    "torch.utils._pytree",
    "torch._C._functorch:is_functorch_wrapped_tensor",
)


# ----- torch function modes ----------------------------------------------------------------
# Whether a torch function mode is on (torch.device as a context manager, which
# polyops.device uses, is one): ~40 ns, where torch.get_default_device() takes ~3 us.
# Fallback: always "maybe", so convert_to_tensor asks get_default_device() every time,
# which is right with or without a mode (cpu without one).


def _always():
    return True


is_function_mode_enabled = private("torch._C:_is_torch_function_mode_enabled", _always)


# ----- torch.func transforms ----------------------------------------------------------------
# Whether a tensor is wrapped by a torch.func transform (grad, jvp, vmap: polyops' jvp, and
# whoever calls polyops inside one), where ``requires_grad`` says nothing of forward mode.
# Kernels that call a function without a derivative (torch.unique) take a differentiable
# path for those.  Fallback: always "wrapped", the differentiable path.


def _wrapped(x):
    return True


is_wrapped = private("torch._C._functorch:is_functorch_wrapped_tensor", _wrapped)


# ----- compile sessions ----------------------------------------------------------------------
# ``torch.compiler.is_compiling()`` is True inside ``_compile_session_context()``: the jit
# hook traces with make_fx inside one, so the kernels take the paths that agree with
# inductor (float -> int8 casts saturate there where eager CPU torch wraps).  Without it a
# plain context would trace the eager paths and compile answers that differ from eager
# ones, so the fallback keeps a flag of its own, which `is_compiling` reads besides
# torch's (one more Python frame per read).

_compile_session = private("torch.compiler:_compile_session_context")

if _compile_session is not None:
    compile_session = _compile_session
    is_compiling = torch.compiler.is_compiling
else:
    _tracing = [False]

    @contextlib.contextmanager
    def compile_session():
        old = _tracing[0]
        _tracing[0] = True
        try:
            yield
        finally:
            _tracing[0] = old

    def is_compiling() -> bool:
        return _tracing[0] or torch.compiler.is_compiling()


# ----- pytrees -------------------------------------------------------------------------------
# torch's pytree functions (torch.utils.pytree is not public yet).  Fallback: polyops' own
# trees of lists, tuples, namedtuples and dicts, wrapped to torch's argument order; there
# None is a leaf (torch makes it an empty node), which the callers allow for.  One path for
# the whole module, so that flatten and unflatten always come from the same place.

_pytree = private("torch.utils._pytree")

if _pytree is not None:
    tree_flatten = _pytree.tree_flatten
    tree_leaves = _pytree.tree_leaves
    tree_map = _pytree.tree_map
    tree_unflatten = _pytree.tree_unflatten
else:
    tree_flatten = _plugin.tree_flatten
    tree_map = _plugin.tree_map

    def tree_leaves(tree):
        return _plugin.tree_flatten(tree)[0]

    def tree_unflatten(leaves, treedef):
        return _plugin.tree_unflatten(treedef, leaves)


# ----- make_fx -------------------------------------------------------------------------------
# The jit hook traces on fake tensors with make_fx's private keyword
# ``_allow_non_fake_inputs``, so that the traced function may use real tensors it was
# not given (constants it closes over) as constants.  A keyword is no attribute that
# `private` can read: its presence is read from make_fx's signature instead.  Without it
# such a trace raises, and core runs that function eagerly (JitFallbackWarning): slower,
# never wrong.


@functools.cache
def _allows_non_fake_inputs() -> bool:
    from torch.fx.experimental.proxy_tensor import make_fx

    return "_allow_non_fake_inputs" in inspect.signature(make_fx).parameters


def make_fx_fake(fn):
    """``make_fx(fn)`` tracing on fake tensors, real constant tensors allowed where torch
    lets it."""
    from torch.fx.experimental.proxy_tensor import make_fx

    if _allows_non_fake_inputs():
        return make_fx(fn, tracing_mode="fake", _allow_non_fake_inputs=True)
    return make_fx(fn, tracing_mode="fake")
