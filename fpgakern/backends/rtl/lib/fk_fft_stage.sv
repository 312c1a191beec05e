// fk_fft_stage: one radix-2 DIF stage of the FFT cores as a single-path delay-feedback
// (R2SDF) pipeline over one stream of slots (one sample per ce-cycle).
//
// The stream carries the elements e of a transform in order; this stream (lane LANE of
// LANES) holds the elements e = LANES * t + LANE, so pairs (e, e + H) with H = HD * LANES
// are HD slots apart in the same stream. pos is the slot position t of the input x (mod
// 2 * HD is all that matters). With a = x(t - HD) and b = x(t), in the second half of each
// block of 2 * HD slots (bit HD of t set), the butterfly (fk_fft_bf, latency L = 6) gives
// s = a + b and d = a - b; the output stream is x with block-relative order kept:
// s for the first-half positions, d * w for the second-half ones, w the reference's
// twiddle W_{2H}^{j}, j = e mod H (fk_fft_twmul, latency 12; the sums bypass it through
// an equal delay). Latency HD + 18 slots: y(t) belongs to position t - HD - 18.
//
// Memory: for HD >= L the classic feedback, HD - L + L words (the input x enters the line
// L slots late, so the line is shared in time: a first-half sample goes in as the
// previous block's difference d leaves the butterfly, and no slot needs both); the
// difference for output position j + H waits in that line and then L slots more. For
// HD < L (HD = 1, 2, 4) the line would be shorter than the butterfly, so a and d get
// their own HD-slot shift registers (at most 2 x 4 words).
//
// All decisions come from pos, not from data: a bubble (a slot with no sample) is just a
// slot, which is why the cores advance ce only by whole slots and fill frames with
// bubbles to drain (fk_fft_core).
module fk_fft_stage #(
    parameter int HD    = 8,   // half-span in slots, a power of two
    parameter int LANES = 1,   // streams side by side (1 or 8)
    parameter int LANE  = 0,   // this stream
    parameter int PW    = 16   // bits of pos (> log2(HD))
) (
    input  logic          clk,
    input  logic          ce,
    input  logic          inverse,
    input  logic [PW-1:0] pos,  // slot position of x
    input  logic [63:0]   x,
    output logic [63:0]   y
);
    localparam int L = 6;  // fk_fp32_add / fk_fp32_sub latency
    localparam int LOG2HD = $clog2(HD);
    localparam int LOG2H = LOG2HD + $clog2(LANES);

    logic [PW-1:0] pos_bf, pos_rom, pos_out;
    logic          sel_s, sel_tw;
    assign pos_bf  = pos - PW'(L);           // position of the butterfly's b now leaving
    assign pos_rom = pos - PW'(HD + L - 2);  // position of y_bf two slots ahead
    assign pos_out = pos - PW'(HD + L + 12); // position of y
    assign sel_s   = pos_bf[LOG2HD];         // s leaves now (d goes into the line)
    assign sel_tw  = pos_out[LOG2HD];        // y is a twiddled difference

    logic [63:0] a, s, d, y_bf;

    if (HD >= L) begin : g_feedback
        logic [63:0] x_late, line_in, line_out, diff_out;
        fk_delay #(.WIDTH(64), .DEPTH(L)) u_x (.clk(clk), .ce(ce), .d(x), .q(x_late));
        assign line_in = sel_s ? d : x_late;
        fk_fft_delay #(.WIDTH(64), .DEPTH(HD - L)) u_line (
            .clk(clk), .ce(ce), .d(line_in), .q(line_out));
        fk_delay #(.WIDTH(64), .DEPTH(L)) u_d (.clk(clk), .ce(ce), .d(line_out), .q(diff_out));
        assign a    = line_out;
        assign y_bf = sel_s ? s : diff_out;
    end else begin : g_feedforward
        logic [63:0] diff_out;
        fk_delay #(.WIDTH(64), .DEPTH(HD)) u_a (.clk(clk), .ce(ce), .d(x), .q(a));
        fk_delay #(.WIDTH(64), .DEPTH(HD)) u_d (.clk(clk), .ce(ce), .d(d), .q(diff_out));
        assign y_bf = sel_s ? s : diff_out;
    end

    fk_fft_bf u_bf (.clk(clk), .ce(ce), .a(a), .b(x), .s(s), .d(d));

    // Twiddle of element j = (t mod HD) * LANES + LANE in a span of 2H: angle
    // 2*pi*j/(2H) is index j * 32768 / H of the 65536-point circle.
    logic [15:0] j;
    logic [14:0] k;
    logic [31:0] tw_c, tw_s;
    if (HD == 1) begin : g_j1
        assign j = 16'(LANE);
    end else begin : g_jn
        assign j = (16'(pos_rom[LOG2HD-1:0]) << $clog2(LANES)) | 16'(LANE);
    end
    assign k = 15'(j << (15 - LOG2H));
    fk_fft_twiddle u_tw (.clk(clk), .ce(ce), .k(k), .c(tw_c), .s(tw_s));

    logic [63:0] y_tw, y_bypass;
    fk_fft_twmul u_mul (.clk(clk), .ce(ce), .inverse(inverse), .x(y_bf), .c(tw_c), .s(tw_s),
                        .y(y_tw));
    fk_delay #(.WIDTH(64), .DEPTH(12)) u_bypass (.clk(clk), .ce(ce), .d(y_bf), .q(y_bypass));
    assign y = sel_tw ? y_tw : y_bypass;

    // Only the position bits below 2 * HD matter (the block-relative position).
    logic unused_pos;
    assign unused_pos = &{1'b0, pos_bf, pos_rom, pos_out, j};
endmodule
