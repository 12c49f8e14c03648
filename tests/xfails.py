"""Known failures, each with its reason.  Keys: (case id as in the test ids, backend).

Every entry is applied as a strict xfail: when the case starts passing, the test
fails until the entry is removed.  The list must stay short and honest.
"""

XFAILS: dict[tuple[str, str], str] = {
    ("view_as_complex-complex64", "openvino"):
        "openvino has no complex dtype: view_as_complex raises TypeError naming the op",
    ("view_as_real-complex64", "openvino"):
        "openvino has no complex dtype: a complex input cannot become an openvino tensor "
        "(TypeError naming the dtype)",
    **{(case, "openvino"): "polar returns complex64 and openvino has no complex dtype "
                           "(TypeError naming polar)"
       for case in ("polar-float32", "polar-float16", "polar-broadcast-float32")},
    ("eig-float32", "openvino"):
        "eig returns complex64 and openvino has no complex dtype (TypeError naming eig)",
}


def mark(request_or_item, case: str, backend: str):
    import pytest

    reason = XFAILS.get((case, backend))
    if reason:
        request_or_item.applymarker(pytest.mark.xfail(reason=reason, strict=True))
