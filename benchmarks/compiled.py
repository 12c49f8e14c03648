"""Compiled cost (issue 21): every differentiable op of the op table, its forward and the
gradient of ``sum(op(x))``, under `polyops.jit` against the framework's own compiler on
the framework's own function; plus a transformer block and the MLP of suite.py.

    python benchmarks/compiled.py [--backend jax|tensorflow|torch ...] [--quick]
                                  [--only OP ...] [--torch-max N] [--no-time] [--side N]
                                  [--json compiled.json] [--output COMPILED.md]
                                  [--results RESULTS.md]

Cases: per op the op-table record catalogue.py takes (the first float32 one), its input
shapes scaled so that the largest input has about 512x512 elements (``--side``; the
catalogue's mid size, where an op's own work outweighs a call's dispatch; smaller where the
result would exceed 16 times that, as in catalogue.py; a record whose values
a function makes, within the op's domain, is tiled to that size where its inputs share one
shape and the op stays finite on them; "tiled" in the table); the op counts as
differentiable when the record has a float32 input and a float output (the rule of
tests/test_gradients.py).  Natives: found by name as in catalogue.py (same values on the
case, else the row says "differs").  The loss is the sum of every float output.

Compilers: jax ``jax.jit``; tensorflow ``tf.function(jit_compile=True)``; torch
``torch.compile`` for the forward, and for the native gradient ``torch.compile`` of the
loss with ``torch.autograd.grad`` outside it (AOT autograd compiles the backward): what a
torch user writes.  polyops: ``polyops.jit(f)`` and ``polyops.jit(polyops.grad(loss))``.

Graph size (noise-free, unlike the timings on a shared machine):

* jax: equations of the jaxpr (nested jaxprs counted by their equations) and the
  instructions of the optimized HLO's entry computation (each fusion one: the kernels run);
* tensorflow: nodes of the concrete function's graph (library functions included), traced
  as both sides are compiled (``jit_compile=True``: inside XLA's context); the first
  figure counts the nodes that do work (placeholders, constants, identities and no-ops
  left out: XLA emits nothing for them), the second every node;
* torch: ``call_function`` nodes (detach, a view, left out) of the aten graph that
  `polyops.jit` compiles (``make_fx``, fake tensors), and of the same trace of the native.

torch.compile compiles for seconds per function: on torch only ``--torch-max`` ops are
timed (the issue's rows first, then an even sample); every op gets its graph size.
Each backend runs in its own child process; timings are medians of interleaved rounds
(suite.bench) and a ratio is the median of per-round ratios.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import catalogue  # noqa: E402  (cases and natives)
import suite  # noqa: E402  (timing)

BACKENDS = ("jax", "tensorflow", "torch", "openvino")  # openvino: the block's forward only
ELEMS = 512 * 512  # (--side: set in the child before any case is made)
BEGIN, END = "<!-- compiled: begin -->", "<!-- compiled: end -->"  # RESULTS.md's section
catalogue.SIZES["compiled"] = ELEMS
FULL = {"target": 0.004, "rounds": 7}
QUICK = {"target": 0.001, "rounds": 3}
TARGETS = {"median": 1.02, "p90": 1.1, "worst": 1.3}
MODEL_TARGET = 1.05
# the rows: timed first on torch, and listed first
FIRST = ("gelu", "softmax", "var", "matmul", "layer_normalization", "dot_product_attention",
         "log_softmax", "logsumexp")


# ======================================================================================
# the frameworks: compiler, gradient, graph size
# ======================================================================================


class Jax:
    name = "jax"

    def __init__(self):
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp

    def sync(self, y):
        return self.jax.block_until_ready(y)

    def compile(self, fn):
        return self.jax.jit(fn)

    def loss(self, outs):
        jnp = self.jnp
        return sum(jnp.sum(o.astype(jnp.float32)) for o in outs)

    def native_grad(self, fn, n):
        return self.compile(self.jax.grad(fn, argnums=tuple(range(n))))

    def size(self, fn, args):
        jaxpr = self.jax.make_jaxpr(fn)(*args)
        hlo = self.jax.jit(fn).lower(*args).compile().as_text()
        return {"eqns": _eqns(jaxpr.jaxpr), "hlo": _entry_ops(hlo)}


def _eqns(jaxpr):
    """Equations of a jaxpr, a nested jaxpr (jit, custom_jvp...) counted by its own."""
    from jax.extend import core as jcore

    n = 0
    for eqn in jaxpr.eqns:
        subs = [v for v in eqn.params.values() if isinstance(v, (jcore.Jaxpr, jcore.ClosedJaxpr))]
        if subs:
            n += sum(_eqns(s.jaxpr if isinstance(s, jcore.ClosedJaxpr) else s) for s in subs)
        else:
            n += 1
    return n


_FREE = ("parameter(", "constant(", "tuple(", "get-tuple-element(", "bitcast(")


def _entry_ops(hlo_text):
    """Instructions of the optimized HLO's ENTRY computation that do work (a fusion is
    one: one kernel), parameters, constants, tuples and bitcasts left out."""
    body = hlo_text.split("\nENTRY ", 1)[1].split("\n}", 1)[0]
    return sum(1 for line in body.splitlines()[1:]
               if " = " in line and not any(f in line for f in _FREE))


class Tensorflow:
    name = "tensorflow"

    def __init__(self):
        import tensorflow as tf

        self.tf = tf

    def sync(self, y):
        return y

    def compile(self, fn):
        return self.tf.function(fn, jit_compile=True, autograph=False)

    def loss(self, outs):
        tf = self.tf
        return sum(tf.reduce_sum(tf.cast(o, tf.float32)) for o in outs)

    def native_grad(self, fn, n):
        tf = self.tf

        def g(*xs):
            with tf.GradientTape() as tape:
                for x in xs[:n]:
                    tape.watch(x)
                y = fn(*xs)
            return tape.gradient(y, list(xs[:n]))

        return self.compile(g)

    def size(self, fn, args):
        gd = self.tf.function(fn, jit_compile=True, autograph=False).get_concrete_function(
            *args).graph.as_graph_def()
        kinds = [n.op for n in gd.node] + [n.op for f in gd.library.function for n in f.node_def]
        return {"ops": sum(k not in _TF_FREE for k in kinds), "nodes": len(kinds)}


_TF_FREE = ("Placeholder", "Const", "Identity", "IdentityN", "NoOp")


class Torch:
    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch

    def sync(self, y):
        return y

    def compile(self, fn):
        return self.torch.compile(fn, dynamic=False)

    def loss(self, outs):
        return sum(o.float().sum() for o in outs)

    def native_grad(self, fn, n):
        torch = self.torch
        cf = self.compile(fn)

        def g(*xs):
            xs = [x.detach().requires_grad_() if i < n else x for i, x in enumerate(xs)]
            return torch.autograd.grad(cf(*xs), xs[:n])

        return g

    def eager_grad(self, fn, n):
        torch = self.torch

        def g(*xs):
            xs = [x.detach().requires_grad_() if i < n else x for i, x in enumerate(xs)]
            return torch.autograd.grad(fn(*xs), xs[:n])

        return g

    def size(self, fn, args):
        from polyops_torch import core as tcore

        with tcore._compile_session():
            gm = tcore._make_fx_fake(fn)(*args)
        # detach is a view (the gradient's result handed back off the tape): no work
        return {"nodes": sum(1 for n in gm.graph.nodes if n.op == "call_function"
                             and "detach" not in str(n.target))}


FRAMEWORKS = {"jax": Jax, "tensorflow": Tensorflow, "torch": Torch}


# ======================================================================================
# child: one backend
# ======================================================================================


def _ratio(r):
    if "rounds" not in r.get("native", {}) or "rounds" not in r.get("polyops", {}):
        return None
    ratios = [p / n for p, n in zip(r["polyops"]["rounds"], r["native"]["rounds"])]
    return {"t_native": r["native"]["median"], "t_polyops": r["polyops"]["median"],
            "ratio": statistics.median(ratios)}


def _time(fw, poly, native, args, cfg):
    def blocked(f):
        return lambda *a: fw.sync(f(*a))

    return _ratio(suite.bench({"native": (blocked(native), args),
                               "polyops": (blocked(poly), args)}, cfg))


def _pair(fw, poly_fn, native_fn, n_wrt, args, cfg, timed, sizes=True):
    """{forward: {...}, grad: {...}} for a polyops function and a native one of the same
    tensors (the first ``n_wrt`` differentiated), each a list of outputs."""
    import polyops
    from polyops import ops

    def poly_loss(*xs):
        return sum(ops.sum(o if ops.dtype(o) == "float32" else ops.cast(o, "float32"))
                   for o in poly_fn(*xs))

    def native_loss(*xs):
        return fw.loss(native_fn(*xs))

    pg = polyops.grad(poly_loss, argnums=tuple(range(n_wrt)))
    out = {}
    for kind, p, nat, ncomp in (
            ("forward", poly_fn, native_fn, lambda: fw.compile(native_fn)),
            ("grad", pg, None, lambda: fw.native_grad(native_loss, n_wrt))):
        row = {}
        if sizes:
            try:
                nsz = fw.size(nat, args) if nat is not None else fw.size(
                    fw.eager_grad(native_loss, n_wrt) if fw.name == "torch"
                    else _raw_grad(fw, native_loss, n_wrt), args)
                row["size"] = {"polyops": fw.size(p, args), "native": nsz}
            except Exception as exc:  # noqa: BLE001 - reported
                row["size_error"] = suite._err(exc)
        if timed:
            try:
                r = _time(fw, polyops.jit(p), ncomp(), args, cfg)
                row.update(r or {"status": "timing failed"})
            except Exception as exc:  # noqa: BLE001 - reported
                row["status"] = "error (" + suite._err(exc) + ")"
        out[kind] = row
    return out


def _raw_grad(fw, loss, n):
    """The native gradient function, uncompiled (its graph is what gets measured)."""
    if fw.name == "jax":
        return fw.jax.grad(loss, argnums=tuple(range(n)))

    tf = fw.tf

    def g(*xs):
        with tf.GradientTape() as tape:
            for x in xs[:n]:
                tape.watch(x)
            y = loss(*xs)
        return tape.gradient(y, list(xs[:n]))

    return g


def job(backend, cfg, only, torch_max, timed):
    import polyops
    from polyops._op import every_op
    from polyops._registry import get_backend
    from polyops.testing._records import RECORDS, arrange

    polyops.set_backend(backend)
    be = get_backend(backend)
    rt = be.runtime
    fw = FRAMEWORKS[backend]()
    names = [n for n in every_op() if not only or n in only]  # --only block / mlp: models
    names = [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]
    timed_names = set(names)
    if backend == "torch" and timed:
        stride = max(1, (len(names) - len(FIRST)) // max(1, torch_max - len(FIRST)))
        timed_names = set(names[:len(FIRST)]) | set(names[len(FIRST)::stride][:max(0, torch_max - len(FIRST))])
    out = {}
    for name in names:
        t0 = time.perf_counter()
        try:
            out[name] = _op_row(name, be, rt, fw, cfg, timed and name in timed_names, RECORDS, arrange)
        except Exception as exc:  # noqa: BLE001 - reported
            out[name] = {"status": "error (" + suite._err(exc) + ")"}
        if time.perf_counter() - t0 > 20 or os.environ.get("COMPILED_VERBOSE"):
            print(f"    {backend} {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    for model in ("block", "mlp"):
        if not only or model in only:
            try:
                out["model:" + model] = _model(model, fw, cfg, timed)
            except Exception as exc:  # noqa: BLE001
                out["model:" + model] = {"status": "error (" + suite._err(exc) + ")",
                                         "trace": traceback.format_exc()[-1500:]}
    return out


def _tiled(rec, inputs, dtype, fn, rt, arrange):
    """(inputs, "tiled") when a record built by a function can run at the benchmark's size:
    inputs of one shape (elementwise ops and reductions; not linalg or image ops, whose
    values or channels a tiling would break) repeated to it, the symbolic result within
    bounds and the op finite on them wherever it is finite on the record; else the record's
    own (inputs, False)."""
    import dataclasses

    from polyops import ops

    shapes = {a.shape for a in inputs}
    if rec.make is None or len(shapes) != 1 or not next(iter(shapes)) or \
            OP_FAMILY.get(rec.name) in ("linalg", "image"):
        return inputs, False
    new = catalogue._scaled_shapes(list(shapes), ELEMS)[0]
    tiled = [np.resize(a, new) for a in inputs]
    spec = dataclasses.replace(rec, shapes=(new,) * len(inputs), make=None)
    if catalogue._result_elems(spec, dtype) > 16 * ELEMS:
        return inputs, False

    def finite(xs):
        ts = [rt.convert_to_tensor(a, dtype if a.dtype.kind == "f" else catalogue._canonical(a.dtype))
              for a in xs]
        outs = [np.asarray(ops.convert_to_numpy(o))
                for o in _outs(fn(*rec.pre, *arrange(rec, ts), **dict(rec.kwargs)))]
        return all(np.isfinite(o).all() for o in outs if o.dtype.kind in "fc")

    try:
        if finite(inputs) and not finite(tiled):
            return inputs, False
    except Exception:  # noqa: BLE001 - the op rejects the tiled case: keep the record's
        return inputs, False
    return tiled, "tiled"


def _op_row(name, be, rt, fw, cfg, timed, records, arrange):
    import polyops
    from polyops import ops

    rec = catalogue._pick(name, records)
    if rec is None:
        return {"status": "no op-table record"}
    fn = getattr(ops, name, None)
    for fam in ("linalg", "math", "image", "nn", "core"):
        fn = fn or getattr(getattr(ops, fam, None), name, None)
    if fn is None or OP_FAMILY.get(name) == "random":
        return {"status": "not timed (random or not public)"}
    inputs, dtype, scaled = catalogue._case_inputs(rec, "compiled")
    if not scaled:
        inputs, scaled = _tiled(rec, inputs, dtype, fn, rt, arrange)
    if "float32" not in rec.dtypes:
        return {"status": "no float32 case: not differentiable"}
    wrt = [i for i, a in enumerate(inputs) if a.dtype == np.float32]
    if not wrt:
        return {"status": "no float input: not differentiable"}
    tensors = [rt.convert_to_tensor(a, dtype if a.dtype.kind == "f" else catalogue._canonical(a.dtype))
               for a in inputs]
    order = wrt + [i for i in range(len(tensors)) if i not in wrt]  # differentiated first
    kwargs = dict(rec.kwargs)

    def placed(xs):
        full = [None] * len(xs)
        for i, x in zip(order, xs):
            full[i] = x
        return arrange(rec, full)

    def poly_fn(*xs):
        return [o for o in _outs(fn(*rec.pre, *placed(xs), **kwargs))
                if polyops.standardize_dtype(ops.dtype(o)).startswith("float")]

    args = tuple(tensors[i] for i in order)
    want = poly_fn(*args)
    if not want:
        return {"status": "no float output: not differentiable"}
    native, label = OVERRIDES.get((fw.name, name), (None, None))
    if native is None:
        native, label = catalogue._resolve(fw.name, name)
    else:
        native = native()
    row = {"family": OP_FAMILY.get(name), "source": be.sources.get(name), "scaled": scaled,
           "shapes": [list(a.shape) for a in inputs]}
    if native is None:
        return {**row, "status": "no native function of that name"}
    tr = catalogue.KWARGS.get(fw.name, {})
    nkw = {tr.get(k, k): v for k, v in kwargs.items()}
    pos = False
    try:
        got = native(*rec.pre, *placed(args), **nkw)
    except Exception:  # noqa: BLE001 - Keras's keyword names: positionally
        try:
            pargs, _ = catalogue._positional(fn, (*rec.pre, *placed(args)), kwargs)
            got, pos = native(*pargs), True
        except Exception as exc:  # noqa: BLE001
            return {**row, "status": "signature differs (" + suite._err(exc) + ")", "native": label}

    def native_fn(*xs):
        if pos:
            a, _ = catalogue._positional(fn, (*rec.pre, *placed(xs)), kwargs)
            res = native(*a)
        else:
            res = native(*rec.pre, *placed(xs), **nkw)
        return [o for o in _outs(res) if _is_float(o)]

    if not catalogue._agree(want, native_fn(*args)) or not catalogue._agree(want, [
            o for o in _outs(got) if _is_float(o)]):
        return {**row, "status": "native differs", "native": label}
    row["native"] = label
    row.update(_pair(fw, poly_fn, native_fn, len(wrt), args, cfg, timed))
    return row


def _torch_f():
    import torch

    return torch.nn.functional


# natives whose defaults differ from Keras's (gelu: tanh form; softmax: the last axis)
OVERRIDES = {
    ("tensorflow", "gelu"): (lambda: lambda x, approximate=True: __import__("tensorflow").nn.gelu(
        x, approximate=approximate), "tf.nn.gelu(approximate=True)"),
    ("torch", "gelu"): (lambda: lambda x, approximate=True: _torch_f().gelu(
        x, approximate="tanh" if approximate else "none"), "F.gelu(approximate='tanh')"),
    ("torch", "softmax"): (lambda: lambda x, axis=-1: _torch_f().softmax(x, axis), "F.softmax"),
    ("torch", "log_softmax"): (lambda: lambda x, axis=-1: _torch_f().log_softmax(x, axis),
                               "F.log_softmax"),
    ("torch", "logsumexp"): (lambda: lambda x, axis=None, keepdims=False: __import__("torch").logsumexp(
        x, tuple(range(x.ndim)) if axis is None else axis, keepdims), "torch.logsumexp"),
}


def _eps(epsilon):
    import polyops

    return polyops.config.epsilon() if epsilon is None else epsilon


def _tf_layer_norm(x, gamma=None, beta=None, axis=-1, epsilon=None):
    tf = __import__("tensorflow")
    m, v = tf.nn.moments(x, [axis], keepdims=True)
    return tf.nn.batch_normalization(x, m, v, beta, gamma, _eps(epsilon))


def _tf_rms_norm(x, scale=None, axis=-1, epsilon=None):
    tf = __import__("tensorflow")
    out = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis, keepdims=True) + _eps(epsilon))
    return out if scale is None else out * scale


def _tf_attention(q, k, v):
    """(b, t, n, h) as Keras's, without grouped heads, a mask or a bias: what a tf user
    writes (tf has no fused attention)."""
    tf = __import__("tensorflow")
    q, k, v = (tf.transpose(z, (0, 2, 1, 3)) for z in (q, k, v))
    logits = tf.matmul(q, k, transpose_b=True) * (1.0 / float(np.sqrt(q.shape[-1])))
    return tf.transpose(tf.matmul(tf.nn.softmax(logits), v), (0, 2, 1, 3))


def _jax_layer_norm(x, gamma=None, beta=None, axis=-1, epsilon=None):
    import jax
    import jax.numpy as jnp

    c = x - jnp.mean(x, axis, keepdims=True)
    out = c * jax.lax.rsqrt(jnp.mean(jnp.square(c), axis, keepdims=True) + _eps(epsilon))
    out = out if gamma is None else out * gamma
    return out if beta is None else out + beta


def _jax_rms_norm(x, scale=None, axis=-1, epsilon=None):
    import jax
    import jax.numpy as jnp

    out = x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis, keepdims=True) + _eps(epsilon))
    return out if scale is None else out * scale


def _torch_layer_norm(x, gamma=None, beta=None, axis=-1, epsilon=None):
    return _torch_f().layer_norm(x, x.shape[axis:], gamma, beta, _eps(epsilon))


def _torch_rms_norm(x, scale=None, axis=-1, epsilon=None):
    return _torch_f().rms_norm(x, x.shape[axis:], scale, _eps(epsilon))


def _torch_attention(q, k, v):
    q, k, v = (z.transpose(1, 2) for z in (q, k, v))
    return _torch_f().scaled_dot_product_attention(q, k, v).transpose(1, 2)


# the fused ops without a function of that name: what a user of the framework writes
for _fw, _fns in (("tensorflow", (_tf_layer_norm, _tf_rms_norm, _tf_attention)),
                  ("jax", (_jax_layer_norm, _jax_rms_norm, None)),
                  ("torch", (_torch_layer_norm, _torch_rms_norm, _torch_attention))):
    for _op, _fn in zip(("layer_normalization", "rms_normalization", "dot_product_attention"), _fns):
        if _fn is not None:
            OVERRIDES[(_fw, _op)] = (lambda f=_fn: f, _fn.__name__.lstrip("_"))


def _outs(res):
    return list(res) if isinstance(res, (tuple, list)) else [res]


def _is_float(o):
    d = getattr(o, "dtype", None)
    return d is not None and ("float" in str(d) or "bfloat" in str(d)) and "complex" not in str(d)


OP_FAMILY: dict = {}


# ======================================================================================
# models: one transformer block, the MLP of suite.py
# ======================================================================================

BLOCK = {"batch": 8, "tokens": 64, "width": 128, "heads": 4, "hidden": 512}


def _block_params(rng):
    w, h = BLOCK["width"], BLOCK["hidden"]

    def m(a, b):
        return (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)

    return [np.ones(w, np.float32), np.zeros(w, np.float32), m(w, w), m(w, w), m(w, w), m(w, w),
            np.ones(w, np.float32), np.zeros(w, np.float32), m(w, h), np.zeros(h, np.float32),
            m(h, w), np.zeros(w, np.float32)]


def _poly_block(x, *p):
    from polyops import ops

    g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2 = p
    bsz, t, w = BLOCK["batch"], BLOCK["tokens"], BLOCK["width"]
    nh = BLOCK["heads"]
    h = ops.layer_normalization(x, g1, b1, epsilon=1e-5)
    q, k, v = (ops.reshape(ops.matmul(h, m), (bsz, t, nh, w // nh)) for m in (wq, wk, wv))
    a = ops.reshape(ops.dot_product_attention(q, k, v), (bsz, t, w))
    x = x + ops.matmul(a, wo)
    h = ops.layer_normalization(x, g2, b2, epsilon=1e-5)
    return x + ops.matmul(ops.gelu(ops.matmul(h, w1) + c1), w2) + c2


def _native_block(fw):
    bsz, t, w, nh = BLOCK["batch"], BLOCK["tokens"], BLOCK["width"], BLOCK["heads"]
    d = w // nh
    if fw.name == "jax":
        jax, jnp = fw.jax, fw.jnp

        def ln(x, g, b):
            m = jnp.mean(x, -1, keepdims=True)
            v = jnp.var(x, -1, keepdims=True)
            return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b

        def attn(q, k, v):
            return jax.nn.dot_product_attention(q, k, v)

        def gelu(x):
            return jax.nn.gelu(x)

        reshape, mm = jnp.reshape, jnp.matmul
    elif fw.name == "tensorflow":
        tf = fw.tf

        def ln(x, g, b):
            m, v = tf.nn.moments(x, [-1], keepdims=True)
            return tf.nn.batch_normalization(x, m, v, b, g, 1e-5)

        def attn(q, k, v):  # (b, t, h, d) as jax's
            q, k, v = (tf.transpose(z, (0, 2, 1, 3)) for z in (q, k, v))
            s = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / np.sqrt(d).astype(np.float32))
            return tf.transpose(tf.matmul(s, v), (0, 2, 1, 3))

        def gelu(x):
            return tf.nn.gelu(x, approximate=True)

        reshape, mm = tf.reshape, tf.matmul
    else:
        torch = fw.torch
        F = torch.nn.functional

        def ln(x, g, b):
            return F.layer_norm(x, (w,), g, b, 1e-5)

        def attn(q, k, v):
            q, k, v = (z.transpose(1, 2) for z in (q, k, v))
            return F.scaled_dot_product_attention(q, k, v).transpose(1, 2)

        def gelu(x):
            return F.gelu(x, approximate="tanh")

        reshape, mm = torch.reshape, torch.matmul

    def block(x, *p):
        g1, b1, wq, wk, wv, wo, g2, b2, w1, c1, w2, c2 = p
        h = ln(x, g1, b1)
        q, k, v = (reshape(mm(h, m), (bsz, t, nh, d)) for m in (wq, wk, wv))
        a = reshape(attn(q, k, v), (bsz, t, w))
        x = x + mm(a, wo)
        h = ln(x, g2, b2)
        return x + mm(gelu(mm(h, w1) + c1), w2) + c2

    return block


def _poly_mlp(x, *p):
    from polyops import ops

    for w, b in zip(p[0::2], p[1::2]):
        x = ops.relu(ops.add(ops.matmul(x, w), b))
    return x


def _native_mlp(fw):
    if fw.name == "jax":
        relu, mm = fw.jax.nn.relu, fw.jnp.matmul
    elif fw.name == "tensorflow":
        relu, mm = fw.tf.nn.relu, fw.tf.matmul
    else:
        relu, mm = fw.torch.relu, fw.torch.matmul

    def mlp(x, *p):
        for w, b in zip(p[0::2], p[1::2]):
            x = relu(mm(x, w) + b)
        return x

    return mlp


def _model(which, fw, cfg, timed):
    from polyops import ops

    rng = np.random.default_rng(1)
    if which == "block":
        x = rng.standard_normal((BLOCK["batch"], BLOCK["tokens"], BLOCK["width"])).astype(np.float32)
        params = _block_params(rng)
        poly, native = _poly_block, _native_block(fw)
    else:
        n, width = suite.MLP_LAYERS, suite.MLP_WIDTH
        x = rng.standard_normal((suite.MLP_BATCH, width)).astype(np.float32)
        params = []
        for _ in range(n):
            params += [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
                       (rng.standard_normal(width) * 0.1).astype(np.float32)]
        poly, native = _poly_mlp, _native_mlp(fw)
    args = tuple(ops.convert_to_tensor(a) for a in (x, *params))
    same = catalogue._agree(poly(*args), native(*args))
    # gradient with respect to the parameters (a training step), not the input
    res = {"check": same}
    res.update(_pair(fw, lambda *a: [poly(a[-1], *a[:-1])], lambda *a: [native(a[-1], *a[:-1])],
                     len(params), (*args[1:], args[0]), cfg, timed))
    return res


# ======================================================================================
# parent: report
# ======================================================================================


def spawn(backend, args):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        if backend == "openvino":  # (no compiler of single ops to compare with: the block)
            cmd = [sys.executable, str(HERE / "openvino_block.py"), "--json", str(out)]
        else:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", backend, "--json",
                   str(out), "--torch-max", str(args.torch_max)]
            for o in args.only or ():
                cmd += ["--only", o]
            cmd += ["--quick"] if args.quick else []
            cmd += ["--no-time"] if args.no_time else []
            cmd += ["--side", str(args.side)]
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        print(f"  [{backend}: {time.perf_counter() - t0:.0f} s]", file=sys.stderr)
        if not out.exists():
            return {"error": f"child exited {proc.returncode}:\n{proc.stderr[-3000:]}"}
        res = json.loads(out.read_text())
        res["_run"] = {"at": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}",
                       "quick": bool(args.quick), "side": args.side}
        return res


def _op_rows(res):
    """(name, row) of each op of a backend's result (not the models, not the run's stamp)."""
    return [(n, r) for n, r in sorted(res.items()) if not n.startswith(("model:", "_"))]


def _size_cols(cell):
    s = cell.get("size")
    if not s:
        return "", ""
    keys = list(s["native"])
    return (" / ".join(str(s["polyops"][k]) for k in keys), " / ".join(str(s["native"][k]) for k in keys))


def _stats(rs):
    rs = sorted(rs)
    return {"n": len(rs), "median": statistics.median(rs), "p90": catalogue._pct(rs, 0.9), "worst": rs[-1]}


def report(all_res, args):
    lines = ["# Compiled cost (issue 21)", ""]
    lines.append(f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC with "
                 f"`python benchmarks/compiled.py{' --quick' if args.quick else ''}"
                 f"{' --no-time' if args.no_time else ''}` on a shared 2-core machine "
                 + ("(graph sizes only: timings were not taken, on a machine shared with other "
                    "jobs they are noise; graph sizes are exact). " if args.no_time else
                    "(timings are noisy; graph sizes are not). ")
                 + "Per op: the forward and the "
                 "gradient of the sum of its float outputs, `polyops.jit` of polyops code against the "
                 f"framework's compiler on its own function, float32, the largest input about "
                 f"{args.side}x{args.side}. "
                 "Graph size: jax `jaxpr equations / optimized-HLO entry ops` (kernels), tensorflow "
                 "`graph nodes that do work / all nodes` (traced under XLA, as both are compiled), "
                 "torch aten-graph calls (make_fx); polyops beside native; **bold**: polyops's "
                 "larger (jax: in kernels; tensorflow: in nodes that do work).")
    lines += ["", "| backend | kind | ops timed | median | 90th pct | worst (target ≤1.3x) | "
                  "ops with a larger graph than native |", "|---|---|---:|---:|---:|---|---|"]
    for backend, res in all_res.items():
        if "error" in res:
            lines.append(f"| {backend} | | | | | child failed | |")
            continue
        if not _op_rows(res):  # (openvino: the block only)
            continue
        for kind in ("forward", "grad"):
            rs = [(n, r[kind]["ratio"]) for n, r in _op_rows(res) if "ratio" in r.get(kind, {})]
            heavier = [n for n, r in _op_rows(res) if _heavier(r.get(kind, {}))]
            if rs:
                s = _stats([r for _, r in rs])
                worst = ", ".join(f"{n} {r:.2f}x" for n, r in sorted(rs, key=lambda t: -t[1])[:6])
                lines.append(f"| {backend} | {kind} | {s['n']} | {s['median']:.2f}x | {s['p90']:.2f}x | "
                             f"{worst} | {len(heavier)}: {', '.join(heavier[:12])} |")
            else:
                lines.append(f"| {backend} | {kind} | 0 | | | | {len(heavier)}: {', '.join(heavier[:12])} |")
    runs = [f"{b} {r['_run']['at']} UTC{' (--quick)' if r['_run']['quick'] else ''}"
            f"{'' if r['_run'].get('side', 256) == args.side else ' (side ' + str(r['_run'].get('side', 256)) + ')'}"
            for b, r in all_res.items() if "_run" in r]
    if runs:
        lines += ["", "Each backend as last run: " + "; ".join(runs) + "."]
    lines += ["", NOTES]
    lines += ["", f"Models (target ≤{MODEL_TARGET}x): transformer block (layer norm, "
                  f"{BLOCK['heads']}-head attention, GELU MLP; batch {BLOCK['batch']}, "
                  f"{BLOCK['tokens']} tokens, width {BLOCK['width']}) and the MLP of suite.py "
                  f"({suite.MLP_LAYERS} layers, batch {suite.MLP_BATCH}, width {suite.MLP_WIDTH}); "
                  "grad: with respect to the parameters. openvino: the block's forward as one "
                  "model recorded by `polyops.jit` against the same block built with openvino's "
                  "opset (`benchmarks/openvino_block.py`; target ≤1.1x), graph size in runtime "
                  "nodes.", "",
              "| backend | model | kind | native | polyops | ratio | graph polyops | graph native |",
              "|---|---|---|---:|---:|---:|---|---|"]
    for backend, res in all_res.items():
        for model in ("block", "mlp"):
            r = res.get("model:" + model) if "error" not in res else None
            if not r:
                continue
            for kind in ("forward", "grad"):
                if kind not in r and backend == "openvino":  # (the forward only)
                    continue
                c = r.get(kind, {})
                gp, gn = _size_cols(c)
                t = ([suite.fmt_t(c["t_native"]), suite.fmt_t(c["t_polyops"]), f"{c['ratio']:.2f}x"]
                     if "ratio" in c else ["", "", c.get("status", r.get("status", ""))])
                lines.append(f"| {backend} | {model} | {kind} | " + " | ".join(t) + f" | {gp} | {gn} |")
    for backend, res in all_res.items():
        if "error" in res:
            lines += ["", f"### {backend}", "", "```", res["error"][-1500:], "```"]
            continue
        if not _op_rows(res):
            continue
        lines += ["", f"<details><summary>{backend}: every op</summary>", "",
                  "| op | source | fwd ratio | fwd graph polyops | fwd graph native | grad ratio | "
                  "grad graph polyops | grad graph native | native |",
                  "|---|---|---:|---|---|---:|---|---|---|"]
        for name, r in _op_rows(res):
            if "forward" not in r:
                lines.append(f"| {name} | {r.get('source', '')} | {r.get('status', '')} | | | | | | "
                             f"{r.get('native', '')} |")
                continue
            cells = []
            for kind in ("forward", "grad"):
                c = r[kind]
                gp, gn = _size_cols(c)
                mark = "**" if _heavier(c) else ""
                cells += [f"{c['ratio']:.2f}x" if "ratio" in c else c.get("status", ""),
                          f"{mark}{gp}{mark}", gn]
            lines.append(f"| {name} | {r.get('source', '')} | " + " | ".join(cells) + f" | {r['native']} |")
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


NOTES = """Made lean so far (tests/test_compiled_graphs.py guards them): jax gelu, softmax,
log_softmax, logsumexp (the max shift behind stop_gradient), layer_normalization,
dot_product_attention; tensorflow softmax (no NaN guard in a graph XLA compiles: XLA's
softmax is NaN beside +inf itself; elsewhere the guard is `max - max` off the tape),
layer_normalization (tf.nn.moments + batch_normalization), rms_normalization (rsqrt),
dot_product_attention (batched matmuls, tf.nn.softmax); torch layer_normalization
(F.layer_norm) and dot_product_attention (F.scaled_dot_product_attention) where they
compute core's formula; core's attention reference (the max shift behind stop_gradient).
Natives for the fused ops without a function of that name are what a user of the
framework writes (`OVERRIDES`).  tensorflow's `polyops.grad` adds one Identity per
argument (a repeated argument gets its own gradient): no work, so not counted.
Third pass: jax rms_normalization (lax.rsqrt), slogdet (one LU with jax's custom JVP, for
every n: jnp's closed form for n <= 2 underflows); tensorflow top_k under XLA one TopK on normalised keys with a one-scatter gradient (forward 6 nodes
against 1: the NaN and -0 keys, one fused kernel).  Left heavier, each for an answer:
tensorflow inv and solve under XLA keep the reference's elimination (~250 nodes against 3:
XLA's QR-based inverse never raises and gives finite garbage for a singular matrix, where
the contract and every other backend give inf/NaN); a
gradient tf leaves None (floor, round, stop_gradient, zeros_like...) is a zero tensor in
`polyops.grad` (one Fill); tf floor_divide/hypot/heaviside/cbrt/log2/log10 patch NumPy's
special values or round in float64 (elementwise: fused by XLA); nextafter steps bits (DAZ);
torch sign (NaN), erfc (flush), i0/ldexp (float64).
Fourth pass: jax sparse_sigmoid and hard_sigmoid (max/min with a custom JVP that passes the
cotangent at NaN, as tensorflow and torch: hard_sigmoid's gradient one `or` over jax.nn's);
torch i0 (torch.i0 in float64), pinv (torch.linalg.pinv), quantile (rows kept as (M, k), the
interpolation branch chosen on the host when it is one), nanmean (masked_fill, sum, count),
norm (vector_norm), cholesky_inverse; tensorflow under XLA custom gradients for heaviside,
nextafter, floor_divide, hypot, cbrt, erfinv and det (eager paths unchanged).
Fifth pass: jax's split family one lax.split where the pieces tile the axis (gradient: one
concatenate, not a zero pad per piece); `polyops.jit` per call on jax 1.6 us over jax.jit
for one tensor in and out (was 2.9 us; 2.0 us for a list out, was 3.6 us): native tensors
go straight to one jax.jit (`Runtime.jit_retraces`).  Where the op itself takes under
~20 us (ops whose record cannot be scaled) that Python still shows in the ratio;
torch.compile compiles for seconds, so few torch ops are timed.
Sixth pass: openvino layer_normalization and dot_product_attention as the opset's MVN and
ScaledDotProductAttention nodes (eager and in the model `polyops.jit` records; the tests
guard the recorded nodes, with gelu's Gelu)."""


def _heavier(cell):
    """polyops's graph larger than native's (jax: in optimized-HLO kernels)."""
    s = cell.get("size")
    if not s:
        return False
    key = "hlo" if "hlo" in s["native"] else list(s["native"])[0]
    return s["polyops"][key] > s["native"][key]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", action="append", choices=BACKENDS)
    p.add_argument("--only", action="append")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-time", action="store_true", help="graph sizes only")
    p.add_argument("--torch-max", type=int, default=40)
    p.add_argument("--side", type=int, default=512,
                   help="inputs scaled to about SIDE x SIDE elements (default 512)")
    p.add_argument("--output", default=str(HERE / "COMPILED.md"))
    p.add_argument("--json", default=str(HERE / "compiled.json"))
    p.add_argument("--results", default=str(HERE / "RESULTS.md"),
                   help="the file whose compiled section gets the tables")
    p.add_argument("--child")
    args = p.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    global ELEMS
    ELEMS = catalogue.SIZES["compiled"] = args.side * args.side
    if args.child:
        from polyops._op import every_op

        OP_FAMILY.update((n, op.family) for n, op in every_op().items())
        try:
            res = job(args.child, cfg, set(args.only or ()), args.torch_max, not args.no_time)
        except Exception:  # noqa: BLE001
            res = {"error": traceback.format_exc()}
        Path(args.json).write_text(json.dumps(res))
        return 0
    old = json.loads(Path(args.json).read_text()) if Path(args.json).exists() else {}
    all_res = {b: old[b] for b in BACKENDS if b in old}  # backends not run now: kept
    for backend in args.backend or BACKENDS:
        all_res[backend] = spawn(backend, args)
    all_res = {b: all_res[b] for b in BACKENDS if b in all_res}
    text = report(all_res, args)
    if not args.only:
        Path(args.json).write_text(json.dumps(all_res, indent=1))
        Path(args.output).write_text(text)
        # RESULTS.md: the tables, the full lists stay in COMPILED.md
        summary = text.split("<details>")[0].replace("# Compiled cost", "## Compiled cost", 1)
        catalogue.write_section(
            Path(args.results), f"{BEGIN}\n\n{summary.rstrip()}\n\nEvery op's row: "
            f"[{Path(args.output).name}]({Path(args.output).name}).\n\n{END}", BEGIN, END)
    print(text if args.only else text.split("<details>")[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
