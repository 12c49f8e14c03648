"""Property strategies for `polyops.ops.math.fft` (loaded by test_properties.py).

Values are finite and small and transformed axes short (<= 6): the references' float32
matrix products and the native FFTs then agree within the default float32 tolerance.
"""

from __future__ import annotations

import numpy as np

from test_properties import Case, T

# openvino has no complex dtype: view_as_complex raises TypeError there, and a complex
# input cannot even be converted.
XFAILS = {
    ("view_as_complex", "openvino"): (
        "openvino has no complex dtype: view_as_complex raises TypeError",
        Case("view_as_complex", [np.ones((2, 2), np.float32)], (T(0),)),
    ),
    ("view_as_real", "openvino"): (
        "openvino has no complex dtype: complex input cannot be converted (TypeError)",
        Case("view_as_real", [np.array([1 + 2j], np.complex64)], (T(0),)),
    ),
}


def strategies() -> dict:
    """{op name: hypothesis strategy of Case} for the ops of this group."""
    from hypothesis import strategies as st

    from test_properties import FLOATS, Dom, arrays, shapes

    SMALL = Dom(lo=-2, hi=2, specials=False)

    @st.composite
    def pair(draw, name, min_rank=1, kwargs_of=None):
        dtype = draw(st.sampled_from(FLOATS))
        batch = draw(shapes(max_rank=2, max_side=3))
        last = tuple(draw(st.integers(1, 5)) for _ in range(min_rank))
        shape = tuple(batch) + last
        re = draw(arrays(dtype, shape, SMALL))
        im = draw(arrays(dtype, shape, SMALL))
        kwargs = kwargs_of(draw, shape) if kwargs_of else {}
        return Case(name, [re, im], ((T(0), T(1)),), kwargs)

    def fft_length(lo):
        def draw_kwargs(draw, shape):
            return {"fft_length": draw(st.integers(lo, 6))} if draw(st.booleans()) else {}
        return draw_kwargs

    @st.composite
    def rfft_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = tuple(draw(shapes(max_rank=2, max_side=3))) + (draw(st.integers(1, 6)),)
        x = draw(arrays(dtype, shape, SMALL))
        kwargs = {"fft_length": draw(st.integers(1, 6))} if draw(st.booleans()) else {}
        return Case("rfft", [x], (T(0),), kwargs)

    @st.composite
    def irfft_case(draw):
        case = draw(pair("irfft", kwargs_of=fft_length(1)))
        if case.arrays[0].shape[-1] < 2 and "fft_length" not in case.kwargs:
            case.kwargs["fft_length"] = 2
        return case

    @st.composite
    def stft_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        fft_len = draw(st.integers(1, 5))
        seq = draw(st.integers(1, fft_len))
        stride = draw(st.integers(1, 3))
        center = draw(st.booleans())
        n = draw(st.integers(max(1, fft_len // 2 + 1) if center else fft_len, 8))
        shape = tuple(draw(shapes(max_rank=1, max_side=2))) + (n,)
        x = draw(arrays(dtype, shape, SMALL))
        window = draw(st.sampled_from(("hann", "hamming", None, "tensor")))
        if window == "tensor":
            window = np.linspace(0.5, 1.0, seq).astype(np.float32)
        return Case("stft", [x], (T(0), seq, stride, fft_len),
                    {"window": window, "center": center})

    @st.composite
    def istft_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        fft_len = draw(st.integers(2, 5))
        seq = draw(st.integers(1, fft_len))
        stride = draw(st.integers(1, fft_len))
        frames = draw(st.integers(1, 3))
        center = draw(st.booleans())
        if center and (frames - 1) * stride + fft_len < 2 * (fft_len // 2):
            frames += 1
        shape = tuple(draw(shapes(max_rank=1, max_side=2))) + (frames, fft_len // 2 + 1)
        re = draw(arrays(dtype, shape, SMALL))
        im = draw(arrays(dtype, shape, SMALL))
        kwargs = {"window": draw(st.sampled_from(("hann", "hamming", None))), "center": center}
        if draw(st.booleans()):
            kwargs["length"] = draw(st.integers(0, 6))
        return Case("istft", [re, im], ((T(0), T(1)), seq, stride, fft_len), kwargs)

    @st.composite
    def view_as_complex_case(draw):
        dtype = draw(st.sampled_from(FLOATS))
        shape = tuple(draw(shapes(max_rank=2))) + (2,)
        return Case("view_as_complex", [draw(arrays(dtype, shape, SMALL))], (T(0),))

    @st.composite
    def view_as_real_case(draw):
        shape = draw(shapes(max_rank=2))
        re = draw(arrays("float32", shape, SMALL))
        im = draw(arrays("float32", shape, SMALL))
        return Case("view_as_real", [(re + 1j * im).astype(np.complex64)], (T(0),))

    return {
        "fft": pair("fft"),
        "fft2": pair("fft2", min_rank=2),
        "ifft2": pair("ifft2", min_rank=2),
        "rfft": rfft_case(),
        "irfft": irfft_case(),
        "stft": stft_case(),
        "istft": istft_case(),
        "view_as_complex": view_as_complex_case(),
        "view_as_real": view_as_real_case(),
    }
