// fpgakern XRT emulation: xrt::uuid, the subset of XRT's xrt/xrt_uuid.h the generated
// host code uses. Source-compatible with XRT's header: code written against this one
// compiles unchanged against XRT (docs/runtime.md).
#ifndef FPGAKERN_EMU_XRT_UUID_H_
#define FPGAKERN_EMU_XRT_UUID_H_

#include <array>
#include <cstdio>
#include <cstring>
#include <string>

namespace xrt {

class uuid {
  public:
    uuid() : bytes_{} {}
    // Implicit, as XRT's uuid(const xuid_t): a raw 16-byte id converts where a uuid is
    // expected (xrt::kernel(device, xclbin.get_uuid().get(), name)).
    uuid(const unsigned char bytes[16]) {  // NOLINT: implicit, as XRT
        std::memcpy(bytes_.data(), bytes, 16);
    }

    const unsigned char* get() const { return bytes_.data(); }

    std::string to_string() const {
        char text[37];
        const unsigned char* b = bytes_.data();
        std::snprintf(text, sizeof text,
                      "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                      b[12], b[13], b[14], b[15]);
        return text;
    }

    explicit operator bool() const {
        for (unsigned char b : bytes_) {
            if (b) return true;
        }
        return false;
    }
    bool operator==(const uuid& rhs) const { return bytes_ == rhs.bytes_; }
    bool operator!=(const uuid& rhs) const { return !(*this == rhs); }

  private:
    std::array<unsigned char, 16> bytes_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_UUID_H_
