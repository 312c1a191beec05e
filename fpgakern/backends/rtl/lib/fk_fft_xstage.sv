// fk_fft_xstage: a radix-2 DIF stage of half-span H < LANES across the lanes of a beat
// (fk_fft_lanes: the last three stages, H = 4, 2, 1, of 8 lanes). A beat holds elements
// e = LANES * t + l, so the pairs (e, e + H) are lanes (l, l + H) of the same beat, for
// the lanes l with bit H clear, and j = e mod H = l mod H: every lane's twiddle is a
// constant, W_{2H}^{l mod H}, still read from the twiddle ROM so that it is the
// reference's word (synthesis folds the constant reads). Latency 18 = butterfly 6 +
// twiddle product 12, the sums delayed alongside; ce-gated.
module fk_fft_xstage #(
    parameter int LANES = 8,
    parameter int H     = 4  // half-span in lanes, a power of two below LANES
) (
    input  logic                  clk,
    input  logic                  ce,
    input  logic                  inverse,
    input  logic [64*LANES-1:0]   x,
    output logic [64*LANES-1:0]   y
);
    localparam int LOG2H = $clog2(H);

    for (genvar l = 0; l < LANES; l++) begin : g_pair
        if ((l & H) == 0) begin : g_bf
            logic [63:0] s, d, s_late, d_tw;
            logic [31:0] tw_c, tw_s;
            fk_fft_bf u_bf (.clk(clk), .ce(ce), .a(x[64*l +: 64]), .b(x[64*(l+H) +: 64]),
                            .s(s), .d(d));
            fk_fft_twiddle u_tw (.clk(clk), .ce(ce), .k(15'((l % H) << (15 - LOG2H))),
                                 .c(tw_c), .s(tw_s));
            fk_fft_twmul u_mul (.clk(clk), .ce(ce), .inverse(inverse), .x(d), .c(tw_c),
                                .s(tw_s), .y(d_tw));
            fk_delay #(.WIDTH(64), .DEPTH(12)) u_s (.clk(clk), .ce(ce), .d(s), .q(s_late));
            assign y[64*l +: 64]     = s_late;
            assign y[64*(l+H) +: 64] = d_tw;
        end
    end
endmodule
