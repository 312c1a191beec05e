// Several compute units of one kernel: one kernel object per CU ("kernel:{cu}"), each
// CU's buffers in the memory its group_id names, all runs in flight together; then one
// kernel object over every CU, whose runs XRT sends to a CU connected to their buffers.
//   usage: multi_cu <xclbin> <number of CUs>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static constexpr int kSize = 1024;

struct Work {
    xrt::bo a, b, out;
};

static Work make_work(const xrt::device& device, const xrt::kernel& krnl, int seed) {
    const size_t bytes = sizeof(int32_t) * kSize;
    Work w{xrt::bo(device, bytes, krnl.group_id(0)), xrt::bo(device, bytes, krnl.group_id(1)),
           xrt::bo(device, bytes, krnl.group_id(2))};
    auto a = w.a.map<int32_t*>();
    auto b = w.b.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) {
        a[i] = seed * 1000 + i;
        b[i] = i % 17 - seed;
    }
    w.a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    w.b.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    return w;
}

static bool check(Work& w, int seed) {
    w.out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    auto out = w.out.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) {
        const int32_t want = seed * 1000 + i + (i % 17 - seed);
        if (out[i] != want) {
            std::cout << "mismatch at " << i << ": " << out[i] << " != " << want << "\n";
            return false;
        }
    }
    return true;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cout << "usage: " << argv[0] << " <xclbin> <number of CUs>\n";
        return 2;
    }
    const int cus = std::atoi(argv[2]);
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);

    // One kernel object per compute unit.
    std::vector<xrt::kernel> krnls;
    std::vector<Work> work;
    for (int i = 0; i < cus; ++i) {
        const std::string name = "vadd:{vadd_" + std::to_string(i + 1) + "}";
        krnls.push_back(xrt::kernel(device, uuid, name));
        work.push_back(make_work(device, krnls.back(), i));
        std::cout << "vadd_" << i + 1 << " group_id " << krnls.back().group_id(0) << " "
                  << krnls.back().group_id(1) << " " << krnls.back().group_id(2) << "\n";
    }
    std::vector<xrt::run> runs;
    for (int i = 0; i < cus; ++i) {
        runs.push_back(krnls[i](work[i].a, work[i].b, work[i].out, kSize));
    }
    bool ok = true;
    for (int i = 0; i < cus; ++i) {
        ok = runs[i].wait() == ERT_CMD_STATE_COMPLETED && ok;
        ok = check(work[i], i) && ok;
    }

    // One kernel object over every CU: each run goes to a CU its buffers fit.
    auto all = xrt::kernel(device, uuid, "vadd");
    std::vector<Work> again;
    for (int i = 0; i < cus; ++i) again.push_back(make_work(device, krnls[i], i + 10));
    std::vector<xrt::run> shared;
    for (int i = 0; i < cus; ++i) {
        xrt::run run(all);
        run.set_arg(0, again[i].a);
        run.set_arg(1, again[i].b);
        run.set_arg(2, again[i].out);
        run.set_arg(3, kSize);
        run.start();
        shared.push_back(run);
    }
    for (int i = 0; i < cus; ++i) {
        ok = shared[i].wait() == ERT_CMD_STATE_COMPLETED && ok;
        ok = check(again[i], i + 10) && ok;
    }
    std::cout << (ok ? "TEST PASSED" : "TEST FAILED") << "\n";
    return ok ? 0 : 1;
}
