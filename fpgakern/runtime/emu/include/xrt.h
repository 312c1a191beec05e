// fpgakern XRT emulation: the C typedefs of XRT's top-level xrt.h (xrt/deprecated/xrt.h in
// newer releases) that the native C++ headers expose: xclDeviceHandle, xclBufferHandle,
// xclBufferExportHandle, and xclBOSyncDirection (xrt/detail/xrt_mem.h). The xcl* C
// functions themselves are not emulated (docs/runtime.md, "The XRT native API").
#ifndef FPGAKERN_EMU_XRT_H_
#define FPGAKERN_EMU_XRT_H_

#include <stddef.h>
#include <stdint.h>

// Linux definitions of XRT's xrt.h.
typedef void* xclDeviceHandle;
#define XRT_NULL_HANDLE NULL
typedef unsigned int xclBufferHandle;
#define NULLBO 0xffffffff
#define XRT_NULL_BO NULLBO
typedef int32_t xclBufferExportHandle;
#define NULLBOEXPORT -1
#define XRT_NULL_BO_EXPORT NULLBOEXPORT

#ifndef FPGAKERN_EMU_XCL_BO_SYNC_DIRECTION
#define FPGAKERN_EMU_XCL_BO_SYNC_DIRECTION
// XRT's values (xrt/detail/xrt_mem.h).
enum xclBOSyncDirection {
    XCL_BO_SYNC_BO_TO_DEVICE = 0,
    XCL_BO_SYNC_BO_FROM_DEVICE,
    XCL_BO_SYNC_BO_GMIO_TO_AIE,
    XCL_BO_SYNC_BO_AIE_TO_GMIO,
};
#endif

// Buffer flags (xrt/detail/xrt_mem.h): bits 0-15 the memory bank index, 24-31 the flags.
#define XRT_BO_FLAGS_MEMIDX_MASK (0xFFFFFFUL)
#define XCL_BO_FLAGS_NONE (0)
#define XCL_BO_FLAGS_CACHEABLE (1U << 24)
#define XCL_BO_FLAGS_KERNBUF (1U << 25)
#define XCL_BO_FLAGS_SGL (1U << 26)
#define XCL_BO_FLAGS_SVM (1U << 27)
#define XCL_BO_FLAGS_DEV_ONLY (1U << 28)
#define XCL_BO_FLAGS_HOST_ONLY (1U << 29)
#define XCL_BO_FLAGS_P2P (1U << 30)
#define XCL_BO_FLAGS_EXECBUF (1U << 31)
#define XRT_BO_FLAGS_NONE XCL_BO_FLAGS_NONE
#define XRT_BO_FLAGS_CACHEABLE XCL_BO_FLAGS_CACHEABLE
#define XRT_BO_FLAGS_DEV_ONLY XCL_BO_FLAGS_DEV_ONLY
#define XRT_BO_FLAGS_HOST_ONLY XCL_BO_FLAGS_HOST_ONLY
#define XRT_BO_FLAGS_P2P XCL_BO_FLAGS_P2P
#define XRT_BO_FLAGS_SVM XCL_BO_FLAGS_SVM

#endif  // FPGAKERN_EMU_XRT_H_
