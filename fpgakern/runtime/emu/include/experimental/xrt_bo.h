// fpgakern XRT emulation: experimental/xrt_bo.h, the older path XRT still installs for
// xrt/xrt_bo.h (AMD's Vitis_Accel_Examples hosts include it by this name).
#ifndef FPGAKERN_EMU_EXPERIMENTAL_XRT_BO_H_
#define FPGAKERN_EMU_EXPERIMENTAL_XRT_BO_H_

#include "xrt/xrt_bo.h"

#endif  // FPGAKERN_EMU_EXPERIMENTAL_XRT_BO_H_
