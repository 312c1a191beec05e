// The part of Vitis HLS's hls_math.h that generated code may use: declarations only.
#ifndef FPGAKERN_VITIS_API_HLS_MATH_H
#define FPGAKERN_VITIS_API_HLS_MATH_H

namespace hls {

float exp(float x);
float sqrt(float x);
float log(float x);
float log2(float x);
float log1p(float x);
float exp2(float x);
float tanh(float x);
float expm1(float x);
float atan2(float y, float x);
float erf(float x);
// double overloads (UG1399: every function in half, float and double), for fk::gelu and
// fk::gelu_tanh, which evaluate in double.
double erfc(double x);
double exp(double x);
float sin(float x);
float cos(float x);
float fma(float x, float y, float z);
float fmod(float x, float y);
float pow(float x, float y);
float fabs(float x);
int signbit(float x);
double nan(const char* tag);
float nanf(const char* tag);

}  // namespace hls

#endif
