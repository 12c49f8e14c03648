"""OpenVINO kernels for the ``numpy`` op family, one submodule per core submodule.

Kernels take the op's arguments positionally; tensors arrive as numpy arrays
already promoted, axes canonical (None or a sorted tuple of non-negative ints),
dtypes as canonical strings.  Each kernel builds (once per op, static arguments,
shapes and dtypes) a small OpenVINO model and runs it with ``_graph.run``.

The CPU plugin computes several int32 ops (comparisons, reductions, division,
MatMul, Power) in float32, which is inexact above 2**24; the graphs use
only exact int32 nodes (Add, Subtract, Multiply, Maximum, Minimum, Select,
bitwise ops, Convert) for those, so integer results match NumPy's wrapping
arithmetic.  Half floats and narrow ints compute in f32 / i32 and convert back.

* `base`: creation, the elementwise and comparison primitives, reductions, shape
  (stack, flip), matmul/einsum/dot;
* `elementwise`: transcendental and arithmetic functions (arcsin, log1p, fmod, gcd...);
* `logic`: float predicates (isnan...), nan_to_num, bitwise ops and shifts, view;
* `indexing`: array/copy, triangles, diagonal, take_along_axis, pad;
* `manipulation`: flips, rot90, the stacks, append, roll, tile, repeat;
* `sorting`: sort, argsort, cumulative sums and products, searchsorted, digitize, counts;
* `products`: inner, vdot, tensordot, kron (einsum's and multiply's models);
* `statistics`: no native kernel (core's references compose them);
* `_common`: the exact int32 graph helpers and kernel factories the submodules share.
"""
