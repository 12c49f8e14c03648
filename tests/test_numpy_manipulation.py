"""Targeted tests of `polyops.ops.numpy.manipulation` that the op table cannot express:
errors for bad static arguments, data-dependent sizes (repeat with tensor counts),
NaN/inf/-0.0 passing through, integer wrap-around in diff, 0-d and zero-size inputs."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops

from conftest import to_numpy

X23 = np.arange(6, dtype=np.float32).reshape(2, 3)


def run(backend, fn, *args, **kwargs):
    with polyops.use_backend(backend):
        return to_numpy(fn(*args, **kwargs))


# -- errors: the same type and message on every backend --------------------------------

BAD = [
    (lambda: ops.split(np.zeros((5, 2), "float32"), 3), ValueError, ("split", "size 5", "indices_or_sections=3")),
    (lambda: ops.hsplit(np.zeros((2, 5), "float32"), 2), ValueError, ("hsplit", "size 5", "indices_or_sections=2")),
    (lambda: ops.vsplit(np.zeros((3, 2), "float32"), 2), ValueError, ("vsplit", "size 3", "indices_or_sections=2")),
    (lambda: ops.dsplit(np.zeros((2, 3), "float32"), 1), ValueError, ("dsplit", "rank >= 3", "(2, 3)")),
    (lambda: ops.vsplit(np.zeros((3,), "float32"), 1), ValueError, ("vsplit", "rank >= 2")),
    (lambda: ops.hsplit(np.float32(1), 1), ValueError, ("hsplit", "rank >= 1")),
    (lambda: ops.split(X23, 0), ValueError, ("split", "indices_or_sections=0")),
    (lambda: ops.array_split(X23, -1), ValueError, ("array_split", "indices_or_sections=-1")),
    (lambda: ops.split(X23, "ab"), TypeError, ("split", "'ab'")),
    (lambda: ops.split(X23, [1.5]), TypeError, ("split", "[1.5]")),
    (lambda: ops.split(X23, 1, axis=2), ValueError, ("split", "axis=2")),
    (lambda: ops.rot90(np.zeros((3,), "float32")), ValueError, ("rot90", "rank >= 2")),
    (lambda: ops.rot90(X23, axes=(0, -2)), ValueError, ("rot90", "axes=(0, -2)")),
    (lambda: ops.rot90(X23, axes=(0, 1, 2)), ValueError, ("rot90", "axes=(0, 1, 2)")),
    (lambda: ops.rot90(X23, axes=(0, 2)), ValueError, ("rot90", "axis=2")),
    (lambda: ops.rot90(X23, k=1.5), TypeError, ("rot90", "k=1.5")),
    (lambda: ops.fliplr(np.zeros((3,), "float32")), ValueError, ("fliplr", "shape=(3,)")),
    (lambda: ops.flipud(np.float32(1)), ValueError, ("flipud", "shape=()")),
    (lambda: ops.swapaxes(X23, 0, 2), ValueError, ("swapaxes", "axis=2")),
    (lambda: ops.moveaxis(X23, (0, 1), 0), ValueError, ("moveaxis", "source=(0, 1)", "destination=0")),
    (lambda: ops.moveaxis(X23, (0, -2), (0, 1)), ValueError, ("moveaxis", "source=(0, -2)")),
    (lambda: ops.moveaxis(X23, 0, "1"), TypeError, ("moveaxis", "axis='1'")),
    (lambda: ops.diff(X23, n=-1), ValueError, ("diff", "n=-1")),
    (lambda: ops.diff(X23, n=1.0), TypeError, ("diff", "n=1.0")),
    (lambda: ops.diff(np.float32(1)), ValueError, ("diff", "rank >= 1")),
    (lambda: ops.repeat(X23, -1), ValueError, ("repeat", "repeats=-1")),
    (lambda: ops.repeat(X23, [1, 2], axis=1), ValueError, ("repeat", "axis 1 (3)", "repeats=[1, 2]")),
    (lambda: ops.repeat(X23, [1, 2]), ValueError, ("repeat", "flattened x (6)")),
    (lambda: ops.repeat(X23, 1.5), TypeError, ("repeat", "repeats=1.5")),
    (lambda: ops.repeat(X23, np.array([1.0, 2.0, 3.0]), axis=1), TypeError, ("repeat", "float64")),
    (lambda: ops.repeat(np.float32(1), 2, axis=0), ValueError, ("repeat", "axis=0")),
    (lambda: ops.tile(X23, (2, -1)), ValueError, ("tile", "repeats=-1")),
    (lambda: ops.tile(X23, "2"), TypeError, ("tile", "repeats='2'")),
    (lambda: ops.roll(X23, (1, 2, 3), axis=(0, 1)), ValueError, ("roll", "shift=(1, 2, 3)", "axis=(0, 1)")),
    (lambda: ops.roll(X23, 1.5), TypeError, ("roll", "shift=1.5")),
    (lambda: ops.roll(X23, 1, axis=(0, 5)), ValueError, ("roll", "axis=5")),
    (lambda: ops.append(X23, np.zeros((3, 2), "float32"), axis=0), ValueError, ("append", "(2, 3)", "(3, 2)")),
    (lambda: ops.append(X23, np.zeros((3,), "float32"), axis=0), ValueError, ("append", "equal rank")),
    (lambda: ops.hstack([]), ValueError, ("hstack", "at least one")),
    (lambda: ops.vstack([X23, np.zeros((4,), "float32")]), ValueError, ("vstack", "(1, 4)")),
    (lambda: ops.dstack([X23, np.zeros((3, 2), "float32")]), ValueError, ("dstack", "(3, 2, 1)")),
    (lambda: ops.column_stack([np.zeros((3,), "float32"), np.zeros((2,), "float32")]), ValueError,
     ("column_stack", "(2, 1)")),
    (lambda: ops.hstack([X23, "a"]), TypeError, ("hstack", "'a'")),
    (lambda: ops.hstack(X23), TypeError, ("hstack", "sequence")),
]


@pytest.mark.parametrize("case", BAD, ids=[f"{c[2][0]}-{i}" for i, c in enumerate(BAD)])
def test_bad_static_arguments(case, backend):
    fn, exc, fragments = case
    with polyops.use_backend(backend):
        with pytest.raises(exc) as info:
            fn()
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {info.value}"


# -- data-dependent sizes: repeat with a tensor of counts ---------------------------


def test_repeat_tensor_counts(backend):
    """Counts as a tensor: read once on the host eagerly; the spec leaves that dim None."""
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    counts = np.array([2, 0, 1], np.int32)
    with polyops.use_backend(backend):
        out = ops.repeat(ops.convert_to_tensor(x), ops.convert_to_tensor(counts), axis=1)
        np.testing.assert_array_equal(ops.convert_to_numpy(out), np.repeat(x, counts, axis=1))
        assert ops.dtype(out) == "int32"
        flat = ops.repeat(ops.convert_to_tensor(x), ops.convert_to_tensor(np.array(2, np.int32)))
        np.testing.assert_array_equal(ops.convert_to_numpy(flat), np.repeat(x, 2))
    spec = ops.repeat(SymbolicTensor((2, 3), "float32"), SymbolicTensor((3,), "int32"), axis=1)
    assert spec.shape == (2, None) and spec.dtype == "float32"
    assert ops.repeat(SymbolicTensor((2, 3)), SymbolicTensor((6,), "int32")).shape == (None,)
    # static counts (Python or numpy) keep the size known
    assert ops.repeat(SymbolicTensor((2, 3)), np.array([1, 2, 3]), axis=1).shape == (2, 6)
    assert ops.repeat(SymbolicTensor((2, None)), 2, axis=1).shape == (2, None)


def test_tile_tensor_repeats(backend):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with polyops.use_backend(backend):
        reps = ops.convert_to_tensor(np.array([2, 1, 2], np.int32))
        np.testing.assert_array_equal(ops.convert_to_numpy(ops.tile(ops.convert_to_tensor(x), reps)),
                                      np.tile(x, (2, 1, 2)))
    assert ops.tile(SymbolicTensor((2, 3)), SymbolicTensor((3,), "int32")).shape == (None,) * 3
    assert ops.tile(SymbolicTensor((2, 3)), SymbolicTensor((), "int32")).shape == (None,) * 2


def test_repeat_symbolic_counts_need_symbolic_x():
    with pytest.raises(TypeError, match="repeat.*SymbolicTensor"):
        ops.repeat(np.zeros((3,), "float32"), SymbolicTensor((3,), "int32"))


# -- symbolic shapes with unknown dims -------------------------------------------


def test_unknown_dims():
    x = SymbolicTensor((None, 6), "bfloat16")
    assert [t.shape for t in ops.split(x, 3)] == [(None, 6)] * 3
    assert [t.shape for t in ops.split(x, 3, axis=1)] == [(None, 2)] * 3
    assert [t.shape for t in ops.split(x, [1, 4])] == [(None, 6)] * 3
    assert [t.shape for t in ops.array_split(x, 4, axis=-1)] == [(None, 2), (None, 2), (None, 1), (None, 1)]
    assert [t.dtype for t in ops.hsplit(x, 2)] == ["bfloat16", "bfloat16"]
    assert ops.ravel(x).shape == (None,)
    assert ops.diff(x, 2, axis=0).shape == (None, 6)
    assert ops.diff(x, 9).shape == (None, 0)
    assert ops.tile(x, (2, 1, 2)).shape == (2, None, 12)
    assert ops.rot90(x).shape == (6, None)
    assert ops.rot90(x, k=2).shape == (None, 6)
    assert ops.append(x, SymbolicTensor((2,), "float32")).shape == (None,)
    assert ops.append(x, SymbolicTensor((None, 6), "int8"), axis=0).dtype == "bfloat16"
    assert ops.hstack([x, SymbolicTensor((3, 2), "int32")]).shape == (3, 8)
    assert ops.vstack([SymbolicTensor((None,)), SymbolicTensor((2, 4))]).shape == (3, 4)
    assert ops.dstack([SymbolicTensor((None,)), SymbolicTensor((1, 4, 2))]).shape == (1, 4, 3)
    assert ops.column_stack([SymbolicTensor((None,)), SymbolicTensor((5, 2))]).shape == (5, 3)
    assert ops.moveaxis(SymbolicTensor((2, None, 4)), (0, 1), (-1, 0)).shape == (None, 4, 2)


def test_joins_promote_like_concatenate(backend):
    with polyops.use_backend(backend):
        a = ops.convert_to_tensor(np.array([1, 2], np.int8))
        b = ops.convert_to_tensor(np.array([200], np.uint8))
        out = ops.hstack([a, b])
        assert ops.dtype(out) == "int16"
        np.testing.assert_array_equal(ops.convert_to_numpy(out), [1, 2, 200])
        assert ops.dtype(ops.append(a, 1.5)) == "float32"
        mixed = ops.hstack([1, 2.5, True])  # Python scalars are weak: floatx
        assert ops.dtype(mixed) == "float32"
        np.testing.assert_array_equal(ops.convert_to_numpy(mixed), [1.0, 2.5, 1.0])


# -- values: 0-d, zero-size, specials, wrap-around --------------------------------


def test_zero_d_inputs(backend):
    s = np.float32(3.5)
    assert run(backend, ops.ravel, s).tolist() == [3.5]
    assert run(backend, ops.hstack, [s, np.float32(1)]).tolist() == [3.5, 1.0]
    assert run(backend, ops.vstack, [s, s]).shape == (2, 1)
    assert run(backend, ops.dstack, [s, s]).shape == (1, 1, 2)
    assert run(backend, ops.column_stack, [s, s]).shape == (1, 2)
    assert run(backend, ops.append, s, s).tolist() == [3.5, 3.5]
    assert run(backend, ops.repeat, s, 3).tolist() == [3.5] * 3
    assert run(backend, ops.tile, s, ()).shape == ()
    assert run(backend, ops.tile, s, (2, 0)).shape == (2, 0)
    assert run(backend, ops.roll, s, 3).tolist() == 3.5
    assert run(backend, ops.moveaxis, s, (), ()).tolist() == 3.5


def test_zero_size_inputs(backend):
    e = np.zeros((0, 3), np.float32)
    assert [p.shape for p in run(backend, ops.split, e, 3)] == [(0, 3)] * 3
    assert [p.shape for p in run(backend, ops.array_split, e, 2, axis=1)] == [(0, 2), (0, 1)]
    assert run(backend, ops.roll, e, 4).shape == (0, 3)
    assert run(backend, ops.roll, e, (1, 2), axis=(0, 1)).shape == (0, 3)
    assert run(backend, ops.repeat, e, 2, axis=0).shape == (0, 3)
    assert run(backend, ops.repeat, X23, 0, axis=1).shape == (2, 0)
    assert run(backend, ops.repeat, X23, [0] * 6).shape == (0,)
    assert run(backend, ops.tile, e, (2, 2)).shape == (0, 6)
    assert run(backend, ops.diff, e, axis=0).shape == (0, 3)
    assert run(backend, ops.diff, X23, 5).shape == (2, 0)
    assert run(backend, ops.rot90, e).shape == (3, 0)
    assert run(backend, ops.hstack, [e, np.zeros((0, 2), np.float32)]).shape == (0, 5)


def test_split_points_follow_numpy(backend):
    x = np.arange(7, dtype=np.int32)
    for points in ([2, 5], [-3], [3, 1], [0, 0, 9], [], [-20, 20]):
        got = run(backend, ops.split, x, points)
        want = np.split(x, points)
        assert [g.tolist() for g in got] == [w.tolist() for w in want], points


def test_specials_pass_through(backend):
    x = np.array([[np.nan, -0.0, np.inf], [-np.inf, 1.0, -0.0]], np.float32)
    for fn, args in ((ops.roll, (1,)), (ops.rot90, ()), (ops.fliplr, ()), (ops.tile, ((1, 2),)),
                     (ops.repeat, (2,)), (ops.swapaxes, (0, 1))):
        got = run(backend, fn, x, *args)
        want = getattr(np, fn.__name__)(x, *args)
        np.testing.assert_array_equal(got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want)), fn.__name__  # -0.0 stays -0.0


def test_diff_values(backend):
    f = np.array([1.0, np.inf, np.inf, -0.0, np.nan], np.float32)
    np.testing.assert_array_equal(run(backend, ops.diff, f), np.diff(f))
    u = np.array([5, 3, 250, 0], np.uint8)  # unsigned differences wrap
    got = run(backend, ops.diff, u)
    assert got.dtype == np.uint8 and got.tolist() == np.diff(u).tolist()
    i = np.array([-128, 127, -128], np.int8)  # signed ones too
    assert run(backend, ops.diff, i).tolist() == np.diff(i).tolist()
    b = np.array([True, True, False, True])  # bool: not_equal
    got = run(backend, ops.diff, b)
    assert got.dtype == np.bool_ and got.tolist() == np.diff(b).tolist()
    assert run(backend, ops.diff, b, 2).tolist() == np.diff(b, 2).tolist()
    with polyops.use_backend(backend):
        assert ops.dtype(ops.diff(ops.convert_to_tensor(np.array([1, 2], np.int8)))) == "int8"


def test_roll_axes_and_flattened(backend):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for shift, axis in ((7, None), ((1, 2), None), (-1, (0, 2)), ((1, 1, -5), (2, -1, 0)), (3, -2)):
        np.testing.assert_array_equal(run(backend, ops.roll, x, shift, axis), np.roll(x, shift, axis))


def test_moveaxis_and_rot90(backend):
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(run(backend, ops.moveaxis, x, [0, 1], [-1, -2]),
                                  np.moveaxis(x, [0, 1], [-1, -2]))
    for k in range(-2, 6):
        np.testing.assert_array_equal(run(backend, ops.rot90, x, k, (1, -1)), np.rot90(x, k, (1, -1)))


def test_operation_classes():
    from polyops.ops import numpy as onp

    x = SymbolicTensor((6, 4))
    assert [t.shape for t in onp.Split(3)(x)] == [(2, 4)] * 3
    assert onp.Roll(1, axis=0)(x).shape == (6, 4)
    assert onp.Hstack()([x, x]).shape == (6, 8)
    assert onp.Repeat(2, axis=1).compute_output_spec(x).shape == (6, 8)
