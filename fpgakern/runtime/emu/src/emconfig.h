// fpgakern's XRT emulation library: emconfig.json, the emulation config Vitis users
// have (internal.h lists the library's files).
#ifndef FPGAKERN_EMU_SRC_EMCONFIG_H_
#define FPGAKERN_EMU_SRC_EMCONFIG_H_

#include <string>
#include <vector>

namespace fkemu {

// The emulation config Vitis users have: emconfig.json (emconfigutil --platform P
// [--nd N]), found as XRT's emulation driver finds it: in $EMCONFIG_PATH, else beside the
// executable. It names the platform and how many devices to emulate:
// {"Version": {"FileVersion": "2.0"}, "Platform": {"Boards": [{"NumBoards"?, "Devices":
// [{"Name": P, "NumDevices"?, ...}]}]}}. Its other fields (DDR banks, feature ROM,
// clock) describe a card's shell, which the xclbin and fpgakern's models replace here.
struct EmConfig {
    bool found = false;
    std::string path;
    std::vector<std::string> devices;  // the platform name of each emulated device
};

// emconfig.json, found and read as XRT's emulation driver does (EmConfig's comment).
EmConfig read_emconfig();

}  // namespace fkemu

#endif  // FPGAKERN_EMU_SRC_EMCONFIG_H_
