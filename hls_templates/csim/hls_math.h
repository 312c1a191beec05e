// hls_math.h stand-in for C simulation with a stock g++.
//
// Vitis HLS ships hls_math.h with synthesizable implementations; it has no open release.
// For csim, the functions the generated kernels use map to <cmath> for float, with the
// vendor header's signatures. Real Vitis builds use the vendor header instead of this one.
//
// FPGAKERN_CSIM_FLUSH_SUBNORMALS (fpgakern csim --hls-flush-subnormals) makes the whole
// testbench compute as Vitis-built float hardware does: the Floating-Point Operator core
// treats subnormal operands as zero and flushes subnormal results to zero, keeping the
// sign (docs/vitis.md). The kernel's own + - * / and comparisons are plain C++, so the
// flush for those comes from the CPU: x86's MXCSR DAZ (denormal operands are zero) and
// FTZ (subnormal results are zero) bits, set before main() runs. The functions below
// flush explicitly as well, so that their result never depends on how glibc computes.
#ifndef FPGAKERN_CSIM_HLS_MATH_H
#define FPGAKERN_CSIM_HLS_MATH_H

#include <cmath>

#ifdef FPGAKERN_CSIM_FLUSH_SUBNORMALS
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <xmmintrin.h>
#else
#error "FPGAKERN_CSIM_FLUSH_SUBNORMALS needs x86-64 (SSE's DAZ and FTZ modes)"
#endif

namespace fpgakern_csim {

constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR bit 6
constexpr unsigned kFlushToZero = 0x8000;       // MXCSR bit 15

// One object per translation unit; its constructor runs before main(), before any
// kernel arithmetic. MXCSR is per thread, and C simulation runs on one.
struct FlushSubnormals {
    FlushSubnormals() { _mm_setcsr(_mm_getcsr() | kDenormalsAreZero | kFlushToZero); }
};
static const FlushSubnormals flush_subnormals;

// By the bits, not by comparisons: under DAZ a subnormal compares equal to zero.
inline float flush(float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7F800000u) == 0) bits &= 0x80000000u;
    std::memcpy(&x, &bits, sizeof bits);
    return x;
}

}  // namespace fpgakern_csim

#define FPGAKERN_CSIM_FLUSH(x) ::fpgakern_csim::flush(x)
#else
#define FPGAKERN_CSIM_FLUSH(x) (x)
#endif

namespace hls {

inline float exp(float x) { return FPGAKERN_CSIM_FLUSH(std::exp(FPGAKERN_CSIM_FLUSH(x))); }
inline float sqrt(float x) { return FPGAKERN_CSIM_FLUSH(std::sqrt(FPGAKERN_CSIM_FLUSH(x))); }
inline float log(float x) { return FPGAKERN_CSIM_FLUSH(std::log(FPGAKERN_CSIM_FLUSH(x))); }
inline float log2(float x) { return FPGAKERN_CSIM_FLUSH(std::log2(FPGAKERN_CSIM_FLUSH(x))); }
inline float log1p(float x) { return FPGAKERN_CSIM_FLUSH(std::log1p(FPGAKERN_CSIM_FLUSH(x))); }
inline float exp2(float x) { return FPGAKERN_CSIM_FLUSH(std::exp2(FPGAKERN_CSIM_FLUSH(x))); }
inline float tanh(float x) { return FPGAKERN_CSIM_FLUSH(std::tanh(FPGAKERN_CSIM_FLUSH(x))); }
inline float expm1(float x) { return FPGAKERN_CSIM_FLUSH(std::expm1(FPGAKERN_CSIM_FLUSH(x))); }
inline float atan2(float y, float x) {
  return FPGAKERN_CSIM_FLUSH(std::atan2(FPGAKERN_CSIM_FLUSH(y), FPGAKERN_CSIM_FLUSH(x)));
}
inline float erf(float x) { return FPGAKERN_CSIM_FLUSH(std::erf(FPGAKERN_CSIM_FLUSH(x))); }
// double, for fk::gelu and fk::gelu_tanh (float32 formulas cancel in gelu's negative tail);
// the flushing build's MXCSR (FTZ, DAZ) flushes their float operand and result.
inline double erfc(double x) { return std::erfc(x); }
inline double exp(double x) { return std::exp(x); }
inline float sin(float x) { return FPGAKERN_CSIM_FLUSH(std::sin(FPGAKERN_CSIM_FLUSH(x))); }
inline float cos(float x) { return FPGAKERN_CSIM_FLUSH(std::cos(FPGAKERN_CSIM_FLUSH(x))); }
// std::fma rounds once. Whether the Vitis hls::fma does on UltraScale+ is not documented
// (docs/vitis.md, "fma"): this is fpgakern's contract, not a model of Vitis.
inline float fma(float x, float y, float z) {
    return FPGAKERN_CSIM_FLUSH(std::fma(FPGAKERN_CSIM_FLUSH(x), FPGAKERN_CSIM_FLUSH(y),
                                        FPGAKERN_CSIM_FLUSH(z)));
}
inline float fmod(float x, float y) {
    return FPGAKERN_CSIM_FLUSH(std::fmod(FPGAKERN_CSIM_FLUSH(x), FPGAKERN_CSIM_FLUSH(y)));
}
inline float pow(float x, float y) {
    return FPGAKERN_CSIM_FLUSH(std::pow(FPGAKERN_CSIM_FLUSH(x), FPGAKERN_CSIM_FLUSH(y)));
}
inline float fabs(float x) { return std::fabs(x); }  // a sign-bit clear: never flushes
inline int signbit(float x) { return std::signbit(x) ? 1 : 0; }
inline double nan(const char* tag) { return std::nan(tag); }  // double, as in the Vitis header
inline float nanf(const char* tag) { return std::nanf(tag); }

}  // namespace hls

#undef FPGAKERN_CSIM_FLUSH

#endif  // FPGAKERN_CSIM_HLS_MATH_H
