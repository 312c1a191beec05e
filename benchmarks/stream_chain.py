"""Throughput of a kernel-to-kernel stream chain on hw_emu: tests/data/stream_project's
mm2s -> square_plus (free-running) -> s2mm, linked with stream_connect for u250 and run by
the XRT host program tests/runtime/hosts/stream_chain.cpp on the emulated XRT.

    python benchmarks/stream_chain.py [--sizes 256 1024 4096 16384] [--platform u250]

One host process per n, so that the emulation's summary at close is that n's alone. The
chain's cycles are the free-running CU's: it is clocked on every cycle the emulation steps
the chain, from the first run.wait() until the last data mover is done (docs/runtime.md,
"Stream kernels"). A stream moves at most one element per cycle, so the ideal is n
cycles, 1 element/cycle; what the chain takes beyond that is its fill and drain (memory
latency, the kernels' pipelines, the writes of the last burst).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from fpgakern.link import config, linker, platforms, resolve, xclbin
from fpgakern.runtime import emu
from fpgakern.spec.library import Library

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "tests" / "data" / "stream_project" / "kernel_specs"
HOST = ROOT / "tests" / "runtime" / "hosts" / "stream_chain.cpp"
KERNELS = ["stream_ops/mm2s", "stream_ops/square_plus", "stream_ops/s2mm"]
CHAIN = ("[connectivity]\nstream_connect=mm2s_1.out:square_plus_1.x:32\n"
         "stream_connect=square_plus_1.y:s2mm_1.data:32\n")
FREE_RUNNING = re.compile(r"^fpgakern hw_emu: square_plus:\S+ free-running, (\d+) cycles$",
                          re.MULTILINE)


def build(folder: Path, platform: str) -> tuple[Path, Path]:
    """The chain's hw_emu xclbin (models prepared beside it) and the host program."""
    inputs = resolve.resolve(KERNELS, Library(SPECS), folder / "build")
    design = linker.link(inputs, platforms.load(platform), config.parse(CHAIN, "chain.cfg"),
                         "hw_emu")
    path = folder / "chain.xclbin"
    path.write_bytes(xclbin.to_xclbin(design))
    emu.prepare(path, ("hw_emu",), specs=SPECS)
    return path, emu.compile_host(HOST, folder / "stream_chain")


def chain_cycles(host: Path, chain: Path, n: int) -> int:
    env = dict(os.environ, XCL_EMULATION_MODE="hw_emu")
    env.pop("FPGAKERN_EMU_CONFIG", None)
    done = subprocess.run([str(host), str(chain), str(n)], capture_output=True, text=True,
                          env=env, timeout=3600)
    if done.returncode != 0 or "TEST PASSED" not in done.stdout:
        raise SystemExit(f"n = {n}: the host failed\n{done.stdout}{done.stderr}")
    found = FREE_RUNNING.search(done.stderr)
    if found is None:
        raise SystemExit(f"n = {n}: no free-running CU in the summary\n{done.stderr}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 4096, 16384])
    parser.add_argument("--platform", default="u250")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stream_chain_") as tmp:
        chain, host = build(Path(tmp), args.platform)
        print(f"{'n':>8}  {'cycles':>8}  {'elements/cycle':>14}  {'ideal':>5}")
        for n in args.sizes:
            cycles = chain_cycles(host, chain, n)
            print(f"{n:>8}  {cycles:>8}  {n / cycles:>14.3f}  {1:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
