// fpgakern's XRT emulation library: reading emconfig.json (emconfig.h).
#include "emconfig.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "internal.h"

namespace fkemu {

namespace {

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

}  // namespace

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

}  // namespace fkemu
