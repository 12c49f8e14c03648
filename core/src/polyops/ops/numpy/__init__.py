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
reference implementation written with `polyops.ops` calls only.  The import
order below fixes the op indices.
"""

from . import base, elementwise, logic, indexing, manipulation, sorting, statistics, products  # noqa: F401
from .base import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .logic import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .sorting import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += base.__all__
__all__ += elementwise.__all__
__all__ += logic.__all__
__all__ += indexing.__all__
__all__ += manipulation.__all__
__all__ += sorting.__all__
__all__ += statistics.__all__
__all__ += products.__all__
