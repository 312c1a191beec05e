// fpgakern_ops.h: operator helpers the generated HLS kernels call as fk::<op>.
//
// Each helper spells out the semantics fpgakern's op table defines (torch's, where torch
// has the operator) without undefined behaviour, so that the kernel means the same thing
// in C simulation, in Vitis HLS synthesis and in fpgakern's RTL. Shipped with every
// generated kernel; part of the kernel's sources.
#ifndef FPGAKERN_OPS_H
#define FPGAKERN_OPS_H

#include <cstdint>
#include <limits>

#include "hls_math.h"

namespace fk {

constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr float kFloatInf = std::numeric_limits<float>::infinity();
constexpr float kFloatNaN = std::numeric_limits<float>::quiet_NaN();  // the canonical quiet NaN

// IEEE 754-2019 maximum/minimum: NaN propagates, and -0 orders below +0.
inline float maximum(float a, float b) {
    if (a != a || b != b) return kFloatNaN;
    if (a == b) return hls::signbit(a) ? b : a;
    return a > b ? a : b;
}
inline float minimum(float a, float b) {
    if (a != a || b != b) return kFloatNaN;
    if (a == b) return hls::signbit(a) ? a : b;
    return a < b ? a : b;
}
inline int32_t maximum(int32_t a, int32_t b) { return a > b ? a : b; }
inline int32_t minimum(int32_t a, int32_t b) { return a < b ? a : b; }

// Wrapping two's complement arithmetic, computed on unsigned values so that no input
// is undefined behaviour (HLS hardware wraps the same way).
inline int32_t wrap(uint32_t x) { return static_cast<int32_t>(x); }
inline int32_t abs(int32_t x) { return x < 0 ? wrap(0u - static_cast<uint32_t>(x)) : x; }
inline float abs(float x) { return hls::fabs(x); }

// torch.relu: +0 for x < 0, else x (NaN and -0 pass through, as in torch).
inline float relu(float x) { return x < 0.0f ? 0.0f : x; }
inline int32_t relu(int32_t x) { return x > 0 ? x : 0; }

// Fused multiply-add x*y + z. float: one rounding (IEEE fusedMultiplyAdd), which is what
// torch.add(z, y, alpha=x) computes on the CPU; a separate multiply and add would round
// twice. int32: the low 32 bits, wrapping.
inline float fma(float x, float y, float z) { return hls::fma(x, y, z); }
inline int32_t fma(int32_t x, int32_t y, int32_t z) {
    return wrap(static_cast<uint32_t>(x) * static_cast<uint32_t>(y) + static_cast<uint32_t>(z));
}

// torch.div: true division for float; for int32 rounding_mode='trunc', with x / 0 = -1
// (torch raises; hardware must answer, and all ones is what a divider gives) and
// INT32_MIN / -1 = INT32_MIN (wraps).
inline float div(float a, float b) { return a / b; }
inline int32_t div(int32_t a, int32_t b) {
    if (b == 0) return -1;
    if (a == kInt32Min && b == -1) return kInt32Min;
    return a / b;
}

// torch's shifts: << by an amount outside 0..31 gives 0; >> (arithmetic) shifts by 31.
inline int32_t shl(int32_t a, int32_t b) {
    return (b < 0 || b > 31) ? 0 : wrap(static_cast<uint32_t>(a) << b);
}
inline int32_t shr(int32_t a, int32_t b) { return a >> ((b < 0 || b > 31) ? 31 : b); }

// Truncation toward zero; NaN and out-of-range values give INT32_MIN, as x86's
// cvttss2si (and so torch on x86 CPUs) does.
inline int32_t to_int32(float x) {
    if (!(x >= -2147483648.0f && x < 2147483648.0f)) return kInt32Min;
    return static_cast<int32_t>(x);
}

// 1 / (1 + exp(-x)). Below -17, exp(-x) would overflow long before the result leaves
// the subnormal range, while sigmoid(x) = exp(x) to within 2**-24 relative.
inline float sigmoid(float x) {
    if (x < -17.0f) return hls::exp(x);
    return 1.0f / (1.0f + hls::exp(-x));
}

}  // namespace fk

#endif  // FPGAKERN_OPS_H
