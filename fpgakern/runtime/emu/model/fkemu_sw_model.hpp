// sw_emu compute unit: the compiled HLS C++ kernel behind the HLS control register map.
//
// Included by the generated model source after the kernel itself; the source then
// defines fkemu_sw_invoke(), which reads the argument registers, translates the pointer
// registers through the mapped buffers and calls the kernel. Writing ap_start runs the
// kernel to completion at once (software emulation has no clock), then sets ap_done and
// ap_idle, and the interrupt as the HLS slave would (GIE and IER bit 0). Reading CTRL
// clears ap_done; ISR bits toggle on a write of 1.
#ifndef FKEMU_SW_MODEL_HPP
#define FKEMU_SW_MODEL_HPP

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fkemu_memory.hpp"
#include "fkemu_model.h"
#include "hls_stream.h"

struct fkemu_cu {
    static constexpr uint32_t kRegs = 0x1000 / 4;
    uint32_t regs[kRegs] = {};
    bool done = false;
    bool idle = true;
    bool ready = false;
    fkemu::Memory memory;
    std::string error;

    uint32_t reg(uint32_t offset) const { return regs[(offset / 4) % kRegs]; }
    uint64_t reg64(uint32_t offset) const {
        return reg(offset) | (static_cast<uint64_t>(reg(offset + 4)) << 32);
    }
    template <typename T>
    T scalar(uint32_t offset) const {
        T value;
        const uint32_t bits = reg(offset);
        static_assert(sizeof(T) == sizeof bits, "32-bit scalars only");
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    // The kernel's view of a pointer argument: `bytes` from the register's address.
    template <typename T>
    T* pointer(const char* name, uint32_t offset, uint64_t bytes, bool write) {
        std::string why;
        uint8_t* host = memory.translate(reg64(offset), bytes, write, &why);
        if (!host && bytes > 0 && error.empty()) {
            error = std::string("argument ") + name + ": " + why;
        }
        return reinterpret_cast<T*>(host);
    }
};

static void fkemu_sw_invoke(fkemu_cu* cu);

// The csim stand-in's hls_stream.h reports stream misuse here instead of ending the
// process (the model runs inside the host program): the first message of a run.
static std::string& fkemu_stream_misuse() {
    static std::string message;
    return message;
}
static void fkemu_record_stream_misuse(const char* message) {
    if (fkemu_stream_misuse().empty()) fkemu_stream_misuse() = message;
}

extern "C" {

int fkemu_abi_version(void) { return FKEMU_ABI_VERSION; }
const char* fkemu_model_top(void) { return FKEMU_TOP_NAME; }
const char* fkemu_model_target(void) { return "sw_emu"; }

fkemu_cu* fkemu_cu_new(void) { return new fkemu_cu(); }
void fkemu_cu_free(fkemu_cu* cu) { delete cu; }
void fkemu_cu_configure(fkemu_cu*, unsigned, unsigned) {}

int fkemu_cu_map(fkemu_cu* cu, uint64_t dev_addr, void* host, uint64_t bytes, int writable) {
    cu->memory.map(dev_addr, host, bytes, writable != 0);
    return 0;
}
void fkemu_cu_unmap_all(fkemu_cu* cu) { cu->memory.clear(); }

int fkemu_cu_write(fkemu_cu* cu, uint32_t offset, uint32_t value) {
    if (offset >= 0x1000 || offset % 4 != 0) return -1;
    if (offset == 0x0C) {  // ISR: toggle on write
        cu->regs[3] ^= value & 0x3;
        return 0;
    }
    if (offset == 0x00) {
        if (value & 0x1) {  // ap_start: run the kernel now
            cu->idle = false;
            fkemu_stream_misuse().clear();
            fpgakern_csim::on_stream_misuse() = &fkemu_record_stream_misuse;
            fkemu_sw_invoke(cu);
            if (!fkemu_stream_misuse().empty() && cu->error.empty()) {
                cu->error = "C simulation failed: " + fkemu_stream_misuse();
            }
            cu->done = cu->ready = cu->idle = true;
            cu->regs[3] |= cu->regs[2] & 0x3;  // ISR |= IER (done and ready events)
        }
        cu->regs[0] = value & 0x80;  // auto_restart is the only stored bit
        return 0;
    }
    cu->regs[offset / 4] = value;
    return 0;
}

int fkemu_cu_read(fkemu_cu* cu, uint32_t offset, uint32_t* value) {
    if (offset >= 0x1000 || offset % 4 != 0) return -1;
    if (offset == 0x00) {
        *value = (cu->done ? 0x2u : 0u) | (cu->idle ? 0x4u : 0u) | (cu->ready ? 0x8u : 0u) |
                 cu->regs[0];
        cu->done = cu->ready = false;  // clear on read
        return 0;
    }
    *value = cu->regs[offset / 4];
    return 0;
}

int fkemu_cu_interrupt(fkemu_cu* cu) { return (cu->regs[1] & 1) && (cu->regs[3] & 3) ? 1 : 0; }
int fkemu_cu_wait_interrupt(fkemu_cu* cu, uint64_t) { return fkemu_cu_interrupt(cu) ? 0 : -1; }
void fkemu_cu_tick(fkemu_cu*, uint64_t) {}
uint64_t fkemu_cu_cycles(fkemu_cu*) { return 0; }

const char* fkemu_cu_error(fkemu_cu* cu) { return cu->error.empty() ? nullptr : cu->error.c_str(); }
void fkemu_cu_clear_error(fkemu_cu* cu) { cu->error.clear(); }

}  // extern "C"

#endif  // FKEMU_SW_MODEL_HPP
