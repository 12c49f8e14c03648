"""JAX kernels for the ``numpy`` op family, one submodule per submodule of core's
``polyops.ops.numpy`` (a kernel lives where its op is defined):

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum;
* `elementwise`: transcendental and arithmetic functions (arctan2, log1p, gcd...);
* `logic`: predicates (isnan, isclose...), bitwise ops and shifts, complex parts, view;
* `indexing`: structured arrays, triangles and diagonals, take_along_axis, pad;
* `manipulation`: rearranging, joining and splitting (roll, tile, split, hstack...);
* `sorting`: argsort, sort, search and count (unique, searchsorted, cumsum...);
* `statistics`: order statistics and NaN-ignoring reductions (median, nanmax...);
* `products`: tensor products, cross, trapezoid, windows.

`_common` holds the helpers several of them share.  Kernels take the op's arguments
positionally; tensors arrive as jax arrays (or tracers) already promoted, axes canonical
(None or a tuple of non-negative ints), dtypes as canonical strings.  A kernel keeps the
input dtype unless the op says otherwise.  Where ``jax.numpy`` already has NumPy's
semantics and a positional signature that fits, the kernel is the jnp function itself.
"""
