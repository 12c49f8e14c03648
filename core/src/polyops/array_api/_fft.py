"""The ``fft`` extension over ``ops.fft``, ``ops.rfft`` and ``ops.irfft``.

polyops' FFTs take and return ``(real, imag)`` pairs along the last axis: here complex
arrays are split into their parts and joined back (``ops.view_as_complex``), the axis
is moved last, the length padded or cropped to ``n``, and the standard's ``norm``
applied.  The inverse transforms are the forward ones of the conjugate.
"""

from __future__ import annotations

import math
import types

from ._dtypes import name_of
from ._manipulation import norm_axis

_COMPLEX = {"float32": "complex64", "float64": "complex128"}
_REAL = {"complex64": "float32", "complex128": "float64"}
_NORMS = ("backward", "ortho", "forward")


def extension(ns, c) -> types.ModuleType:
    from .. import ops

    wrap, run, un = c.wrap, c.run, c.un
    fft_ns = types.ModuleType(f"{ns.__name__}.fft")
    fft_ns.__doc__ = "The Array API ``fft`` extension over ``polyops.ops``' FFTs."

    def check_norm(norm, op):
        if norm not in _NORMS:
            raise ValueError(f"{op}: expected norm in {_NORMS}, got {norm!r}")

    def scale(norm, n, inverse):
        """The factor of a transform of length ``n`` (``inverse``: the 1/n side)."""
        if norm == "ortho":
            return 1 / math.sqrt(n)
        if (norm == "backward") == inverse:
            return 1 / n
        return 1.0

    def split(t):
        return ops.real(t), ops.imag(t)

    join = c.join

    def resize(t, n, axis):
        """``t`` cropped or zero-padded to length ``n`` along ``axis`` (last)."""
        size = t.shape[axis]
        if n == size:
            return t
        if n < size:
            return ops.get_item(t, (Ellipsis, slice(0, n)))
        pad = [(0, 0)] * len(t.shape)
        pad[axis] = (0, n - size)
        return ops.pad(t, pad)

    def c2c(t, n, axis, norm, inverse):
        """One complex transform along ``axis`` of complex tensor ``t``."""
        t = ops.moveaxis(t, axis, -1)
        t = resize(t, n, -1)
        re, im = split(t)
        if inverse:
            im = ops.negative(im)
        re, im = ops.fft((re, im))
        if inverse:
            im = ops.negative(im)
        k = scale(norm, n, inverse)
        if k != 1.0:
            re, im = ops.multiply(re, k), ops.multiply(im, k)
        return ops.moveaxis(join(re, im), -1, axis)

    def length(t, n, axis, op):
        if n is None:
            return t.shape[axis]
        if n < 1:
            raise ValueError(f"{op}: expected n >= 1, got {n}")
        return n

    def typed_input(x, op, dtypes, what):
        t = un(x, op)
        d = c.dtype_of(t)
        if d not in dtypes:
            raise TypeError(f"{op}: expected a {what} array, got dtype {d}")
        return t

    def complex_input(x, op):
        return typed_input(x, op, _REAL, "complex")  # (_REAL's keys: the complex dtypes)

    def real_input(x, op):
        return typed_input(x, op, _COMPLEX, "real floating")

    def one(name, inverse):
        def fn(x, /, *, n=None, axis=-1, norm="backward"):
            t = complex_input(x, name)
            check_norm(norm, name)
            a = norm_axis(axis, len(t.shape), name)
            m = length(t, n, a, name)
            return wrap(run(c2c, t, m, a, norm, inverse))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``fft.{name}``: ``polyops.ops.fft`` along ``axis``."
        return fn

    fft_ns.fft, fft_ns.ifft = one("fft", False), one("ifft", True)

    def axes_and_sizes(t, s, axes, op):
        ndim = len(t.shape)
        if axes is None:
            axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
        axes = tuple(norm_axis(a, ndim, op) for a in axes)
        if s is None:
            s = tuple(t.shape[a] for a in axes)
        if len(s) != len(axes):
            raise ValueError(f"{op}: s and axes have different lengths ({len(s)}, {len(axes)})")
        s = tuple(t.shape[a] if n == -1 else n for n, a in zip(s, axes, strict=True))
        return s, axes

    def many(name, inverse):
        def fn(x, /, *, s=None, axes=None, norm="backward"):
            t = complex_input(x, name)
            check_norm(norm, name)
            sizes, ax = axes_and_sizes(t, s, axes, name)

            def go():
                out = t
                for n, a in zip(sizes, ax, strict=True):
                    out = c2c(out, n, a, norm, inverse)
                return out

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``fft.{name}``: ``polyops.ops.fft`` along each of ``axes``."
        return fn

    fft_ns.fftn, fft_ns.ifftn = many("fftn", False), many("ifftn", True)

    def r2c(t, n, axis, norm):
        t = ops.moveaxis(t, axis, -1)
        t = resize(t, n, -1)
        re, im = ops.rfft(t, n)
        k = scale(norm, n, False)
        if k != 1.0:
            re, im = ops.multiply(re, k), ops.multiply(im, k)
        return ops.moveaxis(join(re, im), -1, axis)

    def c2r(t, n, axis, norm):
        t = ops.moveaxis(t, axis, -1)
        out = ops.irfft(split(t), n)  # 1/n included (backward)
        k = scale(norm, n, True) * n
        if k != 1.0:
            out = ops.multiply(out, k)
        return ops.moveaxis(out, -1, axis)

    def rfft(x, /, *, n=None, axis=-1, norm="backward"):
        """Array API ``fft.rfft``: ``ops.rfft`` along ``axis``."""
        t = real_input(x, "rfft")
        check_norm(norm, "rfft")
        a = norm_axis(axis, len(t.shape), "rfft")
        return wrap(run(r2c, t, length(t, n, a, "rfft"), a, norm))

    def irfft(x, /, *, n=None, axis=-1, norm="backward"):
        """Array API ``fft.irfft``: ``ops.irfft`` along ``axis``."""
        t = complex_input(x, "irfft")
        check_norm(norm, "irfft")
        a = norm_axis(axis, len(t.shape), "irfft")
        m = 2 * (t.shape[a] - 1) if n is None else length(t, n, a, "irfft")
        if m < 1:
            raise ValueError(f"irfft: expected an output length >= 1, got {m}")
        return wrap(run(c2r, t, m, a, norm))

    def rfftn(x, /, *, s=None, axes=None, norm="backward"):
        """Array API ``fft.rfftn``: ``ops.rfft`` along the last of ``axes``, ``ops.fft``
        along the others."""
        t = real_input(x, "rfftn")
        check_norm(norm, "rfftn")
        sizes, ax = axes_and_sizes(t, s, axes, "rfftn")

        def go():
            out = r2c(t, sizes[-1], ax[-1], norm)
            for n, a in zip(sizes[:-1], ax[:-1], strict=True):
                out = c2c(out, n, a, norm, False)
            return out

        return wrap(run(go))

    def irfftn(x, /, *, s=None, axes=None, norm="backward"):
        """Array API ``fft.irfftn``: the inverse of `rfftn`."""
        t = complex_input(x, "irfftn")
        check_norm(norm, "irfftn")
        ndim = len(t.shape)
        if axes is None:
            axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
        ax = tuple(norm_axis(a, ndim, "irfftn") for a in axes)
        if s is None:
            sizes = tuple(t.shape[a] for a in ax[:-1]) + (2 * (t.shape[ax[-1]] - 1),)
        else:
            sizes = tuple(s)
            if len(sizes) != len(ax):
                raise ValueError("irfftn: s and axes have different lengths")

        def go():
            out = t
            for n, a in zip(sizes[:-1], ax[:-1], strict=True):
                out = c2c(out, n, a, norm, True)
            return c2r(out, sizes[-1], ax[-1], norm)

        return wrap(run(go))

    swap = {"backward": "forward", "forward": "backward", "ortho": "ortho"}

    def hfft(x, /, *, n=None, axis=-1, norm="backward"):
        """Array API ``fft.hfft``: ``irfft`` of the conjugate, with the swapped norm."""
        t = complex_input(x, "hfft")
        check_norm(norm, "hfft")
        a = norm_axis(axis, len(t.shape), "hfft")
        m = 2 * (t.shape[a] - 1) if n is None else length(t, n, a, "hfft")
        return wrap(run(lambda: c2r(ops.conjugate(t), m, a, swap[norm])))

    def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
        """Array API ``fft.ihfft``: the conjugate of ``rfft``, with the swapped norm."""
        t = real_input(x, "ihfft")
        check_norm(norm, "ihfft")
        a = norm_axis(axis, len(t.shape), "ihfft")
        m = length(t, n, a, "ihfft")
        return wrap(run(lambda: ops.conjugate(r2c(t, m, a, swap[norm]))))

    def freq(name, half):
        def fn(n, /, *, d=1.0, dtype=None, device=None):
            c.check_device(device, name)
            if not isinstance(n, int) or n < 1:
                raise ValueError(f"{name}: expected an int n >= 1, got {n!r}")
            target = c.default_float if dtype is None else name_of(dtype, name)

            def go():
                if half:
                    k = ops.arange(0, n // 2 + 1, 1, "int64")
                else:
                    k = ops.concatenate([ops.arange(0, (n - 1) // 2 + 1, 1, "int64"),
                                         ops.arange(-(n // 2), 0, 1, "int64")], 0)
                return ops.divide(ops.cast(k, target), float(d * n))

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``fft.{name}``: sample frequencies, from ``ops.arange``."
        return fn

    def shift(name, sign):
        def fn(x, /, *, axes=None):
            t = un(x, name)
            ndim = len(t.shape)
            ax = tuple(range(ndim)) if axes is None else (
                (axes,) if isinstance(axes, int) else tuple(axes))
            ax = tuple(norm_axis(a, ndim, name) for a in ax)

            def go():
                out = t
                for a in ax:
                    out = ops.roll(out, sign * (t.shape[a] // 2), a)
                return out

            return wrap(run(go))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``fft.{name}``: ``ops.roll`` by half of each axis."
        return fn

    for fn in (rfft, irfft, rfftn, irfftn, hfft, ihfft):
        setattr(fft_ns, fn.__name__, fn)
    fft_ns.fftfreq, fft_ns.rfftfreq = freq("fftfreq", False), freq("rfftfreq", True)
    fft_ns.fftshift, fft_ns.ifftshift = shift("fftshift", 1), shift("ifftshift", -1)
    return fft_ns
