// fpgakern XRT emulation: xrt::mailbox, as XRT's xrt/experimental/xrt_mailbox.h declares
// it (signatures checked against XRT's; docs/runtime.md "The XRT native API").
//
// A mailbox is made from the run of a kernel built with the HLS mailbox (kernel.xml's
// mailbox="both", a register kernel's) over one compute unit; it shares that run's state,
// as in XRT, where the run of such a kernel is the mailbox. Its calls go to the CU's
// mailbox registers like XRT's mailbox_impl does:
//   set_arg    acquires the input mailbox once (polls 0x14 until its busy bit 1 is clear,
//              then writes 0x14 with bit 0 cleared) and writes the argument's register(s);
//   write      refuses a busy input mailbox, else sets 0x14 bit 0: the kernel takes the
//              new inputs at its next start;
//   read       the same check on 0x18, then sets 0x18 bit 0: the results are wanted;
//   get_arg    waits for 0x18's busy bit to clear (the results of the first run that
//              started after read() are in), acquires the output mailbox once, reads the
//              argument's register(s) and returns their bytes, valid until the mailbox
//              is read again.
// Refusals carry XRT's messages: a run of a kernel without a mailbox ("Mailbox not
// supported by this run object"), over several CUs ("Only one compute unit allowed with
// mailbox"), write or read while busy ("Mailbox is busy, Unable to do mailbox write",
// std::system_error with EBUSY). XRT polls for ever; the emulation gives up after a bound
// of polls (a stopped kernel never clears a busy mailbox) and throws std::runtime_error
// saying which mailbox stayed busy.
#ifndef FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_MAILBOX_H_
#define FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_MAILBOX_H_

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_kernel.h"

namespace xrt {

class mailbox_impl;

class mailbox {
  public:
    // Throws for a run whose kernel has no mailbox, or which spans several CUs.
    explicit mailbox(const run& run);

    // Request the kernel's results (asynchronous: they arrive at the end of its next run).
    void read();
    // Hand the arguments set since the last write to the kernel (taken at its next start).
    void write();
    // The mailbox copy of argument `index` (bytes and size); waits while a read is pending.
    std::pair<const void*, size_t> get_arg(int index) const;

    void set_arg(int index, xrt::bo& boh) { set_arg_at_index(index, boh); }
    void set_arg(int index, const xrt::bo& boh) { set_arg_at_index(index, boh); }
    void set_arg(int index, xrt::bo&& boh) { set_arg_at_index(index, boh); }

    template <typename ArgType>
    void set_arg(int index, ArgType&& arg) {
        static_assert(std::is_trivially_copyable<typename std::decay<ArgType>::type>::value,
                      "scalar kernel arguments must be trivially copyable");
        set_arg_at_index(index, &arg, sizeof(arg));
    }

    template <typename ArgType>
    void set_arg(const std::string& argnm, ArgType&& argvalue) {
        auto index = get_arg_index(argnm);
        set_arg(index, std::forward<ArgType>(argvalue));
    }

    explicit operator bool() const { return handle_ != nullptr; }
    const std::shared_ptr<mailbox_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<mailbox_impl> handle_;

    int get_arg_index(const std::string& argnm) const;
    void set_arg_at_index(int index, const void* value, size_t bytes);
    void set_arg_at_index(int index, const xrt::bo& boh);
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_MAILBOX_H_
