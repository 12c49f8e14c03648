"""NumPy kernels of ``polyops.ops.numpy.manipulation``: none; this backend uses core's
references (written with polyops ops, so they run on the kernels of `base`)."""
