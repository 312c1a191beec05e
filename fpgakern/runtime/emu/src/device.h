// fpgakern's XRT emulation library: the emulated device and what a loaded xclbin makes
// of it (internal.h lists the library's files).
//
// The emulation config (fpgakern_emu.cfg, written by 'python -m fpgakern.runtime.emu
// prepare') names, per kernel, the model library for the XCL_EMULATION_MODE in force;
// each CU of the xclbin becomes one model instance. On hw_emu the cycles of every run
// are counted and summarized on stderr when the device closes. emconfig.json (Vitis'
// emconfigutil) gives the number of devices and their platform name.
//
// hw_emu's memory, as the Python runtime's (fpgakern/runtime/memory.py): each bank of
// MEM_TOPOLOGY that has a bandwidth figure moves at most that many bytes per kernel cycle
// over all the CU ports placed on it. The figures are not in the xclbin (XRT's format has
// no field for them): 'python -m fpgakern.runtime.emu prepare' computes them from the
// platform file the header's VBNV names and the kernel clock of CLOCK_FREQ_TOPOLOGY, and
// writes them into the emulation config as 'bank INDEX TAG BYTES_PER_CYCLE' lines; banks
// without a line (and memory groups) have no limit. Each port (an argument's m_axi
// bundle, from EMBEDDED_METADATA's port) is placed with the model's fkemu_cu_place on its
// argument's default memory at load, and on the bank of the buffer a run gives it. A bank
// object belongs to one model library, so the CUs of one kernel share a bank's credit;
// kernels of different libraries on one bank each see the whole figure.
//
// Kernel-to-kernel streams (a link's stream_connect, EMBEDDED_METADATA's <connection
// srcType="kernel">) join CUs into chains: every CU connected to another, transitively.
// A free-running CU (IP_LAYOUT's AP_CTRL_NONE) belongs to a chain and has no control
// port. Each connection holds at most one beat popped from its producer that its
// consumer's FIFO has not taken yet. How runs step the CUs: kernel.cpp.
#ifndef FPGAKERN_EMU_SRC_DEVICE_H_
#define FPGAKERN_EMU_SRC_DEVICE_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "axlf.h"
#include "emconfig.h"
#include "model.h"
#include "xrt/xrt_kernel.h"
#include "xrt/xrt_uuid.h"

namespace fkemu {

constexpr uint64_t kDeviceBase = 1ULL << 36;  // buffers live above 4 GiB

// A bank of MEM_TOPOLOGY with a bandwidth, made in one model library.
struct BankObject {
    std::shared_ptr<Model> model;
    int index = 0;
    double bytes_per_cycle = 0;
    fkemu_bank* bank = nullptr;
};

struct ComputeUnit {
    std::string kernel;
    std::string name;  // instance, e.g. add_f32_1
    bool free_running = false;
    int chain = -1;  // the stream chain it belongs to (index into device_impl's chains), or -1
    std::map<int, std::vector<int>> mems;  // arg id -> memory indices (ascending)
    std::map<std::string, int> placed;     // m_axi bundle -> bank it is placed on (hw_emu)
    std::shared_ptr<Model> model;
    fkemu_cu* cu = nullptr;
    std::shared_ptr<xrt::run_impl> busy;  // the run in flight, if any
    uint64_t runs = 0;
    uint64_t cycles = 0;  // summed over runs (hw_emu)

    // XRT's default connection of an argument: the highest memory index it connects to
    // (with GROUP_TOPOLOGY, the group of a bank range). -1: no memory connection.
    int default_mem(int arg) const {
        auto it = mems.find(arg);
        return it == mems.end() || it->second.empty() ? -1 : it->second.back();
    }
    bool connects(int arg, int memidx) const {
        auto it = mems.find(arg);
        if (it == mems.end()) return true;  // no CONNECTIVITY entry: nothing to check
        return std::find(it->second.begin(), it->second.end(), memidx) != it->second.end();
    }
};

// A stream_connect of the loaded xclbin as the runtime drives it: beats popped from the
// producer's output FIFO and pushed into the consumer's input FIFO.
struct StreamLink {
    size_t src = 0, dst = 0;         // indices into the device's CUs
    std::string src_port, dst_port;  // the models' stream names ("out", "x")
    std::string label;               // "mm2s_1.out -> square_plus_1.x"
    bool holding = false;            // a beat popped from src that dst has not taken yet
    uint64_t data = 0;
    int last = 0;
    uint64_t beats = 0;  // delivered to dst
};

// CUs joined by streams, transitively, and the streams that join them.
struct Chain {
    std::vector<size_t> cus;
    std::vector<size_t> links;  // indices into the device's links
};

}  // namespace fkemu

namespace xrt {

class device_impl : public std::enable_shared_from_this<device_impl> {
  public:
    explicit device_impl(unsigned int index);
    ~device_impl() { close(); }

    // Free the CUs and banks of the loaded xclbin (on hw_emu, after reporting their runs,
    // cycles and bytes on stderr).
    void close();
    // Load `x` (built for this XCL_EMULATION_MODE): its CUs, their models and streams.
    uuid load(const fkemu::Axlf& x);

    const std::string& target() const { return target_; }
    const uuid& loaded() const { return uuid_; }
    const fkemu::Axlf& xclbin() const { return xclbin_; }
    std::string name() const { return name_.empty() ? xclbin_.vbnv : name_; }
    unsigned index() const { return index_; }
    const fkemu::KernelInfo* kernel(const std::string& name) const;
    std::vector<fkemu::ComputeUnit>& cus() { return cus_; }
    std::vector<fkemu::StreamLink>& links() { return links_; }
    const fkemu::Chain& chain(int index) const { return chains_.at(static_cast<size_t>(index)); }

    // Move beats across `link`, at most `max`: deliver the beat it holds, then pop and
    // deliver more while the producer has some and the consumer takes them. Returns the
    // number delivered.
    uint64_t move(fkemu::StreamLink& link, uint64_t max);

    // A device address for a buffer of `bytes`, whole pages and a guard page after.
    uint64_t allocate(uint64_t bytes);

    // Place m_axi `bundle` of `cu` on bank `memidx` when it has a bandwidth (else no
    // limit); one bank object per (model library, bank). hw_emu only.
    void place(fkemu::ComputeUnit& cu, const std::string& bundle, int memidx);

  private:
    // The emulation config of `xclbin`: $FPGAKERN_EMU_CONFIG, beside it, or here.
    std::string config_path(const std::string& xclbin) const;
    // The models of the config for this target, one instance per CU, set up as XRT does.
    void load_models(const std::string& xclbin);
    // The xclbin's kernel-to-kernel streams as links between loaded CUs, and the chains
    // they make (every CU connected to another, transitively).
    void connect_streams();


    unsigned index_;
    std::string target_;
    std::string name_;
    fkemu::EmConfig emconfig_;
    unsigned read_latency_ = 64;
    uuid uuid_;
    fkemu::Axlf xclbin_;
    std::vector<fkemu::ComputeUnit> cus_;
    std::vector<fkemu::StreamLink> links_;
    std::vector<fkemu::Chain> chains_;
    std::map<int, double> rates_;
    std::vector<fkemu::BankObject> banks_;
    std::mutex mutex_;
    uint64_t next_address_ = fkemu::kDeviceBase;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_SRC_DEVICE_H_
