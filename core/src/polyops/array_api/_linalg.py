"""The ``linalg`` extension: ``ops``' linear algebra with the standard's names, keywords
and result tuples."""

from __future__ import annotations

import math
import types
from collections import namedtuple

from ._dtypes import SIGNED, UNSIGNED, name_of
from ._manipulation import norm_axes

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
_REAL = {"complex64": "float32", "complex128": "float64"}


def extension(ns, c) -> types.ModuleType:
    from .. import ops

    wrap, run, un = c.wrap, c.run, c.un
    la = types.ModuleType(f"{ns.__name__}.linalg")
    la.__doc__ = "The Array API ``linalg`` extension over ``polyops.ops``' linear algebra."

    def real(t):
        """``t`` in its real dtype: ``ops.svd``, ``ops.eigh`` and ``ops.norm`` of complex
        matrices give real values in a complex dtype."""
        return ops.real(t) if c.dtype_of(t) in _REAL else t

    def square(t, op):
        shape = tuple(t.shape)
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise ValueError(f"{op}: expected a stack of square matrices, got shape {shape}")

    def matrices(name, op, check_square=True):
        def fn(x, /):
            t = un(x, name)
            if check_square:
                square(t, name)
            return wrap(run(op, t))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``linalg.{name}``: ``polyops.ops.{op.__name__}``."
        return fn

    la.det = matrices("det", ops.det)
    la.inv = matrices("inv", ops.inv)

    def cholesky(x, /, *, upper=False):
        """Array API ``linalg.cholesky``: ``ops.cholesky``."""
        t = un(x, "cholesky")
        square(t, "cholesky")
        return wrap(run(ops.cholesky, t, upper))

    def cross(x1, x2, /, *, axis=-1):
        """Array API ``linalg.cross``: ``ops.cross`` of 3-vectors along ``axis``."""
        t1, t2 = un(x1, "cross", "x1"), un(x2, "cross", "x2")
        from .._shapes import broadcast_shapes

        for t in (t1, t2):
            if not -len(t.shape) <= axis < len(t.shape) or t.shape[axis] != 3:
                raise ValueError(f"cross: expected size 3 along axis {axis}, got shape "
                                 f"{tuple(t.shape)}")
        if axis >= 0 and len(t1.shape) != len(t2.shape):
            raise ValueError("cross: a non-negative axis needs operands of the same rank")
        shape = broadcast_shapes(tuple(t1.shape), tuple(t2.shape), op="cross")
        dtype = ns.result_type(x1, x2).name

        def go():
            a = ops.broadcast_to(ops.cast(t1, dtype), shape)
            b = ops.broadcast_to(ops.cast(t2, dtype), shape)
            return ops.cast(ops.cross(a, b, -1, -1, -1, axis), dtype)

        return wrap(run(go))

    def diagonal(x, /, *, offset=0):
        """Array API ``linalg.diagonal``: ``ops.diagonal`` of the last two axes."""
        return wrap(run(ops.diagonal, un(x, "diagonal"), offset, -2, -1))

    def eigh(x, /):
        """Array API ``linalg.eigh``: ``ops.eigh``, an (eigenvalues, eigenvectors) tuple."""
        t = un(x, "eigh")
        square(t, "eigh")
        w, v = run(ops.eigh, t)
        return EighResult(wrap(run(real, w)), wrap(v))

    def eigvalsh(x, /):
        """Array API ``linalg.eigvalsh``: the eigenvalues of ``ops.eigh``."""
        t = un(x, "eigvalsh")
        square(t, "eigvalsh")
        return wrap(run(lambda: real(ops.eigh(t)[0])))

    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        """Array API ``linalg.matrix_norm``: ``ops.norm`` over the last two axes."""
        t = un(x, "matrix_norm")
        if len(t.shape) < 2:
            raise ValueError("matrix_norm: expected at least 2 dimensions, got shape "
                             f"{tuple(t.shape)}")
        dtype = _REAL.get(c.dtype_of(t), c.dtype_of(t))
        return wrap(run(lambda: ops.cast(real(ops.norm(t, ord, (-2, -1), keepdims)), dtype)))

    def matrix_power(x, n, /):
        """Array API ``linalg.matrix_power``: ``ops.matrix_power``."""
        t = un(x, "matrix_power")
        square(t, "matrix_power")
        return wrap(run(ops.matrix_power, t, n))

    def _rtol(t, rtol):
        if rtol is not None:
            return rtol._t if type(rtol) is c.A else rtol
        shape = tuple(t.shape)
        return max(shape[-2:]) * ns.finfo(_REAL.get(c.dtype_of(t), c.dtype_of(t))).eps

    def matrix_rank(x, /, *, rtol=None):
        """Array API ``linalg.matrix_rank``: the singular values above ``rtol`` times the
        largest, counted."""
        t = un(x, "matrix_rank")
        if len(t.shape) < 2:
            raise ValueError("matrix_rank: expected at least 2 dimensions, got shape "
                             f"{tuple(t.shape)}")
        tol = _rtol(t, rtol)

        def go():
            s = real(ops.svd(t, False, False))
            if s.shape[-1]:
                top = ops.max(s, -1, True)
            else:
                top = ops.zeros(tuple(s.shape[:-1]) + (1,), c.dtype_of(s))
            if not isinstance(tol, float) and len(tol.shape):  # a cutoff per matrix
                tol_ = ops.expand_dims(tol, -1)
            else:
                tol_ = tol
            limit = ops.multiply(top, tol_)
            return ops.sum(ops.cast(ops.greater(s, limit), c.default_int), -1)

        return wrap(run(go))

    def outer(x1, x2, /):
        """Array API ``linalg.outer``: ``ops.outer`` of two vectors."""
        t1, t2 = un(x1, "outer", "x1"), un(x2, "outer", "x2")
        if len(t1.shape) != 1 or len(t2.shape) != 1:
            raise ValueError("outer: expected two 1-D arrays")
        dtype = ns.result_type(x1, x2).name
        return wrap(run(lambda: ops.cast(ops.outer(t1, t2), dtype)))

    def pinv(x, /, *, rtol=None):
        """Array API ``linalg.pinv``: ``ops.pinv`` with the relative cutoff ``rtol``."""
        t = un(x, "pinv")
        if len(t.shape) < 2:
            raise ValueError(f"pinv: expected at least 2 dimensions, got shape {tuple(t.shape)}")
        if rtol is None or type(rtol) in (int, float):
            return wrap(run(ops.pinv, t, None if rtol is None else float(rtol)))
        tol = un(rtol, "pinv", "rtol")

        def go():  # a cutoff per matrix: through the SVD (ops.pinv takes one float)
            u, s, vh = ops.svd(t, False, True)
            s = real(s)
            top = ops.max(s, -1, True) if s.shape[-1] else s
            cutoff = ops.expand_dims(ops.cast(tol, c.dtype_of(s)), -1)
            keep = ops.greater(s, ops.multiply(top, cutoff))
            s_inv = ops.where(keep, ops.divide(1.0, ops.where(keep, s, 1.0)), 0.0)
            v = ops.conjugate(ops.swapaxes(vh, -1, -2))
            uh = ops.conjugate(ops.swapaxes(u, -1, -2))
            scaled = ops.multiply(v, ops.cast(ops.expand_dims(s_inv, -2), c.dtype_of(v)))
            return ops.matmul(scaled, uh)

        return wrap(run(go))

    def qr(x, /, *, mode="reduced"):
        """Array API ``linalg.qr``: ``ops.qr``, a (Q, R) tuple."""
        if mode not in ("reduced", "complete"):
            raise ValueError(f"qr: expected mode 'reduced' or 'complete', got {mode!r}")
        q, r = run(ops.qr, un(x, "qr"), mode)
        return QRResult(wrap(q), wrap(r))

    def slogdet(x, /):
        """Array API ``linalg.slogdet``: ``ops.slogdet``, a (sign, logabsdet) tuple."""
        t = un(x, "slogdet")
        square(t, "slogdet")
        s, v = run(ops.slogdet, t)  # (logabsdet real for complex input too)
        return SlogdetResult(wrap(s), wrap(v))

    def solve(x1, x2, /):
        """Array API ``linalg.solve``: ``ops.solve``; a 1-D ``x2`` is one vector."""
        t1, t2 = un(x1, "solve", "x1"), un(x2, "solve", "x2")
        square(t1, "solve")
        dtype = ns.result_type(x1, x2).name

        from .._shapes import broadcast_shapes

        a_shape, b_shape = tuple(t1.shape), tuple(t2.shape)
        vector = len(b_shape) == 1  # the standard: a 1-D x2 is one vector, else matrices
        b_batch = () if vector else b_shape[:-2]
        batch = broadcast_shapes(a_shape[:-2], b_batch, op="solve")
        if b_shape[-1 if vector else -2] != a_shape[-1]:
            raise ValueError(f"solve: x1 of shape {a_shape} and x2 of shape {b_shape} do not match")

        def go():
            a = ops.broadcast_to(ops.cast(t1, dtype), batch + a_shape[-2:])
            b = ops.cast(t2, dtype)
            if vector:
                b = ops.broadcast_to(ops.reshape(b, (b_shape[0], 1)), batch + (b_shape[0], 1))
                return ops.reshape(ops.solve(a, b), batch + (b_shape[0],))
            return ops.solve(a, ops.broadcast_to(b, batch + b_shape[-2:]))

        return wrap(run(go))

    def svd(x, /, *, full_matrices=True):
        """Array API ``linalg.svd``: ``ops.svd``, a (U, S, Vh) tuple."""
        t = un(x, "svd")
        u, s, vh = run(ops.svd, t, full_matrices, True)
        return SVDResult(wrap(u), wrap(run(real, s)), wrap(vh))

    def svdvals(x, /):
        """Array API ``linalg.svdvals``: ``ops.svd`` without the vectors."""
        return wrap(run(lambda: real(ops.svd(un(x, "svdvals"), False, False))))

    def trace(x, /, *, offset=0, dtype=None):
        """Array API ``linalg.trace``: ``ops.trace`` over the last two axes; integer arrays
        accumulate in the default integer dtype."""
        t = un(x, "trace")
        if len(t.shape) < 2:
            raise ValueError(f"trace: expected at least 2 dimensions, got shape {tuple(t.shape)}")
        src = c.dtype_of(t)
        if dtype is not None:
            target = name_of(dtype, "trace")
        elif src in SIGNED or src == "bool":
            target = c.default_int
        elif src in UNSIGNED:
            target = c.default_uint
        else:
            target = src
        return wrap(run(lambda: ops.cast(ops.trace(ops.cast(t, target), offset, -2, -1), target)))

    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        """Array API ``linalg.vector_norm``: ``ops.norm`` of vectors along ``axis`` (axes
        gathered into one)."""
        t = un(x, "vector_norm")
        shape = tuple(t.shape)
        axes = norm_axes(axis, len(shape), "vector_norm")
        if axes is None:
            axes = tuple(range(len(shape)))
        rest = [a for a in range(len(shape)) if a not in axes]
        dtype = _REAL.get(c.dtype_of(t), c.dtype_of(t))

        def go():
            moved = ops.transpose(t, tuple(rest) + axes) if len(shape) else t
            size = math.prod(shape[a] for a in axes)
            flat = ops.reshape(moved, tuple(shape[a] for a in rest) + (size,))
            out = ops.cast(real(ops.norm(flat, ord, -1, False)), dtype)
            if keepdims:
                out = ops.reshape(out, tuple(1 if a in axes else s for a, s in enumerate(shape)))
            return out

        return wrap(run(go))

    for fn in (cholesky, cross, diagonal, eigh, eigvalsh, matrix_norm, matrix_power, matrix_rank,
               outer, pinv, qr, slogdet, solve, svd, svdvals, trace, vector_norm):
        setattr(la, fn.__name__, fn)
    la.matmul, la.matrix_transpose = ns.matmul, ns.matrix_transpose
    la.tensordot, la.vecdot = ns.tensordot, ns.vecdot
    return la
