"""Known failures, each with its reason.  Keys: (case id as in the test ids, backend).

Every entry is applied as a strict xfail: when the case starts passing, the test
fails until the entry is removed.  The list must stay short and honest.
"""

XFAILS: dict[tuple[str, str], str] = {}


def mark(request_or_item, case: str, backend: str):
    import pytest

    reason = XFAILS.get((case, backend))
    if reason:
        request_or_item.applymarker(pytest.mark.xfail(reason=reason, strict=True))
