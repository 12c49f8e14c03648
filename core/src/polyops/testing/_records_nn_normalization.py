"""Op records of `polyops.ops.nn.normalization` (see `polyops.testing._records` for the fields)."""

from __future__ import annotations

import numpy as np  # noqa: F401

from ._records import OpRecord  # noqa: F401

RECORDS: list = []
