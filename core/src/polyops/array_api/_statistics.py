"""Statistical functions: ``ops`` reductions with the standard's dtypes and keywords.

Sums and products of integer arrays give the default integer dtype (int64; uint64 for
unsigned ones), where polyops' ops give int32 (Keras's rule); ``dtype=`` casts the
input first; ``correction`` rescales the population variance.
"""

from __future__ import annotations

from ._dtypes import SIGNED, UNSIGNED, name_of
from ._manipulation import norm_axes


def install(ns, c):
    from .. import ops

    wrap, run, un = c.wrap, c.run, c.un

    def accumulate_dtype(t, dtype, op):
        if dtype is not None:
            return name_of(dtype, op)
        name = c.dtype_of(t)
        if name in SIGNED or name == "bool":
            return c.default_int
        if name in UNSIGNED:
            return c.default_uint
        return name

    def reduction(name, op, accumulate=False):
        def fn(x, /, *, axis=None, keepdims=False, dtype=None):
            t = un(x, name)
            axes = norm_axes(axis, len(t.shape), name)
            target = accumulate_dtype(t, dtype, name)

            def go():
                src = t if c.dtype_of(t) == target else ops.cast(t, target)
                out = op(src, axes, keepdims)
                return out if c.dtype_of(out) == target else ops.cast(out, target)

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = (f"Array API ``{name}``: ``polyops.ops.{op.__name__}``; integer arrays "
                      "accumulate in the default integer dtype.")
        return fn

    ns.sum = reduction("sum", ops.sum)
    ns.prod = reduction("prod", lambda t, a, k: ops.prod(t, a, k))

    ns.max, ns.min = c.reducer("max", ops.max), c.reducer("min", ops.min)
    ns.mean = c.reducer("mean", ops.mean)

    def spread(name, op):
        def fn(x, /, *, axis=None, correction=0.0, keepdims=False):
            t = un(x, name)
            shape = tuple(t.shape)
            axes = norm_axes(axis, len(shape), name)
            n = 1
            for a in axes if axes is not None else range(len(shape)):
                n *= shape[a]

            def go():
                var = ops.var(t, axes, keepdims)
                if correction:
                    scale = n / (n - correction) if n > correction else float("nan")
                    var = ops.multiply(var, scale)
                return ops.sqrt(var) if name == "std" else var

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = (f"Array API ``{name}``: ``polyops.ops.var``, scaled by "
                      "``n / (n - correction)``.")
        return fn

    ns.var, ns.std = spread("var", ops.var), spread("std", ops.std)

    def cumulative(name, op, initial):
        def fn(x, /, *, axis=None, dtype=None, include_initial=False):
            t = un(x, name)
            ndim = len(t.shape)
            if axis is None:
                if ndim > 1:
                    raise ValueError(f"{name}: expected axis for a {ndim}-D array")
                axis = 0
            from ._manipulation import norm_axis

            a = norm_axis(axis, max(ndim, 1), name)
            target = accumulate_dtype(t, dtype, name)

            def go():
                src = t if ndim else ops.reshape(t, (1,))
                src = src if c.dtype_of(src) == target else ops.cast(src, target)
                out = op(src, a)
                out = out if c.dtype_of(out) == target else ops.cast(out, target)
                if include_initial:
                    shape = list(out.shape)
                    shape[a] = 1
                    out = ops.concatenate([ops.full(tuple(shape), initial, target), out], a)
                return out

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{op.__name__}``."
        return fn

    ns.cumulative_sum = cumulative("cumulative_sum", ops.cumsum, 0)
    ns.cumulative_prod = cumulative("cumulative_prod", ops.cumprod, 1)
