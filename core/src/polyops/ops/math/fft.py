"""Fourier transforms as (real, imag) pairs: fft, fft2, ifft2, rfft, irfft, stft, istft; view_as_complex/view_as_real.

Part of `polyops.ops.math`; see that package's docstring for how an op is declared.
"""

from __future__ import annotations

from .._base import exports as _exports  # noqa: E402

__all__ = _exports(globals(), "math")
