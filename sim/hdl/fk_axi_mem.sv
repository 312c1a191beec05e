// Simulation-only AXI4 slave memory: a thin shell over the C++ model in sim/fkmem/.
// Every rising edge while the port has work it hands the sampled AXI signals to
// fk_axi_port_tick (DPI) and registers what the model drives next, so the per-cycle
// cost is one C++ call, not a Python coroutine. Latency, backpressure and the AXI
// checks are configured and read at run time through the C API (fk_mem_*).
/* verilator lint_off UNUSEDSIGNAL */
module fk_axi_mem #(
    parameter int    DATA_W = 32,
    parameter string NAME   = "gmem"
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic [63:0]       now,       // cycle count, shared by all ports
    input  logic              arvalid,
    output logic              arready,
    input  logic [63:0]       araddr,
    input  logic [7:0]        arlen,
    input  logic [2:0]        arsize,
    input  logic [1:0]        arburst,
    output logic              rvalid,
    input  logic              rready,
    output logic [DATA_W-1:0] rdata,
    output logic [1:0]        rresp,
    output logic              rlast,
    input  logic              awvalid,
    output logic              awready,
    input  logic [63:0]       awaddr,
    input  logic [7:0]        awlen,
    input  logic [2:0]        awsize,
    input  logic [1:0]        awburst,
    input  logic              wvalid,
    output logic              wready,
    input  logic [DATA_W-1:0] wdata,
    input  logic [DATA_W/8-1:0] wstrb,
    input  logic              wlast,
    output logic              bvalid,
    input  logic              bready,
    output logic [1:0]        bresp
);
    import "DPI-C" function chandle fk_axi_port_new(input string name, input int data_bytes);
    import "DPI-C" function void fk_axi_port_tick(
        input chandle port, input longint now, input bit rst,
        input bit arvalid, input longint araddr, input int arlen, input int arsize,
        input int arburst, input bit rready,
        input bit awvalid, input longint awaddr, input int awlen, input int awsize,
        input int awburst,
        input bit wvalid, input bit [511:0] wdata, input longint wstrb, input bit wlast,
        input bit bready,
        output bit arready, output bit rvalid, output bit [511:0] rdata, output bit rlast,
        output int rresp, output bit awready, output bit wready, output bit bvalid,
        output int bresp, output bit busy);

    chandle port;
    bit busy_q;
    logic [511:0] wdata_wide;
    logic [63:0] wstrb_wide;
    assign wdata_wide = 512'(wdata);
    assign wstrb_wide = 64'(wstrb);

    initial begin
        port = fk_axi_port_new(NAME, DATA_W / 8);
        busy_q = 1'b0;
        arready = 1'b0; rvalid = 1'b0; rdata = '0; rresp = 2'b00; rlast = 1'b0;
        awready = 1'b0; wready = 1'b0; bvalid = 1'b0; bresp = 2'b00;
    end

    always @(posedge clk) begin
        bit o_arready, o_rvalid, o_rlast, o_awready, o_wready, o_bvalid, o_busy;
        bit [511:0] o_rdata;
        int o_rresp, o_bresp;
        // An idle port with no request in sight needs no call: its outputs hold.
        if (!rst_n || busy_q || arvalid || awvalid || wvalid || rvalid || bvalid) begin
            fk_axi_port_tick(port, now, !rst_n,
                arvalid, araddr, 32'(arlen), 32'(arsize), 32'(arburst), rready,
                awvalid, awaddr, 32'(awlen), 32'(awsize), 32'(awburst),
                wvalid, wdata_wide, wstrb_wide, wlast, bready,
                o_arready, o_rvalid, o_rdata, o_rlast, o_rresp,
                o_awready, o_wready, o_bvalid, o_bresp, o_busy);
            arready <= o_arready;
            rvalid  <= o_rvalid;
            rdata   <= o_rdata[DATA_W-1:0];
            rlast   <= o_rlast;
            rresp   <= o_rresp[1:0];
            awready <= o_awready;
            wready  <= o_wready;
            bvalid  <= o_bvalid;
            bresp   <= o_bresp[1:0];
            busy_q  <= o_busy;
        end
    end
endmodule
/* verilator lint_on UNUSEDSIGNAL */
