"""Op records of `polyops.ops.core`'s tensor and control-flow ops (see
`polyops.testing._records` for the fields).

The control-flow records pass module-level callables written with polyops ops as static
leading arguments (``pre``); each record's NumPy function recomputes the same loop or
branch with NumPy, ignoring those callables.  Their bodies keep the carry's dtype (Python
ints are weak, ``cast`` converts the loop index), as the ops require.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._records import OpRecord

_FI = ("float32", "int32")
_FIH = ("float32", "int32", "float16")
_FIB = ("float32", "int32", "bool")


def _ops():
    from .. import ops

    return ops


def _arr(dtype, rng, shape, lo=-5, hi=6):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype.startswith("u") else lo, hi, shape).astype(dtype)
    a = rng.normal(0, 2, shape).astype(np.float32)
    return a.astype(ml_dtypes.bfloat16) if dtype == "bfloat16" else a.astype(dtype)


def _idx(*rows):
    return np.array(rows, np.int32)


# ----- scatter -------------------------------------------------------------------------------


def _wrap(row, dims):
    """A row of indices with negatives wrapped once; None when it falls out of range."""
    out = []
    for i, d in zip(row, dims):
        i = int(i) + d if i < 0 else int(i)
        if not 0 <= i < d:
            return None
        out.append(i)
    return tuple(out)


def _scatter_np(indices, values, shape):
    out = np.zeros(shape, values.dtype)
    k = indices.shape[-1]
    for row, v in zip(indices.reshape(-1, k), values.reshape((-1,) + tuple(shape[k:]))):
        pos = _wrap(row, shape[:k])
        if pos is not None:
            out[pos] = (out[pos] | v) if values.dtype == bool else out[pos] + v
    return out


def _scatter_make(ishape, lo, hi, vshape):
    def make(dtype, rng):
        return [rng.integers(lo, hi, ishape).astype(np.int32), _arr(dtype, rng, vshape)]

    return make


def _scatter_update_np(inputs, indices, updates, reduction=None):
    out = inputs.copy()
    k = indices.shape[-1]
    combine = {None: lambda a, b: b, "add": np.add, "max": np.maximum, "min": np.minimum,
               "mul": np.multiply}[reduction]
    for row, u in zip(indices.reshape(-1, k), updates.reshape((-1,) + inputs.shape[k:])):
        pos = _wrap(row, inputs.shape[:k])
        if pos is not None:  # rows in order: for None the last duplicate wins
            out[pos] = combine(out[pos], u.astype(inputs.dtype))
    return out


def _update_make(shape, indices, ushape, udtype=None):
    def make(dtype, rng):
        return [_arr(dtype, rng, shape), np.asarray(indices, np.int32),
                _arr(udtype or dtype, rng, ushape)]

    return make


RECORDS = [
    # duplicates add up (the docstring's example), bool values OR together
    OpRecord("scatter", np_fn=_scatter_np, kwargs=dict(shape=(4,)), dtypes=_FIB + ("float16",),
             make=lambda dtype, rng: [_idx([0], [2], [0]), _arr(dtype, rng, (3,))]),
    # k < rank: each index row places a whole (3,) row; batched (2, 2, 1) indices
    OpRecord("scatter", id="scatter-rows", np_fn=_scatter_np, kwargs=dict(shape=(5, 3)),
             make=_scatter_make((2, 2, 1), 0, 5, (2, 2, 3)), dtypes=_FI),
    # k == rank, negative indices wrap (out-of-range ones: tests/test_indices.py)
    OpRecord("scatter", id="scatter-full-negative", np_fn=_scatter_np,
             kwargs=dict(shape=(3, 4)), dtypes=_FI,
             make=lambda dtype, rng: [_idx([0, 1], [-1, -4], [2, 2], [-3, 0], [0, -1], [1, 3]),
                                      _arr(dtype, rng, (6,))]),
]

RECORDS += [
    # reduction=None: the last of duplicate updates wins (row 1 gets updates[2])
    OpRecord("scatter_update", np_fn=_scatter_update_np, dtypes=_FIB,
             make=_update_make((5, 3), [[1], [3], [1]], (3, 3))),
    OpRecord("scatter_update", id="scatter_update-full-negative", np_fn=_scatter_update_np,
             make=_update_make((3, 4), [[0, 0], [-1, -1], [2, 3], [-3, 0], [0, 0]], (5,)),
             dtypes=_FI),
    # updates of another dtype are cast to the inputs' dtype
    OpRecord("scatter_update", id="scatter_update-cast-updates", np_fn=_scatter_update_np,
             make=_update_make((4,), [[2], [0]], (2,), udtype="int32"), dtypes=("float32",)),
]
for _r in ("add", "max", "min", "mul"):
    RECORDS.append(OpRecord(
        "scatter_update", id=f"scatter_update-{_r}", kwargs=dict(reduction=_r),
        np_fn=_scatter_update_np, dtypes=("float32", "int32"),
        make=_update_make((4, 2), [[1], [3], [1], [-3], [-4]], (5, 2))))


# ----- slice / slice_update ---------------------------------------------------------------------


def _clamped(starts, dims, sizes):
    return [min(max(int(s), 0), d - n) for s, d, n in zip(starts, dims, sizes)]


def _slice_np(x, start_indices, shape):
    sizes = [d - min(max(int(s), 0), d) if n == -1 else n
             for s, d, n in zip(start_indices, x.shape, shape)]
    starts = _clamped(start_indices, x.shape, sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes))]


def _slice_update_np(inputs, start_indices, updates):
    out = inputs.copy()
    starts = _clamped(start_indices, inputs.shape, updates.shape)
    out[tuple(slice(s, s + n) for s, n in zip(starts, updates.shape))] = updates.astype(inputs.dtype)
    return out


_UPD = np.array([[10, 20], [30, 40]], np.float32)

RECORDS += [
    OpRecord("slice", shapes=((4, 5),), kwargs=dict(start_indices=(1, 2), shape=(2, 3)),
             np_fn=_slice_np, dtypes=_FIB + ("float16",)),
    # starts clamp so that the block fits: 3 -> 2 (4 - 2), -2 -> 0
    OpRecord("slice", id="slice-clamped", shapes=((4, 5),),
             kwargs=dict(start_indices=(3, -2), shape=(2, 3)), np_fn=_slice_np),
    # -1 takes the rest of the dim
    OpRecord("slice", id="slice-rest", shapes=((4, 5, 2),),
             kwargs=dict(start_indices=(1, 0, 1), shape=(-1, 2, -1)), np_fn=_slice_np, dtypes=_FI),
    # the starts as an int32 tensor (clamped too: 7 -> 2)
    OpRecord("slice", id="slice-tensor-starts", kwargs=dict(shape=(2, 2)), np_fn=_slice_np,
             make=lambda dtype, rng: [_arr(dtype, rng, (4, 5)), _idx(1, 7)], dtypes=_FI),
    # start_indices and updates by keyword: a record's tensor inputs come first
    OpRecord("slice_update", shapes=((4, 5),), kwargs=dict(start_indices=(1, 2), updates=_UPD),
             np_fn=_slice_update_np, dtypes=_FIH),
    OpRecord("slice_update", id="slice_update-clamped", shapes=((4, 5),),
             kwargs=dict(start_indices=(5, -3), updates=_UPD), np_fn=_slice_update_np),
    OpRecord("slice_update", id="slice_update-tensor-starts", np_fn=_slice_update_np, dtypes=_FI,
             make=lambda dtype, rng: [_arr(dtype, rng, (4, 5)), _idx(2, 4),
                                      _arr(dtype, rng, (2, 3))]),
]


# ----- saturate_cast / stop_gradient -----------------------------------------------------------

_WILD = [-1e10, -70000.0, -300.0, -128.5, -1.5, -0.5, 0.0, 0.7, 1.7, 127.9, 200.0, 255.5, 300.0,
         70000.0, 3e9, 1e10, np.inf, -np.inf]


def _limits(src, dst):
    """The clip bounds in the source dtype: the target's range, rounded inward where the
    source cannot hold the target's bound exactly (float32 holds 2**31, not 2**31 - 1)."""
    sd = np.dtype(ml_dtypes.bfloat16) if src == "bfloat16" else np.dtype(src)
    info = np.iinfo(dst) if dst.startswith(("int", "uint")) else np.finfo(dst)
    lo, hi = np.asarray(info.min).astype(sd), np.asarray(info.max).astype(sd)
    if float(lo) < float(info.min):
        lo = np.nextafter(lo, np.zeros_like(lo))  # one ulp of the source dtype inward
    if float(hi) > float(info.max):
        hi = np.nextafter(hi, np.zeros_like(hi))
    return float(lo), float(hi)


def _saturate_np(src):
    def fn(x, dtype):
        # (the input's own dtype: 64-bit mode widens the record's float32 inputs)
        lo, hi = _limits("bfloat16" if x.dtype.name == "bfloat16" else x.dtype.name, dtype)
        return np.clip(x.astype(np.float64), lo, hi).astype(dtype)

    return fn


def _wild(src, values=_WILD):
    def make(dtype, rng):
        a = np.asarray(values, np.float64)
        if src.startswith("int"):
            a = np.clip(a, np.iinfo(src).min, np.iinfo(src).max)
        return [a.astype(np.dtype(ml_dtypes.bfloat16) if src == "bfloat16" else src)]

    return make


RECORDS += [
    OpRecord("saturate_cast", id=f"saturate_cast-{s}-{d}", kwargs=dict(dtype=d), dtypes=(s,),
             make=_wild(s), np_fn=_saturate_np(s))
    for s, d in [("float32", "uint8"), ("float32", "int8"), ("float32", "int32"),
                 ("float32", "float16"), ("int32", "int8"), ("bfloat16", "uint8"),
                 ("float16", "int8")]
]

RECORDS += [
    OpRecord("stop_gradient", np_fn=lambda x: x, dtypes=("float32", "float16", "int32", "bool")),
    OpRecord("stop_gradient", id="stop_gradient-0d", shapes=((),), np_fn=lambda x: x),
]


# ----- control flow ----------------------------------------------------------------------------
# Each polyops callable has a NumPy twin (the record's np_fn loops over it).


def _step(c, x):
    return c + x, c * 2 - x


def _step_np(c, x):
    return c + x, c * 2 - x


def _dot_step(c, x):
    return c + x, _ops().sum(c * x)


def _dot_step_np(c, x):
    return c + x, np.sum(c * x)


def _count_step(c, x):  # xs=None: x is None
    return c + 1, c * c


def _count_step_np(c, x):
    return c + 1, c * c


def _scan_np(step):
    def fn(f, init, xs=None, length=None, reverse=False):
        n = len(xs) if xs is not None else length
        order = range(n - 1, -1, -1) if reverse else range(n)
        carry, ys = init, [None] * n
        for i in order:
            carry, ys[i] = step(carry, None if xs is None else xs[i])
        return carry, np.stack([np.asarray(y, init.dtype) for y in ys])

    return fn


RECORDS += [
    OpRecord("scan", shapes=((3,), (5, 3)), pre=(_step,), np_fn=_scan_np(_step_np), dtypes=_FIH),
    OpRecord("scan", id="scan-reverse", shapes=((3,), (5, 3)), pre=(_step,),
             kwargs=dict(reverse=True), np_fn=_scan_np(_step_np), dtypes=_FI),
    # y of another shape than the carry: a scalar per step
    OpRecord("scan", id="scan-scalar-y", shapes=((3,), (4, 3)), pre=(_dot_step,),
             np_fn=_scan_np(_dot_step_np), dtypes=_FI),
    # no xs: loop `length` times with x=None
    OpRecord("scan", id="scan-length", shapes=((2,),), pre=(_count_step,), kwargs=dict(length=4),
             np_fn=_scan_np(_count_step_np), dtypes=_FI, domain="small"),
]


def _square_sum(x):
    return _ops().sum(x * x)


def _affine(x):
    return x * 3 - 1


def _map_np(f_np):
    return lambda f, xs: np.stack([np.asarray(f_np(x), xs.dtype) for x in xs])


RECORDS += [
    OpRecord(op, shapes=((4, 3),), pre=(_square_sum,), np_fn=_map_np(lambda x: np.sum(x * x)),
             dtypes=_FI)
    for op in ("map", "vectorized_map")
] + [
    OpRecord(op, id=f"{op}-elementwise", shapes=((4, 2, 3),), pre=(_affine,),
             np_fn=_map_np(lambda x: x * 3 - 1), dtypes=_FIH)
    for op in ("map", "vectorized_map")
]


def _add(a, b):
    return a + b


def _maximum(a, b):
    return _ops().maximum(a, b)


def _assoc_np(ufunc):
    def fn(f, elems, reverse=False, axis=0):
        x = np.flip(elems, axis) if reverse else elems
        out = ufunc.accumulate(x, axis=axis)
        return np.flip(out, axis) if reverse else out

    return fn


RECORDS += [
    OpRecord("associative_scan", shapes=((5, 3),), pre=(_add,), np_fn=_assoc_np(np.add), dtypes=_FI),
    OpRecord("associative_scan", id="associative_scan-reverse-axis1", shapes=((2, 6),), pre=(_add,),
             kwargs=dict(reverse=True, axis=1), np_fn=_assoc_np(np.add), dtypes=_FI),
    # max is exact in every dtype: low-precision floats too
    OpRecord("associative_scan", id="associative_scan-max", shapes=((7, 2),), pre=(_maximum,),
             np_fn=_assoc_np(np.maximum), dtypes=("float32", "float16", "int8")),
]


def _fori_body(i, v):
    # i is a Python int in the reference and an int32 tensor in native kernels
    ops = _ops()
    return v * 2 + ops.convert_to_tensor(i, ops.dtype(v))


def _fori_np(lower, upper, body, init):
    v = init
    for i in range(lower, upper):
        v = (v * 2 + i).astype(init.dtype)
    return v


def _below_100(x):
    return _ops().sum(x) < 100


def _grow(x):
    return x * 2 + 1


def _while_np(cond, body, x, maximum_iterations=None):
    i = 0
    while np.sum(x) < 100 and (maximum_iterations is None or i < maximum_iterations):
        x, i = (x * 2 + 1).astype(x.dtype), i + 1
    return x


def _pair_cond(x, y):
    return _ops().max(x) < 20


def _pair_body(x, y):
    return x + y, y + 1


def _pair_np(cond, body, loop_vars):
    x, y = loop_vars
    while np.max(x) < 20:
        x, y = x + y, y + 1
    return [x, y]


RECORDS += [
    OpRecord("fori_loop", shapes=((2, 3),), pre=(1, 5, _fori_body), np_fn=_fori_np, dtypes=_FIH,
             domain="small"),
    OpRecord("fori_loop", id="fori_loop-empty", shapes=((3,),), pre=(4, 2, _fori_body), np_fn=_fori_np),
    # a data-dependent number of steps
    OpRecord("while_loop", shapes=((3,),), pre=(_below_100, _grow), np_fn=_while_np, dtypes=_FI,
             domain="positive"),
    OpRecord("while_loop", id="while_loop-maximum_iterations", shapes=((3,),),
             pre=(_below_100, _grow), kwargs=dict(maximum_iterations=2), np_fn=_while_np,
             dtypes=_FI, domain="positive"),
    # a list of loop vars: the callables take them as separate arguments, a list comes back
    OpRecord("while_loop", id="while_loop-list", shapes=((3,), (3,)), lists=(2,),
             pre=(_pair_cond, _pair_body), np_fn=_pair_np, dtypes=_FI, domain="positive"),
]


def _three():
    return _ops().full((2, 3), 3.0)


def _minus_one():
    return _ops().full((2, 3), -1.0)


def _cond_np(pred, true_fn, false_fn):
    return np.full((2, 3), 3.0 if pred else -1.0, np.float32)


_BRANCHES = [lambda x: x * 2, lambda x: x + 1, lambda x: x - x * x]
_BRANCHES_NP = [lambda x: x * 2, lambda x: x + 1, lambda x: x - x * x]


def _switch_np(index, branches, x):
    return _BRANCHES_NP[min(max(index, 0), 2)](x)


RECORDS += [
    OpRecord("cond", shapes=((),), id=f"cond-{p}", make=lambda dtype, rng, p=p: [np.array(p)],
             kwargs=dict(true_fn=_three, false_fn=_minus_one), np_fn=_cond_np, dtypes=("bool",))
    for p in (True, False)
] + [
    # the index clamps into range: 7 -> branch 2, -1 -> branch 0
    OpRecord("switch", id=f"switch-{i}", shapes=((2, 3),), pre=(i, _BRANCHES), np_fn=_switch_np,
             dtypes=_FI if i == 1 else ("float32",))
    for i in (1, 7, -1)
]
