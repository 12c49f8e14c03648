"""Kernels of the ``nn`` op family (optional: core has references for relu, sigmoid, softmax)."""
