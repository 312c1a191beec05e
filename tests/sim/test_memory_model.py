"""The fast memory model's C++ side on its own: AXI rule checks and the buffer API.

sim/fkmem/fk_axi_mem.cpp (with its DPI glue) is compiled into a shared library and
driven through the same entry points the SV shell calls once per burst and beat, so each
rule can be broken on purpose and the violation seen.
"""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest

from fpgakern.tools import gxx, verilator
from fpgakern.verify.rtlsim.wrapper import sim_dir


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    out = tmp_path_factory.mktemp("fkmem") / "libfkmem.so"
    fkmem = sim_dir() / "fkmem"
    include = verilator.include_dir()
    subprocess.run(
        [gxx.compiler(), "-O1", "-shared", "-fPIC", "-std=c++17", f"-I{fkmem}",
         f"-I{include}", f"-I{include / 'vltstd'}", str(fkmem / "fk_axi_mem.cpp"),
         str(fkmem / "fk_axi_mem_dpi.cpp"), "-o", str(out)],
        check=True, capture_output=True,
    )
    so = ctypes.CDLL(str(out))
    u64, vp = ctypes.c_ulonglong, ctypes.c_void_p
    so.fk_mem_alloc.restype = u64
    so.fk_mem_alloc.argtypes = [u64, ctypes.c_int, ctypes.c_char_p, u64]
    so.fk_mem_write.argtypes = [u64, vp, u64]
    so.fk_mem_read.argtypes = [u64, vp, u64]
    so.fk_mem_violation_count.restype = u64
    so.fk_mem_violation.restype = ctypes.c_char_p
    so.fk_mem_violation.argtypes = [u64]
    so.fk_axi_port_new.restype = vp
    so.fk_axi_port_new.argtypes = [ctypes.c_char_p, ctypes.c_int]
    so.fk_axi_burst.argtypes = [vp, ctypes.c_ubyte, ctypes.c_longlong, ctypes.c_int,
                                ctypes.c_int, ctypes.c_int]
    so.fk_axi_read32.argtypes = [vp, ctypes.c_longlong]
    so.fk_axi_read512.argtypes = [vp, ctypes.c_longlong, vp]
    so.fk_axi_write32.argtypes = [vp, ctypes.c_longlong, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_ubyte, ctypes.c_ubyte]
    so.fk_axi_write512.argtypes = [vp, ctypes.c_longlong, vp, ctypes.c_longlong,
                                   ctypes.c_ubyte, ctypes.c_ubyte]
    so.fk_axi_stall.argtypes = [vp]
    so.fk_mem_port_describe.restype = ctypes.c_char_p
    return so


@pytest.fixture
def mem(lib):
    lib.fk_mem_reset()
    lib.fk_mem_configure(64, 64, 64, 0, 1)
    return lib


def violations(lib) -> list[str]:
    return [lib.fk_mem_violation(i).decode() for i in range(lib.fk_mem_violation_count())]


def test_buffers_live_above_4gib_on_their_own_pages(mem):
    a = mem.fk_mem_alloc(100, 0, b"a", 0)
    b = mem.fk_mem_alloc(100, 1, b"b", 64)
    assert a >= 1 << 32 and a % 4096 == 0
    assert b % 4096 == 64 and b - a >= 8192  # a guard page between buffers
    data = np.arange(25, dtype=np.uint32)
    assert mem.fk_mem_write(a, data.ctypes.data, data.nbytes) == 0
    back = np.zeros_like(data)
    assert mem.fk_mem_read(a, back.ctypes.data, back.nbytes) == 0
    assert np.array_equal(back, data)
    assert mem.fk_mem_read(0x1000, back.ctypes.data, 4) != 0  # outside the memory


def test_good_traffic_is_clean(mem):
    a = mem.fk_mem_alloc(8192, 0, b"in", 0)
    out = mem.fk_mem_alloc(8192, 1, b"out", 0)
    port = mem.fk_axi_port_new(b"p32", 4)
    mem.fk_axi_burst(port, 0, a, 255, 2, 1)  # 256 beats x 4 bytes: 1 KiB
    mem.fk_axi_burst(port, 0, a + 4096 - 64, 15, 2, 1)  # ends exactly at the boundary
    mem.fk_axi_burst(port, 1, out, 0, 2, 1)
    mem.fk_axi_write32(port, out, 0x12345678, 0xF, 1, 1)
    assert mem.fk_axi_read32(port, out) == 0x12345678
    assert violations(mem) == []


@pytest.mark.parametrize(("args", "expected"), [
    ((0, 4096 - 8, 3, 2, 1), "crosses a 4 KiB boundary"),
    ((0, 0, 0, 1, 1), "narrow transfers"),
    ((0, 2, 0, 2, 1), "not aligned"),
    ((0, 0, 0, 2, 2), "only INCR"),
    ((0, 100 * 4 - 4, 1, 2, 1), "runs past buffer 'in'"),
    ((0, 1 << 20, 0, 2, 1), "outside every buffer"),
])
def test_bad_bursts_are_reported(mem, args, expected):
    base = mem.fk_mem_alloc(100 * 4, 0, b"in", 0)
    port = mem.fk_axi_port_new(b"p", 4)
    is_write, offset, length, size, burst = args
    mem.fk_axi_burst(port, is_write, base + offset, length, size, burst)
    found = violations(mem)
    assert any(expected in v for v in found), found
    assert all(v.startswith("p: ") for v in found)  # the port is named


def test_wstrb_beyond_the_buffer_is_reported_and_not_written(mem):
    out = mem.fk_mem_alloc(40, 1, b"out", 0)  # 40 bytes: the tail word of 64 is partial
    port = mem.fk_axi_port_new(b"p512", 64)
    mem.fk_axi_burst(port, 1, out, 0, 6, 1)
    data = (ctypes.c_uint32 * 16)(*range(1, 17))
    mem.fk_axi_write512(port, out, data, (1 << 40) - 1, 1, 1)  # exactly the 40 bytes
    assert violations(mem) == []
    mem.fk_axi_write512(port, out, data, (1 << 44) - 1, 1, 1)  # 4 bytes too many
    found = violations(mem)
    assert len(found) == 1 and "beyond buffer 'out'" in found[0], found


def test_write_into_an_input_and_wrong_wlast(mem):
    a = mem.fk_mem_alloc(64, 0, b"a", 0)
    port = mem.fk_axi_port_new(b"p", 4)
    mem.fk_axi_write32(port, a, 1, 0xF, 1, 1)
    mem.fk_axi_write32(port, a, 1, 0x0, 0, 1)  # no strobe, but WLAST missing
    found = violations(mem)
    assert any("read-only buffer 'a'" in v for v in found), found
    assert any("WLAST clear" in v for v in found), found


def test_stalls_follow_the_configured_rate(mem):
    port = mem.fk_axi_port_new(b"stall", 4)
    mem.fk_mem_configure(64, 64, 64, 250, 3)
    bits = [mem.fk_axi_stall(port) for _ in range(4000)]
    rate = sum(bin(b).count("1") for b in bits) / (5 * len(bits))
    assert 0.22 < rate < 0.28
    mem.fk_mem_configure(64, 64, 64, 0, 3)
    assert not any(mem.fk_axi_stall(port) for _ in range(100))
