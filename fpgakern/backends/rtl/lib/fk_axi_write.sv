// fk_axi_write: AXI4 write engine. Writes `beats` words from its input stream to memory
// starting at `base`, as a sequence of INCR bursts.
//
// Burst rules as in fk_axi_read (<= MAX_BURST beats, never across 4 KiB, `base` aligned to
// the beat size). A burst is requested only once all its data is committed: counted by
// data_committed pulses, one per beat that is in the FIFO in front of this engine or on
// its way there through a pipeline that never stalls or drops a beat. The W beats of a
// burst then follow within that pipeline's latency, as in HLS masters, which buffer a
// burst before requesting it; counting beats as they enter the pipeline rather than the
// FIFO keeps the last burst from waiting for its whole data before its AW goes out.
// The FIFO must hold at least MAX_BURST beats. W does not wait for AWREADY (AXI
// forbids that dependency); it follows the burst lengths queued when each AW was raised.
// The final beat of the whole transfer carries last_strb, so a tail that does not fill a
// word never writes bytes past the end of the buffer. At most MAX_OUTSTANDING bursts wait
// for their B response; bready stays high. Write responses are not checked, as in HLS.
module fk_axi_write #(
    parameter int DATA_W          = 32,
    parameter int MAX_BURST       = 64,
    parameter int MAX_OUTSTANDING = 8,  // a power of two
    parameter int COUNT_W         = 32
) (
    input  logic                  clk,
    input  logic                  rst_n,

    input  logic                  start,  // only while idle
    input  logic [63:0]           base,
    input  logic [COUNT_W-1:0]    beats,
    input  logic [DATA_W/8-1:0]   last_strb,
    output logic                  idle,

    input  logic                  data_committed,  // one more beat will reach in_*
    input  logic                  in_valid,
    output logic                  in_ready,
    input  logic [DATA_W-1:0]     in_data,

    output logic                  awvalid,
    input  logic                  awready,
    output logic [63:0]           awaddr,
    output logic [7:0]            awlen,
    output logic [2:0]            awsize,
    output logic [1:0]            awburst,
    output logic                  wvalid,
    input  logic                  wready,
    output logic [DATA_W-1:0]     wdata,
    output logic [DATA_W/8-1:0]   wstrb,
    output logic                  wlast,
    input  logic                  bvalid,
    output logic                  bready,
    input  logic [1:0]            bresp
);
    localparam int BEAT_BYTES = DATA_W / 8;
    localparam int SIZE       = $clog2(BEAT_BYTES);
    localparam int LEN_W      = $clog2(MAX_BURST + 1);
    localparam int OUT_W      = $clog2(MAX_OUTSTANDING + 1);
    localparam int Q_DEPTH    = MAX_OUTSTANDING > 1 ? MAX_OUTSTANDING : 2;
    localparam int Q_W        = $clog2(Q_DEPTH);
    localparam int PAGE_W     = 13 - SIZE;

    // ------------------------------------------------------------------ AW
    logic [63:0]        addr;
    logic [COUNT_W-1:0] remaining;   // beats not yet requested
    logic [COUNT_W:0]   avail;       // beats committed and not yet claimed by a burst
    logic [OUT_W-1:0]   outstanding; // bursts requested and not yet answered on B
    logic [PAGE_W-1:0]  page_beats;
    logic [LEN_W-1:0]   len;
    logic               issue, b_done;

    always_comb begin
        page_beats = PAGE_W'((13'd4096 - {1'b0, addr[11:0]}) >> SIZE);
        len = LEN_W'(MAX_BURST);
        if (remaining < COUNT_W'(len)) len = LEN_W'(remaining);
        if ({{(32 - PAGE_W){1'b0}}, page_beats} < 32'(len)) len = LEN_W'(page_beats);
    end

    assign issue  = !awvalid && remaining != '0 && outstanding != OUT_W'(MAX_OUTSTANDING)
                 && avail >= (COUNT_W + 1)'(len);
    assign b_done = bvalid && bready;
    assign bready = 1'b1;
    assign awsize  = 3'(SIZE);
    assign awburst = 2'b01;  // INCR
    assign idle = remaining == '0 && outstanding == '0 && !awvalid;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            awvalid     <= 1'b0;
            awaddr      <= '0;
            awlen       <= '0;
            addr        <= '0;
            remaining   <= '0;
            avail       <= '0;
            outstanding <= '0;
        end else begin
            if (start) begin
                addr      <= base;
                remaining <= beats;
            end else if (issue) begin
                addr      <= addr + (64'(len) << SIZE);
                remaining <= remaining - COUNT_W'(len);
            end
            if (issue) begin
                awvalid <= 1'b1;
                awaddr  <= addr;
                awlen   <= 8'(len - 1'b1);
            end else if (awready) begin
                awvalid <= 1'b0;
            end
            avail <= avail + (COUNT_W + 1)'(data_committed) - (issue ? (COUNT_W + 1)'(len) : '0);
            outstanding <= outstanding + OUT_W'(issue) - OUT_W'(b_done);
        end
    end

    // ------------------------------------------------------------------ burst-length queue
    // One entry per requested burst; outstanding <= MAX_OUTSTANDING bounds its use.
    logic [LEN_W-1:0] len_q [Q_DEPTH];
    logic [Q_W:0]     q_wr, q_rd;
    logic             q_empty, q_pop;

    assign q_empty = q_wr == q_rd;

    always_ff @(posedge clk) begin
        if (issue) len_q[q_wr[Q_W-1:0]] <= len;
    end

    // ------------------------------------------------------------------ W
    logic               w_active;
    logic [LEN_W-1:0]   w_left;       // beats left in the current burst
    logic [COUNT_W-1:0] w_total_left; // beats left in the whole transfer
    logic               w_beat;
    logic [DATA_W/8-1:0] tail_strb;    // last_strb, latched at start

    // The next burst's length is taken with the current burst's last beat: no bubble.
    assign q_pop    = !q_empty && (!w_active || (w_beat && wlast));
    assign wvalid   = w_active && in_valid;
    assign in_ready = w_active && wready;
    assign wdata    = in_data;
    assign wlast    = w_left == LEN_W'(1);
    assign wstrb    = w_total_left == COUNT_W'(1) ? tail_strb : '1;
    assign w_beat   = wvalid && wready;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            q_wr         <= '0;
            q_rd         <= '0;
            w_active     <= 1'b0;
            w_left       <= '0;
            w_total_left <= '0;
        end else begin
            if (issue) q_wr <= q_wr + 1'b1;
            if (start) begin
                w_total_left <= beats;
                tail_strb    <= last_strb;
            end
            else if (w_beat) w_total_left <= w_total_left - 1'b1;
            if (q_pop) begin
                q_rd     <= q_rd + 1'b1;
                w_active <= 1'b1;
                w_left   <= len_q[q_rd[Q_W-1:0]];
            end else if (w_beat) begin
                w_left <= w_left - 1'b1;
                if (wlast) w_active <= 1'b0;
            end
        end
    end

    logic unused_resp;
    assign unused_resp = &{1'b0, bresp};
endmodule
