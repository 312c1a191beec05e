// ap_axi_sdata.h stand-in for C simulation with a stock g++: an AXI4-Stream beat with
// side channels, ap_axiu<D, U, TI, TD>, with the fields of the Vitis header (TDATA,
// TKEEP, TSTRB, TUSER, TLAST, TID, TDEST), no more. A side channel of width 0 is held in
// one bit here; generated code never uses TUSER, TID or TDEST.
#ifndef FPGAKERN_CSIM_AP_AXI_SDATA_H
#define FPGAKERN_CSIM_AP_AXI_SDATA_H

#include "ap_int.h"

template <int D, int U, int TI, int TD>
struct ap_axiu {
    ap_uint<D> data;
    ap_uint<(D + 7) / 8> keep;
    ap_uint<(D + 7) / 8> strb;
    ap_uint<(U > 0 ? U : 1)> user;
    ap_uint<1> last;
    ap_uint<(TI > 0 ? TI : 1)> id;
    ap_uint<(TD > 0 ? TD : 1)> dest;
};

#endif  // FPGAKERN_CSIM_AP_AXI_SDATA_H
