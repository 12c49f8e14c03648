"""Global numeric configuration: floatx and epsilon, as in ``keras.config``; 64-bit mode."""

from __future__ import annotations

import contextlib
import os
import threading

_FLOATX = "float32"
_EPSILON = 1e-7


def floatx() -> str:
    """The default float dtype (``"float32"`` unless changed with `set_floatx`)."""
    return _FLOATX


def set_floatx(value: str) -> None:
    """Set the default float dtype: one of float16, bfloat16, float32, float64."""
    global _FLOATX
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(
            f"set_floatx: expected one of float16, bfloat16, float32, float64, got {value!r}"
        )
    _FLOATX = value


def epsilon() -> float:
    """The fuzz factor used in numeric expressions (1e-7 by default)."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    """Set the fuzz factor used in numeric expressions."""
    global _EPSILON
    _EPSILON = float(value)


_IMAGE_DATA_FORMAT = "channels_last"


def image_data_format() -> str:
    """The default ``data_format`` of the conv, pool and image ops ("channels_last")."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(value: str) -> None:
    """Set the default ``data_format``: "channels_last" or "channels_first"."""
    global _IMAGE_DATA_FORMAT
    if value not in ("channels_last", "channels_first"):
        raise ValueError(
            f"set_image_data_format: expected 'channels_last' or 'channels_first', got {value!r}"
        )
    _IMAGE_DATA_FORMAT = value


def dtype_policy():
    """The global `polyops.DTypePolicy` ("float32" unless set; follows floatx until set)."""
    from ._state import dtype_policy as get

    return get()


def set_dtype_policy(policy) -> None:
    """Set the global dtype policy: a `polyops.DTypePolicy` or its name ("mixed_float16"...).

    Variables created from Python floats are stored in its ``variable_dtype``;
    ``polyops.AutocastScope(policy.compute_dtype)`` reads them in its compute dtype.
    """
    from ._state import set_dtype_policy as set_

    set_(policy)


# -- 64-bit mode -------------------------------------------------------------------

_X64_ENV = "POLYOPS_ENABLE_X64"
_X64 = os.environ.get(_X64_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def is_x64_enabled() -> bool:
    """Whether 64-bit mode is on (`enable_x64`; off unless ``POLYOPS_ENABLE_X64=1``)."""
    return _X64


def enable_x64() -> None:
    """Keep 64-bit dtypes: int64, uint64, float64 and complex128 results stay 64-bit.

    By default polyops follows Keras's jax semantics on every backend: results that the
    promotion lattice makes 64-bit are demoted to 32-bit, and a float64 NumPy array
    converts to floatx.  In 64-bit mode nothing is demoted, on every backend (jax's
    ``jax_enable_x64`` is switched with it).  Python floats still default to floatx and
    Python ints to int32: only values that carry a 64-bit dtype keep it.

    OpenVINO's CPU plugin has no 64-bit arithmetic: its float64 results have float64
    dtypes and float32 precision, and int64/uint64 compute in 32 bits (docs/numerics.md).

    Example:
        >>> import numpy as np
        >>> from polyops import ops
        >>> with x64_scope():
        ...     print(ops.exp(np.zeros(2)).dtype)
        float64
    """
    _set_x64(True)


def disable_x64() -> None:
    """Back to the default: 64-bit results demote to 32-bit (see `enable_x64`)."""
    _set_x64(False)


@contextlib.contextmanager
def x64_scope(enabled: bool = True):
    """A ``with`` block in (``enabled=True``) or out of 64-bit mode; the mode before it
    comes back on exit.  The mode is process-wide, like floatx: threads share it."""
    if type(enabled) is not bool:
        raise TypeError(f"x64_scope: expected enabled=True or False, got {enabled!r}")
    before = _X64
    _set_x64(enabled)
    try:
        yield
    finally:
        _set_x64(before)


class _Override(threading.local):
    x64 = None  # this thread's forced mode (core's fast-path tables), else None


_OVERRIDE = _Override()


def _x64() -> bool:
    """The mode promotion applies now: this thread's forced one, else the global one."""
    forced = _OVERRIDE.x64
    return _X64 if forced is None else forced


@contextlib.contextmanager
def _forced_x64(enabled: bool):
    """Promotion in one mode on this thread only, whatever the global mode (core builds its
    fast-path tables in the default mode, while other threads go on in theirs)."""
    before = _OVERRIDE.x64
    _OVERRIDE.x64 = enabled
    try:
        yield
    finally:
        _OVERRIDE.x64 = before


def _set_x64(enabled: bool) -> None:
    global _X64
    if enabled == _X64:
        return
    before, _X64 = _X64, enabled
    from . import _registry

    try:
        _registry.x64_changed(enabled)
    except BaseException:  # a backend's hook failed (or its warning is an error): undo
        _X64 = before
        _registry.x64_changed(before)
        raise
