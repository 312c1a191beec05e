// Card to card, the shape of AMD's p2p_fpga2fpga host: device 0 runs increment(in, out,
// inc, size) into a p2p buffer, whose map is that card's memory; device 1 (no xclbin
// loaded) wraps the same map in a user-pointer buffer and syncs it into its own memory,
// many times, timed. Both cards report whether they are nodma ones, and the kernel's
// output is checked in the p2p map, never synced back. Nothing in it knows fpgakern.
//   usage: p2p_fpga2fpga <xclbin>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static const int kSize = 4096;
static const int kIncrement = 10;
static const int kCopies = 1000;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return EXIT_FAILURE;
    }
    auto device1 = xrt::device(0);
    auto uuid = device1.load_xclbin(std::string(argv[1]));
    auto device2 = xrt::device(1);
    int nodma = 0;
    if (device1.get_info<xrt::info::device::nodma>()) ++nodma;
    if (device2.get_info<xrt::info::device::nodma>()) ++nodma;
    if (nodma == 2) {
        std::cout << "two nodma devices: no P2P transfer\n";
        return 0;
    }
    const size_t bytes = sizeof(int) * kSize;
    auto krnl = xrt::kernel(device1, uuid, "increment");
    auto in1 = xrt::bo(device1, bytes, krnl.group_id(0));
    auto out1 = xrt::bo(device1, bytes, xrt::bo::flags::p2p, krnl.group_id(1));
    auto in1_map = in1.map<int*>();
    auto out1_map = out1.map<int*>();
    auto in2 = xrt::bo(device2, out1_map, bytes, 0);
    int reference[kSize];
    for (int i = 0; i < kSize; ++i) {
        in1_map[i] = 5 * i - 3000;
        reference[i] = in1_map[i] + kIncrement;
    }
    in1.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    auto run = krnl(in1, out1, kIncrement, kSize);
    run.wait();
    auto started = std::chrono::high_resolution_clock::now();
    for (int i = 0; i < kCopies; ++i) in2.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    std::chrono::duration<double> seconds = std::chrono::high_resolution_clock::now() - started;
    std::cout << "Throughput " << std::setprecision(2) << std::fixed
              << kCopies * bytes / seconds.count() / (1024.0 * 1024 * 1024) << " GB/s\n";
    // Device 1's copy, read back through its own buffer, is the kernel's output too.
    auto check = xrt::bo(device2, bytes, 0);
    check.copy(in2);
    check.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    if (std::memcmp(out1_map, reference, bytes) != 0 ||
        std::memcmp(check.map<int*>(), reference, bytes) != 0)
        throw std::runtime_error("Value read back does not match reference");
    std::cout << "TEST PASSED\n";
    return 0;
}
