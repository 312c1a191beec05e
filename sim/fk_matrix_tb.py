"""cocotb testbench of a contraction kernel: the RTL kernel on matrices of many shapes,
each result bit for bit against fpgakern.verify.matmul (any NaN matches any NaN).

Started by fpgakern.verify.rtlsim.simulate_contraction with the job in FK_SIM_JOB. The
cases (fpgakern.verify.matrix_cases.rtl_cases: square, tall, wide, K = 1, K = 0, K past
the 64 partials, several blocks, batched, special values) run one after the other; each
is laid out in the fast memory model as the runtime lays it out (every tensor contiguous
in its spec's index order), every compute unit started on it (unit u of units), their
interrupts waited for, the output read back and judged. One JSON record per case goes
to the job's ``result`` file, with the run's cycles.
"""

from __future__ import annotations

import json
from pathlib import Path

import cocotb
import numpy as np
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from fk_host import CLOCK_NS, POISON, FastMemory, Host, load_job, to_register

from fpgakern.interface import CONTRACTION_UNIT_ARGS, interface
from fpgakern.verify import matmul, matrix_cases


async def _wait_interrupts(dut, cus: int, cycles: int) -> bool:
    for cu in range(cus):
        line = getattr(dut, f"cu{cu}_interrupt")
        if not int(line.value):
            rose = RisingEdge(line)
            if await First(rose, Timer(cycles * CLOCK_NS, unit="ns")) is not rose:
                return False
    return True


@cocotb.test()
async def every_case(dut) -> None:
    job, p = load_job()
    kernel, dtype = p.kernel, p.dtype
    iface = interface(p)
    cus = p.placement.compute_units
    memory = FastMemory(job["latency"])
    host = Host(dut, p, iface, memory, cus)
    await host.reset()
    records = []
    wanted = job.get("labels")
    cases = (matrix_cases.rtl_cases(kernel, dtype.name) if not job.get("sizes") else
             matrix_cases.cases_of(kernel, dtype.name, [tuple(x) for x in job["sizes"]]))
    for case in cases:
        if wanted and case.label not in wanted:
            continue
        memory.reset()
        expected = matmul.contract(kernel, dtype.name, case.tensors, case.scalars)
        addresses = {}
        for name, tensor in case.tensors.items():
            data = np.ascontiguousarray(tensor, dtype=dtype.numpy)
            addresses[name] = memory.alloc(max(data.nbytes, 4), False, name)
            memory.write(addresses[name], data)
        out_bytes = max(expected.size * dtype.bytes, 4)
        addresses[kernel.output] = memory.alloc(out_bytes, True, kernel.output)
        memory.write(addresses[kernel.output], np.full(out_bytes, POISON, dtype=np.uint8))
        sizes = dict(zip(("batch", "m", "n", "k"), case.sizes, strict=True))
        start = int(dut.cycle.value)
        for cu in range(cus):
            values = {**sizes, **dict(zip(CONTRACTION_UNIT_ARGS, (cu, cus), strict=True))}
            for arg in iface.args:
                if arg.kind == "pointer":
                    await host.write_reg(cu, arg.offset, addresses[arg.name])
                    await host.write_reg(cu, arg.offset + 4, addresses[arg.name] >> 32)
                elif arg.name in case.scalars:
                    await host.write_reg(cu, arg.offset, to_register(case.scalars[arg.name],
                                                                     arg.ctype))
                else:
                    await host.write_reg(cu, arg.offset, values[arg.name])
            await host.write_reg(cu, 0x04, 1)  # GIE
            await host.write_reg(cu, 0x08, 1)  # IER: ap_done
            await host.write_reg(cu, 0x00, 1)  # ap_start
        finished = await _wait_interrupts(dut, cus, job["timeout_cycles"])
        cycles = int(dut.cycle.value) - start
        if finished:
            for cu in range(cus):
                await host.acknowledge(cu)
        got = memory.read(addresses[kernel.output], expected.size, dtype.numpy)
        want = np.ascontiguousarray(expected, dtype=dtype.numpy).ravel()
        verdict = matrix_cases.judge(want, got, kernel, dtype.name, case)
        differ = [m.index for m in verdict.mismatches]
        records.append({"label": f"{case.label} ({'x'.join(map(str, case.sizes))})",
                        "passed": bool(finished and verdict.passed), "cycles": cycles,
                        "macs": int(np.prod(case.sizes)),
                        "message": "" if finished else "no interrupt: the kernel did not finish",
                        "mismatches": verdict.mismatch_count,
                        "first_difference": (None if not differ else
                                             {"at": differ[0], "expected": repr(want[differ[0]]),
                                              "got": repr(got[differ[0]])})})
        await ClockCycles(dut.ap_clk, 4)
    Path(job["result"]).write_text(json.dumps({"cases": records}, indent=1))
    failed = [r for r in records if not r["passed"]]
    if failed:
        why = failed[0]["message"] or f"{failed[0]['mismatches']} results differ"
        raise AssertionError(f"{failed[0]['label']}: {why}")
