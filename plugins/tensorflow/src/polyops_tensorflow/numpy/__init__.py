"""TensorFlow kernels for the ``numpy`` op family, one submodule per submodule of
`polyops.ops.numpy` (a kernel sits where core declares its op):

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum,
  flip, dot: most primitives;
* `elementwise`: transcendental and arithmetic functions (arcsin, log1p, gcd...);
* `logic`: bitwise ops and shifts, bit views, predicates (isnan, isclose...),
  complex parts;
* `indexing`: creation of structured arrays, triangles and diagonals, gathers, pad;
* `manipulation`: rearranging, joining and splitting (roll, tile, split, hstack...);
* `sorting`: sort, search and count (argsort, unique, searchsorted, cumsum...);
* `statistics`: order statistics and NaN-ignoring reductions (median, nanmean...);
* `products`: tensor products, slogdet, windows.

`_common` holds the helpers several submodules share (dtype sets, ``_ints``,
``_host_view``...).
"""
