// fpgakern XRT emulation: newer XRT releases install experimental/xrt_queue.h here as well; the same
// declarations.
#ifndef FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_QUEUE_H_
#define FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_QUEUE_H_
#include "../../experimental/xrt_queue.h"
#endif  // FPGAKERN_EMU_XRT_EXPERIMENTAL_XRT_QUEUE_H_
