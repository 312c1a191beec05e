// fpgakern's XRT emulation library: loading a model library (model.h).
#include "model.h"

#include <cstring>

namespace fkemu {

Model::Model(const std::string& library) : path(library) {
    // RTLD_LOCAL: each hw_emu model carries its own copy of Verilator's runtime.
    handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail(std::string("cannot load model ") + library + ": " + dlerror());
    int (*abi)() = nullptr;
    bind(abi, "fkemu_abi_version");
    if (abi() != FKEMU_ABI_VERSION) fail(library + ": model ABI mismatch");
    bind(cu_new, "fkemu_cu_new");
    bind(cu_free, "fkemu_cu_free");
    bind(configure, "fkemu_cu_configure");
    bind(map, "fkemu_cu_map");
    bind(unmap_all, "fkemu_cu_unmap_all");
    bind(write, "fkemu_cu_write");
    bind(read, "fkemu_cu_read");
    bind(wait_interrupt, "fkemu_cu_wait_interrupt");
    bind(interrupt, "fkemu_cu_interrupt");
    bind(tick, "fkemu_cu_tick");
    bind(cycles, "fkemu_cu_cycles");
    bind(error, "fkemu_cu_error");
    bind(clear_error, "fkemu_cu_clear_error");
    const char* (*target)() = nullptr;
    bind(target, "fkemu_model_target");
    bind(stream_push, "fkemu_cu_stream_push");
    bind(stream_pop, "fkemu_cu_stream_pop");
    int (*is_free_running)() = nullptr;
    bind(is_free_running, "fkemu_model_free_running");
    free_running = is_free_running() != 0;
    hw = std::strcmp(target(), "hw_emu") == 0;
    if (hw) {
        bind(bank_new, "fkemu_bank_new");
        bind(bank_free, "fkemu_bank_free");
        bind(bank_bytes, "fkemu_bank_bytes");
        bind(place, "fkemu_cu_place");
        bind(cus_wait_interrupt, "fkemu_cus_wait_interrupt");
    }
}

}  // namespace fkemu
