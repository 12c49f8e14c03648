"""OpenVINO kernels of ``polyops.ops.numpy.products``: inner, vdot, tensordot and kron as one
model each (the einsum or multiply model core's references end in, without their host
reshapes and second dispatch; dot is in ``base``, beside einsum); core's references compose
the others (outer, correlate, windows...)."""

from __future__ import annotations

from .base import einsum as _einsum
from .base import multiply as _multiply

_LETTERS = "abcdefghijklmnopqrstuvwxy"  # as core's references: "z" for the contraction
_EQUATIONS: dict = {}  # (op, static plan) -> einsum subscripts (a few per rank pair)


def _equation(k, make):
    """The subscripts of plan ``k``, made once."""
    eq = _EQUATIONS.get(k)
    if eq is None:
        eq = _EQUATIONS[k] = make()
    return eq


def _inner_eq(na, nb):
    la, lb = _LETTERS[: na - 1], _LETTERS[na - 1: na + nb - 2]
    return f"{la}z,{lb}z->{la}{lb}"


def inner(x1, x2):
    na, nb = x1.ndim, x2.ndim
    if not na or not nb:
        return _multiply(x1, x2)
    return _einsum(_equation(("inner", na, nb), lambda: _inner_eq(na, nb)), x1, x2)


def vdot(x1, x2):
    # (no complex dtypes on OpenVINO: nothing to conjugate)
    return _einsum("i,i->", x1.reshape(-1), x2.reshape(-1))


def _tensordot_eq(n1, n2, a1, a2):
    l1 = _LETTERS[:n1]
    l2 = list(_LETTERS[n1: n1 + n2])
    for i, j in zip(a1, a2):
        l2[j] = l1[i]
    out = "".join(c for i, c in enumerate(l1) if i not in a1)
    out += "".join(c for j, c in enumerate(l2) if j not in a2)
    return f"{l1},{''.join(l2)}->{out}"


def tensordot(x1, x2, axes):
    a1, a2 = axes
    n1, n2 = x1.ndim, x2.ndim
    if not a1:  # no contraction: an outer product
        return _multiply(x1.reshape(x1.shape + (1,) * n2), x2)
    eq = _equation(("tensordot", n1, n2, a1, a2), lambda: _tensordot_eq(n1, n2, a1, a2))
    return _einsum(eq, x1, x2)


def kron(x1, x2):
    s1, s2 = tuple(x1.shape), tuple(x2.shape)
    nd = max(len(s1), len(s2))
    a = (1,) * (nd - len(s1)) + s1
    b = (1,) * (nd - len(s2)) + s2
    r = _multiply(x1.reshape(tuple(d for p in a for d in (p, 1))),
                  x2.reshape(tuple(d for q in b for d in (1, q))))
    return r.reshape(tuple(p * q for p, q in zip(a, b)))
