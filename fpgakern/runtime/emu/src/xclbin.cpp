// fpgakern's XRT emulation library: xrt::xclbin, its kernels, compute units, arguments
// and memories, answered from the file's reading (axlf.h).
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "axlf.h"
#include "experimental/xrt_xclbin.h"

using namespace fkemu;

namespace xrt {

class xclbin_impl {
  public:
    explicit xclbin_impl(Axlf axlf) : x(std::move(axlf)) {}
    Axlf x;

    xclbin::mem mem(int index) const {
        xclbin::mem m;
        if (index < 0 || static_cast<size_t>(index) >= x.mems.size()) return m;
        const MemInfo& info = x.mems[static_cast<size_t>(index)];
        m.tag_ = info.tag;
        m.base_ = info.base;
        m.size_kb_ = info.size_kb;
        m.used_ = info.used;
        m.type_ = static_cast<xclbin::mem::memory_type>(info.type);
        m.index_ = index;
        return m;
    }
    xclbin::arg arg(const ArgInfo& a, const CuInfo* cu) const {
        xclbin::arg out;
        out.name_ = a.name;
        out.port_ = a.port;
        out.host_type_ = a.type;
        out.size_ = a.size;
        out.offset_ = a.offset;
        out.index_ = static_cast<size_t>(a.id);
        // A kernel's argument lists the memories of all its CUs (an ip's, its own).
        for (const CuInfo& c : x.cus) {
            if (cu ? &c != cu : c.kernel != kernel_of(a)) continue;
            auto it = c.mems.find(a.id);
            if (it == c.mems.end()) continue;
            for (int m : it->second) {
                bool seen = false;
                for (const auto& have : out.mems_) seen = seen || have.get_index() == m;
                if (!seen) out.mems_.push_back(mem(m));
            }
        }
        return out;
    }
    std::string kernel_of(const ArgInfo& a) const {
        for (const KernelInfo& k : x.kernels) {
            for (const ArgInfo& b : k.args) {
                if (&b == &a) return k.name;
            }
        }
        return "";
    }
    xclbin::ip ip(const CuInfo& cu) const {
        xclbin::ip out;
        out.name_ = cu.kernel + ":" + cu.name;
        out.base_ = cu.base;
        out.control_ = static_cast<xclbin::ip::control_type>(cu.control);
        for (const KernelInfo& k : x.kernels) {
            if (k.name != cu.kernel) continue;
            for (const ArgInfo& a : k.args) out.args_.push_back(arg(a, &cu));
        }
        return out;
    }
    xclbin::kernel kernel(const KernelInfo& k) const {
        xclbin::kernel out;
        out.name_ = k.name;
        for (const ArgInfo& a : k.args) out.args_.push_back(arg(a, nullptr));
        for (const CuInfo& cu : x.cus) {
            if (cu.kernel == k.name) out.cus_.push_back(ip(cu));
        }
        return out;
    }
};

namespace {
std::shared_ptr<xclbin_impl> read_xclbin(const std::string& path) {
    return std::make_shared<xclbin_impl>(read_axlf(read_file(path), path));
}
}  // namespace

xclbin::xclbin(const std::string& filename) : handle_(read_xclbin(filename)) {}
xclbin::xclbin(const std::vector<char>& data)
    : handle_(std::make_shared<xclbin_impl>(
          read_axlf(std::vector<uint8_t>(data.begin(), data.end()), "<xclbin data>"))) {}

std::vector<xclbin::kernel> xclbin::get_kernels() const {
    std::vector<kernel> out;
    for (const KernelInfo& k : handle_->x.kernels) out.push_back(handle_->kernel(k));
    return out;
}
xclbin::kernel xclbin::get_kernel(const std::string& name) const {
    for (const KernelInfo& k : handle_->x.kernels) {
        if (k.name == name) return handle_->kernel(k);
    }
    return {};
}
std::vector<xclbin::ip> xclbin::get_ips() const {
    std::vector<ip> out;
    for (const CuInfo& cu : handle_->x.cus) out.push_back(handle_->ip(cu));
    return out;
}
xclbin::ip xclbin::get_ip(const std::string& name) const {
    for (const CuInfo& cu : handle_->x.cus) {
        if (cu.kernel + ":" + cu.name == name) return handle_->ip(cu);
    }
    return {};
}
std::vector<xclbin::mem> xclbin::get_mems() const {
    std::vector<mem> out;
    for (size_t i = 0; i < handle_->x.mems.size(); ++i) {
        out.push_back(handle_->mem(static_cast<int>(i)));
    }
    return out;
}
std::string xclbin::get_xsa_name() const { return handle_->x.vbnv; }
uuid xclbin::get_uuid() const { return uuid(handle_->x.uuid); }
xclbin::target_type xclbin::get_target_type() const {
    const std::string t = mode_target(handle_->x.mode);
    return t == "sw_emu" ? target_type::sw_emu
                         : t == "hw_emu" ? target_type::hw_emu : target_type::hw;
}

xclbin::arg xclbin::ip::get_arg(int32_t index) const {
    for (const arg& a : args_) {
        if (a.get_index() == static_cast<size_t>(index)) return a;
    }
    return {};
}
xclbin::arg xclbin::kernel::get_arg(int32_t index) const {
    for (const arg& a : args_) {
        if (a.get_index() == static_cast<size_t>(index)) return a;
    }
    return {};
}
std::vector<xclbin::ip> xclbin::kernel::get_cus(const std::string& name) const {
    const std::regex pattern(name);
    std::vector<ip> out;
    for (const ip& cu : cus_) {
        const std::string full = cu.get_name();
        const std::string instance = full.substr(full.find(':') + 1);
        if (std::regex_match(instance, pattern) || std::regex_match(full, pattern)) {
            out.push_back(cu);
        }
    }
    return out;
}
xclbin::ip xclbin::kernel::get_cu(const std::string& name) const {
    for (const ip& cu : cus_) {
        const std::string full = cu.get_name();
        if (full == name || full.substr(full.find(':') + 1) == name) return cu;
    }
    return {};
}

}  // namespace xrt

const Axlf& fkemu::axlf_of(const xrt::xclbin& xclbin) { return xclbin.get_handle()->x; }
