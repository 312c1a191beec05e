// fpgakern XRT emulation: xrt::bo, the subset of XRT's xrt/xrt_bo.h the generated host
// code uses. Source-compatible with XRT's header.
//
// As on a card, a buffer object has a host side (map/write/read) and a device side (what
// the kernel sees); sync() copies between them, so host code that forgets a sync reads
// stale data here too.
#ifndef FPGAKERN_EMU_XRT_BO_H_
#define FPGAKERN_EMU_XRT_BO_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "xrt/xrt_device.h"

#ifndef FPGAKERN_EMU_XCL_BO_SYNC_DIRECTION
#define FPGAKERN_EMU_XCL_BO_SYNC_DIRECTION
// XRT's values (xrt/detail/xrt_mem.h).
enum xclBOSyncDirection {
    XCL_BO_SYNC_BO_TO_DEVICE = 0,
    XCL_BO_SYNC_BO_FROM_DEVICE,
    XCL_BO_SYNC_BO_GMIO_TO_AIE,
    XCL_BO_SYNC_BO_AIE_TO_GMIO,
};
#endif

namespace xrt {

using memory_group = uint32_t;

class bo_impl;

class bo {
  public:
    enum class flags : uint32_t { normal = 0 };

    bo() = default;
    bo(const xrt::device& device, size_t size, bo::flags flags, memory_group group);
    bo(const xrt::device& device, size_t size, memory_group group)
        : bo(device, size, bo::flags::normal, group) {}

    size_t size() const;
    uint64_t address() const;
    memory_group get_memory_group() const;

    void sync(xclBOSyncDirection dir, size_t size, size_t offset);
    void sync(xclBOSyncDirection dir) { sync(dir, size(), 0); }

    void* map();
    template <typename MapType>
    MapType map() {
        return reinterpret_cast<MapType>(map());
    }

    void write(const void* src, size_t size, size_t seek);
    void write(const void* src) { write(src, size(), 0); }
    void read(void* dst, size_t size, size_t skip);
    void read(void* dst) { read(dst, size(), 0); }

    explicit operator bool() const { return handle_ != nullptr; }
    bool operator==(const bo& rhs) const { return handle_ == rhs.handle_; }
    const std::shared_ptr<bo_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<bo_impl> handle_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_BO_H_
