"""OpenVINO kernels of ``polyops.ops.numpy.products``: none; core's references compose
these ops (outer, kron, correlate, windows...) from the primitives."""
