"""Structural properties the design relies on: thin eager path, framework-free core, same plugin files."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import polyops
from polyops import ops
from polyops._operation import Operation

from conftest import BACKENDS

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {"jax", "jaxlib", "tensorflow", "torch", "openvino", "keras"}


def test_eager_path_creates_no_operation_and_imports_nothing(backend, monkeypatch):
    created = []
    monkeypatch.setattr(Operation, "__init__", lambda self, *a, **k: created.append(self))
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        b = ops.convert_to_tensor(np.ones((3,), "float32"))
        calls = [lambda: ops.add(a, b), lambda: ops.add(a, 2.0), lambda: ops.sum(a, axis=1),
                 lambda: ops.matmul(a, ops.transpose(a)), lambda: ops.softmax(a), lambda: ops.flip(a, 0)]
        for call in calls:  # warm: first calls may load kernels or compile
            call()
        before = set(sys.modules)
        for call in calls:
            call()
        assert set(sys.modules) == before
    assert created == []


def _python_frames(call):
    """The names of the Python functions entered while ``call()`` runs (C calls excluded)."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names[1:]  # the lambda itself


def test_fast_path_is_one_python_frame():
    """Native tensors that already have the result dtype go from the public function
    straight to a C kernel: numpy's ufuncs are called with no entry frame between."""
    with polyops.use_backend("numpy"):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        # (reciprocal, fmax, trunc: kernels with a float16 branch, whose fast variant is
        # the ufunc itself: `SplitKernel`)
        for call, frames in ((lambda: ops.add(a, a), ["add"]), (lambda: ops.exp(a), ["exp"]),
                             (lambda: ops.multiply(a, a), ["multiply"]),
                             (lambda: ops.reciprocal(a), ["reciprocal"]),
                             (lambda: ops.fmax(a, a), ["fmax"]), (lambda: ops.trunc(a), ["trunc"])):
            call()  # the first call builds the op's entry (registry: lazily)
            assert _python_frames(call) == frames


# one call per fast-path family of `polyops._op.fast_kind` (besides unary/binary above)
_FAMILIES = {
    "single": lambda a, i: ops.flip(a, 0),
    "pair": lambda a, i: ops.matmul(a, ops.transpose(a)),
    "pair of two dtypes": lambda a, i: ops.take(a, i, axis=0),
    "triple": lambda a, i: ops.where(i, a, a),
    "seq": lambda a, i: ops.concatenate([a, a], axis=1),
    "create": lambda a, i: ops.zeros((2, 3)),
}


@pytest.mark.parametrize("family", sorted(_FAMILIES))
def test_every_fast_path_family_skips_the_entry(family, backend):
    """Each fast-path family goes from the public function to its prepare hook and kernel:
    no entry frame, no promotion, no conversion.  (On tensorflow, whose dtype read is a
    code, and openvino, whose kernels take no empty operand, the op's entry has the same
    fast path one frame down: no general entry either.)"""
    general = {"general", "_slot_values", "promote", "result_type_of_keys", "convert_to_tensor",
               "first_call"}
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        i = ops.convert_to_tensor(np.array([0, 2], "int32"))
        if family == "triple":  # where's condition
            i = ops.convert_to_tensor(np.ones((4, 3), "bool"))
        call = _FAMILIES[family]
        call(a, i)
        entered = _python_frames(lambda: call(a, i))
        assert not general & set(entered), entered
        if backend == "numpy":  # the inline path: no entry function at all
            assert not {"single", "pair", "triple", "seq", "create"} & set(entered), entered
        if family == "create":  # no operand: no sparse-operand guard either (torch)
            assert "guarded" not in entered, entered


@pytest.mark.parametrize("name", ["numpy", "jax", "torch"])
def test_logical_ops_of_float_tensors_skip_the_cast(name):
    """Kernels marked `polyops.plugin.any_dtype` (NumPy's, jax's and torch's logical ops,
    NumPy's and jax's where read any dtype as truth values) take float tensors on the fast
    path: no cast to bool first (one framework call fewer), the same answer."""
    if name not in BACKENDS:
        pytest.skip(f"{name} not installed")
    general = {"general", "_slot_values", "promote", "result_type_of_keys", "convert_to_tensor"}
    with polyops.use_backend(name):
        a = ops.convert_to_tensor(np.array([[0.0, 1.5], [np.nan, -2.0]], "float32"))
        for fn in (ops.logical_and, ops.logical_or, ops.logical_xor):
            v = np.asarray(ops.convert_to_numpy(a))
            want = getattr(np, fn.__name__)(v, v)
            np.testing.assert_array_equal(ops.convert_to_numpy(fn(a, a)), want)
            assert not general & set(_python_frames(lambda: fn(a, a)))
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.logical_not(a)),
                                      [[True, False], [False, False]])
        assert not general & set(_python_frames(lambda: ops.logical_not(a)))
        if name != "torch":  # (torch.where takes bool conditions only: the entry casts)
            b = ops.multiply(a, 2.0)
            np.testing.assert_array_equal(ops.convert_to_numpy(ops.where(a, a, b)),
                                          [[0.0, 1.5], [np.nan, -2.0]])
            assert not general & set(_python_frames(lambda: ops.where(a, a, b)))


def test_all_and_any_of_every_dtype_are_bool(backend):
    """all/any read every dtype as truth values (NaN true) and answer bool on every
    backend, whatever dtype the framework's own function returns (torch.all of uint8 is
    uint8), on the fast path (a native tensor) and the general one (a list)."""
    data = np.array([[0, 1, 2], [3, 0, 4]])
    with polyops.use_backend(backend):
        for dtype in _ALL_DTYPES:
            if dtype.startswith("complex") and backend == "openvino":
                continue
            values = data.astype("float32").copy()
            if dtype.startswith(("float", "bfloat", "complex")):
                values[0, 2] = np.nan
            x = ops.cast(ops.convert_to_tensor(values), dtype)
            for fn, np_fn in ((ops.all, np.all), (ops.any, np.any)):
                for axis in (None, 0, 1, ()):
                    got = fn(x, axis=axis)
                    want = values != 0 if axis == () else np_fn(values != 0, axis=axis)
                    assert ops.dtype(got) == "bool", (fn.__name__, dtype, axis)
                    np.testing.assert_array_equal(ops.convert_to_numpy(got), want,
                                                  err_msg=f"{fn.__name__} {dtype} {axis}")


_ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def test_fast_path_skips_promotion(backend):
    """Same-dtype native tensors, and a tensor with a Python scalar, never reach the
    general entry (promotion, conversion) on any backend."""
    general = {"general", "_slot_values", "promote", "result_type_of_keys"}
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.ones((4, 3), "float32"))
        calls = [lambda: ops.add(a, a), lambda: ops.add(a, 2.0), lambda: ops.add(3, a),
                 lambda: ops.exp(a), lambda: ops.sum(a, axis=1), lambda: ops.softmax(a)]
        for call in calls:
            call()
            entered = _python_frames(call)
            assert not general & set(entered), entered


@pytest.mark.filterwarnings("ignore:polyops 64-bit mode on openvino:UserWarning")
def test_x64_mode_has_fast_paths_of_its_own(backend):
    """In 64-bit mode, 64-bit tensors take the fast paths too (the backend's tables of
    that mode), and leaving the mode restores the default tables: float64 demotes again."""
    general = {"general", "_slot_values", "promote", "result_type_of_keys"}
    with polyops.use_backend(backend), polyops.config.x64_scope():
        a = ops.convert_to_tensor(np.ones((4, 3)), "float64")
        calls = [lambda: ops.add(a, a), lambda: ops.add(a, 2.0), lambda: ops.exp(a),
                 lambda: ops.sum(a, axis=1), lambda: ops.matmul(a, ops.transpose(a))]
        for call in calls:
            assert ops.dtype(call()) == "float64"
            entered = _python_frames(call)
            assert not general & set(entered), entered
    with polyops.use_backend(backend):
        assert ops.dtype(ops.exp(np.ones(2))) == "float32"


def test_core_imports_no_framework():
    for path in (ROOT / "core" / "src" / "polyops").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FRAMEWORKS, f"{path}: imports {name}"


PLUGINS = sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "src").is_dir())
CORE_OPS = ROOT / "core" / "src" / "polyops" / "ops"


def _public_files(pkg: Path) -> list[str]:
    """A plugin package's public source files, relative (``numpy/base.py``...): private
    modules (``_compat.py``, ``_graph.py``) may differ between plugins."""
    return sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*.py")
                  if not any(part.startswith("_") and part != "__init__.py"
                             for part in p.relative_to(pkg).parts)
                  and "build" not in p.parts)


def test_every_plugin_has_the_same_files():
    """Each plugin has one module per op family, and the numpy family is a package with
    core's submodules (``numpy/base.py``, ``numpy/elementwise.py``...)."""
    numpy_parts = sorted(f"numpy/{p.name}" for p in (CORE_OPS / "numpy").glob("*.py")
                         if not p.name.startswith("_") or p.name == "__init__.py")
    expected = sorted(["__init__.py", "core.py", "image.py", "linalg.py", "math.py", "nn.py",
                       *numpy_parts])
    files = {name: _public_files(ROOT / "plugins" / name / "src" / f"polyops_{name}")
             for name in PLUGINS}
    assert files == {name: expected for name in files}


def test_kernels_live_in_the_submodule_of_their_op():
    """A plugin's numpy kernel sits in the submodule named after the core submodule that
    declares its op: ``flip`` (``polyops.ops.numpy.base``) in ``polyops_<name>/numpy/base.py``."""
    import importlib
    import pkgutil

    from polyops._op import every_op

    ops_ = every_op()
    misplaced = []
    for name in PLUGINS:
        package = importlib.import_module(f"polyops_{name}.numpy")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for attr, value in vars(module).items():
                op = ops_.get(attr)
                if op is None or op.family != "numpy" or not callable(value):
                    continue
                home = op.public.__module__.rsplit(".", 1)[-1]
                defined = getattr(value, "__module__", None) or module.__name__
                if home != info.name and defined == module.__name__:
                    misplaced.append(f"{module.__name__}.{attr} (op in numpy.{home})")
    assert misplaced == []


def _sources():
    for root in (ROOT / "core" / "src", *(ROOT / "plugins" / p / "src" for p in PLUGINS)):
        yield from (p for p in root.rglob("*.py") if "build" not in p.parts)


def test_no_source_file_over_1000_lines():
    long = {str(p.relative_to(ROOT)): n for p in _sources()
            if (n := len(p.read_text().splitlines())) > 1000}
    assert long == {}


# A private framework API: an underscore member of a framework module or tensor class, or
# one of tensorflow's internal packages.
_PRIVATE = re.compile(
    r"\b(?:jax|jaxlib|torch|tf|tensorflow|ov|openvino)(?:\.[A-Za-z0-9]\w*)*\._(?!_)\w+"
    r"|tensorflow\.python|_pyopenvino|_datatype_enum|\bjax\._src")


def test_private_framework_apis_only_in_compat():
    """Plugins read private framework APIs in their ``_compat.py`` only, through
    `polyops.plugin.private`, which falls back when one is missing (tests/test_compat.py)."""
    found = []
    for name in PLUGINS:
        pkg = ROOT / "plugins" / name / "src" / f"polyops_{name}"
        for path in pkg.rglob("*.py"):
            if path.name == "_compat.py" or "build" in path.parts:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if _PRIVATE.search(code):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_every_op_opens_at_its_source():
    """The public function of every op names the submodule that declares it, and its code
    points at that file (tracebacks, ``inspect.getsource`` and editors open the rule)."""
    import importlib
    import inspect

    from polyops._op import every_op

    wrong, module_lines = [], {}
    for name, op in every_op().items():
        fn = op.public
        module = importlib.import_module(fn.__module__)
        if (getattr(module, name, None) is not fn or name not in module.__all__
                or inspect.getsourcefile(fn) != module.__file__
                or op.operation.__module__ != fn.__module__):
            wrong.append(f"{name}: {fn.__module__} {inspect.getsourcefile(fn)}")
            continue
        # the code's first line: the rule's decorator or def, or ``name = factory(...)``
        # (Python 3.11's inspect.getsource walks back from a plain statement to a def)
        lines = module_lines.setdefault(module.__file__, Path(module.__file__).read_text()
                                        .splitlines())
        first = fn.__code__.co_firstlineno - 1
        head = lines[first]
        block = "\n".join(lines[first:first + 8])
        if not (head.startswith(f"{name} =") or (head.startswith(("@", "def "))
                                                  and f"def {name}(" in block)):
            wrong.append(f"{name}: line {first + 1} is {head[:60]!r}")
    assert wrong == []


def test_op_modules_have_static_all():
    """Each op module lists its public names literally (``__all__ = [...]``), so editors and
    type checkers see them; the list is exactly what the module defines."""
    from polyops._op import every_op

    every_op()
    problems = []
    for path in sorted(CORE_OPS.rglob("*.py")):
        if path.name.startswith("_") and path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        assigns = [n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                   and any(getattr(t, "id", None) == "__all__"
                           for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if path.name == "__init__.py":
            continue  # packages take theirs from the index (polyops.ops._lazy)
        if len(assigns) != 1 or not isinstance(assigns[0].value, ast.List):
            problems.append(f"{path.relative_to(ROOT)}: no literal __all__")
            continue
        rel = path.relative_to(CORE_OPS.parents[1]).with_suffix("")
        module = sys.modules[".".join(rel.parts)]
        listed = set(ast.literal_eval(assigns[0].value))
        defined = {n for n, v in vars(module).items() if not n.startswith("_") and callable(v)
                   and getattr(v, "__module__", None) == module.__name__}
        if listed != defined:
            problems.append(f"{rel}: listed-only {sorted(listed - defined)[:5]} "
                            f"defined-only {sorted(defined - listed)[:5]}")
    assert problems == []


def test_op_index_matches_the_op_modules():
    """`polyops.ops` loads an op module on first use of one of its names, from a static
    index of each module's public names (polyops/ops/_index.py); it must be up to date."""
    from polyops._op import OPS, every_op
    from polyops.ops import _index, _lazy

    every_op()
    assert _lazy.build() == _index.MODULES, "run: python -m polyops.ops._lazy"
    assert sorted(_lazy._ops()) == sorted(OPS)
    import polyops.ops as flat

    for name in flat.__all__:  # every flat name is its family's, once
        module = _lazy._owners(_lazy.ROOT)[name]
        assert getattr(flat, name) is getattr(sys.modules[f"{_lazy.ROOT}.{module}"], name)


def test_plugin_modules_are_import_light():
    """Importing a plugin's entry-point module imports no framework."""
    import subprocess

    code = ("import sys, importlib.metadata as m\n"
            "[ep.load() for ep in m.entry_points(group='polyops.backends')]\n"
            f"print(sorted(x for x in sys.modules if x.split('.')[0] in {sorted(FRAMEWORKS)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_op_has_a_docstring_with_an_example():
    from polyops._op import OPS

    missing = [n for n, op in OPS.items() if "Example" not in (op.public.__doc__ or "")]
    assert missing == [], f"ops without a docstring example: {missing}"


# -- declared once (issue 16): compute dtypes and empty operands ------------------------

_HALF_NAMES = ({"float16", "bfloat16"}, {"f16", "bf16"})
_WIDEN_HELPERS = {"_LOW", "_act", "_up", "_down", "_to32", "widened", "narrowed"}


def _half_pair(node) -> bool:
    """A tuple/list/set literal of exactly the two 16-bit float dtypes (strings, or a
    framework's dtype attributes such as ``jnp.float16, jnp.bfloat16``)."""
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or len(node.elts) != 2:
        return False
    names = {e.value if isinstance(e, ast.Constant) else getattr(e, "attr", None)
             for e in node.elts}
    return names in _HALF_NAMES


def test_compute_dtype_is_declared_not_repeated():
    """16-bit floats compute in float32 because an op declares ``compute="float32"``; no
    module keeps its own copy of the 16-bit dtypes or a widen/narrow helper pair
    (`polyops._dtypes.HALF_FLOATS` is the one definition)."""
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "_dtypes.py" or "/polyops/testing/" in rel:  # (tests' tolerances)
            continue
        tree = ast.parse(path.read_text())
        # a plugin's one set of its framework's 16-bit dtype objects, built from HALF_FLOATS
        # or named there once: plugins/<name>/.../core.py or numpy/_common.py
        once = {id(x) for n in tree.body if isinstance(n, ast.Assign)
                and rel.startswith("plugins/") and path.name in ("core.py", "_common.py")
                for x in ast.walk(n.value)}
        for node in ast.walk(tree):
            named = (node.name if isinstance(node, ast.FunctionDef) else
                     node.targets[0].id if isinstance(node, ast.Assign)
                     and isinstance(node.targets[0], ast.Name) else None)
            if (_half_pair(node) and id(node) not in once) or named in _WIDEN_HELPERS:
                found.append(f"{rel}:{node.lineno}: {named or ast.unparse(node)}")
    assert found == []
    from polyops._op import every_op

    declared = sorted(n for n, op in every_op().items() if op.compute)
    assert "softmax" in declared and "expm1" in declared and "relu6" not in declared


def _size_test(node) -> bool:
    """``x.size``, ``x.numel()``, ``np.size(x)``, ``math.prod(x.shape)``, ``x.shape[i]``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "size"
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        return name in ("numel", "size", "_num_elements") or (
            name == "prod" and bool(node.args) and "shape" in ast.unparse(node.args[0]))
    return False


def _empty_guards(tree):
    """Comparisons that ask whether a tensor has zero size."""
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and _size_test(node.operand):
            yield node
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left, op, right = node.left, node.ops[0], node.comparators[0]
        zero = (lambda n: isinstance(n, ast.Constant) and n.value == 0 and n.value is not False)
        if isinstance(op, (ast.Eq, ast.NotEq)) and zero(right) and _size_test(left):
            yield node
        if isinstance(op, (ast.In, ast.NotIn)) and zero(left) and "shape" in ast.unparse(right):
            yield node


# Guards that stay, each with its reason: answers no rule spec or fill can give.
_SIGNS = ("svd/eigh sign-fixing helper: a (0, n) matrix still has an identity vh, which is "
          "neither zero-size nor a constant fill")
EMPTY_GUARDS_ALLOWED = {
    "polyops_jax/linalg.py:v.shape[-2] == 0": _SIGNS,
    "polyops_tensorflow/linalg.py:v.shape[-2] == 0": _SIGNS,
    "polyops_torch/linalg.py:v.shape[-2] == 0": _SIGNS,
    "polyops_jax/numpy/sorting.py:flat.shape[0] == 0":
        "unique: the result's length depends on the values, so core has no spec to build",
    "polyops_torch/numpy/sorting.py:flat.numel() == 0":
        "histogram: NumPy's range for an empty input is (0, 1), the edges are not a fill",
}


def test_kernels_have_no_empty_guards():
    """Kernel bodies are the math only: a kernel that cannot take a zero-size operand is
    marked `polyops.plugin.nonempty` (or its runtime sets ``empty_tensors=False``) and core
    answers from the op's rule and declared ``empty`` fill (tests/test_empty.py)."""
    found = []
    for name in PLUGINS:
        pkg = ROOT / "plugins" / name / "src" / f"polyops_{name}"
        for path in pkg.rglob("*.py"):
            if "build" in path.parts:
                continue
            rel = str(path.relative_to(pkg.parent))
            for node in _empty_guards(ast.parse(path.read_text())):
                where = f"{rel}:{ast.unparse(node)}"
                if where not in EMPTY_GUARDS_ALLOWED:
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
