"""The op table under `polyops.jit`: every op gives its eager result when compiled, on every
backend that compiles (jax, tensorflow, torch, openvino), and one policy for what cannot be
compiled.

Cost: a compile is ~0.03-0.07 s a function on jax, tensorflow and openvino, but ~1.2 s on
torch (make_fx, then inductor), whatever the function's size up to some tens of ops.  So
each test compiles one function for a chunk of cases (a record family, at most `CHUNK`
cases), returning every case's outputs, and compares each case with its eager result.  A
chunk whose compile fails or falls back is split in halves until the cases at fault are
alone, so every case is judged by itself; the cases that must fall back are judged one by
one from the start (their traces stop early), so chunks rarely split.  The chunks take one
dtype per record (the first): every record, so every op, on every backend.  All dtypes
(1867 cases) cost ~15 min single-process (jax ~9 min, openvino's gammainc chains minutes
alone); add a backend to ALL_DTYPES to run them.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops import random as prandom
from polyops._op import every_op
from polyops._registry import get_backend
from polyops.testing import case_id, cases, expected, make_inputs, tolerance
from polyops.testing._check import assert_values, call, lacks_dtype, outputs, specs, symbolic_call
from polyops.testing._records import GROUPS

from conftest import BACKENDS, to_numpy
from xfails import XFAILS

JIT_BACKENDS = [b for b in ("jax", "tensorflow", "torch", "openvino") if b in BACKENDS]
ALL_DTYPES = ()  # backends whose compiles are cheap enough for every case: none in the CI budget
CHUNK = 64  # cases per compiled function: bounds a chunk's compile and a split's depth


def _group_of():
    """Record (by identity) -> the family module it comes from ("base": _records itself)."""
    group = {}
    for name in GROUPS:
        for rec in importlib.import_module(f"polyops.testing._records_{name}").RECORDS:
            group[id(rec)] = name
    return group


def _chunks():
    """(group, index, [cases]) for every chunk of the table, all dtypes."""
    group = _group_of()
    by_group: dict = {}
    for case in cases():
        by_group.setdefault(group.get(id(case[0]), "base"), []).append(case)
    out = []
    for name, cs in by_group.items():
        for k in range(0, len(cs), CHUNK):
            out.append((name, k // CHUNK, cs[k:k + CHUNK]))
    return out


CHUNKS = _chunks()


def _first_dtype_only(cs):
    seen, out = set(), []
    for rec, dtype in cs:
        if id(rec) not in seen:
            seen.add(id(rec))
            out.append((rec, dtype))
    return out


def _result(x):
    """(numpy value, dtype, shape) of one output: a tensor, or a Python value (static)."""
    if isinstance(x, (bool, int, float, complex)) or x is None:
        return np.asarray(x), type(x).__name__, ()
    return np.asarray(ops.convert_to_numpy(x)), ops.dtype(x), tuple(ops.shape(x))


class Outcome:
    """How one case did under jit: ``kind`` is "ok", "mismatch", "fallback" (one
    JitFallbackWarning, then the right result) or "error" (jit raised)."""

    def __init__(self, kind, detail=""):
        self.kind, self.detail = kind, detail

    def __repr__(self):
        return f"{self.kind}: {self.detail}"[:400]


class Case:
    """One op-table case, ready to run: its tensors, and what its eager call gives, which
    tests/test_op_table.py holds to: the rule's dtype, NumPy's shape and values (within
    the record's tolerance).  Computed from NumPy here, as eager jax compiles every
    primitive at every new shape (~1 minute for the table), which this file cannot afford."""

    def __init__(self, case):
        self.rec, self.dtype = case
        self.id = case_id(case)
        self.inputs = make_inputs(self.rec, self.dtype)
        self.specs = outputs(symbolic_call(self.rec, specs(self.inputs)))
        self.wants = [np.asarray(w) for w in outputs(expected(self.rec, self.inputs))]

    def tensors(self):
        return [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in self.inputs]

    def run(self, *tensors):
        return call(self.rec, list(tensors))

    def diff(self, got) -> str:
        """'' when the outputs ``got`` ([(value, dtype, shape)]) are the eager result."""
        if len(got) != len(self.wants):
            return f"{len(got)} outputs, eagerly {len(self.wants)}"
        for k, ((value, dtype, shape), spec, want) in enumerate(zip(got, self.specs, self.wants)):
            if dtype != spec.dtype:
                return f"output {k}: dtype {dtype}, eagerly {spec.dtype}"
            if value.shape != want.shape:
                return f"output {k}: shape {value.shape}, eagerly {want.shape}"
            try:
                assert_values(value, want, spec.dtype, tolerance(spec.dtype, self.rec.name, self.rec))
            except AssertionError as exc:
                return f"output {k}: values differ: {' '.join(str(exc).split())[:300]}"
        return ""


def _jit_call(fns, arg_lists):
    """Compile one function calling ``fns[i](*arg_lists[i])`` for every i; its outputs per
    case as [(value, dtype, shape)], and the JitFallbackWarnings it raised."""

    def batch(*groups):
        return [fn(*args) for fn, args in zip(fns, groups)]

    with warnings.catch_warnings(record=True) as caught:
        # others are recorded, not raised (pyproject's ignore list does not reach in here):
        # NumPy's overflow warning from jax folding a cast constant is not the table's to judge
        warnings.simplefilter("always")
        out = polyops.jit(batch)(*arg_lists)
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, polyops.JitFallbackWarning)]
    return [[_result(o) for o in outputs(r)] for r in out], fallbacks


def judge(items) -> dict:
    """``items``: [Case]; compile them as one function, split on failure; {id: Outcome}."""
    try:
        got, fallbacks = _jit_call([c.run for c in items], [c.tensors() for c in items])
    except Exception as exc:  # noqa: BLE001  (every failure is reported per case)
        got, fallbacks, error = None, None, f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    else:
        error = None
    if len(items) > 1 and (error or fallbacks):
        half = len(items) // 2
        return {**judge(items[:half]), **judge(items[half:])}
    result = {}
    for c, out in zip(items, got or [None] * len(items)):
        diff = error or c.diff(out)
        if error:
            result[c.id] = Outcome("error", error)
        elif diff:
            result[c.id] = Outcome("mismatch", diff)
        elif fallbacks:
            result[c.id] = Outcome("fallback", fallbacks[0])
        else:
            result[c.id] = Outcome("ok")
    return result


# ----- the table --------------------------------------------------------------------------

# The ops whose value-dependent output sizes a backend compiles (None: every op): tf graphs
# have dynamic shapes, but only tf.unique and tf.where serve; its bincount, repeat with
# tensor repeats and segment_* without num_segments read the values to size the output,
# as torch's do (torch sizes unique and nonzero symbolically); jax.jit and one OpenVINO
# model have static shapes.  The others fall back (the policy below).
DYNAMIC_SHAPES = {"jax": frozenset(), "tensorflow": frozenset({"unique", "nonzero"}),
                  "torch": frozenset({"unique", "nonzero"}), "openvino": frozenset()}

# (op name or case id, backend) -> why it falls back under jit beyond what `must_fall_back`
# derives (strict: one listed here that compiles fails the test).
_BITCAST = "a bit cast (view) runs on the host: OpenVINO has no bitcast node"
JIT_FALLBACKS: dict[tuple[str, str], str] = {
    **{(op, "openvino"): _BITCAST for op in ("view", "angle", "nextafter")},
    **{(f"signbit-{d}", "openvino"): _BITCAST for d in ("float32", "float16", "bfloat16")},
    ("nonzero-empty-float32", "jax"): "jnp.nonzero needs a static size even for an empty input",
    **{(f"cond-{b}-bool", "torch"): "torch unrolls control flow while tracing: a tensor "
                                   "predicate is read" for b in ("True", "False")},
    **{(f"norm-{o}-float32", "openvino"): "the spectral norms take svd, on the host on openvino"
       for o in ("2", "neg2", "nuc")},
    ("while_loop", "torch"): "torch unrolls loops while tracing: a tensor predicate is read",
    ("lstsq", "torch"): "aten.linalg_lstsq has a data-dependent output shape for fake tensors",
    # (torch.linalg.cross serves 3-component float vectors of one rank; these take the reference)
    **{(c, "torch"): "the reference takes with a scalar tensor index, and the torch take "
                     "kernel guards on the index's value (GuardOnDataDependentSymNode)"
       for c in ("cross-int32", "cross-int8", "cross-2-3-float32", "cross-3-2-broadcast-float32")},
    **{(f"unique-size-{k}-float32", "torch"): "unique with size= guards on the count of "
                                              "unique values" for k in ("pad", "truncate")},
}

# (case id, backend) -> why a case compiles although `must_fall_back` derives otherwise.
JIT_COMPILES: dict[tuple[str, str], str] = {

    ("unique-0d-float32", "openvino"): "one element has one unique value: sized statically",
}

# (case id, backend) -> why jit gives another result than eager (strict, as XFAILS).
JIT_XFAILS: dict[tuple[str, str], str] = {
    ("eig-float32", "tensorflow"):
        "tf's eig kernel uses the host (LAPACK's order and phases) eagerly but tf.linalg.eig "
        "in graphs: another eigenvalue order under jit (to fix in the tf plugin's linalg)",
    ("ptp-nan-float32", "tensorflow"):
        "XLA's max/min skip NaN where eager tf propagates it: ptp gives inf, not nan",
    **{(c, "torch"): "inductor's inf/nan results differ from eager aten's on special values"
       for c in ("arccosh-special-float32", "cosh-special-float32", "sinh-special-float32",
                 "soft_shrink-specials-float32", "nextafter-float16-float16",
                 "nextafter-bfloat16-bfloat16")},
}


# Kernels of host ops (`Op.host`) that call core's host reference themselves, to add a
# gradient (the registry lists them as native): they compute on the host as well.
HOST_KERNELS = {("eig", "jax"), ("eig", "torch")}


def value_dependent(c: Case) -> bool:
    """The rule cannot size an output from the input shapes: its size depends on values
    (not where an input is empty: then there are no values to depend on)."""
    return any(d is None for s in c.specs for d in s.shape) and all(a.size for a in c.inputs)


def must_fall_back(c: Case, backend: str) -> str:
    """Why ``c`` cannot compile on ``backend`` ('' if it must compile), derived from the op
    records and attributes: a host computation (the op's reference runs NumPy and the
    backend's kernel is that reference), or a value-dependent size where compiled shapes
    are static."""
    if get_backend(backend).sources.get(c.rec.name) == "host" or (
            every_op()[c.rec.name].host and (c.rec.name, backend) in HOST_KERNELS):
        return "a host computation"
    dynamic = DYNAMIC_SHAPES[backend]
    if value_dependent(c) and dynamic is not None and c.rec.name not in dynamic and (
            c.id, backend) not in JIT_COMPILES:
        return "an output size that depends on values"
    return JIT_FALLBACKS.get((c.id, backend)) or JIT_FALLBACKS.get((c.rec.name, backend), "")


def _table_params():
    params = []
    for backend in JIT_BACKENDS:
        supported = set(get_backend(backend).runtime.dtypes.values())
        for group, index, cs in CHUNKS:
            cs = [c for c in cs if not lacks_dtype(c[0], c[1], supported)
                  and (case_id(c), backend) not in XFAILS]
            if backend not in ALL_DTYPES:
                cs = _first_dtype_only(cs)
            if cs:
                params.append(pytest.param(backend, cs, id=f"{backend}-{group}-{index}"))
    return params


@pytest.mark.parametrize("backend_name,chunk", _table_params())
def test_op_table_under_jit(backend_name, chunk):
    """Each case compiled gives its eager result (dtype, shape, values within the record's
    tolerance); exactly the cases `must_fall_back` names run eagerly after one
    JitFallbackWarning, and give the same result."""
    with polyops.use_backend(backend_name):
        table = [Case(case) for case in chunk]
        # the cases that must fall back are judged one by one (their traces stop early), so
        # that the others compile once, with no split
        alone = [c for c in table if must_fall_back(c, backend_name)]
        outcomes = judge([c for c in table if c not in alone]) if len(alone) < len(table) else {}
        for c in alone:
            outcomes.update(judge([c]))
    problems = []
    for c in table:
        got, why = outcomes[c.id], must_fall_back(c, backend_name)
        xfail = JIT_XFAILS.get((c.id, backend_name))
        if xfail:
            if got.kind in ("ok", "fallback"):
                problems.append(f"{c.id}: passes, remove it from JIT_XFAILS")
        elif got.kind in ("mismatch", "error"):
            problems.append(f"{c.id}: {got}")
        elif got.kind == "fallback" and not why:
            problems.append(f"{c.id}: fell back, which nothing declares: {got.detail[:300]}")
        elif got.kind == "ok" and why:
            problems.append(f"{c.id}: compiled, but must fall back ({why})")
    assert not problems, "\n".join(problems)


def _sized_by_values(case) -> bool:
    rec, dtype = case
    return bool(rec.shapes) and any(d is None for s in outputs(symbolic_call(
        rec, specs(make_inputs(rec, dtype)))) for d in s.shape)


def _policy_ops() -> frozenset:
    """Ops whose cases may need values while traced: host references, or a record whose
    rule leaves an output size to the values."""
    names = {name for name, op in every_op().items() if op.host}
    names |= {c[0].name for c in cases() if _sized_by_values(c)}
    return frozenset(names)


POLICY_OPS = _policy_ops()


def test_policy_ops_are_derived_and_tabled():
    """The ops the fall-back policy concerns come from the op attributes (host references)
    and the records (rules that leave a size to the values), and each is in the table."""
    host = {name for name, op in every_op().items() if op.host}
    assert host and host <= POLICY_OPS
    assert {"unique", "nonzero"} <= POLICY_OPS - host  # value-dependent sizes
    tabled = {rec.name for rec, _ in cases()}
    assert POLICY_OPS <= tabled


def test_table_covers_every_op():
    """Every op core defines runs in the jit table, the random ones in
    test_random_ops_under_jit (their numbers come from polyops's generator, not NumPy's)."""
    tabled = {rec.name for rec, _ in cases()} | {f"stateless_{name}" for name in DRAWS}
    assert set(every_op()) == tabled


# ----- random ops ----------------------------------------------------------------------------

LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
# name -> draw(seed): the stateless_<name> op through polyops.random, seed a tensor (an input
# of the compiled function)
DRAWS = {
    "normal": lambda s: prandom.normal((16,), 2.0, 3.0, seed=s),
    "uniform": lambda s: prandom.uniform((16,), -2.0, 3.0, seed=s),
    "truncated_normal": lambda s: prandom.truncated_normal((16,), 1.0, 2.0, seed=s),
    "gamma": lambda s: prandom.gamma((16,), 2.5, seed=s),
    "beta": lambda s: prandom.beta((16,), 2.0, 5.0, seed=s),
    "binomial": lambda s: prandom.binomial((16,), 10, 0.3, seed=s),
    "randint": lambda s: prandom.randint((16,), -3, 7, seed=s),
    "categorical": lambda s: prandom.categorical(LOGITS, 8, seed=s),
    "dropout": lambda s: prandom.dropout(ops.ones((16,)), 0.3, seed=s),
    "shuffle": lambda s: prandom.shuffle(ops.arange(16), seed=s),
}


# binomial's reference reads the largest count on the host (to_host), even a Python int's:
# the public function makes it a tensor, which tf.function and make_fx hold as a graph
# value; jax and the OpenVINO recorder keep a constant concrete.
RANDOM_FALLBACKS = {("binomial", b): "reads its counts on the host"
                    for b in ("tensorflow", "torch")}


@pytest.mark.parametrize("backend_name", JIT_BACKENDS)
def test_random_ops_under_jit(backend_name):
    """A tensor seed gives the same numbers compiled as eagerly (floats up to rounding);
    exactly the draws RANDOM_FALLBACKS names fall back (each apart, to tell)."""
    apart = [n for n in DRAWS if (n, backend_name) in RANDOM_FALLBACKS]
    together = [n for n in DRAWS if n not in apart]
    with polyops.use_backend(backend_name):
        seed = ops.convert_to_tensor(np.array([7, 3], np.int32))
        eager = {n: _result(d(seed)) for n, d in DRAWS.items()}
        out, warned = _warned(polyops.jit(lambda s: {n: DRAWS[n](s) for n in together}), seed)
        assert warned == []
        for name in apart:
            out[name], warned = _warned(polyops.jit(DRAWS[name]), seed)
            assert len(warned) == 1 and name in warned[0], warned
        got = {n: _result(v) for n, v in out.items()}
    for name, (want, dtype, shape) in eager.items():
        value, got_dtype, got_shape = got[name]
        assert (got_dtype, got_shape) == (dtype, shape), name
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(value, want, err_msg=name)
        else:
            np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-6, err_msg=name)


# ----- the policy for what cannot be compiled ------------------------------------------------


def _warned(fn, *args):
    """``fn(*args)``'s result and the JitFallbackWarnings of the call (others are errors)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        warnings.simplefilter("always", polyops.JitFallbackWarning)
        out = fn(*args)
    return out, [str(w.message) for w in caught]


READS_VALUES = {  # a function that needs a tensor's value while traced, on every backend
    "bool": lambda x: x * (2.0 if bool(ops.sum(x) > 0) else 3.0),
    "float": lambda x: x * float(ops.sum(x)),
    "numpy": lambda x: x * float(ops.convert_to_numpy(x).sum()),
}


@pytest.mark.parametrize("backend_name", JIT_BACKENDS)
@pytest.mark.parametrize("how", sorted(READS_VALUES))
def test_reading_values_falls_back_once(backend_name, how):
    """The one policy: a function that reads tensor values while traced runs eagerly after
    exactly one JitFallbackWarning (per signature), naming the backend, with the eager result;
    later calls neither warn nor trace.  (tensorflow raised TypeError or
    OperatorNotAllowedInGraphError before, jax ConcretizationTypeError.)"""
    fn = READS_VALUES[how]
    x = np.array([1.0, -2.0, 4.0], np.float32)
    with polyops.use_backend(backend_name):
        want = to_numpy(fn(ops.convert_to_tensor(x)))
        f = polyops.jit(fn)
        first, warned = _warned(f, x)
        again, warned_again = _warned(f, x)
    assert len(warned) == 1 and backend_name in warned[0] and "eagerly" in warned[0], warned
    assert warned_again == []
    for got in (first, again):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-6)
    assert f.traces == 0 and f.cache_size() == 1


def _policy_params():
    params = []
    for backend in JIT_BACKENDS:
        supported = set(get_backend(backend).runtime.dtypes.values())
        for name in sorted(POLICY_OPS):
            # the cases the policy is about first: value-dependent sizes (repeat's tensor
            # repeats, not its static ones)
            mine = sorted((c for c in cases() if c[0].name == name),
                          key=lambda c: not _sized_by_values(c))
            ok = [c for c in mine if not lacks_dtype(*c, supported)
                  and (case_id(c), backend) not in XFAILS]
            reason = JIT_XFAILS.get((case_id(ok[0]), backend)) if ok else XFAILS.get(
                (case_id(mine[0]), backend), f"{name}: no case in a dtype {backend} supports")
            marks = pytest.mark.xfail(strict=True, reason=reason) if reason else ()
            params.append(pytest.param(backend, (ok or mine)[0], marks=marks,
                                       id=f"{backend}-{name}"))
    return params


@pytest.mark.parametrize("backend_name,case", _policy_params())
def test_policy_ops(backend_name, case):
    """Each op the policy concerns, alone under jit, on every backend: it falls back (one
    JitFallbackWarning, naming the op) exactly where `must_fall_back` says, else compiles
    silently; either way the eager result.  (jax raised KernelError/EagerOnlyError for
    unique, nonzero and eig before; torch fell back for eig with its own message.)"""
    name = case[0].name
    with polyops.use_backend(backend_name):
        c = Case(case)
        why = must_fall_back(c, backend_name)
        out, warned = _warned(polyops.jit(c.run), *c.tensors())
        diff = c.diff([_result(o) for o in outputs(out)])
    assert diff == "", diff
    if why:  # the message names the op where polyops raised (a host op), else the framework's
        assert len(warned) == 1 and backend_name in warned[0], warned
    else:
        assert warned == []


def test_user_errors_raise_under_jit_without_falling_back(backend):
    """An error in the arguments is raised as it is under jit, as eagerly, and is no reason to
    fall back (torch warned and ran eagerly first)."""
    f = polyops.jit(lambda a, b: ops.add(a, b))
    with polyops.use_backend(backend):
        with pytest.raises(ValueError, match="add"):
            _warned(f, np.ones((2, 3), np.float32), np.ones((4,), np.float32))


# ----- Python numbers in control-flow bodies ------------------------------------------------

CARRY_DTYPES = ("float32", "float16", "bfloat16", "int8", "uint8", "int32")

# name -> fn(x, init): control flow whose bodies combine Python numbers (constants, and
# fori_loop's counter, a Python int eagerly) with tensors of the carry's dtype.  Eagerly the
# numbers are weak (the tensor's dtype wins); so under jit.
WEAK_BODIES = {
    "fori_loop-operators": lambda x, init: ops.fori_loop(0, 3, lambda i, acc: acc + x * i, init),
    "fori_loop-ops": lambda x, init: ops.fori_loop(
        1, 4, lambda i, acc: ops.add(acc, ops.multiply(x, i)), init),
    "fori_loop-counter-alone": lambda x, init: ops.fori_loop(0, 3, lambda i, acc: acc + i, init),
    "fori_loop-constants": lambda x, init: ops.fori_loop(0, 2, lambda i, acc: acc * 2 + 1, init),
    "while_loop": lambda x, init: ops.while_loop(
        lambda i, a: i < 2, lambda i, a: (i + 1, a * 2 + 1), (0, init))[1],
    "scan": lambda x, init: ops.scan(lambda c, v: (c * 2 + v, c + 1), init, ops.stack([x, x])),
    "map": lambda x, init: ops.map(lambda v: v * 2 + 1, ops.stack([x, x])),
    "associative_scan": lambda x, init: ops.associative_scan(lambda a, b: a + b * 2, x),
    "cond": lambda x, init: ops.cond(ops.sum(ops.cast(x, "float32")) > 0,
                                     lambda: x * 2 + 1, lambda: x - 1),
    "switch": lambda x, init: ops.switch(1, [lambda a: a * 2, lambda a: a + 1], x),
    "vectorized_map": lambda x, init: ops.vectorized_map(lambda v: v * 3 + 1, ops.stack([x, x])),
}


@pytest.mark.parametrize("backend_name", JIT_BACKENDS)
@pytest.mark.parametrize("body", sorted(WEAK_BODIES))
def test_python_numbers_in_bodies_are_weak_under_jit(backend_name, body):
    """Under jit every carry dtype gives the eager dtype and values.  (On tensorflow
    ``fori_loop(0, 5, lambda i, acc: acc + x * i, init)`` raised ``TypeError: Input 'y' of
    'Mul' Op has type int32 that does not match type float32``; an int8 carry plus the
    counter failed on jax and tensorflow: their rolled loops gave an int32 counter.)
    A backend may fall back to eager (torch: a tensor predicate); never a wrong dtype."""
    fn = WEAK_BODIES[body]
    problems = []
    with polyops.use_backend(backend_name):
        for dtype in CARRY_DTYPES:
            x = ops.cast(ops.convert_to_tensor(np.array([1, 2], np.float32)), dtype)
            init = ops.zeros((2,), dtype)
            want = [_result(t) for t in outputs(fn(x, init))]
            got, _ = _warned(polyops.jit(fn), x, init)
            got = [_result(t) for t in outputs(got)]
            for (gv, gd, gs), (wv, wd, ws) in zip(got, want):
                if (gd, gs) != (wd, ws) or not np.array_equal(
                        gv.astype(np.float64), wv.astype(np.float64)):
                    problems.append(f"{dtype}: jit {gd}{gs} {gv}, eagerly {wd}{ws} {wv}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend_name", JIT_BACKENDS)
def test_fori_loop_tensor_bounds_counter(backend_name):
    """With tensor bounds a rolled loop has no Python int to give: a body whose dtypes need
    one (an int8 carry plus the counter) runs eagerly under the policy, with the eager
    result; a body that works on an int32 counter stays compiled."""
    def narrow(x, n):
        return ops.fori_loop(0, n, lambda i, acc: ops.add(acc, i), ops.zeros((2,), "int8"))

    def wide(x, n):
        return ops.fori_loop(0, n, lambda i, acc: acc + x * ops.cast(i, "float32"), x)

    n = np.array(3, np.int32)
    x = np.array([1.0, 2.0], np.float32)
    with polyops.use_backend(backend_name):
        for fn in (narrow, wide):
            want = _result(fn(ops.convert_to_tensor(x), ops.convert_to_tensor(n)))
            got, warned = _warned(polyops.jit(fn), x, n)
            got = _result(got)
            assert got[1:] == want[1:] and np.array_equal(got[0], want[0]), fn.__name__
            if fn is narrow or backend_name == "torch":  # torch unrolls: it reads the bound
                assert len(warned) == 1 and "fori_loop" in warned[0], warned
            else:
                assert warned == [], warned
