"""PyTorch kernels for the ``numpy`` op family, one submodule per submodule of
`polyops.ops.numpy` (each kernel in the submodule that declares its op):

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum;
* `elementwise`: transcendental and arithmetic functions (arcsin, log1p, gcd...);
* `logic`: predicates (isnan, isclose...), bitwise ops and shifts, complex parts, bit views;
* `indexing`: creation of structured arrays, triangles and diagonals, gathers, pad;
* `manipulation`: rearranging, joining and splitting (roll, tile, split, hstack...);
* `sorting`: sort, search and count (argsort, unique, searchsorted, cumsum...);
* `statistics`: nansum, nanmean, corrcoef, the quantiles (the rest: core's references);
* `products`: tensor products, trapezoid, slogdet, windows.

Private helpers shared by several submodules (the uint16/32/64 retries in wider ints,
matrix products) are in `_common`.  Kernels take the op's arguments positionally,
tensors already promoted (docs/kernels.md).
"""
