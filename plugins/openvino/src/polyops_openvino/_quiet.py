"""``import openvino`` without the telemetry it sends on import, unless the user opted in.

Importing openvino sends a telemetry event from a forked process (``multiprocessing`` with
the default start method), even when nobody consented (no consent file).  With jax loaded
the fork prints jax's "os.fork() was called ... JAX is multithreaded" warning, and offline
the child waits out its 3 s timeout.  openvino falls back to a stub when
``openvino_telemetry`` cannot be imported: the import here hides it.  A user who opted in
(``opt_in_out --opt_in``) gets openvino's telemetry as usual.

Every module of the plugin imports openvino after this one (`core` imports it first).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _telemetry_accepted() -> bool:
    """Whether the user opted in to OpenVINO's telemetry (``opt_in_out --opt_in`` writes
    "1" to its consent file)."""
    if sys.platform == "win32":
        base = Path(os.path.expandvars("$LOCALAPPDATA")) / "Intel Corporation"
    else:
        base = Path.home() / "intel"
    try:
        return (base / "openvino_telemetry").read_text().strip() == "1"
    except OSError:
        return False


def _import_openvino():
    """``import openvino``; ``openvino_telemetry`` hidden unless the user opted in."""
    if "openvino" in sys.modules or _telemetry_accepted():
        import openvino

        return openvino
    missing = object()
    before = sys.modules.get("openvino_telemetry", missing)
    sys.modules["openvino_telemetry"] = None  # an ImportError for `import openvino_telemetry`
    try:
        import openvino
    finally:
        if before is missing:
            del sys.modules["openvino_telemetry"]
        else:
            sys.modules["openvino_telemetry"] = before
    return openvino


openvino = _import_openvino()
