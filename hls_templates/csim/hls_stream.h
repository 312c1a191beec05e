// hls_stream.h stand-in for C simulation with a stock g++.
//
// A FIFO with the hls::stream interface of the Vitis header (Xilinx/hls-lib-stream's C
// model), no more: the generated code must compile against the real header too. Where the
// Vitis model only warns, this one is stricter: reading an empty stream (in hardware a
// deadlock) and data left in a stream when it is destroyed (a dataflow kernel that leaves
// data behind is wrong) print an error and end the program with exit status 3.
#ifndef FPGAKERN_CSIM_HLS_STREAM_H
#define FPGAKERN_CSIM_HLS_STREAM_H

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>

namespace fpgakern_csim {

// Not Vitis API, and never used by generated code: what the stand-in does on stream
// misuse. It prints the error, then ends the program with exit status 3 (a testbench
// run) unless a host that must carry on (fpgakern's sw_emu model) has installed a
// handler, which records the message; the stream then reads T().
typedef void (*misuse_handler)(const char* message);
inline misuse_handler& on_stream_misuse() {
    static misuse_handler handler = nullptr;
    return handler;
}
inline void stream_misuse(const std::string& name, const std::string& what) {
    const std::string message = "hls::stream '" + name + "' " + what;
    std::fprintf(stderr, "ERROR: %s\n", message.c_str());
    if (on_stream_misuse()) {
        on_stream_misuse()(message.c_str());
        return;
    }
    std::fflush(stderr);
    std::exit(3);
}

}  // namespace fpgakern_csim

namespace hls {

template <typename T, int DEPTH = 0>
class stream {
  public:
    stream() : name_("stream") {}
    explicit stream(const char* name) : name_(name) {}
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    ~stream() {
        if (!fifo_.empty()) {
            fpgakern_csim::stream_misuse(
                name_, "contains " + std::to_string(fifo_.size()) + " leftover element(s)");
        }
    }

    void write(const T& value) { fifo_.push_back(value); }
    T read() {
        if (fifo_.empty()) {
            fpgakern_csim::stream_misuse(name_, "read while empty");
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
    void operator<<(const T& value) { write(value); }  // void, as in the Vitis header
    void operator>>(T& value) { read(value); }

  private:
    std::string name_;
    std::deque<T> fifo_;
};

}  // namespace hls

#endif  // FPGAKERN_CSIM_HLS_STREAM_H
