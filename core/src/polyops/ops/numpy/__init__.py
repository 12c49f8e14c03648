"""NumPy-compatible ops (``keras.ops.numpy``), one submodule per kind of op.

* `base`: creation, arithmetic, comparisons, reductions, shape, matmul/einsum:
  most primitives live here;
* `elementwise`: transcendental and arithmetic functions (arcsin, log1p, gcd...);
* `logic`: predicates (isnan, isclose...), bitwise ops, complex parts, bit views;
* `indexing`: creation of structured arrays, triangles and diagonals, gathers, pad;
* `manipulation`: rearranging, joining and splitting (roll, tile, split, hstack...);
* `sorting`: sort, search and count (argsort, unique, searchsorted, cumsum...);
* `statistics`: order statistics and NaN-ignoring reductions (median, nanmean...);
* `products`: tensor products, windows, correlate, slogdet, vectorize.

Every op is one block: the decorated function is its shape/dtype rule and fixes
the public signature; unless the op is a primitive, ``@op.reference`` gives its
reference implementation written with `polyops.ops` calls only.  A new op is
listed in its module's ``__all__``; ``python -m polyops.ops._lazy`` then adds it to
the index that `polyops.ops` loads modules by (see `polyops.ops._lazy`).
"""

from .._lazy import attach as _attach

_attach(globals())  # names load on first use (see polyops.ops._lazy)
