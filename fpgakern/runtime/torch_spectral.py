"""torch signatures of the spectral kernels (spectral_ops): how a call of ``torch.fft.fft``
(ifft, rfft, irfft) maps onto the transform kernel's input, ``n`` and ``norm``.

The kernel transforms the last dimension, lengths that are powers of two from 8 to
65536, complex64 (rfft: float32). What it does not cover falls back to torch with the
reason: another ``dim``, another length, another dtype, an unknown norm (torch raises
there itself). fft and ifft take real float32 input as torch does, as complex64 with
zero imaginary parts (an exact conversion); irfft likewise.
"""

from __future__ import annotations

from typing import Any

import torch

from fpgakern.ir import fft
from fpgakern.runtime.torch_shaped import Bound, Signature, signature

_SCHEMA = "Tensor input, SymInt? n=None, int dim=-1, str? norm=None"
# The input dtype each transform's kernel takes, and the dtypes converted to it exactly.
_TAKES = {"fft": (torch.complex64, (torch.float32,)),
          "ifft": (torch.complex64, (torch.float32,)),
          "rfft": (torch.float32, ()),
          "irfft": (torch.complex64, (torch.float32,))}


def _binder(transform: fft.Transform) -> Any:
    takes, converts = _TAKES[transform]

    def bind(a: dict[str, Any]) -> Bound | str:
        x: torch.Tensor = a["input"]
        if x.dtype != takes and x.dtype not in converts:
            return f"input is {x.dtype}; the kernel takes {takes}"
        if x.device.type != "cpu":
            return "input is not in host memory"
        if x.dim() == 0:
            return "a 0-d input has no dimension to transform"
        if a["dim"] not in (-1, x.dim() - 1):
            return f"dim={a['dim']}: the kernel transforms the last dimension (-1)"
        n = a["n"]
        if n is None:
            n = fft.default_length(transform, x.shape[-1])
        try:
            fft.check_length(int(n))
        except ValueError as err:
            return str(err)
        if a["norm"] not in (None, *fft.NORMS):
            return f"norm={a['norm']!r} is not one of {', '.join(fft.NORMS)}"
        return (x.to(takes),), {"n": int(n), "norm": a["norm"]}

    return bind


SIGNATURES: dict[str, Signature] = {
    f"torch.fft.{t}": signature(_SCHEMA, _binder(t)) for t in fft.TRANSFORMS
}
