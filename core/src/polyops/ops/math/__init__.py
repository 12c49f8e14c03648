"""Math ops of ``keras.ops`` (flat there, as here; also `polyops.ops.math`).

* `functions`: segment reductions, top_k, in_top_k, logsumexp, cdist,
  extract_sequences, logdet, rsqrt, erf, erfc, erfinv, gammainc;
* `fft`: fft, fft2, ifft2, rfft, irfft, stft, istft (complex values as (real, imag)
  pairs of float tensors, as in Keras), view_as_complex, view_as_real.

Ops are declared as in `polyops.ops.numpy` (see its docstring).  The import order
below fixes the op indices.
"""

from . import functions, fft  # noqa: F401
from . import fft as _fft  # (the module: ``fft`` the function shadows it below)
from .functions import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += functions.__all__
__all__ += _fft.__all__
