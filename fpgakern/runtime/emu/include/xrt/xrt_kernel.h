// fpgakern XRT emulation: xrt::kernel and xrt::run, as XRT's xrt/xrt_kernel.h declares
// them (signatures checked against XRT's; docs/runtime.md "The XRT native API").
//
// A kernel object names a kernel of the loaded xclbin and, optionally, a subset of its
// compute units ("add_f32:{add_f32_1,add_f32_2}", as XRT parses it). A run starts with
// every CU of the kernel object; each set_arg of a buffer keeps only the CUs whose
// argument connects to the buffer's memory (XRT's rule), and start() runs on an idle CU
// of those (waiting for one to finish when all are busy). run.wait() advances that CU's
// emulation until its interrupt and acknowledges it as XRT does (read CTRL, clear ISR,
// ap_continue); wait(timeout) returns ERT_CMD_STATE_TIMEOUT when the run has not
// finished within that wall-clock time, and leaves it running.
//
// Auto-restart (a kernel built with counted auto-restart and the mailbox, kernel.xml's
// countedAutoRestart="1" mailbox="both"): kernel(xrt::autostart{n}, args...) or
// run.start(xrt::autostart{n}) writes n to the auto-restart counter and starts the run
// with CTRL's auto_restart bit, so the kernel restarts itself; n = 0 restarts it for
// ever. A result argument (a scalar the kernel writes, C type "int&") is never set by
// the host. run.stop() clears auto_restart, then waits for the run in flight to end and
// acknowledges it as wait() does. The host exchanges values with the running kernel
// through xrt::mailbox (xrt/experimental/xrt_mailbox.h).
#ifndef FPGAKERN_EMU_XRT_KERNEL_H_
#define FPGAKERN_EMU_XRT_KERNEL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_uuid.h"

#ifndef FPGAKERN_EMU_ERT_CMD_STATE
#define FPGAKERN_EMU_ERT_CMD_STATE
// XRT's values (xrt/detail/ert.h).
enum ert_cmd_state {
    ERT_CMD_STATE_NEW = 1,
    ERT_CMD_STATE_QUEUED = 2,
    ERT_CMD_STATE_RUNNING = 3,
    ERT_CMD_STATE_COMPLETED = 4,
    ERT_CMD_STATE_ERROR = 5,
    ERT_CMD_STATE_ABORT = 6,
    ERT_CMD_STATE_SUBMITTED = 7,
    ERT_CMD_STATE_TIMEOUT = 8,
    ERT_CMD_STATE_NORESPONSE = 9,
    ERT_CMD_STATE_SKERROR = 10,
    ERT_CMD_STATE_SKCRASHED = 11,
    ERT_CMD_STATE_MAX,
};
#endif

typedef void* xrtKernelHandle;
typedef void* xrtRunHandle;

namespace xrt {

class kernel;
class run_impl;
class kernel_impl;

// The first argument of kernel::operator() and run::operator() that starts a run in
// auto-restart mode: the number of runs, 0 for ever (as XRT's xrt/xrt_kernel.h).
struct autostart {
    unsigned int iterations = 0;
};

class run {
  public:
    run() = default;
    explicit run(const kernel& krnl);

    void start();
    // Auto-restart (the file's comment): throws for a kernel without auto-restart counters
    // or a run over several CUs, as XRT does.
    void start(const autostart& iterations);
    // Ends an auto-restarting run: clears auto_restart, waits for the run in flight.
    void stop();
    ert_cmd_state wait(const std::chrono::milliseconds& timeout = std::chrono::milliseconds{0}) const;
    ert_cmd_state wait(unsigned int timeout_ms) const {
        return wait(timeout_ms * std::chrono::milliseconds{1});
    }
    ert_cmd_state state() const;

    template <typename ArgType>
    void set_arg(int index, ArgType&& arg) {
        static_assert(std::is_trivially_copyable<typename std::decay<ArgType>::type>::value,
                      "scalar kernel arguments must be trivially copyable");
        set_arg_at_index(index, &arg, sizeof(arg));
    }
    void set_arg(int index, xrt::bo& boh) { set_arg_at_index(index, boh); }
    void set_arg(int index, const xrt::bo& boh) { set_arg_at_index(index, boh); }
    void set_arg(int index, xrt::bo&& boh) { set_arg_at_index(index, boh); }

    template <typename... Args>
    void operator()(Args&&... args) {
        set_arg(0, std::forward<Args>(args)...);
        start();
    }
    template <typename... Args>
    void operator()(autostart&& count, Args&&... args) {
        set_arg(0, std::forward<Args>(args)...);
        start(count);
    }

    explicit operator bool() const { return handle_ != nullptr; }
    const std::shared_ptr<run_impl>& get_handle() const { return handle_; }

    // Use at your own risk, prefer documented type-safe arguments (as in XRT).
    void set_arg(int index, const void* value, size_t bytes) {
        set_arg_at_index(index, value, bytes);
    }

  private:
    std::shared_ptr<run_impl> handle_;

    void set_arg_at_index(int index, const void* value, size_t bytes);
    void set_arg_at_index(int index, const xrt::bo& boh);

    template <typename ArgType, typename... Args>
    void set_arg(int argno, ArgType&& arg, Args&&... args) {
        set_arg(argno, std::forward<ArgType>(arg));
        set_arg(++argno, std::forward<Args>(args)...);
    }
};

class kernel {
  public:
    enum class cu_access_mode : uint8_t { exclusive = 0, shared = 1, none = 2 };

    kernel() = default;
    // Throws std::runtime_error when the loaded xclbin has no such kernel or CU.
    kernel(const xrt::device& device, const xrt::uuid& xclbin_id, const std::string& name,
           cu_access_mode mode = cu_access_mode::shared);

    template <typename... Args>
    run operator()(Args&&... args) {
        run r(*this);
        r(std::forward<Args>(args)...);
        return r;
    }

    // The memory group of argument argno, as XRT answers: of the kernel object's first CU,
    // the connection with the highest memory index (with GROUP_TOPOLOGY, the group of a
    // bank range; without it, the last bank of the range).
    int group_id(int argno) const;
    uint32_t offset(int argno) const;
    std::string get_name() const;

    explicit operator bool() const { return handle_ != nullptr; }
    const std::shared_ptr<kernel_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<kernel_impl> handle_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_KERNEL_H_
