// fpgakern XRT emulation: xrt::device, as XRT's xrt/xrt_device.h declares it (signatures
// checked against XRT's; docs/runtime.md "The XRT native API").
//
// The device is emulated: XCL_EMULATION_MODE=sw_emu runs each kernel's HLS C++ model,
// hw_emu its Verilator RTL model (fpgakern/runtime/emu/include/fkemu_model.h). The models
// for the loaded xclbin's kernels are listed in an emulation config (fpgakern_emu.cfg,
// written by `python -m fpgakern.runtime.emu prepare`), found through
// $FPGAKERN_EMU_CONFIG, beside the .xclbin, or in the working directory. A Vitis
// emconfig.json (from emconfigutil, found through $EMCONFIG_PATH or beside the executable)
// gives the number of devices and their platform name.
#ifndef FPGAKERN_EMU_XRT_DEVICE_H_
#define FPGAKERN_EMU_XRT_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "experimental/xrt_xclbin.h"
#include "xrt.h"
#include "xrt/xrt_uuid.h"

typedef void* xrtDeviceHandle;

namespace xrt {

namespace info {

// The return type of each xrt::device::get_info key (xrt/detail/param_traits.h).
template <typename T, T param>
struct param_traits;

#define FPGAKERN_EMU_INFO_PARAM_TRAITS(param, ret)        \
    template <>                                            \
    struct param_traits<decltype(param), param> {          \
        using return_type = ret;                           \
    }

enum class device : unsigned int {
    bdf,
    interface_uuid,
    kdma,
    max_clock_frequency_mhz,
    m2m,
    name,
    nodma,
    offline,
    electrical,
    thermal,
    mechanical,
    memory,
    platform,
    pcie_info,
    host,
    aie,
    aie_shim,
    dynamic_regions,
    vmr,
    aie_mem,
};

FPGAKERN_EMU_INFO_PARAM_TRAITS(device::bdf, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::interface_uuid, xrt::uuid);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::kdma, std::uint32_t);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::max_clock_frequency_mhz, unsigned long);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::m2m, bool);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::name, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::nodma, bool);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::offline, bool);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::electrical, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::thermal, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::mechanical, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::memory, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::platform, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::pcie_info, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::host, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::aie, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::aie_shim, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::dynamic_regions, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::vmr, std::string);
FPGAKERN_EMU_INFO_PARAM_TRAITS(device::aie_mem, std::string);

#undef FPGAKERN_EMU_INFO_PARAM_TRAITS

}  // namespace info

class device_impl;

class device {
  public:
    device() = default;
    explicit device(unsigned int didx);

    // Loads the .xclbin (its kernels, compute units and memory connectivity) and returns
    // its uuid. Throws std::runtime_error when the file or its emulation models are
    // missing, or when it was built for another target than XCL_EMULATION_MODE.
    uuid load_xclbin(const std::string& xclbin_fnm);
    uuid load_xclbin(const xrt::xclbin& xclbin);
    uuid get_xclbin_uuid() const;

    // The value of `param` (docs/runtime.md lists what the emulation answers; the JSON
    // keys a card reports from its sensors answer an empty JSON object here).
    template <info::device param>
    typename info::param_traits<info::device, param>::return_type get_info() const {
        typename info::param_traits<info::device, param>::return_type value{};
        query(param, &value);
        return value;
    }

    explicit operator bool() const { return handle_ != nullptr; }
    bool operator==(const device& rhs) const { return handle_ == rhs.handle_; }
    // Implicit, as XRT's: a host passes an xrt::device where an xclDeviceHandle (or an
    // xrtDeviceHandle, the same void*) is expected, e.g. to xrt::bo's handle constructors.
    operator xclDeviceHandle() const;  // NOLINT: implicit, as XRT
    const std::shared_ptr<device_impl>& get_handle() const { return handle_; }

  private:
    std::shared_ptr<device_impl> handle_;

    void query(info::device param, std::string* out) const;
    void query(info::device param, xrt::uuid* out) const;
    void query(info::device param, std::uint32_t* out) const;
    void query(info::device param, unsigned long* out) const;
    void query(info::device param, bool* out) const;
};

}  // namespace xrt

#endif  // FPGAKERN_EMU_XRT_DEVICE_H_
