// fpgakern_ops.h: operator helpers the generated HLS kernels call as fk::<op>.
//
// Each helper spells out the semantics fpgakern's op table defines (torch's, where torch
// has the operator) without undefined behaviour, so that the kernel means the same thing
// in C simulation, in Vitis HLS synthesis and in fpgakern's RTL. Shipped with every
// generated kernel; part of the kernel's sources.
#ifndef FPGAKERN_OPS_H
#define FPGAKERN_OPS_H

// Every float operation below is rounded on its own unless written as hls::fma: no
// contraction of a*b + c, here as in the generated kernels that include this header
// (Vitis HLS's clang honours the pragma; g++ ignores it and is given -ffp-contract=off).
#pragma STDC FP_CONTRACT OFF

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

// Index reductions (argmax, argmin): a value and the index of the element it came from.
template <typename T>
struct Indexed {
    T value;
    int32_t index;
};

// The pair an argmax (Larger) or an argmin keeps of a and b: NaN beats every number, then
// the larger (smaller) value; among equal values (-0 == +0, NaN and NaN) the lower index.
// This orders all pairs totally, so any order of combination keeps the same pair.
template <bool Larger, typename T>
inline Indexed<T> pick(Indexed<T> a, Indexed<T> b) {
    const bool a_nan = a.value != a.value;
    const bool b_nan = b.value != b.value;
    const bool beyond = Larger ? b.value > a.value : b.value < a.value;
    const bool equal = (a_nan && b_nan) || a.value == b.value;
    const bool take_b = (b_nan && !a_nan) || (!a_nan && !b_nan && beyond) ||
                        (equal && b.index < a.index);
    return take_b ? b : a;
}

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

// torch.nn.functional.gelu, x * Phi(x), in double and rounded once: the float32 formula
// x * 0.5 * (1 + erf(x / sqrt(2))) cancels for x << 0, 0.5 * x * erfc(-x / sqrt(2)) in
// double is accurate down to the underflow (about -14.3). gelu(-inf) = -inf * 0 = NaN.
inline float gelu(float x) {
    const double xd = x;
    return static_cast<float>(0.5 * xd * hls::erfc(xd * -0.70710678118654752440));
}

// gelu(approximate='tanh'): 0.5 x (1 + tanh(u)) = x * sigmoid(2u) = x / (1 + e^(-2u)),
// u = sqrt(2/pi) (x + 0.044715 x^3), in double (1 + tanh(u) would cancel for x << 0).
inline float gelu_tanh(float x) {
    const double xd = x;
    const double two_u = 1.5957691216057308 * (xd + 0.044715 * xd * xd * xd);
    return static_cast<float>(xd / (1.0 + hls::exp(-two_u)));
}

// Rounding to an integral value, as torch.trunc/floor/ceil/round (round: ties to even).
// Below 2^23 in magnitude a float -> int32 -> float round trip truncates exactly (every
// float from 2^23 up is integral already, and so are infinities; NaN passes). The sign is
// put back so that trunc(-0.5) = -0, as IEEE and torch have it. On integers: unchanged.
inline float trunc(float x) {
    if (!(hls::fabs(x) < 8388608.0f)) return x;
    const float t = static_cast<float>(static_cast<int32_t>(x));
    return hls::signbit(x) ? -hls::fabs(t) : t;
}
inline float floor(float x) {
    const float t = trunc(x);
    return t > x ? t - 1.0f : t;  // only below zero: -0.5 -> -1, while -0 stays -0
}
inline float ceil(float x) {
    const float t = trunc(x);
    return t < x ? t + 1.0f : t;  // only above zero: ceil(-0.5) keeps trunc's -0
}
inline float round(float x) {
    const float t = trunc(x);
    const float d = hls::fabs(x - t);  // the fraction, exact (both share x's binade)
    // A tie needs |x| < 2^23, so only then is t converted (out of range would be UB).
    const bool away = d > 0.5f || (d == 0.5f && (static_cast<int32_t>(t) & 1) != 0);
    return away ? (hls::signbit(x) ? t - 1.0f : t + 1.0f) : t;
}
inline int32_t trunc(int32_t x) { return x; }
inline int32_t floor(int32_t x) { return x; }
inline int32_t ceil(int32_t x) { return x; }
inline int32_t round(int32_t x) { return x; }

// torch.sign: (0 < x) - (x < 0), so +-0 and NaN give +0.
inline float sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
inline int32_t sign(int32_t x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// torch.copysign: a's magnitude with b's sign bit (NaN signs count; a sign-bit operation).
inline float copysign(float a, float b) { return hls::signbit(a) != hls::signbit(b) ? -a : a; }

// torch.clamp(x, lo, hi) with tensor bounds: min(max(x, lo), hi); NaN propagates.
inline float clamp(float x, float lo, float hi) { return minimum(maximum(x, lo), hi); }
inline int32_t clamp(int32_t x, int32_t lo, int32_t hi) { return minimum(maximum(x, lo), hi); }

// torch.fmod: C's remainder, exact, with a's sign (fmod(-4, 2) = -0). int32: truncating %,
// with x % 0 = x (torch raises; hardware must answer: the RISC-V convention) and
// INT32_MIN % -1 = 0 (the C expression would trap on x86).
inline float fmod(float a, float b) { return hls::fmod(a, b); }
inline int32_t fmod(int32_t a, int32_t b) {
    if (b == 0) return a;
    if (b == -1) return 0;
    return a % b;
}

// torch.remainder: Python's remainder, with b's sign. As torch's CPU kernel: fmod, then
// + b (one rounding: remainder(-1e-30, 1) = 1.0) where the remainder is nonzero and its
// sign differs from b's; a zero keeps its sign (remainder(-0, 1) = -0). hls::remainder is
// IEEE's round-to-nearest remainder, another function. int32: floored %, x % 0 = x (the
// correction adds 0) and INT32_MIN % -1 = 0 (fmod's cases); r + b cannot overflow, the
// signs differing.
inline float remainder(float a, float b) {
    const float r = hls::fmod(a, b);
    return r != 0.0f && hls::signbit(r) != hls::signbit(b) ? r + b : r;
}
inline int32_t remainder(int32_t a, int32_t b) {
    const int32_t r = fmod(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}


// complex64 (issue 16): two floats, re at the low address, im at the high one (the layout
// of numpy's complex64, torch.complex64 and std::complex<float>, so buffers need no
// repacking). Not std::complex<float>: its * and / follow C99 Annex G (g++ calls
// __mulsc3 and __divsc3, which recompute infinities) where torch's CPU kernels compute
// fixed IEEE sequences, spelled out below, each operation rounded on its own (no
// contraction: the pragma at the top of this file).
struct cfloat {
    float re;
    float im;
};
static_assert(sizeof(cfloat) == 8, "complex64 is two packed floats");

// torch promotes a real operand to (x, +0).
inline cfloat to_complex64(float x) { return cfloat{x, 0.0f}; }

// Componentwise, as torch's vector add and subtract.
inline cfloat operator+(cfloat a, cfloat b) { return cfloat{a.re + b.re, a.im + b.im}; }
inline cfloat operator-(cfloat a, cfloat b) { return cfloat{a.re - b.re, a.im - b.im}; }

// (ac - bd) + (ad + bc)i, every product and sum rounded on its own: torch's vectorized
// complex multiply (its scalar tail fuses; docs/runtime.md).
inline cfloat operator*(cfloat x, cfloat y) {
    const float ac = x.re * y.re, bd = x.im * y.im, ad = x.re * y.im, bc = x.im * y.re;
    return cfloat{ac - bd, ad + bc};
}

// torch.add(z, y, alpha=x): z + y*x by a full complex multiply, then an add (torch's
// vec::fmadd for complex is not fused), so an infinite y component meets x's +0.
inline cfloat fma(cfloat x, cfloat y, cfloat z) { return x * y + z; }

// torch.conj: the imaginary part's sign flipped (a sign-bit operation).
inline cfloat conj(cfloat x) { return cfloat{x.re, -x.im}; }

// torch 2.13's complex division (c10::complex<float>::operator/=): Smith's algorithm as
// numpy has it, with each p + q*r contracted into one fused multiply-add, as GCC compiles
// it into torch's AVX2/AVX-512 kernels (measured bit for bit: docs/runtime.md).
inline cfloat div(cfloat x, cfloat y) {
    const float a = x.re, b = x.im, c = y.re, d = y.im;
    const float abs_c = hls::fabs(c), abs_d = hls::fabs(d);
    if (abs_c >= abs_d) {
        if (abs_c == 0.0f && abs_d == 0.0f) return cfloat{a / abs_c, b / abs_d};
        const float rat = d / c;
        const float scl = 1.0f / hls::fma(d, rat, c);
        return cfloat{hls::fma(b, rat, a) * scl, hls::fma(-a, rat, b) * scl};
    }
    const float rat = c / d;  // also where c or d is NaN
    const float scl = 1.0f / hls::fma(c, rat, d);
    return cfloat{hls::fma(a, rat, b) * scl, hls::fma(b, rat, -a) * scl};
}

// complex64 to float32 (torch.real, torch.imag, torch.angle, torch.abs): component
// selects, atan2(im, re), and a scaled hypot. fk::abs is the RTL's sequence
// (fpgakern/ir/complex_lowering.py) operation for operation, so C simulation and the RTL
// agree bit for bit: m = max(|re|, |im|), s = min(...); both scaled by 2^100 where
// m < 2^-60 and by 2^-70 where m > 2^60 (exact, and neither square over- or underflows
// where it matters), sqrt(fma(m, m, s * s)) scaled back; +inf where either part is
// infinite (C99 hypot, torch), even beside a NaN. Within 1.25 ulp of the correctly
// rounded |x| (docs/operators.md).
inline float real(cfloat x) { return x.re; }
inline float imag(cfloat x) { return x.im; }
inline float angle(cfloat x) { return hls::atan2(x.im, x.re); }
// The scale factors: 2^60, 2^70 and 2^100 as decimal integers, and their reciprocals, all
// exact (powers of two; C++14, which Vitis HLS compiles, has no hexadecimal floats).
constexpr float kTwo60 = 1152921504606846976.0f;
constexpr float kTwo70 = 1180591620717411303424.0f;
constexpr float kTwo100 = 1267650600228229401496703205376.0f;
constexpr float kTwoMinus60 = 1.0f / kTwo60;
constexpr float kTwoMinus70 = 1.0f / kTwo70;
constexpr float kTwoMinus100 = 1.0f / kTwo100;
inline float abs(cfloat x) {
    const float a = hls::fabs(x.re), b = hls::fabs(x.im);
    const bool a_larger = a >= b;
    const float m = a_larger ? a : b, s = a_larger ? b : a;
    const bool tiny = m < kTwoMinus60, huge = m > kTwo60;
    const float up = tiny ? kTwo100 : (huge ? kTwoMinus70 : 1.0f);
    const float down = tiny ? kTwoMinus100 : (huge ? kTwo70 : 1.0f);
    const float ms = m * up, ss = s * up;
    const float r = hls::sqrt(hls::fma(ms, ms, ss * ss)) * down;
    return (a == kFloatInf || b == kFloatInf) ? kFloatInf : r;
}

// A 32-bit element as the bit pattern an AXI4-Stream beat's TDATA carries, and back
// (float32 travels as its IEEE bits, int32 as its two's complement bits).
inline uint32_t to_bits(float x) {
    union {
        float f;
        uint32_t u;
    } pun;
    pun.f = x;
    return pun.u;
}
inline uint32_t to_bits(int32_t x) { return static_cast<uint32_t>(x); }
template <typename T>
T from_bits(uint32_t bits);
template <>
inline float from_bits<float>(uint32_t bits) {
    union {
        uint32_t u;
        float f;
    } pun;
    pun.u = bits;
    return pun.f;
}
template <>
inline int32_t from_bits<int32_t>(uint32_t bits) {
    return static_cast<int32_t>(bits);
}

}  // namespace fk

#endif  // FPGAKERN_OPS_H
