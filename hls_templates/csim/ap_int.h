// ap_int.h stand-in for C simulation with a stock g++: the part of Vitis HLS's arbitrary
// precision unsigned integer that the AXI4-Stream beats of ap_axi_sdata.h need, no more
// (widths 1 to 64). The generated code must compile against the real header too.
#ifndef FPGAKERN_CSIM_AP_INT_H
#define FPGAKERN_CSIM_AP_INT_H

#include <cstdint>
#include <type_traits>

template <int W>
class ap_uint {
    static_assert(W >= 1 && W <= 64, "the stand-in holds 1 to 64 bits");

  public:
    ap_uint() : value_(0) {}
    // Any integer (or bool): its low W bits, as the real type truncates (-1: all ones).
    template <typename I, typename = typename std::enable_if<std::is_integral<I>::value>::type>
    ap_uint(I value) : value_(mask(static_cast<uint64_t>(value))) {}  // NOLINT: implicit, as in Vitis
    template <int W2>
    ap_uint(const ap_uint<W2>& other) : value_(mask(other.to_uint64())) {}

    // The value as an unsigned integer (implicitly, as the real type converts).
    operator unsigned long long() const { return value_; }  // NOLINT
    unsigned to_uint() const { return static_cast<unsigned>(value_); }
    unsigned long long to_uint64() const { return value_; }
    int to_int() const { return static_cast<int>(value_); }
    int length() const { return W; }

  private:
    static uint64_t mask(uint64_t value) {
        return W == 64 ? value : value & ((uint64_t{1} << (W % 64)) - 1);
    }
    uint64_t value_;
};

#endif  // FPGAKERN_CSIM_AP_INT_H
