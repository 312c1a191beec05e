"""cocotb testbench: run a generated kernel on the standard cases and judge it.

Started by fpgakern.verify.rtlsim with the job in the JSON file named by FK_SIM_JOB
(the variant, the size, the memory model, its latency...: fk_host.load_job). It draws the cases from
fpgakern.verify.stimulus, runs each through the kernel as a host would (sim/fk_host.py),
compares with the numpy reference (fpgakern.verify.reference / compare) and writes one
JSON result per case to the job's ``result`` path, which the parent process reads.
"""

from __future__ import annotations

import json
import traceback
from pathlib import Path

import cocotb
import numpy as np
from fk_host import ROW_KINDS, FastMemory, Host, RamMemory, SimFailure, load_job
from fk_stream_host import StreamHost

from fpgakern.interface import interface
from fpgakern.ir import shapes
from fpgakern.ir.kernel import SHAPED_KINDS
from fpgakern.ir.ops import OPS
from fpgakern.verify import compare, spectral, stimulus
from fpgakern.verify.rtlsim import (
    MAIN_CASE,  # the case whose cycles are reported
    bank_placement,
)


def timeout_for(p, n: int, latency: int) -> int:
    """A cycle budget no correct kernel comes near: every element as a serial
    round trip to memory, with backpressure, times four."""
    trips = len(p.kernel.inputs) + 1
    return 20_000 + 4 * trips * (latency + 40) * max(n, 1) // max(p.arch.lanes, 1)


def make_memory(job: dict, p) -> FastMemory | RamMemory:
    if job["memory"] == "fast":
        bank_bytes_per_cycle, placement = bank_placement(p) or (None, None)
        return FastMemory(job["latency"], job.get("stall_permille", 0), job.get("seed", 1),
                          job.get("write_latency"), bank_bytes_per_cycle, placement)
    cus = p.placement.compute_units
    prefixes = [f"cu{i}_m_axi_{b}" for i in range(cus) for b in p.arch.bundles]
    return RamMemory(prefixes, job.get("ram_bytes", 1 << 26), job.get("backpressure", 0.0),
                     job.get("seed", 1))


def select_cases(job: dict, kernel, dtype) -> list[stimulus.Case]:
    if kernel.kind == "transform":
        cases = spectral.cases(kernel, dtype, size=job["size"], seed=job.get("seed", 0),
                               special=job.get("special", True))
        wanted = job.get("labels")
        return [c for c in cases if c.label in wanted] if wanted else cases
    if kernel.kind in ROW_KINDS:
        cases = stimulus.row_cases(kernel, dtype, size=job["size"], seed=job.get("seed", 0),
                                   special=job.get("special", True))
        wanted = job.get("labels")
        return [c for c in cases if c.label in wanted] if wanted else cases
    if kernel.kind == "broadcast":
        shape = job.get("shape")
        cases = stimulus.broadcast_cases(kernel, dtype, size=job["size"],
                                         seed=job.get("seed", 0),
                                         special=job.get("special", True),
                                         shape=tuple(shape) if shape else None)
        for n in job.get("extra_sizes") or []:
            cases += [c for c in stimulus.broadcast_cases(
                kernel, dtype, size=n, seed=job.get("seed", 0) + n, special=False)
                if c.label == "random"]
            cases[-1] = stimulus.Case(f"size_{n}", cases[-1].tensors, cases[-1].scalars)
        wanted = job.get("labels")
        return [c for c in cases if c.label in wanted] if wanted else cases
    cases = stimulus.cases(kernel, dtype, size=job["size"], seed=job.get("seed", 0),
                           special=job.get("special", True))
    wanted = job.get("labels")
    if wanted:
        cases = [c for c in cases if c.label in wanted]
    extra = job.get("extra_sizes") or []
    rng = np.random.default_rng(job.get("seed", 0) + 1)
    for n in extra:
        tensors = {x: stimulus.random_values(dtype, n, rng) for x in kernel.inputs}
        defaults = {s.name: s.default for s in kernel.scalars}
        cases.append(stimulus.Case(f"size_{n}", tensors, defaults))
    return cases


@cocotb.test()
async def run_kernel(dut) -> None:
    job, p = load_job()
    kernel, dtype = p.kernel, p.dtype
    memory = make_memory(job, p)
    host: Host | StreamHost
    if p.arch.streams:  # AxiStreamSource/Sink on the stream ports (sim/fk_stream_host.py)
        host = StreamHost(dut, p, interface(p), memory, job.get("seed", 1))
    else:
        host = Host(dut, p, interface(p), memory, p.placement.compute_units)
    host.buffer_offset = job.get("buffer_offset", 0)
    await host.reset()
    results = []
    for case in select_cases(job, kernel, dtype):
        entry: dict = {"label": case.label, "size": case.size}
        if kernel.kind in SHAPED_KINDS:  # the whole call's size arguments
            main = case.tensors[kernel.inputs[0]]
            entry["sizes"] = shapes.sizes(kernel.kind, kernel.layout, main.shape)
        try:
            timeout = timeout_for(p, case.size, job["latency"])
            if isinstance(host, StreamHost):
                # Gaps and backpressure on the streams, but for the timed case.
                host.set_pause(0.0 if case.label == MAIN_CASE else job.get("stream_pause", 0))
            if kernel.kind in ROW_KINDS:  # whole shaped tensors, rows padded and stripped
                run, actual = await host.call_rows(case.tensors, case.scalars, timeout)
            elif kernel.kind == "transform":  # rows in, rows out, each padded and stripped
                run, actual = await host.call_transform(case.tensors, case.scalars, timeout)
            else:
                run = await host.call(case.tensors, case.scalars, timeout)
                actual = combine(p, run.outputs, case.size, run.sizes, case.tensors)
            if kernel.kind in SHAPED_KINDS:
                verdict = compare.judge_shaped(kernel, dtype.name, case.tensors,
                                               case.scalars, actual)
            else:
                verdict = compare.judge(kernel, dtype.name, case, actual)
            entry.update(passed=verdict.passed, message=verdict.summary(), cycles=run.cycles,
                         wall_seconds=run.wall_seconds, cpu_seconds=run.cpu_seconds,
                         cus_used=len(run.outputs))
            if isinstance(memory, FastMemory):
                entry["ports"] = memory.port_beats()  # global-memory traffic of the case
                if memory.bank_bytes_per_cycle:
                    entry["bank_bytes"] = memory.bank_bytes()
        except SimFailure as failure:
            entry.update(passed=False, message=str(failure), cycles=None)
        except Exception as error:  # a testbench bug: report it with its traceback
            entry.update(passed=False, message=f"testbench error: {error!r}", cycles=None,
                         traceback=traceback.format_exc())
        results.append(entry)
        dut._log.info("%s n=%d: %s (%s cycles)", case.label, case.size,
                      "pass" if entry["passed"] else "FAIL", entry.get("cycles"))
        if entry.get("cycles") is None:
            break  # the kernel may be wedged: later cases would only time out too
    total = int(dut.cycle.value)
    Path(job["result"]).write_text(json.dumps({"cases": results, "total_cycles": total}))
    failed = [r for r in results if not r["passed"]]
    assert not failed, f"{len(failed)} case(s) failed; first: {failed[0]['message']}"


def combine(p, outputs: list[np.ndarray], n: int, sizes: list[int],
            tensors: dict[str, np.ndarray]) -> np.ndarray:
    """The kernel's result from the per-CU outputs: concatenated, or for a reduction the
    partial results reduced again on the host (as a multi-CU host program does). A
    reduction whose finish the host applies (mean at multi-CU rungs: arch.finish) is
    combined as the host does, by the combine op in CU order, then finished once over
    all n (the sum of the CUs' sums divided by float(n)). An index reduction's CUs each
    return an index into their share (of ``sizes`` elements): the host offsets them and
    picks among the elements they name."""
    kernel = p.kernel
    reduction = kernel.reduction
    if reduction is not None and reduction.picks is not None:
        offsets = np.cumsum([0, *sizes[:-1]])
        indices = np.array([o[0] for o in outputs], dtype=np.int64) + offsets
        return reduction.pick_among(tensors[kernel.inputs[0]][indices], indices)
    if reduction is not None and reduction.finish is not None and p.arch.finish is None:
        dtype = outputs[0].dtype
        result = outputs[0][:1].copy()
        with np.errstate(all="ignore"):
            for partial in outputs[1:]:
                result = OPS[reduction.combine].reference(result, partial[:1]).astype(dtype)
            count = np.array([n], dtype=dtype)
            return OPS[reduction.finish].reference(result, count).astype(dtype)
    if len(outputs) == 1:
        return outputs[0]
    if kernel.is_reduction:
        return kernel.reduction.reference(np.concatenate(outputs))
    return np.concatenate(outputs)
