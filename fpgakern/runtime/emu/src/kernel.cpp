// fpgakern's XRT emulation library: xrt::kernel and xrt::run (internal.h lists the
// library's files).
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
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bo.h"
#include "device.h"
#include "internal.h"
#include "xrt/xrt_kernel.h"

using namespace fkemu;

namespace {

// hw_emu cycles a stream chain may go without moving a beat before it counts as stalled.
constexpr uint64_t kChainPatienceCycles = 100'000;

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
          buffers_(kernel_->info_->args.size()) {}

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

    void start(const std::shared_ptr<run_impl>& self) {
        if (state_ == ERT_CMD_STATE_RUNNING) fail("bad command state, can't launch");
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
        if (!idle) cus[chosen].busy->finish(0);
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
            } else {
                if (values_[i].empty()) fail(info.name + ": scalar argument " + a.name +
                                             " was not set");
                m.write(cu.cu, a.offset, scalar_bits(values_[i]));
            }
        }
        cu_ = chosen;
        started_at_ = m.cycles(cu.cu);
        state_ = ERT_CMD_STATE_RUNNING;
        cu.busy = self;
        m.write(cu.cu, kCtrl, kApStart);
        check(cu);
    }

    // Advance the CU until this run's interrupt, then acknowledge it like XRT does.
    // timeout_ms > 0: give up after that much wall-clock time and return false, the run
    // still running (XRT's wait(timeout) answers ERT_CMD_STATE_TIMEOUT then).
    bool finish(int64_t timeout_ms) {
        if (state_ != ERT_CMD_STATE_RUNNING) return true;
        auto& cus = kernel_->device_->cus();
        ComputeUnit& cu = cus[cu_];
        if (cu.chain >= 0) {
            const ChainWait waited = step_chain(cu, timeout_ms);
            if (waited == ChainWait::timeout) return false;
            if (waited == ChainWait::stalled) {
                cu.busy.reset();
                return true;
            }
            acknowledge(cu);
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
        int status = -1;
        for (uint64_t done = 0; done < kMaxCycles; done += slice) {
            status = group.size() > 1
                         ? m.cus_wait_interrupt(group.data(),
                                                static_cast<unsigned>(group.size()), 0, slice)
                         : m.wait_interrupt(cu.cu, slice);
            if (status == 0) break;
            if (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline) return false;
        }
        if (status != 0) {
            cu.busy.reset();
            report(cu, "no interrupt: the kernel did not finish");
            return true;
        }
        acknowledge(cu);
        return true;
    }

    // The CU's interrupt is high: read CTRL and acknowledge like XRT does, count the run.
    void acknowledge(ComputeUnit& cu) {
        Model& m = *cu.model;
        cu.busy.reset();
        const uint64_t cycles = m.cycles(cu.cu) - started_at_;
        uint32_t ctrl = 0;
        m.read(cu.cu, kCtrl, &ctrl);
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
