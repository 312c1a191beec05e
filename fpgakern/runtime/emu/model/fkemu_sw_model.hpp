// sw_emu compute unit: the compiled HLS C++ kernel behind the HLS control register map.
//
// Included by the generated model source after the kernel itself; the source first
// defines FKEMU_TOP_NAME, FKEMU_FREE_RUNNING, FKEMU_MAILBOX, the names of the kernel's
// input and output AXI4-Stream ports (fkemu_sw_stream_inputs, fkemu_sw_stream_outputs,
// each ended by nullptr) and the register offsets of a register kernel's results
// (fkemu_sw_results, ended by 0), and then defines fkemu_sw_ready(), whether the input
// streams hold what one run reads, and fkemu_sw_invoke(), which reads the argument
// registers, translates the pointer registers through the mapped buffers and calls the
// kernel (a register kernel's: its input copy in, its results into the result copy).
//
// Writing ap_start runs the kernel to completion at once when its input streams hold the
// n beats it reads (always, for a kernel without input streams: software emulation has
// no clock), else at the first fkemu_cu_tick (or wait) that finds them there; then it
// sets ap_done and ap_idle, and the interrupt as the HLS slave would (GIE and IER bit 0).
// Reading CTRL clears ap_done; ISR bits toggle on a write of 1.
//
// Each stream port is an hls::stream of beats held by the CU, the very object the kernel
// is given: fkemu_cu_stream_push writes into an input's, fkemu_cu_stream_pop reads from
// an output's (unbounded FIFOs, as the csim model's). A free-running kernel (ap_ctrl_none)
// has no registers: fkemu_cu_tick calls it once for every complete set of input beats.
//
// A register kernel (FKEMU_MAILBOX: control: auto_restart; the registers of
// fpgakern/interface.py) follows the hardware's rules (docs/runtime.md, "Register
// kernels"). Host writes of its scalars go to the software copy (regs). A run started by
// ap_start takes the software copy into the kernel's input copy; an automatic restart
// takes it only when the input mailbox was released (0x14 written with bit 0 set) since
// the last take, and 0x14's busy bit reads 1 from that release until the taking run's
// start. Writing 0x18 with bit 0 set requests the results: 0x18's busy bit reads 1 until
// the end of the first run that starts after the request, which copies its results into
// the result registers the host reads; the last run writes them too. On an idle kernel
// a release is taken and a request answered at once. Bit 0 of either mailbox reads back
// the host's value. The counter (0x10) holds the runs left (XRT's autostart{n} writes n,
// 0xFFFFFFFF for autostart{0}; its stop() writes 0): each run that starts while it is not
// 0 takes one, and the kernel restarts after a run while runs are left or CTRL's
// auto_restart is set, so autostart{n} makes n runs.
// Software emulation has no clock, so the runs are stepped by the host: while the kernel
// auto-restarts, every register access (fkemu_cu_read, fkemu_cu_write) and every
// fkemu_cu_tick is preceded by exactly one run (the host's access comes after that run
// has ended), and fkemu_cu_wait_interrupt runs it until the counter runs out (at most
// max_cycles runs; a kernel restarting for ever is run once and the wait answers -1).
// When the counter and auto_restart are cleared between runs, the run that just ended was
// the last: the kernel goes idle with ap_done and its interrupt at once.
#ifndef FKEMU_SW_MODEL_HPP
#define FKEMU_SW_MODEL_HPP

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "ap_axi_sdata.h"
#include "fkemu_memory.hpp"
#include "fkemu_model.h"
#include "hls_stream.h"

// One AXI4-Stream beat of a 32-bit element, and a stream port's FIFO of them.
typedef ap_axiu<32, 0, 0, 0> fkemu_beat;
typedef hls::stream<fkemu_beat> fkemu_axis;

struct fkemu_cu {
    static constexpr uint32_t kRegs = 0x1000 / 4;
    uint32_t regs[kRegs] = {};
    bool done = false;
    bool idle = true;
    bool ready = false;
    bool pending = false;  // ap_start seen, waiting for the input streams' beats
    // A register kernel's (the file's comment): its input copy and its last results (by
    // register offset), and the state of its runs and mailboxes.
    uint32_t taken[kRegs] = {};
    uint32_t results[kRegs] = {};
    bool restarting = false;  // auto-restarting: the next host access runs it once
    bool in_busy = false;     // 0x14 bit 1: released inputs not yet taken
    bool out_busy = false;    // 0x18 bit 1: requested results not yet delivered
    fkemu::Memory memory;
    std::string error;
    std::map<std::string, std::unique_ptr<fkemu_axis>> inputs, outputs;  // stream ports

    fkemu_cu() {
        for (const char* const* name = fkemu_sw_stream_inputs; *name; ++name) {
            inputs[*name].reset(new fkemu_axis(*name));
        }
        for (const char* const* name = fkemu_sw_stream_outputs; *name; ++name) {
            outputs[*name].reset(new fkemu_axis(*name));
        }
    }
    ~fkemu_cu() {  // beats nobody took are dropped (the stand-in would report them)
        fkemu_beat beat;
        for (auto* ports : {&inputs, &outputs}) {
            for (auto& port : *ports) {
                while (port.second->read_nb(beat)) {}
            }
        }
    }
    fkemu_axis& input(const char* name) { return *inputs.at(name); }
    fkemu_axis& output(const char* name) { return *outputs.at(name); }

    uint32_t reg(uint32_t offset) const { return regs[(offset / 4) % kRegs]; }
    uint64_t reg64(uint32_t offset) const {
        return reg(offset) | (static_cast<uint64_t>(reg(offset + 4)) << 32);
    }
    template <typename T>
    T scalar(uint32_t offset) const {
        return fkemu_cu::bits_as<T>(reg(offset));
    }
    // A register kernel's scalar from its input copy, and a result into its result copy.
    template <typename T>
    T input(uint32_t offset) const {
        return fkemu_cu::bits_as<T>(taken[(offset / 4) % kRegs]);
    }
    template <typename T>
    void result(uint32_t offset, T value) {
        static_assert(sizeof(T) == sizeof(uint32_t), "32-bit results only");
        std::memcpy(&results[(offset / 4) % kRegs], &value, sizeof value);
    }
    template <typename T>
    static T bits_as(uint32_t bits) {
        T value;
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

static bool fkemu_sw_ready(fkemu_cu* cu);
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

// One call of the kernel, with stream misuse recorded as the CU's error.
static void fkemu_sw_call(fkemu_cu* cu) {
    fkemu_stream_misuse().clear();
    fpgakern_csim::on_stream_misuse() = &fkemu_record_stream_misuse;
    fkemu_sw_invoke(cu);
    if (!fkemu_stream_misuse().empty() && cu->error.empty()) {
        cu->error = "C simulation failed: " + fkemu_stream_misuse();
    }
}

// The end of a run that sets ap_done: done, ready, idle and their interrupt events.
static void fkemu_sw_done(fkemu_cu* cu) {
    cu->done = cu->ready = cu->idle = true;
    cu->regs[3] |= cu->regs[2] & 0x3;  // ISR |= IER (done and ready events)
}

// A started run, once the input streams hold its beats: to completion, then done.
static void fkemu_sw_try_run(fkemu_cu* cu) {
    if (!cu->pending || !fkemu_sw_ready(cu)) return;
    cu->pending = false;
    fkemu_sw_call(cu);
    fkemu_sw_done(cu);
}

// ---------------------------------------------------------------- register kernels
// (FKEMU_MAILBOX; the rules are the file's comment)

constexpr uint32_t kFkemuCounter = 0x10, kFkemuMailboxIn = 0x14, kFkemuMailboxOut = 0x18;

// The result copy into the result registers the host reads.
static void fkemu_mailbox_deliver(fkemu_cu* cu) {
    for (const uint32_t* offset = fkemu_sw_results; *offset; ++offset) {
        cu->regs[*offset / 4] = cu->results[*offset / 4];
    }
}

// One run: the counter and the mailbox rules at its start, the kernel, the rules at its
// end.
static void fkemu_mailbox_run(fkemu_cu* cu, bool host_started) {
    uint32_t& counter = cu->regs[kFkemuCounter / 4];
    if (counter != 0) --counter;  // a run left is taken
    if (host_started || cu->in_busy) {
        std::memcpy(cu->taken, cu->regs, sizeof cu->taken);
        cu->in_busy = false;
    }
    const bool deliver = cu->out_busy;  // requested before this run's start
    fkemu_sw_call(cu);
    if (deliver) {
        fkemu_mailbox_deliver(cu);
        cu->out_busy = false;
    }
}

// The last run has ended: its results in the registers, then idle with ap_done.
static void fkemu_mailbox_stopped(fkemu_cu* cu) {
    cu->restarting = false;
    fkemu_mailbox_deliver(cu);
    fkemu_sw_done(cu);
}

// Whether the kernel restarts after a run: runs are left, or CTRL's auto_restart is set.
static bool fkemu_mailbox_restarts(const fkemu_cu* cu) {
    return cu->regs[kFkemuCounter / 4] != 0 || (cu->regs[0] & 0x80) != 0;
}

// One automatic restart, when the kernel auto-restarts.
static void fkemu_mailbox_restart(fkemu_cu* cu) {
    if (!cu->restarting) return;
    fkemu_mailbox_run(cu, false);
    if (!fkemu_mailbox_restarts(cu)) fkemu_mailbox_stopped(cu);
}

// A write of CTRL: ap_start starts a run (ignored while one is in flight); the counter
// and auto_restart cleared between runs stop the kernel.
static void fkemu_mailbox_control(fkemu_cu* cu, uint32_t value) {
    cu->regs[0] = value & 0x80;
    if (cu->restarting) {
        if (!fkemu_mailbox_restarts(cu)) fkemu_mailbox_stopped(cu);
        return;
    }
    if (!(value & 0x1)) return;
    cu->idle = false;
    fkemu_mailbox_run(cu, true);
    if (fkemu_mailbox_restarts(cu)) {
        cu->restarting = true;
    } else {
        fkemu_mailbox_stopped(cu);
    }
}

// A write of the counter, the mailbox registers, and the others (results are read-only).
static void fkemu_mailbox_write(fkemu_cu* cu, uint32_t offset, uint32_t value) {
    if (offset == kFkemuCounter) {
        cu->regs[offset / 4] = value;
        // The run just ended was the last when no run is left (XRT's stop()).
        if (cu->restarting && !fkemu_mailbox_restarts(cu)) fkemu_mailbox_stopped(cu);
        return;
    }
    if (offset == kFkemuMailboxIn || offset == kFkemuMailboxOut) {
        cu->regs[offset / 4] = value & 0x1;
        if (!(value & 0x1)) return;
        const bool in = offset == kFkemuMailboxIn;
        if (cu->restarting) {
            (in ? cu->in_busy : cu->out_busy) = true;
        } else if (in) {  // an idle kernel takes the scalars at once ...
            std::memcpy(cu->taken, cu->regs, sizeof cu->taken);
        } else {  // ... and answers a request at once
            fkemu_mailbox_deliver(cu);
        }
        return;
    }
    for (const uint32_t* result = fkemu_sw_results; *result; ++result) {
        if (*result == offset) return;
    }
    cu->regs[offset / 4] = value;
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
    if (FKEMU_FREE_RUNNING || offset >= 0x1000 || offset % 4 != 0) return -1;
    if (FKEMU_MAILBOX) fkemu_mailbox_restart(cu);
    if (offset == 0x0C) {  // ISR: toggle on write
        cu->regs[3] ^= value & 0x3;
        return 0;
    }
    if (FKEMU_MAILBOX) {
        if (offset == 0x00) {
            fkemu_mailbox_control(cu, value);
        } else {
            fkemu_mailbox_write(cu, offset, value);
        }
        return 0;
    }
    if (offset == 0x00) {
        if (value & 0x1) {  // ap_start: run the kernel now, or once its beats are in
            cu->idle = false;
            cu->pending = true;
            fkemu_sw_try_run(cu);
        }
        cu->regs[0] = value & 0x80;  // auto_restart is the only stored bit
        return 0;
    }
    cu->regs[offset / 4] = value;
    return 0;
}

int fkemu_cu_read(fkemu_cu* cu, uint32_t offset, uint32_t* value) {
    if (FKEMU_FREE_RUNNING || offset >= 0x1000 || offset % 4 != 0) return -1;
    if (FKEMU_MAILBOX) {
        fkemu_mailbox_restart(cu);
        if (offset == kFkemuMailboxIn || offset == kFkemuMailboxOut) {
            const bool busy = offset == kFkemuMailboxIn ? cu->in_busy : cu->out_busy;
            *value = (cu->regs[offset / 4] & 0x1) | (busy ? 0x2u : 0u);
            return 0;
        }
    }
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
int fkemu_cu_wait_interrupt(fkemu_cu* cu, uint64_t max_cycles) {
    if (FKEMU_MAILBOX) {  // one run per cycle until the counter runs out (the file's comment)
        for (uint64_t run = 0; cu->restarting && run < max_cycles; ++run) {
            const bool forever = cu->regs[kFkemuCounter / 4] == 0xFFFFFFFFu ||
                                 (cu->regs[0] & 0x80) != 0;
            fkemu_mailbox_restart(cu);
            if (forever) break;
        }
    }
    fkemu_sw_try_run(cu);
    return fkemu_cu_interrupt(cu) ? 0 : -1;
}
// What the streams allow: a started run whose beats are in; a free-running kernel once
// per complete set of input beats (no clock: `cycles` does not matter). A register kernel
// that auto-restarts: one run.
void fkemu_cu_tick(fkemu_cu* cu, uint64_t) {
    if (FKEMU_MAILBOX) {
        fkemu_mailbox_restart(cu);
        return;
    }
    if (!FKEMU_FREE_RUNNING) {
        fkemu_sw_try_run(cu);
        return;
    }
    while (fkemu_sw_ready(cu) && cu->error.empty()) fkemu_sw_call(cu);
}
uint64_t fkemu_cu_cycles(fkemu_cu*) { return 0; }

const char* fkemu_cu_error(fkemu_cu* cu) { return cu->error.empty() ? nullptr : cu->error.c_str(); }
void fkemu_cu_clear_error(fkemu_cu* cu) { cu->error.clear(); }

int fkemu_cu_stream_push(fkemu_cu* cu, const char* port, uint64_t data, int last) {
    const auto found = cu->inputs.find(port ? port : "");
    if (found == cu->inputs.end()) return -1;
    fkemu_beat beat;
    beat.data = static_cast<uint32_t>(data);
    beat.keep = -1;
    beat.strb = -1;
    beat.last = last != 0;
    found->second->write(beat);  // unbounded: never full
    return 0;
}

int fkemu_cu_stream_pop(fkemu_cu* cu, const char* port, uint64_t* data, int* last) {
    const auto found = cu->outputs.find(port ? port : "");
    if (found == cu->outputs.end()) return -1;
    fkemu_beat beat;
    if (!found->second->read_nb(beat)) return 1;
    if (data) *data = beat.data.to_uint64();
    if (last) *last = beat.last.to_uint() != 0 ? 1 : 0;
    return 0;
}

int fkemu_model_free_running(void) { return FKEMU_FREE_RUNNING; }

}  // extern "C"

#endif  // FKEMU_SW_MODEL_HPP
