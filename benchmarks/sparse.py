"""Sparse tensors (issue 19): polyops' sparse ops against the framework's own sparse call
and against the dense computation.

    python benchmarks/sparse.py [--backend tensorflow jax torch numpy] [--n 10000]
                                [--density 0.01] [--cols 64] [--rounds 7] [--calls 3]

Rows, per backend (tensorflow: ``tf.SparseTensor``; jax: ``BCOO``; torch: the sparse COO
layout, against torch's own functions; numpy: SciPy's ``coo_array``, against SciPy's):

- ``matmul``: sparse (n x n, ``density`` of it stored) @ dense (n x cols), eager:
  ``ops.matmul`` against ``tf.sparse.sparse_dense_matmul`` / ``bcoo @ dense``, and the
  dense ``ops.matmul`` of the densified matrix (the reason to use sparse).
- ``matmul, jit``: the same under ``polyops.jit`` against ``tf.function`` / ``jax.jit``
  (torch: ``polyops.jit`` runs a function of sparse tensors eagerly, numpy has no compiler).
- ``sin`` (a zero-preserving unary op: the values mapped, the indices kept): ``ops.sin``
  against ``tf.sparse.map_values(tf.sin, x)`` / a BCOO of ``jnp.sin(x.data)``.
- ``add`` (sparse + sparse of one pattern: a union): ``ops.add`` against ``tf.sparse.add``
  / ``bcoo_add`` of jax's sparsify.
- torch, ``sum, axis 0`` (a reduction that the rule makes dense): ``torch.sparse.sum``.

Per round, the contenders alternate, each timed over ``--calls`` calls (results blocked
on); the figure is the median over rounds.  Prints a markdown table: times in ms, polyops
over the framework's sparse call, and the dense computation over polyops' sparse one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import polyops  # noqa: E402
from polyops import ops  # noqa: E402


def _matrix(n, density, seed=0):
    """A random n x n float32 matrix with about ``density`` of it stored (COO parts)."""
    rng = np.random.default_rng(seed)
    nnz = int(n * n * density)
    flat = np.unique(rng.integers(0, n * n, size=nnz, dtype=np.int64))
    rows, cols = np.divmod(flat, n)
    return np.stack([rows, cols], 1), rng.standard_normal(flat.size).astype("float32")


def _time(fns, rounds, calls, block):
    """{name: median seconds per call} over ``rounds`` rounds of the alternating ``fns``."""
    for f in fns.values():  # warm up (traces, compiles)
        block(f())
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t = time.perf_counter()
            for _ in range(calls):
                out = f()
            block(out)
            times[k].append((time.perf_counter() - t) / calls)
    return {k: statistics.median(v) for k, v in times.items()}


def _tensorflow(indices, values, n, cols):
    import tensorflow as tf

    x = tf.sparse.reorder(tf.SparseTensor(indices, values, (n, n)))
    b = tf.constant(np.random.default_rng(1).standard_normal((n, cols)).astype("float32"))
    dense = tf.sparse.to_dense(x)
    tf_mm = tf.function(lambda a, w: tf.sparse.sparse_dense_matmul(a, w))
    po_mm = polyops.jit(lambda a, w: ops.matmul(a, w))
    rows = {
        "matmul": {"polyops": lambda: ops.matmul(x, b),
                   "framework": lambda: tf.sparse.sparse_dense_matmul(x, b),
                   "dense": lambda: ops.matmul(dense, b)},
        "matmul, jit": {"polyops": lambda: po_mm(x, b), "framework": lambda: tf_mm(x, b),
                        "dense": lambda: tf.matmul(dense, b)},
        "sin": {"polyops": lambda: ops.sin(x),
                "framework": lambda: tf.sparse.map_values(tf.sin, x),
                "dense": lambda: ops.sin(dense)},
        "add": {"polyops": lambda: ops.add(x, x), "framework": lambda: tf.sparse.add(x, x),
                "dense": lambda: ops.add(dense, dense)},
    }

    def block(out):
        (out.values if isinstance(out, tf.SparseTensor) else out).numpy()

    return rows, block


def _jax(indices, values, n, cols):
    import jax
    import jax.experimental.sparse as js
    import jax.numpy as jnp

    x = js.BCOO((jnp.asarray(values), jnp.asarray(indices, jnp.int32)), shape=(n, n),
                indices_sorted=True, unique_indices=True)
    b = jnp.asarray(np.random.default_rng(1).standard_normal((n, cols)).astype("float32"))
    dense = x.todense()
    jax_mm = jax.jit(lambda a, w: a @ w)
    po_mm = polyops.jit(lambda a, w: ops.matmul(a, w))
    dense_mm = jax.jit(jnp.matmul)
    add = js.sparsify(jnp.add)
    rows = {
        "matmul": {"polyops": lambda: ops.matmul(x, b), "framework": lambda: x @ b,
                   "dense": lambda: ops.matmul(dense, b)},
        "matmul, jit": {"polyops": lambda: po_mm(x, b), "framework": lambda: jax_mm(x, b),
                        "dense": lambda: dense_mm(dense, b)},
        "sin": {"polyops": lambda: ops.sin(x),
                "framework": lambda: js.BCOO((jnp.sin(x.data), x.indices), shape=x.shape),
                "dense": lambda: ops.sin(dense)},
        "add": {"polyops": lambda: ops.add(x, x), "framework": lambda: add(x, x),
                "dense": lambda: ops.add(dense, dense)},
    }

    def block(out):
        jax.block_until_ready(out.data if isinstance(out, js.BCOO) else out)

    return rows, block


def _torch(indices, values, n, cols):
    import torch

    x = torch.sparse_coo_tensor(torch.as_tensor(indices.T), torch.as_tensor(values), (n, n),
                                is_coalesced=True, check_invariants=True)
    b = torch.as_tensor(np.random.default_rng(1).standard_normal((n, cols)).astype("float32"))
    dense = x.to_dense()
    rows = {
        "matmul": {"polyops": lambda: ops.matmul(x, b),
                   "framework": lambda: torch.sparse.mm(x, b),
                   "dense": lambda: ops.matmul(dense, b)},
        "sin": {"polyops": lambda: ops.sin(x), "framework": lambda: torch.sin(x),
                "dense": lambda: ops.sin(dense)},
        "add": {"polyops": lambda: ops.add(x, x), "framework": lambda: torch.add(x, x),
                "dense": lambda: ops.add(dense, dense)},
        "sum, axis 0": {"polyops": lambda: ops.sum(x, axis=0),
                        "framework": lambda: torch.sparse.sum(x, dim=0).to_dense(),
                        "dense": lambda: ops.sum(dense, axis=0)},
    }
    return rows, lambda out: None  # (CPU torch returns finished tensors)


def _numpy(indices, values, n, cols):
    import scipy.sparse as sp

    x = sp.coo_array((values, (indices[:, 0], indices[:, 1])), shape=(n, n))
    x.has_canonical_format = True
    b = np.random.default_rng(1).standard_normal((n, cols)).astype("float32")
    dense = x.toarray()
    rows = {
        "matmul": {"polyops": lambda: ops.matmul(x, b), "framework": lambda: x @ b,
                   "dense": lambda: ops.matmul(dense, b)},
        "sin": {"polyops": lambda: ops.sin(x),
                "framework": lambda: sp.coo_array((np.sin(x.data), x.coords), shape=x.shape),
                "dense": lambda: ops.sin(dense)},
        "add": {"polyops": lambda: ops.add(x, x), "framework": lambda: x + x,
                "dense": lambda: ops.add(dense, dense)},
    }
    return rows, lambda out: None


_BACKENDS = {"tensorflow": _tensorflow, "jax": _jax, "torch": _torch, "numpy": _numpy}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", nargs="+", default=list(_BACKENDS), choices=list(_BACKENDS))
    p.add_argument("--n", type=int, default=10_000)
    p.add_argument("--density", type=float, default=0.01)
    p.add_argument("--cols", type=int, default=64)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=3)
    a = p.parse_args(argv)
    indices, values = _matrix(a.n, a.density)
    print(f"sparse {a.n}x{a.n}, {values.size} stored ({values.size / a.n ** 2:.2%}), "
          f"dense operand {a.n}x{a.cols}; median of {a.rounds} rounds of {a.calls} calls\n")
    print("| backend | op | polyops ms | framework sparse ms | dense ms | polyops / framework "
          "| dense / polyops |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in a.backend:
        with polyops.use_backend(name):
            rows, block = _BACKENDS[name](indices, values, a.n, a.cols)
            for op, fns in rows.items():
                t = _time(fns, a.rounds, a.calls, block)
                print(f"| {name} | {op} | {t['polyops'] * 1e3:.2f} | {t['framework'] * 1e3:.2f} "
                      f"| {t['dense'] * 1e3:.2f} | {t['polyops'] / t['framework']:.2f}x "
                      f"| {t['dense'] / t['polyops']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
