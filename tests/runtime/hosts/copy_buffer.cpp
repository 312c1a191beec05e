// Copy one buffer into another on the device (xrt::bo::copy), then add them with a kernel
// whose output is its first argument: vector_add(c, a, b, n), the shape of AMD's
// copy_buffer host. Nothing in it knows fpgakern.
//   usage: copy_buffer <xclbin>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>

#include "experimental/xrt_bo.h"
#include "experimental/xrt_device.h"
#include "experimental/xrt_kernel.h"

static const int kElements = 1024;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return EXIT_FAILURE;
    }
    auto device = xrt::device(0);
    auto uuid = device.load_xclbin(std::string(argv[1]));
    auto krnl = xrt::kernel(device, uuid, "vector_add");

    const size_t bytes = sizeof(int) * kElements;
    auto bo_a = xrt::bo(device, bytes, krnl.group_id(1));
    auto bo_b = xrt::bo(device, bytes, krnl.group_id(2));
    auto bo_c = xrt::bo(device, bytes, krnl.group_id(0));
    auto a = bo_a.map<int*>();
    auto b = bo_b.map<int*>();
    auto c = bo_c.map<int*>();
    std::fill(b, b + kElements, 0);
    std::fill(c, c + kElements, 0);
    int expected[kElements];
    for (int i = 0; i < kElements; ++i) {
        a[i] = 5 * i - 300;
        expected[i] = 2 * a[i];
    }
    bo_a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    bo_b.copy(bo_a);  // device to device: b's host copy stays zero
    auto run = krnl(bo_c, bo_a, bo_b, kElements);
    run.wait();
    bo_c.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    if (std::memcmp(c, expected, bytes) != 0)
        throw std::runtime_error("Value read back does not match reference");
    std::cout << "TEST PASSED\n";
    return 0;
}
