// fk_gather: AXI4 read engine for single 32-bit elements at any element address, in order.
//
// A contraction kernel reads its operands through the spec's index order, so an element's
// neighbours in a tile are rarely neighbours in memory: each request is one single-beat
// read (ARLEN 0) of the DATA_W-bit word holding the element, its 32-bit lane picked from
// the beat. A request may instead be `zero` (an element outside the matrix, which reads
// as 0): it takes no read and keeps its place in order. At most OUTSTANDING requests are
// in flight; a response leaves in request order, with the request's tag, in the cycle
// after its beat (or its turn, for a zero). A request may be accepted every cycle (the
// address register frees as its address is taken) and a beat may arrive every cycle (the
// beat register frees as its response leaves), so with OUTSTANDING above the memory's
// latency the engine moves one element a cycle. A request is accepted only when its
// response has a place.
module fk_gather #(
    parameter int DATA_W      = 32,
    parameter int TAG_W       = 8,
    parameter int OUTSTANDING = 64  // a power of two
) (
    input  logic              clk,
    input  logic              rst_n,

    input  logic              req_valid,
    output logic              req_ready,
    input  logic [63:0]       req_addr,   // byte address of a 32-bit element
    input  logic              req_zero,
    input  logic [TAG_W-1:0]  req_tag,

    output logic              resp_valid,
    output logic [31:0]       resp_data,
    output logic [TAG_W-1:0]  resp_tag,
    output logic              idle,       // nothing in flight

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
    input  logic              rlast
);
    localparam int BEAT_BYTES = DATA_W / 8;
    localparam int LANE_W     = DATA_W > 32 ? $clog2(DATA_W / 32) : 1;
    localparam int PTR_W      = $clog2(OUTSTANDING);
    localparam int SIZE       = $clog2(BEAT_BYTES);
    localparam logic [PTR_W:0] FULL = {1'b1, {PTR_W{1'b0}}};  // OUTSTANDING in flight

    // The requests in flight, in order: each its tag, its lane and whether it reads.
    logic [TAG_W-1:0]  q_tag  [OUTSTANDING];
    logic [LANE_W-1:0] q_lane [OUTSTANDING];
    logic              q_zero [OUTSTANDING];
    logic [PTR_W:0]    count;
    logic [PTR_W-1:0]  head, tail;
    logic              pop, beat_in, beat_out;
    logic [DATA_W-1:0] beat;
    logic              have_beat;  // a read's beat, waiting for its entry at the head

    // An address request may wait for arready; the next request may come as it is taken.
    logic              ar_pending;
    assign req_ready = (!ar_pending || arready) && count < FULL;
    assign arvalid   = ar_pending;
    assign arlen     = 8'd0;
    assign arsize    = SIZE[2:0];
    assign arburst   = 2'b01;
    assign idle      = count == '0;

    // The head leaves when it is a zero, or when its beat has arrived; a beat leaving
    // frees the register for the next.
    assign pop      = count != '0 && (q_zero[head] || have_beat);
    assign beat_out = pop && !q_zero[head];
    assign rready   = !have_beat || beat_out;
    assign beat_in  = rvalid && rready;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            ar_pending <= 1'b0;
            araddr     <= '0;
            count      <= '0;
            head       <= '0;
            tail       <= '0;
            have_beat  <= 1'b0;
            beat       <= '0;
            resp_valid <= 1'b0;
            resp_data  <= '0;
            resp_tag   <= '0;
        end else begin
            if (ar_pending && arready) ar_pending <= 1'b0;
            if (req_valid && req_ready) begin
                q_tag[tail]  <= req_tag;
                q_zero[tail] <= req_zero;
                if (DATA_W > 32) q_lane[tail] <= req_addr[2 +: LANE_W];
                else q_lane[tail] <= '0;
                tail <= tail + 1'b1;
                if (!req_zero) begin
                    ar_pending <= 1'b1;
                    araddr     <= {req_addr[63:SIZE], {SIZE{1'b0}}};
                end
            end
            if (beat_in) begin
                have_beat <= 1'b1;
                beat      <= rdata;
            end else if (beat_out) begin
                have_beat <= 1'b0;
            end
            resp_valid <= pop;
            if (pop) begin
                resp_tag  <= q_tag[head];
                resp_data <= q_zero[head] ? 32'd0 : beat[q_lane[head] * 32 +: 32];
                head      <= head + 1'b1;
            end
            count <= count + {{PTR_W{1'b0}}, req_valid && req_ready} - {{PTR_W{1'b0}}, pop};
        end
    end

    // Read responses are not checked, as in HLS-generated masters; each burst is one beat.
    // An element's address is 4-aligned (its two low bits are 0).
    logic unused_r;
    assign unused_r = &{1'b0, rresp, rlast, req_addr[1:0]};
endmodule
