// fpgakern's XRT emulation library: the subset of XRT's native C++ API declared in
// ../include/ (xrt/*.h, experimental/xrt_xclbin.h), implemented over fpgakern's
// emulation models.
//
// load_xclbin reads the .xclbin like XRT does: the axlf header (uuid, mode: an xclbin
// built for another target than XCL_EMULATION_MODE is refused), IP_LAYOUT (compute units
// "kernel:instance"), GROUP_TOPOLOGY and GROUP_CONNECTIVITY when present, else
// MEM_TOPOLOGY and CONNECTIVITY (XRT's xclbin_parser falls back the same way): the
// memories each CU argument connects to, several for a bank range (xrt::kernel::group_id
// answers the highest memory index, as XRT's does), EMBEDDED_METADATA (each kernel's
// arguments: id, register offset, size, address qualifier). The emulation config then
// names, per kernel, the model library for the XCL_EMULATION_MODE in force; each CU of
// the xclbin becomes one model instance. A run keeps the CUs whose connections fit the
// buffers it is given (XRT's CU selection). Runs are driven over the CU's control
// registers like XRT's driver does; on hw_emu the cycles of every run are counted and
// summarized on stderr when the device closes. emconfig.json (Vitis' emconfigutil) gives
// the number of devices and their platform name.
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
// kernels of different libraries on one bank each see the whole figure. Lockstep:
// run::wait steps every CU of the same kernel whose run has started and not yet been
// waited for, one cycle each per emulated cycle (fkemu_cus_wait_interrupt), until the
// waited run's CU is done; CUs of other kernels advance when their own runs are waited for.
//
// Kernel-to-kernel streams (a link's stream_connect, EMBEDDED_METADATA's <connection
// srcType="kernel">) join CUs into chains: every CU connected to another, transitively.
// A free-running CU (IP_LAYOUT's AP_CTRL_NONE) belongs to a chain and has no control
// port; xrt::kernel refuses it as XRT does ("AP_CTRL_NONE is only supported by XRT native
// API xrt::ip"): the host starts the kernels around it. Waiting for a run whose CU is in
// a chain steps the whole chain: hw_emu, one cycle at a time, every CU of the chain one
// cycle (fkemu_cu_tick; one whose interrupt is high is not advanced), then at most one
// beat across each connection (the AXI4-Stream rate), until the waited CU's interrupt;
// sw_emu, rounds of every CU ticked and every beat moved, until the interrupt or a round
// in which nothing moves ("stream chain stalled"). Each connection holds at most one beat
// popped from its producer that its consumer's FIFO has not taken yet. Stream arguments
// take no register: set_arg on one is ignored (XRT copies its 0 bytes), an xrt::bo for
// one and group_id of one are refused (XRT has no memory for them).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
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
#include <thread>
#include <utility>
#include <vector>

#include "fkemu_model.h"
#include "experimental/xrt_queue.h"
#include "experimental/xrt_xclbin.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace {

// Control register map (fpgakern/interface.py, the Vitis HLS map).
constexpr uint32_t kCtrl = 0x00, kGie = 0x04, kIer = 0x08, kIsr = 0x0C;
constexpr uint32_t kApStart = 0x01, kApDone = 0x02, kApContinue = 0x10;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kDeviceBase = 1ULL << 36;  // buffers live above 4 GiB
// hw_emu cycles a stream chain may go without moving a beat before it counts as stalled.
constexpr uint64_t kChainPatienceCycles = 100'000;

[[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("fpgakern emulation: " + what);
}

// The library's API calls are serialized (the host's threads, xrt::queue's workers): the
// emulated device steps one run at a time anyway.
std::recursive_mutex& api_mutex() {
    static std::recursive_mutex mutex;
    return mutex;
}
using ApiLock = std::lock_guard<std::recursive_mutex>;

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

// An attribute value with XML's predefined entities replaced ("stream&lt;ap_axiu&lt;32,
// 0, 0, 0> >&amp;" is a stream argument's type), as an XML parser gives it to XRT.
std::string unescape(const std::string& text) {
    static const std::pair<const char*, char> entities[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}};
    std::string out;
    for (size_t i = 0; i < text.size();) {
        bool replaced = false;
        for (const auto& [entity, c] : entities) {
            const size_t len = std::strlen(entity);
            if (text.compare(i, len, entity) == 0) {
                out.push_back(c);
                i += len;
                replaced = true;
                break;
            }
        }
        if (!replaced) out.push_back(text[i++]);
    }
    return out;
}

// The attributes of one XML start tag, e.g. <arg name="a" id="0" .../>.
std::map<std::string, std::string> attributes(const std::string& tag) {
    static const std::regex attr(R"(([A-Za-z_:][-\w:.]*)\s*=\s*"([^"]*)\")");
    std::map<std::string, std::string> out;
    for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attr);
         it != std::sregex_iterator(); ++it) {
        out[(*it)[1]] = unescape((*it)[2]);
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
    std::string port;    // as EMBEDDED_METADATA names it ("M_AXI_GMEM0", "S_AXI_CONTROL")
    std::string bundle;  // m_axi bundle of a buffer ("gmem0", from port="M_AXI_GMEM0")
    std::string type;    // the host type ("int*", "unsigned int")
    int id = 0;
    int qualifier = 0;  // 0 scalar, 1 global memory, 4 stream
    uint32_t offset = 0;
    uint32_t size = 0;
};

constexpr int kStreamArg = 4;  // addressQualifier of an AXI4-Stream argument

struct KernelInfo {
    std::string name;
    std::vector<ArgInfo> args;  // by id

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

constexpr uint8_t kMemStreaming = 3, kMemStreamingConnection = 9;

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

// Section kinds (xclbin.h).
constexpr uint32_t kEmbeddedMetadata = 2, kMemTopology = 6, kConnectivity = 7, kIpLayout = 8,
                   kClockFreqTopology = 11, kGroupTopology = 26, kGroupConnectivity = 27;

// XCLBIN_MODE (xclbin.h): 0-3 hardware flows, 4 XCLBIN_HW_EMU, 5 XCLBIN_SW_EMU,
// 6 XCLBIN_HW_EMU_PR.
std::string mode_target(uint16_t mode) {
    if (mode == 4 || mode == 6) return "hw_emu";
    if (mode == 5) return "sw_emu";
    return "hw";
}

std::vector<MemInfo> read_topology(const std::vector<uint8_t>& data, uint64_t base) {
    std::vector<MemInfo> out;
    const int32_t count = load<int32_t>(data, base);  // int32 count, then 40-byte mem_data
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t entry = base + 8 + 40ULL * static_cast<uint64_t>(i);
        MemInfo m;
        m.type = load<uint8_t>(data, entry);
        m.used = load<uint8_t>(data, entry + 1) != 0;
        m.size_kb = load<uint64_t>(data, entry + 8);
        m.base = load<uint64_t>(data, entry + 16);
        m.tag = cstr(data, entry + 24, 16);
        out.push_back(m);
    }
    return out;
}

Axlf read_axlf(const std::vector<uint8_t>& data, const std::string& path) {
    if (data.size() < 496 || std::memcmp(data.data(), "xclbin2", 7) != 0) {
        fail(path + " is not an xclbin (axlf) file");
    }
    Axlf x;
    x.path = path;
    std::memcpy(x.uuid, data.data() + 0x1A0, 16);
    x.mode = load<uint16_t>(data, 0x14C);
    x.vbnv = cstr(data, 0x160, 64);
    const uint32_t sections = load<uint32_t>(data, 0x1C0);
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> where;  // kind -> (offset, size)
    for (uint32_t i = 0; i < sections; ++i) {
        const uint64_t header = 0x1C8 + 40ULL * i;
        const uint32_t kind = load<uint32_t>(data, header);
        where[kind] = {load<uint64_t>(data, header + 24), load<uint64_t>(data, header + 32)};
    }
    // EMBEDDED_METADATA: each kernel's arguments.
    auto found = where.find(kEmbeddedMetadata);
    if (found == where.end()) fail(path + ": no EMBEDDED_METADATA, no kernel can be opened");
    if (found->second.first + found->second.second > data.size()) fail("truncated xclbin");
    const std::string xml(reinterpret_cast<const char*>(data.data()) + found->second.first,
                          found->second.second);
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
            arg.type = a.count("type") ? a.at("type") : "";
            arg.id = static_cast<int>(number(a, "id"));
            arg.qualifier = static_cast<int>(number(a, "addressQualifier"));
            arg.offset = static_cast<uint32_t>(number(a, "offset"));
            arg.size = static_cast<uint32_t>(number(a, "size"));
            if (a.count("port")) {
                arg.port = a.at("port");
                std::string port = arg.port;
                std::transform(port.begin(), port.end(), port.begin(), [](unsigned char c) {
                    return static_cast<char>(std::tolower(c));
                });
                arg.bundle = port.rfind("m_axi_", 0) == 0 ? port.substr(6) : port;
            }
            k.args.push_back(arg);
        }
        std::sort(k.args.begin(), k.args.end(),
                  [](const ArgInfo& a, const ArgInfo& b) { return a.id < b.id; });
        x.kernels.push_back(k);
    }
    for (const std::string& tag : tags(xml, "connection", 0, xml.size())) {
        const auto c = attributes(tag);
        auto get = [&c](const char* key) { return c.count(key) ? c.at(key) : std::string(); };
        if (get("srcType") != "kernel") continue;  // memory connections come from CONNECTIVITY
        x.streams.push_back({get("srcInst"), get("srcPort"), get("dstInst"), get("dstPort")});
    }
    // IP_LAYOUT: the compute units "kernel:instance".
    auto ip = where.find(kIpLayout);
    if (ip == where.end()) fail(path + ": no IP_LAYOUT, so no compute units");
    const uint64_t base = ip->second.first;
    const int32_t count = load<int32_t>(data, base);
    std::vector<int> ip_to_cu(static_cast<size_t>(std::max(count, 0)), -1);
    for (int32_t i = 0; i < count; ++i) {
        const uint64_t entry = base + 8 + 80ULL * static_cast<uint64_t>(i);
        if (load<uint32_t>(data, entry) != 1) continue;  // IP_KERNEL only
        const std::string name = cstr(data, entry + 16, 64);
        const size_t colon = name.find(':');
        if (colon == std::string::npos) continue;
        CuInfo cu;
        cu.kernel = name.substr(0, colon);
        cu.name = name.substr(colon + 1);
        cu.base = load<uint64_t>(data, entry + 8);
        // properties bits 8-15: IP_CONTROL (xclbin.h)
        cu.control = static_cast<uint8_t>((load<uint32_t>(data, entry + 4) >> 8) & 0xFF);
        ip_to_cu[static_cast<size_t>(i)] = static_cast<int>(x.cus.size());
        x.cus.push_back(cu);
    }
    // CLOCK_FREQ_TOPOLOGY: int16 count, then 136-byte clock_freq (uint16 MHz first).
    auto clocks = where.find(kClockFreqTopology);
    if (clocks != where.end()) {
        const int16_t n = load<int16_t>(data, clocks->second.first);
        for (int16_t i = 0; i < n; ++i) {
            const uint64_t entry = clocks->second.first + 2 + 136ULL * static_cast<uint64_t>(i);
            x.max_mhz = std::max<unsigned long>(x.max_mhz, load<uint16_t>(data, entry));
        }
    }
    // MEM_TOPOLOGY and CONNECTIVITY, or their GROUP_ forms when present (XRT's
    // xclbin_parser: a missing group section defaults to the plain one).
    auto mem = where.find(kMemTopology);
    if (mem != where.end()) {
        for (const MemInfo& m : read_topology(data, mem->second.first)) x.banks.push_back(m.tag);
    }
    auto group_mem = where.find(kGroupTopology);
    auto group_conn = where.find(kGroupConnectivity);
    x.groups = group_mem != where.end() && group_conn != where.end();
    if (x.groups) {
        x.mems = read_topology(data, group_mem->second.first);
    } else if (mem != where.end()) {
        x.mems = read_topology(data, mem->second.first);
    }
    auto conn = x.groups ? group_conn : where.find(kConnectivity);
    if (conn != where.end()) {
        const uint64_t cbase = conn->second.first;
        const int32_t links = load<int32_t>(data, cbase);
        for (int32_t i = 0; i < links; ++i) {
            const uint64_t entry = cbase + 4 + 12ULL * static_cast<uint64_t>(i);
            const int32_t arg = load<int32_t>(data, entry);
            const int32_t ip_index = load<int32_t>(data, entry + 4);
            const int32_t memidx = load<int32_t>(data, entry + 8);
            if (ip_index < 0 || ip_index >= count || ip_to_cu[ip_index] < 0) continue;
            if (memidx < 0) continue;
            if (static_cast<size_t>(memidx) < x.mems.size()) {
                const uint8_t type = x.mems[static_cast<size_t>(memidx)].type;
                if (type == kMemStreaming || type == kMemStreamingConnection) continue;
            }
            auto& list = x.cus[static_cast<size_t>(ip_to_cu[ip_index])].mems[arg];
            if (std::find(list.begin(), list.end(), memidx) == list.end()) list.push_back(memidx);
        }
        for (CuInfo& cu : x.cus) {
            for (auto& entry : cu.mems) std::sort(entry.second.begin(), entry.second.end());
        }
    }
    return x;
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) fail("cannot open xclbin " + path);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
}

// A JSON value, enough for emconfig.json (objects, arrays, strings, numbers, literals).
struct Json {
    enum Kind { null, boolean, number, string, array, object } kind = null;
    std::string text;  // string, or a number's / literal's spelling
    std::vector<Json> items;
    std::vector<std::pair<std::string, Json>> members;

    const Json* get(const std::string& key) const {
        for (const auto& m : members) {
            if (m.first == key) return &m.second;
        }
        return nullptr;
    }
    unsigned as_unsigned(unsigned fallback) const {
        if (kind != number && kind != string) return fallback;
        return static_cast<unsigned>(std::strtoul(text.c_str(), nullptr, 10));
    }
};

class JsonReader {
  public:
    JsonReader(const std::string& text, const std::string& where) : s_(text), where_(where) {}
    Json document() {
        Json v = value();
        space();
        if (at_ != s_.size()) error("text after the value");
        return v;
    }

  private:
    [[noreturn]] void error(const std::string& what) {
        fail(where_ + ": not JSON (" + what + " at byte " + std::to_string(at_) + ")");
    }
    void space() {
        while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
    }
    std::string str() {
        if (s_[at_] != '"') error("a string expected");
        std::string out;
        for (++at_; at_ < s_.size() && s_[at_] != '"'; ++at_) {
            if (s_[at_] == '\\' && at_ + 1 < s_.size()) ++at_;
            out.push_back(s_[at_]);
        }
        if (at_ >= s_.size()) error("an unterminated string");
        ++at_;
        return out;
    }
    Json value() {
        space();
        if (at_ >= s_.size()) error("a value expected");
        Json v;
        const char c = s_[at_];
        if (c == '{') {
            v.kind = Json::object;
            ++at_;
            space();
            if (s_[at_] == '}') return ++at_, v;
            for (;;) {
                space();
                std::string key = str();
                space();
                if (s_[at_++] != ':') error("':' expected");
                v.members.emplace_back(key, value());
                space();
                if (s_[at_] == ',') { ++at_; continue; }
                if (s_[at_++] != '}') error("'}' expected");
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::array;
            ++at_;
            space();
            if (s_[at_] == ']') return ++at_, v;
            for (;;) {
                v.items.push_back(value());
                space();
                if (s_[at_] == ',') { ++at_; continue; }
                if (s_[at_++] != ']') error("']' expected");
                return v;
            }
        }
        if (c == '"') {
            v.kind = Json::string;
            v.text = str();
            return v;
        }
        const size_t end = s_.find_first_of(",}] \t\r\n", at_);
        v.text = s_.substr(at_, end - at_);
        at_ = end == std::string::npos ? s_.size() : end;
        if (v.text == "true" || v.text == "false") v.kind = Json::boolean;
        else if (v.text == "null") v.kind = Json::null;
        else v.kind = Json::number;
        return v;
    }

    const std::string& s_;
    std::string where_;
    size_t at_ = 0;
};

// The emulation config Vitis users have: emconfig.json (emconfigutil --platform P
// [--nd N]), found as XRT's emulation driver finds it: in $EMCONFIG_PATH, else beside the
// executable. It names the platform and how many devices to emulate:
// {"Version": {"FileVersion": "2.0"}, "Platform": {"Boards": [{"NumBoards"?, "Devices":
// [{"Name": P, "NumDevices"?, ...}]}]}}. Its other fields (DDR banks, feature ROM,
// clock) describe a card's shell, which the xclbin and fpgakern's models replace here.
struct EmConfig {
    bool found = false;
    std::string path;
    std::vector<std::string> devices;  // the platform name of each emulated device
};

EmConfig read_emconfig() {
    EmConfig cfg;
    std::string folder;
    if (const char* env = std::getenv("EMCONFIG_PATH")) folder = env;
    if (folder.empty()) {
        char exe[4096];
        const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = 0;
            folder = exe;
            folder = folder.substr(0, folder.find_last_of('/'));
        }
    }
    cfg.path = folder.empty() ? "emconfig.json" : folder + "/emconfig.json";
    std::ifstream in(cfg.path);
    if (!in) return cfg;
    std::stringstream text;
    text << in.rdbuf();
    cfg.found = true;
    const Json doc = JsonReader(text.str(), cfg.path).document();
    const Json* version = doc.get("Version");
    const Json* file_version = version ? version->get("FileVersion") : nullptr;
    if (file_version && file_version->text != "2.0") {
        // XRT's message (emulation common config.cxx), and it then emulates no device.
        std::printf("incompatible version of emconfig.json found.Please regenerate this file\n");
        std::fflush(stdout);
        return cfg;
    }
    const Json* platform = doc.get("Platform");
    const Json* boards = platform ? platform->get("Boards") : nullptr;
    if (!boards) return cfg;
    for (const Json& board : boards->items) {
        const Json* count = board.get("NumBoards");
        const unsigned copies = count ? count->as_unsigned(1) : 1;
        const Json* devices = board.get("Devices");
        for (unsigned b = 0; b < copies && devices; ++b) {
            for (const Json& device : devices->items) {
                const Json* name = device.get("Name");
                const Json* num = device.get("NumDevices");
                const unsigned n = num ? num->as_unsigned(1) : 1;
                for (unsigned i = 0; i < n; ++i) cfg.devices.push_back(name ? name->text : "");
            }
        }
    }
    return cfg;
}

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
    int (*interrupt)(fkemu_cu*) = nullptr;
    void (*tick)(fkemu_cu*, uint64_t) = nullptr;
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
    // ABI 3, every model: AXI4-Stream FIFOs and ap_ctrl_none.
    int (*stream_push)(fkemu_cu*, const char*, uint64_t, int) = nullptr;
    int (*stream_pop)(fkemu_cu*, const char*, uint64_t*, int*) = nullptr;
    bool free_running = false;

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
        bind(interrupt, "fkemu_cu_interrupt");
        bind(tick, "fkemu_cu_tick");
        bind(cycles, "fkemu_cu_cycles");
        bind(error, "fkemu_cu_error");
        bind(clear_error, "fkemu_cu_clear_error");
        const char* (*target)() = nullptr;
        bind(target, "fkemu_model_target");
        bind(stream_push, "fkemu_cu_stream_push");
        bind(stream_pop, "fkemu_cu_stream_pop");
        int (*is_free_running)() = nullptr;
        bind(is_free_running, "fkemu_model_free_running");
        free_running = is_free_running() != 0;
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

uint32_t scalar_bits(const std::vector<uint8_t>& value) {
    uint32_t bits = 0;
    std::memcpy(&bits, value.data(), std::min<size_t>(value.size(), sizeof bits));
    return bits;
}

// A buffer's storage: both sides in whole pages, as XRT allocates them. A host-only
// buffer has one side (the kernel reaches host memory), a device-only one no host side.
struct Storage {
    uint8_t* host = nullptr;
    uint8_t* device = nullptr;
    size_t bytes = 0;
    uint64_t address = 0;
    bool own_host = true;

    ~Storage() {
        if (own_host && host != device) std::free(host);
        std::free(device);
    }
};

}  // namespace

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

class device_impl {
  public:
    explicit device_impl(unsigned int index) : index_(index) {
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

    ~device_impl() { close(); }

    void close() {
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

    uuid load(const Axlf& x) {
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

    const std::string& target() const { return target_; }
    const uuid& loaded() const { return uuid_; }
    const Axlf& xclbin() const { return xclbin_; }
    std::string name() const { return name_.empty() ? xclbin_.vbnv : name_; }
    unsigned index() const { return index_; }
    const KernelInfo* kernel(const std::string& name) const {
        for (const KernelInfo& k : xclbin_.kernels) {
            if (k.name == name) return &k;
        }
        return nullptr;
    }
    std::vector<ComputeUnit>& cus() { return cus_; }
    std::vector<StreamLink>& links() { return links_; }
    const Chain& chain(int index) const { return chains_.at(static_cast<size_t>(index)); }

    // Move beats across `link`, at most `max`: deliver the beat it holds, then pop and
    // deliver more while the producer has some and the consumer takes them. Returns the
    // number delivered.
    uint64_t move(StreamLink& link, uint64_t max) {
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

    uint64_t allocate(uint64_t bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        const uint64_t address = next_address_;
        next_address_ += (bytes + kPage - 1) / kPage * kPage + kPage;  // a guard page
        return address;
    }

    // Place m_axi `bundle` of `cu` on bank `memidx` when it has a bandwidth (else no
    // limit); one bank object per (model library, bank). hw_emu only.
    void place(ComputeUnit& cu, const std::string& bundle, int memidx) {
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

  private:
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
        rates_.clear();  // MEM_TOPOLOGY index -> bytes per kernel cycle
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

    // The xclbin's kernel-to-kernel streams as links between loaded CUs, and the chains
    // they make (every CU connected to another, transitively).
    void connect_streams() {
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

    unsigned index_;
    std::string target_;
    std::string name_;
    EmConfig emconfig_;
    unsigned read_latency_ = 64;
    uuid uuid_;
    Axlf xclbin_;
    std::vector<ComputeUnit> cus_;
    std::vector<StreamLink> links_;
    std::vector<Chain> chains_;
    std::map<int, double> rates_;
    std::vector<BankObject> banks_;
    std::mutex mutex_;
    uint64_t next_address_ = kDeviceBase;
};

class bo_impl {
  public:
    bo_impl(std::shared_ptr<device_impl> device, size_t size, bo::flags flags,
            memory_group group, void* userptr)
        : device_(std::move(device)), size_(size), group_(group), flags_(flags) {
        // A memory the loaded xclbin does not have cannot hold a buffer (XRT's allocation
        // fails too).
        const size_t mems = device_->xclbin().mems.size();
        if (mems && (group & 0xFFFF) >= mems) {
            fail("cannot allocate a buffer in memory group " + std::to_string(group & 0xFFFF) +
                 ": the loaded xclbin's memory topology has " + std::to_string(mems) +
                 " entries");
        }
        storage_ = std::make_shared<Storage>();
        const size_t bytes = std::max<size_t>((size + kPage - 1) / kPage * kPage, kPage);
        storage_->bytes = bytes;
        storage_->device = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes));
        if (!storage_->device) fail("out of memory for a buffer object");
        std::memset(storage_->device, 0, bytes);
        if (flags == bo::flags::host_only) {
            storage_->host = storage_->device;  // the kernel reaches host memory itself
        } else if (flags != bo::flags::device_only) {
            if (userptr) {
                storage_->host = static_cast<uint8_t*>(userptr);
                storage_->own_host = false;
            } else {
                storage_->host = static_cast<uint8_t*>(std::aligned_alloc(kPage, bytes));
                if (!storage_->host) fail("out of memory for a buffer object");
                std::memset(storage_->host, 0, bytes);
            }
        }
        storage_->address = device_->allocate(bytes);
    }
    // A sub-buffer of `parent`.
    bo_impl(const bo_impl& parent, size_t size, size_t offset)
        : device_(parent.device_), storage_(parent.storage_), offset_(parent.offset_ + offset),
          size_(size), group_(parent.group_), flags_(parent.flags_) {
        if (offset > parent.size_ || size > parent.size_ - offset) {
            fail("sub-buffer of " + std::to_string(size) + " bytes at " +
                 std::to_string(offset) + " exceeds its parent's " +
                 std::to_string(parent.size_) + " bytes");
        }
    }

    uint8_t* host() const {
        if (!storage_->host) fail("a device_only buffer has no host side to map, read or write");
        return storage_->host + offset_;
    }
    uint8_t* device() const { return storage_->device + offset_; }
    uint64_t address() const { return storage_->address + offset_; }

    void sync(xclBOSyncDirection dir, size_t size, size_t offset) {
        check(size, offset, "sync");
        if (storage_->host == storage_->device || !storage_->host) return;  // one side only
        if (dir == XCL_BO_SYNC_BO_TO_DEVICE) {
            std::memcpy(device() + offset, host() + offset, size);
        } else if (dir == XCL_BO_SYNC_BO_FROM_DEVICE) {
            std::memcpy(host() + offset, device() + offset, size);
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
    std::shared_ptr<Storage> storage_;
    size_t offset_ = 0;  // into storage_ (sub-buffers)
    size_t size_;
    memory_group group_;
    bo::flags flags_;
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

// ------------------------------------------------------------------ xclbin

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

device::device(unsigned int didx) : handle_((ApiLock(api_mutex()), open_device(didx))) {}

uuid device::load_xclbin(const std::string& xclbin_fnm) {
    ApiLock lock(api_mutex());
    if (!handle_) fail("load_xclbin on an empty xrt::device");
    return handle_->load(read_axlf(read_file(xclbin_fnm), xclbin_fnm));
}

uuid device::load_xclbin(const xrt::xclbin& xclbin) {
    ApiLock lock(api_mutex());
    if (!handle_) fail("load_xclbin on an empty xrt::device");
    if (!xclbin) fail("load_xclbin of an empty xrt::xclbin");
    return handle_->load(xclbin.get_handle()->x);
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

// ------------------------------------------------------------------ bo

bo::bo(const xrt::device& device, void* userptr, size_t sz, bo::flags flags,
       memory_group grp) {
    ApiLock lock(api_mutex());
    if (!device) fail("xrt::bo on an empty xrt::device");
    handle_ = std::make_shared<bo_impl>(device.get_handle(), sz, flags, grp, userptr);
}

bo::bo(const xrt::device& device, size_t sz, bo::flags flags, memory_group grp)
    : bo(device, nullptr, sz, flags, grp) {}

bo::bo(const bo& parent, size_t size, size_t offset) {
    ApiLock lock(api_mutex());
    if (!parent) fail("sub-buffer of an empty xrt::bo");
    handle_ = std::make_shared<bo_impl>(*parent.handle_, size, offset);
}

size_t bo::size() const { return handle_->size_; }
uint64_t bo::address() const { return handle_->address(); }
memory_group bo::get_memory_group() const { return handle_->group_; }
bo::flags bo::get_flags() const { return handle_->flags_; }
void bo::sync(xclBOSyncDirection dir, size_t sz, size_t offset) {
    ApiLock lock(api_mutex());
    handle_->sync(dir, sz, offset);
}
void* bo::map() { return handle_->host(); }
void bo::write(const void* src, size_t size, size_t seek) {
    handle_->check(size, seek, "write");
    std::memcpy(handle_->host() + seek, src, size);
}
void bo::read(void* dst, size_t size, size_t skip) {
    handle_->check(size, skip, "read");
    std::memcpy(dst, handle_->host() + skip, size);
}
void bo::copy(const bo& src, size_t sz, size_t src_offset, size_t dst_offset) {
    ApiLock lock(api_mutex());
    if (!src || !handle_) fail("bo copy of an empty xrt::bo");
    if (sz == 0) fail("bo copy: size is 0");  // XRT throws on a 0-byte copy too
    src.handle_->check(sz, src_offset, "copy source");
    handle_->check(sz, dst_offset, "copy destination");
    std::memmove(handle_->device() + dst_offset, src.handle_->device() + src_offset, sz);
}

// ------------------------------------------------------------------ kernel and run

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

// ------------------------------------------------------------------ queue

// One worker thread running the queue's tasks in order; it finishes the tasks enqueued
// before the queue's last handle goes, then stops.
class queue_impl {
  public:
    queue_impl() : worker_([this] { work(); }) {}
    ~queue_impl() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        ready_.notify_one();
        worker_.join();
    }
    void add(std::function<void()> task) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        ready_.notify_one();
    }

  private:
    void work() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();  // a packaged_task: its exception goes to its future
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    bool stop_ = false;
    std::thread worker_;
};

queue::queue() : impl_(std::make_shared<queue_impl>()) {}

void queue::add_task(std::function<void()> task) { impl_->add(std::move(task)); }

}  // namespace xrt
