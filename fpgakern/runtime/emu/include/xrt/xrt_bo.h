// fpgakern XRT emulation: xrt::bo, as XRT's xrt/xrt_bo.h declares it (signatures checked
// against XRT 2.13 / 2022.1 and the device constructors of 2.14+; docs/runtime.md "The XRT
// native API").
//
// As on a card, a buffer object has a host side (map/write/read) and a device side (what
// the kernel sees); sync() copies between them, so host code that forgets a sync reads
// stale data here too. flags::host_only: the kernel reads and writes host memory
// directly (one side; sync is a no-op). flags::device_only: no host side (map, read and
// write throw, as XRT's do). flags::p2p: one side, the device memory itself, as a card
// maps a P2P buffer through its PCIe BAR (map() reads and writes what the kernel sees;
// sync is a no-op). flags::cacheable: as normal (it only matters on embedded
// platforms). A sub-buffer xrt::bo(parent, size, offset) shares its parent's storage.
#ifndef FPGAKERN_EMU_XRT_BO_H_
#define FPGAKERN_EMU_XRT_BO_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "xrt.h"
#include "xrt/xrt_device.h"

typedef void* xrtBufferHandle;
typedef uint64_t xrtBufferFlags;
typedef uint32_t xrtMemoryGroup;

struct xcl_buffer_handle {
    xclBufferHandle bhdl;
};

namespace xrt {

using memory_group = xrtMemoryGroup;

class bo_impl;

class bo {
  public:
    enum class flags : uint32_t {
        normal = 0,
        cacheable = XRT_BO_FLAGS_CACHEABLE,
        device_only = XRT_BO_FLAGS_DEV_ONLY,
        host_only = XRT_BO_FLAGS_HOST_ONLY,
        p2p = XRT_BO_FLAGS_P2P,
        svm = XRT_BO_FLAGS_SVM,
    };

    bo() = default;
    bo(const xrt::device& device, void* userptr, size_t sz, bo::flags flags, memory_group grp);
    bo(const xrt::device& device, void* userptr, size_t sz, memory_group grp)
        : bo(device, userptr, sz, bo::flags::normal, grp) {}
    bo(const xrt::device& device, size_t sz, bo::flags flags, memory_group grp);
    bo(const xrt::device& device, size_t sz, memory_group grp)
        : bo(device, sz, bo::flags::normal, grp) {}
    // The same on a device handle (an xrt::device converts to one), as XRT's.
    bo(xclDeviceHandle dhdl, void* userptr, size_t sz, bo::flags flags, memory_group grp);
    bo(xclDeviceHandle dhdl, void* userptr, size_t sz, memory_group grp)
        : bo(dhdl, userptr, sz, bo::flags::normal, grp) {}
    bo(xclDeviceHandle dhdl, size_t size, bo::flags flags, memory_group grp)
        : bo(dhdl, nullptr, size, flags, grp) {}
    bo(xclDeviceHandle dhdl, size_t size, memory_group grp)
        : bo(dhdl, nullptr, size, bo::flags::normal, grp) {}
    // Sub-buffer of `parent`: [offset, offset + size) of its storage.
    bo(const bo& parent, size_t size, size_t offset);

    bo(const bo& rhs) = default;
    bo& operator=(const bo& rhs) = default;
    bo(bo&& rhs) = default;
    bo& operator=(bo&& rhs) = default;

    bool operator==(const bo& rhs) const { return handle_ == rhs.handle_; }
    explicit operator bool() const { return handle_ != nullptr; }

    size_t size() const;
    uint64_t address() const;
    memory_group get_memory_group() const;
    flags get_flags() const;

    void sync(xclBOSyncDirection dir, size_t sz, size_t offset);
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

    // Device-side copy from `src` (as XRT: throws if sz is 0 or out of either buffer).
    void copy(const bo& src, size_t sz, size_t src_offset = 0, size_t dst_offset = 0);
    void copy(const bo& src) { copy(src, src.size()); }

    const std::shared_ptr<bo_impl>& get_handle() const { return handle_; }
    bo(std::shared_ptr<bo_impl> impl) : handle_(std::move(impl)) {}  // NOLINT: as XRT

  private:
    std::shared_ptr<bo_impl> handle_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_BO_H_
