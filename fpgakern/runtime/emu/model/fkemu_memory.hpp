// The device memory one emulated CU sees: the host buffers mapped into it.
//
// Addresses are device addresses (what the host writes into the pointer registers);
// each access is translated once per burst (hw_emu) or per argument (sw_emu) and must
// lie inside one mapped buffer. Anything else is an error the CU reports, because on a
// card it would read or corrupt memory that belongs to someone else.
#ifndef FKEMU_MEMORY_HPP
#define FKEMU_MEMORY_HPP

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace fkemu {

struct Region {
    uint64_t dev;
    uint8_t* host;
    uint64_t bytes;
    bool writable;
};

class Memory {
  public:
    void map(uint64_t dev, void* host, uint64_t bytes, bool writable) {
        regions_.push_back(Region{dev, static_cast<uint8_t*>(host), bytes, writable});
    }
    void clear() { regions_.clear(); }

    // Host address of [dev, dev + bytes), or nullptr with `why` set.
    uint8_t* translate(uint64_t dev, uint64_t bytes, bool write, std::string* why) const {
        for (const Region& r : regions_) {
            if (dev >= r.dev && dev - r.dev <= r.bytes && bytes <= r.bytes - (dev - r.dev)) {
                if (write && !r.writable) {
                    *why = describe(write, dev, bytes) + " targets a read-only buffer";
                    return nullptr;
                }
                return r.host + (dev - r.dev);
            }
        }
        *why = describe(write, dev, bytes) + " is outside every mapped buffer";
        return nullptr;
    }

  private:
    static std::string describe(bool write, uint64_t dev, uint64_t bytes) {
        char text[96];
        std::snprintf(text, sizeof text, "%s of %" PRIu64 " bytes at 0x%" PRIx64,
                      write ? "write" : "read", bytes, dev);
        return text;
    }
    std::vector<Region> regions_;
};

}  // namespace fkemu

#endif  // FKEMU_MEMORY_HPP
