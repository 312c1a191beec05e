// Ordering work with xrt::queue: one queue moves the inputs to the device, a second waits
// for that, runs the kernel and brings the output back; the host waits on the futures.
//   usage: queue_pipeline <xclbin>
#include <cstdint>
#include <iostream>

#include "experimental/xrt_queue.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static constexpr int kSize = 4096;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);
    auto krnl = xrt::kernel(device, uuid, "vadd");
    const size_t bytes = sizeof(int32_t) * kSize;
    auto bo_a = xrt::bo(device, bytes, krnl.group_id(0));
    auto bo_b = xrt::bo(device, bytes, krnl.group_id(1));
    auto bo_out = xrt::bo(device, bytes, krnl.group_id(2));
    auto a = bo_a.map<int32_t*>();
    auto b = bo_b.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) {
        a[i] = i;
        b[i] = -2 * i;
    }

    xrt::queue transfers, compute;
    auto inputs = transfers.enqueue([&] {
        bo_a.sync(XCL_BO_SYNC_BO_TO_DEVICE);
        bo_b.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    });
    compute.enqueue(inputs);  // compute waits for the inputs
    auto state = compute.enqueue([&] {
        auto run = krnl(bo_a, bo_b, bo_out, kSize);
        return run.wait();
    });
    xrt::queue::event output = compute.enqueue([&] { bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE); });
    output.wait();

    bool ok = state.get() == ERT_CMD_STATE_COMPLETED;
    auto out = bo_out.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) ok = ok && out[i] == -i;
    std::cout << (ok ? "TEST PASSED" : "TEST FAILED") << "\n";
    return ok ? 0 : 1;
}
