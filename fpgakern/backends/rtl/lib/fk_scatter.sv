// fk_scatter: AXI4 write engine for single 32-bit elements at any element address.
//
// Each request is one single-beat write (AWLEN 0) of the DATA_W-bit word holding the
// element, only its 32-bit lane strobed. AW and W of a request go out together; the next
// request may come in the cycle both are taken (one write a cycle when the memory takes
// them at once). At most OUTSTANDING write responses are awaited;
// `idle` is high when every write has its response (the kernel's done waits for it).
module fk_scatter #(
    parameter int DATA_W      = 32,
    parameter int OUTSTANDING = 64
) (
    input  logic                clk,
    input  logic                rst_n,

    input  logic                req_valid,
    output logic                req_ready,
    input  logic [63:0]         req_addr,   // byte address of a 32-bit element
    input  logic [31:0]         req_data,
    output logic                idle,

    output logic                awvalid,
    input  logic                awready,
    output logic [63:0]         awaddr,
    output logic [7:0]          awlen,
    output logic [2:0]          awsize,
    output logic [1:0]          awburst,
    output logic                wvalid,
    input  logic                wready,
    output logic [DATA_W-1:0]   wdata,
    output logic [DATA_W/8-1:0] wstrb,
    output logic                wlast,
    input  logic                bvalid,
    output logic                bready,
    input  logic [1:0]          bresp
);
    localparam int BEAT_BYTES = DATA_W / 8;
    localparam int SIZE       = $clog2(BEAT_BYTES);
    localparam int LANES      = DATA_W / 32;
    localparam int COUNT_W    = $clog2(OUTSTANDING + 1);
    localparam logic [COUNT_W-1:0] FULL = COUNT_W'(OUTSTANDING);

    logic [COUNT_W-1:0] awaiting;  // writes without their response yet
    logic               issue, respond;
    logic [DATA_W/8-1:0] strobe;   // the element's four bytes in its beat

    if (LANES > 1) begin : g_wide
        logic [DATA_W/8-1:0] lane0;
        assign lane0  = {{(DATA_W/8 - 4){1'b0}}, 4'hF};
        assign strobe = lane0 << {req_addr[SIZE-1:2], 2'b00};
    end else begin : g_narrow
        assign strobe = 4'hF;
    end

    assign req_ready = (!awvalid || awready) && (!wvalid || wready) && awaiting < FULL;
    assign issue     = req_valid && req_ready;
    assign respond   = bvalid && bready;
    assign bready    = 1'b1;
    assign awlen     = 8'd0;
    assign awsize    = SIZE[2:0];
    assign awburst   = 2'b01;
    assign wlast     = 1'b1;
    assign idle      = awaiting == '0 && !awvalid && !wvalid;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            awvalid  <= 1'b0;
            wvalid   <= 1'b0;
            awaddr   <= '0;
            wdata    <= '0;
            wstrb    <= '0;
            awaiting <= '0;
        end else begin
            if (awvalid && awready) awvalid <= 1'b0;
            if (wvalid && wready) wvalid <= 1'b0;
            if (issue) begin
                awvalid <= 1'b1;
                wvalid  <= 1'b1;
                awaddr  <= {req_addr[63:SIZE], {SIZE{1'b0}}};
                wdata   <= {LANES{req_data}};  // the strobe picks the element's lane
                wstrb   <= strobe;
            end
            awaiting <= awaiting + COUNT_W'(issue) - COUNT_W'(respond);
        end
    end

    // Write responses are not checked, as in HLS-generated masters.
    // An element's address is 4-aligned: its two low bits are 0.
    logic unused_b;
    assign unused_b = &{1'b0, bresp, req_addr[1:0]};
endmodule
