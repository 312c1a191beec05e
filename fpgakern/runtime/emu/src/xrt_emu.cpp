// fpgakern's XRT emulation library: the subset of XRT's native C++ API declared in
// ../include/xrt/, implemented over fpgakern's emulation models.
//
// load_xclbin reads the .xclbin like XRT does: the axlf header (uuid, mode), IP_LAYOUT
// (compute units "kernel:instance"), CONNECTIVITY and MEM_TOPOLOGY (the bank of each CU
// argument: xrt::kernel::group_id), EMBEDDED_METADATA (each kernel's arguments: id,
// register offset, size, address qualifier). The emulation config then names, per
// kernel, the model library for the XCL_EMULATION_MODE in force; each CU of the xclbin
// becomes one model instance. Runs are driven over the CU's control registers like XRT's
// driver does; on hw_emu the cycles of every run are counted and summarized on stderr
// when the device closes.
//
// hw_emu's memory, as the Python runtime's (fpgakern/runtime/memory.py): each bank of
// MEM_TOPOLOGY that has a bandwidth figure moves at most that many bytes per kernel cycle
// over all the CU ports CONNECTIVITY places on it. The figures are not in the xclbin (XRT's
// format has no field for them): 'python -m fpgakern.runtime.emu prepare' computes them
// from the platform file the header's VBNV names and the kernel clock of
// CLOCK_FREQ_TOPOLOGY, and writes them into the emulation config as
// 'bank INDEX TAG BYTES_PER_CYCLE' lines; banks without a line have no limit. Each port
// (an argument's m_axi bundle, from EMBEDDED_METADATA's port) is placed on its bank with
// the model's fkemu_cu_place. A bank object belongs to one model library, so the CUs of
// one kernel share a bank's credit; kernels of different libraries on one bank each see
// the whole figure. Lockstep: run::wait steps every CU of the same kernel whose run has
// started and not yet been waited for, one cycle each per emulated cycle
// (fkemu_cus_wait_interrupt), until the waited run's CU is done; CUs of other kernels
// advance when their own runs are waited for.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fkemu_model.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace {

// Control register map (fpgakern/interface.py, the Vitis HLS map).
constexpr uint32_t kCtrl = 0x00, kGie = 0x04, kIer = 0x08, kIsr = 0x0C;
constexpr uint32_t kApStart = 0x01, kApDone = 0x02, kApContinue = 0x10;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kDeviceBase = 1ULL << 36;  // buffers live above 4 GiB

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("fpgakern emulation: " + what);
}

template <typename T>
T load(const std::vector<uint8_t>& data, uint64_t offset) {
    if (offset + sizeof(T) > data.size()) fail("truncated xclbin");
    T value;
    std::memcpy(&value, data.data() + offset, sizeof value);
    return value;
}

std::string cstr(const std::vector<uint8_t>& data, uint64_t offset, size_t max) {
    std::string out;
    for (size_t i = 0; i < max && offset + i < data.size() && data[offset + i]; ++i) {
        out.push_back(static_cast<char>(data[offset + i]));
    }
    return out;
}

// The attributes of one XML start tag, e.g. <arg name="a" id="0" .../>.
std::map<std::string, std::string> attributes(const std::string& tag) {
    static const std::regex attr(R"(([A-Za-z_:][-\w:.]*)\s*=\s*"([^"]*)\")");
    std::map<std::string, std::string> out;
    for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attr);
         it != std::sregex_iterator(); ++it) {
        out[(*it)[1]] = (*it)[2];
    }
    return out;
}

// Every start tag <name ...> in [begin, end) of text.
std::vector<std::string> tags(const std::string& text, const std::string& name, size_t begin,
                              size_t end) {
    std::vector<std::string> out;
    const std::string open = "<" + name;
    for (size_t at = text.find(open, begin); at != std::string::npos && at < end;
         at = text.find(open, at + 1)) {
        const char next = text[at + open.size()];
        if (next != ' ' && next != '>' && next != '/' && next != '\n' && next != '\t') continue;
        const size_t close = text.find('>', at);
        if (close == std::string::npos) break;
        out.push_back(text.substr(at, close - at + 1));
    }
    return out;
}

uint64_t number(const std::map<std::string, std::string>& attrs, const std::string& key) {
    auto it = attrs.find(key);
    if (it == attrs.end()) return 0;
    return std::strtoull(it->second.c_str(), nullptr, 0);
}

struct ArgInfo {
    std::string name;
    std::string bundle;  // m_axi bundle of a buffer ("gmem0", from port="M_AXI_GMEM0")
    int id = 0;
    int qualifier = 0;  // 0 scalar, 1 global memory
    uint32_t offset = 0;
    uint32_t size = 0;
};

struct KernelInfo {
    std::string name;
    std::vector<ArgInfo> args;  // by id
};

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

    template <typename F>
    void bind(F& fn, const char* symbol) {
        void* found = dlsym(handle, symbol);
        if (!found) fail(path + ": missing symbol " + symbol + " (not an fpgakern model?)");
        fn = reinterpret_cast<F>(found);
    }

    explicit Model(const std::string& library) : path(library) {
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
        bind(cycles, "fkemu_cu_cycles");
        bind(error, "fkemu_cu_error");
        bind(clear_error, "fkemu_cu_clear_error");
        const char* (*target)() = nullptr;
        bind(target, "fkemu_model_target");
        hw = std::strcmp(target(), "hw_emu") == 0;
        if (hw) {
            bind(bank_new, "fkemu_bank_new");
            bind(bank_free, "fkemu_bank_free");
            bind(bank_bytes, "fkemu_bank_bytes");
            bind(place, "fkemu_cu_place");
            bind(cus_wait_interrupt, "fkemu_cus_wait_interrupt");
        }
    }
    // Libraries stay loaded for the process: unloading one with Verilator's runtime
    // inside races its static destructors at exit.
};

// A bank of MEM_TOPOLOGY with a bandwidth, made in one model library.
struct BankObject {
    std::shared_ptr<Model> model;
    int index = 0;
    double bytes_per_cycle = 0;
    fkemu_bank* bank = nullptr;
};

struct ComputeUnit {
    std::string kernel;
    std::string name;       // instance, e.g. add_f32_1
    std::map<int, int> banks;  // arg id -> memory bank (CONNECTIVITY)
    std::shared_ptr<Model> model;
    fkemu_cu* cu = nullptr;
    std::shared_ptr<xrt::run_impl> busy;  // the run in flight, if any
    uint64_t runs = 0;
    uint64_t cycles = 0;  // summed over runs (hw_emu)
};

uint32_t scalar_bits(const std::vector<uint8_t>& value) {
    uint32_t bits = 0;
    std::memcpy(&bits, value.data(), std::min<size_t>(value.size(), sizeof bits));
    return bits;
}

}  // namespace

namespace xrt {

class device_impl {
  public:
    explicit device_impl(unsigned int index) : index_(index) {
        const char* mode = std::getenv("XCL_EMULATION_MODE");
        target_ = mode ? mode : "";
        if (target_ != "sw_emu" && target_ != "hw_emu") {
            fail("set XCL_EMULATION_MODE to sw_emu or hw_emu (this is fpgakern's emulation "
                 "of XRT; for a card, build the host against XRT itself)");
        }
        if (index != 0) fail("emulation has one device, index 0");
        if (const char* latency = std::getenv("FPGAKERN_EMU_READ_LATENCY")) {
            read_latency_ = static_cast<unsigned>(std::strtoul(latency, nullptr, 0));
        }
    }

    ~device_impl() {
        if (target_ == "hw_emu") {
            for (const ComputeUnit& cu : cus_) {
                if (!cu.runs) continue;
                std::fprintf(stderr,
                             "fpgakern hw_emu: %s:%s ran %" PRIu64 " time(s), %" PRIu64
                             " cycles\n", cu.kernel.c_str(), cu.name.c_str(), cu.runs,
                             cu.cycles);
            }
        }
        if (target_ == "hw_emu") {
            for (const BankObject& b : banks_) {
                const size_t i = static_cast<size_t>(b.index);
                std::fprintf(stderr,
                             "fpgakern hw_emu: bank %s (%.4g bytes/cycle) of %s moved %" PRIu64
                             " bytes\n", i < mem_tags_.size() ? mem_tags_[i].c_str() : "?",
                             b.bytes_per_cycle, b.model->path.c_str(),
                             b.model->bank_bytes(b.bank));
            }
        }
        for (ComputeUnit& cu : cus_) {
            if (cu.cu) cu.model->cu_free(cu.cu);
        }
        for (BankObject& b : banks_) b.model->bank_free(b.bank);  // after their CUs
    }

    uuid load_xclbin(const std::string& path) {
        std::ifstream file(path, std::ios::binary);
        if (!file) fail("cannot open xclbin " + path);
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
        if (data.size() < 496 || std::memcmp(data.data(), "xclbin2", 7) != 0) {
            fail(path + " is not an xclbin (axlf) file");
        }
        unsigned char id[16];
        std::memcpy(id, data.data() + 0x1A0, 16);
        const uint16_t mode = load<uint16_t>(data, 0x14C);
        const uint32_t sections = load<uint32_t>(data, 0x1C0);
        std::map<uint32_t, std::pair<uint64_t, uint64_t>> where;  // kind -> (offset, size)
        for (uint32_t i = 0; i < sections; ++i) {
            const uint64_t header = 0x1C8 + 40ULL * i;
            const uint32_t kind = load<uint32_t>(data, header);
            where[kind] = {load<uint64_t>(data, header + 24), load<uint64_t>(data, header + 32)};
        }
        const bool emu_mode = mode == 4 || mode == 5 || mode == 6;
        if (!emu_mode) {
            std::fprintf(stderr, "fpgakern emulation: note: %s was linked for hardware; "
                         "running it on %s\n", path.c_str(), target_.c_str());
        }
        parse_metadata(data, where, path);
        parse_layout(data, where, path);
        parse_memories(data, where);
        load_models(path);
        uuid_ = uuid(id);
        return uuid_;
    }

    const std::string& target() const { return target_; }
    const uuid& loaded() const { return uuid_; }
    const KernelInfo* kernel(const std::string& name) const {
        for (const KernelInfo& k : kernels_) {
            if (k.name == name) return &k;
        }
        return nullptr;
    }
    std::vector<ComputeUnit>& cus() { return cus_; }

    uint64_t allocate(uint64_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        const uint64_t address = next_address_;
        next_address_ += (bytes + kPage - 1) / kPage * kPage + kPage;  // a guard page
        return address;
    }

  private:
    void parse_metadata(const std::vector<uint8_t>& data,
                        const std::map<uint32_t, std::pair<uint64_t, uint64_t>>& where,
                        const std::string& path) {
        auto found = where.find(2);  // EMBEDDED_METADATA
        if (found == where.end()) fail(path + ": no EMBEDDED_METADATA, no kernel can be opened");
        const std::string xml(reinterpret_cast<const char*>(data.data()) + found->second.first,
                              found->second.second);
        kernels_.clear();
        for (size_t at = xml.find("<kernel "); at != std::string::npos;
             at = xml.find("<kernel ", at + 1)) {
            const size_t end = xml.find("</kernel>", at);
            const auto head = attributes(xml.substr(at, xml.find('>', at) - at));
            KernelInfo k;
            k.name = head.count("name") ? head.at("name") : "";
            for (const std::string& tag : tags(xml, "arg", at, end)) {
                const auto a = attributes(tag);
                ArgInfo arg;
                arg.name = a.count("name") ? a.at("name") : "";
                arg.id = static_cast<int>(number(a, "id"));
                arg.qualifier = static_cast<int>(number(a, "addressQualifier"));
                arg.offset = static_cast<uint32_t>(number(a, "offset"));
                arg.size = static_cast<uint32_t>(number(a, "size"));
                if (a.count("port")) {
                    std::string port = a.at("port");
                    std::transform(port.begin(), port.end(), port.begin(), [](unsigned char c) {
                        return static_cast<char>(std::tolower(c));
                    });
                    arg.bundle = port.rfind("m_axi_", 0) == 0 ? port.substr(6) : port;
                }
                k.args.push_back(arg);
            }
            std::sort(k.args.begin(), k.args.end(),
                      [](const ArgInfo& x, const ArgInfo& y) { return x.id < y.id; });
            kernels_.push_back(k);
        }
    }

    void parse_layout(const std::vector<uint8_t>& data,
                      const std::map<uint32_t, std::pair<uint64_t, uint64_t>>& where,
                      const std::string& path) {
        auto ip = where.find(8);  // IP_LAYOUT
        if (ip == where.end()) fail(path + ": no IP_LAYOUT, so no compute units");
        const uint64_t base = ip->second.first;
        const int32_t count = load<int32_t>(data, base);
        std::vector<int> ip_to_cu(static_cast<size_t>(std::max(count, 0)), -1);
        cus_.clear();
        for (int32_t i = 0; i < count; ++i) {
            const uint64_t entry = base + 8 + 80ULL * static_cast<uint64_t>(i);
            if (load<uint32_t>(data, entry) != 1) continue;  // IP_KERNEL only
            const std::string name = cstr(data, entry + 16, 64);
            const size_t colon = name.find(':');
            if (colon == std::string::npos) continue;
            ComputeUnit cu;
            cu.kernel = name.substr(0, colon);
            cu.name = name.substr(colon + 1);
            ip_to_cu[static_cast<size_t>(i)] = static_cast<int>(cus_.size());
            cus_.push_back(cu);
        }
        auto conn = where.find(7);  // CONNECTIVITY
        if (conn != where.end()) {
            const uint64_t cbase = conn->second.first;
            const int32_t links = load<int32_t>(data, cbase);
            for (int32_t i = 0; i < links; ++i) {
                const uint64_t entry = cbase + 4 + 12ULL * static_cast<uint64_t>(i);
                const int32_t arg = load<int32_t>(data, entry);
                const int32_t ip_index = load<int32_t>(data, entry + 4);
                const int32_t bank = load<int32_t>(data, entry + 8);
                if (ip_index >= 0 && ip_index < count && ip_to_cu[ip_index] >= 0) {
                    cus_[static_cast<size_t>(ip_to_cu[ip_index])].banks[arg] = bank;
                }
            }
        }
    }

    void parse_memories(const std::vector<uint8_t>& data,
                        const std::map<uint32_t, std::pair<uint64_t, uint64_t>>& where) {
        mem_tags_.clear();
        auto mem = where.find(6);  // MEM_TOPOLOGY: int32 count, then 40-byte mem_data
        if (mem == where.end()) return;
        const int32_t count = load<int32_t>(data, mem->second.first);
        for (int32_t i = 0; i < count; ++i) {
            mem_tags_.push_back(cstr(data, mem->second.first + 8 + 40ULL * static_cast<uint64_t>(i)
                                               + 24, 16));
        }
    }

    std::string config_path(const std::string& xclbin) const {
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

    void load_models(const std::string& xclbin) {
        const std::string cfg = config_path(xclbin);
        std::ifstream in(cfg);
        std::map<std::string, std::string> libraries;  // kernel -> library, this target
        std::map<int, double> rates;  // MEM_TOPOLOGY index -> bytes per kernel cycle
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream words(line);
            std::string target, kernel, library;
            if (!(words >> target) || target[0] == '#') continue;
            if (target == "bank") {  // bank INDEX TAG BYTES_PER_CYCLE
                int index = -1;
                std::string tag;
                double rate = 0;
                if (!(words >> index >> tag >> rate) || index < 0) {
                    fail(cfg + ": malformed line '" + line + "'");
                }
                if (static_cast<size_t>(index) >= mem_tags_.size() ||
                    mem_tags_[static_cast<size_t>(index)] != tag) {
                    fail(cfg + ": bank " + std::to_string(index) + " " + tag + " is not in the "
                         "xclbin's MEM_TOPOLOGY (a config for another xclbin? re-run "
                         "'python -m fpgakern.runtime.emu prepare')");
                }
                rates[index] = rate;
                continue;
            }
            if (words >> kernel >> library && target == target_) libraries[kernel] = library;
        }
        std::map<std::string, std::shared_ptr<Model>> models;
        for (ComputeUnit& cu : cus_) {
            auto lib = libraries.find(cu.kernel);
            if (lib == libraries.end()) {
                fail(cfg + " has no " + target_ + " model for kernel " + cu.kernel +
                     " (re-run 'python -m fpgakern.runtime.emu prepare')");
            }
            auto& model = models[cu.kernel];
            if (!model) model = std::make_shared<Model>(lib->second);
            cu.model = model;
            cu.cu = model->cu_new();
            model->configure(cu.cu, read_latency_, 64);
            // Interrupt on ap_done, as XRT's driver sets a CU up.
            model->write(cu.cu, kGie, 1);
            model->write(cu.cu, kIer, 1);
            if (model->hw) place_ports(cu, rates);
        }
    }

    // Put each buffer argument's m_axi port of `cu` on its bank when that bank has a
    // bandwidth figure; one bank object per (model library, bank).
    void place_ports(ComputeUnit& cu, const std::map<int, double>& rates) {
        const KernelInfo* info = kernel(cu.kernel);
        if (!info) return;
        for (const ArgInfo& a : info->args) {
            if (a.qualifier != 1) continue;
            auto bank = cu.banks.find(a.id);
            if (bank == cu.banks.end()) continue;
            auto rate = rates.find(bank->second);
            if (rate == rates.end()) continue;
            BankObject* found = nullptr;
            for (BankObject& b : banks_) {
                if (b.model == cu.model && b.index == bank->second) found = &b;
            }
            if (!found) {
                BankObject b;
                b.model = cu.model;
                b.index = bank->second;
                b.bytes_per_cycle = rate->second;
                b.bank = cu.model->bank_new(rate->second);
                banks_.push_back(b);
                found = &banks_.back();
            }
            if (a.bundle.empty() || cu.model->place(cu.cu, a.bundle.c_str(), found->bank) != 0) {
                fail(cu.kernel + ":" + cu.name + ": argument " + a.name + " has no m_axi port '" +
                     a.bundle + "' in " + cu.model->path + " to place on a bank");
            }
        }
    }

    unsigned index_;
    std::string target_;
    unsigned read_latency_ = 64;
    uuid uuid_;
    std::vector<KernelInfo> kernels_;
    std::vector<ComputeUnit> cus_;
    std::vector<std::string> mem_tags_;  // MEM_TOPOLOGY
    std::vector<BankObject> banks_;
    std::mutex mutex_;
    uint64_t next_address_ = kDeviceBase;
};

class bo_impl {
  public:
    bo_impl(std::shared_ptr<device_impl> device, size_t size, memory_group group)
        : device_(std::move(device)), size_(size), group_(group) {
        // Both sides in whole pages, as XRT allocates them.
        const size_t bytes = std::max<size_t>((size + kPage - 1) / kPage * kPage, kPage);
        host_ = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes));
        device_mem_ = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes));
        if (!host_ || !device_mem_) fail("out of memory for a buffer object");
        std::memset(host_, 0, bytes);
        std::memset(device_mem_, 0, bytes);
        address_ = device_->allocate(bytes);
        bytes_ = bytes;
    }
    ~bo_impl() {
        std::free(host_);
        std::free(device_mem_);
    }

    void sync(xclBOSyncDirection dir, size_t size, size_t offset) {
        check(size, offset, "sync");
        if (dir == XCL_BO_SYNC_BO_TO_DEVICE) {
            std::memcpy(device_mem_ + offset, host_ + offset, size);
        } else if (dir == XCL_BO_SYNC_BO_FROM_DEVICE) {
            std::memcpy(host_ + offset, device_mem_ + offset, size);
        } else {
            fail("only XCL_BO_SYNC_BO_TO_DEVICE and XCL_BO_SYNC_BO_FROM_DEVICE are emulated");
        }
    }
    void check(size_t size, size_t offset, const char* what) const {
        if (offset > size_ || size > size_ - offset) {
            fail(std::string("bo ") + what + " of " + std::to_string(size) + " bytes at " +
                 std::to_string(offset) + " exceeds its " + std::to_string(size_) + " bytes");
        }
    }

    std::shared_ptr<device_impl> device_;
    size_t size_, bytes_ = 0;
    memory_group group_;
    uint8_t* host_ = nullptr;
    uint8_t* device_mem_ = nullptr;  // what the kernel reads and writes
    uint64_t address_ = 0;
};

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
    }

    const ArgInfo& arg(int index) const {
        if (index < 0 || static_cast<size_t>(index) >= info_->args.size()) {
            fail(kernel_name_ + ": no argument " + std::to_string(index));
        }
        return info_->args[static_cast<size_t>(index)];
    }

    int group_id(int argno) const {
        const ArgInfo& a = arg(argno);
        if (a.qualifier != 1) fail(kernel_name_ + ": argument " + a.name + " is not a buffer");
        int group = -1;
        for (size_t i : cus_) {  // the last CU's bank wins when they differ, as in XRT
            auto& banks = device_->cus()[i].banks;
            auto it = banks.find(a.id);
            if (it != banks.end()) group = it->second;
        }
        return group < 0 ? 0 : group;
    }

    std::shared_ptr<device_impl> device_;
    std::string kernel_name_;
    const KernelInfo* info_ = nullptr;
    std::vector<size_t> cus_;  // indices into device_->cus()
};

class run_impl {
  public:
    explicit run_impl(std::shared_ptr<kernel_impl> kernel)
        : kernel_(std::move(kernel)), values_(kernel_->info_->args.size()),
          buffers_(kernel_->info_->args.size()) {}

    void set(int index, const void* value, size_t bytes) {
        const ArgInfo& a = kernel_->arg(index);
        if (a.qualifier == 1) fail(kernel_->kernel_name_ + ": argument " + a.name +
                                   " is a buffer; pass an xrt::bo");
        if (bytes > a.size) fail(kernel_->kernel_name_ + ": argument " + a.name + " takes " +
                                 std::to_string(a.size) + " bytes, got " + std::to_string(bytes));
        auto& v = values_[static_cast<size_t>(index)];
        v.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + bytes);
    }
    void set(int index, const bo& buffer) {
        const ArgInfo& a = kernel_->arg(index);
        if (a.qualifier != 1) fail(kernel_->kernel_name_ + ": argument " + a.name +
                                   " is a scalar, got an xrt::bo");
        buffers_[static_cast<size_t>(index)] = buffer.get_handle();
    }

    void start(const std::shared_ptr<run_impl>& self) {
        auto& cus = kernel_->device_->cus();
        // An idle CU of the kernel; when all are busy, finish the oldest run first (XRT
        // would queue the run; the result is the same).
        size_t chosen = kernel_->cus_.front();
        bool idle = false;
        for (size_t i : kernel_->cus_) {
            if (!cus[i].busy) {
                chosen = i;
                idle = true;
                break;
            }
        }
        if (!idle) cus[chosen].busy->finish();
        ComputeUnit& cu = cus[chosen];
        Model& m = *cu.model;
        m.unmap_all(cu.cu);
        const KernelInfo& info = *kernel_->info_;
        for (size_t i = 0; i < info.args.size(); ++i) {
            const ArgInfo& a = info.args[i];
            if (a.qualifier == 1) {
                const auto& b = buffers_[i];
                if (!b) fail(info.name + ": buffer argument " + a.name + " was not set");
                auto bank = cu.banks.find(a.id);
                if (bank != cu.banks.end() && static_cast<int>(b->group_) != bank->second) {
                    fail(info.name + ":" + cu.name + ": argument " + a.name +
                         " is a buffer in memory bank " + std::to_string(b->group_) +
                         ", but the CU is connected to bank " + std::to_string(bank->second) +
                         " (allocate it with kernel.group_id(" + std::to_string(a.id) + "))");
                }
                m.map(cu.cu, b->address_, b->device_mem_, b->bytes_, 1);
                m.write(cu.cu, a.offset, static_cast<uint32_t>(b->address_));
                m.write(cu.cu, a.offset + 4, static_cast<uint32_t>(b->address_ >> 32));
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
    void finish() {
        if (state_ != ERT_CMD_STATE_RUNNING) return;
        auto& cus = kernel_->device_->cus();
        ComputeUnit& cu = cus[cu_];
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
        cu.busy.reset();
        constexpr uint64_t kMaxCycles = 4'000'000'000ULL;
        const int status =
            group.size() > 1
                ? m.cus_wait_interrupt(group.data(), static_cast<unsigned>(group.size()), 0,
                                       kMaxCycles)
                : m.wait_interrupt(cu.cu, kMaxCycles);
        if (status != 0) {
            report(cu, "no interrupt: the kernel did not finish");
            return;
        }
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

    void check(ComputeUnit& cu) {
        const char* error = cu.model->error(cu.cu);
        if (error) {
            report(cu, error);
            cu.model->clear_error(cu.cu);
        }
    }
    void report(ComputeUnit& cu, const std::string& what) {
        std::fprintf(stderr, "fpgakern emulation: %s:%s: %s\n", cu.kernel.c_str(),
                     cu.name.c_str(), what.c_str());
        state_ = ERT_CMD_STATE_ERROR;
    }

    std::shared_ptr<kernel_impl> kernel_;
    std::vector<std::vector<uint8_t>> values_;
    std::vector<std::shared_ptr<bo_impl>> buffers_;
    size_t cu_ = 0;
    uint64_t started_at_ = 0;
    ert_cmd_state state_ = ERT_CMD_STATE_NEW;
};

// ------------------------------------------------------------------ device

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

device::device(unsigned int index) : handle_(open_device(index)) {}

uuid device::load_xclbin(const std::string& xclbin_file) {
    if (!handle_) fail("load_xclbin on an empty xrt::device");
    return handle_->load_xclbin(xclbin_file);
}

uuid device::get_xclbin_uuid() const { return handle_ ? handle_->loaded() : uuid(); }

// ------------------------------------------------------------------ bo

bo::bo(const xrt::device& device, size_t size, bo::flags, memory_group group) {
    if (!device) fail("xrt::bo on an empty xrt::device");
    handle_ = std::make_shared<bo_impl>(device.get_handle(), size, group);
}

size_t bo::size() const { return handle_->size_; }
uint64_t bo::address() const { return handle_->address_; }
memory_group bo::get_memory_group() const { return handle_->group_; }
void bo::sync(xclBOSyncDirection dir, size_t size, size_t offset) {
    handle_->sync(dir, size, offset);
}
void* bo::map() { return handle_->host_; }
void bo::write(const void* src, size_t size, size_t seek) {
    handle_->check(size, seek, "write");
    std::memcpy(handle_->host_ + seek, src, size);
}
void bo::read(void* dst, size_t size, size_t skip) {
    handle_->check(size, skip, "read");
    std::memcpy(dst, handle_->host_ + skip, size);
}

// ------------------------------------------------------------------ kernel and run

kernel::kernel(const xrt::device& device, const xrt::uuid& xclbin_id, const std::string& name,
               cu_access_mode) {
    if (!device) fail("xrt::kernel on an empty xrt::device");
    if (xclbin_id != device.get_handle()->loaded()) {
        fail("xrt::kernel: uuid " + xclbin_id.to_string() + " is not the loaded xclbin");
    }
    handle_ = std::make_shared<kernel_impl>(device.get_handle(), name);
}

int kernel::group_id(int argno) const { return handle_->group_id(argno); }
uint32_t kernel::offset(int argno) const { return handle_->arg(argno).offset; }
std::string kernel::get_name() const { return handle_->kernel_name_; }

run::run(const kernel& krnl) {
    if (!krnl) fail("xrt::run of an empty xrt::kernel");
    handle_ = std::make_shared<run_impl>(krnl.get_handle());
}

void run::start() { handle_->start(handle_); }

ert_cmd_state run::wait(const std::chrono::milliseconds&) const {
    handle_->finish();  // emulation time is not wall time: no timeout applies
    return handle_->state_;
}

ert_cmd_state run::state() const { return handle_->state_; }

void run::set_arg_at_index(int index, const void* value, size_t bytes) {
    handle_->set(index, value, bytes);
}
void run::set_arg_at_index(int index, const xrt::bo& boh) { handle_->set(index, boh); }

}  // namespace xrt
