// hls_math.h stand-in for C simulation with a stock g++.
//
// Vitis HLS ships hls_math.h with synthesizable implementations; it has no open release.
// For csim, the functions the generated kernels use map to <cmath> for float, with the
// vendor header's signatures. Real Vitis builds use the vendor header instead of this one.
#ifndef FPGAKERN_CSIM_HLS_MATH_H
#define FPGAKERN_CSIM_HLS_MATH_H

#include <cmath>

namespace hls {

inline float exp(float x) { return std::exp(x); }
inline float sqrt(float x) { return std::sqrt(x); }
// std::fma is correctly rounded (one rounding), as the Vitis hls::fma is.
inline float fma(float x, float y, float z) { return std::fma(x, y, z); }
inline float fabs(float x) { return std::fabs(x); }
inline int signbit(float x) { return std::signbit(x) ? 1 : 0; }
inline double nan(const char* tag) { return std::nan(tag); }  // double, as in the Vitis header
inline float nanf(const char* tag) { return std::nanf(tag); }

}  // namespace hls

#endif  // FPGAKERN_CSIM_HLS_MATH_H
