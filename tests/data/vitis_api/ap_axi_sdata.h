// The part of Vitis HLS's ap_axi_sdata.h that generated code may use: declarations only.
#ifndef FPGAKERN_VITIS_API_AP_AXI_SDATA_H
#define FPGAKERN_VITIS_API_AP_AXI_SDATA_H

#include "ap_int.h"

template <int D, int U, int TI, int TD>
struct ap_axiu {
    ap_uint<D> data;
    ap_uint<(D + 7) / 8> keep;
    ap_uint<(D + 7) / 8> strb;
    ap_uint<1> last;
};

#endif
