// fpgakern's XRT emulation library: buffer objects (internal.h lists the library's
// files).
#ifndef FPGAKERN_EMU_SRC_BO_H_
#define FPGAKERN_EMU_SRC_BO_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "device.h"
#include "internal.h"
#include "xrt/xrt_bo.h"

namespace fkemu {

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

}  // namespace fkemu

namespace xrt {

class bo_impl {
  public:
    // A buffer of `size` bytes in memory `group` of the device's loaded xclbin; its host
    // side is `userptr` when given.
    bo_impl(std::shared_ptr<device_impl> device, size_t size, bo::flags flags,
            memory_group group, void* userptr);
    // A sub-buffer of `parent`.
    bo_impl(const bo_impl& parent, size_t size, size_t offset);

    uint8_t* host() const {
        if (!storage_->host) {
            fkemu::fail("a device_only buffer has no host side to map, read or write");
        }
        return storage_->host + offset_;
    }
    uint8_t* device() const { return storage_->device + offset_; }
    uint64_t address() const { return storage_->address + offset_; }

    // Copy between the two sides, [offset, offset + size).
    void sync(xclBOSyncDirection dir, size_t size, size_t offset);
    // Fail unless [offset, offset + size) lies in the buffer (`what` names the access).
    void check(size_t size, size_t offset, const char* what) const;

    std::shared_ptr<device_impl> device_;
    std::shared_ptr<fkemu::Storage> storage_;
    size_t offset_ = 0;  // into storage_ (sub-buffers)
    size_t size_;
    memory_group group_;
    bo::flags flags_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_SRC_BO_H_
