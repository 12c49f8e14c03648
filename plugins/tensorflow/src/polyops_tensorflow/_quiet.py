"""``import tensorflow`` without the C++ log lines TF_CPP_MIN_LOG_LEVEL hides.

TensorFlow's shared libraries log through absl as they load, before TensorFlow reads
TF_CPP_MIN_LOG_LEVEL: "oneDNN custom operations are on" (twice) and absl's notice that
logging is not initialized come at any level, on every process that selects the backend.
The level is 2 (warnings and errors hidden) unless the user set it; at 0 nothing is
dropped.

Every module of the plugin imports tensorflow after this one (`core` imports it first).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

# TensorFlow's C++ logs: warnings and errors only, unless the user chose a level
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# absl's log line ("I0101 12:00:00.000000  123 port.cc:153] ..."): its severity letter
_ABSL_LINE = re.compile(rb"([IWEF])\d{4} \d\d:\d\d:\d+\.\d+ +\d+ \S+:\d+\] ")
_ABSL_NOTICE = b"WARNING: All log messages before absl::InitializeLog() is called"


def _import_tensorflow():
    """``import tensorflow`` with the C-level stderr in a temporary file: the lines below
    the level are dropped, the others written back."""
    try:
        level = int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0"))
    except ValueError:
        level = 0
    if level <= 0 or "tensorflow" in sys.modules:
        import tensorflow

        return tensorflow
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            import tensorflow
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            kept = []
            for line in tmp.read().splitlines(keepends=True):
                m = _ABSL_LINE.match(line)
                if not (m and "IWEF".index(m[1].decode()) < level or line.startswith(_ABSL_NOTICE)):
                    kept.append(line)
            if kept:
                os.write(2, b"".join(kept))
    return tensorflow


tf = _import_tensorflow()
