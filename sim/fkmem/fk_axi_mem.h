// fpgakern's fast AXI4 memory model, C++ side: a byte-addressed memory holding the
// host's buffers, the AXI rule checks, and per-port statistics.
//
// The cycle-level AXI4 slave protocol (queues, latency, backpressure, VALID stability)
// lives in sim/hdl/fk_axi_mem.sv, which Verilator compiles into the model; it calls
// into this file through DPI once per burst (fk_axi_burst) and once per data beat
// (fk_axi_read*/fk_axi_write*). Nothing here runs per idle cycle, and no Python runs
// per cycle at all: the testbench reaches the memory through the C API at the bottom
// (ctypes, once per buffer). The same SV + C++ pair serves any Verilator harness, e.g. a
// model built as a shared library with a C++ host in place of cocotb.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
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
    unsigned max_outstanding = 64; // bursts a port accepts before deasserting a*ready
    unsigned stall_permille = 0;   // chance per cycle and channel of withholding a beat
    uint64_t seed = 1;
};

// A memory bank with a bandwidth: it serves at most `bytes_per_cycle` on average, shared
// by every port placed on it, reads and writes alike (DRAM turns its bus around). Credit
// grows by bytes_per_cycle each cycle up to a cap of one cycle's bytes plus two beats (an
// idle bank saves no more); a port may move a beat while the credit is positive, and the
// beat's bytes are taken from it, so a bank may run into debt and then waits it off.
struct Bank {
    static constexpr double kMaxBeatBytes = 64;  // the widest port (512 bits)
    double bytes_per_cycle = 0;  // 0: no limit
    double credit = 0;
    uint64_t last = 0;   // cycle of the last refill
    uint64_t bytes = 0;  // moved since the last reset
    bool grant(uint64_t now, unsigned beat_bytes, unsigned beats);
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
    bool write(uint64_t addr, const void* src, uint64_t n);
    bool read(uint64_t addr, void* dst, uint64_t n) const;
    const Buffer* find(uint64_t addr) const;
    uint8_t* bytes_at(uint64_t addr, uint64_t n);

    // Banks with their bytes per cycle (0: unlimited), and which bank each port (by
    // name) uses; ports not named use none. Both survive reset(); setting either again
    // replaces it.
    void set_banks(const std::vector<double>& bytes_per_cycle);
    void place(const std::string& port, int bank) { placement_[port] = bank; ++bank_generation_; }
    Bank* bank_of(const std::string& port);
    std::vector<Bank>& banks() { return banks_; }
    uint64_t bank_generation() const { return bank_generation_; }

    void violation(const std::string& message);
    const std::vector<std::string>& violations() const { return violations_; }
    uint64_t violation_count() const { return violation_count_; }
    uint64_t generation() const { return generation_; }  // bumps on every reset

    Config config;

private:
    std::vector<uint8_t> arena_;  // byte i is address kBase + i
    std::vector<Buffer> buffers_;
    std::vector<Bank> banks_;
    std::unordered_map<std::string, int> placement_;
    uint64_t bank_generation_ = 1;
    std::vector<std::string> violations_;  // the first kMaxKept, with the count of all
    uint64_t violation_count_ = 0;
    uint64_t generation_ = 0;
    static constexpr size_t kMaxKept = 20;
};

Memory& memory();  // the process-wide memory every port of a simulation shares

struct PortStats {
    uint64_t read_bursts = 0, read_beats_requested = 0, read_beats = 0;
    uint64_t write_bursts = 0, write_beats_requested = 0, write_beats = 0;
};

// One AXI slave port of the SV model: its name, width, checks and statistics.
class Port {
public:
    Port(Memory& mem, std::string name, unsigned data_bytes);
    // A burst request accepted on AR (is_write false) or AW.
    void burst(bool is_write, uint64_t addr, unsigned len, unsigned size, unsigned type);
    void read_beat(uint64_t addr, void* dst);
    // One accepted W beat; `expect_last` is whether it ends its burst.
    void write_beat(uint64_t addr, const void* data, uint64_t strb, bool last,
                    bool expect_last);
    void fail(const std::string& message);
    unsigned stall_bits();  // one random stall decision per channel (5 bits)
    bool limited();  // placed on a bank with a bandwidth limit
    // Whether the port may move a beat next cycle, after charging `beats` beats moved
    // since the last call to its bank (always true on an unlimited bank).
    bool bank_grant(uint64_t now, unsigned beats);
    void seed(uint64_t seed);
    const std::string& name() const { return name_; }
    std::string describe() const;
    PortStats stats;

private:
    Memory& mem_;
    std::string name_;
    unsigned bytes_;
    uint64_t rng_ = 1;
    Bank* bank_ = nullptr;
    uint64_t bank_generation_ = 0;
    // The buffer of the last write beat: the common case costs two compares.
    uint64_t ok_lo_ = 0, ok_hi_ = 0, ok_generation_ = ~0ULL;
};

Port* new_port(const std::string& name, unsigned data_bytes);  // kept for the run

}  // namespace fk

// The C API for the testbench (ctypes) and any other host.
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
// Banks for the ports: `count` banks with bytes per kernel cycle each (0: no limit), and a
// port's bank by its name ("cu0.gmem1"); ports never placed have no limit.
void fk_mem_banks(int count, const double* bytes_per_cycle);
int fk_mem_place(const char* port, int bank);
unsigned long long fk_mem_bank_bytes(int bank);  // bytes the bank moved since reset
int fk_mem_port_count(void);
const char* fk_mem_port_name(int index);
int fk_mem_port_stats(int index, unsigned long long* out, int n);
const char* fk_mem_port_describe(int index);
}
