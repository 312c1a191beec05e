// fpgakern's XRT emulation library: reading an .xclbin (axlf.h).
#include "axlf.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>

#include "internal.h"

namespace fkemu {

namespace {

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

constexpr uint8_t kMemStreaming = 3, kMemStreamingConnection = 9;

// Section kinds (xclbin.h).
constexpr uint32_t kEmbeddedMetadata = 2, kMemTopology = 6, kConnectivity = 7, kIpLayout = 8,
                   kClockFreqTopology = 11, kGroupTopology = 26, kGroupConnectivity = 27;

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

}  // namespace

// XCLBIN_MODE (xclbin.h): 0-3 hardware flows, 4 XCLBIN_HW_EMU, 5 XCLBIN_SW_EMU,
// 6 XCLBIN_HW_EMU_PR.
std::string mode_target(uint16_t mode) {
    if (mode == 4 || mode == 6) return "hw_emu";
    if (mode == 5) return "sw_emu";
    return "hw";
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
        if (head.count("mailbox")) k.mailbox = head.at("mailbox");
        k.counted_auto_restart = number(head, "countedAutoRestart") != 0;
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

}  // namespace fkemu
