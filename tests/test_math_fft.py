"""Targeted tests of the Fourier ops (polyops.ops.math.fft): Keras's examples, round trips,
options, error messages, symbolic shapes, and complex views (none on openvino)."""

from __future__ import annotations

import numpy as np
import pytest

import polyops
from polyops import SymbolicTensor, ops
from polyops._registry import get_backend

from conftest import to_numpy

F32 = np.float32


def t(a, dtype="float32"):
    return ops.convert_to_tensor(np.asarray(a), dtype)


def has_complex(backend):
    return "complex64" in set(get_backend(backend).runtime.dtypes.values())


def close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=tol, atol=tol)


# -- Keras's docstring examples ------------------------------------------------------------


def test_keras_examples(backend):
    with polyops.use_backend(backend):
        re, im = to_numpy(ops.fft((t([1.0, 2.0]), t([0.0, 1.0]))))
        close(re, [3, -1]), close(im, [1, -1])
        re, im = to_numpy(ops.fft2((t([[1.0, 2.0], [2.0, 1.0]]), t([[0.0, 1.0], [1.0, 0.0]]))))
        close(re, [[6, 0], [0, -2]]), close(im, [[2, 0], [0, -2]])
        re, im = to_numpy(ops.ifft2((t([[6.0, 0.0], [0.0, -2.0]]), t([[2.0, 0.0], [0.0, -2.0]]))))
        close(re, [[1, 2], [2, 1]]), close(im, [[0, 1], [1, 0]])
        x = t([0.0, 1.0, 2.0, 3.0, 4.0])
        re, im = to_numpy(ops.rfft(x))
        close(re, [10, -2.5, -2.5]), close(im, [0, 3.4409548, 0.81229924])
        re, im = to_numpy(ops.rfft(x, 3))
        close(re, [3, -1.5]), close(im, [0, 0.8660254])
        # (Keras's docstring shows 3 values; irfft of 5 bins has 2 * (5 - 1) = 8, as NumPy)
        close(to_numpy(ops.irfft((x, x))), np.fft.irfft(np.arange(5) * (1 + 1j)))
        close(to_numpy(ops.irfft(ops.rfft(x, 5), 5)), [0, 1, 2, 3, 4])
        re, im = to_numpy(ops.stft(x, 3, 2, 3))
        close(re, [[0.75, -0.375], [3.75, -1.875], [5.25, -2.625]])
        close(im, [[0.0, 0.64951905], [0.0, 0.64951905], [0.0, -0.64951905]])
        close(to_numpy(ops.istft(ops.stft(x, 1, 1, 1), 1, 1, 1)), [0, 1, 2, 3, 4])


# -- round trips and dtypes -----------------------------------------------------------------


def test_round_trips(backend, rng):
    x = rng.normal(size=(2, 3, 10)).astype(F32)
    y = rng.normal(size=(2, 3, 10)).astype(F32)
    with polyops.use_backend(backend):
        for n in (10, 7):
            close(to_numpy(ops.irfft(ops.rfft(t(x), n), n)), x[..., :n], 1e-4)
        re, im = to_numpy(ops.ifft2(ops.fft2((t(x), t(y)))))
        close(re, x, 1e-4), close(im, y, 1e-4)
        sig = rng.normal(size=(2, 64)).astype(F32)
        spec = ops.stft(t(sig), 16, 4, 16)
        close(to_numpy(ops.istft(spec, 16, 4, 16, length=64)), sig, 1e-4)


@pytest.mark.parametrize("dtype", ("float16", "bfloat16", "int32"))
def test_result_dtypes(backend, dtype):
    want = "float32" if dtype == "int32" else dtype
    x = np.arange(8) % 3
    with polyops.use_backend(backend):
        xt = t(x, dtype)
        outs = (*ops.fft((xt, xt)), *ops.fft2((xt[None], xt[None])), *ops.rfft(xt),
                ops.irfft((xt, xt)), *ops.stft(xt, 4, 2, 4), ops.istft((xt[None], xt[None]), 4, 2, 14))
        assert [ops.dtype(o) for o in outs] == [want] * len(outs)
        re, _ = ops.rfft(xt)
        close(to_numpy(re).astype(F32), np.fft.rfft(x).real, 2e-2)


def test_parts_promote_together(backend):
    with polyops.use_backend(backend):
        re, im = ops.fft((t([1, 2], "float16"), t([0, 1], "float32")))
        assert ops.dtype(re) == ops.dtype(im) == "float32"


def test_lists_and_tuples_are_pairs(backend):
    with polyops.use_backend(backend):
        out = ops.fft([t([1.0, 2.0]), t([0.0, 1.0])])
        assert isinstance(out, tuple) and len(out) == 2


# -- stft / istft options ---------------------------------------------------------------------


def test_stft_options_against_scipy(backend, rng):
    from polyops.testing._records_math_fft import _istft, _stft

    x = rng.normal(size=(2, 23)).astype(F32)
    win = rng.uniform(0.2, 1.0, 6).astype(F32)
    with polyops.use_backend(backend):
        for window in ("hann", "hamming", None, win, t(win)):
            for center in (True, False):
                for seq, stride, n in ((6, 2, 6), (6, 5, 9)):
                    kw = dict(window=window if not isinstance(window, np.ndarray) or seq == 6 else None,
                              center=center)
                    want = _stft(x, seq, stride, n, window=np.asarray(to_numpy(window))
                                 if window is not None and not isinstance(window, str) else window,
                                 center=center)
                    got = to_numpy(ops.stft(t(x), seq, stride, n, **kw))
                    close(got[0], want[0], 1e-4), close(got[1], want[1], 1e-4)
                    np_window = kw["window"] if kw["window"] is None or isinstance(kw["window"], str) \
                        else np.asarray(to_numpy(kw["window"]))
                    for length in (None, 9, 40):
                        want_i = _istft(want, seq, stride, n, length=length, window=np_window,
                                        center=center)
                        got_i = to_numpy(ops.istft((t(want[0]), t(want[1])), seq, stride, n,
                                                   length=length, **kw))
                        if length is not None and want_i.shape[-1] < length:  # zero-padded here
                            want_i = np.pad(want_i, [(0, 0), (0, length - want_i.shape[-1])])
                        close(got_i, want_i, 1e-4)


def test_negative_window_sum_flips_stft_sign(backend):
    x = np.arange(8, dtype=F32)
    with polyops.use_backend(backend):
        a = to_numpy(ops.stft(t(x), 4, 2, 4, window=np.full(4, 0.5, F32)))
        b = to_numpy(ops.stft(t(x), 4, 2, 4, window=np.full(4, -0.5, F32)))
    close(a[0], b[0]), close(a[1], b[1])  # Keras: scaled by |sum(w)| / sum(w)


# -- errors ---------------------------------------------------------------------------------------

X = np.ones((2, 8), F32)
BAD = [
    (lambda: ops.fft((X,)), ValueError, "fft.*pair"),
    (lambda: ops.fft((X, X, X)), ValueError, "fft.*pair"),
    (lambda: ops.fft((X, np.ones((2, 7), F32))), ValueError, r"fft.*\(2, 8\).*\(2, 7\)"),
    (lambda: ops.fft((np.float32(1), np.float32(1))), ValueError, "fft.*rank >= 1"),
    (lambda: ops.fft2((X[0], X[0])), ValueError, "fft2.*rank >= 2"),
    (lambda: ops.ifft2((X[0], X[0])), ValueError, "ifft2.*rank >= 2"),
    (lambda: ops.fft((X.astype(np.complex64), X)), TypeError, "fft.*complex64"),
    (lambda: ops.rfft(X, 0), ValueError, "rfft.*fft_length=0"),
    (lambda: ops.rfft(X, 2.5), TypeError, "rfft.*fft_length=2.5"),
    (lambda: ops.rfft(np.float32(1)), ValueError, "rfft.*rank"),
    (lambda: ops.rfft(np.ones((2, 0), F32)), ValueError, "rfft.*empty"),
    (lambda: ops.irfft((X[:, :1], X[:, :1])), ValueError, "irfft.*1 frequency bins"),
    (lambda: ops.irfft((X, X), -3), ValueError, "irfft.*fft_length=-3"),
    (lambda: ops.stft(X, 4, 0, 4), ValueError, "stft.*sequence_stride=0"),
    (lambda: ops.stft(X, 4, 1.5, 4), TypeError, "stft.*sequence_stride=1.5"),
    (lambda: ops.stft(X, 5, 2, 4), ValueError, "stft.*fft_length >= sequence_length"),
    (lambda: ops.stft(X, 4, 2, 4, window="blackman"), ValueError, "stft.*'blackman'"),
    (lambda: ops.stft(X, 4, 2, 4, window=np.ones(3, F32)), ValueError, r"stft.*\(4,\).*\(3,\)"),
    (lambda: ops.stft(X, 4, 2, 4, center="yes"), TypeError, "stft.*center='yes'"),
    (lambda: ops.stft(X, 4, 2, 16, center=False), ValueError, "stft.*shorter than fft_length=16"),
    (lambda: ops.istft((X[0], X[0]), 4, 2, 4), ValueError, "istft.*rank >= 2"),
    (lambda: ops.istft((X[None], X[None]), 4, -1, 4), ValueError, "istft.*sequence_stride=-1"),
    (lambda: ops.istft((X[None], X[None]), 4, 2, 4, length=-1), ValueError, "istft.*length=-1"),
    (lambda: ops.view_as_complex(np.ones((2, 3), F32)), ValueError, r"view_as_complex.*\(2, 3\)"),
    (lambda: ops.view_as_complex(np.float32(1)), ValueError, r"view_as_complex.*\(\)"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_errors(backend, i):
    fn, exc, match = BAD[i]
    with polyops.use_backend(backend):
        with pytest.raises(exc, match=match):
            fn()


def test_symbolic_errors():
    s = SymbolicTensor((2, 8))
    with pytest.raises(ValueError, match="fft.*same shape"):
        ops.fft((s, SymbolicTensor((2, 7))))
    with pytest.raises(TypeError, match="fft.*complex64"):
        ops.fft((SymbolicTensor((2,), "complex64"), SymbolicTensor((2,), "complex64")))
    with pytest.raises(ValueError, match="stft.*fft_length >= sequence_length"):
        ops.stft(s, 5, 2, 4)
    with pytest.raises(ValueError, match="view_as_complex.*size 2"):
        ops.view_as_complex(s)


# -- symbolic shapes ----------------------------------------------------------------------


def test_symbolic_shapes():
    s = SymbolicTensor((None, 3, 8))
    re, im = ops.fft((s, SymbolicTensor((2, None, 8))))
    assert re.shape == im.shape == (2, 3, 8) and re.dtype == "float32"
    assert ops.fft2((s, s))[0].shape == (None, 3, 8)
    assert ops.rfft(s)[0].shape == (None, 3, 5)
    assert ops.rfft(SymbolicTensor((2, None)))[0].shape == (2, None)
    assert ops.rfft(SymbolicTensor((2, None)), 9)[1].shape == (2, 5)
    assert ops.irfft((s, s)).shape == (None, 3, 14)
    assert ops.irfft((s, s), 5).shape == (None, 3, 5)
    assert ops.stft(SymbolicTensor((2, 20)), 8, 4, 8)[0].shape == (2, 6, 5)
    assert ops.stft(SymbolicTensor((2, 20)), 5, 2, 8, center=False)[0].shape == (2, 7, 5)
    assert ops.stft(SymbolicTensor((None, None), "float16"), 8, 4, 8)[0].shape == (None, None, 5)
    assert ops.stft(SymbolicTensor((None, None), "float16"), 8, 4, 8)[0].dtype == "float16"
    z = SymbolicTensor((2, 6, 5))
    assert ops.istft((z, z), 8, 4, 8).shape == (2, 20)
    assert ops.istft((z, z), 8, 4, 8, center=False).shape == (2, 28)
    u = SymbolicTensor((2, None, 5))
    assert ops.istft((u, u), 8, 4, 8).shape == (2, None)
    assert ops.istft((u, u), 8, 4, 8, length=17).shape == (2, 17)
    assert ops.view_as_complex(SymbolicTensor((3, None))).shape == (3,)
    assert ops.view_as_complex(SymbolicTensor((3, 2))).dtype == "complex64"
    v = ops.view_as_real(SymbolicTensor((3,), "complex64"))
    assert v.shape == (3, 2) and v.dtype == "float32"
    assert ops.view_as_real(SymbolicTensor((3,), "float16")).dtype == "float16"


def test_operation_classes():
    from polyops.ops.math import Fft, Rfft, Stft

    s = SymbolicTensor((2, 8))
    assert Fft()((s, s))[0].shape == (2, 8)
    assert Rfft(fft_length=4)(s)[0].shape == (2, 3)
    assert Stft(4, 2, 4)(s)[0].shape == (2, 5, 3)


# -- complex views -----------------------------------------------------------------------


def test_view_as_complex_and_real(backend, rng):
    x = rng.normal(size=(3, 4, 2)).astype(F32)
    with polyops.use_backend(backend):
        if not has_complex(backend):
            # explicit expected failure: openvino has no complex dtype
            with pytest.raises(TypeError, match="view_as_complex: openvino has no complex dtype"):
                ops.view_as_complex(t(x))
            with pytest.raises(TypeError, match="complex64"):
                ops.view_as_real(ops.convert_to_tensor(x[..., 0] + 1j * x[..., 1], "complex64"))
            close(to_numpy(ops.view_as_real(t(x[..., 0]))), np.stack([x[..., 0], 0 * x[..., 0]], -1))
            return
        c = ops.view_as_complex(t(x))
        assert ops.dtype(c) == "complex64" and tuple(ops.shape(c)) == (3, 4)
        got = to_numpy(c)
        np.testing.assert_allclose(got, x[..., 0] + 1j * x[..., 1], rtol=1e-6)
        back = ops.view_as_real(c)
        assert ops.dtype(back) == "float32"
        np.testing.assert_allclose(to_numpy(back), x, rtol=1e-6)
        assert ops.dtype(ops.view_as_complex(t(x, "float16"))) == "complex64"


def test_fft_under_jit():
    pytest.importorskip("jax")
    import jax

    x = np.arange(6, dtype=F32).reshape(2, 3)
    with polyops.use_backend("jax"):
        re, im = jax.jit(lambda a, b: ops.fft((a, b)))(t(x), t(x))
        want = np.fft.fft(x + 1j * x)
        close(to_numpy(re), want.real, 1e-5), close(to_numpy(im), want.imag, 1e-5)
        out = jax.jit(lambda a: ops.istft(ops.stft(a, 4, 1, 4), 4, 1, 4, length=6))(t(np.arange(6.0)))
        close(to_numpy(out), np.arange(6.0), 1e-4)
