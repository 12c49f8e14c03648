"""Creation functions and the data type functions.

Python values take the namespace's default dtypes (int64, float64, complex128), not
polyops' (int32, floatx): ``asarray``, ``full`` and ``arange`` pass the dtype to the op
explicitly.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes as _core_dtypes
from . import _dtypes
from ._dtypes import DTYPES, name_of

_SCALARS = (bool, int, float, complex)


def scalar_dtype(c, value, op: str) -> str:
    """The namespace's default dtype of a Python scalar."""
    t = type(value)
    if t is bool:
        return "bool"
    if t is int:
        return c.default_int
    if t is float:
        return c.default_float
    if t is complex:
        if c.default_complex is None:
            raise TypeError(f"{op}: the {c.name} backend has no complex dtypes, got {value!r}")
        return c.default_complex
    raise TypeError(f"{op}: expected a Python scalar, got {type(value).__name__}")


def _nested_dtype(c, obj, op):
    """The dtype of nested sequences of Python scalars and 0-d arrays: the arrays' promoted
    dtype with the scalars weak; without arrays, the default dtype of the highest kind
    present (complex > float > int > bool); float for an empty sequence."""
    kinds = set()
    dtypes = []

    def walk(o):
        if type(o) in _SCALARS:
            kinds.add(type(o))
        elif type(o) is c.A:
            dtypes.append(o.dtype)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        else:
            raise TypeError(f"{op}: expected nested sequences of Python scalars or arrays, "
                            f"got {type(o).__name__}")

    walk(obj)
    if dtypes:
        return c.ns.result_type(*dtypes, *(k(0) for k in kinds)).name
    for kind in (complex, float, int, bool):
        if kind in kinds:
            return scalar_dtype(c, kind(0), op)
    return c.default_float


def _to_host(c, obj):
    """Nested sequences with Arrays inside -> the same with numpy values."""
    if type(obj) is c.A:
        return np.asarray(obj)
    if isinstance(obj, (list, tuple)):
        return [_to_host(c, v) for v in obj]
    return obj


def install(ns, c):
    from .. import ops

    A, wrap, run = c.A, c.wrap, c.run

    def dtype_or(dtype, default, op):
        return default if dtype is None else name_of(dtype, op)

    def check_complex(name, op):
        if name not in c.dtypes:
            raise TypeError(f"{op}: dtype {name} is not supported on the {c.name} backend")
        return name

    def shape_arg(shape, op):
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            return (int(shape),)
        try:
            out = tuple(int(operator_index(s)) for s in shape)
        except TypeError:
            raise TypeError(f"{op}: expected a shape (ints), got {shape!r}") from None
        if any(s < 0 for s in out):
            raise ValueError(f"{op}: expected non-negative dimensions, got {shape!r}")
        return out

    def asarray(obj, /, *, dtype=None, device=None, copy=None):
        """Array API ``asarray``: an Array from an Array, a Python scalar, nested sequences,
        a buffer or another library's array (``ops.convert_to_tensor``)."""
        c.check_device(device, "asarray")
        if type(obj) is A:
            want = None if dtype is None else name_of(dtype, "asarray")
            same = want is None or want == c.dtype_of(obj._t)
            if same and not copy:
                return obj
            if copy is False:
                raise ValueError("asarray: copy=False, but a copy is needed to change the "
                                 f"dtype from {obj.dtype} to {want}")
            t = obj._t
            return wrap(run(ops.copy, t) if same else run(ops.cast, t, want))
        if type(obj) in _SCALARS:
            name = check_complex(dtype_or(dtype, scalar_dtype(c, obj, "asarray"), "asarray"),
                                 "asarray")
            if copy is False:
                raise ValueError("asarray: copy=False, but a Python scalar needs a copy")
            if type(obj) is int and name in _dtypes.INTEGRAL:
                info = np.iinfo(name)
                if not info.min <= obj <= info.max:
                    raise OverflowError(f"asarray: {obj} does not fit in {name}")
            host = np.asarray(obj, _core_dtypes.numpy_dtype(name))
            return wrap(run(ops.convert_to_tensor, host, name))
        if isinstance(obj, (list, tuple)):
            name = dtype_or(dtype, None, "asarray") or _nested_dtype(c, obj, "asarray")
            name = check_complex(name, "asarray")
            if copy is False:
                raise ValueError("asarray: copy=False, but a sequence needs a copy")
            host = np.asarray(_to_host(c, obj), dtype=_core_dtypes.numpy_dtype(name))
            return wrap(run(ops.convert_to_tensor, host, name))
        # another library's array (numpy, a framework's tensor, another namespace's), a buffer
        if isinstance(obj, A.__mro__[1]):
            obj = np.asarray(obj)
        src = getattr(obj, "dtype", None)
        if src is None:
            try:
                obj = np.asarray(memoryview(obj))
            except TypeError:
                raise TypeError(f"asarray: expected an array, a Python scalar, nested "
                                f"sequences or a buffer, got {type(obj).__name__}") from None
            src = obj.dtype
        name = check_complex(dtype_or(dtype, _core_dtypes.standardize_dtype(src), "asarray"),
                             "asarray")
        t = run(ops.convert_to_tensor, obj, name)
        if copy and t is obj:
            t = run(ops.copy, t)
        return wrap(t)

    ns.asarray = asarray

    def zeros(shape, *, dtype=None, device=None):
        """Array API ``zeros``: ``ops.zeros``."""
        c.check_device(device, "zeros")
        name = check_complex(dtype_or(dtype, c.default_float, "zeros"), "zeros")
        return wrap(run(ops.zeros, shape_arg(shape, "zeros"), name))

    def ones(shape, *, dtype=None, device=None):
        """Array API ``ones``: ``ops.ones``."""
        c.check_device(device, "ones")
        name = check_complex(dtype_or(dtype, c.default_float, "ones"), "ones")
        return wrap(run(ops.ones, shape_arg(shape, "ones"), name))

    def empty(shape, *, dtype=None, device=None):
        """Array API ``empty``: ``ops.empty``."""
        c.check_device(device, "empty")
        name = check_complex(dtype_or(dtype, c.default_float, "empty"), "empty")
        return wrap(run(ops.zeros, shape_arg(shape, "empty"), name))

    def full(shape, fill_value, *, dtype=None, device=None):
        """Array API ``full``: ``ops.full``; the dtype defaults to the fill value's."""
        c.check_device(device, "full")
        if type(fill_value) is A:
            if fill_value.ndim != 0:
                raise ValueError("full: expected a scalar fill_value, got shape "
                                 f"{fill_value.shape}")
            fill = fill_value._t
            default = c.dtype_of(fill)
        else:
            fill = fill_value
            default = scalar_dtype(c, fill_value, "full")
        name = check_complex(dtype_or(dtype, default, "full"), "full")
        return wrap(run(ops.full, shape_arg(shape, "full"), fill, name))

    def like(name, op, fill=None):
        def fn(x, /, *, dtype=None, device=None):
            c.check_device(device, name)
            t = c.un(x, name)
            d = check_complex(dtype_or(dtype, c.dtype_of(t), name), name)
            if fill is None:
                return wrap(run(op, t, d))
            return wrap(run(ops.full, tuple(t.shape), fill, d))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{op.__name__}``."
        return fn

    ns.zeros, ns.ones, ns.empty, ns.full = zeros, ones, empty, full
    ns.zeros_like = like("zeros_like", ops.zeros_like)
    ns.ones_like = like("ones_like", ops.ones_like)
    ns.empty_like = like("empty_like", ops.zeros_like)

    def full_like(x, /, fill_value, *, dtype=None, device=None):
        """Array API ``full_like``: ``ops.full_like``."""
        c.check_device(device, "full_like")
        t = c.un(x, "full_like")
        d = check_complex(dtype_or(dtype, c.dtype_of(t), "full_like"), "full_like")
        return wrap(run(ops.full, tuple(t.shape), fill_value, d))

    ns.full_like = full_like

    def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
        """Array API ``arange``: ``ops.arange``; ints give the default int dtype."""
        c.check_device(device, "arange")
        values = [v for v in (start, stop, step) if v is not None]
        if not all(type(v) in (int, float) for v in values):
            raise TypeError(f"arange: expected int or float bounds, got {values!r}")
        if step == 0:
            raise ValueError("arange: expected a non-zero step, got 0")
        default = c.default_int if all(type(v) is int for v in values) else c.default_float
        name = dtype_or(dtype, default, "arange")
        if stop is None:
            start, stop = 0, start
        return wrap(run(ops.arange, start, stop, step, name))

    ns.arange = arange

    def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
        """Array API ``linspace``: ``ops.linspace``."""
        c.check_device(device, "linspace")
        is_complex = isinstance(start, complex) or isinstance(stop, complex)
        default = c.default_complex if is_complex else c.default_float
        name = check_complex(dtype_or(dtype, default, "linspace"), "linspace")
        if name in ("complex64", "complex128"):
            return wrap(run(_complex_linspace, start, stop, num, endpoint, name))
        return wrap(run(ops.linspace, start, stop, num, endpoint, False, name))

    def _complex_linspace(start, stop, num, endpoint, name):
        real = "float32" if name == "complex64" else "float64"
        re = ops.linspace(complex(start).real, complex(stop).real, num, endpoint, False, real)
        im = ops.linspace(complex(start).imag, complex(stop).imag, num, endpoint, False, real)
        return ops.add(ops.cast(re, name), ops.multiply(ops.cast(im, name), 1j))

    ns.linspace = linspace

    def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
        """Array API ``eye``: ``ops.eye``."""
        c.check_device(device, "eye")
        name = check_complex(dtype_or(dtype, c.default_float, "eye"), "eye")
        # a diagonal beyond the matrix gives zeros: k clamped (kernels take machine ints)
        k = max(min(operator_index(k), (n_rows if n_cols is None else n_cols)), -n_rows)
        return wrap(run(ops.eye, n_rows, n_cols, k, name))

    ns.eye = eye

    def tri(name, op):
        def fn(x, /, *, k=0):
            return wrap(run(op, c.un(x, name), k))

        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Array API ``{name}``: ``polyops.ops.{name}``."
        return fn

    ns.tril, ns.triu = tri("tril", ops.tril), tri("triu", ops.triu)

    def meshgrid(*arrays, indexing="xy"):
        """Array API ``meshgrid``: ``ops.meshgrid``, a list of arrays."""
        if indexing not in ("xy", "ij"):
            raise ValueError(f"meshgrid: expected indexing 'xy' or 'ij', got {indexing!r}")
        ts = [c.un(a, "meshgrid", "arrays") for a in arrays]
        if not ts:
            return []
        return [wrap(t) for t in run(lambda: ops.meshgrid(*ts, indexing=indexing))]

    ns.meshgrid = meshgrid

    def from_dlpack(x, /, *, device=None, copy=None):
        """Array API ``from_dlpack``: an Array from any object with ``__dlpack__``."""
        c.check_device(device, "from_dlpack")
        if not hasattr(x, "__dlpack__"):
            raise TypeError("from_dlpack: expected an object with __dlpack__, got "
                            f"{type(x).__name__}")
        if type(x) is A:
            return wrap(run(ops.copy, x._t)) if copy else x
        host = np.from_dlpack(x)
        return asarray(host, copy=copy)

    ns.from_dlpack = from_dlpack

    # -- data type functions -------------------------------------------------------
    def astype(x, dtype, /, *, copy=True, device=None):
        """Array API ``astype``: ``ops.cast``."""
        c.check_device(device, "astype")
        t = c.un(x, "astype")
        name = check_complex(name_of(dtype, "astype"), "astype")
        if name == c.dtype_of(t):
            return wrap(run(ops.copy, t)) if copy else x
        return wrap(run(_cast, t, name))

    def _cast(t, name):
        src = c.dtype_of(t)
        if src in ("complex64", "complex128") and name not in ("complex64", "complex128"):
            if name == "bool":
                return ops.not_equal(t, 0)
            t = ops.real(t)
        return ops.cast(t, name)

    ns.astype = astype

    def dtype_arg(x, op):
        if type(x) is A:
            return c.dtype_of(x._t)
        return name_of(x, op)

    def can_cast(from_, to, /):
        """Array API ``can_cast``: whether the promotion rules turn ``from_`` into ``to``."""
        return _dtypes.can_cast(dtype_arg(from_, "can_cast"), name_of(to, "can_cast"))

    def finfo(type, /):
        """Array API ``finfo``: the limits of a floating dtype."""
        name = dtype_arg(type, "finfo")
        if name not in _dtypes.REAL_FLOATING + _dtypes.COMPLEX_FLOATING:
            raise TypeError(f"finfo: expected a floating dtype, got {name}")
        return _dtypes.finfo_object(name)

    def iinfo(type, /):
        """Array API ``iinfo``: the limits of an integer dtype."""
        name = dtype_arg(type, "iinfo")
        if name not in _dtypes.INTEGRAL:
            raise TypeError(f"iinfo: expected an integer dtype, got {name}")
        return _dtypes.iinfo_object(name)

    def isdtype(dtype, kind):
        """Array API ``isdtype``: whether ``dtype`` is of ``kind``."""
        return _dtypes.isdtype(dtype, kind)

    def result_type(*arrays_and_dtypes):
        """Array API ``result_type``: the promotion rules on arrays, dtypes and Python
        scalars (scalars weak; at least one array or dtype)."""
        names = []
        scalars = []
        for a in arrays_and_dtypes:
            if type(a) in _SCALARS:
                scalars.append(a)
            else:
                names.append(dtype_arg(a, "result_type"))
        if not names:
            raise TypeError("result_type: expected at least one array or dtype, got "
                            f"{arrays_and_dtypes!r}")
        out = names[0]
        for n in names[1:]:
            out = _dtypes.promote(out, n)
        for s in scalars:
            if out != "bool" or type(s) is not bool:
                out = _dtypes.promote(out, _dtypes._WEAK[type(s)])
        return DTYPES[out]

    ns.can_cast, ns.finfo, ns.iinfo = can_cast, finfo, iinfo
    ns.isdtype, ns.result_type = isdtype, result_type


def operator_index(v):
    import operator

    return operator.index(v)
