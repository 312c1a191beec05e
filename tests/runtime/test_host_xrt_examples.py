"""XRT native-API host programs of our own, written the way AMD's published examples are
(tests/runtime/hosts/: ``xrt::device(0)``, ``load_xclbin``, ``xrt::kernel(device, uuid,
name)``, ``group_id``, ``xrt::bo``, ``map``, ``sync``, ``kernel(args...)``, ``run.wait()``),
built with -Wall -Wextra -Werror against fpgakern's XRT emulation and run on sw_emu and
hw_emu with no fpgakern-specific line: they ask for the kernel ``vadd`` with arguments
``in1, in2, out, size``, as AMD's examples do. Also XRT's memory rules as the emulation
keeps them (hosts/memory_rules.cpp): group_id of bank ranges and of CUs on other banks,
buffers in any bank of a range, a run on a CU its buffers fit, XRT's warning and local
copy when none fits, run.wait(timeout), an xclbin for another target refused,
emconfig.json. And a stream chain (hosts/stream_chain.cpp, hosts/stream_rules.cpp): a
memory-read kernel and a memory-write kernel around a free-running kernel, joined by the
link's stream_connect lines (tests/data/stream_project's stream_ops). And a register
kernel started once with xrt::autostart and fed through xrt::mailbox (hosts/mailbox.cpp).

The kernel is the hello project's ``hello/vadd`` (tests/data/hello_project: ``top: vadd``,
int32, ``out = in1 + in2``, args ``in1, in2, out, n``: the host's ``size`` goes to ``n`` by
position) at rung 4 (one CU), and at rung 3 (4 CUs); the link configs give it 4 CUs (nk=)
and place its arguments (sp=), as a Vitis user's link config does.
"""

from __future__ import annotations

import json
import shutil
import signal
import struct
import subprocess
from pathlib import Path

import pytest
from runtime_support import emulation_env

from fpgakern import runtime
from fpgakern.errors import UsageError
from fpgakern.link import axlf, config, linker, platforms, resolve, xclbin
from fpgakern.link.sections import Connection, MemData, decode, encode
from fpgakern.runtime import emu
from fpgakern.spec.library import Library

HOSTS = Path(__file__).parent / "hosts"
HELLO = Path(__file__).parents[1] / "data" / "hello_project"
KERNEL = "hello/vadd@opt4:int32"
TARGETS = ("sw_emu", "hw_emu")
PROGRAMS = {
    "hello_vadd": ["hello_vadd.cpp"],
    "multi_cu": ["multi_cu.cpp"],
    "hbm_ranges": ["hbm_ranges.cpp"],
    "copy_host_only": ["copy_host_only.cpp"],
    "device_info": ["device_info.cpp", "report.cpp"],  # two sources
    "memory_rules": ["memory_rules.cpp"],
    "queue_pipeline": ["queue_pipeline.cpp"],
    "stream_chain": ["stream_chain.cpp"],
    "stream_rules": ["stream_rules.cpp"],
}

FOUR_CUS = "[connectivity]\nnk=vadd:4\n"
ALL_ON_DDR0 = "".join(f"sp=vadd_{i}.{arg}:DDR[0]\n" for i in range(1, 5)
                      for arg in ("in1", "in2", "out"))
ONE_BANK = FOUR_CUS + ALL_ON_DDR0
HBM = ("[connectivity]\nsp=vadd_1.in1:HBM[0:3]\nsp=vadd_1.in2:HBM[4:7]\n"
       "sp=vadd_1.out:HBM[8:11]\n")


@pytest.fixture(scope="module")
def hello(tmp_path_factory) -> Path:
    """A copy of the hello project (as tests/test_top_key.py links it): nothing the tests
    make lands in the repository's copy."""
    root = tmp_path_factory.mktemp("hello") / "hello_project"
    shutil.copytree(HELLO, root)
    return root


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("xrt_hosts")
    return {name: emu.compile_host([HOSTS / s for s in sources], folder / name)
            for name, sources in PROGRAMS.items()}


_links: dict[tuple[str, str, str], dict[str, Path]] = {}


def linked(tmp_path_factory, hello: Path, name: str, platform: str = "u250", cfg: str = "",
           kernel: str = KERNEL) -> dict[str, Path]:
    """``kernel`` of the ``hello`` project linked for ``platform`` with link config
    ``cfg``, once per emulation target (``{target: xclbin}``), its models prepared for
    both targets."""
    key = (platform, cfg, kernel)
    if key not in _links:
        folder = tmp_path_factory.mktemp(name)
        specs = hello / "kernel_specs"
        inputs = resolve.resolve([kernel], Library(specs), folder / "build")
        paths = {}
        for target in TARGETS:
            design = linker.link(inputs, platforms.load(platform),
                                 config.parse(cfg, f"{name}.cfg") if cfg else None, target)
            # A folder per target: fpgakern_emu.cfg names its xclbin's UUID.
            paths[target] = folder / target / f"{name}.{target}.xclbin"
            paths[target].parent.mkdir()
            paths[target].write_bytes(xclbin.to_xclbin(design))
            emu.prepare(paths[target], TARGETS, specs=specs)
        _links[key] = paths
    return _links[key]


def run(program: Path, *argv: object, target: str, env: dict[str, str] | None = None,
        ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(program), *map(str, argv)], capture_output=True, text=True,
                          env=env or emulation_env(target), timeout=600)
    if ok:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def cu_runs(stderr: str) -> dict[str, int]:
    """hw_emu's summary at close: runs per CU."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("fpgakern hw_emu: vadd:"):
            cu, _, rest = line.removeprefix("fpgakern hw_emu: vadd:").partition(" ran ")
            out[cu] = int(rest.split()[0])
    return out


# ------------------------------------------------------------------ the published-style hosts


@pytest.mark.parametrize("target", TARGETS)
def test_hello_vadd(programs, hello, tmp_path_factory, target):
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    done = run(programs["hello_vadd"], xclbins[target], target=target)
    assert done.stdout.splitlines()[-1] == "TEST PASSED"


RUNG3 = "hello/vadd@opt3:int32"
PLACEMENTS = {  # name: (kernel, link config, each CU's bank)
    "several_banks": (KERNEL, FOUR_CUS, [0, 1, 2, 3]),  # nk=, no sp=: the link spreads them
    "one_bank": (KERNEL, ONE_BANK, [0, 0, 0, 0]),
    "rung3": (RUNG3, "", [0, 1, 2, 3]),  # rung 3's own 4 CUs and link.cfg
    "rung3_one_bank": (RUNG3, "[connectivity]\n" + ALL_ON_DDR0, [0, 0, 0, 0]),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_multiple_cus(programs, hello, tmp_path_factory, target, placement):
    """4 CUs: rung 4 with nk=vadd:4, whose link spreads the CUs over u250's 4 DDR banks
    without sp= lines, or puts them all on DDR[0] with them; rung 3, which builds 4 CUs
    and a link.cfg spreading them, alone and under a config putting them on DDR[0].
    Per-CU kernel objects, then one over every CU whose runs go to a CU their buffers fit."""
    kernel, cfg, banks = PLACEMENTS[placement]
    xclbins = linked(tmp_path_factory, hello, placement, cfg=cfg, kernel=kernel)
    done = run(programs["multi_cu"], xclbins[target], 4, target=target)
    lines = done.stdout.splitlines()
    assert lines[:4] == [f"vadd_{i + 1} group_id {b} {b} {b}" for i, b in enumerate(banks)]
    assert lines[-1] == "TEST PASSED"
    assert "WARNING" not in done.stderr
    if target == "hw_emu":
        assert cu_runs(done.stderr) == {f"vadd_{i}": 2 for i in range(1, 5)}


@pytest.mark.parametrize("target", TARGETS)
def test_queue(programs, hello, tmp_path_factory, target):
    """xrt::queue: transfers on one queue, the run and the read-back on another that
    waits for the first's future."""
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    done = run(programs["queue_pipeline"], xclbins[target], target=target)
    assert done.stdout.splitlines() == ["TEST PASSED"]


def has_groups(path: Path) -> bool:
    kinds = {s.kind for s in axlf.read(path.read_bytes()).sections}
    return {axlf.SECTION_IDS["ASK_GROUP_TOPOLOGY"],
            axlf.SECTION_IDS["ASK_GROUP_CONNECTIVITY"]} <= kinds


@pytest.mark.parametrize("target", TARGETS)
def test_hbm_bank_ranges(programs, hello, tmp_path_factory, target):
    """u55c, each argument on a range of 4 HBM pseudo-channels: group_id is the range's
    last bank (XRT's default connection, the highest memory index) while the xclbin has
    no GROUP_TOPOLOGY; a group index past MEM_TOPOLOGY's entries when it has."""
    xclbins = linked(tmp_path_factory, hello, "hbm", "u55c", HBM)
    done = run(programs["hbm_ranges"], xclbins[target], target=target)
    lines = done.stdout.splitlines()
    groups = [int(g) for g in lines[0].split()[1:]]
    if has_groups(xclbins[target]):
        image = axlf.read(xclbins[target].read_bytes())
        mems = decode(image.find(axlf.SECTION_IDS["MEM_TOPOLOGY"]).payload, MemData)
        assert all(g >= len(mems) for g in groups) and len(set(groups)) == 3, lines[0]
    else:
        assert groups == [3, 7, 11]
    assert lines[-1] == "TEST PASSED"


@pytest.mark.parametrize("target", TARGETS)
def test_copy_and_host_only_buffers(programs, hello, tmp_path_factory, target):
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    done = run(programs["copy_host_only"], xclbins[target], target=target)
    assert done.stdout.splitlines() == ["host_only/device_only/copy ok", "offsets ok",
                                        "sub-buffers ok", "TEST PASSED"]


@pytest.mark.parametrize("target", TARGETS)
def test_device_info(programs, hello, tmp_path_factory, target):
    xclbins = linked(tmp_path_factory, hello, "several_banks", cfg=FOUR_CUS)
    done = run(programs["device_info"], xclbins[target], target=target)
    lines = done.stdout.splitlines()
    vbnv = platforms.load("u250").vbnv
    assert f"xsa {vbnv}" in lines
    assert "kernel vadd args 4 cus 4" in lines
    arg_in1 = next(line for line in lines if line.startswith("  arg 0 in1 "))
    assert arg_in1.split()[3:] == ["int*", "offset", "0x10", "DDR[0]", "DDR[1]", "DDR[2]",
                                   "DDR[3]"]
    assert "  arg 3 n int offset 0x34" in lines
    assert [line.split()[1] for line in lines if line.startswith("  cu ")] == \
        [f"vadd:vadd_{i}" for i in range(1, 5)]
    assert "loaded same uuid" in lines
    # No emconfig.json: the device is named after the loaded xclbin's platform.
    for line in (f"name {vbnv}", "bdf 0000:00:00.1", "kdma 0", "m2m 1", "nodma 0", "offline 0",
                 "max_clock_frequency_mhz 500",  # u250's fastest clock (KERNEL_CLK)
                 "electrical {}", "thermal {}", "handles 11"):
        assert line in lines, line


# ------------------------------------------------------------------ XRT's memory rules


@pytest.mark.parametrize("target", TARGETS)
def test_group_id_and_cu_selection(programs, hello, tmp_path_factory, target):
    """group_id of a kernel object over CUs on different banks is its first CU's (XRT's
    kernel_impl::group_id); a run over every CU goes to the one its buffers fit; a run
    whose buffers fit no CU of its kernel object gets XRT's warning and runs on a local
    copy in the connected bank, so its output never reaches the buffer (as in XRT)."""
    xclbins = linked(tmp_path_factory, hello, "several_banks", cfg=FOUR_CUS)
    program, path = programs["memory_rules"], xclbins[target]
    done = run(program, path, "groups", target=target)
    assert done.stdout.splitlines() == ["vadd 0 0 0", *(f"vadd_{i} {i - 1} {i - 1} {i - 1}"
                                                       for i in range(1, 5))]
    done = run(program, path, "banks", 2, 2, 2, "", target=target)
    assert done.stdout.splitlines() == ["state 4 out 12"]
    if target == "hw_emu":
        assert cu_runs(done.stderr) == {"vadd_3": 1}
    done = run(program, path, "banks", 1, 1, 1, "vadd_4", target=target)
    assert done.stdout.splitlines() == ["state 4 out -1"]
    assert ("[XRT] WARNING: Kernel vadd has no compute units with connectivity required "
            "for global argument at index 0. The argument is allocated in bank 1, the "
            "compute unit is connected to bank 3.") in done.stderr.replace("\n", " ")


@pytest.mark.parametrize("target", TARGETS)
def test_any_bank_of_a_range(programs, hello, tmp_path_factory, target):
    xclbins = linked(tmp_path_factory, hello, "hbm", "u55c", HBM)
    program, path = programs["memory_rules"], xclbins[target]
    for banks in ((1, 5, 9), (2, 6, 10), (0, 7, 8)):
        done = run(program, path, "banks", *banks, "", target=target)
        assert done.stdout.splitlines() == ["state 4 out 12"], banks
        assert "WARNING" not in done.stderr
    # out in b's range: XRT warns and runs on a local copy of out in out's group, which
    # the host never sees (an input so copied would still give the right result).
    done = run(program, path, "banks", 0, 5, 4, "", target=target)
    assert done.stdout.splitlines() == ["state 4 out -1"]
    assert "global argument at index 2. The argument is allocated in bank 4" in done.stderr
    done = run(program, path, "banks", 0, 4, 99, "", target=target, ok=False)
    assert done.returncode != 0 and "cannot allocate a buffer in memory group 99" in done.stderr


def with_groups(path: Path) -> tuple[Path, int]:
    """``path`` with the GROUP_TOPOLOGY and GROUP_CONNECTIVITY sections v++ writes: the
    MEM_TOPOLOGY entries, then one group per argument on several banks (named after its
    range), connected besides its banks. (fpgakern's own writer gains them in another
    branch; this checks the emulation reads them as XRT does.) Also the index of the
    first group (the number of MEM_TOPOLOGY entries)."""
    image = axlf.read(path.read_bytes())
    kinds = axlf.SECTION_IDS
    mems = decode(image.find(kinds["MEM_TOPOLOGY"]).payload, MemData)
    conns = decode(image.find(kinds["CONNECTIVITY"]).payload, Connection)
    spans: dict[tuple[int, int], list[int]] = {}
    for c in conns:
        spans.setdefault((c.ip_layout_index, c.arg_index), []).append(c.mem_data_index)
    group_mems, group_conns = list(mems), list(conns)
    for (ip, arg), banks in spans.items():
        if len(banks) > 1:
            first, last = mems[min(banks)], mems[max(banks)]
            tag = f"{first.tag.split('[')[0]}[{min(banks)}:{max(banks)}]"
            group_mems.append(MemData(tag, first.type, True, first.size_kb * len(banks),
                                      first.base_address))
            group_conns.append(Connection(arg, ip, len(group_mems) - 1))
            assert last.base_address > first.base_address
    sections = [*image.sections,
                axlf.Section(kinds["ASK_GROUP_TOPOLOGY"], encode(group_mems, MemData)),
                axlf.Section(kinds["ASK_GROUP_CONNECTIVITY"], encode(group_conns, Connection))]
    out = path.with_name(path.stem + ".groups.xclbin")
    out.write_bytes(axlf.write(sections, **image.header))
    return out, len(mems)


@pytest.mark.parametrize("target", TARGETS)
def test_group_sections(programs, hello, tmp_path_factory, target):
    """With GROUP_TOPOLOGY/GROUP_CONNECTIVITY, group_id answers the group of each range
    (the highest memory index connected: the groups follow u55c's MEM_TOPOLOGY entries),
    and a buffer in the group or in any bank of it is accepted."""
    path, first = with_groups(linked(tmp_path_factory, hello, "hbm", "u55c", HBM)[target])
    ga, gb, gout = first, first + 1, first + 2
    program = programs["memory_rules"]
    done = run(program, path, "groups", target=target)
    assert done.stdout.splitlines() == [f"vadd {ga} {gb} {gout}",
                                        f"vadd_1 {ga} {gb} {gout}"]
    for banks in ((ga, gb, gout), (1, 5, 9), (ga, 4, 11)):
        done = run(program, path, "banks", *banks, "", target=target)
        assert done.stdout.splitlines() == ["state 4 out 12"], banks
        assert "WARNING" not in done.stderr
    done = run(program, path, "banks", ga, gb, gb, "", target=target)
    assert done.stdout.splitlines() == ["state 4 out -1"]
    assert f"allocated in bank {gb}, the compute unit is connected to bank {gout}" \
        in done.stderr
    done = run(programs["hbm_ranges"], path, target=target)
    assert done.stdout.splitlines() == [f"group_id {ga} {gb} {gout}", "TEST PASSED"]


def test_wait_timeout(programs, hello, tmp_path_factory):
    """hw_emu: wait(1 ms) on a run of 2**20 elements returns ERT_CMD_STATE_TIMEOUT (8) and
    leaves it running (3); wait() then finishes it (4). On sw_emu the kernel has run by
    the time start() returns, so the same wait answers completed."""
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    program = programs["memory_rules"]
    done = run(program, xclbins["hw_emu"], "timeout", 1 << 20, target="hw_emu")
    assert done.stdout.splitlines() == ["wait(1ms) 8 state 3 wait() 4"]
    done = run(program, xclbins["sw_emu"], "timeout", 1 << 20, target="sw_emu")
    assert done.stdout.splitlines() == ["wait(1ms) 4 state 4 wait() 4"]


def test_xclbin_for_another_target_is_refused(programs, hello, tmp_path_factory, tmp_path):
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    done = run(programs["hello_vadd"], xclbins["hw_emu"], target="sw_emu", ok=False)
    assert done.returncode != 0
    assert "was built for hw_emu" in done.stderr and "XCL_EMULATION_MODE is sw_emu" in done.stderr
    hw = tmp_path / "one_cu.hw.xclbin"  # beside no config: the mode is checked first
    data = bytearray(xclbins["sw_emu"].read_bytes())
    struct.pack_into("<H", data, 0x14C, axlf.TARGET_MODES["hw"])
    hw.write_bytes(bytes(data))
    done = run(programs["hello_vadd"], hw, target="hw_emu", ok=False)
    assert "was built for hw (xclbin mode 0)" in done.stderr


def emconfig(folder: Path, name: str, devices: int, version: str = "2.0") -> Path:
    """An emconfig.json as emconfigutil writes it (the fields XRT's emulation reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "emconfig.json").write_text(json.dumps({
        "Version": {"FileVersion": version},
        "Platform": {"Boards": [{"Devices": [{"Name": name, "NumDevices": devices,
                                              "FeatureRom": {"Time_Since_Epoch": "0"}}]}]}}))
    return folder


def test_emconfig_json(programs, hello, tmp_path_factory, tmp_path):
    """EMCONFIG_PATH's emconfig.json names the platform (device::name) and the number of
    devices; a FileVersion other than 2.0 is refused with XRT's message, and then there
    is no device."""
    xclbins = linked(tmp_path_factory, hello, "one_cu")
    platform = "xilinx_u250_gen3x16_xdma_4_1_202210_1"
    env = dict(emulation_env("sw_emu"), EMCONFIG_PATH=str(emconfig(tmp_path / "ok", platform, 2)))
    done = run(programs["device_info"], xclbins["sw_emu"], target="sw_emu", env=env)
    assert f"name {platform}" in done.stdout.splitlines()
    env["EMCONFIG_PATH"] = str(emconfig(tmp_path / "old", platform, 1, "1.0"))
    done = run(programs["device_info"], xclbins["sw_emu"], target="sw_emu", env=env, ok=False)
    assert done.returncode != 0
    assert "incompatible version of emconfig.json found.Please regenerate this file" \
        in done.stdout
    assert "no device 0" in done.stderr


# ------------------------------------------------------------------ stream chains

STREAM_SPECS = Path(__file__).parents[1] / "data" / "stream_project" / "kernel_specs"
STREAM_KERNELS = ["stream_ops/mm2s", "stream_ops/square_plus", "stream_ops/s2mm"]
STREAM_CHAIN = ("[connectivity]\nstream_connect=mm2s_1.out:square_plus_1.x:32\n"
                "stream_connect=square_plus_1.y:s2mm_1.data:32\n")


@pytest.fixture(scope="module")
def stream_chain(tmp_path_factory) -> dict[str, Path]:
    """mm2s -> square_plus -> s2mm linked for u250 on both targets, models prepared."""
    folder = tmp_path_factory.mktemp("stream_chain")
    inputs = resolve.resolve(STREAM_KERNELS, Library(STREAM_SPECS), folder / "build")
    paths = {}
    for target in TARGETS:
        design = linker.link(inputs, platforms.load("u250"),
                             config.parse(STREAM_CHAIN, "chain.cfg"), target)
        paths[target] = folder / target / f"chain.{target}.xclbin"
        paths[target].parent.mkdir()
        paths[target].write_bytes(xclbin.to_xclbin(design))
        emu.prepare(paths[target], TARGETS, specs=STREAM_SPECS)
    return paths


def stream_beats(stderr: str) -> dict[str, int]:
    """hw_emu's summary at close: beats moved per stream."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("fpgakern hw_emu: stream "):
            label, _, rest = line.removeprefix("fpgakern hw_emu: stream ").partition(" moved ")
            out[label] = int(rest.split()[0])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_stream_chain(programs, stream_chain, target):
    """The data movers started around the free-running kernel, n = 4096 and an odd n: the
    host checks y == x * x + 1 (float32) itself."""
    done = run(programs["stream_chain"], stream_chain[target], target=target)
    assert done.stdout.splitlines() == ["n = 4096: 4096 results match",
                                        "n = 1001: 1001 results match", "TEST PASSED"]
    if target == "hw_emu":
        assert stream_beats(done.stderr) == {"mm2s_1.out -> square_plus_1.x": 5097,
                                             "square_plus_1.y -> s2mm_1.data": 5097}
        assert "square_plus:square_plus_1 free-running" in done.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_stream_rules(programs, stream_chain, target):
    """XRT's refusals: xrt::kernel of the free-running kernel, group_id of a stream; a
    stream's set_arg ignored; a chain whose movers disagree on n stalls (an error, not a
    hang); xrt::xclbin's view of the stream argument and the free-running CU."""
    done = run(programs["stream_rules"], stream_chain[target], target=target)
    lines = done.stdout.splitlines()
    assert "AP_CTRL_NONE is only supported by XRT native API xrt::ip" in lines[0]
    assert lines[1].startswith("group_id of mm2s.out: ") and "AXI4-Stream" in lines[1]
    assert lines[2:] == ["set_arg on streams ignored: yes", "stalled chain: error",
                         "mm2s.out host type: stream<ap_axiu<32, 0, 0, 0> >&",
                         "square_plus_1 control none: yes, base ffffffffffffffff"]
    assert "s2mm:s2mm_1: stream chain stalled" in done.stderr


def test_a_chain_without_models_for_the_target_is_an_error_not_a_crash(programs,
                                                                     stream_chain, tmp_path):
    """A config that names only sw_emu models (prepare --target sw_emu) and an hw_emu run:
    load_xclbin fails with the config's message; the half-loaded device closes cleanly
    (the free-running CU has no model instance yet)."""
    xclbin_path = tmp_path / "chain.hw_emu.xclbin"
    shutil.copy(stream_chain["hw_emu"], xclbin_path)
    emu.prepare(xclbin_path, ("sw_emu",), specs=STREAM_SPECS)
    done = run(programs["stream_chain"], xclbin_path, target="hw_emu", ok=False)
    assert done.returncode != 0 and done.returncode != -signal.SIGSEGV
    assert "fpgakern_emu.cfg has no hw_emu model for kernel mm2s" in done.stderr


# ------------------------------------------------------------------ AMD's examples' kernels
# tests/data/xrt_examples_project: kernels declared in the argument order of AMD's
# Vitis_Accel_Examples host_xrt kernels (the spec's args:), run by hosts of our own in the
# shape of those examples' hosts.

EXAMPLES = Path(__file__).parents[1] / "data" / "xrt_examples_project"
# p2p_fpga2fpga's increment(in, out, inc, size): the top of the streaming examples'
# free-running increment too, so in a project of its own.
FPGA2FPGA = Path(__file__).parents[1] / "data" / "fpga2fpga_project"
EXAMPLE_HOSTS = {"copy_buffer": ["copy_buffer.cpp"], "free_running_k2k": ["free_running_k2k.cpp"],
                 "p2p_simple": ["p2p_simple.cpp"], "hbm_simple": ["hbm_simple.cpp"],
                 "p2p_fpga2fpga": ["p2p_fpga2fpga.cpp"], "mailbox": ["mailbox.cpp"]}
_example_links: dict[tuple[str, ...], dict[str, Path]] = {}


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("examples") / "xrt_examples_project"
    shutil.copytree(EXAMPLES, root)
    return root


@pytest.fixture(scope="module")
def fpga2fpga(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fpga2fpga") / "fpga2fpga_project"
    shutil.copytree(FPGA2FPGA, root)
    return root


@pytest.fixture(scope="module")
def example_programs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("example_hosts")
    return {name: emu.compile_host([HOSTS / s for s in sources], folder / name)
            for name, sources in EXAMPLE_HOSTS.items()}


def example_link(tmp_path_factory, examples: Path, kernels: list[str], platform: str = "u250",
                 cfg: str = "") -> dict[str, Path]:
    key = (*kernels, platform, cfg)
    if key not in _example_links:
        folder = tmp_path_factory.mktemp("example_link")
        specs = examples / "kernel_specs"
        inputs = resolve.resolve(kernels, Library(specs), folder / "build")
        paths = {}
        for target in TARGETS:
            design = linker.link(inputs, platforms.load(platform),
                                 config.parse(cfg, "example.cfg") if cfg else None, target)
            paths[target] = folder / target / f"example.{target}.xclbin"
            paths[target].parent.mkdir()
            paths[target].write_bytes(xclbin.to_xclbin(design))
            emu.prepare(paths[target], TARGETS, specs=specs)
        _example_links[key] = paths
    return _example_links[key]


@pytest.mark.parametrize("target", [
    "sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_copy_buffer(example_programs, examples, tmp_path_factory, target):
    """vector_add(c, a, b, n), the output first (args: [c, a, b, n]): b a device copy of
    a (bo::copy), c = a + b."""
    xclbins = example_link(tmp_path_factory, examples, ["xrt_examples/vector_add@opt4:int32"])
    done = run(example_programs["copy_buffer"], xclbins[target], target=target)
    assert done.stdout.splitlines()[-1] == "TEST PASSED"


K2K = ["xrt_examples/mem_read", "xrt_examples/increment", "xrt_examples/mem_write"]
K2K_LINK = ("[connectivity]\nstream_connect=mem_read_1.stream:increment_1.input\n"
            "stream_connect=increment_1.output:mem_write_1.stream\n")


@pytest.mark.parametrize("target", TARGETS)  # the one new hw_emu run of the default tier
def test_free_running_k2k(example_programs, examples, tmp_path_factory, target):
    """mem_read(mem, n, stream) and mem_write(mem, n, stream) (args:, the size before
    the stream) around the free-running increment(input, output), which the host never
    opens: the argument names of AMD's kernels, which its link config names."""
    xclbins = example_link(tmp_path_factory, examples, K2K, cfg=K2K_LINK)
    done = run(example_programs["free_running_k2k"], xclbins[target], target=target)
    assert done.stdout.splitlines()[-1] == "TEST PASSED"
    if target == "hw_emu":
        assert stream_beats(done.stderr) == {"mem_read_1.stream -> increment_1.input": 1024,
                                             "increment_1.output -> mem_write_1.stream": 1024}


@pytest.mark.parametrize("target", [
    "sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_p2p_simple(example_programs, examples, tmp_path_factory, tmp_path, target):
    """adder(in, out, inc, size) on p2p buffers, allocated through an xrtDeviceHandle:
    the host reads the kernel's output from a p2p map and writes a kernel's input into
    one, with no sync (XRT maps a p2p buffer's device memory)."""
    xclbins = example_link(tmp_path_factory, examples, ["xrt_examples/adder@opt4:int32"])
    done = run(example_programs["p2p_simple"], xclbins[target], tmp_path / "ssd.bin",
               target=target)
    assert done.stdout.splitlines()[-1] == "TEST PASSED"


HBM_SIMPLE_LINK = "[connectivity]\n" + "".join(f"sp=krnl_vadd_1.{arg}:HBM[0:3]\n"
                                              for arg in ("in1", "in2", "out_r"))


@pytest.mark.parametrize("target", [
    "sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_hbm_simple(example_programs, examples, tmp_path_factory, target):
    """krnl_vadd(in1, in2, out_r, size) on u55c with every argument on HBM[0:3]: buffers
    allocated by bank number through an xrtDeviceHandle, all in bank 0 and then in banks
    1, 2 and 3. Each bank is in every argument's range, so XRT runs the kernel on the
    buffers themselves (no warning, no local copy)."""
    xclbins = example_link(tmp_path_factory, examples, ["xrt_examples/krnl_vadd@opt4:int32"],
                           platform="u55c", cfg=HBM_SIMPLE_LINK)
    done = run(example_programs["hbm_simple"], xclbins[target], target=target)
    lines = done.stdout.splitlines()
    assert lines[-1] == "TEST PASSED"
    assert [line.split(":")[0] for line in lines[:2]] == ["[CASE 1] one bank",
                                                          "[CASE 2] three banks"]
    assert "WARNING" not in done.stderr, done.stderr


def test_hbm_simple_warns_when_a_bank_is_out_of_range(example_programs, examples,
                                                      tmp_path_factory):
    """The same host with in1 connected to HBM[4:7]: its buffers in banks 0 and 1 reach
    no compute unit, so XRT warns and runs on a local copy in a connected bank, and the
    results still match."""
    cfg = HBM_SIMPLE_LINK.replace("in1:HBM[0:3]", "in1:HBM[4:7]")
    xclbins = example_link(tmp_path_factory, examples, ["xrt_examples/krnl_vadd@opt4:int32"],
                           platform="u55c", cfg=cfg)
    done = run(example_programs["hbm_simple"], xclbins["sw_emu"], target="sw_emu")
    assert done.stdout.splitlines()[-1] == "TEST PASSED"
    assert "[XRT] WARNING: Kernel krnl_vadd has no compute units with connectivity" \
        in done.stderr, done.stderr


@pytest.mark.parametrize("target", [
    "sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_p2p_fpga2fpga(example_programs, fpga2fpga, tmp_path_factory, tmp_path, target):
    """Two cards (emconfig.json of two devices, as ``emconfigutil --nd 2`` writes it):
    increment(in, out, inc, size) on device 0 writes a p2p buffer; device 1, with no
    xclbin, wraps that buffer's map in a user-pointer buffer and syncs it into its own
    memory, where a copy on device 1 reads the kernel's output back."""
    xclbins = example_link(tmp_path_factory, fpga2fpga, ["fpga2fpga/increment@opt4:int32"])
    emu.write_emconfig(tmp_path, platforms.load("u250").vbnv, devices=2)
    env = dict(emulation_env(target), EMCONFIG_PATH=str(tmp_path))
    done = run(example_programs["p2p_fpga2fpga"], xclbins[target], target=target, env=env)
    lines = done.stdout.splitlines()
    assert lines[-1] == "TEST PASSED" and lines[0].startswith("Throughput "), lines


def test_p2p_fpga2fpga_needs_a_second_device(example_programs, fpga2fpga, tmp_path_factory):
    """With the emconfig.json of one device (the link's), device 1 does not exist: a clear
    error, not a crash."""
    xclbins = example_link(tmp_path_factory, fpga2fpga, ["fpga2fpga/increment@opt4:int32"])
    done = run(example_programs["p2p_fpga2fpga"], xclbins["sw_emu"], target="sw_emu", ok=False)
    assert done.returncode != 0 and done.returncode != -signal.SIGSEGV
    assert "no device 1" in done.stderr, done.stderr


# ------------------------------------------------------------------ a register kernel
# mbox_autorestart(in1, in2, add, mult): add = in1 + in2, mult = in1 * in2, every argument
# a register (control: auto_restart); started once, fed through the mailbox.

MAILBOX = ["xrt_examples/mbox_autorestart@opt0:int32"]


@pytest.mark.parametrize("target", TARGETS)  # a run is a few cycles: hw_emu in the default tier
def test_mailbox(example_programs, examples, tmp_path_factory, target):
    """AMD's mailbox_auto_restart_xrt in our own host: started with xrt::autostart{0} and
    the two scalars (the results, arguments 2 and 3, never set), ten rounds of new inputs
    (mbox.set_arg, write) and results read back (read, get_arg), each those of the inputs
    written last; run.stop() leaves the run completed, acknowledged once. Then
    autostart{3}: run.wait() returns when the counter runs out, and the registers hold the
    last run's results without a read()."""
    xclbins = example_link(tmp_path_factory, examples, MAILBOX)
    program = example_programs["mailbox"]
    done = run(program, xclbins[target], target=target)
    lines = done.stdout.splitlines()
    assert lines == [*(f"round {r}: {4 + r}, {39 - r} -> 43, {(4 + r) * (39 - r)}"
                       for r in range(10)), "stopped: completed", "TEST PASSED"]
    done = run(program, xclbins[target], "counted", 3, target=target)
    assert done.stdout.splitlines() == ["last run: -7, 6 -> -1, -42", "state 4"]
    if target == "hw_emu":
        assert "mbox_autorestart:mbox_autorestart_1 ran 1 time(s)" in done.stderr, done.stderr


def test_mailbox_refused(example_programs, examples, tmp_path_factory):
    """XRT's refusals: xrt::autostart and xrt::mailbox on a kernel without counters and
    mailbox (adder: "No auto-restart counters found for kernel", "Mailbox not supported
    by this run object"); a run of the register kernel over two CUs (nk=...:2: "Only one
    compute unit allowed with mailbox"); and the Python runtime, in one line."""
    xclbins = example_link(tmp_path_factory, examples, ["xrt_examples/adder@opt4:int32"])
    done = run(example_programs["mailbox"], xclbins["sw_emu"], "refused", "adder",
               target="sw_emu")
    autostart, mailbox = done.stdout.splitlines()
    assert autostart.startswith("autostart: ") and \
        "No auto-restart counters found for kernel adder" in autostart
    assert mailbox.startswith("mailbox: ") and \
        "Mailbox not supported by this run object" in mailbox
    two = example_link(tmp_path_factory, examples, MAILBOX,
                       cfg="[connectivity]\nnk=mbox_autorestart:2\n")
    done = run(example_programs["mailbox"], two["sw_emu"], target="sw_emu", ok=False)
    assert done.returncode == 1 and "Only one compute unit allowed with mailbox" in done.stderr
    one = example_link(tmp_path_factory, examples, MAILBOX)
    device = runtime.open(one["sw_emu"], "sw_emu", specs=examples / "kernel_specs")
    with pytest.raises(UsageError) as refused:
        device.kernel("xrt_examples/mbox_autorestart")
    message = str(refused.value)
    assert "is a register kernel (control: auto_restart)" in message
    assert "xrt::mailbox" in message and "\n" not in message


@pytest.mark.parametrize("target", ["sw_emu", pytest.param("hw_emu", marks=pytest.mark.slow)])
def test_mailbox_of_a_stopped_kernel(example_programs, examples, tmp_path_factory, target):
    """After run.stop() the registers keep the last run's results, and on the idle kernel
    a write() and a read() complete at once (XRT's mailbox documents it): the read shows
    the last run's results, since no run computes the new inputs."""
    xclbins = example_link(tmp_path_factory, examples, MAILBOX)
    done = run(example_programs["mailbox"], xclbins[target], "stopped", target=target)
    assert done.stdout.splitlines() == ["running: 12, 5 -> 17, 60", "state 4",
                                        "stopped: 12, 5 -> 17, 60",
                                        "idle: 12, 5 -> 17, 60"]
