// Printing helpers of the device-info host (a second source file).
#ifndef HOSTS_REPORT_H_
#define HOSTS_REPORT_H_

#include <string>

#include "experimental/xrt_xclbin.h"
#include "xrt/xrt_device.h"

void report_device(const xrt::device& device);
void report_xclbin(const xrt::xclbin& xclbin);

#endif  // HOSTS_REPORT_H_
