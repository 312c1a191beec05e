// fpgakern XRT emulation: experimental/xrt_kernel.h, the older path XRT still installs for
// xrt/xrt_kernel.h (AMD's Vitis_Accel_Examples hosts include it by this name).
#ifndef FPGAKERN_EMU_EXPERIMENTAL_XRT_KERNEL_H_
#define FPGAKERN_EMU_EXPERIMENTAL_XRT_KERNEL_H_

#include "xrt/xrt_kernel.h"

#endif  // FPGAKERN_EMU_EXPERIMENTAL_XRT_KERNEL_H_
