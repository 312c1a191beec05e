// fpgakern's XRT emulation library: the .xclbin as XRT reads it, the parts the emulation
// uses (internal.h lists the library's files).
//
// load_xclbin reads the .xclbin like XRT does: the axlf header (uuid, mode: an xclbin
// built for another target than XCL_EMULATION_MODE is refused), IP_LAYOUT (compute units
// "kernel:instance"), GROUP_TOPOLOGY and GROUP_CONNECTIVITY when present, else
// MEM_TOPOLOGY and CONNECTIVITY (XRT's xclbin_parser falls back the same way): the
// memories each CU argument connects to, several for a bank range (xrt::kernel::group_id
// answers the highest memory index, as XRT's does), EMBEDDED_METADATA (each kernel's
// arguments: id, register offset, size, address qualifier; the <kernel> element's
// mailbox and countedAutoRestart, which XRT's get_kernel_properties reads to allow
// xrt::mailbox and a counted xrt::autostart; and the kernel-to-kernel streams of its
// <connection srcType="kernel"> entries).
#ifndef FPGAKERN_EMU_SRC_AXLF_H_
#define FPGAKERN_EMU_SRC_AXLF_H_

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experimental/xrt_xclbin.h"

namespace fkemu {

struct ArgInfo {
    std::string name;
    std::string port;    // as EMBEDDED_METADATA names it ("M_AXI_GMEM0", "S_AXI_CONTROL")
    std::string bundle;  // m_axi bundle of a buffer ("gmem0", from port="M_AXI_GMEM0")
    std::string type;    // the host type ("int*", "unsigned int")
    int id = 0;
    int qualifier = 0;  // 0 scalar, 1 global memory, 4 stream
    uint32_t offset = 0;
    uint32_t size = 0;

    // A register kernel's result ("int&"): a scalar the kernel writes, never the host.
    bool result() const { return qualifier == 0 && !type.empty() && type.back() == '&'; }
};

constexpr int kStreamArg = 4;  // addressQualifier of an AXI4-Stream argument

struct KernelInfo {
    std::string name;
    std::vector<ArgInfo> args;  // by id
    std::string mailbox = "none";       // <kernel mailbox=>: none, in, out or both
    bool counted_auto_restart = false;  // <kernel countedAutoRestart="1">

    bool has_mailbox() const { return mailbox != "none"; }

    // The argument carried by AXI4-Stream port `port` (EMBEDDED_METADATA upper-cases port
    // names; a stream argument is named as its port), or null.
    const ArgInfo* stream_arg(const std::string& port) const {
        for (const ArgInfo& a : args) {
            if (a.qualifier == kStreamArg && a.port.size() == port.size() &&
                std::equal(a.port.begin(), a.port.end(), port.begin(), [](char x, char y) {
                    return std::tolower(static_cast<unsigned char>(x)) ==
                           std::tolower(static_cast<unsigned char>(y));
                })) {
                return &a;
            }
        }
        return nullptr;
    }
};

// One kernel-to-kernel stream: <connection srcType="kernel" srcInst srcPort dstInst dstPort>.
struct StreamInfo {
    std::string src_cu, src_port, dst_cu, dst_port;
};

// One MEM_TOPOLOGY (or GROUP_TOPOLOGY) entry.
struct MemInfo {
    std::string tag;
    uint8_t type = 0;
    bool used = false;
    uint64_t size_kb = 0;
    uint64_t base = 0;
};

// One compute unit of IP_LAYOUT.
struct CuInfo {
    std::string kernel;
    std::string name;  // instance, e.g. add_f32_1
    uint64_t base = 0;
    uint8_t control = 0;  // IP_LAYOUT's IP_CONTROL: 0 AP_CTRL_HS, 1 CHAIN, 2 NONE
    bool free_running() const { return control == 2; }  // AP_CTRL_NONE: no control port
    // arg id -> the memory indices it connects to, ascending (GROUP_CONNECTIVITY when the
    // xclbin has it, else CONNECTIVITY, as XRT reads them; streams left out).
    std::map<int, std::vector<int>> mems;
};

// An .xclbin as XRT reads it (the parts the emulation uses).
struct Axlf {
    std::string path;
    uint16_t mode = 0;
    unsigned char uuid[16] = {};
    std::string vbnv;
    std::vector<KernelInfo> kernels;
    std::vector<CuInfo> cus;
    std::vector<StreamInfo> streams;  // kernel-to-kernel connections
    std::vector<MemInfo> mems;       // GROUP_TOPOLOGY, else MEM_TOPOLOGY
    std::vector<std::string> banks;  // MEM_TOPOLOGY's tags (bank lines of the config)
    unsigned long max_mhz = 0;       // the fastest clock of CLOCK_FREQ_TOPOLOGY
    bool groups = false;             // the file has GROUP_TOPOLOGY / GROUP_CONNECTIVITY
};

// XCLBIN_MODE's target: "hw_emu", "sw_emu" or "hw".
std::string mode_target(uint16_t mode);

// The .xclbin `data`, read from `path` (named in errors).
Axlf read_axlf(const std::vector<uint8_t>& data, const std::string& path);

// A file's bytes (an .xclbin's).
std::vector<uint8_t> read_file(const std::string& path);

// What an xrt::xclbin holds (xclbin.cpp).
const Axlf& axlf_of(const xrt::xclbin& xclbin);

}  // namespace fkemu

#endif  // FPGAKERN_EMU_SRC_AXLF_H_
