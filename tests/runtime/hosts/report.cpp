#include "report.h"

#include <iostream>

void report_device(const xrt::device& device) {
    std::cout << "name " << device.get_info<xrt::info::device::name>() << "\n";
    std::cout << "bdf " << device.get_info<xrt::info::device::bdf>() << "\n";
    std::cout << "kdma " << device.get_info<xrt::info::device::kdma>() << "\n";
    std::cout << "m2m " << device.get_info<xrt::info::device::m2m>() << "\n";
    std::cout << "nodma " << device.get_info<xrt::info::device::nodma>() << "\n";
    std::cout << "offline " << device.get_info<xrt::info::device::offline>() << "\n";
    std::cout << "max_clock_frequency_mhz "
              << device.get_info<xrt::info::device::max_clock_frequency_mhz>() << "\n";
    std::cout << "electrical " << device.get_info<xrt::info::device::electrical>() << "\n";
    std::cout << "thermal " << device.get_info<xrt::info::device::thermal>() << "\n";
}

void report_xclbin(const xrt::xclbin& xclbin) {
    std::cout << "xsa " << xclbin.get_xsa_name() << "\n";
    for (const auto& mem : xclbin.get_mems()) {
        if (mem.get_used()) {
            std::cout << "mem " << mem.get_index() << " " << mem.get_tag() << " "
                      << mem.get_size_kb() << "\n";
        }
    }
    for (const auto& kernel : xclbin.get_kernels()) {
        std::cout << "kernel " << kernel.get_name() << " args " << kernel.get_num_args()
                  << " cus " << kernel.get_cus().size() << "\n";
        for (const auto& arg : kernel.get_args()) {
            std::cout << "  arg " << arg.get_index() << " " << arg.get_name() << " "
                      << arg.get_host_type() << " offset 0x" << std::hex << arg.get_offset()
                      << std::dec;
            for (const auto& mem : arg.get_mems()) std::cout << " " << mem.get_tag();
            std::cout << "\n";
        }
        for (const auto& cu : kernel.get_cus()) {
            std::cout << "  cu " << cu.get_name() << " 0x" << std::hex << cu.get_base_address()
                      << std::dec << "\n";
        }
    }
}
