"""hw_emu's memory in the C++ XRT emulation (src/device.cpp, src/kernel.cpp), as in the
Python runtime (test_hw_emu_bandwidth.py): the generated C++ host runs on banks with the
platform's bytes per kernel cycle (the bank lines 'python -m fpgakern.runtime.emu
prepare' writes into fpgakern_emu.cfg), each port on the bank the .xclbin's CONNECTIVITY
connects it to, and the CUs of concurrently started runs stepped in lockstep by
run.wait().

The rate of a call is its elements over the cycles of its slowest CU, read from the
summary the emulation library prints when the device closes. The bounds are the
bandwidth-bounded ideals of docs/sim.md."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from runtime_support import LIBRARY, variant

from fpgakern.backends import host
from fpgakern.link import config, linker, platforms, resolve, xclbin
from fpgakern.runtime import emu

N = 1 << 17  # elements: 8192 beats per port at rung 4
# Rung 5 add on u250 with its twelve ports spread over the four DDR4 channels in turn
# (the default keeps each CU's ports on its own SLR's channel): each CU spans every
# channel, so CUs run one after another would each have three channels to themselves,
# and only CUs stepped in lockstep share them.
ROUND_ROBIN = "[connectivity]\n" + "".join(
    f"sp=add_f32_{cu + 1}.m_axi_gmem{k}:DDR[{(3 * cu + k) % 4}]\n"
    for cu in range(4) for k in range(3))


def _build(folder: Path, rung: int, platform: str,
           connectivity: str | None = None) -> tuple[Path, Path]:
    """The C++ host of add float32 at ``rung`` and an xclbin linked for ``platform``
    (with ``connectivity``'s sp=, else the default placement), prepared for hw_emu."""
    p = variant("binary_ops/add", rung, "float32")
    sources = host.generate(p, folder)
    program = emu.compile_host(sources.main, folder / f"{p.top}_host")
    design = linker.link(resolve.resolve([f"binary_ops/add@opt{rung}:float32"], LIBRARY,
                                         folder / "build"),
                         platforms.load(platform),
                         None if connectivity is None else config.parse(connectivity),
                         "hw_emu")
    path = folder / f"{platform}.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    emu.prepare(path, ("hw_emu",))
    return program, path


def _run(program: Path, path: Path, config: Path | None = None) -> tuple[list[int], str]:
    """Run the host's pattern mode on N elements; each CU's cycles and the stderr."""
    env = dict(os.environ, XCL_EMULATION_MODE="hw_emu")
    env.pop("FPGAKERN_EMU_CONFIG", None)
    if config is not None:
        env["FPGAKERN_EMU_CONFIG"] = str(config)
    done = subprocess.run([str(program), "-x", str(path), "-n", str(N)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{N} elements on" in done.stdout
    cycles = [int(c) for c in re.findall(r"ran 1 time\(s\), (\d+) cycles", done.stderr)]
    assert cycles, done.stderr
    return cycles, done.stderr


def _without_banks(config: Path, folder: Path) -> Path:
    """The same config without its bank lines: no bandwidth limit."""
    unlimited = folder / "unlimited.cfg"
    unlimited.write_text("".join(line for line in config.read_text().splitlines(True)
                                 if not line.startswith("bank ")))
    return unlimited


def test_rung4_on_hbm_takes_a_pseudo_channel_per_port(tmp_path):
    """Rung 4 add on u55c: a, b and out each on a pseudo-channel of its own (HBM always
    spreads the ports), 14.375 GB/s at the 300 MHz kernel clock = 47.9 bytes per cycle
    each for 4 bytes per element: 11.98 elements per cycle at most, against ~16 with no
    limit."""
    program, path = _build(tmp_path, 4, "u55c")
    config = path.parent / emu.CONFIG_NAME
    banks = [line.split() for line in config.read_text().splitlines()
             if line.startswith("bank ")]
    assert len(banks) == 32 and banks[0][:3] == ["bank", "0", "HBM[0]"]
    assert float(banks[0][3]) == pytest.approx(14.375e9 / 300e6)
    (cycles,), stderr = _run(program, path)
    assert 11.5 < N / cycles <= 11.98 * 1.01, stderr
    moved = [int(b) for b in re.findall(r"bank HBM\[\d+\] .* moved (\d+) bytes", stderr)]
    assert sorted(moved) == [4 * N] * 3, stderr  # three banks, one port each
    (free,), stderr = _run(program, path, _without_banks(config, tmp_path))
    assert N / free > 15, stderr
    assert "bank" not in stderr


@pytest.mark.slow  # the HBM case proves the bank lines in the default run
def test_rung4_on_one_ddr_channel(tmp_path):
    """Rung 4 add on u250 without sp=: the three ports on the CU's DDR4 channel, 19.25
    GB/s at 300 MHz = 64.2 bytes per cycle for 12 bytes per element: 5.35 elements per
    cycle at most."""
    program, path = _build(tmp_path, 4, "u250")
    (cycles,), stderr = _run(program, path)
    assert 5.1 < N / cycles <= 5.35 * 1.01, stderr
    moved = [int(b) for b in re.findall(r"bank DDR\[\d+\] .* moved (\d+) bytes", stderr)]
    assert len(moved) == 1 and moved[0] >= 12 * N, stderr  # one bank, every port on it


@pytest.mark.slow  # test_hw_emu_bandwidth.py proves lockstep sharing in the default run
def test_cus_share_banks_in_lockstep(tmp_path):
    """Rung 5 add on u250: four CUs, twelve ports on the four DDR4 channels (ROUND_ROBIN:
    an sp= per port, the channels in turn; 19.25 GB/s at 300 MHz = 64.2 bytes each), so
    the call moves at most 4 x 64.2 / 12 = 21.39 elements per cycle. Run one after
    another, each CU would have its three channels to itself (64 elements per cycle for
    the call); in lockstep they share them."""
    program, path = _build(tmp_path, 5, "u250", ROUND_ROBIN)
    cycles, stderr = _run(program, path)
    assert len(cycles) == 4, stderr
    assert 20 < N / max(cycles) <= 21.39 * 1.01, stderr
    assert max(cycles) < 1.05 * min(cycles), stderr  # side by side, sharing fairly
    moved = [int(b) for b in re.findall(r"bank DDR\[\d\] .* moved (\d+) bytes", stderr)]
    assert len(moved) == 4 and sum(moved) >= 12 * N, stderr
