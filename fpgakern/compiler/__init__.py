"""fpgakern's torch.compile backend: whole models, their supported parts fused into
kernels that run on the device, the rest in torch (docs/compile.md).

``torch.compile(model, backend="fpgakern")`` finds it through the package's entry points;
``fpgakern.compiler.last_report()`` says what the last compile fused, what it left to
torch and why, and what the last call moved between host and device.
"""

from fpgakern.compiler.report import CompileReport, last_report, reports

__all__ = ["CompileReport", "last_report", "reports"]
