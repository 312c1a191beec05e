// Device and xclbin queries: what the device says about itself, and what the xclbin
// holds (kernels, their arguments and the memories they reach, compute units).
//   usage: device_info <xclbin>
#include <iostream>

#include "experimental/xrt_xclbin.h"
#include "report.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin>\n";
        return 2;
    }
    xrt::device device(0);
    auto xclbin = xrt::xclbin(argv[1]);
    report_xclbin(xclbin);
    auto uuid = device.load_xclbin(xclbin);
    std::cout << "loaded " << (uuid == xclbin.get_uuid() ? "same uuid" : "other uuid") << "\n";
    report_device(device);

    // The C handle types the headers declare, as a host mixing the C API would use them.
    xrtDeviceHandle dhdl = nullptr;
    xrtKernelHandle khdl = nullptr;
    xrtRunHandle rhdl = nullptr;
    xrtBufferHandle bhdl = nullptr;
    xclDeviceHandle xdhdl = nullptr;
    xclBufferHandle xbhdl = NULLBO;
    std::cout << "handles " << (dhdl == khdl && rhdl == bhdl && xdhdl == nullptr)
              << (xbhdl == NULLBO) << "\n";
    return 0;
}
