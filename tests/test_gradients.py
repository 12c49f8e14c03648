"""The gradient table: `polyops.grad` of every differentiable op record on jax, tensorflow
and torch, against central finite differences of the record's own NumPy function in float64,
and across the three backends.

For each op record with a float32 case, the loss is ``sum over the float (and complex)
outputs of sum(out * cotangent)`` with one fixed random cotangent per output (a complex
output contributes ``real(out) * c1 + imag(out) * c2``), differentiated with respect to
every float input at once (the second argument of binary ops and every float input of
multi-input ops included).

What is not differentiated is decided by rules, not by hand:

* integer and bool inputs (indices, labels, masks, counts) are not differentiated;
* a record with no float or complex output (comparisons, argmax, sorts' indices, casts to
  integers, bool reductions...) has no loss: there is nothing to differentiate;
* the random family has no records (its numbers are polyops's own, see test_random.py);
* `_OUTPUTS` names the outputs that are left out of the loss, each with its reason.

Finite differences skip the input elements whose one-sided differences disagree (a kink of
abs/relu/max/floor... within the step): there the derivative is a convention, and the
cross-backend check still compares every element.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops.testing import RECORDS, expected, make_inputs
from polyops.testing._check import call, outputs, specs, symbolic_call

from conftest import BACKENDS, tensor

DIFFERENTIATING = [b for b in ("jax", "tensorflow", "torch") if b in BACKENDS]
COTANGENT_SEED = 1234

# Outputs left out of the loss (by position), with the reason.
_OUTPUTS: dict[str, tuple[tuple[int, ...], str]] = {
    "eig": ((0,), "eigenvectors are unique only up to a complex phase, so no loss of them "
                  "but a phase-invariant one has a gradient; polyops differentiates eig's "
                  "eigenvalues only and raises for its eigenvectors (as jax.numpy.linalg.eig); "
                  "see test_eig_eigenvectors_raise"),
}

# Ops that read one triangle of a symmetric input: polyops gives the symmetrized gradient
# (docs/transforms.md, Gradients), the derivative of f((A + A^T) / 2) at a symmetric A.
SYMMETRIC_INPUT = frozenset({"cholesky", "eigh"})

# Ops whose gradient is zero by definition (their NumPy function is the identity).
ZERO_GRADIENT = {"stop_gradient": "stop_gradient blocks the gradient: it must be zeros"}

# Reasons of the strict expected failures below (what is left; see the report of issue 15).
EDGE = ("edge-value record (inf, nan, overflowing or singular inputs or outputs, made for the "
        "forward values): at such points the gradient is each framework's own (nan, inf or 0) "
        "and a finite difference of the NumPy function is not a derivative")
KINK = ("the record's inputs sit exactly on a kink or tie (relu6/leaky_relu/elu at 0, angle "
        "at 0, equal values in quantiles, nextafter's steps, normalize of a zero vector): "
        "the derivative there is each framework's own choice")
SVD_FULL = ("svd with full_matrices on a non-square input: the extra columns of u are an "
            "arbitrary basis; jax has no JVP for them, torch's gradient ignores them")
UNIQUE = "unique's output size changes when a duplicate moves: no finite difference there"
HSV = "rgb_to_hsv's hue jumps where two channels tie: the element sits on a discontinuity"
AFFINE = ("affine_transform's interpolation is piecewise linear in the transform: the element "
          "sits within the step of a pixel boundary")

# (case id, backend) -> the op a NotDifferentiableError must name: gradients a backend
# cannot give, with the reason.
TORCH_IGAMMA = "torch has no derivative of igamma (gammainc) with respect to its first argument"
RAISES: dict[tuple[str, str], tuple[str, str]] = {
    ('gammainc', 'torch'): ("gammainc", TORCH_IGAMMA),
    ('gammainc-0d', 'torch'): ("gammainc", TORCH_IGAMMA),
    ('gammainc-broadcast', 'torch'): ("gammainc", TORCH_IGAMMA),
    ('gammainc-nan-domain', 'torch'): ("gammainc", TORCH_IGAMMA),
}

# Ops whose gradient under polyops.jit on jax raises NotDifferentiableError (eager grad
# differentiates them): the table then checks jax's eager gradient.
JAX_JIT_RAISES = {
    "while_loop": "jax cannot reverse-differentiate lax.while_loop: a traced while_loop "
                  "differentiates with maximum_iterations only (then as a scan)",
}

# (case id, backend or "agree") -> reason: strict expected failures.
XFAILS: dict[tuple[str, str], str] = {
    ('affine_transform-cf-fill', 'jax'): AFFINE,
    ('affine_transform-cf-fill', 'tensorflow'): AFFINE,
    ('affine_transform-cf-fill', 'torch'): AFFINE,
    ('affine_transform-mirror', 'jax'): AFFINE,
    ('affine_transform-mirror', 'tensorflow'): AFFINE,
    ('affine_transform-mirror', 'torch'): AFFINE,
    ('gammainc', 'jax'): EDGE,
    ('hypot-huge-tiny', 'jax'): EDGE,
    ('hypot-huge-tiny', 'tensorflow'): EDGE,
    ('hypot-huge-tiny', 'torch'): EDGE,
    ('logspace-tensors', 'jax'): EDGE,
    ('logspace-tensors', 'tensorflow'): EDGE,
    ('logspace-tensors', 'torch'): EDGE,
    ('nancumsum-specials', 'jax'): EDGE,
    ('nancumsum-specials', 'tensorflow'): EDGE,
    ('nancumsum-specials', 'torch'): EDGE,
    ('nanmean-axes', 'jax'): EDGE,
    ('nanmean-axes', 'tensorflow'): EDGE,
    ('nanmean-axes', 'torch'): EDGE,
    ('nanprod', 'jax'): EDGE,
    ('nanprod', 'tensorflow'): EDGE,
    ('nanprod', 'torch'): EDGE,
    ('nansum', 'jax'): EDGE,
    ('nansum', 'tensorflow'): EDGE,
    ('nansum', 'torch'): EDGE,
    ('nansum-axes', 'jax'): EDGE,
    ('nansum-axes', 'tensorflow'): EDGE,
    ('nansum-axes', 'torch'): EDGE,
    ('rgb_to_hsv', 'jax'): HSV,
    ('rgb_to_hsv', 'tensorflow'): HSV,
    ('rgb_to_hsv', 'torch'): HSV,
    ('rgb_to_hsv-cf', 'jax'): HSV,
    ('rgb_to_hsv-cf', 'tensorflow'): HSV,
    ('rgb_to_hsv-cf', 'torch'): HSV,
    ('rgb_to_hsv-grays-ties', 'jax'): HSV,
    ('rgb_to_hsv-grays-ties', 'tensorflow'): HSV,
    ('rgb_to_hsv-grays-ties', 'torch'): HSV,
    ('slogdet-singular', 'jax'): EDGE,
    ('slogdet-singular', 'tensorflow'): EDGE,
    ('slogdet-singular', 'torch'): EDGE,
    ('svd-uv', 'jax'): SVD_FULL,
    ('svd-uv', 'torch'): SVD_FULL,
    ('unique', 'jax'): UNIQUE,
    ('unique', 'tensorflow'): UNIQUE,
    ('unique', 'torch'): UNIQUE,
    ('unique-all', 'jax'): UNIQUE,
    ('unique-all', 'tensorflow'): UNIQUE,
    ('unique-all', 'torch'): UNIQUE,
    ('angle', "agree"): KINK,
    ('arccosh-special', "agree"): EDGE,
    ('arctan2-special', "agree"): EDGE,
    ('cbrt-special', "agree"): EDGE,
    ('cumprod-specials', "agree"): EDGE,
    ('elu-specials', "agree"): KINK,
    ('fabs-special', "agree"): EDGE,
    ('fmax-special', "agree"): EDGE,
    ('fmin-special', "agree"): EDGE,
    ('hypot-huge-tiny', "agree"): EDGE,
    ('hypot-special', "agree"): EDGE,
    ('i0-special', "agree"): EDGE,
    ('leaky_relu-specials', "agree"): KINK,
    ('logaddexp-far', "agree"): EDGE,
    ('logaddexp-special', "agree"): EDGE,
    ('logaddexp2-special', "agree"): EDGE,
    ('nancumprod-specials', "agree"): EDGE,
    ('nanpercentile', "agree"): KINK,
    ('nanquantile', "agree"): KINK,
    ('nanquantile-midpoint', "agree"): KINK,
    ('nanquantile-nearest', "agree"): KINK,
    ('nextafter-float32', "agree"): KINK,
    ('normalize', "agree"): KINK,
    ('ptp-nan', "agree"): EDGE,
    ('relu6-specials', "agree"): KINK,
    ('rgb_to_hsv-grays-ties', "agree"): HSV,
    ('sinc-special', "agree"): EDGE,
    ('slogdet-singular', "agree"): EDGE,
    ('sort-specials', "agree"): EDGE,
}


def _float_dtype(d) -> bool:
    return str(d) in ("float16", "bfloat16", "float32", "float64")


def _complex_dtype(d) -> bool:
    return str(d).startswith("complex")


class _Case:
    """One record's gradient problem: inputs, which are differentiated, the cotangents."""

    def __init__(self, rec):
        self.rec = rec
        self.id = rec.case_id
        self.inputs = make_inputs(rec, "float32")
        self.wrt = [i for i, a in enumerate(self.inputs) if a.dtype == np.float32]
        out_specs = outputs(symbolic_call(rec, specs(self.inputs)))
        out_np = outputs(expected(rec, self.inputs))  # the shapes (a spec may have None dims)
        keep = _OUTPUTS.get(rec.name, (range(len(out_specs)), ""))[0]
        rng = np.random.default_rng(COTANGENT_SEED)
        # per output: None (not in the loss), ("real", c) or ("complex", c1, c2)
        self.cotangents = []
        for j, s in enumerate(out_specs):
            shape = np.shape(out_np[j])
            if j not in keep or not (_float_dtype(s.dtype) or _complex_dtype(s.dtype)):
                self.cotangents.append(None)
            elif _complex_dtype(s.dtype):
                self.cotangents.append(("complex", rng.normal(size=shape).astype(np.float32),
                                        rng.normal(size=shape).astype(np.float32)))
            else:
                self.cotangents.append(("real", rng.normal(size=shape).astype(np.float32)))

    @property
    def differentiable(self) -> bool:
        return bool(self.wrt) and any(c is not None for c in self.cotangents)

    # -- the loss on a backend, and in float64 NumPy -----------------------------------

    def loss(self, *floats):
        args = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in self.inputs]
        for i, f in zip(self.wrt, floats):
            args[i] = f
        total = 0.0
        for out, cot in zip(outputs(call(self.rec, args)), self.cotangents):
            if cot is None:
                continue
            if cot[0] == "complex":
                total = total + ops.sum(ops.real(out) * tensor(cot[1])) + ops.sum(ops.imag(out) * tensor(cot[2]))
            else:
                total = total + ops.sum(ops.cast(out, "float32") * tensor(cot[1]))
        return total

    def np_outputs(self, x64: list) -> list:
        """The record's NumPy outputs that are in the loss (None for the others)."""
        outs = outputs(expected(self.rec, x64))
        # copies: an output may be a view of the input that the differences then change
        return [None if c is None else np.array(o) for o, c in zip(outs, self.cotangents)]

    def np_change(self, new: list, old: list) -> float:
        """loss(new) - loss(old), output by output before summing (a huge output elsewhere
        would swamp a small change), nan where an output changed size (unique's)."""
        total = 0.0
        for a, b, cot in zip(new, old, self.cotangents):
            if cot is None:
                continue
            if a.shape != b.shape:
                return float("nan")
            with np.errstate(invalid="ignore", over="ignore"):
                d = np.where(a == b, 0, a.astype(np.complex128) - b)
            if cot[0] == "complex":
                total += float(np.sum(d.real * cot[1]) + np.sum(d.imag * cot[2]))
            else:
                total += float(np.sum(d.real * cot[1]))
        return total

    def np_step(self) -> float | None:
        """A finite-difference step: small where NumPy computes in float64, larger where the
        record's function rounds to float32; None where it rounds to 16-bit floats (no step
        is both small and above their rounding)."""
        kinds = {o.dtype for o in self.np_outputs(
            [a.astype(np.float64) if a.dtype == np.float32 else a for a in self.inputs])
            if o is not None}
        if kinds <= {np.dtype(np.float64), np.dtype(np.complex128)}:
            return 1e-6
        if kinds <= {np.dtype(np.float32), np.dtype(np.complex64), np.dtype(np.float64),
                     np.dtype(np.complex128)}:
            return 1e-3
        return None


_MAX_FD_ELEMENTS = 96  # per input: larger inputs check a fixed random subset of elements


@functools.cache
def finite_differences(case_id: str):
    """Per differentiated input: (elements checked as flat indices, FD values there,
    how many elements near a kink were left out)."""
    case = CASES[case_id]
    # C order: the flat views below write through (an input made by swapaxes is not)
    x64 = [np.array(a, np.float64, order="C") if a.dtype == np.float32 else a
           for a in case.inputs]
    if case.rec.name in SYMMETRIC_INPUT:
        def f(xs):
            xs = list(xs)
            for i in case.wrt:
                xs[i] = (xs[i] + np.swapaxes(xs[i], -1, -2)) / 2
            return case.np_outputs(xs)
    else:
        f = case.np_outputs
    h = case.np_step()
    kink_h = 1e-4 if h < 1e-3 else 2e-2
    base = f(x64)
    result = []
    rng = np.random.default_rng(0)
    for i in case.wrt:
        flat = x64[i].reshape(-1)
        idx = np.arange(flat.size)
        if flat.size > _MAX_FD_ELEMENTS:
            idx = np.sort(rng.choice(flat.size, _MAX_FD_ELEMENTS, replace=False))
        values, kinks = [], []
        for k in idx:
            old = flat[k]
            if not np.isfinite(old):
                kinks.append(k)
                values.append(np.nan)
                continue
            at = {}
            for name, delta in (("up", h), ("down", -h), ("right", kink_h), ("left", -kink_h)):
                flat[k] = old + delta * max(1.0, abs(old))
                at[name] = f(x64)
            flat[k] = old
            step, big = h * max(1.0, abs(old)), kink_h * max(1.0, abs(old))
            central = case.np_change(at["up"], at["down"]) / (2 * step)
            right = case.np_change(at["right"], base) / big
            left = case.np_change(base, at["left"]) / big
            spread = abs(right - left) + abs(right + left - 2 * central)
            if not np.isfinite(spread) or spread > 0.02 * (1 + abs(central)):
                kinks.append(k)
            values.append(central)
        keep = np.isin(idx, kinks, invert=True)
        result.append((idx[keep], np.asarray(values)[keep], len(kinks)))
    return result


@functools.cache
def backend_gradients(case_id: str, backend: str):
    """The float32 gradients w.r.t. each differentiated input, as numpy.

    On jax the gradient function is compiled whole with polyops.jit: eagerly jax compiles
    each kernel's linearization and transpose on its own, several times slower over the
    table (test_eager_jax_grad_of_a_cnn covers eager grad).  A function that cannot be
    traced (host computations, value-dependent shapes) runs eagerly."""
    case = CASES[case_id]
    with polyops.use_backend(backend):
        primals = [ops.convert_to_tensor(case.inputs[i], "float32") for i in case.wrt]
        grad = polyops.grad(case.loss, argnums=tuple(range(len(primals))))
        g = None
        if backend == "jax":
            with warnings.catch_warnings():
                warnings.simplefilter("error", polyops.JitFallbackWarning)
                try:
                    g = polyops.jit(grad)(*primals)
                except (polyops.JitFallbackWarning, polyops.EagerOnlyError):
                    pass
                except polyops.NotDifferentiableError:
                    if case.rec.name not in JAX_JIT_RAISES:
                        raise
        if g is None:
            g = grad(*primals)
        return [ops.convert_to_numpy(t).astype(np.float64) for t in g]


def _assert_close(got, want, what, rtol=2e-3):
    """Elementwise within rtol (relative to the element and to the largest |want|); a
    non-finite ``want`` (an edge-value record's inf or nan input) must be matched exactly."""
    finite = np.isfinite(want)
    scale = max(1.0, float(np.max(np.abs(want[finite]), initial=0.0)))
    with np.errstate(invalid="ignore"):
        bad = np.where(finite, ~(np.abs(got - want) <= rtol * np.abs(want) + rtol * scale),
                       ~((got == want) | (np.isnan(got) & np.isnan(want))))
    if bad.any():
        k = np.flatnonzero(bad)[:6]
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} elements differ, e.g. at "
                             f"{k.tolist()}: got {got.reshape(-1)[k]}, want {want.reshape(-1)[k]}")


def _cases():
    out = {}
    for rec in RECORDS:
        if "float32" in rec.dtypes and rec.shapes and rec.case_id not in out:
            out[rec.case_id] = _Case(rec)
    return out


CASES = _cases()
GRAD_CASES = [cid for cid, c in CASES.items() if c.differentiable]
COUNTED = sum(len(CASES[c].wrt) for c in GRAD_CASES) * len(DIFFERENTIATING)


@pytest.mark.parametrize("backend_name", DIFFERENTIATING)
@pytest.mark.parametrize("case_id", GRAD_CASES)
def test_grad_matches_finite_differences(case_id, backend_name, request):
    backend = backend_name
    reason = XFAILS.get((case_id, backend))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    if (case_id, backend) in RAISES:
        op = RAISES[case_id, backend][0]
        with pytest.raises(polyops.NotDifferentiableError, match=f"{op}: .*{backend}"):
            backend_gradients(case_id, backend)
        return
    got = backend_gradients(case_id, backend)
    case = CASES[case_id]
    if case.rec.name in ZERO_GRADIENT:
        for g in got:
            assert not g.any(), f"{case_id}: {ZERO_GRADIENT[case.rec.name]}"
        return
    if case.np_step() is None:
        pytest.skip("the record's NumPy function rounds to 16-bit floats: no finite "
                    "difference is exact enough; test_grad_agrees_across_backends checks it")
    for i, g, (idx, want, _) in zip(case.wrt, got, finite_differences(case_id)):
        assert g.shape == case.inputs[i].shape
        _assert_close(g.reshape(-1)[idx], want, f"{case_id} input {i} on {backend}")


@pytest.mark.parametrize("case_id", GRAD_CASES)
def test_grad_agrees_across_backends(case_id, request):
    """Every element, kinks included (the inputs sit away from them, only closer than the
    finite-difference step), the same on jax, tensorflow and torch."""
    reason = XFAILS.get((case_id, "agree"))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    backends = [b for b in DIFFERENTIATING
                if (case_id, b) not in XFAILS and (case_id, b) not in RAISES] or DIFFERENTIATING
    got = {b: backend_gradients(case_id, b) for b in backends}
    first, *rest = backends
    for b in rest:
        for i, (g0, g1) in enumerate(zip(got[first], got[b])):
            _assert_close(g1, g0, f"{case_id} input {i}: {b} against {first}")


def test_the_table_covers_every_differentiable_op():
    """Every op but the random family has a float32 record; the rules above decide which
    have a gradient, and this is the count the closing note reports."""
    ops_with_grad = {CASES[c].rec.name for c in GRAD_CASES}
    tabled = {c.rec.name for c in CASES.values()}
    no_loss = sorted(tabled - ops_with_grad)
    assert all(not CASES[c].differentiable for c in CASES if CASES[c].rec.name in no_loss)
    assert len(ops_with_grad) > 250, (len(ops_with_grad), no_loss)
    assert COUNTED > 0


# ----- known bugs, each with its own test ------------------------------------------------


def test_eig_eigenvalues_gradient_is_the_identity():
    """d sum(re w) / dA = I, natively on torch and tensorflow; polyops used to give zeros
    there (the host computation was cut off the tape) and EagerOnlyError on jax."""
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 0.2, 1.0]], np.float32)
    for backend in DIFFERENTIATING:
        with polyops.use_backend(backend):
            g = polyops.grad(lambda x: ops.sum(ops.real(ops.linalg.eig(x)[0])))(a)
            np.testing.assert_allclose(ops.convert_to_numpy(g), np.eye(3), atol=1e-5,
                                       err_msg=backend)


@pytest.mark.parametrize("backend_name", DIFFERENTIATING)
def test_eig_eigenvectors_raise(backend_name):
    a = np.array([[2.0, 1.0], [0.5, 3.0]], np.float32)
    with polyops.use_backend(backend_name):
        with pytest.raises(polyops.NotDifferentiableError, match=f"eig: .*{backend_name}"):
            polyops.grad(lambda x: ops.sum(ops.real(ops.linalg.eig(x)[1])))(a)


@pytest.mark.parametrize("backend_name", DIFFERENTIATING)
def test_host_computation_under_grad_raises(backend_name):
    """A host (numpy) computation on a differentiated tensor raises, naming the op and the
    backend, instead of giving zeros."""
    from polyops.ops._base import to_host

    def loss(x):
        to_host("some_op", x)
        return ops.sum(x)

    with polyops.use_backend(backend_name):
        with pytest.raises(polyops.NotDifferentiableError, match=f"some_op: .*{backend_name}"):
            polyops.grad(loss)(np.ones((2,), np.float32))
        # off the tape it still reads the values
        assert to_host("some_op", ops.ones((2,))).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("backend_name", DIFFERENTIATING)
def test_eager_grad_of_a_cnn(backend_name):
    """conv + max_pool + average_pool under eager grad (jax raised "Linearization failed to
    produce known values" through the pools: a CNN could not train on jax)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 8, 8, 3)).astype(np.float32)
    w = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)

    def loss(w, x):
        h = ops.relu(ops.conv(x, w, padding="same"))
        h = ops.max_pool(h, 2) + ops.average_pool(h, 2)
        return ops.sum(ops.average_pool(h, 3, 2, "same") ** 2)

    with polyops.use_backend(backend_name):
        g = ops.convert_to_numpy(polyops.grad(loss)(w, x))
    with polyops.use_backend("numpy"):
        base = float(ops.convert_to_numpy(loss(w, x)))
        k, eps = (1, 2, 0, 3), 1e-2
        w2 = w.copy()
        w2[k] += eps
        up = float(ops.convert_to_numpy(loss(w2, x)))
        w2[k] -= 2 * eps
        down = float(ops.convert_to_numpy(loss(w2, x)))
    assert g.shape == w.shape and np.isfinite(g).all() and np.abs(g).sum() > 0
    np.testing.assert_allclose(g[k], (up - down) / (2 * eps), rtol=2e-2, atol=1e-2 * (1 + abs(base)) ** 0)


def test_jitted_grad_of_while_loop_on_jax():
    """jax cannot reverse-differentiate lax.while_loop (a raw ValueError from jax's
    transpose): under polyops.jit the gradient raises NotDifferentiableError naming the op
    and the backend, and with maximum_iterations it differentiates (as a bounded scan)."""
    if "jax" not in DIFFERENTIATING:
        pytest.skip("jax is not installed")
    x = np.array([1.0, 2.0, 3.0], np.float32)

    def loss(x, limit=None):
        out = ops.while_loop(lambda v: ops.sum(v) < 100.0, lambda v: v * 1.5, x,
                             maximum_iterations=limit)
        return ops.sum(out * out)

    with polyops.use_backend("jax"):
        with pytest.raises(polyops.NotDifferentiableError, match="while_loop: .*jax"):
            polyops.jit(polyops.grad(loss))(x)
        eager = ops.convert_to_numpy(polyops.grad(loss)(x))
        bounded = ops.convert_to_numpy(polyops.jit(polyops.grad(lambda x: loss(x, 50)))(x))
    # sum(x) = 6 grows by 1.5 per step until >= 100: 7 steps, loss = sum((1.5**7 x)**2)
    np.testing.assert_allclose(eager, 2 * 1.5 ** 14 * x, rtol=1e-5)
    np.testing.assert_allclose(bounded, eager, rtol=1e-5)


def test_torch_gammainc_differentiates_in_x_with_a_constant():
    """torch's gammainc raises for a differentiated ``a`` only: d/dx P(a, x) =
    x^(a-1) e^-x / Gamma(a)."""
    if "torch" not in DIFFERENTIATING:
        pytest.skip("torch is not installed")
    import math

    a, x = 2.5, np.array([0.5, 1.0, 3.0], np.float32)
    with polyops.use_backend("torch"):
        g = ops.convert_to_numpy(polyops.grad(
            lambda x: ops.sum(ops.gammainc(ops.convert_to_tensor(a), x)))(x))
    want = x.astype(np.float64) ** (a - 1) * np.exp(-x.astype(np.float64)) / math.gamma(a)
    np.testing.assert_allclose(g, want, rtol=1e-5)
