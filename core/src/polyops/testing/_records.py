"""The op table: one record per op case; it drives the generic op tests and the conformance check.

A record names the op, the shapes and dtypes of its tensor inputs, its static
arguments, and an independent NumPy computation of the expected values.  The
expected dtype is the op's symbolic dtype (the lattice), and the tests check
that every backend returns it.
"""

from __future__ import annotations

import dataclasses

from typing import Callable

import ml_dtypes
import numpy as np

FLOATS = ("float32", "float16", "bfloat16")
INTS = ("int32", "int8", "uint8", "int16")
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ("bool",)

# Tolerances by result dtype: bfloat16 keeps 8 bits of mantissa, float16 11.
TOLERANCE = {
    "float32": dict(rtol=2e-5, atol=2e-6),
    "float16": dict(rtol=2e-3, atol=2e-3),
    "bfloat16": dict(rtol=2e-2, atol=2e-2),
    "complex64": dict(rtol=2e-5, atol=2e-6),  # float32 parts
}


@dataclasses.dataclass(frozen=True)
class OpRecord:
    name: str
    shapes: tuple = ((2, 3),)  # one shape per tensor input
    np_fn: Callable | None = None  # expected values from NumPy (None: same name in numpy)
    dtypes: tuple = ("float32",)  # each case uses one dtype for all tensor inputs
    pre: tuple = ()  # static positional args placed before the tensors
    kwargs: dict = dataclasses.field(default_factory=dict)
    domain: str = "any"  # value range: any | positive | unit | small
    id: str = ""
    keep_ones: bool = False  # the None-dim test keeps size-1 dims known
    make: Callable | None = None  # make(dtype, rng) -> list of input arrays (overrides shapes)
    lists: tuple = ()  # sizes of leading input groups passed as lists (concatenate: (n,))
    tol: dict = dataclasses.field(default_factory=dict)  # dtype -> dict(rtol=, atol=) override

    @property
    def case_id(self):
        return self.id or self.name


def make_inputs(rec: OpRecord, dtype: str, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if rec.make is not None:
        return [np.asarray(a) for a in rec.make(dtype, rng)]
    out = []
    for i, shape in enumerate(rec.shapes):
        if dtype == "bool":
            a = rng.random(shape) > 0.5
        elif dtype in ("float32", "float16", "bfloat16"):
            if rec.domain == "positive":
                a = rng.uniform(0.5, 3.0, shape)
            elif rec.domain == "unit":
                a = rng.uniform(-0.9, 0.9, shape)
            else:
                a = rng.normal(0, 2, shape)
            a = a.astype(np.float32).astype(np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else dtype)
        else:
            lo = 1 if rec.domain in ("positive",) or (i > 0 and rec.domain == "divisor") else 0
            hi = 4 if rec.domain == "small" else 6
            a = rng.integers(lo, hi, shape).astype(dtype)
            if rec.domain == "divisor" and i > 0:
                a = np.maximum(a, 1).astype(dtype)
        out.append(np.asarray(a))
    return out


def _np(name):
    return getattr(np, name)


def _red(fn):
    return lambda x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims)


def _f32(a):
    """Low-precision floats compute their reference in float32."""
    if isinstance(a, np.ndarray) and a.dtype in (np.float16, np.dtype(ml_dtypes.bfloat16)):
        return a.astype(np.float32)
    return a


UNARY_FLOAT = ["exp", "sin", "cos", "tanh", "floor", "ceil"]
RECORDS: list[OpRecord] = []

# creation
RECORDS += [
    OpRecord("full", shapes=(), pre=((2, 3), 7.0), np_fn=lambda s, v: np.full(s, v, np.float32)),
    OpRecord("full", shapes=(), pre=((4,), 3), kwargs=dict(dtype="int8"), id="full-int8",
             np_fn=lambda s, v, dtype: np.full(s, v, dtype)),
    OpRecord("zeros", shapes=(), pre=((3, 0),), np_fn=lambda s: np.zeros(s, np.float32)),
    OpRecord("ones", shapes=(), pre=((2,),), kwargs=dict(dtype="bfloat16"),
             np_fn=lambda s, dtype: np.ones(s, np.float32)),
    OpRecord("zeros_like", np_fn=np.zeros_like, dtypes=ALL),
    OpRecord("ones_like", np_fn=np.ones_like, dtypes=ALL),
    OpRecord("full_like", pre=(), kwargs=dict(fill_value=2), np_fn=lambda x, fill_value: np.full_like(x, fill_value), dtypes=NUMERIC),
    OpRecord("arange", shapes=(), pre=(1, 10, 3), np_fn=np.arange),
    OpRecord("arange", shapes=(), pre=(0.0, 1.0, 0.1), np_fn=np.arange, id="arange-float"),
    OpRecord("arange", shapes=(), pre=(5,), np_fn=np.arange, id="arange-stop"),
    OpRecord("linspace", shapes=(), pre=(0.0, 1.0, 7), np_fn=np.linspace),
    OpRecord("linspace", shapes=(), pre=(2, 4, 4), kwargs=dict(endpoint=False), id="linspace-noend",
             np_fn=lambda a, b, n, endpoint: np.linspace(a, b, n, endpoint=endpoint)),
    OpRecord("eye", shapes=(), pre=(3,), np_fn=np.eye),
    OpRecord("eye", shapes=(), pre=(2, 4, 1), np_fn=np.eye, id="eye-rect-k"),
]

# elementwise unary
RECORDS += [OpRecord(n, dtypes=NUMERIC, np_fn=lambda x, f=_np(n): f(x.astype(np.float64))) for n in UNARY_FLOAT]
RECORDS += [
    OpRecord("log", domain="positive", dtypes=FLOATS + ("int32",)),
    OpRecord("sqrt", domain="positive", dtypes=FLOATS + ("int32",)),
    OpRecord("abs", dtypes=ALL),
    OpRecord("abs", shapes=((),), id="abs-0d"),
    OpRecord("negative", dtypes=NUMERIC + ("bool",), np_fn=lambda x: np.negative(x.astype(np.int32) if x.dtype == bool else x)),
    OpRecord("sign", dtypes=FLOATS + ("int32", "int8")),
    OpRecord("square", dtypes=NUMERIC + ("bool",), np_fn=lambda x: np.square(x.astype(np.int32) if x.dtype == bool else x)),
    OpRecord("round", np_fn=np.round, dtypes=("float32", "int32")),
    OpRecord("round", kwargs=dict(decimals=1), np_fn=lambda x, decimals: np.round(x, decimals), id="round-decimals"),
]

# elementwise binary
for name in ["add", "subtract", "multiply", "maximum", "minimum"]:
    RECORDS.append(OpRecord(name, shapes=((2, 3), (3,)), dtypes=NUMERIC))
RECORDS += [
    OpRecord("add", shapes=((), (2, 1, 3)), id="add-0d-broadcast"),
    OpRecord("add", shapes=((2, 0), (1, 0)), id="add-zero-size"),
    OpRecord("divide", shapes=((2, 3), (2, 3)), domain="positive", dtypes=FLOATS + ("int32", "uint8")),
    OpRecord("floor_divide", shapes=((4, 3), (3,)), domain="divisor", dtypes=("float32", "int32", "int8")),
    OpRecord("mod", shapes=((4, 3), (3,)), domain="divisor", dtypes=("float32", "int32", "uint8")),
    OpRecord("power", shapes=((2, 3), (2, 3)), domain="positive", dtypes=("float32", "int32")),
    OpRecord("clip", shapes=((3, 4),), kwargs=dict(x_min=-1, x_max=1), np_fn=lambda x, x_min, x_max: np.clip(x, x_min, x_max), dtypes=("float32", "int32", "float16")),
]
for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
    RECORDS.append(OpRecord(name, shapes=((3, 4), (4,)), dtypes=("float32", "int32", "int8", "bool")))
for name in ["logical_and", "logical_or"]:
    RECORDS.append(OpRecord(name, shapes=((3, 4), (3, 4)), dtypes=("bool", "float32", "int32")))
RECORDS += [
    OpRecord("logical_not", dtypes=("bool", "float32", "int32")),
    OpRecord("where", shapes=((3, 4), (3, 4), (4,)), dtypes=("float32", "int32"),
             np_fn=lambda c, a, b: np.where(c.astype(bool), a, b)),
]

# reductions
for name in ["sum", "prod", "max", "min", "mean", "std", "var"]:
    RECORDS.append(OpRecord(name, shapes=((3, 4, 5),), np_fn=_red(_np(name)), dtypes=("float32", "float16") if name in ("mean", "std", "var") else ("float32", "int32")))
    RECORDS.append(OpRecord(name, shapes=((3, 4, 5),), kwargs=dict(axis=(0, -1), keepdims=True), id=f"{name}-axes-keepdims", np_fn=_red(_np(name))))
    RECORDS.append(OpRecord(name, shapes=((3, 4, 5),), kwargs=dict(axis=1), id=f"{name}-axis1", np_fn=_red(_np(name))))
RECORDS += [
    OpRecord("sum", shapes=((4, 5),), dtypes=("bool", "int8", "uint8"), id="sum-widen", np_fn=lambda x: np.sum(x.astype(np.int64))),
    OpRecord("sum", shapes=((0, 3),), kwargs=dict(axis=0), id="sum-empty", np_fn=_red(np.sum)),
    OpRecord("mean", shapes=((3, 4),), dtypes=("int32",), id="mean-int", np_fn=_red(np.mean)),
    OpRecord("prod", shapes=((3, 4),), kwargs=dict(axis=1, dtype="float32"), dtypes=("int8",), id="prod-dtype",
             np_fn=lambda x, axis, dtype: np.prod(x, axis=axis, dtype=dtype)),
    OpRecord("max", shapes=((0, 3),), kwargs=dict(axis=0, initial=-1.0), id="max-empty-initial",
             np_fn=lambda x, axis, initial: np.max(x, axis=axis, initial=initial)),
    OpRecord("argmax", shapes=((3, 4),), kwargs=dict(axis=1), np_fn=lambda x, axis: np.argmax(x, axis=axis), dtypes=("float32", "int32")),
    OpRecord("argmax", shapes=((3, 4),), np_fn=np.argmax, id="argmax-flat"),
    OpRecord("argmin", shapes=((3, 4),), kwargs=dict(axis=-1, keepdims=True), np_fn=lambda x, axis, keepdims: np.argmin(x, axis=axis, keepdims=keepdims)),
    OpRecord("all", shapes=((3, 4),), kwargs=dict(axis=0), np_fn=lambda x, axis: np.all(x, axis=axis), dtypes=("bool", "float32")),
    OpRecord("any", shapes=((3, 4),), kwargs=dict(axis=1, keepdims=True), np_fn=lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims), dtypes=("bool", "int32")),
    OpRecord("all", shapes=((3, 4),), np_fn=np.all, id="all-flat", dtypes=("bool",)),
]

# shape
RECORDS += [
    OpRecord("reshape", shapes=((2, 6),), kwargs=dict(newshape=(3, -1)), np_fn=lambda x, newshape: np.reshape(x, newshape), dtypes=ALL),
    OpRecord("reshape", shapes=((2, 3),), kwargs=dict(newshape=(6,)), np_fn=lambda x, newshape: np.reshape(x, newshape), id="reshape-flat"),
    OpRecord("transpose", shapes=((2, 3, 4),), np_fn=np.transpose, dtypes=ALL),
    OpRecord("transpose", shapes=((2, 3, 4),), kwargs=dict(axes=(1, 0, 2)), id="transpose-axes",
             np_fn=lambda x, axes: np.transpose(x, axes)),
    OpRecord("expand_dims", shapes=((2, 3),), kwargs=dict(axis=-1), np_fn=lambda x, axis: np.expand_dims(x, axis)),
    OpRecord("expand_dims", shapes=((2, 3),), kwargs=dict(axis=(0, 2)), np_fn=lambda x, axis: np.expand_dims(x, axis), id="expand_dims-tuple"),
    # squeeze(axis=None) drops only dims known to be 1, so its None-dim case keeps the 1s known.
    OpRecord("squeeze", shapes=((1, 3, 1),), np_fn=np.squeeze, keep_ones=True),
    OpRecord("squeeze", shapes=((1, 3, 1),), kwargs=dict(axis=-1), id="squeeze-axis", np_fn=lambda x, axis: np.squeeze(x, axis)),
    OpRecord("broadcast_to", shapes=((3,),), kwargs=dict(shape=(2, 3)), np_fn=lambda x, shape: np.broadcast_to(x, shape), dtypes=("float32", "bool")),
    OpRecord("flip", shapes=((2, 3, 4),), np_fn=np.flip, dtypes=("float32", "int32", "bool")),
    OpRecord("flip", shapes=((2, 3, 4),), kwargs=dict(axis=(0, -1)), id="flip-axes", np_fn=lambda x, axis: np.flip(x, axis)),
    OpRecord("take", shapes=((4, 5),), kwargs=dict(indices=np.array([0, 3, -1], np.int32), axis=1),
             np_fn=lambda x, indices, axis: np.take(x, indices, axis=axis)),
    OpRecord("take", shapes=((4, 5),), kwargs=dict(indices=np.array([[1, 2], [7, -3]], np.int32)), id="take-flat",
             np_fn=lambda x, indices: np.take(x, indices)),
    OpRecord("get_item", shapes=((4, 5, 6),), pre=(), kwargs=dict(key=(slice(1, None, 2), -1, None, slice(None, None, -2))),
             np_fn=lambda x, key: x[key], dtypes=("float32", "int32")),
    OpRecord("get_item", shapes=((4, 5),), kwargs=dict(key=(Ellipsis, 2)), id="get_item-ellipsis", np_fn=lambda x, key: x[key]),
]


RECORDS += [
    OpRecord("concatenate", shapes=((2, 3), (4, 3)), lists=(2,), dtypes=ALL),
    OpRecord("concatenate", shapes=((2, 3), (2, 1)), kwargs=dict(axis=-1), id="concatenate-last", lists=(2,)),
    OpRecord("stack", shapes=((2, 3), (2, 3), (2, 3)), kwargs=dict(axis=1), lists=(3,), dtypes=("float32", "int32")),
    OpRecord("matmul", shapes=((2, 3), (3, 4)), dtypes=("float32", "int32", "int8", "float16")),
    OpRecord("matmul", shapes=((5, 2, 3), (3,)), id="matmul-batch-vec", np_fn=np.matmul),
    OpRecord("matmul", shapes=((3,), (2, 3, 4)), id="matmul-vec-batch", np_fn=np.matmul),
    OpRecord("matmul", shapes=((2, 1, 2, 3), (4, 3, 2)), id="matmul-broadcast", np_fn=np.matmul),
    OpRecord("dot", shapes=((2, 3), (4, 3, 5)), np_fn=np.dot, dtypes=("float32", "int32")),
    OpRecord("dot", shapes=((3,), (3,)), np_fn=np.dot, id="dot-vec"),
    OpRecord("dot", shapes=((), (2, 3)), np_fn=np.dot, id="dot-scalar"),
    OpRecord("einsum", shapes=((2, 3), (3, 4)), pre=("ij,jk->ik",), np_fn=np.einsum, dtypes=("float32", "int32")),
    OpRecord("einsum", shapes=((5, 2, 3), (5, 3)), pre=("...ij,...j->...i",), np_fn=np.einsum, id="einsum-ellipsis"),
    OpRecord("einsum", shapes=((3, 3),), pre=("ii",), np_fn=np.einsum, id="einsum-trace"),
]

# core and nn


def _sigmoid(x):
    return 1 / (1 + np.exp(-x.astype(np.float64)))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


RECORDS += [
    OpRecord("cast", pre=(), kwargs=dict(dtype="int32"), np_fn=lambda x, dtype: x.astype(dtype), dtypes=("float32", "bool", "uint8")),
    OpRecord("cast", kwargs=dict(dtype="bfloat16"), id="cast-bf16", np_fn=lambda x, dtype: x.astype(np.float32)),
    OpRecord("relu", np_fn=lambda x: np.maximum(x, 0), dtypes=("float32", "float16", "int32")),
    OpRecord("sigmoid", np_fn=_sigmoid, dtypes=FLOATS),
    OpRecord("softmax", shapes=((3, 5),), np_fn=_softmax, dtypes=("float32", "float16")),
    OpRecord("softmax", shapes=((3, 5),), kwargs=dict(axis=0), id="softmax-axis0", np_fn=_softmax),
]


def cases():
    """(record, dtype) pairs with readable ids."""
    out = []
    for rec in RECORDS:
        for dtype in rec.dtypes if rec.shapes else ("-",):
            out.append((rec, dtype))
    return out


def case_id(case) -> str:
    rec, dtype = case
    return f"{rec.case_id}-{dtype}"


def arrange(rec: OpRecord, inputs) -> list:
    """The record's tensor arguments in call order: leading groups as lists (``rec.lists``)."""
    inputs = list(inputs)
    args, i = [], 0
    for n in rec.lists:
        args.append(inputs[i:i + n])
        i += n
    return args + inputs[i:]


def expected(rec: OpRecord, inputs):
    fn = rec.np_fn or _np(rec.name)
    args = arrange(rec, [_f32(a) for a in inputs])
    return fn(*rec.pre, *args, **rec.kwargs)


# Ops whose low-precision results come from long sums: the order of accumulation shows.
_ACCUMULATING = frozenset({"std", "var", "mean", "softmax", "sum", "prod", "matmul", "dot", "einsum",
                           "tensordot", "inner", "vdot", "outer", "kron", "correlate"})


def tolerance(dtype: str, name: str, rec: OpRecord | None = None) -> dict:
    if rec is not None and dtype in rec.tol:
        return dict(rec.tol[dtype])
    tol = dict(TOLERANCE.get(dtype, dict(rtol=0, atol=0)))
    if name in _ACCUMULATING and dtype in ("float16", "bfloat16"):
        tol = dict(rtol=3e-2, atol=3e-2 * (10 if name in ("sum", "var", "prod") else 1))
    return tol


# The catalogue's records, one module per submodule of polyops.ops.numpy and of polyops.ops.nn,
# polyops.ops.math and polyops.ops.image, one for linalg and one for core's new ops.
GROUPS = ("elementwise", "logic", "indexing", "manipulation", "sorting", "statistics", "products",
          "nn_activations", "nn_conv", "nn_losses", "nn_normalization", "math_functions", "math_fft",
          "linalg", "image_basic", "image_sampling", "core")


def _load_groups():
    import importlib

    for group in GROUPS:
        RECORDS.extend(importlib.import_module(f"{__package__}._records_{group}").RECORDS)


_load_groups()

__all__ = ["RECORDS", "OpRecord", "arrange", "cases", "case_id", "make_inputs", "expected",
           "tolerance"]
