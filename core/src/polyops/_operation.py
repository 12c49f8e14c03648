"""`Operation`: an op as a Keras-style object, ``Add()(x1, x2)``, ``Sum(axis=1)(x)``;
`defop` makes one subclass per op."""

from __future__ import annotations

from ._op import Op, _map_tensors, spec_of


class Operation:
    """An op as an object, as in Keras: ``Add()(x1, x2)``, ``Sum(axis=1)(x)``.

    The constructor takes the op's non-tensor arguments, the call takes its
    tensor arguments; calls work on concrete and on symbolic inputs.
    """

    op: Op

    def __init__(self, *args, **kwargs):
        static = [p for p in self.op.params if p not in self._tensor_names()]
        bound = dict(zip(static, args))
        if len(args) > len(static):
            raise TypeError(f"{type(self).__name__}: expected at most {len(static)} arguments")
        for k, v in kwargs.items():
            if k not in static or k in bound:
                raise TypeError(f"{type(self).__name__}: unexpected argument {k!r}")
            bound[k] = v
        self.attrs = bound

    @classmethod
    def _tensor_names(cls):
        return {t.rstrip("[]") for t in cls.op.tensors}

    def _args(self, tensors):
        sig = self.op.signature
        tensor_names = self._tensor_names()
        args = []
        it = iter(tensors)
        for p in sig.parameters.values():
            if p.kind is p.VAR_POSITIONAL:
                args.extend(it)
            elif p.name in tensor_names:
                args.append(next(it, p.default if p.default is not p.empty else None))
            elif p.name in self.attrs:
                args.append(self.attrs[p.name])
            elif p.default is not p.empty:
                args.append(p.default)
            else:
                raise TypeError(f"{type(self).__name__}: missing argument {p.name!r}")
        return args

    def _run(self, tensors):
        args = self._args(tensors)
        n = len(self.op.kwonly)
        if n:  # keyword-only parameters (meshgrid's indexing) go by keyword
            return self.op.public(*args[:-n], **dict(zip(self.op.kwonly, args[-n:])))
        return self.op.public(*args)

    def __call__(self, *tensors):
        return self._run(tensors)

    def call(self, *tensors):
        """Run on concrete inputs with the current backend."""
        return self._run(tensors)

    def compute_output_spec(self, *tensors):
        """The output spec(s) for input specs (SymbolicTensors), without recording."""
        args = _map_tensors(self.op, tuple(self._args(tensors)), spec_of)
        return self.op.rule(*args)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.attrs.items())})"


def make_class(op: Op) -> type:
    """The `Operation` subclass of ``op`` (``Add``, ``Matmul``...)."""
    cls = type(_camel(op.name), (Operation,), {"op": op, "__doc__": op.rule.__doc__})
    cls.__module__ = op.public.__module__
    return cls


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
