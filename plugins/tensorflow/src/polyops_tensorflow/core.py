"""TensorFlow runtime (tensor types, dtypes, conversion) and core-family kernels."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ._quiet import tf  # first: tensorflow without its import-time log lines (see there)

from polyops import EagerOnlyError  # noqa: E402
from polyops.plugin import Runtime, error_chain, static_starts  # noqa: E402

from ._compat import dtype_code as _dtype_code  # noqa: E402
from ._compat import dtype_codes as _dtype_codes  # noqa: E402
from ._compat import flat_call as _flat_call  # noqa: E402
from ._compat import on_tape as _on_tape  # noqa: E402
from ._compat import quiet_retracing as _quiet_retracing  # noqa: E402
from ._compat import skip_autograph as _skip_autograph  # noqa: E402

_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
)
TF_DTYPES = {name: tf.as_dtype(name) for name in _NAMES}
NP_DTYPES = {name: np.dtype(name) for name in _NAMES if name != "bfloat16"}
NP_DTYPES["bfloat16"] = np.dtype(ml_dtypes.bfloat16)

_INT_BOUNDS = {td: (td.min, td.max) for td in TF_DTYPES.values() if td.is_integer}
EagerTensor = type(tf.constant(1.0))
_TF_TYPES = (tf.Tensor, tf.Variable)
_PY_SCALARS = frozenset({bool, int, float, complex})
_BF16 = tf.bfloat16


def _cast(x, td):
    if x.dtype is _BF16 and td.is_integer:
        # tf's bfloat16 -> int kernels saturate (and differ from tf's own float32 ->
        # int cast); every bfloat16 is exact in float32, which casts as NumPy does
        x = tf.cast(x, tf.float32)
    return tf.cast(x, td)


def convert_to_tensor(x, dtype):
    td = TF_DTYPES[dtype]
    if isinstance(x, _TF_TYPES):
        if x.dtype == td:
            return tf.convert_to_tensor(x) if isinstance(x, tf.Variable) else x
        return _cast(x, td)
    if type(x) in _PY_SCALARS:
        bounds = _INT_BOUNDS.get(td)
        # the fast way, unless tf would wrap an out-of-range int (NumPy raises), or x
        # is a float zero: tf's eager scalar cache keys 0.0 and -0.0 alike, so after
        # tf.constant(0.0) a tf.constant(-0.0) is +0.0 (and 1 / -0.0 gives +inf)
        if (bounds is None or type(x) is not int or bounds[0] <= x <= bounds[1]) and (
            x != 0 or type(x) is not float
        ):
            try:
                return tf.constant(x, td)
            except (TypeError, ValueError):  # NumPy's rules decide (2.5 -> int32...)
                pass
    if isinstance(x, tf.IndexedSlices):  # (gradients of gathers): densified on entry
        return convert_to_tensor(tf.convert_to_tensor(x), dtype)
    if not isinstance(x, np.ndarray):
        try:
            # NumPy's own conversion rules, as in the numpy backend.
            x = np.asarray(x, dtype=NP_DTYPES[dtype])
        except (TypeError, ValueError):
            if not hasattr(x, "numpy"):
                raise
            x = np.asarray(x.numpy())  # another framework's tensor
    if x.dtype != NP_DTYPES[dtype]:
        x = x.astype(NP_DTYPES[dtype])
    return tf.constant(x, dtype=td)


def convert_to_numpy(x):
    try:
        return np.asarray(x.numpy())
    except tf.errors.UnimplementedError:  # a sharded DTensor (polyops.distribution): gathered
        from ._distribution import gather

        return np.asarray(gather(x).numpy())


def _jvp(fun, primals, tangents, has_aux):
    """Forward-mode JVP (`polyops.ops.jvp`) through ``tf.autodiff.ForwardAccumulator``."""
    primals, tangents = tuple(primals), tuple(tangents)
    with tf.autodiff.ForwardAccumulator(primals=primals, tangents=tangents) as acc:
        out = fun(*primals)
        aux = None
        if has_aux:
            out, aux = out
        tout = tf.nest.map_structure(
            lambda o: acc.jvp(o, unconnected_gradients=tf.UnconnectedGradients.ZERO), out)
    return (out, tout, aux) if has_aux else (out, tout)


def _value_and_grad(fun, primals):
    """Reverse-mode autodiff (`polyops.value_and_grad`) through ``tf.GradientTape``."""
    # tf.identity: the same tensor passed as two primals must get two gradients (the
    # tape would key both on one tensor and give each the sum)
    primals = tuple(tf.identity(p) for p in primals)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(primals)
        loss, aux = fun(*primals)
    grads = tape.gradient(loss, primals, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    # a gather's gradient comes as IndexedSlices: make it a dense tensor
    return (loss, aux), tuple(tf.convert_to_tensor(g) for g in grads)


def _custom_gradient(f):
    """`polyops.ops.custom_gradient` through ``tf.custom_gradient``: the grad function gets
    the output's cotangent (the output's structure) and returns one gradient per argument."""

    @tf.custom_gradient
    def wrapped(*args):
        out, grad_fn = f(*args)

        def vjp(*upstream, variables=None):
            grads = grad_fn(tf.nest.pack_sequence_as(out, upstream))
            grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
            # tf.Variables read inside f get no gradient (polyops Variables are tensors)
            return (grads, [None] * len(variables)) if variables else grads

        return out, vjp

    return wrapped


def _function(fn, **options):
    """``tf.function`` without AutoGraph, and without tf's "frequent retracing" warning:
    core makes one tf.function per signature (and scan one per trace), all of the same
    Python code, which that warning would count as retraces of one function."""
    return _quiet_retracing(tf.function(fn, autograph=False, **options))


def _jit(fn):
    """``tf.function(jit_compile=True)`` of core's pure function.

    AutoGraph is off: core's function does its Python work (structures, static
    arguments) at trace time, and polyops control flow builds tf loops itself.  XLA
    compiles at the first call; when it cannot (an op without an XLA kernel, such as
    tf.strings, or a shape XLA needs constant), tf raises an ``OpError`` (for a missing
    kernel ``InvalidArgumentError: Detected unsupported operations``).  The function then
    falls back, for good, to a plain ``tf.function`` graph; an error that is not XLA's
    comes back from that graph too and is raised.
    """
    xla = _function(fn, jit_compile=True)
    chosen = []

    def compiled(*args):
        if chosen:
            return chosen[0](*args)
        try:
            try:
                out, function = xla(*args), xla
            except tf.errors.OpError:
                function = _function(fn)
                out = function(*args)
        except Exception as exc:
            if not _needs_values(exc):
                raise
            # core's one policy (polyops._transforms): it runs the function eagerly
            raise EagerOnlyError(f"the trace needs tensor values ({type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0] if str(exc) else ''})"[:400]) from exc
        chosen.append(_direct(function, args))
        return out

    return compiled


def _needs_values(exc) -> bool:
    """Whether ``exc`` (or an error it came from) is a graph tensor asked for its value:
    ``bool()`` (OperatorNotAllowedInGraphError), ``float()``/``int()``, NumPy conversion,
    a host computation (EagerOnlyError).  tf has no common type for the others: their
    messages name the symbolic tensor."""
    for e in error_chain(exc):
        if isinstance(e, (EagerOnlyError, tf.errors.OperatorNotAllowedInGraphError)):
            return True
        if isinstance(e, (TypeError, NotImplementedError, AttributeError)) and (
                "SymbolicTensor" in str(e) or "symbolic tf.Tensor" in str(e)):
            return True
    return False


def _direct(function, args):
    """Later calls of ``function`` (args of the first call's shapes and dtypes: core keys
    its compiled functions by them): the traced ConcreteFunction's flat call.

    tf.function's own dispatch matches the arguments against its traces on every call,
    ~10x the cost of running a small compiled graph (~1.5 ms vs 0.2 ms with 21 tensors);
    ``_call_flat`` (private) is what it calls in the end, gradient tape included.
    """
    concrete = function.get_concrete_function(*args)
    call_flat = _flat_call(concrete)
    if call_flat is None or not all(isinstance(a, tf.Tensor) for a in args):
        return function  # tf.Variable arguments pass as handles: leave them to tf.function
    return lambda *a: call_flat(list(a), concrete.captured_inputs)


def _device_scope(name):
    kind, _, index = name.partition(":")
    return tf.device(f"/{'GPU' if kind == 'cuda' else kind.upper()}:{index or 0}")


def _devices():
    kinds = {"CPU": "cpu", "GPU": "cuda"}
    return [f"{kinds[d.device_type]}:{d.name.rsplit(':', 1)[-1]}"
            for d in tf.config.list_logical_devices() if d.device_type in kinds]


RUNTIME = Runtime(
    name="tensorflow",
    version=tf.__version__,
    tensor_types=(EagerTensor, tf.Tensor, tf.Variable),
    dtypes={td: name for name, td in TF_DTYPES.items()},
    convert_to_tensor=convert_to_tensor,
    convert_to_numpy=convert_to_numpy,
    jvp=_jvp,
    value_and_grad=_value_and_grad,
    custom_gradient=_custom_gradient,
    on_tape=_on_tape,
    jit=_jit,
    device_scope=_device_scope,
    devices=_devices,
    distribution="polyops_tensorflow._distribution",  # imported on first polyops.distribution use
    # EagerTensor.dtype is a Python property and tf.DType hashes in Python (~0.6 us a
    # lookup); the enum read is a C method (None without it: core reads x.dtype)
    dtype_code=_dtype_code,
    dtype_codes=_dtype_codes(TF_DTYPES),
    sparse="polyops_tensorflow._sparse",  # tf.SparseTensor (docs/sparse.md)
)


def cast(x, dtype):
    return _cast(x, TF_DTYPES[dtype])


_skip_autograph()  # AutoGraph calls polyops ops as they are (as it does for keras)


# ===== core-family kernels =====

stop_gradient = tf.stop_gradient


def _pops():
    from polyops import ops

    return ops


def _reference(name):
    from polyops.plugin import reference

    return reference(name)


def _tensors(tree):
    """Every leaf as a tensor (polyops's dtype rules for Python numbers; None stays None)."""
    convert = _pops().convert_to_tensor
    return tf.nest.map_structure(lambda x: None if x is None else convert(x), tree)


def _symbolic(x):
    """A graph tensor (inside tf.function), whose value Python cannot read."""
    return isinstance(x, tf.Tensor) and not isinstance(x, EagerTensor)


def _check(op, what, expected, got):
    """TypeError naming ``op`` unless structures, dtypes and shapes agree (as the references)."""
    try:
        tf.nest.assert_same_structure(expected, got, check_types=True)
    except (TypeError, ValueError):
        def star(t):
            return tf.nest.map_structure(lambda _: "*", t)

        raise TypeError(f"{op}: {what} must have the structure {star(expected)}, "
                        f"got {star(got)}") from None
    for e, g in zip(tf.nest.flatten(expected), tf.nest.flatten(got)):
        if (e is None) != (g is None):
            raise TypeError(f"{op}: {what}: expected {e!r}, got {g!r}")
        if e is not None and (e.dtype != g.dtype or not e.shape.is_compatible_with(g.shape)):
            raise TypeError(f"{op}: {what}: expected shape {tuple(e.shape)} dtype "
                            f"{e.dtype.name}, got shape {tuple(g.shape)} dtype {g.dtype.name}")


def _predicate(op, p):
    """A scalar bool tensor of a predicate (nonzero is true, as Python's bool)."""
    p = _pops().convert_to_tensor(p)
    if p.shape.rank is not None and p.shape.num_elements() not in (None, 1):
        raise ValueError(f"{op}: expected a scalar predicate, got shape {tuple(p.shape)}")
    return tf.reshape(p if p.dtype == tf.bool else tf.not_equal(p, 0), ())


# ----- control flow ---------------------------------------------------------------------
# Eagerly, a tf loop is a Python loop too: the kernels hand eager calls to the references
# (same results, same errors).  Inside tf.function (polyops.jit), where the references
# would unroll or need concrete values, they build tf.while_loop / tf.cond / tf.switch_case
# graphs, tracing the Python callables once.


def cond(pred, true_fn, false_fn):
    if not _symbolic(pred):  # eager, or a value known while tracing: a Python branch
        return _reference("cond")(pred, true_fn, false_fn)
    outs = []

    def branch(fn):
        def call():
            out = _tensors(fn())
            if outs:
                _check("cond", "false_fn's output (compared with true_fn's)", outs[0], out)
            outs.append(out)
            return out

        return call

    return tf.cond(_predicate("cond", pred), branch(true_fn), branch(false_fn))


def switch(index, branches, *operands):
    if not _symbolic(index) or not branches:
        return _reference("switch")(index, branches, *operands)
    if len(branches) == 1:
        return branches[0](*operands)
    outs = []

    def branch(k, fn):
        def call():
            out = _tensors(fn(*operands))
            if outs:
                _check("switch", f"branch {k}'s output (compared with branch 0's)", outs[0], out)
            outs.append(out)
            return out

        return call

    i = tf.reshape(tf.cast(index, tf.int32), ())
    i = tf.clip_by_value(i, 0, len(branches) - 1)
    return tf.switch_case(i, [branch(k, b) for k, b in enumerate(branches)])


def _repack(loop_vars, values):
    if isinstance(loop_vars, (tuple, list)):
        return type(loop_vars)(values)
    return values[0]


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    if tf.executing_eagerly():
        return _reference("while_loop")(cond, body, loop_vars, maximum_iterations)
    is_seq = isinstance(loop_vars, (tuple, list))
    values = _tensors(tuple(loop_vars) if is_seq else (loop_vars,))

    def step(*vs):
        out = body(*vs)
        out = _tensors(tuple(out) if is_seq and isinstance(out, (tuple, list)) else (out,))
        _check("while_loop", "the loop_vars body returns", values, out)
        return out

    out = tf.while_loop(lambda *vs: _predicate("while_loop", cond(*vs)), step, values,
                        maximum_iterations=maximum_iterations)
    return _repack(loop_vars, list(out))


def _bound(name, v):
    """A fori_loop bound: a Python int, or an int32 scalar tensor."""
    if isinstance(v, int):
        return v
    t = _pops().convert_to_tensor(v)
    if not t.dtype.is_integer or t.shape.num_elements() not in (None, 1):
        raise TypeError(f"fori_loop: expected an integer {name}, got {t.dtype.name} of shape "
                        f"{tuple(t.shape)}")
    return tf.reshape(tf.cast(t, tf.int32), ())


def fori_loop(lower, upper, body_fun, init_val):
    if tf.executing_eagerly():
        return _reference("fori_loop")(lower, upper, body_fun, init_val)
    lo, hi = _bound("lower", lower), _bound("upper", upper)
    val = _tensors(init_val)

    def step(i, v):
        new = _tensors(body_fun(i, v))
        _check("fori_loop", "the value body_fun returns", val, new)
        return i + 1, new

    # a static trip count bounds the loop, which XLA needs to differentiate it
    static = max(hi - lo, 0) if isinstance(lo, int) and isinstance(hi, int) else None
    try:
        return tf.while_loop(lambda i, v: i < hi, step, (tf.constant(lo, tf.int32) if isinstance(
            lo, int) else lo, val), maximum_iterations=static)[1]
    except TypeError as exc:
        # The graph's counter is an int32 tensor where the eager loop's is a Python int,
        # which is weak: tf's operators do not promote (``x * i`` with a float32 x is a
        # TypeError) and polyops promotes an int32 tensor (an int8 carry + i gives int32).
        # With static bounds the loop unrolls with Python ints, exactly as eagerly (a
        # genuine error of the body is raised again from there); with tensor bounds the
        # counter's values are needed: polyops.jit runs the function eagerly.
        if static is None:
            raise EagerOnlyError(f"fori_loop: body_fun needs its counter i as a Python int (it "
                                 f"failed on the graph's int32 i, the bounds being tensors): "
                                 f"{exc}") from exc
        return _reference("fori_loop")(lower, upper, body_fun, init_val)


def _length(op, xs, length=None):
    """The common leading dim of ``xs``'s leaves: a Python int, or a scalar tensor when
    the graph does not know it.  ValueErrors as the references'."""
    n = None
    dynamic = None
    for x in tf.nest.flatten(xs):
        if x is None:
            continue
        if x.shape.rank == 0:
            raise ValueError(f"{op}: expected tensors with a leading axis to loop over, got a scalar")
        d = x.shape[0]
        if d is None:
            dynamic = tf.shape(x)[0]
        elif n is not None and n != d:
            raise ValueError(f"{op}: leading dims differ: {n} and {d}")
        else:
            n = d
    if length is not None:
        if n is not None and n != length:
            raise ValueError(f"{op}: length={length} but the inputs have leading dim {n}")
        n = int(length)
    if n is None and dynamic is None:
        raise ValueError(f"{op}: expected tensors to loop over, got none")
    return n if n is not None else dynamic


def _graph_scan(op, f, init, xs, n, reverse):
    """``scan`` as a tf.while_loop over TensorArrays.

    The step is traced once, as a concrete tf.function, before the loop: its outputs give
    the ys' dtypes and shapes (for the TensorArrays, and for the zeros of an empty scan),
    and the loop body calls that graph instead of tracing ``f`` again.
    """
    carry = _tensors(init)
    carry_leaves = [c for c in tf.nest.flatten(carry) if c is not None]
    x_leaves = [x for x in tf.nest.flatten(xs) if x is not None]
    y_tree = []

    def step(c_leaves, x_row):
        c = _fill(carry, c_leaves)
        out = f(c, None if xs is None else _fill(xs, x_row))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"{op}: f must return a pair (carry, y), got {type(out).__name__}")
        new = _tensors(out[0])
        _check(op, "the carry f returns", carry, new)
        y = _tensors(out[1])
        y_tree.append(y)
        return ([v for v in tf.nest.flatten(new) if v is not None],
                [v for v in tf.nest.flatten(y) if v is not None])

    body = _function(step).get_concrete_function(
        [tf.TensorSpec.from_tensor(c) for c in carry_leaves],
        [tf.TensorSpec(x.shape[1:], x.dtype) for x in x_leaves])
    y_specs = [t for t in tf.nest.flatten(y_tree[0]) if t is not None]
    if isinstance(n, int) and n == 0:
        ys = [tf.zeros((0,) + tuple(0 if d is None else d for d in s.shape), s.dtype)
              for s in y_specs]
        return carry, _fill(y_tree[0], ys)
    x_arrays = [tf.TensorArray(x.dtype, size=n, element_shape=x.shape[1:]).unstack(x)
                for x in x_leaves]
    y_arrays = [tf.TensorArray(s.dtype, size=n, element_shape=s.shape) for s in y_specs]

    def loop(j, c_leaves, y_arrays):
        i = n - 1 - j if reverse else j
        new, y = body(c_leaves, [a.read(i) for a in x_arrays])
        return j + 1, new, [a.write(i, v) for a, v in zip(y_arrays, y)]

    _, c_leaves, y_arrays = tf.while_loop(
        lambda j, *_: j < n, loop, (tf.constant(0), carry_leaves, y_arrays),
        maximum_iterations=n)
    return _fill(carry, c_leaves), _fill(y_tree[0], [a.stack() for a in y_arrays])


def _fill(tree, leaves):
    """``tree`` with its non-None leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)
    return tf.nest.map_structure(lambda t: None if t is None else next(it), tree)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    if tf.executing_eagerly():
        return _reference("scan")(f, init, xs, length, reverse, unroll)
    if not callable(f):
        raise TypeError(f"scan: expected a callable f, got {type(f).__name__}")
    if xs is None and length is None:
        raise ValueError("scan: expected xs or length, got neither")
    xs = _tensors(xs)
    # unroll is a hint: tf.while_loop keeps the loop rolled
    return _graph_scan("scan", f, init, xs, _length("scan", xs, length), reverse)


def map(f, xs):
    if tf.executing_eagerly():
        return _reference("map")(f, xs)
    if not callable(f):
        raise TypeError(f"map: expected a callable f, got {type(f).__name__}")
    xs = _tensors(xs)
    return _graph_scan("map", lambda c, x: (c, f(x)), (), xs, _length("map", xs), False)[1]


def vectorized_map(function, elements):
    """``tf.vectorized_map`` in graphs (pfor: ops without a vectorized rule run in a
    tf.while_loop); a function pfor cannot trace at all (one that reads values on the
    host, say) runs through `map`.  Eagerly, the reference's Python loop: eager
    tf.vectorized_map traces a new tf.function on every call (~40 ms, and tf's
    retracing warnings), slower than the loop below a few hundred rows."""
    if tf.executing_eagerly():
        return _reference("vectorized_map")(function, elements)
    if not callable(function):
        raise TypeError(f"vectorized_map: expected a callable function, got "
                        f"{type(function).__name__}")
    elements = _tensors(elements)
    n = _length("vectorized_map", elements)
    if isinstance(n, int) and n == 0:
        return map(function, elements)
    try:
        return tf.vectorized_map(lambda e: _tensors(function(e)), elements, warn=False)
    except Exception:  # noqa: BLE001 - a genuine error in function comes back from map
        return map(function, elements)


# ----- scatter / slice ------------------------------------------------------------------


def _linear(idx, dims):
    """Row-major positions (int32, shape (N,)) of the index rows ``idx`` (N, k) into the
    static ``dims``: negative indices wrap once, rows out of range get -1 (as core's
    references; tf's segment ops drop negative ids)."""
    if not dims:
        return tf.zeros(tf.shape(idx)[:1], tf.int32)
    d = tf.constant(dims, tf.int32)
    idx = tf.where(idx < 0, idx + d, idx)
    ok = tf.reduce_all((idx >= 0) & (idx < d), axis=1)
    strides = [1]
    for n in reversed(dims[1:]):
        strides.insert(0, strides[0] * n)
    return tf.where(ok, tf.reduce_sum(idx * tf.constant(strides, tf.int32), axis=1), -1)


def _rows(indices, values, target):
    """(positions (N,) as `_linear`, values as (N,) + target[k:], k, prod(target[:k]))."""
    k = indices.shape[-1]
    n = indices.shape[:-1].num_elements()
    n = -1 if n is None else n  # a known count also reshapes zero-size values
    idx = tf.reshape(indices, (n, k))
    vals = tf.reshape(values, [n] + target[k:])
    m = 1
    for n in target[:k]:
        m *= n
    return _linear(idx, target[:k]), vals, k, m


def scatter(indices, values, shape):
    target = [int(d) for d in shape]
    lin, vals, k, m = _rows(indices, values, target)
    if vals.dtype == tf.bool:  # duplicates "add" as logical or
        vals = tf.cast(vals, tf.int32)
    out = tf.math.unsorted_segment_sum(vals, lin, m)  # rows with id -1 are dropped
    if values.dtype == tf.bool:
        out = tf.not_equal(out, 0)
    return tf.reshape(out, target)


_SCATTER = {None: tf.tensor_scatter_nd_update, "add": tf.tensor_scatter_nd_add,
            "max": tf.tensor_scatter_nd_max, "min": tf.tensor_scatter_nd_min}


def scatter_update(inputs, indices, updates, reduction=None):
    target = inputs.shape.as_list()
    if None in target or (inputs.dtype.is_complex and reduction in ("max", "min")):
        return _reference("scatter_update")(inputs, indices, updates, reduction)
    if inputs.dtype == tf.bool and reduction is not None:  # or / or / and / and on 0-1 ints
        out = scatter_update(tf.cast(inputs, tf.int32), indices, tf.cast(updates, tf.int32),
                             reduction)
        return tf.not_equal(out, 0)
    lin, upd, k, m = _rows(indices, updates, target)
    flat = tf.reshape(inputs, [m] + target[k:])
    if reduction == "mul":  # no tensor_scatter_nd_mul; an empty segment's product is 1
        return tf.reshape(flat * tf.math.unsorted_segment_prod(upd, lin, m), target)
    keep = lin >= 0
    if reduction is None:
        # tensor_scatter_nd_update leaves the winner among duplicates undefined: keep only
        # the last row written to each position (the contract), found by a segment max
        order = tf.range(tf.shape(lin)[0])
        last = tf.math.unsorted_segment_max(order, lin, m)
        keep &= tf.equal(tf.gather(last, tf.maximum(lin, 0)), order)
    # rows not kept go to an extra last row, sliced off after (tf raises on indices out
    # of range on CPU, and ignores them on GPU)
    ext = tf.concat([flat, tf.zeros([1] + target[k:], flat.dtype)], 0)
    out = _SCATTER[reduction](ext, tf.where(keep, lin, m)[:, None], upd)[:m]
    if reduction in ("max", "min") and upd.dtype.is_floating:
        # tf's scatter max/min skip NaN updates; NumPy's (and the references') propagate
        nan = tf.math.unsorted_segment_max(tf.cast(tf.math.is_nan(upd), tf.int32), lin, m) > 0
        out = tf.where(nan, tf.constant(float("nan"), out.dtype), out)
    return tf.reshape(out, target)


def _start_tensor(start_indices):
    if isinstance(start_indices, (list, tuple)):
        return tf.stack([tf.reshape(tf.cast(_pops().convert_to_tensor(s), tf.int32), ())
                         for s in start_indices])
    return tf.reshape(tf.cast(_pops().convert_to_tensor(start_indices), tf.int32), (-1,))


def slice(inputs, start_indices, shape):
    # starts clamp to [0, dim - size] (tf.slice would raise); sizes stay static, so XLA
    # compiles a tensor start as a dynamic slice
    sizes = [int(n) for n in shape]
    dims = inputs.shape.as_list()
    starts = static_starts(start_indices)
    if starts is not None and None not in dims:
        if not dims:
            return inputs
        begin = []
        for ax, (s, d) in enumerate(zip(starts, dims)):
            if sizes[ax] == -1:
                sizes[ax] = d - min(max(s, 0), d)
            begin.append(min(max(s, 0), d - sizes[ax]))
        return tf.slice(inputs, begin, sizes)
    begin = _start_tensor(start_indices) if starts is None else tf.constant(starts, tf.int32)
    d = tf.shape(inputs)
    size = tf.where(tf.constant(sizes) == -1, d - tf.clip_by_value(begin, 0, d), sizes)
    return tf.slice(inputs, tf.clip_by_value(begin, 0, d - size), size)


def slice_update(inputs, start_indices, updates):
    u = updates.shape.as_list()
    dims = inputs.shape.as_list()
    starts = static_starts(start_indices)
    if not u:
        return updates
    # a scatter of the block's rows: it runs eagerly and under XLA, with static or tensor
    # starts.  Trailing axes the block covers whole need no index column (a KV-cache
    # update (B, 1, H) of (B, T, H) scatters B rows of H values).
    k = len(u)
    while k and u[k - 1] == dims[k - 1]:
        k -= 1
    if k == 0:
        return updates
    if starts is not None and None not in dims[:k]:
        begin = tf.constant([min(max(s, 0), d - n) for s, d, n in zip(starts, dims, u)][:k])
    else:
        begin = _start_tensor(start_indices)[:k] if starts is None else tf.constant(starts[:k])
        begin = tf.clip_by_value(begin, 0, tf.shape(inputs)[:k] - u[:k])
    grid = tf.stack(tf.meshgrid(*[tf.range(n) for n in u[:k]], indexing="ij"), axis=-1)
    return tf.tensor_scatter_nd_update(inputs, grid + begin, updates)
