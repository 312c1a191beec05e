// fpgakern XRT emulation: newer XRT releases install experimental/xrt_xclbin.h here as well; the same
// declarations.
#ifndef FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_XCLBIN_H_
#define FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_XCLBIN_H_
#include "../../experimental/xrt_xclbin.h"
#endif  // FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_XCLBIN_H_
