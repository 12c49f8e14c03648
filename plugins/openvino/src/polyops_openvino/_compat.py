"""Every private OpenVINO API the plugin uses, read here and only here.

Each is read through `polyops.plugin.private` and has a public-API fallback, so an
OpenVINO release that moves it (or ``POLYOPS_HIDE_PRIVATE``) costs speed, not correctness.
"""

from __future__ import annotations

from polyops.plugin import private

PRIVATE = ("openvino._pyopenvino:InferRequest.infer",)


def _public_infer(request, inputs, share_outputs, decode_strings):
    """The public ``InferRequest.infer``: the same results in the model's output order,
    slower by the data dispatcher and the OVDict it wraps around the raw call."""
    return request.infer(inputs, share_inputs=False, share_outputs=share_outputs,
                         decode_strings=decode_strings)


# The compiled request's own infer, ``request_infer(request, {index: ov.Tensor},
# share_outputs, decode_strings)``: a dict of the outputs (fresh numpy arrays when
# share_outputs is False) in the model's output order, without the public method's
# dispatcher and OVDict.
request_infer = private("openvino._pyopenvino:InferRequest.infer", _public_infer)
