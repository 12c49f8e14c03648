"""TensorFlow kernels of ``polyops.ops.numpy.products``: tensor products, slogdet and
the windows (computed on the host by NumPy).
"""

from __future__ import annotations

import builtins

import numpy as np
import tensorflow as tf

from ..core import NP_DTYPES, TF_DTYPES
from ._common import _COMPLEX, _INT32, _host_view, _ints, _multiply
from .base import einsum

_LETTERS = "abcdefghijklmnopqrstuvwxy"  # einsum labels; "z" is kept for contractions


def outer(x1, x2):
    return _multiply(tf.reshape(x1, _ints((-1, 1))), tf.reshape(x2, _ints((1, -1))))


def kron(x1, x2):
    a, b = x1.shape.as_list(), x2.shape.as_list()
    nd = builtins.max(len(a), len(b))
    a, b = [1] * (nd - len(a)) + a, [1] * (nd - len(b)) + b
    p = _multiply(tf.reshape(x1, _ints([d for s in a for d in (s, 1)])),
                 tf.reshape(x2, _ints([d for s in b for d in (1, s)])))
    return tf.reshape(p, _ints([s * t for s, t in zip(a, b)]))


def inner(x1, x2):
    ra, rb = x1.shape.rank, x2.shape.rank
    if ra == 0 or rb == 0:
        return _multiply(x1, x2)
    la, lb = _LETTERS[: ra - 1], _LETTERS[ra - 1: ra + rb - 2]
    return einsum(f"{la}z,{lb}z->{la}{lb}", x1, x2)


def vdot(x1, x2):
    if x1.dtype in _COMPLEX:
        x1 = tf.math.conj(x1)
    return einsum("i,i->", tf.reshape(x1, _ints((-1,))), tf.reshape(x2, _ints((-1,))))


def tensordot(x1, x2, axes):
    a1, a2 = axes
    r1, r2 = x1.shape.rank, x2.shape.rank
    if not a1:  # no contraction: an outer product
        return _multiply(tf.reshape(x1, tf.concat([tf.shape(x1), tf.ones((r2,), _INT32)], 0)), x2)
    l1 = _LETTERS[:r1]
    l2 = list(_LETTERS[r1: r1 + r2])
    for i, j in zip(a1, a2):
        l2[j] = l1[i]
    out = "".join(c for i, c in enumerate(l1) if i not in a1)
    out += "".join(c for j, c in enumerate(l2) if j not in a2)
    return einsum(f"{l1},{''.join(l2)}->{out}", x1, x2)


def _last(x, axis):
    nd = x.shape.rank
    if axis == nd - 1:
        return x
    return tf.transpose(x, _ints([i for i in range(nd) if i != axis] + [axis]))


def cross(x1, x2, axisa, axisb, axisc, axis):
    # NumPy's formulas (tf.linalg.cross: 3-vectors of one shape on the last axis)
    a, b = _last(x1, axisa), _last(x2, axisb)
    sa, sb = a.shape.as_list(), b.shape.as_list()  # (TensorShape compares ~10x slower)
    n1, n2 = sa[-1], sb[-1]
    if n1 == 3 and n2 == 3 and sa == sb and None not in sa:
        out = tf.raw_ops.Cross(a=a, b=b)
    else:
        ac, bc = tf.unstack(a, axis=-1), tf.unstack(b, axis=-1)  # one op (x[..., i] is slow)
        z = tf.subtract(tf.multiply(ac[0], bc[1]), tf.multiply(ac[1], bc[0]))
        if axisc is None:
            return z
        if n1 == 3 and n2 == 3:
            x = tf.subtract(tf.multiply(ac[1], bc[2]), tf.multiply(ac[2], bc[1]))
            y = tf.subtract(tf.multiply(ac[2], bc[0]), tf.multiply(ac[0], bc[2]))
        elif n1 == 2:
            x, y = tf.multiply(ac[1], bc[2]), tf.negative(tf.multiply(ac[0], bc[2]))
        else:
            x, y = tf.negative(tf.multiply(ac[2], bc[1])), tf.multiply(ac[2], bc[0])
        shape = tf.shape(z)
        for c in (x, y):
            shape = tf.broadcast_dynamic_shape(shape, tf.shape(c))
        out = tf.stack([tf.broadcast_to(c, shape) for c in (x, y, z)], -1)
    nd = len(sa) if len(sa) >= len(sb) else len(sb)
    if axisc != nd - 1:
        out = tf.transpose(out, _ints(list(range(axisc)) + [nd - 1] + list(range(axisc, nd - 1))))
    return out


def slogdet(x):
    d = x.dtype
    sign, logdet = tf.linalg.slogdet(x)  # LU with partial pivoting, as LAPACK
    if d not in _COMPLEX:
        host = _host_view(sign)  # eagerly, only a zero sign needs the patch
        if host is None or not host.all():
            sign = tf.add(sign, tf.zeros((), sign.dtype))  # a singular matrix's sign is +0.0
    else:
        logdet = tf.math.real(logdet)  # (tf's log|det| of a complex matrix is complex)
    return sign, logdet


def _window(np_fn):
    def kernel(x, *args):
        from polyops import config

        dtype = config.floatx()
        return tf.constant(np_fn(x, *args).astype(NP_DTYPES[dtype]), TF_DTYPES[dtype])

    kernel.__name__ = kernel.__qualname__ = np_fn.__name__
    return kernel


# NumPy's own windows, computed on the host in float64 (x and beta are Python numbers)
bartlett = _window(np.bartlett)
blackman = _window(np.blackman)
hamming = _window(np.hamming)
hanning = _window(np.hanning)
kaiser = _window(np.kaiser)
