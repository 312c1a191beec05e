"""A lean AXI4 slave memory for throughput checks: one coroutine per port, fixed read
latency (cycles from the AR handshake to the first R beat), always ready otherwise.

It drives one R beat and accepts one W beat per cycle, so it shows whether the kernel
itself keeps the bus busy. It samples the DUT's outputs right after each rising edge (the
values the flip-flops saw) and drives its own outputs for the next edge.
"""

from __future__ import annotations

from collections import deque

from cocotb.triggers import RisingEdge


class LeanAxiMemory:
    def __init__(self, dut, prefix: str, clock, size: int, read_latency: int = 64,
                 write_latency: int = 16) -> None:
        self.dut, self.clock = dut, clock
        self.sig = {name: getattr(dut, f"{prefix}_{name}") for name in (
            "arvalid", "arready", "araddr", "arlen", "rvalid", "rready", "rdata", "rlast",
            "rresp", "rid", "awvalid", "awready", "awaddr", "awlen", "wvalid", "wready",
            "wdata", "wstrb", "wlast", "bvalid", "bready", "bresp", "bid")}
        self.mem = bytearray(size)
        self.read_latency, self.write_latency = read_latency, write_latency
        self.beat_bytes = len(self.sig["rdata"]) // 8
        self.violations: list[str] = []

    def write(self, address: int, data: bytes) -> None:
        self.mem[address:address + len(data)] = data

    def read(self, address: int, length: int) -> bytes:
        return bytes(self.mem[address:address + length])

    def _check_burst(self, kind: str, address: int, beats: int) -> None:
        end = address + beats * self.beat_bytes - 1
        if address // 4096 != end // 4096:
            self.violations.append(f"{kind} burst {address:#x}+{beats} crosses 4 KiB")
        if address % self.beat_bytes:
            self.violations.append(f"{kind} burst {address:#x} not beat-aligned")

    async def run(self) -> None:
        s = self.sig
        for name in ("arready", "awready", "wready"):
            s[name].value = 1
        for name in ("rvalid", "rlast", "rresp", "rid", "bvalid", "bresp", "bid"):
            s[name].value = 0
        s["rdata"].value = 0
        now = 0
        reads: deque[list[int]] = deque()  # [ready_cycle, address, beats_left]
        writes: deque[list[int]] = deque()  # [address, beats_left]
        responses: deque[int] = deque()  # cycle each B may be given
        r_busy = b_busy = False
        while True:
            await RisingEdge(self.clock)
            now += 1
            # Handshakes completed at this edge.
            if r_busy and int(s["rready"].value):
                reads[0][1] += self.beat_bytes
                reads[0][2] -= 1
                if reads[0][2] == 0:
                    reads.popleft()
                r_busy = False
            if b_busy and int(s["bready"].value):
                responses.popleft()
                b_busy = False
            if int(s["arvalid"].value):
                beats = int(s["arlen"].value) + 1
                address = int(s["araddr"].value)
                self._check_burst("read", address, beats)
                reads.append([now + self.read_latency, address, beats])
            if int(s["awvalid"].value):
                beats = int(s["awlen"].value) + 1
                address = int(s["awaddr"].value)
                self._check_burst("write", address, beats)
                writes.append([address, beats])
            if int(s["wvalid"].value):
                if not writes:
                    self.violations.append("W beat before its AW")
                else:
                    burst = writes[0]
                    data = int(s["wdata"].value).to_bytes(self.beat_bytes, "little")
                    strb = int(s["wstrb"].value)
                    for i in range(self.beat_bytes):
                        if strb >> i & 1:
                            self.mem[burst[0] + i] = data[i]
                    burst[0] += self.beat_bytes
                    burst[1] -= 1
                    if (burst[1] == 0) != bool(int(s["wlast"].value)):
                        self.violations.append("wlast does not match awlen")
                    if burst[1] == 0:
                        writes.popleft()
                        responses.append(now + self.write_latency)
            # What the memory drives until the next edge.
            if reads and reads[0][0] <= now:
                address = reads[0][1]
                s["rdata"].value = int.from_bytes(self.mem[address:address + self.beat_bytes],
                                                  "little")
                s["rlast"].value = int(reads[0][2] == 1)
                s["rvalid"].value = 1
                r_busy = True
            else:
                s["rvalid"].value = 0
            if responses and responses[0] <= now:
                s["bvalid"].value = 1
                b_busy = True
            else:
                s["bvalid"].value = 0
