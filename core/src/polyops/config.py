"""Global numeric configuration: floatx and epsilon, as in ``keras.config``."""

from __future__ import annotations

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
