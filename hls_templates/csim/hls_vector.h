// hls_vector.h stand-in for C simulation with a stock g++.
//
// hls::vector<T, N> as Vitis HLS defines it for the uses fpgakern generates: N lanes in
// a std::array, aligned to the largest power of two dividing sizeof(T) * N (64 bytes for
// 16 floats, so that one vector is one 512-bit AXI word), element access and
// element-wise arithmetic. The vendor header has no open release.
#ifndef FPGAKERN_CSIM_HLS_VECTOR_H
#define FPGAKERN_CSIM_HLS_VECTOR_H

#include <array>
#include <cstddef>
#include <initializer_list>

namespace hls {

namespace detail {
constexpr std::size_t largest_pow2_divisor(std::size_t n) { return n & (~n + 1); }
}  // namespace detail

template <typename T, std::size_t N>
class alignas(detail::largest_pow2_divisor(sizeof(T) * N)) vector {
  public:
    vector() : lanes_{} {}
    explicit vector(const T& value) { lanes_.fill(value); }
    vector(std::initializer_list<T> values) : lanes_{} {
        std::size_t i = 0;
        for (const T& v : values) {
            if (i == N) break;
            lanes_[i++] = v;
        }
    }

    static constexpr std::size_t size() { return N; }
    T& operator[](std::size_t i) { return lanes_[i]; }
    const T& operator[](std::size_t i) const { return lanes_[i]; }

    vector& operator+=(const vector& o) { return apply(o, [](T& x, const T& y) { x += y; }); }
    vector& operator-=(const vector& o) { return apply(o, [](T& x, const T& y) { x -= y; }); }
    vector& operator*=(const vector& o) { return apply(o, [](T& x, const T& y) { x *= y; }); }
    vector& operator/=(const vector& o) { return apply(o, [](T& x, const T& y) { x /= y; }); }
    friend vector operator+(vector a, const vector& b) { return a += b; }
    friend vector operator-(vector a, const vector& b) { return a -= b; }
    friend vector operator*(vector a, const vector& b) { return a *= b; }
    friend vector operator/(vector a, const vector& b) { return a /= b; }
    friend bool operator==(const vector& a, const vector& b) { return a.lanes_ == b.lanes_; }
    friend bool operator!=(const vector& a, const vector& b) { return !(a == b); }

    T reduce_add() const {
        T total = T();
        for (const T& v : lanes_) total += v;
        return total;
    }

  private:
    template <typename F>
    vector& apply(const vector& o, F f) {
        for (std::size_t i = 0; i < N; ++i) f(lanes_[i], o.lanes_[i]);
        return *this;
    }

    std::array<T, N> lanes_;
};

}  // namespace hls

#endif  // FPGAKERN_CSIM_HLS_VECTOR_H
