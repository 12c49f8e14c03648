"""Issue 21's openvino target: the transformer block's forward (compiled.py's ``BLOCK``)
under `polyops.jit` on openvino, one recorded model, against the same block built by hand
with openvino's opset (MVN, ScaledDotProductAttention, Gelu "tanh", MatMul) and compiled
with the plugin's configuration (f32 inference precision, latency hint).  The parameters
are model inputs on both sides.  Prints the largest difference between the two results
and the median of 7 ratios of 30-call means.  Target: within 1.1x.  Graph size: the
nodes of each compiled model's runtime graph (after the CPU plugin's own fusions).
``--json PATH`` writes the row `compiled.py` puts in its models table (it runs this
script for ``--backend openvino``).

    python benchmarks/openvino_block.py [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compiled  # noqa: E402  (the block, its parameters)


def native_block(x, params):
    """The block built with openvino's opset, compiled: (compiled model, node count)."""
    import openvino as ov
    import openvino.opset16 as o

    b = compiled.BLOCK
    bsz, t, w, nh = b["batch"], b["tokens"], b["width"], b["heads"]

    def i64(values):
        return o.constant(np.array(values, np.int64))

    def ln(z, g, beta):
        return o.add(o.multiply(o.mvn(z, i64([-1]), True, 1e-5, "inside_sqrt"), g), beta)

    def heads(z):  # (b, t, w) -> (b, h, t, d)
        return o.transpose(o.reshape(z, i64([bsz, t, nh, w // nh]), False), i64([0, 2, 1, 3]))

    inputs = [o.parameter(list(a.shape), ov.Type.f32) for a in (x, *params)]
    h0, g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2 = inputs
    h = ln(h0, g1, b1)
    q, k, v = (heads(o.matmul(h, m, False, False)) for m in (wq, wk, wv))
    a = o.scaled_dot_product_attention(q, k, v, causal=False)
    a = o.reshape(o.transpose(a, i64([0, 2, 1, 3])), i64([bsz, t, w]), False)
    h0 = o.add(h0, o.matmul(a, wo, False, False))
    up = o.gelu(o.add(o.matmul(ln(h0, g2, b2), w1, False, False), c1), "tanh")
    y = o.add(o.add(h0, o.matmul(up, w2, False, False)), c2)
    model = ov.Model([y], inputs)
    config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    return ov.Core().compile_model(model, "CPU", config), len(model.get_ordered_ops())


def _mean_time(f, n=30):
    f()
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n


def _runtime_nodes(compiled_model):
    return len(compiled_model.get_runtime_model().get_ordered_ops())


def _recorded_models():
    """The compiled models polyops.jit recorded on openvino, in this process."""
    from polyops_openvino import _jit

    return [m.compiled for j in gc.get_objects() if isinstance(j, _jit.Jit)
            for m in j.models.values() if m.compiled is not None]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json")
    args = p.parse_args(argv)
    import polyops
    from polyops import ops

    polyops.set_backend("openvino")
    b = compiled.BLOCK
    rng = np.random.default_rng(1)
    x = rng.standard_normal((b["batch"], b["tokens"], b["width"])).astype(np.float32)
    params = compiled._block_params(rng)
    model, nodes = native_block(x, params)
    request = model.create_infer_request()
    arrays = [x, *params]

    def native():
        request.infer(arrays, share_inputs=True)
        return request.get_output_tensor(0).data.copy()

    jitted = polyops.jit(compiled._poly_block)
    tensors = [ops.convert_to_tensor(a) for a in arrays]
    diff = float(np.abs(np.asarray(jitted(*tensors)) - native()).max())
    ratios, t_poly, t_native = [], 0.0, 0.0
    for _ in range(7):
        t_poly = _mean_time(lambda: jitted(*tensors))
        t_native = _mean_time(native)
        ratios.append(t_poly / t_native)
    recorded = _recorded_models()
    poly_nodes = _runtime_nodes(recorded[0]) if len(recorded) == 1 else None
    ratio = statistics.median(ratios)
    print(f"openvino block forward: polyops.jit {t_poly * 1e3:.3f} ms, hand-built model "
          f"{t_native * 1e3:.3f} ms ({nodes} nodes): {ratio:.3f}x "
          f"(target <=1.1x); largest difference {diff:.2e}; runtime graph nodes: polyops "
          f"{poly_nodes} ({len(recorded)} model), native {_runtime_nodes(model)}")
    if args.json:
        cell = {"t_native": t_native, "t_polyops": t_poly, "ratio": ratio, "diff": diff}
        if poly_nodes is not None:
            cell["size"] = {"polyops": {"runtime nodes": poly_nodes},
                            "native": {"runtime nodes": _runtime_nodes(model)}}
        Path(args.json).write_text(json.dumps({"model:block": {"forward": cell}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
