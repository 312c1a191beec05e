// HBM banks by number, the shape of AMD's hbm_simple host: the helper takes an
// xrtDeviceHandle (an xrt::device converts to one) and allocates each buffer in a memory
// bank given as a plain int (the bank's index in the xclbin's memory topology, which
// xrt::memory_group is), first all three in bank 0, then in banks 1, 2 and 3; the
// link connects every argument of krnl_vadd to HBM[0:3]. The timing is printed, as
// the example prints its throughput. Nothing in it knows fpgakern.
//   usage: hbm_simple <xclbin>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static double run_krnl(xrtDeviceHandle device, xrt::kernel& krnl, const int* bank_assign,
                       unsigned int size) {
    const size_t bytes = sizeof(uint32_t) * size;
    auto bo0 = xrt::bo(device, bytes, bank_assign[0]);
    auto bo1 = xrt::bo(device, bytes, bank_assign[1]);
    auto bo_out = xrt::bo(device, bytes, bank_assign[2]);
    auto bo0_map = bo0.map<int*>();
    auto bo1_map = bo1.map<int*>();
    auto bo_out_map = bo_out.map<int*>();
    std::fill(bo0_map, bo0_map + size, 0);
    std::fill(bo1_map, bo1_map + size, 0);
    std::fill(bo_out_map, bo_out_map + size, 0);
    std::vector<int> reference(size);
    for (unsigned int i = 0; i < size; ++i) {
        bo0_map[i] = static_cast<int>(i);
        bo1_map[i] = static_cast<int>(i * 7 % 1000) - 500;
        reference[i] = bo0_map[i] + bo1_map[i];
    }
    bo0.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    bo1.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    auto started = std::chrono::high_resolution_clock::now();
    auto run = krnl(bo0, bo1, bo_out, size);
    run.wait();
    std::chrono::duration<double> seconds = std::chrono::high_resolution_clock::now() - started;
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    if (std::memcmp(bo_out_map, reference.data(), bytes) != 0)
        throw std::runtime_error("Value read back does not match reference");
    return seconds.count();
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return EXIT_FAILURE;
    }
    auto device = xrt::device(0);
    auto uuid = device.load_xclbin(std::string(argv[1]));
    auto krnl = xrt::kernel(device, uuid, "krnl_vadd");
    const unsigned int size = 64 * 1024;
    const double gigabytes = 3.0 * size * sizeof(uint32_t) / 1e9;
    const int one_bank[3] = {0, 0, 0};
    std::cout << "[CASE 1] one bank: " << gigabytes / run_krnl(device, krnl, one_bank, size)
              << " GB/s\n";
    const int three_banks[3] = {1, 2, 3};
    std::cout << "[CASE 2] three banks: "
              << gigabytes / run_krnl(device, krnl, three_banks, size) << " GB/s\n";
    std::cout << "TEST PASSED\n";
    return 0;
}
