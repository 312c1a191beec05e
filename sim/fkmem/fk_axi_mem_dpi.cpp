// DPI glue between sim/hdl/fk_axi_mem.sv and the C++ memory (fk_axi_mem.h). Argument
// types follow the DPI mapping of the SV imports: bit -> svBit, longint -> long long,
// bit [511:0] -> svBitVecVal[16] (little-endian 32-bit words, like memory).
#include <svdpi.h>

#include "fk_axi_mem.h"

namespace {
fk::Port* as_port(void* handle) { return static_cast<fk::Port*>(handle); }
}  // namespace

extern "C" {

void* fk_axi_port_new(const char* name, int data_bytes) {
    return fk::new_port(name, static_cast<unsigned>(data_bytes));
}

void fk_axi_config(int* read_latency, int* write_latency, int* max_outstanding,
                   int* stall_permille) {
    const fk::Config& c = fk::memory().config;
    *read_latency = static_cast<int>(c.read_latency);
    *write_latency = static_cast<int>(c.write_latency);
    *max_outstanding = static_cast<int>(c.max_outstanding);
    *stall_permille = static_cast<int>(c.stall_permille);
}

void fk_axi_burst(void* port, svBit is_write, long long addr, int len, int size, int burst) {
    as_port(port)->burst(is_write != 0, static_cast<uint64_t>(addr), static_cast<unsigned>(len),
                         static_cast<unsigned>(size), static_cast<unsigned>(burst));
}

int fk_axi_read32(void* port, long long addr) {
    uint32_t word = 0;
    as_port(port)->read_beat(static_cast<uint64_t>(addr), &word);
    return static_cast<int>(word);
}

void fk_axi_read512(void* port, long long addr, svBitVecVal* data) {
    for (int i = 0; i < 16; ++i) data[i] = 0;  // narrower ports fill only the low words
    as_port(port)->read_beat(static_cast<uint64_t>(addr), data);
}

void fk_axi_write32(void* port, long long addr, int data, int strb, svBit last,
                    svBit expect_last) {
    const uint32_t word = static_cast<uint32_t>(data);
    as_port(port)->write_beat(static_cast<uint64_t>(addr), &word,
                              static_cast<uint32_t>(strb), last != 0, expect_last != 0);
}

void fk_axi_write512(void* port, long long addr, const svBitVecVal* data, long long strb,
                     svBit last, svBit expect_last) {
    as_port(port)->write_beat(static_cast<uint64_t>(addr), data, static_cast<uint64_t>(strb),
                              last != 0, expect_last != 0);
}

void fk_axi_violation(void* port, const char* message) { as_port(port)->fail(message); }

int fk_axi_limited(void* port) { return as_port(port)->limited() ? 1 : 0; }

int fk_axi_bank(void* port, long long now, int beats) {
    return as_port(port)->bank_grant(static_cast<uint64_t>(now), static_cast<unsigned>(beats))
               ? 1
               : 0;
}

int fk_axi_stall(void* port) { return static_cast<int>(as_port(port)->stall_bits()); }

}  // extern "C"
