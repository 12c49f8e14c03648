"""Kernels of the ``numpy`` op family: one module-level callable per op, named after it.

See docs/kernels.md for what each kernel receives (tensors already promoted,
axes canonical) and must return.  Example:

    def add(x1, x2):
        return myframework.add(x1, x2)
"""
