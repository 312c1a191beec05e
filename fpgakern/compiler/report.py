"""What a compile did, as torch._dynamo.explain says it: kernels, nodes left out, and why.

Plain text, one fact a line, so that it reads the same in a terminal and in a CI log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fpgakern.errors import display_path

if TYPE_CHECKING:
    from fpgakern.compiler.program import CallStats, CompiledGraph


@dataclass(frozen=True)
class KernelEntry:
    qualname: str
    kind: str
    nodes: tuple[str, ...]  # fx node names, the result last
    inputs: tuple[str, ...]  # the tensors it reads, by fx node name
    spec: Path
    problem: str | None = None  # why it does not run (its nodes then run in torch)


@dataclass(frozen=True)
class LeftOut:
    node: str
    op: str
    reason: str


@dataclass
class CompileReport:
    target: str
    rung: int
    cache: Path
    graph_nodes: int  # operator calls in the graph
    partitions: int = 0
    kernels: list[KernelEntry] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    tasks_run: int = 0
    tasks_cached: int = 0
    build_reports: Path | None = None
    seconds: float = 0.0
    graph: CompiledGraph | None = None

    @property
    def running(self) -> list[KernelEntry]:
        return [k for k in self.kernels if k.problem is None]

    @property
    def last_call(self) -> CallStats | None:
        return self.graph.last_call if self.graph is not None else None

    def lines(self) -> list[str]:
        matrices = sum(k.kind == "contraction" for k in self.running)
        library = f", {matrices} matrix kernel(s) of the library" if matrices else ""
        out = [f"fpgakern compile: {self.graph_nodes} operator node(s) on {self.target}, "
               f"rung {self.rung}, in {self.seconds:.1f} s",
               f"  {len(self.running) - matrices} fused kernel(s) from {self.partitions} "
               f"partition(s){library}; build: {self.tasks_run} task(s) run, "
               f"{self.tasks_cached} cached" + (f" (reports: {display_path(self.build_reports)})"
                                                if self.build_reports else "")]
        for k in self.kernels:
            state = "" if k.problem is None else f"  NOT RUN: {k.problem}"
            out.append(f"  kernel {k.qualname} ({k.kind}): {' '.join(k.nodes)} "
                       f"<- {' '.join(k.inputs)}{state}")
            out.append(f"    spec {display_path(k.spec)}")
        out.append(f"  {len(self.left_out)} node(s) left to torch:")
        out += [f"    {x.node} ({x.op}): {x.reason}" for x in self.left_out]
        call = self.last_call
        if call is not None:
            cycles = f", {call.cycles} cycles" if call.cycles is not None else ""
            out.append(f"  last call: {call.kernel_calls} kernel run(s){cycles}; "
                       f"transfers {call.transfers}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


_reports: list[CompileReport] = []


def add(report: CompileReport) -> None:
    _reports.append(report)


def reports() -> list[CompileReport]:
    """Every graph compiled in this process, oldest first."""
    return list(_reports)


def last_report() -> CompileReport | None:
    return _reports[-1] if _reports else None
