// fpgakern's XRT emulation library: xrt::device (device.h).
#include "device.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "internal.h"
#include "xrt/xrt_device.h"

using namespace fkemu;

namespace xrt {

device_impl::device_impl(unsigned int index) : index_(index) {
    const char* mode = std::getenv("XCL_EMULATION_MODE");
    target_ = mode ? mode : "";
    if (target_ != "sw_emu" && target_ != "hw_emu") {
        fail("set XCL_EMULATION_MODE to sw_emu or hw_emu (this is fpgakern's emulation "
             "of XRT; for a card, build the host against XRT itself)");
    }
    emconfig_ = read_emconfig();
    const size_t count = emconfig_.found ? emconfig_.devices.size() : 1;
    if (index >= count) {
        fail("no device " + std::to_string(index) + ": " +
             (emconfig_.found ? emconfig_.path + " emulates " + std::to_string(count) +
                                    " device(s)"
                              : std::string("the emulation has one device, index 0 (an "
                                            "emconfig.json gives more)")));
    }
    if (emconfig_.found) name_ = emconfig_.devices[index];
    if (const char* latency = std::getenv("FPGAKERN_EMU_READ_LATENCY")) {
        read_latency_ = static_cast<unsigned>(std::strtoul(latency, nullptr, 0));
    }
}

void device_impl::close() {
    if (target_ == "hw_emu") {
        for (const ComputeUnit& cu : cus_) {
            if (!cu.runs) continue;
            std::fprintf(stderr,
                         "fpgakern hw_emu: %s:%s ran %" PRIu64 " time(s), %" PRIu64
                         " cycles\n", cu.kernel.c_str(), cu.name.c_str(), cu.runs,
                         cu.cycles);
        }
        for (const ComputeUnit& cu : cus_) {
            // A load that failed part-way leaves CUs without a model instance.
            if (!cu.free_running || !cu.cu) continue;
            std::fprintf(stderr, "fpgakern hw_emu: %s:%s free-running, %" PRIu64 " cycles\n",
                         cu.kernel.c_str(), cu.name.c_str(), cu.model->cycles(cu.cu));
        }
        for (const StreamLink& l : links_) {
            std::fprintf(stderr, "fpgakern hw_emu: stream %s moved %" PRIu64 " beats\n",
                         l.label.c_str(), l.beats);
        }
        for (const BankObject& b : banks_) {
            const size_t i = static_cast<size_t>(b.index);
            std::fprintf(stderr,
                         "fpgakern hw_emu: bank %s (%.4g bytes/cycle) of %s moved %" PRIu64
                         " bytes\n", i < xclbin_.banks.size() ? xclbin_.banks[i].c_str() : "?",
                         b.bytes_per_cycle, b.model->path.c_str(),
                         b.model->bank_bytes(b.bank));
        }
    }
    for (ComputeUnit& cu : cus_) {
        if (cu.cu) cu.model->cu_free(cu.cu);
    }
    for (BankObject& b : banks_) b.model->bank_free(b.bank);  // after their CUs
    cus_.clear();
    banks_.clear();
    links_.clear();
    chains_.clear();
}

uuid device_impl::load(const Axlf& x) {
    // An xclbin is built for one target (its header's mode); XRT's emulation loads only
    // the one of XCL_EMULATION_MODE.
    const std::string built_for = mode_target(x.mode);
    if (built_for != target_) {
        fail(x.path + " was built for " + built_for + " (xclbin mode " +
             std::to_string(x.mode) + "), but XCL_EMULATION_MODE is " + target_ +
             ": link it for " + target_ + " (fpgakern link --target " + target_ +
             ", v++ -l -t " + target_ + ")");
    }
    close();
    xclbin_ = x;
    for (const CuInfo& info : x.cus) {
        ComputeUnit cu;
        cu.kernel = info.kernel;
        cu.name = info.name;
        cu.free_running = info.free_running();
        cu.mems = info.mems;
        cus_.push_back(cu);
    }
    try {
        load_models(x.path);
        connect_streams();
    } catch (...) {
        close();  // no half-loaded xclbin stays behind
        xclbin_ = Axlf();
        uuid_ = uuid();
        throw;
    }
    uuid_ = uuid(x.uuid);
    return uuid_;
}

const KernelInfo* device_impl::kernel(const std::string& name) const {
    for (const KernelInfo& k : xclbin_.kernels) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

uint64_t device_impl::move(StreamLink& link, uint64_t max) {
    ComputeUnit& src = cus_[link.src];
    ComputeUnit& dst = cus_[link.dst];
    uint64_t moved = 0;
    while (moved < max) {
        if (!link.holding) {
            const int got = src.model->stream_pop(src.cu, link.src_port.c_str(), &link.data,
                                                  &link.last);
            if (got < 0) fail(link.label + ": " + src.model->path +
                              " has no output stream '" + link.src_port + "'");
            if (got != 0) break;  // the producer's FIFO is empty
            link.holding = true;
        }
        const int put = dst.model->stream_push(dst.cu, link.dst_port.c_str(), link.data,
                                               link.last);
        if (put < 0) fail(link.label + ": " + dst.model->path +
                          " has no input stream '" + link.dst_port + "'");
        if (put != 0) break;  // the consumer's FIFO is full: keep the beat
        link.holding = false;
        ++link.beats;
        ++moved;
    }
    return moved;
}

uint64_t device_impl::allocate(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t address = next_address_;
    next_address_ += (bytes + kPage - 1) / kPage * kPage + kPage;  // a guard page
    return address;
}

void device_impl::place(ComputeUnit& cu, const std::string& bundle, int memidx) {
    if (!cu.model->hw || bundle.empty()) return;
    auto placed = cu.placed.find(bundle);
    if (placed != cu.placed.end() && placed->second == memidx) return;
    fkemu_bank* bank = nullptr;
    auto rate = rates_.find(memidx);
    if (rate != rates_.end()) {
        BankObject* found = nullptr;
        for (BankObject& b : banks_) {
            if (b.model == cu.model && b.index == memidx) found = &b;
        }
        if (!found) {
            BankObject b;
            b.model = cu.model;
            b.index = memidx;
            b.bytes_per_cycle = rate->second;
            b.bank = cu.model->bank_new(rate->second);
            banks_.push_back(b);
            found = &banks_.back();
        }
        bank = found->bank;
    }
    if (cu.model->place(cu.cu, bundle.c_str(), bank) != 0) {
        fail(cu.kernel + ":" + cu.name + ": no m_axi port '" + bundle + "' in " +
             cu.model->path + " to place on a bank");
    }
    cu.placed[bundle] = memidx;
}

std::string device_impl::config_path(const std::string& xclbin) const {
    if (const char* env = std::getenv("FPGAKERN_EMU_CONFIG")) return env;
    const size_t slash = xclbin.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : xclbin.substr(0, slash);
    for (const std::string& candidate : {folder + "/fpgakern_emu.cfg",
                                         std::string("fpgakern_emu.cfg")}) {
        if (std::ifstream(candidate)) return candidate;
    }
    fail("no emulation config for " + xclbin + ": run 'python -m fpgakern.runtime.emu "
         "prepare " + xclbin + "' (it writes fpgakern_emu.cfg beside the xclbin), or "
         "set FPGAKERN_EMU_CONFIG");
}

void device_impl::load_models(const std::string& xclbin) {
    const std::string cfg = config_path(xclbin);
    std::ifstream in(cfg);
    std::map<std::string, std::string> libraries;  // kernel -> library, this target
    rates_.clear();  // MEM_TOPOLOGY index -> bytes per kernel cycle
    const std::string loaded = uuid(xclbin_.uuid).to_string();
    const std::string prepare = "re-run 'python -m fpgakern.runtime.emu prepare " + xclbin +
                                "' (fpgakern link --target " + target_ + " does it)";
    std::string written_for;  // the UUID of the link the config was prepared for
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string target, kernel, library;
        if (!(words >> target) || target[0] == '#') continue;
        if (target == "xclbin") {  // xclbin UUID
            if (!(words >> written_for)) fail(cfg + ": malformed line '" + line + "'");
            if (written_for != loaded) {
                fail(cfg + " was prepared for another link (xclbin UUID " + written_for +
                     "), not for " + xclbin + " (UUID " + loaded + "): " + prepare);
            }
            continue;
        }
        if (target == "bank") {  // bank INDEX TAG BYTES_PER_CYCLE
            int index = -1;
            std::string tag;
            double rate = 0;
            if (!(words >> index >> tag >> rate) || index < 0) {
                fail(cfg + ": malformed line '" + line + "'");
            }
            if (static_cast<size_t>(index) >= xclbin_.banks.size() ||
                xclbin_.banks[static_cast<size_t>(index)] != tag) {
                fail(cfg + ": bank " + std::to_string(index) + " " + tag + " is not in the "
                     "xclbin's MEM_TOPOLOGY (a config for another xclbin? re-run "
                     "'python -m fpgakern.runtime.emu prepare')");
            }
            rates_[index] = rate;
            continue;
        }
        if (words >> kernel >> library && target == target_) libraries[kernel] = library;
    }
    if (written_for.empty()) {
        fail(cfg + " names no xclbin UUID (an older fpgakern's config): " + prepare);
    }
    std::map<std::string, std::shared_ptr<Model>> models;
    for (ComputeUnit& cu : cus_) {
        auto lib = libraries.find(cu.kernel);
        if (lib == libraries.end()) {
            fail(cfg + " has no " + target_ + " model for kernel " + cu.kernel + ": " +
                 prepare);
        }
        auto& model = models[cu.kernel];
        if (!model) model = std::make_shared<Model>(lib->second);
        cu.model = model;
        cu.cu = model->cu_new();
        model->configure(cu.cu, read_latency_, 64);
        if (model->free_running != cu.free_running) {
            fail(cu.kernel + ":" + cu.name + ": the xclbin says " +
                 (cu.free_running ? "AP_CTRL_NONE" : "it has a control port") + ", but " +
                 model->path + (model->free_running ? " is" : " is not") +
                 " a free-running model (re-run 'python -m fpgakern.runtime.emu prepare')");
        }
        if (cu.free_running) continue;  // no control registers, no interrupt
        // Interrupt on ap_done, as XRT's driver sets a CU up.
        model->write(cu.cu, kGie, 1);
        model->write(cu.cu, kIer, 1);
        // Each buffer port on its argument's default memory (a run moves it to the bank
        // of the buffer it is given).
        const KernelInfo* info = kernel(cu.kernel);
        if (!info || !model->hw) continue;
        for (const ArgInfo& a : info->args) {
            if (a.qualifier == 1 && cu.default_mem(a.id) >= 0) {
                place(cu, a.bundle, cu.default_mem(a.id));
            }
        }
    }
}

void device_impl::connect_streams() {
    auto find_cu = [this](const std::string& name) {
        for (size_t i = 0; i < cus_.size(); ++i) {
            if (cus_[i].name == name) return i;
        }
        fail(xclbin_.path + ": a stream connection names no CU '" + name + "'");
    };
    auto port_arg = [this](const ComputeUnit& cu, const std::string& port) {
        const KernelInfo* info = kernel(cu.kernel);
        const ArgInfo* arg = info ? info->stream_arg(port) : nullptr;
        if (!arg) fail(xclbin_.path + ": " + cu.kernel + " has no AXI4-Stream argument on "
                       "port '" + port + "'");
        return arg->name;
    };
    std::vector<size_t> root(cus_.size());
    for (size_t i = 0; i < root.size(); ++i) root[i] = i;
    std::function<size_t(size_t)> find = [&](size_t i) {
        return root[i] == i ? i : root[i] = find(root[i]);
    };
    for (const StreamInfo& s : xclbin_.streams) {
        StreamLink link;
        link.src = find_cu(s.src_cu);
        link.dst = find_cu(s.dst_cu);
        link.src_port = port_arg(cus_[link.src], s.src_port);
        link.dst_port = port_arg(cus_[link.dst], s.dst_port);
        link.label = s.src_cu + "." + link.src_port + " -> " + s.dst_cu + "." + link.dst_port;
        root[find(link.src)] = find(link.dst);
        links_.push_back(link);
    }
    std::map<size_t, int> chain_of_root;
    for (size_t l = 0; l < links_.size(); ++l) {
        const size_t r = find(links_[l].src);
        auto it = chain_of_root.find(r);
        if (it == chain_of_root.end()) {
            it = chain_of_root.emplace(r, static_cast<int>(chains_.size())).first;
            chains_.emplace_back();
        }
        chains_[static_cast<size_t>(it->second)].links.push_back(l);
    }
    for (size_t i = 0; i < cus_.size(); ++i) {
        auto it = chain_of_root.find(find(i));
        if (it == chain_of_root.end()) {
            if (cus_[i].free_running) {
                fail(cus_[i].kernel + ":" + cus_[i].name + " is free-running but no stream "
                     "joins it to another CU: it could never run");
            }
            continue;
        }
        cus_[i].chain = it->second;
        chains_[static_cast<size_t>(it->second)].cus.push_back(i);
    }
}

namespace {
std::shared_ptr<device_impl> open_device(unsigned int index) {
    // One device object per index, shared by every xrt::device opened on it.
    static std::mutex mutex;
    static std::map<unsigned int, std::weak_ptr<device_impl>> open;
    std::lock_guard<std::mutex> lock(mutex);
    auto existing = open[index].lock();
    if (existing) return existing;
    auto created = std::make_shared<device_impl>(index);
    open[index] = created;
    return created;
}
}  // namespace

device::device(unsigned int didx) : handle_((ApiLock(api_mutex()), open_device(didx))) {}

device::operator xclDeviceHandle() const { return handle_.get(); }

uuid device::load_xclbin(const std::string& xclbin_fnm) {
    ApiLock lock(api_mutex());
    if (!handle_) fail("load_xclbin on an empty xrt::device");
    return handle_->load(read_axlf(read_file(xclbin_fnm), xclbin_fnm));
}

uuid device::load_xclbin(const xrt::xclbin& xclbin) {
    ApiLock lock(api_mutex());
    if (!handle_) fail("load_xclbin on an empty xrt::device");
    if (!xclbin) fail("load_xclbin of an empty xrt::xclbin");
    return handle_->load(axlf_of(xclbin));
}

uuid device::get_xclbin_uuid() const { return handle_ ? handle_->loaded() : uuid(); }

void device::query(info::device param, std::string* out) const {
    ApiLock lock(api_mutex());
    if (!handle_) fail("get_info on an empty xrt::device");
    switch (param) {
        case info::device::name:
            *out = handle_->name();
            return;
        case info::device::bdf: {
            // A made-up PCIe address per emulated device, in XRT's format.
            char bdf[32];
            std::snprintf(bdf, sizeof bdf, "0000:%02x:00.1", handle_->index());
            *out = bdf;
            return;
        }
        case info::device::platform:
            *out = "{\"platforms\":[{\"static_region\":{\"vbnv\":\"" + handle_->name() +
                   "\"}}]}";
            return;
        case info::device::dynamic_regions:
            *out = "{\"dynamic_regions\":[{\"xclbin_uuid\":\"" +
                   handle_->loaded().to_string() + "\"}]}";
            return;
        default:
            // Sensors, host and AIE reports: nothing to report on an emulated device.
            *out = "{}";
            return;
    }
}
void device::query(info::device param, xrt::uuid* out) const {
    if (param != info::device::interface_uuid) fail("get_info: not a uuid key");
    *out = uuid();  // an emulated shell has no interface uuid
}
void device::query(info::device param, std::uint32_t* out) const {
    if (param != info::device::kdma) fail("get_info: not a uint32 key");
    *out = 0;  // no KDMA engine
}
void device::query(info::device param, unsigned long* out) const {
    if (param != info::device::max_clock_frequency_mhz) fail("get_info: not an integer key");
    // The loaded xclbin's fastest clock; before one is loaded, 300 (XRT emulation's default
    // OCL frequency).
    const unsigned long mhz = handle_ ? handle_->xclbin().max_mhz : 0;
    *out = mhz ? mhz : 300;
}
void device::query(info::device param, bool* out) const {
    if (!handle_) fail("get_info on an empty xrt::device");
    // m2m: bo::copy is emulated (as a memcpy), so report it; nodma false; online.
    *out = param == info::device::m2m;
}

}  // namespace xrt
