"""Testing helpers for polyops and its backends: the op table and a conformance check.

Example:
    >>> from polyops.testing import check_backend
    >>> print(check_backend("numpy").summary())
"""

from ._check import Report as Report
from ._check import assert_case as assert_case
from ._check import assert_reference_matches as assert_reference_matches
from ._check import call as call
from ._check import check_backend as check_backend
from ._check import missing_requirements as missing_requirements
from ._check import run_eager as run_eager
from ._check import specs as specs
from ._check import symbolic_call as symbolic_call
from ._records import RECORDS as RECORDS
from ._records import OpRecord as OpRecord
from ._records import case_id as case_id
from ._records import cases as cases
from ._records import expected as expected
from ._records import make_inputs as make_inputs
from ._records import tolerance as tolerance

__all__ = [
    "OpRecord", "RECORDS", "Report", "assert_case", "assert_reference_matches", "call", "case_id", "cases", "check_backend",
    "expected", "missing_requirements", "make_inputs", "run_eager", "specs", "symbolic_call", "tolerance",
]
