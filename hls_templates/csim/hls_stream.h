// hls_stream.h stand-in for C simulation with a stock g++.
//
// A FIFO with the hls::stream interface the generated kernels use. Like the Vitis
// header, reading an empty stream is an error (in hardware it would deadlock) and data
// left in a stream when it is destroyed is reported, because a dataflow kernel that
// leaves data behind is wrong. Both set hls::csim_failed(), which the testbench checks.
#ifndef FPGAKERN_CSIM_HLS_STREAM_H
#define FPGAKERN_CSIM_HLS_STREAM_H

#include <cstdio>
#include <deque>
#include <string>

namespace hls {

inline bool& csim_failed() {
    static bool failed = false;
    return failed;
}

template <typename T>
class stream {
  public:
    stream() : name_("stream") {}
    explicit stream(const char* name) : name_(name) {}
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    ~stream() {
        if (!fifo_.empty()) {
            std::fprintf(stderr, "ERROR: hls::stream '%s' contains %zu leftover element(s)\n",
                         name_.c_str(), fifo_.size());
            csim_failed() = true;
        }
    }

    void write(const T& value) { fifo_.push_back(value); }
    T read() {
        if (fifo_.empty()) {
            std::fprintf(stderr, "ERROR: hls::stream '%s' read while empty\n", name_.c_str());
            csim_failed() = true;
            return T();
        }
        T value = fifo_.front();
        fifo_.pop_front();
        return value;
    }
    void read(T& value) { value = read(); }
    bool read_nb(T& value) {
        if (fifo_.empty()) return false;
        value = read();
        return true;
    }
    bool write_nb(const T& value) {
        write(value);
        return true;
    }
    bool empty() const { return fifo_.empty(); }
    bool full() const { return false; }  // unbounded in csim, as in the Vitis header
    std::size_t size() const { return fifo_.size(); }
    stream& operator<<(const T& value) {
        write(value);
        return *this;
    }
    stream& operator>>(T& value) {
        read(value);
        return *this;
    }

  private:
    std::string name_;
    std::deque<T> fifo_;
};

}  // namespace hls

#endif  // FPGAKERN_CSIM_HLS_STREAM_H
