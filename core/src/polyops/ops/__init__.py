"""All ops, flat as in ``keras.ops``, and by family (`polyops.ops.numpy`, ``.nn``, ``.core``,
``.math``, ``.linalg``, ``.image``, ``.random``).  Image ops are not flat:
``polyops.ops.image.resize``, as ``keras.ops.image.resize``; nor are the stateless random
ops (``polyops.ops.random``), whose Keras API is `polyops.random`.

Names load on first use, one op module at a time (see `polyops.ops._lazy`)."""

from ._lazy import attach as _attach

_attach(globals())
