"""The top of a kernel with AXI4-Stream ports (a spec's ``streams:``), at the dataflow
rung: ``top_stream.sv.j2``. Each input is a read engine or a stream port into a FIFO,
the output FIFO feeds a write engine or the output stream, and the compute pipeline
between them is the elementwise datapath every other kernel uses. A free-running kernel
(``control: free_running``) has no control port and runs from reset."""

from __future__ import annotations

from dataclasses import dataclass

from fpgakern.backends.rtl.top import Microarch, control_words, environment, port_column
from fpgakern.backends.templates import file_header
from fpgakern.errors import UsageError
from fpgakern.interface import SIZE_ARG, KernelInterface
from fpgakern.ladder import Plan


@dataclass(frozen=True)
class StreamPort:
    """An input or the output of a stream kernel: a stream port, or a pointer on its
    m_axi bundle."""

    name: str
    direction: str  # "in" / "out"
    stream: bool
    bundle: str | None = None  # pointers only


def check_supported(plan: Plan) -> None:
    """UsageError for stream kernels this template cannot build: it takes one element per
    beat (no lanes) of 32 bits, as the spec checks enforce (spec.schema._check_streams)."""
    if not plan.rung.dataflow or plan.arch.lanes != 1 or plan.arch.port_bits != 32:
        raise UsageError(f"{plan.kernel.qualname}: stream kernels are built at the dataflow "
                         "rung with one 32-bit element per beat")


def ports_of(plan: Plan) -> tuple[list[StreamPort], StreamPort]:
    """The kernel's inputs and its output, in C order."""
    kernel = plan.kernel

    def port(name: str, direction: str) -> StreamPort:
        if name in kernel.streams:
            return StreamPort(name, direction, True)
        return StreamPort(name, direction, False, plan.arch.bundle(name))

    return [port(x, "in") for x in kernel.inputs], port(kernel.output, "out")


def render_top(plan: Plan, iface: KernelInterface, arch: Microarch, datapath: str,
               latency: int) -> str:
    """The top module's text; ``arch`` is the rung's Microarch, ``datapath`` the name of
    the compute pipeline module, ``latency`` its cycles."""
    check_supported(plan)
    inputs, output = ports_of(plan)
    free_running = plan.kernel.free_running
    return environment().get_template("top_stream.sv.j2").render(
        header=file_header(plan, "Vitis RTL kernel", plan.rung.rtl_summary),
        top=plan.top,
        free_running=free_running,
        ctrl=None if free_running else control_words(iface),
        bundles=plan.arch.bundles,
        bundle_w={b: plan.arch.bundle_bits(b) for b in plan.arch.bundles},
        data_w=plan.arch.port_bits,
        col=port_column(plan.arch.port_bits),
        arch=arch,
        inputs=inputs,
        output=output,
        streams=[p for p in (*inputs, output) if p.stream],
        scalars=[s.name for s in plan.kernel.scalars],
        size_arg=SIZE_ARG,
        datapath=datapath,
        latency=latency,
    )
