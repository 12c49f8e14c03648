"""NumPy kernels for the ``numpy`` op family, one submodule per submodule of core's
``polyops.ops.numpy`` (a kernel lives where its op is defined):

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum;
* `elementwise`: transcendental and arithmetic functions (arctan2, log1p, gcd...);
* `logic`: predicates (isnan, isclose...), bitwise ops and shifts, complex parts, view;
* `indexing`: creation from values (identity, tri, vander, *space), diagonals and
  triangles, pad, take_along_axis, select, meshgrid;
* `manipulation`: flips and rotations, stacks and splits, repeat, tile, roll, axes moves;
* `sorting`: argsort, sort, search and count (unique, searchsorted, cumsum...);
* `statistics`: order statistics (median, quantile...), NaN-ignoring reductions, ptp,
  average, corrcoef;
* `products`: tensor products, cross, trapezoid, correlate, windows.

`_common` holds the helpers several of them share.  Kernels take the op's arguments
positionally; tensors arrive as ndarrays already promoted, axes canonical (None or a tuple
of non-negative ints), dtypes as canonical strings.  A kernel keeps the input dtype unless
the op says otherwise.
"""
