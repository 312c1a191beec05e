// The part of Vitis HLS's hls_vector.h that generated code may use: declarations only.
#ifndef FPGAKERN_VITIS_API_HLS_VECTOR_H
#define FPGAKERN_VITIS_API_HLS_VECTOR_H

#include <cstddef>
#include <initializer_list>

namespace hls {

template <typename T, std::size_t N>
class vector {
  public:
    vector() = default;
    vector(const T& value);
    vector(std::initializer_list<T> values);
    T& operator[](std::size_t i);
    const T& operator[](std::size_t i) const;
    vector& operator+=(const vector& o);
    vector& operator-=(const vector& o);
    vector& operator*=(const vector& o);
    vector& operator/=(const vector& o);
    T reduce_add() const;

  private:
    T data_[N];
};

template <typename T, std::size_t N> vector<T, N> operator+(vector<T, N>, const vector<T, N>&);
template <typename T, std::size_t N> vector<T, N> operator-(vector<T, N>, const vector<T, N>&);
template <typename T, std::size_t N> vector<T, N> operator*(vector<T, N>, const vector<T, N>&);
template <typename T, std::size_t N> vector<T, N> operator/(vector<T, N>, const vector<T, N>&);
template <typename T, std::size_t N> bool operator==(const vector<T, N>&, const vector<T, N>&);
template <typename T, std::size_t N> bool operator!=(const vector<T, N>&, const vector<T, N>&);

}  // namespace hls

#endif
