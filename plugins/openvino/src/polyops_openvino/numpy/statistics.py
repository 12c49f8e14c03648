"""OpenVINO kernels of ``polyops.ops.numpy.statistics``: none; core's references compose
these ops (median, quantile, nanmean...) from the primitives."""
