// fpgakern XRT emulation: xrt::device, the subset of XRT's xrt/xrt_device.h the generated
// host code uses (open by index, load an .xclbin). Source-compatible with XRT's header.
//
// The device is emulated: XCL_EMULATION_MODE=sw_emu runs each kernel's HLS C++ model,
// hw_emu its Verilator RTL model (fpgakern/runtime/emu/include/fkemu_model.h). The models
// for the loaded xclbin's kernels are listed in an emulation config (fpgakern_emu.cfg,
// written by `python -m fpgakern.runtime.emu prepare`), found through
// $FPGAKERN_EMU_CONFIG, beside the .xclbin, or in the working directory.
#ifndef FPGAKERN_EMU_XRT_DEVICE_H_
#define FPGAKERN_EMU_XRT_DEVICE_H_

#include <memory>
#include <string>

#include "xrt/xrt_uuid.h"

namespace xrt {

class device_impl;

class device {
  public:
    device() = default;
    explicit device(unsigned int index);

    // Loads the .xclbin (its kernels, compute units and memory connectivity) and returns
    // its uuid. Throws std::runtime_error when the file or its emulation models are missing.
    uuid load_xclbin(const std::string& xclbin_file);
    uuid get_xclbin_uuid() const;

    explicit operator bool() const { return handle_ != nullptr; }
    const std::shared_ptr<device_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<device_impl> handle_;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_DEVICE_H_
