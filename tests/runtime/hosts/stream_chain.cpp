// A kernel-to-kernel stream chain, the way an XRT native-API host drives one: a
// memory-read kernel (mm2s: mem, out, n) streams n floats into a free-running kernel
// (square_plus: y = x * x + 1), whose stream a memory-write kernel (s2mm: data, mem, n)
// stores. The link's stream_connect lines join them; the host never touches a stream:
// it starts the two data movers with their buffers and sizes and waits for them.
// Nothing in it knows fpgakern. The free-running kernel is not opened: it has no control
// port, and XRT's xrt::kernel refuses such a kernel (use xrt::ip for one).
//   usage: stream_chain <xclbin> [n ...]     (default: 4096 and 1001 elements)
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace {

// Argument indices, as the kernels declare them.
constexpr int kReadMem = 0, kReadSize = 2;    // mm2s(mem, out, n)
constexpr int kWriteMem = 1, kWriteSize = 2;  // s2mm(data, mem, n)

bool run_chain(xrt::device& device, const xrt::kernel& read, const xrt::kernel& write,
               int n) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(n);
    auto bo_in = xrt::bo(device, bytes, read.group_id(kReadMem));
    auto bo_out = xrt::bo(device, bytes, write.group_id(kWriteMem));

    auto in = bo_in.map<float*>();
    auto out = bo_out.map<float*>();
    std::vector<float> expected(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        in[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
        expected[static_cast<size_t>(i)] = in[i] * in[i] + 1.0f;
    }
    std::memset(out, 0, bytes);
    bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    bo_out.sync(XCL_BO_SYNC_BO_TO_DEVICE);

    // The consumer first, so that it is ready when the data arrives.
    auto write_run = xrt::run(write);
    write_run.set_arg(kWriteMem, bo_out);
    write_run.set_arg(kWriteSize, n);
    write_run.start();

    auto read_run = xrt::run(read);
    read_run.set_arg(kReadMem, bo_in);
    read_run.set_arg(kReadSize, n);
    read_run.start();

    const auto read_state = read_run.wait();
    const auto write_state = write_run.wait();
    if (read_state != ERT_CMD_STATE_COMPLETED || write_state != ERT_CMD_STATE_COMPLETED) {
        std::cout << "n = " << n << ": runs ended in states " << read_state << " and "
                  << write_state << "\n";
        return false;
    }

    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    for (int i = 0; i < n; ++i) {
        if (out[i] != expected[static_cast<size_t>(i)]) {
            std::cout << "n = " << n << ": mismatch at " << i << ": device " << out[i]
                      << ", host " << expected[static_cast<size_t>(i)] << "\n";
            return false;
        }
    }
    std::cout << "n = " << n << ": " << n << " results match\n";
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin> [n ...]\n";
        return 2;
    }
    std::vector<int> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
    if (sizes.empty()) sizes = {4096, 1001};

    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);
    auto read = xrt::kernel(device, uuid, "mm2s");
    auto write = xrt::kernel(device, uuid, "s2mm");

    bool ok = true;
    for (int n : sizes) ok = run_chain(device, read, write, n) && ok;
    std::cout << (ok ? "TEST PASSED" : "TEST FAILED") << "\n";
    return ok ? 0 : 1;
}
