// A host in the shape of the XRT native-API hello-world programs: nothing in it knows
// fpgakern. It asks for the kernel "vadd" by name, as real XRT matches it.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static const int DATA_SIZE = 4096;

int main(int argc, char** argv) {
    if (argc != 3 || std::string(argv[1]) != "-x") {
        std::cerr << "usage: " << argv[0] << " -x <xclbin>\n";
        return EXIT_FAILURE;
    }
    auto device = xrt::device(0);
    auto uuid = device.load_xclbin(argv[2]);
    auto krnl = xrt::kernel(device, uuid, "vadd");

    const size_t bytes = sizeof(int) * DATA_SIZE;
    auto bo0 = xrt::bo(device, bytes, krnl.group_id(0));
    auto bo1 = xrt::bo(device, bytes, krnl.group_id(1));
    auto bo_out = xrt::bo(device, bytes, krnl.group_id(2));
    auto* in1 = bo0.map<int*>();
    auto* in2 = bo1.map<int*>();
    auto* out = bo_out.map<int*>();
    std::vector<int> expected(DATA_SIZE);
    for (int i = 0; i < DATA_SIZE; ++i) {
        in1[i] = i;
        in2[i] = 3 * i - 7;
        out[i] = 0;
        expected[i] = in1[i] + in2[i];
    }
    bo0.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    bo1.sync(XCL_BO_SYNC_BO_TO_DEVICE);

    auto run = krnl(bo0, bo1, bo_out, DATA_SIZE);
    run.wait();

    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    for (int i = 0; i < DATA_SIZE; ++i) {
        if (out[i] != expected[i]) {
            std::cerr << "mismatch at " << i << ": " << out[i] << " != " << expected[i] << "\n";
            return EXIT_FAILURE;
        }
    }
    std::cout << "TEST PASSED\n";
    return EXIT_SUCCESS;
}
