// HBM: each argument of the kernel connects to a range of HBM pseudo-channels (a link's
// sp=vadd_1.in1:HBM[0:3] ...). group_id names the group of the range; a buffer in any
// pseudo-channel of the range is accepted as well.
//   usage: hbm_ranges <xclbin>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static constexpr int kSize = 16 * 1024;

static bool run_once(const xrt::device& device, xrt::kernel& krnl, xrt::memory_group ga,
                     xrt::memory_group gb, xrt::memory_group gout, int32_t seed) {
    const size_t bytes = sizeof(int32_t) * kSize;
    xrt::bo a(device, bytes, ga), b(device, bytes, gb), out(device, bytes, gout);
    std::vector<int32_t> ha(kSize), hb(kSize), hout(kSize);
    for (int i = 0; i < kSize; ++i) {
        ha[i] = i * 3 + seed;
        hb[i] = 5 - i;
    }
    a.write(ha.data());
    b.write(hb.data());
    a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    b.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    auto run = krnl(a, b, out, kSize);
    if (run.wait() != ERT_CMD_STATE_COMPLETED) return false;
    out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    out.read(hout.data());
    for (int i = 0; i < kSize; ++i) {
        if (hout[i] != ha[i] + hb[i]) return false;
    }
    return true;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);
    auto krnl = xrt::kernel(device, uuid, "vadd");
    const int ga = krnl.group_id(0), gb = krnl.group_id(1), gout = krnl.group_id(2);
    std::cout << "group_id " << ga << " " << gb << " " << gout << "\n";

    bool ok = run_once(device, krnl, ga, gb, gout, 2);
    // The first pseudo-channel of each range (a range's group_id is its last bank, or its
    // group when the xclbin has GROUP_TOPOLOGY; either way bank 0 of HBM[0:3] fits).
    ok = run_once(device, krnl, 0, 4, 8, 100) && ok;
    std::cout << (ok ? "TEST PASSED" : "TEST FAILED") << "\n";
    return ok ? 0 : 1;
}
