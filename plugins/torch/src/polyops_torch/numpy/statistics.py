"""PyTorch kernels of `polyops.ops.numpy.statistics`: none yet.

The order statistics and NaN-ignoring reductions (median, quantile, nanmean...) run
core's references, composed of the kernels of the other submodules.
"""
