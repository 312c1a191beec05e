"""Judge runtime results against the numpy oracle (the same references and accuracy
classes as C simulation), for ``fpgakern run`` and the tests."""

from __future__ import annotations

import numpy as np

from fpgakern.ir.dtypes import DTYPES
from fpgakern.runtime.device import KernelHandle
from fpgakern.verify import compare
from fpgakern.verify.stimulus import Case


def run_case(handle: KernelHandle, dtype: str, case: Case) -> compare.Verdict:
    """Call ``handle`` on ``case`` and compare with the reference."""
    kernel = handle.kernel
    arrays = [np.ascontiguousarray(case.tensors[name], dtype=DTYPES[dtype].numpy)
              for name in kernel.inputs]
    actual = np.atleast_1d(handle(*arrays, **case.scalars))
    return compare.judge(kernel, dtype, case, actual)
