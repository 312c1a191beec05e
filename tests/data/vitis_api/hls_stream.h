// The part of Vitis HLS's hls_stream.h that generated code may use: declarations only.
#ifndef FPGAKERN_VITIS_API_HLS_STREAM_H
#define FPGAKERN_VITIS_API_HLS_STREAM_H

#include <cstddef>

namespace hls {

template <typename T, int DEPTH = 0>
class stream {
  public:
    stream();
    explicit stream(const char* name);
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    ~stream();
    bool empty() const;
    bool full() const;
    std::size_t size() const;
    void read(T& value);
    T read();
    bool read_nb(T& value);
    void write(const T& value);
    bool write_nb(const T& value);
    void operator>>(T& value);
    void operator<<(const T& value);
};

}  // namespace hls

#endif
