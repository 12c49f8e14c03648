"""A bad-input corpus generated from the op table: every invalid call raises, on every backend.

For every op, starting from a valid call in the op table, the generator makes
invalid variants: non-numeric data, None and arbitrary objects where a tensor
belongs, unknown keywords, out-of-range and non-integer axes, invalid dtype
strings, incompatible shapes, wrong ranks, negative sizes, dtypes the op does
not accept, and symbolic misuse.  Each case fixes the exception type, so one
type on every backend is asserted, and the message must name the op and the
offending value.  New ops get their cases automatically.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops._op import OPS
from polyops.testing import RECORDS, make_inputs
from polyops.testing._records import arrange

ORDERED = {"maximum", "minimum", "less", "less_equal", "greater", "greater_equal", "max", "min",
           "argmax", "argmin", "floor", "ceil", "sign", "clip", "floor_divide", "mod", "round", "relu"}


def _first_records():
    seen = {}
    for rec in RECORDS:
        seen.setdefault(rec.name, rec)
    return list(seen.values())


def _valid(rec):
    """(positional args, kwargs, indices of tensor args) of a valid call."""
    inputs = make_inputs(rec, rec.dtypes[0]) if rec.shapes else []
    if rec.lists:  # tensors inside lists: the list cases below cover them
        return list(rec.pre) + arrange(rec, inputs), dict(rec.kwargs), []
    pos = list(rec.pre) + list(inputs)
    return pos, dict(rec.kwargs), list(range(len(rec.pre), len(pos)))


def _first(result):
    """The first output of a multi-output op (slogdet, split...), else the result."""
    return result[0] if isinstance(result, (tuple, list)) else result


def _call(name, args, kwargs):
    return lambda: OPS[name].public(*args, **kwargs)


def generate():
    cases = []

    def add(op, what, fn, exc, *fragments):
        cases.append((f"{op}-{what}", fn, exc, (op,) + fragments))

    for rec in _first_records():
        name = rec.name
        op = OPS[name]
        args, kwargs, tensor_pos = _valid(rec)
        params = inspect.signature(OPS[name].public).parameters
        # wrong argument types where a tensor belongs
        for i in tensor_pos:
            # control flow takes nested structures there: a dict, or None, is a valid one
            structure = op.tree and op.params[min(i, len(op.params) - 1)] not in ("pred", "index")
            for label, bad, frag in (("strings", ["a", "b"], "'a'"), ("object", object(), "object"),
                                     ("dict", {"k": 1}, "dict"), ("nested-strings", [["x"]], "'x'")):
                if structure and label == "dict":
                    continue
                a = list(args)
                a[i] = bad
                add(name, f"arg{i}-{label}", _call(name, a, kwargs), TypeError, frag)
            if op.params[min(i, len(op.params) - 1)] not in op.optional and not structure:
                a = list(args)
                a[i] = None
                add(name, f"arg{i}-none", _call(name, a, kwargs), TypeError, "None")
        if name in ("concatenate", "stack"):
            add(name, "list-with-strings", _call(name, [[args[0][0], "a"]], kwargs), TypeError, "'a'")
            add(name, "not-a-list", _call(name, [args[0][0]], kwargs), TypeError, "sequence")
            add(name, "none-list", _call(name, [None], kwargs), TypeError, "None")
            add(name, "empty-list", _call(name, [[]], kwargs), ValueError, "at least one")
        # unknown keyword arguments
        for kw in ("bogus", "out", "axes_"):
            if kw not in params:
                add(name, f"kwarg-{kw}", _call(name, args, {**kwargs, kw: 1}), TypeError, kw)
        # axes
        if "axis" in params and rec.shapes:
            first = args[len(rec.pre)] if rec.lists else args[tensor_pos[0]:tensor_pos[0] + 1]
            ndim = max(np.ndim(a) for a in first)
            for bad in (ndim + 3, -(ndim + 4), 99):
                add(name, f"axis-{bad}", _call(name, args, {**kwargs, "axis": bad}), ValueError, f"axis={bad}")
            for bad, frag in (("1", "axis='1'"), (1.5, "axis=1.5")):
                add(name, f"axis-type-{bad}", _call(name, args, {**kwargs, "axis": bad}), TypeError, frag)
        # dtype strings
        if "dtype" in params:
            for bad in ("float33", "int99", "floot", "uint7"):
                add(name, f"dtype-{bad}", _call(name, args, {**kwargs, "dtype": bad}), TypeError, bad)
        # sizes and shapes of creation ops
        if "shape" in params and not rec.shapes:
            for bad, exc, frag in (((2, -3), ValueError, "(2, -3)"), ((-1,), ValueError, "(-1,)"),
                                   (("a", 2), TypeError, "'a'"), ("ab", TypeError, "'ab'"),
                                   ((2.5,), TypeError, "2.5")):
                a = list(args)
                a[0] = bad
                add(name, f"shape-{bad}", _call(name, a, kwargs), exc, frag)
        # dtypes the op does not accept
        if name in ORDERED and rec.shapes:
            a = list(args)
            for i in tensor_pos:
                a[i] = np.asarray(a[i]).astype("complex64")
            add(name, "complex", _call(name, a, kwargs), TypeError, "complex64")
        # incompatible shapes and wrong ranks for elementwise binary ops
        if op.elementwise == "binary":
            # in the valid call's dtypes, so only the shapes are wrong (gcd rejects floats)
            d1, d2 = (np.asarray(args[i]).dtype for i in tensor_pos[:2])
            add(name, "shapes", _call(name, [np.ones((2, 3), d1), np.ones((4, 5), d2)], {}),
                ValueError, "(2, 3)", "(4, 5)")
            add(name, "shapes-rank", _call(name, [np.ones((2, 3, 4), d1), np.ones((3, 3), d2)], {}),
                ValueError, "(2, 3, 4)")
        # symbolic misuse: the value of a symbolic result does not exist yet
        if rec.shapes and not rec.lists:
            specs = list(args)
            for i in tensor_pos:
                arr = np.asarray(args[i])
                specs[i] = SymbolicTensor(arr.shape, polyops.standardize_dtype(arr.dtype))
            sym = lambda name=name, specs=specs, kw=kwargs: OPS[name].public(*specs, **kw)  # noqa: E731
            add(name, "bool-of-symbolic", lambda sym=sym: bool(_first(sym())), TypeError, "bool")
            add(name, "numpy-of-symbolic", lambda sym=sym: ops.convert_to_numpy(_first(sym())), TypeError, "SymbolicTensor")
            cases[-1] = (cases[-1][0], cases[-1][1], cases[-1][2], ("convert_to_numpy", "SymbolicTensor"))
            cases[-2] = (cases[-2][0], cases[-2][1], cases[-2][2], ("bool", "SymbolicTensor"))
    # wrong ranks and specific invalid values
    x = np.ones((2, 3), "float32")
    extra = [
        ("matmul-0d", lambda: ops.matmul(np.float32(1), x), ValueError, ("matmul", "()")),
        ("concatenate-0d", lambda: ops.concatenate([np.float32(1), np.float32(2)]), ValueError, ("concatenate", "()")),
        ("reshape-negative", lambda: ops.reshape(x, (-2, 3)), ValueError, ("reshape", "-2")),
        ("transpose-short", lambda: ops.transpose(x, (0,)), ValueError, ("transpose", "(0,)")),
        ("expand_dims-dup", lambda: ops.expand_dims(x, (0, 0)), ValueError, ("expand_dims", "(0, 0)")),
        ("eye-negative", lambda: ops.eye(-1), ValueError, ("eye", "N=-1")),
        ("linspace-negative", lambda: ops.linspace(0, 1, -2), ValueError, ("linspace", "num=-2")),
        ("arange-string", lambda: ops.arange("3"), TypeError, ("arange", "'3'")),
        ("take-bool-indices", lambda: ops.take(x, np.array([True])), TypeError, ("take", "bool")),
        ("einsum-bad-letter", lambda: ops.einsum("i1,i->", x[0], x[0]), ValueError, ("einsum", "'1'")),
        ("round-decimals", lambda: ops.round(x, 1.5), TypeError, ("round", "1.5")),
        ("full-tensor-fill", lambda: ops.full((2,), SymbolicTensor((2,))), TypeError, ("full", "SymbolicTensor")),
        # out-of-range indices and labels (more in tests/test_indices.py)
        ("take-index-range", lambda: ops.take(x, np.array([6], "int32")), polyops.IndexOutOfRangeError,
         ("take", "got 6")),
        ("take_along_axis-index-range", lambda: ops.take_along_axis(x, np.array([[0], [-4]], "int32"), 1),
         polyops.IndexOutOfRangeError, ("take_along_axis", "got -4")),
        ("one_hot-label-range", lambda: ops.one_hot(np.array([3], "int32"), 3), polyops.IndexOutOfRangeError,
         ("one_hot", "got 3")),
        ("scatter-index-range", lambda: ops.scatter(np.array([[4]], "int32"), x[0, :1], (4,)),
         polyops.IndexOutOfRangeError, ("scatter", "got 4")),
        ("scatter_update-index-range", lambda: ops.scatter_update(x, np.array([[2]], "int32"), x[:1]),
         polyops.IndexOutOfRangeError, ("scatter_update", "got 2")),
        ("sparse_categorical_crossentropy-label-range",
         lambda: ops.sparse_categorical_crossentropy(np.array([0, 3], "int32"), x),
         polyops.IndexOutOfRangeError, ("sparse_categorical_crossentropy", "got 3")),
    ]
    return cases + extra


CASES = generate()


def test_corpus_is_large_enough():
    assert len(CASES) >= 500


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_invalid_call_raises(case, backend):
    _, fn, exc_type, fragments = case
    with polyops.use_backend(backend):
        with pytest.raises(Exception) as info:
            fn()
    assert type(info.value) is exc_type or (
        isinstance(info.value, exc_type) and type(info.value).__module__.startswith(("polyops", "builtins"))
    ), f"{type(info.value).__name__}: {info.value}"
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
