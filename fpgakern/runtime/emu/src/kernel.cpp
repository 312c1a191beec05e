// fpgakern's XRT emulation library: xrt::kernel, xrt::run and xrt::mailbox (internal.h
// lists the library's files).
//
// A kernel object takes the CUs its name selects ("k" or "k:{cu1,cu2}"); a run keeps
// those whose connections fit the buffers it is given (XRT's CU selection). Runs are
// driven over the CU's control registers like XRT's driver does. xrt::kernel refuses a
// free-running CU as XRT does ("AP_CTRL_NONE is only supported by XRT native API
// xrt::ip"): the host starts the kernels around it. Lockstep on hw_emu: run::wait steps
// every CU of the same kernel whose run has started and not yet been waited for, one
// cycle each per emulated cycle (fkemu_cus_wait_interrupt), until the waited run's CU is
// done; CUs of other kernels advance when their own runs are waited for.
//
// Waiting for a run whose CU is in a stream chain (device.h) steps the whole chain:
// hw_emu, one cycle at a time, every CU of the chain one cycle (fkemu_cu_tick; one whose
// interrupt is high is not advanced), then at most one beat across each connection (the
// AXI4-Stream rate), until the waited CU's interrupt; sw_emu, rounds of every CU ticked
// and every beat moved, until the interrupt or a round in which nothing moves ("stream
// chain stalled"). Stream arguments take no register: set_arg on one is ignored (XRT
// copies its 0 bytes), an xrt::bo for one and group_id of one are refused (XRT has no
// memory for them).
//
// Auto-restart and the mailbox (a register kernel: kernel.xml's mailbox="both",
// countedAutoRestart="1"; fpgakern/interface.py's register map). The run of such a kernel
// is its mailbox, as in XRT (xrt_kernel.cpp's mailbox_impl is a run_impl): it must span
// one CU ("Only one compute unit allowed with mailbox", when the run is made), and its
// set_arg writes the argument register at once, through the input mailbox (acquired: 0x14
// polled until not busy, then its bit 0 cleared); start() releases the input mailbox
// (0x14 bit 0 set) and writes ap_start. As XRT's run_impl::start(autostart), start(
// autostart{n}) first writes n runs to the auto-restart counter (0x10; 0xFFFFFFFF for
// autostart{0}, XRT's "for ever"); a result argument ("int&") is never set by the host
// nor demanded. As XRT's stop(), stop() writes 0 to the counter: the kernel ends its run
// in flight and goes idle with ap_done, which stop() waits for and acknowledges as wait()
// does, leaving the run completed (the RTL and the sw_emu model follow docs/rtl.md's
// rules for the counter).
//
// Every mailbox poll is bounded (kMailboxPolls register reads; XRT polls for ever): a
// kernel that no longer runs never clears a busy mailbox, and the poll fails saying which
// one stayed busy. wait() on a run restarting for ever (autostart{0}) without a timeout is
// refused for the same reason: it could only return after stop().
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "bo.h"
#include "device.h"
#include "internal.h"
#include "xrt/experimental/xrt_mailbox.h"
#include "xrt/xrt_kernel.h"

using namespace fkemu;

namespace {

// hw_emu cycles a stream chain may go without moving a beat before it counts as stalled.
constexpr uint64_t kChainPatienceCycles = 100'000;
// Reads of a busy mailbox register before the poll gives up. A running kernel clears it
// within one run: on sw_emu the next register access runs it; on hw_emu every access
// advances the clock (a register kernel's run is a few cycles). A stopped one never does.
constexpr unsigned kMailboxPolls = 100'000;

uint32_t scalar_bits(const std::vector<uint8_t>& value) {
    uint32_t bits = 0;
    std::memcpy(&bits, value.data(), std::min<size_t>(value.size(), sizeof bits));
    return bits;
}

}  // namespace

namespace xrt {

class kernel_impl {
  public:
    kernel_impl(std::shared_ptr<device_impl> device, const std::string& name)
        : device_(std::move(device)) {
        // "kernel" or "kernel:{cu1,cu2}" (XRT's syntax, xrt_kernel.h).
        const size_t colon = name.find(':');
        kernel_name_ = name.substr(0, colon);
        std::vector<std::string> wanted;
        if (colon != std::string::npos) {
            std::string list = name.substr(colon + 1);
            if (list.size() < 2 || list.front() != '{' || list.back() != '}') {
                fail("kernel name '" + name + "': write CUs as kernel:{cu1,cu2}");
            }
            std::istringstream parts(list.substr(1, list.size() - 2));
            for (std::string cu; std::getline(parts, cu, ',');) wanted.push_back(cu);
        }
        info_ = device_->kernel(kernel_name_);
        if (!info_) fail("No such kernel '" + kernel_name_ + "' in the loaded xclbin");
        auto& cus = device_->cus();
        for (size_t i = 0; i < cus.size(); ++i) {
            if (cus[i].kernel != kernel_name_) continue;
            if (!wanted.empty() &&
                std::find(wanted.begin(), wanted.end(), cus[i].name) == wanted.end()) {
                continue;
            }
            cus_.push_back(i);
        }
        if (cus_.empty()) fail("No compute units matching '" + name + "'");
        for (size_t i : cus_) {
            // XRT's kernel_impl refuses these CUs (xrt_kernel.cpp; since XRT 2.1x,
            // ENOTSUP): a free-running kernel has no control port to start or wait for.
            if (cus[i].free_running) {
                fail("xrt::kernel '" + name + "': AP_CTRL_NONE is only supported by XRT "
                     "native API xrt::ip (" + kernel_name_ + " is free-running: it runs from "
                     "reset; start the kernels that feed and drain it)");
            }
        }
    }

    const ArgInfo& arg(int index) const {
        if (index < 0 || static_cast<size_t>(index) >= info_->args.size()) {
            fail(kernel_name_ + ": no argument " + std::to_string(index));
        }
        return info_->args[static_cast<size_t>(index)];
    }

    // As XRT (xrt_kernel.cpp, kernel_impl::group_id): the first CU's default connection,
    // the highest memory index of the argument. A kernel object whose CUs differ answers
    // its first CU's; a run then keeps the CUs the buffers fit.
    int group_id(int argno) const {
        const ArgInfo& a = arg(argno);
        if (a.qualifier == kStreamArg) {
            // XRT answers -1 or throws: no memory connection is recorded for a stream.
            fail(kernel_name_ + ": argument " + a.name + " is an AXI4-Stream (joined to "
                 "another CU by the link's stream_connect): it has no memory group");
        }
        if (a.qualifier != 1) fail(kernel_name_ + ": argument " + a.name + " is not a buffer");
        const int mem = device_->cus()[cus_.front()].default_mem(a.id);
        return mem < 0 ? 0 : mem;
    }

    std::shared_ptr<device_impl> device_;
    std::string kernel_name_;
    const KernelInfo* info_ = nullptr;
    std::vector<size_t> cus_;  // indices into device_->cus()
};

class run_impl {
  public:
    explicit run_impl(std::shared_ptr<kernel_impl> kernel)
        : kernel_(std::move(kernel)), cus_(kernel_->cus_), values_(kernel_->info_->args.size()),
          buffers_(kernel_->info_->args.size()), mailbox_(kernel_->info_->has_mailbox()) {
        if (mailbox_ && cus_.size() > 1) {
            fail("Only one compute unit allowed with mailbox (" + kernel_->kernel_name_ + " has " +
                 std::to_string(cus_.size()) + " CUs: open one, as " + kernel_->kernel_name_ +
                 ":{" + kernel_->device_->cus()[cus_.front()].name + "})");
        }
        cu_ = cus_.front();
    }

    void set(int index, const void* value, size_t bytes) {
        const ArgInfo& a = kernel_->arg(index);
        // As XRT (run_impl's hs_arg_setter copies min(arg size, value size) bytes): a
        // stream takes no register, so its value is ignored.
        if (a.qualifier == kStreamArg) return;
        if (a.qualifier == 1) fail(kernel_->kernel_name_ + ": argument " + a.name +
                                   " is a buffer; pass an xrt::bo");
        if (bytes > a.size) fail(kernel_->kernel_name_ + ": argument " + a.name + " takes " +
                                 std::to_string(a.size) + " bytes, got " + std::to_string(bytes));
        auto& v = values_[static_cast<size_t>(index)];
        v.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + bytes);
        // Through the mailbox at once, as XRT's mailbox argument setter writes it (a result
        // is the kernel's to write).
        if (mailbox_ && !a.result()) {
            acquire(kMailboxIn, acquired_in_);
            ComputeUnit& cu = mailbox_cu();
            cu.model->write(cu.cu, a.offset, scalar_bits(v));
        }
    }

    // XRT's rule (xrt_kernel.cpp, run_impl::validate_bo_at_index): keep the CUs whose
    // argument connects to the buffer's memory; when none does, warn and run on a copy
    // of the buffer in the kernel's group for that argument (what the kernel writes
    // there does not reach the original, as with XRT).
    void set(int index, const bo& buffer) {
        const ArgInfo& a = kernel_->arg(index);
        if (a.qualifier == kStreamArg) {
            fail(kernel_->kernel_name_ + ": argument " + a.name + " is an AXI4-Stream "
                 "(joined by the link's stream_connect), not a buffer: leave it unset");
        }
        if (a.qualifier != 1) fail(kernel_->kernel_name_ + ": argument " + a.name +
                                   " is a scalar, got an xrt::bo");
        if (!buffer) fail(kernel_->kernel_name_ + ": argument " + a.name + " is an empty xrt::bo");
        auto handle = buffer.get_handle();
        const int bank = static_cast<int>(handle->group_ & 0xFFFF);
        auto& cus = kernel_->device_->cus();
        std::vector<size_t> keep;
        for (size_t i : cus_) {
            if (cus[i].connects(a.id, bank)) keep.push_back(i);
        }
        if (keep.empty()) {
            const int group = kernel_->group_id(index);
            std::fprintf(stderr,
                         "[XRT] WARNING: Kernel %s has no compute units with connectivity "
                         "required for global argument at index %d. The argument is allocated "
                         "in bank %d, the compute unit is connected to bank %d. Allocating "
                         "local copy of argument buffer in connected bank.\n",
                         kernel_->kernel_name_.c_str(), index, bank, group);
            auto copy = std::make_shared<bo_impl>(kernel_->device_, handle->size_,
                                                  bo::flags::normal,
                                                  static_cast<memory_group>(group), nullptr);
            std::memcpy(copy->device(), handle->device(), handle->size_);
            handle = copy;
        } else {
            cus_ = keep;
        }
        buffers_[static_cast<size_t>(index)] = handle;
    }

    // `iterations`: start(autostart{*iterations}), else an ordinary start().
    void start(const std::shared_ptr<run_impl>& self, const unsigned* iterations = nullptr) {
        if (state_ == ERT_CMD_STATE_RUNNING) fail("bad command state, can't launch");
        if (iterations) check_auto_restart("No auto-restart counters found for kernel");
        auto& cus = kernel_->device_->cus();
        // An idle CU of those the buffers fit; when all are busy, finish the oldest run
        // first (XRT would queue the run; the result is the same).
        size_t chosen = cus_.front();
        bool idle = false;
        for (size_t i : cus_) {
            if (!cus[i].busy) {
                chosen = i;
                idle = true;
                break;
            }
        }
        if (!idle) {
            if (cus[chosen].busy->forever_) {
                fail(kernel_->kernel_name_ + ": " + cus[chosen].name + " is running a run "
                     "that restarts for ever (xrt::autostart{0}): stop it (run.stop()) "
                     "before starting another run on it");
            }
            cus[chosen].busy->finish(0);
        }
        ComputeUnit& cu = cus[chosen];
        Model& m = *cu.model;
        m.unmap_all(cu.cu);
        const KernelInfo& info = *kernel_->info_;
        std::vector<const Storage*> mapped;
        for (size_t i = 0; i < info.args.size(); ++i) {
            const ArgInfo& a = info.args[i];
            if (a.qualifier == kStreamArg) continue;  // no register: the link joins it
            if (a.qualifier == 1) {
                const auto& b = buffers_[i];
                if (!b) fail(info.name + ": buffer argument " + a.name + " was not set");
                const Storage* s = b->storage_.get();
                if (std::find(mapped.begin(), mapped.end(), s) == mapped.end()) {
                    m.map(cu.cu, s->address, s->device, s->bytes, 1);
                    mapped.push_back(s);
                }
                kernel_->device_->place(cu, a.bundle, static_cast<int>(b->group_ & 0xFFFF));
                const uint64_t address = b->address();
                m.write(cu.cu, a.offset, static_cast<uint32_t>(address));
                m.write(cu.cu, a.offset + 4, static_cast<uint32_t>(address >> 32));
            } else if (!a.result()) {  // a result is the kernel's: never set, not written
                if (values_[i].empty()) fail(info.name + ": scalar argument " + a.name +
                                             " was not set");
                // A mailbox run wrote it when it was set.
                if (!mailbox_) m.write(cu.cu, a.offset, scalar_bits(values_[i]));
            }
        }
        cu_ = chosen;
        if (iterations) {  // XRT writes it through the mailbox as well
            if (mailbox_) acquire(kMailboxIn, acquired_in_);
            m.write(cu.cu, kRestartCounter, *iterations ? *iterations : kRestartForEver);
        }
        if (mailbox_) mailbox_write();  // XRT's mailbox start(): the inputs are released
        started_at_ = m.cycles(cu.cu);
        state_ = ERT_CMD_STATE_RUNNING;
        autostarted_ = auto_restart_ = iterations != nullptr;
        forever_ = iterations && *iterations == 0;
        cu.busy = self;
        m.write(cu.cu, kCtrl, kApStart);
        check(cu);
    }

    // XRT's refusals of auto-restart (run_impl::start(autostart) and stop()).
    void check_auto_restart(const char* without_counters) const {
        if (cus_.size() > 1) {
            fail("Only one compute unit allowed with auto restart (" + kernel_->kernel_name_ +
                 " has " + std::to_string(cus_.size()) + " CUs in this run)");
        }
        if (!kernel_->info_->counted_auto_restart) {
            fail(std::string(without_counters) + " " + kernel_->kernel_name_ + " (kernel.xml "
                 "has no countedAutoRestart=\"1\": only a register kernel, control: "
                 "auto_restart, auto-restarts)");
        }
    }

    // The file's comment: clear the counter, wait for the run in flight, acknowledge it.
    void stop() {
        check_auto_restart("Support for auto restart counters have not been implemented for");
        if (state_ != ERT_CMD_STATE_RUNNING) return;  // nothing in flight: as wait()
        ComputeUnit& cu = kernel_->device_->cus()[cu_];
        if (auto_restart_) {
            auto_restart_ = forever_ = false;
            cu.model->write(cu.cu, kRestartCounter, 0);  // no run left after this one
        }
        finish(0);
    }

    // ------------------------------------------------------------------ the mailbox

    ComputeUnit& mailbox_cu() { return kernel_->device_->cus()[cus_.front()]; }
    uint32_t read_register(uint32_t offset) {
        ComputeUnit& cu = mailbox_cu();
        uint32_t value = 0;
        if (cu.model->read(cu.cu, offset, &value) != 0) {
            fail(kernel_->kernel_name_ + ": no answer reading register " + hex(offset));
        }
        return value;
    }
    void write_register(uint32_t offset, uint32_t value) {
        ComputeUnit& cu = mailbox_cu();
        if (cu.model->write(cu.cu, offset, value) != 0) {
            fail(kernel_->kernel_name_ + ": no answer writing register " + hex(offset));
        }
    }
    static std::string hex(uint32_t offset) {
        char text[16];
        std::snprintf(text, sizeof text, "0x%02X", offset);
        return text;
    }
    static const char* mailbox_name(uint32_t offset) {
        return offset == kMailboxIn ? "input" : "output";
    }

    // XRT's mailbox_wait: poll until not busy (bounded, the file's comment), then acquire
    // the mailbox (bit 0 cleared) unless this run holds it already.
    void acquire(uint32_t offset, bool& acquired) {
        bool busy = true;
        for (unsigned poll = 0; busy && poll < kMailboxPolls; ++poll) {
            busy = (read_register(offset) & kMailboxBusy) != 0;
        }
        if (busy) {
            const bool in = offset == kMailboxIn;
            fail(kernel_->kernel_name_ + ":" + mailbox_cu().name + ": the " +
                 mailbox_name(offset) + " mailbox (" + hex(offset) + ") is still busy after " +
                 std::to_string(kMailboxPolls) + " polls: no run of the kernel has " +
                 (in ? "started since the inputs were written (mailbox.write())"
                     : "ended since the results were requested (mailbox.read())") +
                 ". Is it still running? A stopped kernel (run.stop(), or its auto-restart "
                 "counter ran out) or one never started with xrt::autostart does not " +
                 (in ? "take new inputs" : "deliver results"));
        }
        if (acquired) return;
        write_register(offset, read_register(offset) & ~kMailboxRequest);
        acquired = true;
    }

    // XRT's mailbox_idle_or_error, then the release (bit 0 set).
    void release(uint32_t offset, const char* operation) {
        if (read_register(offset) & kMailboxBusy) {
            throw std::system_error(EBUSY, std::generic_category(),
                                    std::string("fpgakern emulation: Mailbox is busy, Unable "
                                                "to do mailbox ") + operation);
        }
        write_register(offset, read_register(offset) | kMailboxRequest);
    }

    void mailbox_write() {
        if (kernel_->info_->mailbox == "out") fail("Mailbox is read-only");
        release(kMailboxIn, "write");
        acquired_in_ = false;
    }
    void mailbox_read() {
        if (kernel_->info_->mailbox == "in") fail("Mailbox is write-only");
        release(kMailboxOut, "read");
        acquired_out_ = false;
    }

    // The argument's register(s) once the output mailbox is idle, kept in the run's copy
    // of the value (valid until the next get_arg of it, as XRT's is until the next read).
    std::pair<const void*, size_t> mailbox_get(int index) {
        const ArgInfo& a = kernel_->arg(index);
        if (a.qualifier != 0) fail(kernel_->kernel_name_ + ": argument " + a.name +
                                   " is not a scalar: the mailbox holds scalars only");
        acquire(kMailboxOut, acquired_out_);
        auto& v = values_[static_cast<size_t>(index)];
        v.assign((a.size + 3) / 4 * 4, 0);
        for (uint32_t word = 0; word * 4 < a.size; ++word) {
            const uint32_t bits = read_register(a.offset + 4 * word);
            std::memcpy(v.data() + 4 * word, &bits, sizeof bits);
        }
        v.resize(a.size);
        return {v.data(), v.size()};
    }

    int arg_index(const std::string& name) const {
        for (const ArgInfo& a : kernel_->info_->args) {
            if (a.name == name) return a.id;
        }
        fail("No such kernel argument '" + name + "' (" + kernel_->kernel_name_ + ")");
    }

    // Advance the CU until this run's interrupt, then acknowledge it like XRT does.
    // timeout_ms > 0: give up after that much wall-clock time and return false, the run
    // still running (XRT's wait(timeout) answers ERT_CMD_STATE_TIMEOUT then).
    bool finish(int64_t timeout_ms) {
        if (state_ != ERT_CMD_STATE_RUNNING) return true;
        if (forever_ && timeout_ms <= 0) {
            fail(kernel_->kernel_name_ + ": run.wait() on a run started with "
                 "xrt::autostart{0}, which restarts for ever, would never return: end it "
                 "with run.stop() (or give wait a timeout)");
        }
        auto& cus = kernel_->device_->cus();
        ComputeUnit& cu = cus[cu_];
        if (cu.chain >= 0) {
            const ChainWait waited = step_chain(cu, timeout_ms);
            if (waited == ChainWait::timeout) return false;
            if (waited == ChainWait::stalled) {
                cu.busy.reset();
                return true;
            }
            acknowledge(cu, read_ctrl(cu));
            // Errors of the free-running CUs (they have no run to report them) go to this one.
            for (size_t i : kernel_->device_->chain(cu.chain).cus) {
                if (cus[i].free_running) check(cu, &cus[i]);
            }
            return true;
        }
        Model& m = *cu.model;
        // hw_emu: this CU first, then every other CU of the same model with a run in
        // flight, all advanced together (lockstep) until this one's interrupt.
        std::vector<fkemu_cu*> group{cu.cu};
        if (m.hw) {
            for (ComputeUnit& other : cus) {
                if (&other != &cu && other.busy && other.model == cu.model) {
                    group.push_back(other.cu);
                }
            }
        }
        constexpr uint64_t kMaxCycles = 4'000'000'000ULL;
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(timeout_ms);
        // Without a timeout, one call; with one, slices of cycles between clock checks.
        const uint64_t slice = timeout_ms > 0 ? 4096 : kMaxCycles;
        for (;;) {
            int status = -1;
            for (uint64_t done = 0; done < kMaxCycles; done += slice) {
                status = group.size() > 1
                             ? m.cus_wait_interrupt(group.data(),
                                                    static_cast<unsigned>(group.size()), 0, slice)
                             : m.wait_interrupt(cu.cu, slice);
                if (status == 0) break;
                if (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline) return false;
            }
            if (status != 0 || m.cycles(cu.cu) - started_at_ >= kMaxCycles) {
                cu.busy.reset();
                report(cu, "no interrupt: the kernel did not finish");
                return true;
            }
            uint32_t ctrl = 0;
            m.read(cu.cu, kCtrl, &ctrl);
            if ((ctrl & kApDone) || !autostarted_) {
                acknowledge(cu, ctrl);
                return true;
            }
            // An auto-restarting run's iterations may each raise the interrupt: an HLS slave
            // sets ISR's ap_done event at every iteration's end, CTRL's ap_done at the last
            // only. Without ap_done in CTRL the event is cleared and the wait goes on, as a
            // driver that checks CTRL does.
            m.write(cu.cu, kIsr, 1);
            if (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline) return false;
        }
    }

    uint32_t read_ctrl(ComputeUnit& cu) {
        uint32_t ctrl = 0;
        cu.model->read(cu.cu, kCtrl, &ctrl);
        return ctrl;
    }

    // The CU's interrupt is high and CTRL was read (`ctrl`; the read clears ap_done):
    // acknowledge like XRT does, count the run.
    void acknowledge(ComputeUnit& cu, uint32_t ctrl) {
        Model& m = *cu.model;
        cu.busy.reset();
        auto_restart_ = forever_ = autostarted_ = false;
        const uint64_t cycles = m.cycles(cu.cu) - started_at_;
        m.write(cu.cu, kIsr, 1);
        m.write(cu.cu, kCtrl, kApContinue);
        if (!(ctrl & kApDone)) {
            report(cu, "interrupt without ap_done");
            return;
        }
        cu.runs += 1;
        cu.cycles += cycles;
        state_ = ERT_CMD_STATE_COMPLETED;
        check(cu);
    }

    enum class ChainWait { done, timeout, stalled };

    // Step the stream chain of this run's CU until its interrupt (the file's comment).
    ChainWait step_chain(ComputeUnit& cu, int64_t timeout_ms) {
        device_impl& device = *kernel_->device_;
        auto& cus = device.cus();
        const Chain& chain = device.chain(cu.chain);
        const bool hw = cu.model->hw;
        // hw_emu: one beat per stream per cycle; sw_emu: every beat there is, per round.
        const uint64_t per_step = hw ? 1 : UINT64_MAX;
        // Steps without a beat moved before the chain counts as stalled: hw_emu leaves
        // memory latency and a kernel's pipeline room; sw_emu runs all it can per round.
        const uint64_t patience = hw ? kChainPatienceCycles : 2;
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(timeout_ms);
        uint64_t idle = 0;
        for (uint64_t step = 0; !cu.model->interrupt(cu.cu); ++step) {
            if (timeout_ms > 0 && step % 4096 == 0 &&
                std::chrono::steady_clock::now() >= deadline) {
                return ChainWait::timeout;
            }
            for (size_t i : chain.cus) {
                ComputeUnit& member = cus[i];
                if (!member.model->interrupt(member.cu)) member.model->tick(member.cu, 1);
            }
            uint64_t moved = 0;
            for (size_t l : chain.links) moved += device.move(device.links()[l], per_step);
            idle = moved ? 0 : idle + 1;
            if (idle >= patience && !cu.model->interrupt(cu.cu)) {
                report(cu, stall_message(chain, idle, hw));
                return ChainWait::stalled;
            }
        }
        return ChainWait::done;
    }

    std::string stall_message(const Chain& chain, uint64_t idle, bool hw) {
        device_impl& device = *kernel_->device_;
        std::string streams;
        for (size_t l : chain.links) {
            const StreamLink& link = device.links()[l];
            streams += (streams.empty() ? "" : ", ") + link.label + " (" +
                       std::to_string(link.beats) + " beats)";
        }
        return "stream chain stalled: the kernel has not finished and no beat has moved for " +
               std::to_string(idle) + (hw ? " cycles" : " rounds") + "; streams: " + streams +
               ". A started kernel reads and writes exactly n beats per stream: start every "
               "kernel of the chain, with the same n";
    }

    // The first error `member` has seen (by default the run's own CU), reported on the
    // run's CU `cu`: a free-running CU of its chain has no run of its own to report it.
    void check(ComputeUnit& cu, ComputeUnit* member = nullptr) {
        ComputeUnit& from = member ? *member : cu;
        const char* error = from.model->error(from.cu);
        if (!error) return;
        report(cu, member ? from.kernel + ":" + from.name + ": " + error : std::string(error));
        from.model->clear_error(from.cu);
    }
    void report(ComputeUnit& cu, const std::string& what) {
        std::fprintf(stderr, "fpgakern emulation: %s:%s: %s\n", cu.kernel.c_str(),
                     cu.name.c_str(), what.c_str());
        state_ = ERT_CMD_STATE_ERROR;
    }

    std::shared_ptr<kernel_impl> kernel_;
    std::vector<size_t> cus_;  // the CUs this run may use (narrowed by its buffers)
    std::vector<std::vector<uint8_t>> values_;
    std::vector<std::shared_ptr<bo_impl>> buffers_;
    size_t cu_ = 0;
    uint64_t started_at_ = 0;
    ert_cmd_state state_ = ERT_CMD_STATE_NEW;
    const bool mailbox_;  // the kernel has the HLS mailbox: this run is its mailbox
    bool autostarted_ = false;   // started with xrt::autostart, not acknowledged yet
    bool auto_restart_ = false;  // ... and not stopped yet
    bool forever_ = false;       // ... with autostart{0}
    bool acquired_in_ = false, acquired_out_ = false;  // XRT's m_aquire_write, m_aquire_read
};

class mailbox_impl {
  public:
    explicit mailbox_impl(std::shared_ptr<run_impl> run) : run_(std::move(run)) {}
    std::shared_ptr<run_impl> run_;
};

kernel::kernel(const xrt::device& device, const xrt::uuid& xclbin_id, const std::string& name,
               cu_access_mode) {
    ApiLock lock(api_mutex());
    if (!device) fail("xrt::kernel on an empty xrt::device");
    if (xclbin_id != device.get_handle()->loaded()) {
        fail("xrt::kernel: uuid " + xclbin_id.to_string() + " is not the loaded xclbin");
    }
    handle_ = std::make_shared<kernel_impl>(device.get_handle(), name);
}

int kernel::group_id(int argno) const {
    ApiLock lock(api_mutex());
    return handle_->group_id(argno);
}
uint32_t kernel::offset(int argno) const { return handle_->arg(argno).offset; }
std::string kernel::get_name() const { return handle_->kernel_name_; }

run::run(const kernel& krnl) {
    ApiLock lock(api_mutex());
    if (!krnl) fail("xrt::run of an empty xrt::kernel");
    handle_ = std::make_shared<run_impl>(krnl.get_handle());
}

void run::start() {
    ApiLock lock(api_mutex());
    handle_->start(handle_);
}

void run::start(const autostart& iterations) {
    ApiLock lock(api_mutex());
    handle_->start(handle_, &iterations.iterations);
}

void run::stop() {
    ApiLock lock(api_mutex());
    handle_->stop();
}

ert_cmd_state run::wait(const std::chrono::milliseconds& timeout) const {
    ApiLock lock(api_mutex());
    // As XRT: a zero timeout waits for completion; otherwise ERT_CMD_STATE_TIMEOUT when
    // the run has not finished in time (it keeps running).
    if (!handle_->finish(timeout.count())) return ERT_CMD_STATE_TIMEOUT;
    return handle_->state_;
}

ert_cmd_state run::state() const {
    ApiLock lock(api_mutex());
    return handle_->state_;
}

void run::set_arg_at_index(int index, const void* value, size_t bytes) {
    ApiLock lock(api_mutex());
    handle_->set(index, value, bytes);
}
void run::set_arg_at_index(int index, const xrt::bo& boh) {
    ApiLock lock(api_mutex());
    handle_->set(index, boh);
}

}  // namespace xrt

namespace xrt {

mailbox::mailbox(const run& r) {
    ApiLock lock(api_mutex());
    if (!r) fail("Mailbox not supported by this run object (an empty xrt::run)");
    const auto& impl = r.get_handle();
    if (!impl->mailbox_) {
        fail("Mailbox not supported by this run object (" + impl->kernel_->kernel_name_ +
             " has no mailbox: kernel.xml's mailbox is none; a register kernel, control: "
             "auto_restart, has one)");
    }
    handle_ = std::make_shared<mailbox_impl>(impl);
}

void mailbox::read() {
    ApiLock lock(api_mutex());
    handle_->run_->mailbox_read();
}

void mailbox::write() {
    ApiLock lock(api_mutex());
    handle_->run_->mailbox_write();
}

std::pair<const void*, size_t> mailbox::get_arg(int index) const {
    ApiLock lock(api_mutex());
    return handle_->run_->mailbox_get(index);
}

int mailbox::get_arg_index(const std::string& argnm) const {
    return handle_->run_->arg_index(argnm);
}

void mailbox::set_arg_at_index(int index, const void* value, size_t bytes) {
    ApiLock lock(api_mutex());
    handle_->run_->set(index, value, bytes);
}

void mailbox::set_arg_at_index(int index, const xrt::bo& boh) {
    ApiLock lock(api_mutex());
    handle_->run_->set(index, boh);
}

}  // namespace xrt
