"""`Function`: run a graph recorded on SymbolicTensors with concrete inputs."""

from __future__ import annotations

from . import _tree
from ._symbolic import SymbolicTensor


class Function:
    """A graph from ``inputs`` to ``outputs`` (SymbolicTensors), callable on concrete values.

    Each call runs the recorded ops, in order, through the current backend.

    Args:
        inputs: a SymbolicTensor or a list/tuple of them.
        outputs: a SymbolicTensor or a (nested) list/tuple of them.

    Example:
        >>> x = polyops.SymbolicTensor((None, 3))
        >>> f = polyops.Function(x, polyops.ops.sum(x * 2.0, axis=1))
        >>> f(np.ones((2, 3), "float32"))   # [6., 6.]
    """

    def __init__(self, inputs, outputs, name=None):
        self.single_input = isinstance(inputs, SymbolicTensor)
        self.inputs = [inputs] if self.single_input else list(inputs)
        for t in self.inputs:
            if not isinstance(t, SymbolicTensor):
                raise TypeError(f"Function: expected SymbolicTensor inputs, got {type(t).__name__}")
        self.outputs = outputs
        self.name = name
        self._order = self._toposort()

    def _toposort(self):
        inputs = {id(t) for t in self.inputs}
        order, seen = [], set()

        def visit(t):
            if not isinstance(t, SymbolicTensor) or id(t) in inputs or t._const is not None:
                return
            node = t._node
            if node is None:
                raise ValueError(f"Function: output depends on {t!r}, which is not an input")
            if id(node) in seen:
                return
            seen.add(id(node))
            for b in _tree.leaves(node.args):
                visit(b)
            order.append(node)

        for out in _tree.leaves(self.outputs):
            visit(out)
        return order

    def __call__(self, *args):
        if len(args) != len(self.inputs):
            raise TypeError(f"Function: expected {len(self.inputs)} inputs, got {len(args)}")
        values = {id(t): v for t, v in zip(self.inputs, args)}

        def leaf(a):
            if isinstance(a, SymbolicTensor):
                return a._const if a._const is not None else values[id(a)]
            return a

        def value(a):
            return _tree.map_structure(leaf, a)

        for node in self._order:
            result = node.op.public(*[value(a) for a in node.args])
            outs = node.outputs
            if isinstance(outs, SymbolicTensor):
                values[id(outs)] = result
            else:
                for t, r in zip(_tree.leaves(outs), _tree.leaves(result)):
                    if isinstance(t, SymbolicTensor):
                        values[id(t)] = r
        return value(self.outputs)

