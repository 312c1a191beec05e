"""The names a spec may give a kernel and its arguments: plain identifiers that no
generated C++, SystemVerilog, HLS pragma or host program already uses."""

from __future__ import annotations

import keyword
import re
from typing import Any

from fpgakern.errors import shown
from fpgakern.spec.yamlpos import Located

# fullmatch, never match: "$" also matches before a trailing newline ("add\n").
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,30}")

# SystemVerilog keywords likely to collide.
_SV_KEYWORDS = frozenset(
    {
        "always", "assign", "begin", "bit", "buf", "byte", "cell", "config", "end",
        "function", "generate", "genvar", "initial", "input", "inout", "integer", "logic",
        "module", "output", "parameter", "real", "reg", "signal", "string", "task", "time",
        "type", "wire", "wor", "xor", "and", "or", "not", "nand", "nor", "xnor", "edge",
        "event", "final", "force", "fork", "join", "ref", "table", "var",
    }
)

# Names the generated C++, SystemVerilog and host code use themselves, plus both
# languages' keywords: a kernel or argument with one of these names would not compile.
RESERVED = frozenset(
    {
        "n", "size", "interrupt", "clk", "ce", "rst", "reset", "main", "std", "hls", "fk",
        # size arguments of the shaped kinds (fpgakern.ir.shapes.SIZE_ARGS)
        "rows", "cols", "inner", "channels", "channel0", "m", "batch",
        # locals and helpers of the generated kernels and testbenches
        "i", "k", "l", "acc", "base", "len", "slot", "partial", "value", "column", "result",
        "count", "words", "element", "load", "store", "compute", "reduce", "cu", "first",
        "share", "elements", "combine_tree", "lane", "lane_total", "word_t", "in", "ok",
        "result_file", "read_exact", "run_case",
        # ... and of the shaped kinds' kernels and testbenches (hls_templates/common/shaped*)
        "c", "j", "r", "w", "at", "qc", "beats", "word", "results", "width", "row_words",
        "judged", "pitch", "main_elements", "expected", "actual", "offset", "unit", "differ",
        "row_length", "row_start", "row_largest", "row_ulps", "written",
        # C++ keywords (and common macros) not already Python keywords
        "alignas", "alignof", "asm", "auto", "bool", "case", "catch", "char", "const",
        "constexpr", "default", "delete", "do", "double", "enum", "explicit", "export",
        "extern", "float", "friend", "goto", "inline", "int", "long", "mutable", "namespace",
        "new", "noexcept", "operator", "private", "protected", "public", "register",
        "short", "signed", "sizeof", "static", "struct", "switch", "template", "this",
        "throw", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
        "void", "volatile", "while", "int32_t", "uint32_t", "vector", "stream",
    }
    | _SV_KEYWORDS
    | set(keyword.kwlist)
)
# Names a ``top:`` may not take: the top is an ``extern "C"`` function of the generated
# HLS C++ (global namespace, C linkage), and the C++ testbench and host program that call
# it include <cmath>, <cstdlib>, <cstdio>, <cstring>, <cstdint>, <complex>, <algorithm>,
# <vector>, <string>, <chrono> and XRT's headers (which pull in <unistd.h> and
# <pthread.h>). A top of one of these names redeclares a library function with another
# signature (a compile error, or worse a silent link to the wrong symbol), or is shadowed
# by a macro or template of that name. The default tops (``exp_f32``) carry a dtype tag
# and cannot collide; only a ``top:`` is checked against this list.
C_MATH_FUNCTIONS = frozenset(
    {  # <cmath> / <math.h>; their float and long double forms (sqrtf, sqrtl) too
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil",
        "copysign", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim",
        "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "isfinite",
        "isinf", "isnan", "isnormal", "ldexp", "lgamma", "llrint", "llround", "log",
        "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan", "nearbyint",
        "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round",
        "scalbln", "scalbn", "signbit", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma",
        "trunc", "fpclassify", "j0", "j1", "jn", "y0", "y1", "yn", "gamma", "drem",
        "significand", "exp10", "pow10", "sincos",
    }
)
C_LIBRARY_NAMES = C_MATH_FUNCTIONS | frozenset(
    {
        # <cstdlib> / <stdlib.h>
        "abort", "atexit", "atof", "atoi", "atol", "atoll", "bsearch", "calloc", "div",
        "exit", "free", "getenv", "labs", "ldiv", "llabs", "lldiv", "malloc", "qsort",
        "rand", "realloc", "srand", "strtod", "strtof", "strtol", "strtold", "strtoll",
        "strtoul", "strtoull", "system", "quick_exit", "aligned_alloc", "posix_memalign",
        "setenv", "unsetenv", "mkstemp", "random", "srandom",
        # <cstdio> / <stdio.h>
        "printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "putchar", "fputc",
        "getchar", "fgetc", "gets", "fgets", "fopen", "fclose", "fread", "fwrite", "fseek",
        "ftell", "fflush", "perror", "remove", "rename", "scanf", "sscanf", "fscanf",
        "tmpfile", "rewind", "feof", "ferror", "stdin", "stdout", "stderr", "getline",
        # <cstring> / <string.h>
        "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strcpy", "strncpy",
        "strcat", "strncat", "strcmp", "strncmp", "strchr", "strrchr", "strstr", "strtok",
        "strerror", "strdup", "strndup",
        # <algorithm>, <utility>, <complex>: templates a host's ``using namespace std``
        # brings into scope beside the top
        "max", "min", "swap", "sort", "copy", "fill", "find", "count", "clamp", "real",
        "imag", "conj", "arg", "norm", "polar", "proj", "move", "forward", "begin", "end",
        "data", "size",
        # process, time and threads (<unistd.h>, <ctime>, <pthread.h>, <csignal>)
        "main", "read", "write", "open", "close", "sleep", "usleep", "fork", "pipe",
        "dup", "dup2", "kill", "signal", "raise", "time", "clock", "difftime", "mktime",
        "gmtime", "localtime", "strftime", "nanosleep", "select", "poll", "mmap", "munmap",
        "ioctl", "errno", "assert", "setjmp", "longjmp", "alarm", "getpid", "wait",
        "exec", "execv", "execve", "execvp", "unlink", "access", "stat", "sync", "link",
        # namespaces of the host code: XRT's and fpgakern's own
        "xrt", "fpgakern", "xcl",
    }
)


def library_symbol(name: str) -> bool:
    """Whether ``name`` is a C/C++ library name the generated code or a host sees."""
    return name in C_LIBRARY_NAMES or (name[-1:] in ("f", "l")
                                       and name[:-1] in C_MATH_FUNCTIONS)


# A kernel's name reaches the SystemVerilog only with its dtype tag (real_c64), so the SV
# keywords that are no C++ word may name a kernel (torch.real's).
_KERNEL_NAMES_ALLOWED = _SV_KEYWORDS - {"and", "or", "not", "xor", "bool"}
RESERVED_PREFIXES = ("ap_", "s_axi", "m_axi", "fk_", "axi_", "__")
# Generated code derives names from argument names with these suffixes.
_RESERVED_SUFFIXES = ("_buf", "_v", "_stream", "_path", "_tab", "_row", "_lane", "_partial",
                      "_pass")


# Names AMD's stream kernels give their AXI4-Stream arguments (increment(input, output),
# mem_read(mem, size, stream)): a stream argument reaches the RTL only as <name>_TDATA,
# _TVALID, ... and the HLS C++ only as a parameter, so these keywords may name one.
# _check_streams refuses them on anything but a stream.
STREAM_ONLY_NAMES = frozenset({"input", "output", "stream"})


def check_identifier(doc: Located, key: str, name: Any, *path: str | int) -> str:
    """A name that ends up in C++, SystemVerilog and file paths must be plain and unused."""
    if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
        raise doc.error(
            key,
            f"{shown(name)} is not a valid name (lower-case letter, then letters, digits or _; "
            "at most 31 characters)",
            *path,
        )
    allowed = _KERNEL_NAMES_ALLOWED if key == "kernel" else \
        STREAM_ONLY_NAMES if key in ("inputs", "outputs", "streams") else frozenset()
    if (name in RESERVED and name not in allowed) or name.startswith(
        RESERVED_PREFIXES
    ) or name.endswith(_RESERVED_SUFFIXES):
        raise doc.error(key, f"{shown(name)} is reserved in the generated C++/SystemVerilog", *path)
    return name
