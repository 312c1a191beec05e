"""The csim stand-ins for hls_stream.h, hls_vector.h, hls_math.h, ap_int.h and
ap_axi_sdata.h, tested in C++."""

from __future__ import annotations

import subprocess

import numpy as np

from fpgakern import paths
from fpgakern.tools import gxx
from fpgakern.verify.csim import CXXFLAGS, OPTIMIZATION, csim_include_dir

# What Vitis HLS compiles (UG1399: C/C++ 11/14), strictly: no GNU extension, no warning.
STRICT_CXX14 = ("-std=c++14", "-pedantic", "-Wall", "-Wextra", "-Werror",
                "-Wno-unknown-pragmas")

TEST = r"""
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include "ap_axi_sdata.h"
#include "ap_int.h"
#include "hls_math.h"
#include "hls_stream.h"
#include "hls_vector.h"

int main() {
    hls::stream<int> s("s");
    assert(s.empty() && s.size() == 0 && !s.full());
    s.write(1);
    s << 2;
    int x = 0;
    assert(s.read_nb(x) && x == 1);
    s >> x;
    assert(x == 2 && s.empty());
    assert(!s.read_nb(x));

    typedef hls::vector<float, 16> f16;
    static_assert(sizeof(f16) == 64 && alignof(f16) == 64, "one 512-bit word");
    static_assert(alignof(hls::vector<int32_t, 3>) == 4, "largest power-of-two divisor");
    f16 a(1.5f), b;
    for (int i = 0; i < 16; ++i) b[i] = static_cast<float>(i);
    f16 c = a + b;
    assert(c[3] == 4.5f && c[0] == 1.5f);
    assert((c - b) == a);
    assert(b.reduce_add() == 120.0f);
    hls::vector<int, 4> v{1, 2, 3};
    assert(v[2] == 3 && v[3] == 0);

    assert(hls::exp(0.0f) == 1.0f && hls::sqrt(4.0f) == 2.0f);
    assert(hls::fabs(-2.0f) == 2.0f && hls::signbit(-0.0f));
    // One rounding: (1 + 2^-23)(1 - 2^-24) - 1 = 2^-24 - 2^-47 exactly, where rounding
    // the product first would give 0.
    volatile float u = 1.00000012f, w = 0.99999994f;
    assert(hls::fma(u, w, -1.0f) == 5.96046377e-08f);
    double q = hls::nan("");
    float qf = hls::nanf("");
    assert(q != q && qf != qf);

    // AXI4-Stream beats: -1 is all ones in the field's width, values keep their low bits.
    typedef ap_axiu<32, 0, 0, 0> beat_t;
    beat_t beat;
    beat.data = 0xDEADBEEFu;
    beat.keep = -1;
    beat.strb = -1;
    beat.last = true;
    assert(beat.data.to_uint() == 0xDEADBEEFu && beat.keep.to_uint() == 0xFu);
    assert(beat.strb.to_uint() == 0xFu && beat.last.to_uint() == 1u && beat.last == 1);
    beat.last = 2;  // one bit: the low bit of 2
    assert(beat.last.to_uint() == 0u);
    ap_uint<64> wide = -1;
    assert(wide.to_uint64() == ~0ull && wide.length() == 64);
    hls::stream<beat_t> axis("axis");
    axis.write(beat);
    assert(axis.read().data.to_uint() == 0xDEADBEEFu && axis.empty());
    std::puts("ok");
    return 0;
}
"""


def test_csim_headers(tmp_path):
    source = tmp_path / "headers_test.cpp"
    source.write_text(TEST)
    binary = tmp_path / "headers_test"
    flags = [f for f in CXXFLAGS if f != OPTIMIZATION] + ["-O0"]
    subprocess.run([gxx.compiler(), *flags, "-I", str(csim_include_dir()), str(source), "-o",
                    str(binary)], check=True)
    done = subprocess.run([binary], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


MISUSE = r"""
#include "hls_stream.h"
int main(int argc, char**) {
    hls::stream<int> s("s");
    if (argc > 1) {
        s.write(1);  // left behind
        return 0;
    }
    return s.read();  // read while empty
}
"""


def test_stream_misuse_ends_the_program_with_status_3(tmp_path):
    """The stand-in has no API of its own to ask (Vitis' header has none): misuse ends
    the program, status 3, with the reason on stderr."""
    source = tmp_path / "misuse.cpp"
    source.write_text(MISUSE)
    binary = tmp_path / "misuse"
    subprocess.run([gxx.compiler(), *CXXFLAGS, "-I", str(csim_include_dir()), str(source),
                    "-o", str(binary)], check=True)
    empty = subprocess.run([binary], capture_output=True, text=True)
    assert empty.returncode == 3 and "'s' read while empty" in empty.stderr
    leftover = subprocess.run([binary, "x"], capture_output=True, text=True)
    assert leftover.returncode == 3 and "1 leftover element" in leftover.stderr


OPS_CONSTANTS = r"""
#include <cstdio>
#include <cstring>
#include "fpgakern_ops.h"

int main() {
    const float values[] = {fk::kTwo60, fk::kTwo70, fk::kTwo100,
                            fk::kTwoMinus60, fk::kTwoMinus70, fk::kTwoMinus100};
    std::fwrite(values, sizeof values, 1, stdout);
    return 0;
}
"""


def test_fpgakern_ops_h_is_strict_cxx14_and_its_constants_exact(tmp_path):
    """fpgakern_ops.h (with the csim stand-ins it includes) compiles as strict C++14
    without a warning, and its scale factors are exactly the powers of two."""
    source = tmp_path / "ops.cpp"
    source.write_text(OPS_CONSTANTS)
    binary = tmp_path / "ops"
    include = paths.data_dir("hls_templates") / "include"
    gxx.run([*STRICT_CXX14, "-I", str(include), "-I", str(csim_include_dir()), str(source),
             "-o", str(binary)], source.name)
    out = subprocess.run([binary], capture_output=True, check=True).stdout
    want = np.ldexp(np.float32(1), [60, 70, 100, -60, -70, -100]).astype(np.float32)
    assert np.frombuffer(out, dtype=np.float32).view(np.uint32).tolist() == \
        want.view(np.uint32).tolist()
