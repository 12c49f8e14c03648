"""NumPy kernels for the ``numpy`` op family, one submodule per submodule of core's
``polyops.ops.numpy`` (a kernel lives where its op is defined):

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum;
* `elementwise`: transcendental and arithmetic functions (arctan2, log1p, gcd...);
* `logic`: predicates (isnan, isclose...), bitwise ops and shifts, complex parts, view;
* `indexing`: none (core's references);
* `manipulation`: none (core's references);
* `sorting`: argsort, sort, search and count (unique, searchsorted, cumsum...);
* `statistics`: none (core's references);
* `products`: tensor products, cross, trapezoid, correlate, windows.

`_common` holds the helpers several of them share.  Kernels take the op's arguments
positionally; tensors arrive as ndarrays already promoted, axes canonical (None or a tuple
of non-negative ints), dtypes as canonical strings.  A kernel keeps the input dtype unless
the op says otherwise.
"""
