// XRT's memory rules, probed one at a time (fpgakern's tests of its XRT emulation):
//   memory_rules <xclbin> groups              group_id of each argument, per kernel object
//   memory_rules <xclbin> banks A B OUT CU    a run with buffers in banks A, B, OUT on the
//                                             kernel object of CU ("" = every CU)
//   memory_rules <xclbin> timeout N           wait(1 ms) on a run of N elements, then wait()
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "experimental/xrt_xclbin.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    const std::string what = argv[2];
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);
    auto all = xrt::kernel(device, uuid, "vadd");

    if (what == "groups") {
        std::cout << "vadd " << all.group_id(0) << " " << all.group_id(1) << " "
                  << all.group_id(2) << "\n";
        for (const auto& cu : xrt::xclbin(argv[1]).get_kernel("vadd").get_cus()) {
            const std::string name = cu.get_name().substr(cu.get_name().find(':') + 1);
            auto one = xrt::kernel(device, uuid, "vadd:{" + name + "}");
            std::cout << name << " " << one.group_id(0) << " " << one.group_id(1) << " "
                      << one.group_id(2) << "\n";
        }
        return 0;
    }
    if (what == "banks" && argc >= 7) {
        const std::string cu = argv[6];
        auto krnl = cu.empty() ? all : xrt::kernel(device, uuid, "vadd:{" + cu + "}");
        const int n = 256;
        const size_t bytes = sizeof(int32_t) * n;
        xrt::bo a(device, bytes, static_cast<xrt::memory_group>(std::atoi(argv[3])));
        xrt::bo b(device, bytes, static_cast<xrt::memory_group>(std::atoi(argv[4])));
        xrt::bo out(device, bytes, static_cast<xrt::memory_group>(std::atoi(argv[5])));
        std::vector<int32_t> ha(n, 5), hb(n, 7), hout(n, -1);
        a.write(ha.data());
        b.write(hb.data());
        out.write(hout.data());
        a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
        b.sync(XCL_BO_SYNC_BO_TO_DEVICE);
        out.sync(XCL_BO_SYNC_BO_TO_DEVICE);
        auto run = krnl(a, b, out, n);
        const auto state = run.wait();
        out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
        out.read(hout.data());
        std::cout << "state " << state << " out " << hout[0] << "\n";
        return 0;
    }
    if (what == "timeout" && argc >= 4) {
        const int n = std::atoi(argv[3]);
        const size_t bytes = sizeof(int32_t) * static_cast<size_t>(n);
        xrt::bo a(device, bytes, all.group_id(0)), b(device, bytes, all.group_id(1)),
            out(device, bytes, all.group_id(2));
        auto run = all(a, b, out, n);
        const auto first = run.wait(std::chrono::milliseconds(1));
        const auto now = run.state();
        const auto last = run.wait();
        std::cout << "wait(1ms) " << first << " state " << now << " wait() " << last << "\n";
        return 0;
    }
    return 2;
}
