// Kernel to kernel streaming around a free-running kernel, the shape of AMD's
// streaming_free_running_k2k host: mem_read(mem, size, stream) -> increment (ap_ctrl_none,
// never opened by the host) -> mem_write(mem, size, stream). The host starts the memory
// kernels with xrt::run and set_arg by index; the streams are wired at link time.
//   usage: free_running_k2k <xclbin>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "experimental/xrt_bo.h"
#include "experimental/xrt_device.h"
#include "experimental/xrt_kernel.h"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return EXIT_FAILURE;
    }
    auto device = xrt::device(0);
    auto uuid = device.load_xclbin(std::string(argv[1]));

    size_t data_size = 1024 * 1024;
    const size_t bytes = sizeof(int) * data_size;
    if (getenv("XCL_EMULATION_MODE") != nullptr) data_size = 1024;  // as the example does
    std::vector<int> expected(data_size);

    auto mem_read = xrt::kernel(device, uuid, "mem_read");
    auto mem_write = xrt::kernel(device, uuid, "mem_write");
    auto bo_in = xrt::bo(device, bytes, mem_read.group_id(0));
    auto bo_out = xrt::bo(device, bytes, mem_write.group_id(0));
    auto in = bo_in.map<int*>();
    auto out = bo_out.map<int*>();
    for (size_t i = 0; i < data_size; i++) {
        in[i] = static_cast<int>(i) * 7 - 3000;
        expected[i] = in[i] + 1;
    }
    bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);

    int size = static_cast<int>(data_size);
    auto write_run = xrt::run(mem_write);
    write_run.set_arg(0, bo_out);
    write_run.set_arg(1, size);
    write_run.start();
    auto read_run = xrt::run(mem_read);
    read_run.set_arg(0, bo_in);
    read_run.set_arg(1, size);
    read_run.start();
    read_run.wait();
    write_run.wait();
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);

    bool match = std::memcmp(out, expected.data(), sizeof(int) * data_size) == 0;
    std::cout << "TEST " << (match ? "PASSED" : "FAILED") << std::endl;
    return match ? EXIT_SUCCESS : EXIT_FAILURE;
}
