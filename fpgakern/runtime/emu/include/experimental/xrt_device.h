// fpgakern XRT emulation: experimental/xrt_device.h, the older path XRT still installs for
// xrt/xrt_device.h (AMD's Vitis_Accel_Examples hosts include it by this name).
#ifndef FPGAKERN_EMU_EXPERIMENTAL_XRT_DEVICE_H_
#define FPGAKERN_EMU_EXPERIMENTAL_XRT_DEVICE_H_

#include "xrt/xrt_device.h"

#endif  // FPGAKERN_EMU_EXPERIMENTAL_XRT_DEVICE_H_
