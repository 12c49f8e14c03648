"""Elementwise functions: one polyops op each, through two factories.

A unary function takes one Array; a binary one two operands, at least one an Array,
the other may be a Python scalar (weak, as the standard says).  Both unwrap, call
the op with the namespace's backend in effect (`Context.run`) and wrap the result.
Where the standard asks more than the op does (ceil of an integer array keeps its
dtype, clip with one bound, copysign) the function composes ``ops`` calls.
"""

from __future__ import annotations

import math

from .. import _registry
from .. import config as _config
from ._namespace import _Mode

# standard name -> polyops op name (unary)
UNARY = {
    "abs": "abs", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atanh": "arctanh", "bitwise_invert": "bitwise_invert", "cos": "cos",
    "cosh": "cosh", "exp": "exp", "expm1": "expm1", "isfinite": "isfinite", "isinf": "isinf",
    "isnan": "isnan", "log": "log", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "logical_not": "logical_not", "negative": "negative", "reciprocal": "reciprocal",
    "sign": "sign", "signbit": "signbit", "sin": "sin", "sinh": "sinh", "square": "square",
    "sqrt": "sqrt", "tan": "tan", "tanh": "tanh",
}
# integer (and bool) arrays come back as they are: the standard keeps their dtype
INTEGER_IDENTITY = {"ceil": "ceil", "floor": "floor", "trunc": "trunc", "round": "round"}
BINARY = {
    "add": "add", "atan2": "arctan2", "bitwise_and": "bitwise_and",
    "bitwise_left_shift": "left_shift", "bitwise_or": "bitwise_or",
    "bitwise_right_shift": "right_shift", "bitwise_xor": "bitwise_xor", "divide": "divide",
    "equal": "equal", "floor_divide": "floor_divide", "greater": "greater",
    "greater_equal": "greater_equal", "hypot": "hypot", "less": "less",
    "less_equal": "less_equal", "logaddexp": "logaddexp", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "maximum": "maximum",
    "minimum": "minimum", "multiply": "multiply", "nextafter": "nextafter",
    "not_equal": "not_equal", "pow": "power", "remainder": "mod", "subtract": "subtract",
}
_SCALARS = (bool, int, float, complex)
_COMPLEX = ("complex64", "complex128")
_REAL_FLOATS = ("float32", "float64")
# ops whose promotion rejects complex operands, which the standard defines for them
COMPLEX_BY_KERNEL = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan")


def unary(c, name: str, op, complex_kernel: str | None = None):
    """``name(x, /)``: ``op`` on the tensor of Array ``x``.  ``complex_kernel``: the op,
    whose promotion rejects complex operands (polyops' choice, where frameworks disagree),
    whose backend's native kernel then computes complex ones (`Context.kernel`)."""
    A, wrap, run = c.A, c.wrap, c.run
    current, backend, config, mode = _registry._CURRENT, c.backend, _config, _Mode

    def fn(x, /):
        if type(x) is not A:
            raise c.not_array(x, name)
        try:
            if config._X64 and not mode.turned_on:  # the user's 64-bit mode: no run frame
                token = current.set(backend)
                try:
                    return wrap(op(x._t))
                finally:
                    current.reset(token)
            return wrap(run(op, x._t))
        except TypeError:
            if complex_kernel is None or c.dtype_of(x._t) not in _COMPLEX:
                raise
        return wrap(run(c.complex_kernel(complex_kernel, name), x._t))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{op.__name__}`` on this backend."
    return fn


def binary(c, name: str, op):
    """``name(x1, x2, /)``: ``op`` on two operands, Arrays or Python scalars (one Array at
    least)."""
    A, wrap, run = c.A, c.wrap, c.run
    current, backend, config, mode = _registry._CURRENT, c.backend, _config, _Mode

    def fn(x1, x2, /):
        if type(x1) is A:
            t1 = x1._t
            if type(x2) is A:
                t2 = x2._t
            elif type(x2) in _SCALARS:
                t2 = x2
            else:
                raise c.not_array(x2, name, "x2")
        elif type(x2) is A and type(x1) in _SCALARS:
            t1, t2 = x1, x2._t
        else:
            raise c.not_array(x1 if type(x1) is not A else x2, name,
                              "x1" if type(x1) is not A else "x2")
        if config._X64 and not mode.turned_on:
            token = current.set(backend)
            try:
                return wrap(op(t1, t2))
            finally:
                current.reset(token)
        return wrap(run(op, t1, t2))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{op.__name__}`` on this backend."
    return fn


def install(ns, c):
    from .. import ops
    from ._dtypes import INTEGRAL

    for name, op in UNARY.items():
        kernel = op if name in COMPLEX_BY_KERNEL else None
        setattr(ns, name, unary(c, name, getattr(ops, op), kernel))
    for name, op in BINARY.items():
        setattr(ns, name, binary(c, name, getattr(ops, op)))
    A, wrap, run = c.A, c.wrap, c.run

    def keep_integers(name, op):
        f = unary(c, name, op)

        def fn(x, /):
            if type(x) is A and c.dtype_of(x._t) in INTEGRAL + ("bool",):
                return wrap(x._t)
            return f(x)

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f.__doc__
        return fn

    for name, op in INTEGER_IDENTITY.items():
        setattr(ns, name, keep_integers(name, getattr(ops, op)))
    real_sign, real_round = ns.sign, ns.round

    def sign(x, /):
        """Array API ``sign``: ``ops.sign`` (+0 at -0); ``x / abs(x)`` (0 at 0) for complex
        arrays."""
        if type(x) is A and c.dtype_of(x._t) in _COMPLEX:
            t = x._t

            def go():
                mag = ops.abs(t)
                safe = ops.where(ops.equal(mag, 0), 1, mag)
                return ops.cast(ops.where(ops.equal(mag, 0), 0, ops.divide(t, safe)), c.dtype_of(t))

            return wrap(run(go))
        if type(x) is A and c.dtype_of(x._t) in _REAL_FLOATS:
            # + 0.0: the standard's sign(-0.0) is +0 (jax's kernel gives -0.0)
            return wrap(run(lambda t: ops.add(ops.sign(t), 0.0), x._t))
        return real_sign(x)

    def round(x, /):
        """Array API ``round``: ``ops.round``; complex arrays round each part."""
        if type(x) is A and c.dtype_of(x._t) in _COMPLEX:
            t = x._t
            return wrap(run(lambda: c.join(ops.round(ops.real(t)), ops.round(ops.imag(t)))))
        return real_round(x)

    ns.sign, ns.round = sign, round
    real_expm1, real_log1p = ns.expm1, ns.log1p

    # Complex expm1 and log1p: the frameworks' complex kernels lose the standard's special
    # values (expm1(inf + 0j) is inf + nan j in NumPy), so these compose ops that keep
    # them: exp(z) - 1 and log(1 + z), which carry exp's and log's special values, and
    # for |z| < 1/2 (finite, where those lose precision) the parts' formulas
    #   expm1(x + iy) = expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y)
    #   log1p(x + iy) = log1p(x (2 + x) + y^2) / 2 + i atan2(y, 1 + x)
    def complex_expm1(t):
        x, y = ops.real(t), ops.imag(t)
        half = ops.sin(ops.multiply(y, 0.5))
        re = ops.subtract(ops.multiply(ops.expm1(x), ops.cos(y)),
                          ops.multiply(ops.square(half), 2.0))
        im = ops.multiply(ops.exp(x), ops.sin(y))
        near = ops.less(ops.abs(t), 0.5)
        small = c.join(ops.add(re, 0.0), im)  # (+ 0.0: expm1(-0 + 0j) is +0 + 0j)
        return ops.where(near, small, ops.subtract(ops.exp(t), 1.0))

    def complex_log1p(t):
        x, y = ops.real(t), ops.imag(t)
        re = ops.multiply(ops.log1p(ops.add(ops.multiply(x, ops.add(x, 2.0)), ops.square(y))), 0.5)
        im = ops.arctan2(y, ops.add(x, 1.0))
        near = ops.less(ops.abs(t), 0.5)
        return ops.where(near, c.join(re, im), ops.log(ops.add(t, 1.0)))

    def composed(name, real_fn, complex_fn):
        def fn(x, /):
            if type(x) is A and c.dtype_of(x._t) in _COMPLEX:
                return wrap(run(complex_fn, x._t))
            return real_fn(x)

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = real_fn.__doc__ + "  Complex arrays: composed of ops (see the source)."
        return fn

    ns.expm1 = composed("expm1", real_expm1, complex_expm1)
    ns.log1p = composed("log1p", real_log1p, complex_log1p)
    # (tensorflow's log2/log10 kernels are real-only functions: these compose for all)
    ns.log2 = composed("log2", ns.log2, lambda t: ops.divide(ops.log(t), math.log(2)))
    ns.log10 = composed("log10", ns.log10, lambda t: ops.divide(ops.log(t), math.log(10)))

    def real_or_complex(name, op):
        f = unary(c, name, op)

        def fn(x, /):
            if type(x) is A and c.dtype_of(x._t) not in ("complex64", "complex128"):
                return _real_part(x)
            return f(x)

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f.__doc__
        return fn

    def _real_part(x):
        return wrap(x._t)

    ns.conj = real_or_complex("conj", ops.conjugate)
    ns.real = real_or_complex("real", ops.real)
    imag = unary(c, "imag", ops.imag)

    def imag_(x, /):
        """Array API ``imag``: ``polyops.ops.imag``; zeros for a real array."""
        if type(x) is A and c.dtype_of(x._t) not in ("complex64", "complex128"):
            return wrap(run(ops.zeros_like, x._t))
        return imag(x)

    imag_.__name__ = imag_.__qualname__ = "imag"
    ns.imag = imag_

    def positive(x, /):
        """Array API ``positive``: the array itself (a new wrapper)."""
        return wrap(c.un(x, "positive"))

    ns.positive = positive

    def copysign(x1, x2, /):
        """Array API ``copysign``: ``abs(x1)`` with the sign bit of ``x2``."""
        t1, t2 = c.operand(x1, "copysign", "x1"), c.operand(x2, "copysign", "x2")
        dtype = c.ns.result_type(x1, x2).name

        def go(t1, t2):
            mag = ops.abs(ops.convert_to_tensor(t1, dtype))
            return ops.where(ops.signbit(t2), ops.negative(mag), mag)

        return wrap(run(go, t1, t2))

    ns.copysign = copysign

    def floor_divide(x1, x2, /):
        """Array API ``floor_divide``: ``ops.floor_divide``, with the standard's special
        cases where frameworks differ: an infinite operand gives ``x1 / x2`` (``inf // 2 ==
        inf``, ``1 // -inf == -0``, where NumPy gives ``nan`` and ``-1``), and a zero result
        has the sign of ``x1 / x2``."""
        t1, t2 = binary_operands(x1, x2, "floor_divide")

        def go(t1, t2):
            out = ops.floor_divide(t1, t2)
            if c.dtype_of(out) not in _REAL_FLOATS:
                return out
            q = ops.divide(t1, t2)
            out = ops.where(ops.equal(out, 0), ops.multiply(q, 0.0), out)
            return ops.where(ops.logical_or(ops.isinf(t1), ops.isinf(t2)), q, out)

        return wrap(run(go, t1, t2))

    def remainder(x1, x2, /):
        """Array API ``remainder``: ``ops.mod``; a zero result has the sign of ``x2`` (the
        standard's special cases, which frameworks differ on)."""
        t1, t2 = binary_operands(x1, x2, "remainder")

        def go(t1, t2):
            out = ops.mod(t1, t2)
            if c.dtype_of(out) not in _REAL_FLOATS:
                return out
            zero = ops.where(ops.signbit(t2), -0.0, 0.0)
            return ops.where(ops.equal(out, 0), ops.cast(zero, c.dtype_of(out)), out)

        return wrap(run(go, t1, t2))

    def binary_operands(x1, x2, op):
        if type(x1) is not A and type(x2) is not A:
            raise c.not_array(x1, op, "x1")
        return c.operand(x1, op, "x1"), c.operand(x2, op, "x2")

    ns.remainder = remainder
    ns.floor_divide = floor_divide

    def clip(x, /, min=None, max=None):
        """Array API ``clip``: ``ops.maximum``/``ops.minimum`` with the bounds given, in
        ``x``'s dtype."""
        t = c.un(x, "clip")
        lo = None if min is None else c.operand(min, "clip", "min")
        hi = None if max is None else c.operand(max, "clip", "max")
        dtype = c.dtype_of(t)
        floating = dtype in _REAL_FLOATS  # (where: a NaN in x stays NaN)

        def go(t, lo, hi):
            out = t
            if lo is not None:
                out = ops.where(ops.less(out, lo), lo, out) if floating else ops.maximum(out, lo)
            if hi is not None:
                out = ops.where(ops.greater(out, hi), hi, out) if floating else ops.minimum(out, hi)
            return ops.cast(out, dtype)

        return wrap(run(go, t, lo, hi))

    ns.clip = clip
