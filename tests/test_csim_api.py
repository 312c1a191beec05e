"""The generated testbench is one Vitis can run, and it can fail.

* Every generated kernel and testbench compiles against ``tests/data/vitis_api/``, headers
  that declare only the part of the real Vitis HLS API fpgakern may use (no stand-in
  extension such as the old ``hls::csim_failed()``).
* The testbench compares every result with the reference and exits non-zero when one
  differs: a kernel altered to flip one bit of one output fails it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from variant_selection import all_variants, representative_variants

from fpgakern.backends.hls import generate
from fpgakern.backends.hls.cexpr import CSpelling
from fpgakern.interface import interface
from fpgakern.ladder import plan
from fpgakern.spec.library import Library
from fpgakern.tools import gxx
from fpgakern.verify import csim, stimulus

VITIS_API = Path(__file__).parent / "data" / "vitis_api"
USER_SPECS = Path(__file__).parent / "data" / "user_project" / "kernel_specs"


def _plans(library, which: str):
    """The representative variants of the bundled library and of the user-style one, or
    the rest of both."""
    user = Library(USER_SPECS)
    chosen = []
    for lib in (library, user):
        fast = set(representative_variants(lib))
        chosen += [plan(lib.get(n), r, d) for n, r, d in all_variants(lib)
                   if ((n, r, d) in fast) == (which == "representative")]
    return chosen


def _code_of(text: str, top: str) -> str:
    """``text`` without its // comments and with the top's name replaced."""
    return re.sub(rf"\b{re.escape(top)}\b", "TOP", re.sub(r"//[^\n]*", "", text))


def _syntax_check(sources: list[Path]) -> subprocess.CompletedProcess:
    flags = [f for f in csim.CXXFLAGS if f != csim.OPTIMIZATION]
    # One g++ run, each file its own translation unit; "fpgakern_ops.h" is found beside
    # each file, the hls_*.h headers only in the API subset.
    return subprocess.run([gxx.compiler(), *flags, "-fsyntax-only", "-I", str(VITIS_API),
                           *map(str, sources)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("which", ["representative",
                                   pytest.param("rest", marks=pytest.mark.slow)])
def test_generated_code_uses_only_the_vitis_api(library, tmp_path, which):
    files = []
    testbenches: set[str] = set()
    for i, p in enumerate(_plans(library, which)):
        sources = generate(p, tmp_path / f"v{i}")
        files.append(sources.kernel)
        # A testbench whose code is another's but for the top's name uses the same API:
        # checked once (119 representative testbenches are 74 distinct ones).
        code = _code_of(sources.testbench.read_text(), p.top)
        if code not in testbenches:
            testbenches.add(code)
            files.append(sources.testbench)
    assert len(files) > 60
    done = _syntax_check(files)
    assert done.returncode == 0, done.stderr[:3000]


def test_the_api_check_fails_on_a_name_vitis_lacks(library, tmp_path):
    sources = generate(plan(library.get("unary_ops/neg"), 2, "float32"), tmp_path)
    text = sources.testbench.read_text()
    sources.testbench.write_text(text.replace("    return status;\n",
                                              "    return hls::csim_failed() ? 3 : status;\n"))
    done = _syntax_check([sources.testbench])
    assert done.returncode != 0 and "csim_failed" in done.stderr


def _flip_one_output_bit(p, kernel: Path, bit: int) -> None:
    """Rename the kernel and put a wrapper in its place that calls it, then flips bit
    ``bit`` of result element 7 (element 0 of a reduction), once per run."""
    iface = interface(p)
    c = CSpelling(p, iface)
    text = kernel.read_text()
    head = f'extern "C" void {p.top}('
    assert text.count(head) == 1
    text = text.replace(head, f"static void {p.top}_unaltered(")
    element = 0 if p.kernel.is_reduction else 7
    byte = element * p.dtype.bits // 8 + bit // 8
    args = ", ".join(a.name for a in iface.args)
    text += f"""
{c.signature(" {")}
    {p.top}_unaltered({args});
    static bool flipped = false;
    if (!flipped && n > {element}) {{
        reinterpret_cast<unsigned char*>({p.kernel.output})[{byte}] ^= {1 << (bit % 8)};
        flipped = true;
    }}
}}
"""
    kernel.write_text(text)


@pytest.mark.parametrize(("name", "rung", "dtype", "bit"), [
    ("binary_ops/add", 2, "float32", 0),     # exact float: the last mantissa bit
    ("binary_ops/add", 4, "int32", 0),       # 512-bit words, lane 7 of word 0
    ("unary_ops/neg", 3, "float32", 0),      # four CUs on sub-pointers
    ("reduce_ops/sum", 1, "int32", 0),       # exact reduction
    ("reduce_ops/sum", 4, "float32", 31),    # float sum: within its bound, so the sign
    ("reduce_ops/max", 3, "float32", 0),     # partials merged over CUs
    ("binary_ops/mul", 4, "complex64", 32),  # complex64: the imaginary part's last bit
])
def test_testbench_fails_when_one_output_bit_flips(library, tmp_path, name, rung, dtype, bit):
    p = plan(library.get(name), rung, dtype)
    case = next(c for c in stimulus.cases(p.kernel, p.dtype, size=300) if c.label == "random")
    case_file = tmp_path / "case.bin"
    csim.write_case(case, p, case_file)

    def run(sources) -> subprocess.CompletedProcess:
        binary = csim.compile_testbench(sources)
        out = sources.kernel.parent / "out.bin"
        done = subprocess.run([binary, case_file, out], capture_output=True, text=True,
                              check=False)
        return done, np.fromfile(out, dtype=p.dtype.numpy).view(np.uint32)

    good, good_out = run(generate(p, tmp_path / "good"))
    assert good.returncode == 0 and "PASS" in good.stdout, good.stderr
    altered = generate(p, tmp_path / "altered")
    _flip_one_output_bit(p, altered.kernel, bit)
    bad, bad_out = run(altered)
    assert bad.returncode == 1, (bad.returncode, bad.stdout, bad.stderr)
    assert "1 of " in bad.stderr and "values differ from the reference" in bad.stderr
    flipped = good_out ^ bad_out
    # one bit of one output (a complex64 element is two of these 32-bit words)
    assert np.count_nonzero(flipped) == 1 and flipped.max() == 1 << (bit % 32)
