// hw_emu compute unit: a Verilator model of the generated RTL kernel, driven like a card.
//
// Included by the generated model source after it defines:
//   FKEMU_TOP            the Verilated class (V<top>)
//   FKEMU_TOP_NAME       "<top>"
//   FKEMU_DATA_BYTES     bytes per m_axi data beat (the element's 4 or 8, or 64 at rung 4)
//   FKEMU_FOR_EACH_BUNDLE(X)  X(gmem0) X(gmem1) ... one per m_axi bundle
//   FKEMU_FOR_EACH_IN_STREAM(X), FKEMU_FOR_EACH_OUT_STREAM(X)  X(x) ... one per AXI4-Stream
//                        input (output) port, named as the kernel names it
//   FKEMU_FREE_RUNNING   1 for an ap_ctrl_none kernel (no s_axi_control, no interrupt)
//
// Stream ports (ABI 3): each is a FIFO of FKEMU_STREAM_FIFO_DEPTH beats between the
// runtime (fkemu_cu_stream_push/pop) and the RTL port. Every cycle the front beat of an
// input FIFO is offered on TVALID/TDATA/TLAST and popped when the kernel's TREADY takes
// it; an output port's TREADY is high while its FIFO has room, and each beat handed over
// on TVALID is appended to the FIFO.
//
// One clock cycle is: drive the memory model's outputs, settle the design with ap_clk
// low, sample every valid/ready pair (the handshakes of this edge), raise ap_clk, then
// let the memory model act on the handshakes and compute its next outputs. The control
// port is driven by a host-like AXI-Lite master (fkemu_cu_write/read), so a run costs
// what it costs on a card: argument writes, ap_start, the kernel, the interrupt, the
// CTRL read and ap_continue.
//
// The memory model per m_axi port: AR/AW accepted while fewer than `max_outstanding`
// bursts are queued; the first R beat of a burst comes `read_latency` cycles after its
// AR, then one beat per cycle while the kernel is ready; W beats are taken once their
// AW is known; B comes `write_latency` cycles after the last W beat. Bursts must stay in
// one mapped buffer and must not cross a 4 KiB boundary (AXI4); beats must be full width.
//
// Bandwidth: a port placed on a bank (fkemu_cu_place) raises an R beat or accepts a W beat
// only while its bank's credit is positive, and every beat's bytes are charged to the bank,
// reads and writes alike, so all ports placed on one bank share its bytes per cycle. The
// credit grows by the bank's bytes per cycle each emulated cycle, up to one cycle's bytes
// plus two beats (a port charges an R beat one cycle after raising it). These are the
// semantics of the RTL simulation's memory (sim/fkmem, Bank::grant). An emulated cycle is
// one `epoch`: a CU stepped alone (register access, reset) takes one of its own; CUs
// stepped in lockstep (fkemu_cus_wait_interrupt) share one per cycle, so ports of several
// CUs on one bank share its credit. Banks live in the model library: CUs of one library
// (one kernel) can share them. Unplaced ports have no limit.
#ifndef FKEMU_HW_MODEL_HPP
#define FKEMU_HW_MODEL_HPP

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "fkemu_memory.hpp"
#include "fkemu_model.h"
#include "verilated.h"

namespace fkemu {

// The widest port's beat (each port's own: FKEMU_BUNDLE_BYTES_<bundle>, narrower where a
// kernel's output elements are: complex64 abs writes float32 words).
constexpr unsigned kBeatBytes = FKEMU_DATA_BYTES;

// Beat data in and out of the model's ports: 32-bit buses are IData, 64-bit ones QData
// (complex64 below rung 4), wider ones VlWide.
inline void put_beat(uint32_t& port, const uint8_t* src) { std::memcpy(&port, src, 4); }
inline void put_beat(uint64_t& port, const uint8_t* src) { std::memcpy(&port, src, 8); }
template <std::size_t W>
inline void put_beat(VlWide<W>& port, const uint8_t* src) {
    std::memcpy(&port[0], src, W * 4);
}
inline void clear_beat(uint32_t& port) { port = 0; }
inline void clear_beat(uint64_t& port) { port = 0; }
template <std::size_t W>
inline void clear_beat(VlWide<W>& port) {
    for (std::size_t i = 0; i < W; ++i) port[i] = 0;
}
inline const uint8_t* beat_bytes(const uint32_t& port) {
    return reinterpret_cast<const uint8_t*>(&port);
}
inline const uint8_t* beat_bytes(const uint64_t& port) {
    return reinterpret_cast<const uint8_t*>(&port);
}
template <std::size_t W>
inline const uint8_t* beat_bytes(const VlWide<W>& port) {
    return reinterpret_cast<const uint8_t*>(&port[0]);
}

// The emulated cycle count shared by every CU of this library (see the header comment).
inline uint64_t& epoch() {
    static uint64_t value = 0;
    return value;
}

class Bank {
  public:
    explicit Bank(double bytes_per_cycle) : rate_(bytes_per_cycle > 0 ? bytes_per_cycle : 0) {}

    // Charge `bytes` moved since the last call, refill once per emulated cycle, and say
    // whether the bank's ports may move a beat in the coming cycle.
    bool grant(uint64_t now, unsigned bytes) {
        bytes_ += bytes;
        if (rate_ <= 0) return true;
        credit_ -= bytes;
        if (now > last_) {
            const double cap = rate_ + 2.0 * kBeatBytes;
            const double refill = static_cast<double>(now - last_) * rate_;
            credit_ = credit_ + refill < cap ? credit_ + refill : cap;
            last_ = now;
        }
        return credit_ > 0;
    }
    uint64_t bytes() const { return bytes_; }

  private:
    double rate_;
    double credit_ = 0;
    uint64_t last_ = 0;
    uint64_t bytes_ = 0;
};

struct Timing {
    unsigned read_latency = 64;
    unsigned write_latency = 64;
    unsigned max_outstanding = 64;
};

class Errors {
  public:
    void add(const std::string& what) {
        if (first_.empty()) first_ = what;
    }
    const char* first() const { return first_.empty() ? nullptr : first_.c_str(); }
    void clear() { first_.clear(); }

  private:
    std::string first_;
};

// Handshakes sampled before an edge, acted upon after it.
struct PortSample {
    bool ar = false, r = false, aw = false, w = false, b = false;
    uint64_t addr = 0;
    unsigned len = 0, size = 0, burst = 0;
    uint64_t wstrb = 0;
    bool wlast = false;
    uint8_t wdata[kBeatBytes];
};

class AxiPort {
  public:
    AxiPort(const char* name, const Memory& mem, const Timing& timing, Errors& errors,
            unsigned beat_bytes = kBeatBytes)
        : name_(name), mem_(mem), timing_(timing), errors_(errors), beat_bytes_(beat_bytes) {}
    unsigned beat_bytes() const { return beat_bytes_; }

    struct Out {
        bool arready = true, rvalid = false, rlast = false;
        bool awready = true, wready = false, bvalid = false;
        const uint8_t* rdata = nullptr;  // nullptr: zeros
    };

    void place(Bank* bank) { bank_ = bank; }

    // Act on the handshakes of the edge at cycle `now` (emulated cycle `at`), then compute
    // the next outputs.
    const Out& update(uint64_t now, uint64_t at, const PortSample& s) {
        if (s.ar) accept(reads_, now + timing_.read_latency, s, false);
        if (s.r) {
            Burst& b = reads_.front();
            if (++b.done == b.beats) reads_.pop_front();
        }
        if (s.aw) accept(writes_, 0, s, true);
        if (s.w) write_beat(now, s);
        if (s.b) responses_.pop_front();

        // The bank is charged for the W beat of this edge and the R beat raised at the
        // last one (charged once, when raised, whether or not it was taken yet).
        bool grant = true;
        if (bank_) {
            const unsigned beats = (s.w ? 1u : 0u) + (r_charge_ ? 1u : 0u);
            grant = bank_->grant(at, beats * beat_bytes_);
            r_charge_ = false;
        }
        out_.arready = reads_.size() < timing_.max_outstanding;
        out_.awready = writes_.size() < timing_.max_outstanding;
        const bool held = out_.rvalid && !s.r;  // a raised beat stays up until taken
        if (!held) {
            out_.rvalid = grant && !reads_.empty() && reads_.front().ready_at <= now;
            if (out_.rvalid) r_charge_ = true;
        }
        if (out_.rvalid) {
            const Burst& b = reads_.front();
            out_.rlast = b.done + 1 == b.beats;
            out_.rdata = b.host ? b.host + static_cast<uint64_t>(b.done) * beat_bytes_ : nullptr;
        } else {
            out_.rlast = false;
            out_.rdata = nullptr;
        }
        out_.wready = grant && !writes_.empty();
        out_.bvalid = !responses_.empty() && responses_.front() <= now;
        return out_;
    }
    const Out& out() const { return out_; }
    bool busy() const { return !reads_.empty() || !writes_.empty() || !responses_.empty(); }
    void reset() {
        reads_.clear();
        writes_.clear();
        responses_.clear();
        out_ = Out();
        r_charge_ = false;
    }

  private:
    struct Burst {
        uint64_t addr;
        unsigned beats;
        unsigned done;
        uint64_t ready_at;
        uint8_t* host;  // nullptr when the burst was refused (reads give zeros)
    };

    void accept(std::deque<Burst>& queue, uint64_t ready_at, const PortSample& s, bool write) {
        const unsigned beats = s.len + 1;
        const uint64_t bytes = static_cast<uint64_t>(beats) * beat_bytes_;
        const char* channel = write ? "AW" : "AR";
        uint8_t* host = nullptr;
        if ((1u << s.size) != beat_bytes_) {
            fail(channel, s.addr, "beat size differs from the port width");
        } else if (s.burst != 1) {
            fail(channel, s.addr, "burst type is not INCR");
        } else if (s.addr % beat_bytes_ != 0) {
            fail(channel, s.addr, "address is not aligned to the beat size");
        } else if ((s.addr & 4095) + bytes > 4096) {
            fail(channel, s.addr, "burst crosses a 4 KiB boundary");
        } else {
            std::string why;
            host = mem_.translate(s.addr, bytes, write, &why);
            if (!host) fail(channel, s.addr, why.c_str());
        }
        queue.push_back(Burst{s.addr, beats, 0, ready_at, host});
    }

    void write_beat(uint64_t now, const PortSample& s) {
        Burst& b = writes_.front();
        if (b.host) {
            uint8_t* dst = b.host + static_cast<uint64_t>(b.done) * beat_bytes_;
            const uint64_t all = beat_bytes_ == 64 ? ~0ULL : ((1ULL << beat_bytes_) - 1);
            if ((s.wstrb & all) == all) {
                std::memcpy(dst, s.wdata, beat_bytes_);
            } else {
                for (unsigned i = 0; i < beat_bytes_; ++i) {
                    if ((s.wstrb >> i) & 1) dst[i] = s.wdata[i];
                }
            }
        }
        const bool last = ++b.done == b.beats;
        if (last != s.wlast) fail("W", b.addr, "WLAST does not match the burst length");
        if (last) {
            writes_.pop_front();
            responses_.push_back(now + timing_.write_latency);
        }
    }

    void fail(const char* channel, uint64_t addr, const char* what) {
        char text[256];
        std::snprintf(text, sizeof text, "m_axi_%s %s at 0x%" PRIx64 ": %s", name_, channel,
                      addr, what);
        errors_.add(text);
    }

    const char* name_;
    const Memory& mem_;
    const Timing& timing_;
    Errors& errors_;
    unsigned beat_bytes_;
    Bank* bank_ = nullptr;
    bool r_charge_ = false;  // an R beat raised at the last update, not charged yet
    std::deque<Burst> reads_, writes_;
    std::deque<uint64_t> responses_;
    Out out_;
};

// One AXI4-Stream beat: 32-bit TDATA (in the low bits) and TLAST.
struct Beat {
    uint64_t data = 0;
    bool last = false;
};

// The FIFO of FKEMU_STREAM_FIFO_DEPTH beats between the runtime and a stream port.
class StreamFifo {
  public:
    bool full() const { return beats_.size() >= FKEMU_STREAM_FIFO_DEPTH; }
    const Beat* front() const { return beats_.empty() ? nullptr : &beats_.front(); }
    // false when full (nothing taken)
    bool push(const Beat& beat) {
        if (full()) return false;
        beats_.push_back(beat);
        return true;
    }
    // false when empty
    bool pop(Beat* beat = nullptr) {
        if (beats_.empty()) return false;
        if (beat) *beat = beats_.front();
        beats_.pop_front();
        return true;
    }
    void clear() { beats_.clear(); }

  private:
    std::deque<Beat> beats_;
};

}  // namespace fkemu

struct fkemu_cu {
    fkemu_cu()
        : context(new VerilatedContext),
          top(new FKEMU_TOP(context.get(), FKEMU_TOP_NAME))
#define FKEMU_PORT_INIT(B) , port_##B(#B, memory, timing, errors, FKEMU_BUNDLE_BYTES_##B)
              FKEMU_FOR_EACH_BUNDLE(FKEMU_PORT_INIT)
#undef FKEMU_PORT_INIT
    {
        reset();
    }
    ~fkemu_cu() { top->final(); }

    void reset() {
        top->ap_rst_n = 0;
#if !FKEMU_FREE_RUNNING
        top->s_axi_control_awvalid = 0;
        top->s_axi_control_wvalid = 0;
        top->s_axi_control_bready = 0;
        top->s_axi_control_arvalid = 0;
        top->s_axi_control_rready = 0;
#endif
#define FKEMU_PORT_RESET(B) port_##B.reset(); drive_##B();
        FKEMU_FOR_EACH_BUNDLE(FKEMU_PORT_RESET)
#undef FKEMU_PORT_RESET
#define FKEMU_STREAM_RESET(S) stream_##S.clear();
        FKEMU_FOR_EACH_IN_STREAM(FKEMU_STREAM_RESET)
        FKEMU_FOR_EACH_OUT_STREAM(FKEMU_STREAM_RESET)
#undef FKEMU_STREAM_RESET
        for (int i = 0; i < 8; ++i) cycle();  // synchronous reset, held a few cycles
        top->ap_rst_n = 1;
        cycle();
    }

    // Control-port handshakes of the last edge.
    bool c_aw = false, c_w = false, c_b = false, c_ar = false, c_r = false;
    uint32_t c_rdata = 0;

    // One cycle of this CU alone: an emulated cycle of its own.
    void cycle() { step(++fkemu::epoch()); }

    // One cycle of this CU within emulated cycle `at` (which other CUs may share).
    void step(uint64_t at) {
        top->ap_clk = 0;
        // The stream FIFOs' side of this edge: what they offer, whether they take.
#define FKEMU_STREAM_DRIVE(S) drive_stream_##S();
        FKEMU_FOR_EACH_IN_STREAM(FKEMU_STREAM_DRIVE)
        FKEMU_FOR_EACH_OUT_STREAM(FKEMU_STREAM_DRIVE)
#undef FKEMU_STREAM_DRIVE
        top->eval();
        // Handshakes of this edge, sampled while every signal is settled.
#define FKEMU_SAMPLE(B) sample_##B();
        FKEMU_FOR_EACH_BUNDLE(FKEMU_SAMPLE)
#undef FKEMU_SAMPLE
#define FKEMU_STREAM_SAMPLE(S) sample_stream_##S();
        FKEMU_FOR_EACH_IN_STREAM(FKEMU_STREAM_SAMPLE)
        FKEMU_FOR_EACH_OUT_STREAM(FKEMU_STREAM_SAMPLE)
#undef FKEMU_STREAM_SAMPLE
#if !FKEMU_FREE_RUNNING
        c_aw = top->s_axi_control_awvalid && top->s_axi_control_awready;
        c_w = top->s_axi_control_wvalid && top->s_axi_control_wready;
        c_b = top->s_axi_control_bvalid && top->s_axi_control_bready;
        c_ar = top->s_axi_control_arvalid && top->s_axi_control_arready;
        c_r = top->s_axi_control_rvalid && top->s_axi_control_rready;
        c_rdata = top->s_axi_control_rdata;
#endif
        top->ap_clk = 1;
        top->eval();
        ++now;
#define FKEMU_UPDATE(B) port_##B.update(now, at, s_##B); drive_##B();
        FKEMU_FOR_EACH_BUNDLE(FKEMU_UPDATE)
#undef FKEMU_UPDATE
#define FKEMU_STREAM_UPDATE(S) update_stream_##S();
        FKEMU_FOR_EACH_IN_STREAM(FKEMU_STREAM_UPDATE)
        FKEMU_FOR_EACH_OUT_STREAM(FKEMU_STREAM_UPDATE)
#undef FKEMU_STREAM_UPDATE
    }

    // The FIFO of stream port `name` of direction `input`, or nullptr.
    fkemu::StreamFifo* stream(const char* name, bool input) {
#define FKEMU_FIND_STREAM(S) if (std::strcmp(name, #S) == 0) return &stream_##S;
        if (input) {
            FKEMU_FOR_EACH_IN_STREAM(FKEMU_FIND_STREAM)
        } else {
            FKEMU_FOR_EACH_OUT_STREAM(FKEMU_FIND_STREAM)
        }
#undef FKEMU_FIND_STREAM
        return nullptr;
    }

    bool interrupt() const {
#if FKEMU_FREE_RUNNING
        return false;  // ap_ctrl_none: no interrupt line
#else
        return top->__SYM__interrupt;
#endif
    }

    // Place the port of bundle `name` (e.g. "gmem0") on `bank`; false: no such bundle.
    bool place(const char* name, fkemu::Bank* bank) {
#define FKEMU_PLACE(B) if (std::strcmp(name, #B) == 0) { port_##B.place(bank); return true; }
        FKEMU_FOR_EACH_BUNDLE(FKEMU_PLACE)
#undef FKEMU_PLACE
        return false;
    }

#if FKEMU_FREE_RUNNING
    // No control port: every register access fails.
    int write(uint32_t, uint32_t) { return -1; }
    int read(uint32_t, uint32_t*) { return -1; }
#else
    int write(uint32_t offset, uint32_t value) {
        top->s_axi_control_awaddr = offset;
        top->s_axi_control_awvalid = 1;
        top->s_axi_control_wdata = value;
        top->s_axi_control_wstrb = 0xF;
        top->s_axi_control_wvalid = 1;
        top->s_axi_control_bready = 1;
        bool aw_done = false, w_done = false;
        for (int i = 0; i < kControlTimeout; ++i) {
            cycle();
            if (c_aw) { aw_done = true; top->s_axi_control_awvalid = 0; }
            if (c_w) { w_done = true; top->s_axi_control_wvalid = 0; }
            if (c_b) {
                top->s_axi_control_bready = 0;
                return aw_done && w_done ? 0 : control_error("B before AW and W", offset);
            }
        }
        return control_error("write not answered", offset);
    }

    int read(uint32_t offset, uint32_t* value) {
        top->s_axi_control_araddr = offset;
        top->s_axi_control_arvalid = 1;
        top->s_axi_control_rready = 1;
        for (int i = 0; i < kControlTimeout; ++i) {
            cycle();
            if (c_ar) top->s_axi_control_arvalid = 0;
            if (c_r) {
                top->s_axi_control_rready = 0;
                *value = c_rdata;
                return 0;
            }
        }
        return control_error("read not answered", offset);
    }

    int control_error(const char* what, uint32_t offset) {
        char text[128];
        std::snprintf(text, sizeof text, "s_axi_control: %s at 0x%02x", what, offset);
        errors.add(text);
        top->s_axi_control_awvalid = 0;
        top->s_axi_control_wvalid = 0;
        top->s_axi_control_arvalid = 0;
        return -1;
    }
#endif

#define FKEMU_PORT_MEMBERS(B)                                                   \
    fkemu::AxiPort port_##B;                                                  \
    fkemu::PortSample s_##B;                                                  \
    void sample_##B() {                                                       \
        const fkemu::AxiPort::Out& o = port_##B.out();                       \
        fkemu::PortSample& s = s_##B;                                         \
        s.ar = top->m_axi_##B##_arvalid && o.arready;                         \
        s.r = o.rvalid && top->m_axi_##B##_rready;                            \
        s.aw = top->m_axi_##B##_awvalid && o.awready;                         \
        s.w = top->m_axi_##B##_wvalid && o.wready;                            \
        s.b = o.bvalid && top->m_axi_##B##_bready;                            \
        if (s.ar) {                                                           \
            s.addr = top->m_axi_##B##_araddr;                                 \
            s.len = top->m_axi_##B##_arlen;                                   \
            s.size = top->m_axi_##B##_arsize;                                 \
            s.burst = top->m_axi_##B##_arburst;                               \
        }                                                                     \
        if (s.aw) {                                                           \
            s.addr = top->m_axi_##B##_awaddr;                                 \
            s.len = top->m_axi_##B##_awlen;                                   \
            s.size = top->m_axi_##B##_awsize;                                 \
            s.burst = top->m_axi_##B##_awburst;                               \
        }                                                                     \
        if (s.w) {                                                            \
            std::memcpy(s.wdata, fkemu::beat_bytes(top->m_axi_##B##_wdata),   \
                        port_##B.beat_bytes());                               \
            s.wstrb = top->m_axi_##B##_wstrb;                                 \
            s.wlast = top->m_axi_##B##_wlast;                                 \
        }                                                                     \
    }                                                                         \
    void drive_##B() {                                                        \
        const fkemu::AxiPort::Out& o = port_##B.out();                       \
        top->m_axi_##B##_arready = o.arready;                                 \
        top->m_axi_##B##_rvalid = o.rvalid;                                   \
        top->m_axi_##B##_rlast = o.rlast;                                     \
        top->m_axi_##B##_rresp = 0;                                           \
        top->m_axi_##B##_rid = 0;                                             \
        if (o.rdata) {                                                        \
            fkemu::put_beat(top->m_axi_##B##_rdata, o.rdata);                 \
        } else {                                                              \
            fkemu::clear_beat(top->m_axi_##B##_rdata);                        \
        }                                                                     \
        top->m_axi_##B##_awready = o.awready;                                 \
        top->m_axi_##B##_wready = o.wready;                                   \
        top->m_axi_##B##_bvalid = o.bvalid;                                   \
        top->m_axi_##B##_bresp = 0;                                           \
        top->m_axi_##B##_bid = 0;                                             \
    }

    // An input stream: the FIFO's front beat offered to the kernel, popped when taken.
#define FKEMU_IN_STREAM_MEMBERS(S)                                              \
    fkemu::StreamFifo stream_##S;                                             \
    bool taken_##S = false;                                                   \
    void drive_stream_##S() {                                                 \
        const fkemu::Beat* b = stream_##S.front();                            \
        top->S##_TVALID = b != nullptr;                                       \
        top->S##_TDATA = b ? static_cast<uint32_t>(b->data) : 0;              \
        top->S##_TLAST = b && b->last;                                        \
        top->S##_TKEEP = 0xF;                                                 \
        top->S##_TSTRB = 0xF;                                                 \
    }                                                                         \
    void sample_stream_##S() { taken_##S = top->S##_TVALID && top->S##_TREADY; } \
    void update_stream_##S() {                                                \
        if (taken_##S) stream_##S.pop();                                      \
    }
    // An output stream: ready while the FIFO has room; each beat handed over is kept.
#define FKEMU_OUT_STREAM_MEMBERS(S)                                             \
    fkemu::StreamFifo stream_##S;                                             \
    bool given_##S = false;                                                   \
    fkemu::Beat beat_##S;                                                     \
    void drive_stream_##S() { top->S##_TREADY = !stream_##S.full(); }         \
    void sample_stream_##S() {                                                \
        given_##S = top->S##_TVALID && top->S##_TREADY;                       \
        if (given_##S) beat_##S = fkemu::Beat{top->S##_TDATA, top->S##_TLAST != 0}; \
    }                                                                         \
    void update_stream_##S() {                                                \
        if (given_##S) stream_##S.push(beat_##S);                             \
    }
    FKEMU_FOR_EACH_IN_STREAM(FKEMU_IN_STREAM_MEMBERS)
    FKEMU_FOR_EACH_OUT_STREAM(FKEMU_OUT_STREAM_MEMBERS)
#undef FKEMU_IN_STREAM_MEMBERS
#undef FKEMU_OUT_STREAM_MEMBERS

    static constexpr int kControlTimeout = 1000;
    std::unique_ptr<VerilatedContext> context;
    std::unique_ptr<FKEMU_TOP> top;
    fkemu::Memory memory;
    fkemu::Timing timing;
    fkemu::Errors errors;
    uint64_t now = 0;
    FKEMU_FOR_EACH_BUNDLE(FKEMU_PORT_MEMBERS)
#undef FKEMU_PORT_MEMBERS
};

extern "C" {

int fkemu_abi_version(void) { return FKEMU_ABI_VERSION; }
const char* fkemu_model_top(void) { return FKEMU_TOP_NAME; }
const char* fkemu_model_target(void) { return "hw_emu"; }

fkemu_cu* fkemu_cu_new(void) { return new fkemu_cu(); }
void fkemu_cu_free(fkemu_cu* cu) { delete cu; }

void fkemu_cu_configure(fkemu_cu* cu, unsigned read_latency, unsigned write_latency) {
    cu->timing.read_latency = read_latency;
    cu->timing.write_latency = write_latency;
}

int fkemu_cu_map(fkemu_cu* cu, uint64_t dev_addr, void* host, uint64_t bytes, int writable) {
    cu->memory.map(dev_addr, host, bytes, writable != 0);
    return 0;
}
void fkemu_cu_unmap_all(fkemu_cu* cu) { cu->memory.clear(); }

int fkemu_cu_write(fkemu_cu* cu, uint32_t offset, uint32_t value) {
    return cu->write(offset, value);
}
int fkemu_cu_read(fkemu_cu* cu, uint32_t offset, uint32_t* value) {
    return cu->read(offset, value);
}

// Verilator renames the port `interrupt` (a reserved word in its C++ output).
int fkemu_cu_interrupt(fkemu_cu* cu) { return cu->interrupt() ? 1 : 0; }

int fkemu_cu_wait_interrupt(fkemu_cu* cu, uint64_t max_cycles) {
    for (uint64_t i = 0; i < max_cycles; ++i) {
        if (cu->interrupt()) return 0;
        cu->cycle();
    }
    return cu->interrupt() ? 0 : -1;
}

int fkemu_cu_stream_push(fkemu_cu* cu, const char* port, uint64_t data, int last) {
    fkemu::StreamFifo* fifo = cu->stream(port, true);
    if (!fifo) return -1;
    return fifo->push(fkemu::Beat{data & 0xFFFFFFFFu, last != 0}) ? 0 : 1;
}

int fkemu_cu_stream_pop(fkemu_cu* cu, const char* port, uint64_t* data, int* last) {
    fkemu::StreamFifo* fifo = cu->stream(port, false);
    if (!fifo) return -1;
    fkemu::Beat beat;
    if (!fifo->pop(&beat)) return 1;
    *data = beat.data;
    *last = beat.last ? 1 : 0;
    return 0;
}

int fkemu_model_free_running(void) { return FKEMU_FREE_RUNNING; }

void fkemu_cu_tick(fkemu_cu* cu, uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; ++i) cu->cycle();
}
uint64_t fkemu_cu_cycles(fkemu_cu* cu) { return cu->now; }

fkemu_bank* fkemu_bank_new(double bytes_per_cycle) {
    return reinterpret_cast<fkemu_bank*>(new fkemu::Bank(bytes_per_cycle));
}
void fkemu_bank_free(fkemu_bank* bank) { delete reinterpret_cast<fkemu::Bank*>(bank); }
uint64_t fkemu_bank_bytes(fkemu_bank* bank) {
    return reinterpret_cast<fkemu::Bank*>(bank)->bytes();
}
int fkemu_cu_place(fkemu_cu* cu, const char* bundle, fkemu_bank* bank) {
    return cu->place(bundle, reinterpret_cast<fkemu::Bank*>(bank)) ? 0 : -1;
}

int fkemu_cus_wait_interrupt(fkemu_cu** cus, unsigned count, unsigned which,
                             uint64_t max_cycles) {
    if (which >= count) return -1;
    fkemu_cu* waited = cus[which];
    uint64_t order = 0x9E3779B97F4A7C15ULL;
    for (uint64_t i = 0; i < max_cycles; ++i) {
        if (waited->interrupt()) return 0;
        const uint64_t at = ++fkemu::epoch();
        // Every CU still running takes this cycle; a CU whose interrupt is up has
        // finished and waits for its acknowledgement without advancing its clock. The
        // first CU to step is drawn anew each cycle (a fixed-seed xorshift: runs repeat),
        // so that no CU meets a bank's credit first more often than the others, as a
        // turn in order would whenever the credit's period is a multiple of `count`.
        order ^= order << 13;
        order ^= order >> 7;
        order ^= order << 17;
        const unsigned first = static_cast<unsigned>(order % count);
        for (unsigned k = 0; k < count; ++k) {
            fkemu_cu* cu = cus[(k + first) % count];
            if (!cu->interrupt()) cu->step(at);
        }
    }
    return waited->interrupt() ? 0 : -1;
}

const char* fkemu_cu_error(fkemu_cu* cu) { return cu->errors.first(); }
void fkemu_cu_clear_error(fkemu_cu* cu) { cu->errors.clear(); }

}  // extern "C"

#endif  // FKEMU_HW_MODEL_HPP
