// fpgakern XRT emulation: newer XRT releases install xrt.h here as well; the same
// declarations.
#ifndef FPGAKERN_EMU_XRT_DEPRECATED_XRT_H_
#define FPGAKERN_EMU_XRT_DEPRECATED_XRT_H_
#include "../../xrt.h"
#endif  // FPGAKERN_EMU_XRT_DEPRECATED_XRT_H_
