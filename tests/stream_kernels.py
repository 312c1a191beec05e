"""Stream kernels for the RTL, simulation and hw_emu tests: the chain of
tests/data/stream_project (mm2s, square_plus, s2mm) and other mixes of streams and memory
ports, written as a kernel library on demand."""

from __future__ import annotations

from pathlib import Path

from fpgakern.spec.library import Library

STREAM_SPECS = Path(__file__).resolve().parent / "data" / "stream_project" / "kernel_specs"

# Other mixes of streams and memory than the chain's: a stream and a memory input with a
# scalar into a stream, a memory and a stream input into memory, two free-running inputs.
MIXED_SPECS = {
    "axpy_s": "inputs: [x, y]\noutputs: [out]\nstreams: [x, out]\nscalars:\n  a: 2.0\n"
              "expression: a * x + y\n",
    "add_ms": "inputs: [x, y]\noutputs: [out]\nstreams: [y]\nexpression: x + y\n",
    "mul_ff": "inputs: [a, b]\noutputs: [p]\nstreams: [a, b, p]\ncontrol: free_running\n"
              "expression: a * b\n",
}


def mixed_library(root: Path) -> Library:
    """MIXED_SPECS as a kernel library (category ``mix``) under ``root``."""
    folder = root / "kernel_specs" / "mix"
    folder.mkdir(parents=True)
    (folder / "_category.yaml").write_text("doc: Stream kernels.\ndefaults:\n"
                                           "  dtypes: [float32]\n")
    for name, body in MIXED_SPECS.items():
        (folder / f"{name}.yaml").write_text(f"kernel: {name}\ndoc: {name}.\n{body}")
    return Library(root / "kernel_specs")
