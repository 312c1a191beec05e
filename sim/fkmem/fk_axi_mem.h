// fpgakern's fast AXI4 memory model: a byte-addressed memory holding named buffers and
// cycle-level AXI4 slave ports onto it, with the AXI rules a Vitis kernel must follow
// checked on every transfer.
//
// Why C++: cocotb's Python AXI models cost ~1000x the simulation itself
// (shared/reference/sim-figures.md). Here all per-cycle work happens in C++: the SV shell
// sim/hdl/fk_axi_mem.sv calls AxiSlave::tick once per clock edge through DPI, and the
// Python testbench reaches the memory through the C API at the bottom (ctypes, once per
// buffer, never per cycle). The classes do not depend on Verilator or DPI, so a plain C++
// harness that pokes a Verilated model's ports can drive AxiSlave::tick the same way.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace fk {

// A buffer the host allocated: the kernel may read [base, base + size rounded up to its
// port width) and, when writable, write (strobe) only bytes in [base, base + size).
struct Buffer {
    std::string name;
    uint64_t base = 0;
    uint64_t size = 0;
    bool writable = false;
};

struct Config {
    unsigned read_latency = 64;    // cycles from AR handshake to the first R beat
    unsigned write_latency = 64;   // cycles from the last W beat to B
    unsigned max_outstanding = 64; // bursts each port accepts before deasserting a*ready
    unsigned stall_permille = 0;   // chance per cycle and channel of withholding a beat
    uint64_t seed = 1;
};

class Memory {
public:
    // Buffers start above 4 GiB so that a kernel ignoring the high pointer word fails.
    static constexpr uint64_t kBase = 0x4'0000'0000ULL;
    static constexpr uint64_t kGuard = 4096;  // unallocated gap after every buffer

    void reset();
    // A buffer of `size` bytes starting `offset` bytes into a fresh 4 KiB page (an
    // offset lets a test place buffers so that bursts must split at 4 KiB boundaries).
    uint64_t alloc(uint64_t size, bool writable, const std::string& name, uint64_t offset);
    bool write(uint64_t addr, const uint8_t* src, uint64_t n);
    bool read(uint64_t addr, uint8_t* dst, uint64_t n) const;
    const Buffer* find(uint64_t addr) const;
    uint8_t* bytes_at(uint64_t addr, uint64_t n);

    void violation(const std::string& message);
    const std::vector<std::string>& violations() const { return violations_; }
    uint64_t violation_count() const { return violation_count_; }

    Config config;

private:
    std::vector<uint8_t> arena_;  // byte i is address kBase + i
    std::vector<Buffer> buffers_;
    std::vector<std::string> violations_;  // the first kMaxKept, with the count of all
    uint64_t violation_count_ = 0;
    static constexpr size_t kMaxKept = 20;
};

Memory& memory();  // the process-wide memory every port of a simulation shares

// Signals a slave port sees, sampled just before a rising clock edge. Data words are
// little-endian 32-bit chunks, as DPI passes bit vectors.
struct AxiIn {
    bool reset = false;
    bool arvalid = false;
    uint64_t araddr = 0;
    unsigned arlen = 0, arsize = 0, arburst = 0;
    bool rready = false;
    bool awvalid = false;
    uint64_t awaddr = 0;
    unsigned awlen = 0, awsize = 0, awburst = 0;
    bool wvalid = false;
    const uint32_t* wdata = nullptr;
    uint64_t wstrb = 0;
    bool wlast = false;
    bool bready = false;
};

// What the port drives during the next cycle.
struct AxiOut {
    bool arready = false;
    bool rvalid = false;
    uint32_t rdata[16] = {};
    bool rlast = false;
    unsigned rresp = 0;
    bool awready = false;
    bool wready = false;
    bool bvalid = false;
    unsigned bresp = 0;
};

struct PortStats {
    uint64_t read_bursts = 0, read_beats = 0, write_bursts = 0, write_beats = 0;
    uint64_t max_read_outstanding = 0, max_write_outstanding = 0;
    uint64_t first_beat_cycle = 0, last_beat_cycle = 0;  // any channel, 0 = none yet
};

class AxiSlave {
public:
    AxiSlave(Memory& mem, std::string name, unsigned data_bytes);
    // One rising clock edge at cycle `now` (monotonic): complete the handshakes that
    // happened with the outputs of the previous edge, then compute the next outputs.
    const AxiOut& tick(uint64_t now, const AxiIn& in);
    bool busy() const;
    void reset();
    void seed(uint64_t seed);
    const std::string& name() const { return name_; }
    unsigned data_bytes() const { return bytes_; }
    PortStats stats;
    std::string describe() const;  // queue state, for timeout messages

private:
    struct Burst {
        uint64_t addr;
        unsigned beats;
        unsigned done = 0;
        uint64_t ready_at;  // first cycle a beat may be transferred
        // Writes: the bytes this burst may strobe (its buffer, when writable), looked up
        // once per burst so that a beat costs two compares.
        uint64_t ok_lo = 0, ok_hi = 0;
        const Buffer* buffer = nullptr;
    };
    void accept_read(uint64_t now, const AxiIn& in);
    void accept_write(uint64_t now, const AxiIn& in);
    void write_beat(uint64_t now, const AxiIn& in);
    bool check_burst(const char* channel, uint64_t addr, unsigned len, unsigned size,
                     unsigned burst);
    void check_stable(const AxiIn& in);
    bool stall();
    void fail(const std::string& message);
    void beat_seen(uint64_t now);

    Memory& mem_;
    std::string name_;
    unsigned bytes_;
    std::deque<Burst> reads_, writes_;
    std::deque<uint64_t> responses_;  // cycle each B may be sent
    AxiOut o_;  // outputs driven since the previous edge
    AxiIn held_; bool ar_held_ = false, aw_held_ = false, w_held_ = false;
    uint32_t held_wdata_[16] = {};
    uint64_t rng_;
};

AxiSlave* new_port(const std::string& name, unsigned data_bytes);  // kept for the run

}  // namespace fk

// The C API: DPI calls from sim/hdl/fk_axi_mem.sv and ctypes calls from the testbench.
extern "C" {
void fk_mem_reset(void);
void fk_mem_configure(unsigned read_latency, unsigned write_latency, unsigned max_outstanding,
                      unsigned stall_permille, unsigned long long seed);
unsigned long long fk_mem_alloc(unsigned long long size, int writable, const char* name,
                                unsigned long long offset);
int fk_mem_write(unsigned long long addr, const void* src, unsigned long long n);
int fk_mem_read(unsigned long long addr, void* dst, unsigned long long n);
unsigned long long fk_mem_violation_count(void);
const char* fk_mem_violation(unsigned long long index);
int fk_mem_port_count(void);
const char* fk_mem_port_name(int index);
int fk_mem_port_stats(int index, unsigned long long* out, int n);
const char* fk_mem_port_describe(int index);
int fk_mem_busy(void);
}
