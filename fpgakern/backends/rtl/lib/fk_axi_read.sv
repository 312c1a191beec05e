// fk_axi_read: AXI4 read engine. Streams `beats` words starting at `base` out of one
// master's AR/R channels, as a sequence of INCR bursts.
//
// Burst rules (docs/rtl.md, "AXI rules"): each burst is at most MAX_BURST beats, never
// crosses a 4 KiB boundary, and `base` must be aligned to the beat size (DATA_W/8 bytes).
// At most MAX_OUTSTANDING bursts are in flight. A burst is only requested when the
// consumer has room for all of it: the engine holds CREDITS beats of the consumer's buffer,
// spends a burst's length when it issues the burst and gets one back per credit_return
// pulse. So rready can stay high: R data is never refused, even under any AR/R stall
// pattern of the memory side, and the read channel is never blocked by this master.
// Read responses are not checked, as in HLS-generated masters.
module fk_axi_read #(
    parameter int DATA_W          = 32,
    parameter int MAX_BURST       = 64,   // beats; <= 256 and <= 4096 / (DATA_W / 8)
    parameter int MAX_OUTSTANDING = 8,    // bursts
    parameter int CREDITS         = 256,  // beats the consumer can hold; >= MAX_BURST
    parameter int COUNT_W         = 32
) (
    input  logic              clk,
    input  logic              rst_n,

    input  logic              start,          // only while idle
    input  logic [63:0]       base,
    input  logic [COUNT_W-1:0] beats,
    output logic              idle,
    input  logic              credit_return,  // the consumer freed one beat

    output logic              arvalid,
    input  logic              arready,
    output logic [63:0]       araddr,
    output logic [7:0]        arlen,
    output logic [2:0]        arsize,
    output logic [1:0]        arburst,
    input  logic              rvalid,
    output logic              rready,
    input  logic [DATA_W-1:0] rdata,
    input  logic [1:0]        rresp,
    input  logic              rlast,

    output logic              out_valid,  // one beat per cycle, always accepted downstream
    output logic [DATA_W-1:0] out_data
);
    localparam int BEAT_BYTES = DATA_W / 8;
    localparam int SIZE       = $clog2(BEAT_BYTES);
    localparam int LEN_W      = $clog2(MAX_BURST + 1);
    localparam int CREDIT_W   = $clog2(CREDITS + 1);
    localparam int OUT_W      = $clog2(MAX_OUTSTANDING + 1);
    localparam int PAGE_W     = 13 - SIZE;  // beats to the next 4 KiB boundary: 1..4096>>SIZE

    logic [63:0]        addr;
    logic [COUNT_W-1:0] remaining;
    logic [CREDIT_W-1:0] reserved;
    logic [OUT_W-1:0]   outstanding;
    logic [PAGE_W-1:0]  page_beats;
    logic [LEN_W-1:0]   len;
    logic               issue, r_last_beat;

    // The next burst: the smallest of what is left, MAX_BURST and the room in this page.
    always_comb begin
        page_beats = PAGE_W'((13'd4096 - {1'b0, addr[11:0]}) >> SIZE);
        len = LEN_W'(MAX_BURST);
        if (remaining < COUNT_W'(len)) len = LEN_W'(remaining);
        if ({{(32 - PAGE_W){1'b0}}, page_beats} < 32'(len)) len = LEN_W'(page_beats);
    end

    assign issue = !arvalid && remaining != '0 && outstanding != OUT_W'(MAX_OUTSTANDING)
                && 32'(reserved) + 32'(len) <= 32'(CREDITS);
    assign r_last_beat = rvalid && rready && rlast;
    assign idle = remaining == '0 && outstanding == '0 && !arvalid;

    assign arsize    = 3'(SIZE);
    assign arburst   = 2'b01;  // INCR
    assign rready    = 1'b1;
    assign out_valid = rvalid;
    assign out_data  = rdata;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            arvalid     <= 1'b0;
            araddr      <= '0;
            arlen       <= '0;
            addr        <= '0;
            remaining   <= '0;
            reserved    <= '0;
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
                arvalid <= 1'b1;
                araddr  <= addr;
                arlen   <= 8'(len - 1'b1);
            end else if (arready) begin
                arvalid <= 1'b0;
            end
            reserved <= reserved + (issue ? CREDIT_W'(len) : '0) - CREDIT_W'(credit_return);
            outstanding <= outstanding + OUT_W'(issue) - OUT_W'(r_last_beat);
        end
    end

    logic unused_resp;
    assign unused_resp = &{1'b0, rresp};
endmodule
