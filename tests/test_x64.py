"""64-bit mode (`polyops.config.enable_x64`): the op table on 64-bit inputs, every backend.

Each record runs once per 32-bit dtype it has among float32, int32 and complex64, with its
inputs widened to float64, int64 and complex128 (the same values), inside
``polyops.config.x64_scope()``.  The eager result must have the dtype and shape the
symbolic rule predicts in that mode, keep 64 bits wherever the 32-bit case gives 32 bits,
and match NumPy's float64 computation at float64 tolerance (openvino: float32 tolerance,
its CPU plugin computes float64 in float32).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, config, ops
from polyops.testing import case_id, cases
from polyops.testing._check import (
    assert_values, call, outputs, shape_matches, specs, symbolic_call,
)
from polyops.testing._records import expected, make_inputs, tolerance

from conftest import BACKENDS

WIDE = {"float32": "float64", "int32": "int64", "uint32": "uint64", "complex64": "complex128"}
NARROW = {v: k for k, v in WIDE.items()}
TOL64 = {"float64": dict(rtol=1e-9, atol=1e-12), "complex128": dict(rtol=1e-9, atol=1e-12)}
TOL32 = {"float64": dict(rtol=2e-5, atol=2e-6), "complex128": dict(rtol=2e-5, atol=2e-6)}

# Ops whose result dtype does not follow the operands' width, by their rule in both
# modes (an index dtype, a dtype argument...): the width check skips them.
FIXED_WIDTH = {
    "argmax", "argmin", "argsort", "argpartition", "nonzero", "searchsorted", "digitize",
    "bincount", "count_nonzero", "unravel_index", "argwhere", "shape", "size", "ndim",
    "one_hot", "multi_hot", "top_k", "unique",
}

# Records whose meaning does not survive widening, with the reason (not run here).
NOT_WIDENED = {
    "view": "a bit view: widening the input changes the item size, so the shape and values",
}
# ... and records whose NumPy expectation is rounded to float32 on purpose, where the
# float64 result is finite but float32's overflows (the gradient table's finite
# differences rely on that rounding)
NOT_WIDENED.update({
    "expm1-special": "the expectation is rounded to float32: expm1(89) is inf there",
    "hypot-huge-tiny": "the expectation is rounded to float32: hypot of 3e38s is inf there",
})
CASES = [(rec, d) for rec, d in cases()
         if d in ("float32", "int32", "complex64")
         and rec.name not in NOT_WIDENED and rec.case_id not in NOT_WIDENED]
# (case id, backend) -> why it fails: strict xfails, as in tests/xfails.py
XFAILS = {
    **{(case, "openvino"): "openvino has no complex dtype (TypeError naming the op)"
       for case in ("eig-float32", "view_as_complex-complex64", "view_as_real-complex64",
                    "polar-float32", "polar-broadcast-float32")},
    **{(case, "openvino"): "openvino computes float64 in float32: results past float32's "
                           "range (ldexp to 7.5e301, 1e100) are inf"
       for case in ("ldexp-extreme-float32", "logspace-tensors-float32")},
    ("left_shift-int32", "openvino"):
        "openvino computes int64 in 32 bits: shifted values up to 2**47 wrap",
}


def _widen(a: np.ndarray) -> np.ndarray:
    wide = WIDE.get(a.dtype.name)
    return a.astype(wide) if wide else a


def _spec_dtypes(rec, inputs):
    return [o.dtype for o in outputs(symbolic_call(rec, specs(inputs)))
            if isinstance(o, SymbolicTensor)]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_op_table_in_x64(case, backend, request):
    rec, dtype = case
    reason = XFAILS.get((case_id(case), backend))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    narrow = make_inputs(rec, dtype)
    inputs = [_widen(a) for a in narrow]
    with config.x64_scope():
        spec_list = outputs(symbolic_call(rec, specs(inputs)))
        with polyops.use_backend(backend):
            tensors = [ops.convert_to_tensor(a, polyops.standardize_dtype(a.dtype)) for a in inputs]
            results = [(ops.convert_to_numpy(o), ops.dtype(o), tuple(ops.shape(o)))
                       for o in outputs(call(rec, tensors))]
    wants = outputs(expected(rec, inputs))
    assert len(results) == len(spec_list) == len(wants)
    narrow_dtypes = _spec_dtypes(rec, narrow)
    tol64 = TOL32 if backend == "openvino" else TOL64
    for (got, got_dtype, got_shape), spec, want, d32 in zip(results, spec_list, wants, narrow_dtypes):
        assert got_dtype == spec.dtype, f"dtype: {backend} gave {got_dtype}, the rule says {spec.dtype}"
        # (ints become floatx in float ops in both modes, as in Keras: only floats widen)
        if rec.name not in FIXED_WIDTH and dtype != "int32" and d32 in ("float32", "complex64"):
            assert spec.dtype == WIDE.get(d32, d32), (
                f"width: the rule gives {spec.dtype} on 64-bit inputs, {d32} on 32-bit ones")
        assert shape_matches(got_shape, spec.shape)
        want = np.asarray(want)
        assert got.shape == want.shape
        # (some records compute their expectation in float32 on purpose: compare at that)
        precise = spec.dtype in tol64 and want.dtype.name in ("float64", "complex128")
        tol = tol64[spec.dtype] if precise else tolerance(NARROW.get(spec.dtype, spec.dtype), rec.name, rec)
        assert_values(got, want, spec.dtype, tol)


def test_x64_scope_restores_and_validates():
    assert not config.is_x64_enabled()
    with config.x64_scope():
        assert config.is_x64_enabled()
        with config.x64_scope(False):
            assert not config.is_x64_enabled()
        assert config.is_x64_enabled()
    assert not config.is_x64_enabled()
    with pytest.raises(TypeError, match="x64_scope"):
        with config.x64_scope("yes"):
            pass


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_default_mode_still_demotes(backend_name):
    """Outside 64-bit mode a float64 array computes in float32, as before; inside, float64;
    the fast-path tables built in one mode serve the other."""
    x = np.linspace(0.0, 1.0, 5)
    with polyops.use_backend(backend_name):
        assert ops.dtype(ops.exp(x)) == "float32"
        with config.x64_scope():
            t64 = ops.convert_to_tensor(x, "float64")
            assert ops.dtype(ops.exp(t64)) == "float64"
            assert ops.dtype(ops.add(t64, 1.0)) == "float64"
            assert ops.dtype(ops.sum(ops.convert_to_tensor(np.arange(3)))) == "int64"
            assert ops.dtype(ops.add(ops.ones((2,), "int32"), 1)) == "int32"  # Python ints stay weak
            assert ops.dtype(ops.convert_to_tensor([1.5, 2.5])) == "float32"  # Python floats: floatx
        assert ops.dtype(ops.exp(x)) == "float32"
        assert ops.dtype(ops.add(x, 1.0)) == "float32"


def test_symbolic_inference_follows_the_mode():
    s = SymbolicTensor((None, 3), "float64")
    assert (s + 1.0).dtype == "float32"
    assert polyops.result_type("uint32", "int32") == "int32"
    assert polyops.result_type("int64", "float32") == "float32"  # ints join any float
    with config.x64_scope():
        assert (s + 1.0).dtype == "float64"
        assert ops.sum(SymbolicTensor((2,), "int64")).dtype == "int64"
        assert polyops.result_type("uint32", "int32") == "int64"
        assert polyops.result_type("int64", "float32") == "float32"


def test_jit_cache_keys_the_mode():
    f = polyops.jit(lambda x: ops.exp(x))
    x = np.ones(3)
    with polyops.use_backend("numpy"):
        assert ops.dtype(f(x)) == "float32"
        with config.x64_scope():
            assert ops.dtype(f(x)) == "float64"


def test_environment_variable(tmp_path):
    import subprocess
    import sys

    code = ("import numpy as np, polyops; from polyops import ops; "
            "print(polyops.config.is_x64_enabled(), ops.dtype(ops.exp(np.ones(2))))")
    env = {**__import__("os").environ, "POLYOPS_ENABLE_X64": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "float64"]


def test_readme_example(tmp_path):
    """The README's 64-bit mode example prints what the README says it prints."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n64-bit mode. ")
    code, out = re.search(r"```python\n(.*?)```\s*Output:\s*```\n(.*?)```", readme[start:], re.S).groups()
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "POLYOPS_BACKEND": "numpy"})
    assert run.stdout == out


def test_openvino_says_what_x64_means_there():
    """Once, when 64-bit mode goes on with openvino loaded: float64 computes in float32."""
    import subprocess
    import sys

    code = ("import warnings, numpy as np, polyops; from polyops import ops, config\n"
            "warnings.simplefilter('always')\n"
            "with polyops.use_backend('openvino'):\n"
            "    ops.add(np.ones(2, 'float32'), 1.0)\n"
            "    with warnings.catch_warnings(record=True) as seen:\n"
            "        warnings.simplefilter('always')\n"
            "        with config.x64_scope():\n"
            "            x = ops.exp(np.zeros(2))\n"
            "        with config.x64_scope():\n"
            "            pass\n"
            "    print(len([w for w in seen if '64-bit mode on openvino' in str(w.message)]), ops.dtype(x))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "float64"]
