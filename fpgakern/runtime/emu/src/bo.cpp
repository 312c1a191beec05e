// fpgakern's XRT emulation library: xrt::bo (bo.h).
#include "bo.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

using namespace fkemu;

namespace xrt {

bo_impl::bo_impl(std::shared_ptr<device_impl> device, size_t size, bo::flags flags,
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
    if (flags == bo::flags::host_only || flags == bo::flags::p2p) {
        // host_only: the kernel reaches host memory itself; p2p: the host maps device
        // memory (XRT maps a P2P buffer's device side through the card's BAR).
        if (flags == bo::flags::p2p && userptr) {
            fail("a p2p buffer cannot take a user pointer (its memory is the device's)");
        }
        storage_->host = storage_->device;
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

bo_impl::bo_impl(const bo_impl& parent, size_t size, size_t offset)
    : device_(parent.device_), storage_(parent.storage_), offset_(parent.offset_ + offset),
      size_(size), group_(parent.group_), flags_(parent.flags_) {
    if (offset > parent.size_ || size > parent.size_ - offset) {
        fail("sub-buffer of " + std::to_string(size) + " bytes at " +
             std::to_string(offset) + " exceeds its parent's " +
             std::to_string(parent.size_) + " bytes");
    }
}

void bo_impl::sync(xclBOSyncDirection dir, size_t size, size_t offset) {
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

void bo_impl::check(size_t size, size_t offset, const char* what) const {
    if (offset > size_ || size > size_ - offset) {
        fail(std::string("bo ") + what + " of " + std::to_string(size) + " bytes at " +
             std::to_string(offset) + " exceeds its " + std::to_string(size_) + " bytes");
    }
}

bo::bo(const xrt::device& device, void* userptr, size_t sz, bo::flags flags,
       memory_group grp) {
    ApiLock lock(api_mutex());
    if (!device) fail("xrt::bo on an empty xrt::device");
    handle_ = std::make_shared<bo_impl>(device.get_handle(), sz, flags, grp, userptr);
}

bo::bo(xclDeviceHandle dhdl, void* userptr, size_t sz, bo::flags flags, memory_group grp) {
    ApiLock lock(api_mutex());
    if (!dhdl) fail("xrt::bo on a null xclDeviceHandle");
    // The handle is an xrt::device's device_impl (xrt::device::operator xclDeviceHandle).
    handle_ = std::make_shared<bo_impl>(static_cast<device_impl*>(dhdl)->shared_from_this(),
                                        sz, flags, grp, userptr);
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

}  // namespace xrt
