// fpgakern's XRT emulation library: the subset of XRT's native C++ API declared in
// ../include/ (xrt/*.h, experimental/xrt_xclbin.h, xrt/experimental/xrt_mailbox.h),
// implemented over fpgakern's emulation models. Its parts, one file each:
//
//   axlf.h, axlf.cpp    the .xclbin as XRT reads it (sections, kernels, CUs, memories)
//   xclbin.cpp          xrt::xclbin, its queries over that reading
//   emconfig.h, .cpp    emconfig.json (Vitis' emconfigutil): the devices to emulate
//   model.h, model.cpp  a kernel's model library (fkemu_model.h), loaded with dlopen
//   device.h, .cpp      xrt::device: a loaded xclbin's CUs, banks and stream chains
//   bo.h, bo.cpp        xrt::bo: buffers with a host and a device side
//   kernel.cpp          xrt::kernel, xrt::run and xrt::mailbox: CU selection, runs and
//                       auto-restart over the registers, the mailbox registers
//   queue.cpp           xrt::queue: a worker thread running tasks in order
//
// This header holds what every part shares: the control register map, the page size,
// errors, and the lock serializing the API.
#ifndef FPGAKERN_EMU_SRC_INTERNAL_H_
#define FPGAKERN_EMU_SRC_INTERNAL_H_

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

namespace fkemu {

// Control register map (fpgakern/interface.py, the Vitis HLS map).
constexpr uint32_t kCtrl = 0x00, kGie = 0x04, kIer = 0x08, kIsr = 0x0C;
constexpr uint32_t kApStart = 0x01, kApDone = 0x02, kApContinue = 0x10;
// A register kernel's auto-restart counter and mailboxes (REG_AUTO_RESTART_COUNTER,
// REG_MAILBOX_IN, REG_MAILBOX_OUT): bit 0 is the host's request, bit 1 reads busy.
constexpr uint32_t kRestartCounter = 0x10, kMailboxIn = 0x14, kMailboxOut = 0x18;
// What XRT's start(xrt::autostart{0}) writes to the counter: as many runs as it holds.
constexpr uint32_t kRestartForEver = 0xFFFFFFFFu;
constexpr uint32_t kMailboxRequest = 0x1, kMailboxBusy = 0x2;
constexpr uint64_t kPage = 4096;

[[noreturn]] inline void fail(const std::string& what) {
    throw std::runtime_error("fpgakern emulation: " + what);
}

// The library's API calls are serialized (the host's threads, xrt::queue's workers): the
// emulated device steps one run at a time anyway.
inline std::recursive_mutex& api_mutex() {
    static std::recursive_mutex mutex;
    return mutex;
}
using ApiLock = std::lock_guard<std::recursive_mutex>;

}  // namespace fkemu

#endif  // FPGAKERN_EMU_SRC_INTERNAL_H_
