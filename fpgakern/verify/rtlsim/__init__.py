"""RTL simulation of generated kernels: Verilator through cocotb, judged against numpy.

``simulate(plan)`` generates the variant's RTL (fpgakern.backends.rtl), or
takes the files a build's ``rtl`` step wrote (``rtl_files=``), wraps it with N compute
units and a memory model (``wrapper``), builds it once per content hash (``build``), runs
the cocotb testbench ``sim/fk_kernel_tb.py`` on the standard cases (``run``) and returns a
:class:`SimResult`. docs/sim.md explains the memory models and how cycles are counted.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from fpgakern import paths
from fpgakern.errors import ToolError, UsageError
from fpgakern.ladder import RUNGS, Plan, Rung
from fpgakern.verify.rtlsim.models import Model, build, code_text, wave_format
from fpgakern.verify.rtlsim.run import TestOutcome, run_cocotb_tests, run_test
from fpgakern.verify.rtlsim.wrapper import Memory, hier_config, public_config, render

__all__ = ["DEFAULT_LATENCY", "SimResult", "TestOutcome", "bank_placement", "build_model",
           "regmap_tests", "simulate", "simulate_contraction", "simulate_registers"]

DEFAULT_LATENCY = 64  # cycles, like DDR behind the platform interconnect
# Up to this many elements per case, models are compiled for build speed (g++ -O0): a
# few hundred thousand cycles take less time to simulate than -O2 takes to compile.
QUICK_BUILD_MAX_SIZE = 16384
MAIN_CASE = "random"
# From this many compute units on, a model verilates one CU as a hierarchical block and
# instantiates it N times: its C++ (and compile time) then stays one CU's, where inlined
# CUs grow it by one kernel each (10 rung-4 add CUs: 318,000 lines of C++).
HIER_MIN_CUS = 5  # the case whose cycles are reported
# Stream kernels: the probability of a gap (source) or of backpressure (sink) per cycle on
# every stream port, in the untimed cases.
STREAM_PAUSE = 0.25


@dataclass
class SimResult:
    """One kernel x rung x dtype simulated on its cases."""

    kernel: str
    rung: int
    dtype: str
    size: int
    memory: str
    passed: bool | None  # None: skipped (see ``skipped``)
    cycles: int | None = None
    elements_per_cycle: float | None = None
    ideal_elements_per_cycle: float | None = None
    sim_cycles_per_second: float | None = None  # simulated cycles per wall-clock second
    sim_cycles_per_cpu_second: float | None = None  # same, per second of CPU time
    message: str = ""  # verdict of the main case, or the first failure, or why skipped
    skipped: str | None = None
    waves: Path | None = None
    log: Path | None = None
    cases: list[dict[str, Any]] = field(default_factory=list)
    build_seconds: float = 0.0
    build_cached: bool = False
    # The memory system simulated (None: no bandwidth limit) and what bounds the ideal.
    platform: str | None = None
    bank_per_port: bool = False
    compute_units: int = 1
    compute_elements_per_cycle: float | None = None
    memory_elements_per_cycle: float | None = None
    roofline_elements_per_cycle: float | None = None

    @property
    def status(self) -> str:
        return "skipped" if self.passed is None else "passed" if self.passed else "failed"

    @property
    def percent_of_ideal(self) -> float | None:
        if not self.elements_per_cycle or not self.ideal_elements_per_cycle:
            return None
        return 100.0 * self.elements_per_cycle / self.ideal_elements_per_cycle

    @property
    def percent_of_roofline(self) -> float | None:
        """The measured rate against the platform's memory roofline (all its banks)."""
        if not self.elements_per_cycle or not self.roofline_elements_per_cycle:
            return None
        return 100.0 * self.elements_per_cycle / self.roofline_elements_per_cycle

    def to_json(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "rung": self.rung,
            "dtype": self.dtype,
            "size": self.size,
            "passed": self.passed,
            "cycles": self.cycles,
            "elements_per_cycle": self.elements_per_cycle,
            "ideal_elements_per_cycle": self.ideal_elements_per_cycle,
            "sim_cycles_per_second": self.sim_cycles_per_second,
            "status": self.status,
            "memory": self.memory,
            "platform": self.platform,
            "bank_per_port": self.bank_per_port,
            "compute_units": self.compute_units,
            "compute_elements_per_cycle": self.compute_elements_per_cycle,
            "memory_elements_per_cycle": self.memory_elements_per_cycle,
            "roofline_elements_per_cycle": self.roofline_elements_per_cycle,
            "message": self.message,
            "waves": str(self.waves) if self.waves else None,
        }


def build_model(p: Plan, memory: Memory, *, waves: bool = False,
                cus: int | None = None, speed: str = "fast",
                rtl_files: Sequence[Path] | None = None) -> Model:
    """Build ``p``'s RTL with its wrapper (cached by content).

    ``rtl_files`` are the kernel's sources in compile order as the build's ``rtl`` step
    wrote them (``rtl/filelist.f``); without them the RTL is generated afresh.

    Quick builds of a multi-CU rung and the rung it replicates (:func:`replicated_rung`:
    rung 3 is the rung-2 kernel as N compute units) share one model when the two rungs'
    generated RTL is the same apart from comments: the N-CU model runs a single-CU call
    on its first CU. Fast builds stay separate, since idle
    CUs still cost simulation time every cycle.

    Raises NoRtlOperator (a ToolError) when an op has no RTL operator yet, UsageError
    when the RTL backend does not support the kernel.
    """
    from fpgakern.backends.rtl.generate import generate

    source = p
    if cus is None and speed == "quick":
        shared = _shared_multi_cu_model(p)
        if shared is not None:
            source, cus = shared
    cus = cus or p.placement.compute_units
    hier = _hierarchical(cus, memory)
    config = public_config() + (hier_config() if hier else "")
    bundles = {b: source.arch.bundle_bits(b) for b in source.arch.bundles}
    # Named after the rung whose model it is; with given files the key (which ignores
    # comments) still lets the rung-2 and rung-3 files of one build share the model.
    name = f"{p.top}-opt{source.rung.index}-{memory}-{cus}cu"
    if rtl_files is not None:
        files = [Path(f) for f in rtl_files]
        top_file = next((f for f in files if f.name == f"{p.top}.sv"), None)
        if top_file is None:
            raise ToolError(f"the RTL files of {p.top} lack {p.top}.sv")
        wrapper_text = render(p.top, top_file, bundles, cus, memory, hier=hier)
        return build(name, files, wrapper_text, config, waves=waves, speed=speed,
                     hierarchical=hier)
    with tempfile.TemporaryDirectory(prefix="fk-rtl-") as tmp:
        rtl = generate(source, Path(tmp))
        top_file = next(f for f in rtl.files if f.name == f"{rtl.top}.sv")
        wrapper_text = render(rtl.top, top_file, bundles, cus, memory, hier=hier)
        return build(name, rtl.files, wrapper_text, config, waves=waves, speed=speed,
                     hierarchical=hier)


def _hierarchical(cus: int, memory: Memory) -> bool:
    """Whether a model verilates its CU once, as a hierarchical block, rather than
    inlining N copies of it: from HIER_MIN_CUS compute units on (docs/sim.md)."""
    return memory == "fast" and cus >= HIER_MIN_CUS


# The fields of a Rung that name it, and the one that replicates its kernel as compute
# units: everything else describes what one compute unit is.
_NAME_FIELDS = frozenset({"index", "name", "summary", "rtl_summary"})


def _one_cu_shape(r: Rung) -> tuple[object, ...]:
    return tuple(getattr(r, f.name) for f in fields(r)
                 if f.name not in _NAME_FIELDS and f.name != "multi_cu")


def replicated_rung(r: Rung) -> Rung | None:
    """The single-CU rung whose kernel the multi-CU rung ``r`` instantiates N times (the
    one that differs from ``r`` only in name and ``multi_cu``), or None."""
    if not r.multi_cu:
        return None
    return next((base for base in RUNGS
                 if not base.multi_cu and _one_cu_shape(base) == _one_cu_shape(r)), None)


def _shared_multi_cu_model(p: Plan) -> tuple[Plan, int] | None:
    """The plan to build and its CU count when one model runs both ``p``'s rung and its
    multi-CU partner (a multi-CU rung and the rung it replicates, rungs 3 and 2): if the
    kernel has both and they generate the same RTL apart from comments."""
    from fpgakern.backends.rtl.generate import generate

    pair = next(((base, multi) for multi in RUNGS
                 if (base := replicated_rung(multi)) is not None and p.rung in (base, multi)),
                None)
    if pair is None or not {pair[0].index, pair[1].index} <= set(p.kernel.rungs):
        return None
    one, many = (Plan(p.kernel, replace(p.variant, rung=r.index)) for r in pair)
    if one.arch.bundles != many.arch.bundles or one.arch.port_bits != many.arch.port_bits:
        return None
    with tempfile.TemporaryDirectory(prefix="fk-rtl-") as tmp:
        texts = []
        for q in (one, many):
            rtl = generate(q, Path(tmp) / str(q.rung.index))
            generated = sorted(f for f in rtl.files if Path(tmp) in f.parents)
            texts.append([(f.name, code_text(f.read_text())) for f in generated])
    return (one, many.placement.compute_units) if texts[0] == texts[1] else None


def run_dir_for(p: Plan, memory: str) -> Path:
    return p.variant_dir(paths.build_dir()) / f"sim-{memory}"


def simulate(
    p: Plan,
    *,
    size: int = 1000,
    memory: Memory = "fast",
    latency: int = DEFAULT_LATENCY,
    write_latency: int | None = None,
    waves: bool = False,
    special: bool = True,
    labels: list[str] | None = None,
    extra_sizes: list[int] | None = None,
    backpressure: float = 0.0,
    stall_permille: int = 0,
    buffer_offset: int = 0,
    seed: int = 1,
    run_dir: Path | None = None,
    timeout: float = 3600.0,
    build_speed: str = "auto",
    rtl_files: Sequence[Path] | None = None,
    shape: tuple[int, ...] | None = None,
    stream_pause: float = STREAM_PAUSE,
) -> SimResult:
    """Simulate the variant of ``p`` on the standard cases of ``size`` elements.

    ``latency`` is the fast model's read latency (AR handshake to first R beat) and, unless
    ``write_latency`` says otherwise, its write-response latency (last W beat to B).

    ``labels`` keeps only those stimulus cases; ``extra_sizes`` adds random cases;
    ``backpressure`` (AxiRam: pause probability per channel and cycle) and
    ``stall_permille`` (fast model) add random stalls on every AXI channel;
    ``buffer_offset`` starts every buffer that many bytes into a 4 KiB page;
    ``build_speed`` is "quick" (g++ -O0), "fast" (-O2) or "auto" (quick up to
    QUICK_BUILD_MAX_SIZE elements); ``rtl_files`` simulates those sources (the build's
    ``rtl/`` folder, in ``filelist.f`` order) instead of generating the RTL.

    A variant placed on a memory system (``Variant.memory``, ``Platform.memory_system()``)
    gives the fast model's ports banks with the platform's bandwidth, placed as the plan
    places them (each CU on its bank, or with ``bank_per_port`` each port on its own);
    without one memory has no bandwidth limit, except at rung 5, which is sized for and
    simulated on the default platform's.

    ``shape``: the main tensor's shape in a shaped kernel's ``random`` case (default: one
    of about ``size`` elements, stimulus.broadcast_shape).

    ``stream_pause``: a stream kernel's AxiStreamSource leaves a cycle without a beat, and
    its AxiStreamSink without TREADY, with this probability in every case but the timed
    one (MAIN_CASE), which runs its streams at full rate (sim/fk_stream_host.py).
    """
    if p.kernel.kind == "contraction":  # matrices, not elements (fk_matrix_tb)
        return simulate_contraction(p, run_dir=run_dir, rtl_files=rtl_files, latency=latency)
    if p.kernel.kind == "registers":  # scalars through its mailbox (fk_mailbox_tb)
        return simulate_registers(p, run_dir=run_dir, rtl_files=rtl_files)
    variant, placement, performance = p.variant, p.placement, p.performance
    result = SimResult(variant.kernel, variant.rung, variant.dtype, size, memory, passed=None,
                       ideal_elements_per_cycle=performance.ideal_elements_per_cycle,
                       platform=(placement.memory.platform
                                 if placement.memory and placement.memory.limited else None),
                       bank_per_port=placement.bank_per_port,
                       compute_units=placement.compute_units,
                       compute_elements_per_cycle=performance.compute_elements_per_cycle,
                       memory_elements_per_cycle=performance.memory_elements_per_cycle,
                       roofline_elements_per_cycle=performance.roofline_elements_per_cycle)
    from fpgakern.backends.rtl.schedule import NoRtlOperator

    try:
        largest = max([size, *(extra_sizes or [])])
        speed = build_speed if build_speed != "auto" else (
            "quick" if largest <= QUICK_BUILD_MAX_SIZE else "fast")
        model = build_model(p, memory, waves=waves, speed=speed, rtl_files=rtl_files)
    except (NoRtlOperator, UsageError) as error:  # the RTL backend cannot build it (yet)
        result.skipped = result.message = str(error)
        return result
    result.build_seconds, result.build_cached = model.seconds, model.cached
    folder = run_dir or run_dir_for(p, memory)
    wave_file = folder / f"waves.{wave_format()}" if waves else None
    job = testbench_job(
        p,
        size=size,
        memory=memory,
        latency=latency,
        write_latency=latency if write_latency is None else write_latency,
        special=special,
        labels=labels,
        extra_sizes=extra_sizes or [],
        backpressure=backpressure,
        stall_permille=stall_permille,
        buffer_offset=buffer_offset,
        seed=seed,
        shape=list(shape) if shape else None,
        stream_pause=stream_pause,
    )
    data, log = run_test(model, "fk_kernel_tb", job, folder, waves=wave_file, timeout=timeout)
    result.log = folder / "sim.log"
    result.waves = wave_file if wave_file and wave_file.exists() else None
    if data is None:
        result.passed = False
        result.message = "simulation ended without a result: " + _log_tail(log)
        return result
    result = _summarize(result, data["cases"], size)
    main = next((c for c in result.cases if c["label"] == MAIN_CASE), None)
    if main and main.get("sizes"):  # a broadcast kernel's ideal depends on its channels
        result.ideal_elements_per_cycle = p.performance.ideal_for(main["sizes"])
    return result


def testbench_job(p: Plan, **options: Any) -> dict[str, Any]:
    """The job file of a testbench in ``sim/`` (read by ``fk_host.load_job``): where the
    specs are, the variant in its serialized form, and the testbench's ``options``."""
    # Absolute: the simulation runs in its own folder.
    specs = str(p.kernel.source.parent.parent.resolve())
    return {"specs": specs, "variant": p.variant.to_json(), **options}


def bank_placement(p: Plan) -> tuple[list[float], dict[str, int]] | None:
    """The fast memory model's banks for ``p``: each bank's bytes per cycle (0: no limit)
    and each port's bank, by its name in the model (``cu0.gmem1``); None without a memory
    system with bandwidth figures (a build's rungs below 5 are placed on the platform for
    their generated files, and simulated without a bandwidth limit)."""
    placement = p.placement
    if placement.memory is None or not placement.memory.limited:
        return None
    banks = {f"cu{cu}.{p.arch.bundle(pointer)}": placement.port_bank(cu, pointer)
             for cu in range(placement.compute_units) for pointer in p.arch.pointers}
    return [b or 0.0 for b in placement.memory.bytes_per_cycle], banks


def _summarize(result: SimResult, cases: list[dict[str, Any]], size: int) -> SimResult:
    result.cases = cases
    failed = [c for c in cases if not c["passed"]]
    result.passed = bool(cases) and not failed
    main = next((c for c in cases if c["label"] == MAIN_CASE), cases[0] if cases else None)
    if main and main.get("cycles"):
        result.cycles = main["cycles"]
        result.elements_per_cycle = main["size"] / main["cycles"]
    timed = [c for c in cases if c.get("cycles") and c.get("wall_seconds")]
    if timed:
        cycles = sum(c["cycles"] for c in timed)
        wall = sum(c["wall_seconds"] for c in timed)
        cpu = sum(c["cpu_seconds"] for c in timed)
        result.sim_cycles_per_second = cycles / wall if wall > 0 else None
        result.sim_cycles_per_cpu_second = cycles / cpu if cpu > 0 else None
    if failed:
        first = failed[0]
        result.message = f"{first['label']} (n={first['size']}): {first['message']}"
    elif main:
        result.message = main["message"]
    return result


def _log_tail(log: str, lines: int = 15) -> str:
    keep = [ln for ln in log.strip().splitlines() if ln.strip()]
    return "\n".join(keep[-lines:])


def simulate_registers(p: Plan, *, run_dir: Path | None = None,
                       rtl_files: Sequence[Path] | None = None) -> SimResult:
    """A register kernel's simulation (sim/fk_mailbox_tb.py): its runs, its counter and
    its mailboxes, every case of fpgakern.verify.registers held to the reference. It
    moves no elements: no cycles or rate are reported."""
    variant = p.variant
    result = SimResult(variant.kernel, variant.rung, variant.dtype, 0, "fast", passed=None)
    model = build_model(p, "fast", speed="quick", rtl_files=rtl_files)
    result.build_seconds, result.build_cached = model.seconds, model.cached
    folder = run_dir or run_dir_for(p, "fast")
    outcomes, log = run_cocotb_tests(model, "fk_mailbox_tb", testbench_job(p), folder)
    result.log = folder / "sim.log"
    result.cases = [{"label": o.name, "passed": o.passed, "message": o.message}
                    for o in outcomes]
    failed = [o for o in outcomes if not o.passed]
    result.passed = bool(outcomes) and not failed
    if not outcomes:
        result.message = "simulation ended without a result: " + _log_tail(log)
    elif failed:
        result.message = f"{failed[0].name}: {failed[0].message}"
    else:
        result.message = f"{len(outcomes)} mailbox tests passed"
    return result


def simulate_contraction(p: Plan, *, run_dir: Path | None = None,
                         rtl_files: Sequence[Path] | None = None,
                         latency: int = DEFAULT_LATENCY, labels: list[str] | None = None,
                         sizes: list[tuple[str, int, int, int, int]] | None = None,
                         timeout_cycles: int = 50_000_000) -> SimResult:
    """A contraction kernel's simulation (sim/fk_matrix_tb.py): every case of
    fpgakern.verify.matrix_cases.rtl_cases bit for bit against the reference, on every CU
    of the plan; the cycles and multiply-accumulates per cycle of the largest case."""
    from fpgakern.backends.rtl.contraction import ideal_macs_per_cycle

    variant = p.variant
    result = SimResult(variant.kernel, variant.rung, variant.dtype, 0, "fast", passed=None,
                       compute_units=p.placement.compute_units)
    try:
        model = build_model(p, "fast", speed="quick", rtl_files=rtl_files)
    except UsageError as error:
        result.skipped = result.message = str(error)
        return result
    result.build_seconds, result.build_cached = model.seconds, model.cached
    folder = run_dir or run_dir_for(p, "fast")
    job = testbench_job(p, latency=latency, timeout_cycles=timeout_cycles, labels=labels,
                        sizes=sizes)
    data, log = run_test(model, "fk_matrix_tb", job, folder)
    result.log = folder / "sim.log"
    if data is None:
        result.passed = False
        result.message = "simulation ended without a result: " + _log_tail(log)
        return result
    result.cases = data["cases"]
    failed = [c for c in result.cases if not c["passed"]]
    result.passed = not failed
    largest = max(result.cases, key=lambda c: c["macs"])
    result.cycles = largest["cycles"]
    result.size = largest["macs"]
    result.elements_per_cycle = largest["macs"] / max(largest["cycles"], 1)
    result.ideal_elements_per_cycle = ideal_macs_per_cycle(p)
    if failed:
        first = failed[0]
        why = first["message"] or f"{first['mismatches']} results differ"
        result.message = f"{first['label']}: {why}"
    else:
        result.message = (f"{len(result.cases)} cases bit for bit; {largest['label']}: "
                          f"{largest['cycles']} cycles, {result.elements_per_cycle:.3f} MACs/cycle")
    return result


def regmap_tests(p: Plan, *, latency: int = DEFAULT_LATENCY,
                 run_dir: Path | None = None) -> tuple[list[TestOutcome], str]:
    """Run the register-map tests (sim/fk_regmap_tb.py) on the variant of ``p``."""
    model = build_model(p, "fast", speed="quick")
    job = testbench_job(p, latency=latency)
    folder = run_dir or run_dir_for(p, "fast").with_name("sim-regmap")
    return run_cocotb_tests(model, "fk_regmap_tb", job, folder)
