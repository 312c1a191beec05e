// Hello world: add two vectors on the device, the way a plain XRT native-API host does.
// Nothing in it knows fpgakern: it asks for the kernel "vadd" (in1, in2, out, size) by
// name, as real XRT matches it.
//   usage: hello_vadd <xclbin>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static constexpr int kSize = 4096;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    const std::string binary_file = argv[1];

    std::cout << "Open the device\n";
    xrt::device device(0);
    std::cout << "Load the xclbin " << binary_file << "\n";
    auto uuid = device.load_xclbin(binary_file);
    auto krnl = xrt::kernel(device, uuid, "vadd");

    const size_t bytes = sizeof(int32_t) * kSize;
    std::cout << "Allocate buffers in global memory\n";
    auto bo_in1 = xrt::bo(device, bytes, krnl.group_id(0));
    auto bo_in2 = xrt::bo(device, bytes, krnl.group_id(1));
    auto bo_out = xrt::bo(device, bytes, krnl.group_id(2));

    auto in1 = bo_in1.map<int32_t*>();
    auto in2 = bo_in2.map<int32_t*>();
    auto out = bo_out.map<int32_t*>();
    int32_t expected[kSize];
    for (int i = 0; i < kSize; ++i) {
        in1[i] = i;
        in2[i] = 3 * i - 7;
        expected[i] = in1[i] + in2[i];
    }
    std::memset(out, 0, bytes);

    std::cout << "Synchronize input buffers to device global memory\n";
    bo_in1.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    bo_in2.sync(XCL_BO_SYNC_BO_TO_DEVICE);

    std::cout << "Execution of the kernel\n";
    auto run = krnl(bo_in1, bo_in2, bo_out, kSize);
    run.wait();

    std::cout << "Get the output data from the device\n";
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);

    if (std::memcmp(out, expected, bytes) != 0) {
        std::cout << "TEST FAILED\n";
        return 1;
    }
    std::cout << "TEST PASSED\n";
    return 0;
}
