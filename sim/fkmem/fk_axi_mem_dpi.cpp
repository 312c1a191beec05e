// DPI glue between sim/hdl/fk_axi_mem.sv and the C++ model: one call per port per clock
// edge while the port has work. Argument types follow the DPI mapping of the SV imports
// (bit -> svBit, longint -> long long, bit [511:0] -> svBitVecVal[16]).
#include <svdpi.h>

#include "fk_axi_mem.h"

extern "C" {

void* fk_axi_port_new(const char* name, int data_bytes) {
    return fk::new_port(name, static_cast<unsigned>(data_bytes));
}

void fk_axi_port_tick(void* handle, long long now, svBit rst,
                      svBit arvalid, long long araddr, int arlen, int arsize, int arburst,
                      svBit rready,
                      svBit awvalid, long long awaddr, int awlen, int awsize, int awburst,
                      svBit wvalid, const svBitVecVal* wdata, long long wstrb, svBit wlast,
                      svBit bready,
                      svBit* arready, svBit* rvalid, svBitVecVal* rdata, svBit* rlast,
                      int* rresp, svBit* awready, svBit* wready, svBit* bvalid, int* bresp,
                      svBit* busy) {
    auto* port = static_cast<fk::AxiSlave*>(handle);
    fk::AxiIn in;
    in.reset = rst;
    in.arvalid = arvalid;
    in.araddr = static_cast<uint64_t>(araddr);
    in.arlen = static_cast<unsigned>(arlen);
    in.arsize = static_cast<unsigned>(arsize);
    in.arburst = static_cast<unsigned>(arburst);
    in.rready = rready;
    in.awvalid = awvalid;
    in.awaddr = static_cast<uint64_t>(awaddr);
    in.awlen = static_cast<unsigned>(awlen);
    in.awsize = static_cast<unsigned>(awsize);
    in.awburst = static_cast<unsigned>(awburst);
    in.wvalid = wvalid;
    in.wdata = wdata;
    in.wstrb = static_cast<uint64_t>(wstrb);
    in.wlast = wlast;
    in.bready = bready;
    const fk::AxiOut& out = port->tick(static_cast<uint64_t>(now), in);
    *arready = out.arready;
    *rvalid = out.rvalid;
    for (int i = 0; i < 16; ++i) rdata[i] = out.rdata[i];
    *rlast = out.rlast;
    *rresp = static_cast<int>(out.rresp);
    *awready = out.awready;
    *wready = out.wready;
    *bvalid = out.bvalid;
    *bresp = static_cast<int>(out.bresp);
    *busy = port->busy();
}

}  // extern "C"
