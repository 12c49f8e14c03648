"""Running op records on a backend and checking them: shapes, None dims, dtypes, values."""

from __future__ import annotations

import dataclasses
import importlib.util
import warnings

import ml_dtypes
import numpy as np

import polyops
from polyops import SymbolicTensor, ops
from polyops._op import get_op

from ._records import arrange, case_id, cases, expected, make_inputs, tolerance

_BF16 = np.dtype(ml_dtypes.bfloat16)


# What the kit imports beyond polyops' own dependencies: SciPy computes the expected values
# of the special functions, image filters and resampling, lu_factor and stft/istft.
REQUIREMENTS = ("scipy",)


def missing_requirements() -> list[str]:
    """The kit's requirements that are not installed (``pip install 'polyops[testing]'``)."""
    return [name for name in REQUIREMENTS if importlib.util.find_spec(name) is None]


def call(rec, inputs):
    """Call the record's op with ``inputs`` (tensors or SymbolicTensors) in place."""
    return get_op(rec.name).public(*rec.pre, *arrange(rec, inputs), **rec.kwargs)


def outputs(result) -> list:
    """An op's result as a list: several outputs (tuple or list) or one."""
    return list(result) if isinstance(result, (tuple, list)) else [result]


def shape_matches(got, spec) -> bool:
    """Whether a concrete shape fits a spec's shape (None dims match any size)."""
    return len(got) == len(spec) and all(s is None or s == g for g, s in zip(got, spec))


def specs(inputs, unknown=False, keep_ones=False):
    """SymbolicTensors for numpy ``inputs``; ``unknown`` makes every dim None."""

    def dims(a):
        if not unknown:
            return a.shape
        return tuple(1 if (keep_ones and d == 1) else None for d in a.shape)

    return [SymbolicTensor(dims(a), polyops.standardize_dtype(a.dtype)) for a in inputs]


def symbolic_call(rec, input_specs):
    """The symbolic spec: through the public function, or the rule for ops without tensors."""
    if not rec.shapes:
        return get_op(rec.name).rule(*rec.pre, **rec.kwargs)
    return call(rec, input_specs)


def lacks_dtype(rec, dtype, supported) -> bool:
    """Whether the case needs a dtype outside ``supported``: its inputs' or one of its
    outputs' (polar and eig give complex64 from float32 inputs)."""
    if not rec.shapes:
        return False
    inputs = make_inputs(rec, dtype)
    if any(polyops.standardize_dtype(a.dtype) not in supported for a in inputs):
        return True
    try:
        outs = outputs(symbolic_call(rec, specs(inputs)))
    except Exception:  # the rule's own failure is the case's to report
        return False
    return any(isinstance(o, SymbolicTensor) and o.dtype not in supported for o in outs)


def run_eager(rec, dtype, backend):
    """(numpy inputs, [(result as numpy, dtype, shape)] per output) on ``backend``."""
    inputs = make_inputs(rec, dtype)
    with polyops.use_backend(backend):
        tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in inputs]
        outs = outputs(call(rec, tensors))
        return inputs, [(ops.convert_to_numpy(o), ops.dtype(o), tuple(ops.shape(o))) for o in outs]


def assert_values(got, want, dtype, tol):
    """``got`` equals ``want`` exactly (bool, ints) or within ``tol`` (floats, NaN == NaN)."""
    if got.dtype == _BF16:
        got = got.astype(np.float32)
    if dtype == "bool":
        np.testing.assert_array_equal(got, want.astype(bool))
    elif dtype.startswith(("int", "uint")):
        np.testing.assert_array_equal(got, want.astype(dtype))
    elif dtype.startswith("complex"):
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128),
                                   **tol, equal_nan=True)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   **tol, equal_nan=True)


def assert_case(rec, dtype, backend):
    """Raise AssertionError unless the backend's result matches the spec and NumPy."""
    inputs, results = run_eager(rec, dtype, backend)
    spec_list = outputs(symbolic_call(rec, specs(inputs)))
    assert all(isinstance(s, SymbolicTensor) for s in spec_list), f"{rec.name}: the rule gave {spec_list!r}"
    assert len(results) == len(spec_list), f"{backend} gave {len(results)} outputs, the rule {len(spec_list)}"
    wants = outputs(expected(rec, inputs))
    assert len(wants) == len(results), f"{len(results)} outputs, NumPy gives {len(wants)}"
    for (got, got_dtype, got_shape), spec, want in zip(results, spec_list, wants):
        assert got_dtype == spec.dtype, f"dtype: {backend} gave {got_dtype}, the rule says {spec.dtype}"
        assert shape_matches(got_shape, spec.shape), (
            f"shape: {backend} gave {got_shape}, the rule says {spec.shape}")
        want = np.asarray(want)
        assert got.shape == want.shape, f"shape: {got.shape} != NumPy's {want.shape}"
        assert_values(got, want, spec.dtype, tolerance(spec.dtype, rec.name, rec))


def assert_none_dims(rec, dtype):
    """With every input dim unknown, the rule still infers: each output dim is None or the
    true size, at the same rank and dtype."""
    inputs = make_inputs(rec, dtype)
    knowns = outputs(call(rec, specs(inputs)))
    unknowns = outputs(call(rec, specs(inputs, unknown=True, keep_ones=rec.keep_ones)))
    assert len(unknowns) == len(knowns)
    for known, unknown in zip(knowns, unknowns):
        assert unknown.dtype == known.dtype
        assert len(unknown.shape) == len(known.shape)
        for u, k in zip(unknown.shape, known.shape):
            assert u is None or u == k, f"{unknown.shape} does not generalize {known.shape}"


def assert_reference_matches(rec, dtype, backend):
    """The op's reference implementation agrees with the backend's native kernel.

    Call it only where both exist (``op.ref`` and ``sources[op] == "native"``).
    """
    from .._op import make_entry
    from .._registry import get_backend

    op = get_op(rec.name)
    inputs = make_inputs(rec, dtype)
    with polyops.use_backend(backend):
        tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in inputs]
        natives = outputs(call(rec, tensors))
        bound = op.signature.bind(*rec.pre, *arrange(rec, tensors), **rec.kwargs)
        bound.apply_defaults()
        # keyword-only parameters (meshgrid's indexing) go positionally, last
        refs = outputs(make_entry(op, op.ref, get_backend(backend))(*bound.args, *bound.kwargs.values()))
        assert len(refs) == len(natives), f"reference gave {len(refs)} outputs, native {len(natives)}"
        pairs = []
        for native, reference in zip(natives, refs):
            result_dtype = ops.dtype(native)
            assert ops.dtype(reference) == result_dtype, f"reference gave {ops.dtype(reference)}"
            pairs.append((ops.convert_to_numpy(native), ops.convert_to_numpy(reference), result_dtype))
    for a, b, result_dtype in pairs:
        assert a.shape == b.shape, f"reference shape {b.shape} != native {a.shape}"
        if a.dtype == _BF16:
            a = a.astype(np.float32)
        assert_values(b, a, result_dtype, tolerance(result_dtype, rec.name, rec))


@dataclasses.dataclass
class Report:
    """The result of `check_backend`: failures by case, and pass rates by op family."""

    backend: str
    passed: list = dataclasses.field(default_factory=list)
    failed: dict = dataclasses.field(default_factory=dict)  # case id -> message
    xfailed: dict = dataclasses.field(default_factory=dict)  # case id -> the declared reason
    xpassed: list = dataclasses.field(default_factory=list)  # declared failures that passed
    unsupported: list = dataclasses.field(default_factory=list)  # dtypes the backend lacks

    @property
    def ok(self) -> bool:
        return not self.failed and not self.xpassed

    def family_rates(self) -> dict[str, tuple[int, int]]:
        rates: dict[str, list[int]] = {}
        for cid, ok in [(c, True) for c in self.passed] + [(c, False) for c in self.failed]:
            family = get_op(cid.split("|")[0]).family
            r = rates.setdefault(family, [0, 0])
            r[0] += ok
            r[1] += 1
        return {f: (p, n) for f, (p, n) in sorted(rates.items())}

    def summary(self) -> str:
        lines = [f"conformance of backend {self.backend!r}: "
                 f"{len(self.passed)} passed, {len(self.failed)} failed, "
                 f"{len(self.xfailed)} expected failures, {len(self.xpassed)} unexpectedly passed, "
                 f"{len(self.unsupported)} cases in dtypes the backend does not support"]
        for family, (p, n) in self.family_rates().items():
            lines.append(f"  {family:<8} {p}/{n} ({100 * p / n:.0f}%)")
        for cid, msg in self.failed.items():
            lines.append(f"  FAIL {cid.replace('|', ' ')}: {msg[:160]}")
        for cid in self.xpassed:
            lines.append(f"  XPASS {cid.replace('|', ' ')}: remove it from the expected failures")
        return "\n".join(lines)


def check_backend(backend: str, expected_failures: dict | None = None) -> Report:
    """Run every op record on ``backend``: shape, dtype and values against the rule and NumPy.

    Args:
        backend: an installed backend's name.
        expected_failures: ``{case id: reason}`` for known failures (case ids as in
            the report, e.g. ``"sum|sum-axis1-float32"``); one that passes is
            reported as unexpectedly passing, so the list stays honest.

    Cases whose inputs or outputs need a dtype the backend does not list in its
    Runtime are counted as unsupported, not failed: a backend declares what it supports.
    """
    from .._registry import get_backend

    missing = missing_requirements()
    if missing:
        raise ImportError(f"check_backend: the conformance kit needs {', '.join(missing)} (its "
                          "reference values); install it with: pip install 'polyops[testing]'")
    expected_failures = expected_failures or {}
    supported = set(get_backend(backend, "check_backend").runtime.dtypes.values())
    report = Report(backend)
    # the cases reach overflow, NaN and division by zero on purpose: NumPy's RuntimeWarnings
    # about them (in the expected values and in numpy-array backends) are not findings
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        _run_cases(report, backend, supported, expected_failures)
    return report


def _run_cases(report, backend, supported, expected_failures) -> None:
    for rec, dtype in cases():
        cid = f"{rec.name}|{case_id((rec, dtype))}"
        if lacks_dtype(rec, dtype, supported):
            report.unsupported.append(cid)
            continue
        try:
            assert_case(rec, dtype, backend)
        except Exception as exc:  # every failure is reported, none stops the run
            message = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
            if cid in expected_failures:
                report.xfailed[cid] = expected_failures[cid]
            else:
                report.failed[cid] = message
        else:
            if cid in expected_failures:
                report.xpassed.append(cid)
            else:
                report.passed.append(cid)
