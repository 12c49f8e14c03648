"""``__array_namespace_info__``: what the namespace of a backend offers."""

from __future__ import annotations

from ._dtypes import DTYPES, KINDS

# the most dimensions each framework's tensors take (None: no documented limit)
_MAX_DIMENSIONS = {"numpy": 64, "jax": 64, "torch": 64, "tensorflow": 254, "openvino": 64}


class Info:
    """The inspection object of one namespace (``xp.__array_namespace_info__()``)."""

    __slots__ = ("_c",)

    def __init__(self, c):
        self._c = c

    def capabilities(self) -> dict:
        """Boolean indexing and data-dependent shapes are eager-only (they need values)."""
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": _MAX_DIMENSIONS.get(self._c.name),
        }

    def default_device(self):
        return self._c.device

    def devices(self) -> list:
        return [self._c.device]

    def default_dtypes(self, *, device=None) -> dict:
        c = self._c
        c.check_device(device, "default_dtypes")
        return {
            "real floating": DTYPES[c.default_float],
            "complex floating": DTYPES[c.default_complex] if c.default_complex else None,
            "integral": DTYPES[c.default_int],
            "indexing": DTYPES[c.default_int],
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        c = self._c
        c.check_device(device, "dtypes")
        if kind is None:
            names = c.dtypes
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = []
            for k in kinds:
                if isinstance(k, str):
                    if k not in KINDS:
                        raise ValueError(f"dtypes: expected a kind in {sorted(KINDS)} or a "
                                         f"dtype, got {k!r}")
                    names += [n for n in KINDS[k] if n in c.dtypes]
                else:
                    names += [n for n in c.dtypes if DTYPES[n] is k]
        return {n: DTYPES[n] for n in c.dtypes if n in names}

    def __repr__(self):
        return f"<array namespace info of polyops.array_api.{self._c.name}>"


def install(ns, c):
    info = Info(c)

    def __array_namespace_info__():
        """The namespace's inspection object: capabilities, devices and dtypes."""
        return info

    ns.__array_namespace_info__ = __array_namespace_info__
