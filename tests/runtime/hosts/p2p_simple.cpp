// P2P buffers, the shape of AMD's p2p_simple host: the helpers take an xrtDeviceHandle
// (an xrt::device converts to one) and allocate with xrt::bo's handle constructors; a
// p2p buffer's map() is the device memory itself, so the host hands the kernel's output
// to a file and reads a file into the kernel's input with no sync (a regular file here,
// not an NVMe SSD opened O_DIRECT). Nothing in it knows fpgakern.
//   usage: p2p_simple <xclbin> <scratch file>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "experimental/xrt_bo.h"
#include "experimental/xrt_device.h"
#include "experimental/xrt_kernel.h"

static const int kSize = 4096;
static const int kIncrement = 10;

static void device_to_file(int fd, xrtDeviceHandle device, xrt::kernel& krnl) {
    const size_t bytes = sizeof(int) * kSize;
    auto bo_in = xrt::bo(device, bytes, krnl.group_id(0));
    auto p2p_out = xrt::bo(device, bytes, xrt::bo::flags::p2p, krnl.group_id(1));
    auto in = bo_in.map<int*>();
    auto out = p2p_out.map<int*>();
    std::fill(out, out + kSize, 0);
    for (int i = 0; i < kSize; ++i) in[i] = 3 * i - 77;
    bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    auto run = krnl(bo_in, p2p_out, kIncrement, kSize);
    run.wait();
    // No sync: the map is of the device memory the kernel wrote.
    if (pwrite(fd, out, bytes, 0) != static_cast<ssize_t>(bytes))
        throw std::runtime_error("pwrite failed");
}

static void file_to_device(int fd, xrtDeviceHandle device, xrt::kernel& krnl) {
    const size_t bytes = sizeof(int) * kSize;
    auto p2p_in = xrt::bo(device, bytes, xrt::bo::flags::p2p, krnl.group_id(0));
    auto bo_out = xrt::bo(device, bytes, krnl.group_id(1));
    auto in = p2p_in.map<int*>();
    auto out = bo_out.map<int*>();
    std::fill(out, out + kSize, 0);
    // Straight into device memory: the kernel reads it with no sync.
    if (pread(fd, in, bytes, 0) != static_cast<ssize_t>(bytes))
        throw std::runtime_error("pread failed");
    auto run = krnl(p2p_in, bo_out, kIncrement, kSize);
    run.wait();
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    for (int i = 0; i < kSize; ++i) {
        if (out[i] != 3 * i - 77 + 2 * kIncrement)
            throw std::runtime_error("Value read back does not match reference");
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cout << "usage: " << argv[0] << " <xclbin> <scratch file>\n";
        return EXIT_FAILURE;
    }
    auto device = xrt::device(0);
    auto uuid = device.load_xclbin(std::string(argv[1]));
    auto krnl = xrt::kernel(device, uuid, "adder");
    int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return EXIT_FAILURE;
    device_to_file(fd, device, krnl);
    file_to_device(fd, device, krnl);
    (void)close(fd);
    std::cout << "TEST PASSED\n";
    return 0;
}
