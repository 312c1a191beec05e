// XRT's rules for stream kernels, as a host meets them (each line of output is one rule):
//   - xrt::kernel of a free-running kernel (ap_ctrl_none) throws: it has no control port;
//   - group_id of a stream argument throws (a stream has no memory);
//   - set_arg on a stream argument is ignored (it takes no register), the run still works;
//   - a chain whose data movers disagree on n never finishes: run.wait() reports an error;
//   - xrt::xclbin shows a stream argument's host type and the free-running CU's control.
//   usage: stream_rules <xclbin>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "experimental/xrt_xclbin.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace {

constexpr int kOut = 1;  // mm2s(mem, out, n): the output stream

// What `fn` throws, or "no exception".
template <typename F>
std::string thrown(F fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no exception";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    xrt::device device(0);
    auto uuid = device.load_xclbin(argv[1]);

    std::cout << "open square_plus: "
              << thrown([&] { xrt::kernel(device, uuid, "square_plus"); }) << "\n";

    auto read = xrt::kernel(device, uuid, "mm2s");
    auto write = xrt::kernel(device, uuid, "s2mm");
    std::cout << "group_id of mm2s.out: " << thrown([&] { (void)read.group_id(kOut); })
              << "\n";

    const int n = 64;
    auto bo_in = xrt::bo(device, n * sizeof(float), read.group_id(0));
    auto bo_out = xrt::bo(device, n * sizeof(float), write.group_id(1));
    auto in = bo_in.map<float*>();
    for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i);
    bo_in.sync(XCL_BO_SYNC_BO_TO_DEVICE);

    // Every argument given, streams included, through the variadic call: the streams'
    // values are ignored.
    int ignored = 12345;
    auto write_run = write(ignored, bo_out, n);
    auto read_run = read(bo_in, ignored, n);
    read_run.wait();
    const auto state = write_run.wait();
    bo_out.sync(XCL_BO_SYNC_BO_FROM_DEVICE);
    auto out = bo_out.map<float*>();
    bool ok = state == ERT_CMD_STATE_COMPLETED;
    for (int i = 0; i < n && ok; ++i) ok = out[i] == static_cast<float>(i) * i + 1.0f;
    std::cout << "set_arg on streams ignored: " << (ok ? "yes" : "no") << "\n";

    // s2mm waits for more beats than mm2s sends: the chain stalls.
    auto short_read = xrt::run(read);
    short_read.set_arg(0, bo_in);
    short_read.set_arg(2, n / 2);
    auto long_write = xrt::run(write);
    long_write.set_arg(1, bo_out);
    long_write.set_arg(2, n);
    long_write.start();
    short_read.start();
    short_read.wait();
    const auto stalled = long_write.wait();
    std::cout << "stalled chain: " << (stalled == ERT_CMD_STATE_ERROR ? "error" : "no error")
              << "\n";

    const xrt::xclbin xclbin(argv[1]);
    const auto out_arg = xclbin.get_kernel("mm2s").get_arg(kOut);
    std::cout << "mm2s.out host type: " << out_arg.get_host_type() << "\n";
    const auto free_cu = xclbin.get_ip("square_plus:square_plus_1");
    std::cout << "square_plus_1 control none: "
              << (free_cu.get_control_type() == xrt::xclbin::ip::control_type::none ? "yes"
                                                                                   : "no")
              << ", base " << std::hex << free_cu.get_base_address() << std::dec << "\n";
    return 0;
}
