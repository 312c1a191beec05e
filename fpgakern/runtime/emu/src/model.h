// fpgakern's XRT emulation library: a kernel's model library (include/fkemu_model.h's C
// ABI), loaded with dlopen (internal.h lists the library's files).
#ifndef FPGAKERN_EMU_SRC_MODEL_H_
#define FPGAKERN_EMU_SRC_MODEL_H_

#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "fkemu_model.h"
#include "internal.h"

namespace fkemu {

// A model library (one per kernel), loaded with dlopen.
struct Model {
    void* handle = nullptr;
    std::string path;
    fkemu_cu* (*cu_new)() = nullptr;
    void (*cu_free)(fkemu_cu*) = nullptr;
    void (*configure)(fkemu_cu*, unsigned, unsigned) = nullptr;
    int (*map)(fkemu_cu*, uint64_t, void*, uint64_t, int) = nullptr;
    void (*unmap_all)(fkemu_cu*) = nullptr;
    int (*write)(fkemu_cu*, uint32_t, uint32_t) = nullptr;
    int (*read)(fkemu_cu*, uint32_t, uint32_t*) = nullptr;
    int (*wait_interrupt)(fkemu_cu*, uint64_t) = nullptr;
    int (*interrupt)(fkemu_cu*) = nullptr;
    void (*tick)(fkemu_cu*, uint64_t) = nullptr;
    uint64_t (*cycles)(fkemu_cu*) = nullptr;
    const char* (*error)(fkemu_cu*) = nullptr;
    void (*clear_error)(fkemu_cu*) = nullptr;
    // hw_emu models only (ABI 2): banks with a bandwidth and CUs stepped in lockstep.
    bool hw = false;
    fkemu_bank* (*bank_new)(double) = nullptr;
    void (*bank_free)(fkemu_bank*) = nullptr;
    uint64_t (*bank_bytes)(fkemu_bank*) = nullptr;
    int (*place)(fkemu_cu*, const char*, fkemu_bank*) = nullptr;
    int (*cus_wait_interrupt)(fkemu_cu**, unsigned, unsigned, uint64_t) = nullptr;
    // ABI 3, every model: AXI4-Stream FIFOs and ap_ctrl_none.
    int (*stream_push)(fkemu_cu*, const char*, uint64_t, int) = nullptr;
    int (*stream_pop)(fkemu_cu*, const char*, uint64_t*, int*) = nullptr;
    bool free_running = false;

    template <typename F>
    void bind(F& fn, const char* symbol) {
        void* found = dlsym(handle, symbol);
        if (!found) fail(path + ": missing symbol " + symbol + " (not an fpgakern model?)");
        fn = reinterpret_cast<F>(found);
    }

    // Loads `library` and binds its symbols; fails on a missing symbol or another ABI.
    explicit Model(const std::string& library);
    // Libraries stay loaded for the process: unloading one with Verilator's runtime
    // inside races its static destructors at exit.
};

}  // namespace fkemu

#endif  // FPGAKERN_EMU_SRC_MODEL_H_
