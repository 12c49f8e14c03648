"""Every op's docstring example runs, on the numpy backend, and prints what it shows.

The examples are doctests (``>>> expr`` then the repr NumPy prints).  Neither pytest's
nor inspect's doctest collection finds them: the public functions are generated, their
``__globals__`` are not their module's.  So this test walks the op table instead.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import polyops
from polyops._op import every_op

OPS = every_op()

pytestmark = [
    pytest.mark.skipif("numpy" not in polyops.available_backends(),
                       reason="the examples show the numpy backend's results"),
    pytest.mark.skipif(int(np.__version__.split(".")[0]) < 2,
                       reason="the examples show NumPy 2 reprs (np.float32(1.0))"),
]

_PARSER = doctest.DocTestParser()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", sorted(OPS))
def test_docstring_example_runs(name):
    fn = OPS[name].public
    test = _PARSER.get_doctest(fn.__doc__ or "", {"polyops": polyops, "np": np},
                               f"{fn.__module__}.{name}", fn.__code__.co_filename,
                               fn.__code__.co_firstlineno)
    assert test.examples, f"{name}: no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=_FLAGS, verbose=False)
    report: list[str] = []
    with polyops.use_backend("numpy"):  # restores the backend in effect afterwards
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
