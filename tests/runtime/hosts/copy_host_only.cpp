// Buffer copies and host-only buffers: inputs the kernel reads from host memory
// (host_only), an output that lives on the device alone (device_only) copied into a
// normal buffer with bo.copy, writes and reads at offsets, and sub-buffers.
//   usage: copy_host_only <xclbin>
#include <cstdint>
#include <iostream>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

static constexpr int kSize = 2048;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);
    auto krnl = xrt::kernel(device, uuid, "vadd");
    const size_t bytes = sizeof(int32_t) * kSize;
    bool ok = true;

    // Host-only inputs: no sync needed, the kernel reads them where they are.
    auto host_a = xrt::bo(device, bytes, xrt::bo::flags::host_only, krnl.group_id(0));
    auto host_b = xrt::bo(device, bytes, xrt::bo::flags::host_only, krnl.group_id(1));
    auto dev_out = xrt::bo(device, bytes, xrt::bo::flags::device_only, krnl.group_id(2));
    auto result = xrt::bo(device, bytes, xrt::bo::flags::normal, krnl.group_id(2));
    auto a = host_a.map<int32_t*>();
    auto b = host_b.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) {
        a[i] = i;
        b[i] = 100 - i;
    }
    auto run = krnl(host_a, host_b, dev_out, kSize);
    run.wait();
    result.copy(dev_out);  // device to device
    result.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    auto r = result.map<int32_t*>();
    for (int i = 0; i < kSize; ++i) ok = ok && r[i] == 100;
    std::cout << "host_only/device_only/copy " << (ok ? "ok" : "wrong") << "\n";

    // write/read at offsets, and a partial copy between buffers.
    auto in = xrt::bo(device, bytes, krnl.group_id(0));
    std::vector<int32_t> ones(kSize / 2, 1), twos(kSize / 2, 2);
    in.write(ones.data(), bytes / 2, 0);
    in.write(twos.data(), bytes / 2, bytes / 2);
    in.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    auto copied = xrt::bo(device, bytes, krnl.group_id(1));
    copied.copy(in, bytes / 2, bytes / 2, 0);  // the twos to the front
    copied.copy(in, bytes / 2, 0, bytes / 2);  // the ones to the back
    copied.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    std::vector<int32_t> back(kSize / 2);
    copied.read(back.data(), bytes / 2, bytes / 2);
    bool offsets = back[0] == 1 && back[kSize / 2 - 1] == 1;
    copied.read(back.data(), bytes / 2, 0);
    offsets = offsets && back[0] == 2 && back[kSize / 2 - 1] == 2;
    std::cout << "offsets " << (offsets ? "ok" : "wrong") << "\n";
    ok = ok && offsets;

    // Sub-buffers: the kernel on each half of the same buffers.
    auto out = xrt::bo(device, bytes, krnl.group_id(2));
    const size_t half = bytes / 2;
    for (size_t part = 0; part < 2; ++part) {
        xrt::bo sub_a(in, half, part * half), sub_b(copied, half, (1 - part) * half),
            sub_out(out, half, part * half);
        auto r2 = krnl(sub_a, sub_b, sub_out, kSize / 2);
        r2.wait();
        ok = ok && sub_out.size() == half && sub_out.address() == out.address() + part * half;
    }
    out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    auto o = out.map<int32_t*>();
    // in: ones then twos; copied: twos then ones, its halves taken the other way round.
    const bool subs = o[0] == 1 + 1 && o[kSize - 1] == 2 + 2;
    std::cout << "sub-buffers " << (subs ? "ok" : "wrong") << "\n";
    ok = ok && subs;
    std::cout << (ok ? "TEST PASSED" : "TEST FAILED") << "\n";
    return ok ? 0 : 1;
}
