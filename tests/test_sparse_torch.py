"""torch's sparse tensors against the whole op table (issue 19, docs/sparse.md).

A torch sparse tensor is a ``torch.Tensor`` of another layout: every op's kernel can be
handed one, and each either raises (core rescues the call), answers by the rule itself
(torch's own sparse functions: sin, multiply, matmul...), or is named in the plugin's
``guarded`` (core checks its operands first).  This runs every case of the op table with
each tensor operand made sparse in turn (every other element zeroed first) and checks the
result against the same call on the densified operands: the values and dtype, and the
layout against the op's symbolic spec (its rule), so an op whose torch function would give
a sparse result where the rule says dense, or other values, fails here until the plugin
guards it.
"""

from __future__ import annotations

import numpy as np
import polyops
import pytest
from conftest import BACKENDS
from polyops import SymbolicTensor
from polyops._op import OPS
from polyops.testing import case_id, cases
from polyops.testing._check import assert_values, call, outputs, tolerance
from polyops.testing._records import make_inputs

pytestmark = pytest.mark.skipif("torch" not in BACKENDS, reason="torch not installed")

# Control flow hands its operands to the user's functions as they are, on every backend
# (a sparse tensor in, whatever the functions return out); the op table's functions use
# torch's own operators (``x + 1``), which take few sparse tensors: checked apart, below.
PASS_THROUGH = frozenset(name for name, op in OPS.items() if op.tree)


def _operands(rec, inputs) -> list:
    """The positions of the inputs a sparse tensor can stand for: the op's tensor operands
    (not an index given as a tensor, slice's start_indices), numeric or bool, rank >= 1,
    two elements or more (one zeroed, one kept)."""
    slots = {p for p, _ in OPS[rec.name].tensor_slots}
    return [i for i, a in enumerate(inputs)
            if a.ndim >= 1 and a.size >= 2 and a.dtype.kind in "biuf"
            and (rec.lists or len(rec.pre) + i in slots or OPS[rec.name].varargs is not None)]


def _cases():
    # every dtype but the 16-bit floats (torch's sparse kernels and float32 take the same
    # paths); cases without such an operand have nothing to test
    return [(rec, dtype) for rec, dtype in cases()
            if rec.shapes and dtype not in ("float16", "bfloat16")
            and rec.name not in PASS_THROUGH and _operands(rec, make_inputs(rec, dtype))]


CASES = _cases()


def _layout_sparse(v) -> bool:
    import torch

    return isinstance(v, torch.Tensor) and v.layout is not torch.strided


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_every_op_with_a_torch_sparse_operand(case):
    import torch

    rec, dtype = case
    inputs = make_inputs(rec, dtype)
    with polyops.use_backend("torch"):
        for pos in _operands(rec, inputs):
            a = inputs[pos].copy()
            a.reshape(-1)[::2] = 0
            tensors = [torch.as_tensor(np.ascontiguousarray(x)) for x in inputs]
            sparse = torch.as_tensor(a).to_sparse()
            tensors[pos] = sparse.to_dense()  # (-0.0 stored densely reads +0.0 sparsely)
            args = list(tensors)
            args[pos] = sparse
            try:
                wants = outputs(call(rec, tensors))
            except Exception as exc:  # noqa: BLE001  (any: the sparse call must match it)
                # the zeroed operand is outside the op's domain: the same error, sparse
                with pytest.raises(type(exc)):
                    call(rec, args)
                continue
            gots = outputs(call(rec, args))
            specs = [SymbolicTensor(x.shape, polyops.standardize_dtype(x.dtype),
                                    sparse=i == pos) for i, x in enumerate(inputs)]
            rules = outputs(call(rec, specs))
            assert len(gots) == len(wants)
            for got, want, rule in zip(gots, wants, rules, strict=True):
                if isinstance(want, torch.Tensor):
                    layout = _layout_sparse(got)
                    assert layout is bool(getattr(rule, "sparse", False)), (
                        f"operand {pos} sparse: the result is "
                        f"{'sparse' if layout else 'dense'}, the rule says otherwise")
                    got = got.to_dense() if layout else got
                    assert got.dtype == want.dtype and got.shape == want.shape
                    spec_dtype = polyops.standardize_dtype(want.dtype)
                    assert_values(polyops.ops.convert_to_numpy(got),
                                  polyops.ops.convert_to_numpy(want), spec_dtype,
                                  tolerance(spec_dtype, rec.name, rec))
                else:
                    assert got == want


def test_control_flow_hands_sparse_operands_to_the_functions():
    import torch

    from polyops import ops

    with polyops.use_backend("torch"):
        x = torch.tensor([[0.0, 1.5], [-2.0, 0.0]]).to_sparse()
        seen = []

        def branch(v):
            seen.append(ops.is_sparse(v))
            return ops.multiply(v, 2.0)

        out = ops.switch(0, [branch, branch], x)
        assert seen == [True] and ops.is_sparse(out)
        np.testing.assert_array_equal(ops.convert_to_numpy(out), [[0, 3], [-4, 0]])
        out = ops.fori_loop(0, 3, lambda i, v: ops.add(v, v), x)
        assert ops.is_sparse(out)
        np.testing.assert_array_equal(ops.convert_to_numpy(out), [[0, 12], [-16, 0]])


def test_jit_tells_sparse_from_dense_signatures():
    """A torch sparse tensor is a torch.Tensor: the compiled signature records its layout,
    so the dense trace is never run on a sparse tensor (which runs eagerly: make_fx does
    not trace sparse tensors)."""
    import torch

    from polyops import ops

    with polyops.use_backend("torch"):
        f = polyops.jit(lambda v: ops.multiply(ops.sin(v), 2.0))
        d = torch.tensor([[0.0, 0.5], [-1.0, 0.0]])
        x = d.to_sparse()
        want = np.sin(d.numpy()) * 2
        for v in (d, x, d, x):
            out = f(v)
            assert ops.is_sparse(out) is (v is x)
            np.testing.assert_allclose(ops.convert_to_numpy(out), want, rtol=1e-6)
        assert f.traces == 2


def test_only_guarded_ops_and_references_pay_for_the_check():
    """Dense calls of the other ops reach torch's function itself (the public function's
    one frame): torch.sin is sin's fast kernel; sum's is core's operand check."""
    import torch

    from polyops import ops

    with polyops.use_backend("torch"):
        ops.sin(torch.ones(2))
        ops.sum(torch.ones(2), axis=0)
        backend = polyops._registry.current()
        fast = backend._tables(polyops.config.is_x64_enabled())[1]
        contract = polyops._sparse.contract(backend.runtime)
        assert fast[OPS["sin"].index][2] is torch.sin
        assert "sin" not in contract.guarded and "sum" in contract.guarded
        assert fast[OPS["sum"].index][2].__qualname__ == "guard.<locals>.guarded"
