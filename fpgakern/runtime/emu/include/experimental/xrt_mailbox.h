// fpgakern XRT emulation: experimental/xrt_mailbox.h, where older XRT releases install
// xrt/experimental/xrt_mailbox.h (hosts written for them include it by this name).
#ifndef FPGAKERN_EMU_EXPERIMENTAL_XRT_MAILBOX_H_
#define FPGAKERN_EMU_EXPERIMENTAL_XRT_MAILBOX_H_

#include "xrt/experimental/xrt_mailbox.h"

#endif  // FPGAKERN_EMU_EXPERIMENTAL_XRT_MAILBOX_H_
