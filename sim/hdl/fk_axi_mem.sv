// fk_axi_mem: simulation-only AXI4 slave memory (fpgakern's fast memory model).
//
// The slave protocol is plain SystemVerilog that Verilator compiles into the model:
// AR/AW requests queue up (at most `max_outstanding` bursts), R beats of a burst start
// `read_latency` cycles after its AR handshake and then flow one per cycle, B follows
// the last W beat of a burst by `write_latency` cycles, and with `stall_permille` set
// every channel withholds its beat at random. Data and checks live in C++
// (sim/fkmem/fk_axi_mem.cpp), reached through DPI once per burst and once per beat; so
// the cost of a cycle is a few compares plus at most one call per data beat, and no
// Python runs per cycle. Latency and backpressure are read from the C++ configuration
// (fk_mem_configure) while reset is asserted.
//
// Bandwidth: a port placed on a bank with a limit (fk_mem_banks, fk_mem_place) asks the
// bank once per cycle whether it may move a beat; R beats are raised and W beats
// accepted only then, and every beat is charged to the bank (sim/fkmem/fk_axi_mem.cpp,
// Bank), so all ports of one bank share its bytes per cycle. Unplaced ports make no call.
//
// Checked here: VALID held with a stable payload until READY (AR, AW, W). Checked in
// C++: burst type, size, alignment, 4 KiB crossing, reads inside a buffer, WLAST on
// the right beat, WSTRB only on bytes of a writable buffer. Violations are printed at
// once and collected for the testbench.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off BLKSEQ */
module fk_axi_mem #(
    parameter int    DATA_W = 32,
    parameter string NAME   = "gmem",
    parameter int    QUEUE  = 64  // bursts each queue can hold
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
    localparam int BYTES = DATA_W / 8;
    localparam int QW = $clog2(QUEUE);

    import "DPI-C" function chandle fk_axi_port_new(input string name, input int data_bytes);
    import "DPI-C" function void fk_axi_config(output int read_latency,
        output int write_latency, output int max_outstanding, output int stall_permille);
    import "DPI-C" function void fk_axi_burst(input chandle port, input bit is_write,
        input longint addr, input int len, input int size, input int burst);
    import "DPI-C" function int fk_axi_read32(input chandle port, input longint addr);
    import "DPI-C" function void fk_axi_read512(input chandle port, input longint addr,
        output bit [511:0] data);
    import "DPI-C" function void fk_axi_write32(input chandle port, input longint addr,
        input int data, input int strb, input bit last, input bit expect_last);
    import "DPI-C" function void fk_axi_write512(input chandle port, input longint addr,
        input bit [511:0] data, input longint strb, input bit last, input bit expect_last);
    import "DPI-C" function void fk_axi_violation(input chandle port, input string message);
    import "DPI-C" function int fk_axi_stall(input chandle port);
    import "DPI-C" function int fk_axi_limited(input chandle port);
    import "DPI-C" function int fk_axi_bank(input chandle port, input longint now,
        input int beats);

    chandle port;
    int read_latency, write_latency, max_outstanding, stall_permille;
    int limited;      // the port's bank limits its bandwidth
    logic r_charge;   // an R beat raised at the last edge, not charged to the bank yet

    // Read bursts: address, beats, first cycle a beat may be handed over.
    logic [63:0] rq_addr [QUEUE];
    logic [8:0]  rq_beats [QUEUE];
    logic [63:0] rq_time [QUEUE];
    logic [QW:0] rq_head, rq_tail;
    logic [8:0]  r_done;  // beats of the head burst already handed over
    // Write bursts waiting for data, and B responses waiting for their cycle.
    logic [63:0] wq_addr [QUEUE];
    logic [8:0]  wq_beats [QUEUE];
    logic [QW:0] wq_head, wq_tail;
    logic [8:0]  w_done;
    logic [63:0] bq_time [QUEUE];
    logic [QW:0] bq_head, bq_tail;
    // What a VALID without READY promised, to check it is kept.
    logic              ar_wait, aw_wait, w_wait;
    logic [63:0]       ar_addr_q, aw_addr_q;
    logic [7:0]        ar_len_q, aw_len_q;
    logic [DATA_W-1:0] w_data_q;
    logic [BYTES-1:0]  w_strb_q;
    logic              w_last_q;

    initial begin
        port = fk_axi_port_new(NAME, BYTES);
        arready = 1'b0; rvalid = 1'b0; rdata = '0; rresp = 2'b00; rlast = 1'b0;
        awready = 1'b0; wready = 1'b0; bvalid = 1'b0; bresp = 2'b00;
    end

    function automatic logic [DATA_W-1:0] read_beat(input logic [63:0] addr);
        bit [511:0] wide;
        if (DATA_W == 32) return DATA_W'(fk_axi_read32(port, addr));
        fk_axi_read512(port, addr, wide);
        return wide[DATA_W-1:0];
    endfunction

    function automatic void write_beat(input logic [63:0] addr, input bit expect_last);
        if (DATA_W == 32) begin
            fk_axi_write32(port, addr, 32'(wdata), 32'(wstrb), wlast, expect_last);
        end else begin
            fk_axi_write512(port, addr, 512'(wdata), 64'(wstrb), wlast, expect_last);
        end
    endfunction

    // The queues are this block's private state, updated in order (blocking); the ports
    // are driven with nonblocking assignments like any flop.
    always @(posedge clk) begin
        automatic int stall = 0;
        automatic int grant = 1;
        automatic int beats = 0;
        automatic logic [QW:0] r_count, w_count, b_count;
        automatic logic [QW-1:0] r_head, w_head, b_head;
        if (!rst_n) begin
            fk_axi_config(read_latency, write_latency, max_outstanding, stall_permille);
            limited = fk_axi_limited(port);
            r_charge = 1'b0;
            rq_head = '0; rq_tail = '0; r_done = '0;
            wq_head = '0; wq_tail = '0; w_done = '0;
            bq_head = '0; bq_tail = '0;
            ar_wait = 1'b0; aw_wait = 1'b0; w_wait = 1'b0;
            arready <= 1'b0; rvalid <= 1'b0; rlast <= 1'b0; awready <= 1'b0;
            wready <= 1'b0; bvalid <= 1'b0;
        end else begin
            if (ar_wait && (!arvalid || araddr != ar_addr_q || arlen != ar_len_q))
                fk_axi_violation(port, "ARVALID dropped or AR changed before ARREADY");
            if (aw_wait && (!awvalid || awaddr != aw_addr_q || awlen != aw_len_q))
                fk_axi_violation(port, "AWVALID dropped or AW changed before AWREADY");
            if (w_wait && (!wvalid || wdata != w_data_q || wstrb != w_strb_q
                           || wlast != w_last_q))
                fk_axi_violation(port, "WVALID dropped or W changed before WREADY");
            ar_wait = arvalid && !arready;
            aw_wait = awvalid && !awready;
            w_wait = wvalid && !wready;
            if (ar_wait) begin ar_addr_q = araddr; ar_len_q = arlen; end
            if (aw_wait) begin aw_addr_q = awaddr; aw_len_q = awlen; end
            if (w_wait) begin w_data_q = wdata; w_strb_q = wstrb; w_last_q = wlast; end

            // Handshakes of this edge, against what this model drove during the cycle.
            if (rvalid && rready) begin
                r_head = rq_head[QW-1:0];
                if (r_done + 9'd1 == rq_beats[r_head]) begin
                    rq_head = rq_head + 1'b1;
                    r_done = '0;
                end else begin
                    r_done = r_done + 9'd1;
                end
            end
            if (bvalid && bready) bq_head = bq_head + 1'b1;
            if (arvalid && arready) begin
                fk_axi_burst(port, 1'b0, araddr, 32'(arlen), 32'(arsize), 32'(arburst));
                rq_addr[rq_tail[QW-1:0]] = araddr;
                rq_beats[rq_tail[QW-1:0]] = 9'(arlen) + 9'd1;
                rq_time[rq_tail[QW-1:0]] = now + 64'(read_latency);
                rq_tail = rq_tail + 1'b1;
            end
            if (awvalid && awready) begin
                fk_axi_burst(port, 1'b1, awaddr, 32'(awlen), 32'(awsize), 32'(awburst));
                wq_addr[wq_tail[QW-1:0]] = awaddr;
                wq_beats[wq_tail[QW-1:0]] = 9'(awlen) + 9'd1;
                wq_tail = wq_tail + 1'b1;
            end
            if (wvalid && wready) begin
                beats = 1;
                w_head = wq_head[QW-1:0];
                write_beat(wq_addr[w_head] + 64'(w_done) * 64'(BYTES),
                           w_done + 9'd1 == wq_beats[w_head]);
                if (w_done + 9'd1 == wq_beats[w_head]) begin
                    wq_head = wq_head + 1'b1;
                    w_done = '0;
                    bq_time[bq_tail[QW-1:0]] = now + 64'(write_latency);
                    bq_tail = bq_tail + 1'b1;
                end else begin
                    w_done = w_done + 9'd1;
                end
            end

            // Outputs for the next cycle. A VALID raised here stays up until its handshake.
            if (stall_permille != 0) stall = fk_axi_stall(port);
            if (limited != 0) begin
                grant = fk_axi_bank(port, now, beats + (r_charge ? 1 : 0));
                r_charge = 1'b0;
            end
            r_count = rq_tail - rq_head;
            w_count = wq_tail - wq_head;
            b_count = bq_tail - bq_head;
            arready <= 32'(r_count) < max_outstanding && !stall[0];
            awready <= 32'(w_count) + 32'(b_count) < max_outstanding && !stall[1];
            wready <= w_count != '0 && !stall[2] && grant != 0;
            if (!(rvalid && !rready)) begin
                r_head = rq_head[QW-1:0];
                if (r_count != '0 && rq_time[r_head] <= now + 64'd1 && !stall[3]
                    && grant != 0) begin
                    rvalid <= 1'b1;
                    r_charge = 1'b1;
                    rdata <= read_beat(rq_addr[r_head] + 64'(r_done) * 64'(BYTES));
                    rlast <= r_done + 9'd1 == rq_beats[r_head];
                end else begin
                    rvalid <= 1'b0;
                end
            end
            if (!(bvalid && !bready)) begin
                b_head = bq_head[QW-1:0];
                bvalid <= b_count != '0 && bq_time[b_head] <= now + 64'd1 && !stall[4];
            end
        end
    end
endmodule
/* verilator lint_on BLKSEQ */
/* verilator lint_on UNUSEDSIGNAL */
