"""Math ops of ``keras.ops`` (flat there, as here; also `polyops.ops.math`).

* `functions`: segment reductions, top_k, in_top_k, logsumexp, cdist,
  extract_sequences, logdet, rsqrt, erf, erfc, erfinv, gammainc;
* `fft`: fft, fft2, ifft2, rfft, irfft, stft, istft (complex values as (real, imag)
  pairs of float tensors, as in Keras), view_as_complex, view_as_real.

Ops are declared as in `polyops.ops.numpy` (see its docstring).
"""

from .._lazy import attach as _attach

_attach(globals())  # names load on first use (see polyops.ops._lazy)
