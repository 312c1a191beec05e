// fk_fft_butterfly: one radix-2 decimation-in-frequency butterfly on complex64 samples,
// the exact float32 operation sequence of fpgakern/ir/fft.py (every sum and product
// rounded, never fused; the float32 operators of this library: RNE, subnormals exact,
// canonical NaN), so every FFT architecture that feeds it the reference's operands
// (in-memory loop, delay-feedback pipeline, parallel lanes) gets the reference's bits.
//
//   x0 = a + b                                   (re and im added separately)
//   d  = a - b
//   forward (INVERSE = 0): x1 = d * conj(w):  re = d.re*c + d.im*s,  im = d.im*c - d.re*s
//   inverse (INVERSE = 1): x1 = d * w:        re = d.re*c - d.im*s,  im = d.im*c + d.re*s
//
// Ports: a, b, x0, x1 are complex64 samples, re in [31:0], im in [63:32] (the memory
// layout of complex64); c, s the float32 twiddle cos/sin, presented in the same cycle as
// a and b. Pure pipeline: LATENCY = 18 cycles (add/sub 6, mul 6, add/sub 6; the sum x0 is
// delayed 12 cycles to come out with x1), II = 1, every register gated by ce. No valid
// bit: the caller delays its own (fk_valid_delay of 18), as for any operator here.
module fk_fft_butterfly #(
    parameter bit INVERSE = 1'b0
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [63:0] a,
    input  logic [63:0] b,
    input  logic [31:0] c,
    input  logic [31:0] s,
    output logic [63:0] x0,
    output logic [63:0] x1
);
    localparam int ADD_LAT = 6;  // fk_fp32_add / fk_fp32_sub
    localparam int MUL_LAT = 6;  // fk_fp32_mul

    // ---------------------------------------------------------------- cycles 0-6: a +- b
    logic [31:0] sum_re, sum_im, d_re, d_im;
    fk_fp32_add u_sum_re (.clk, .ce, .a(a[31:0]),  .b(b[31:0]),  .y(sum_re));
    fk_fp32_add u_sum_im (.clk, .ce, .a(a[63:32]), .b(b[63:32]), .y(sum_im));
    fk_fp32_sub u_dif_re (.clk, .ce, .a(a[31:0]),  .b(b[31:0]),  .y(d_re));
    fk_fp32_sub u_dif_im (.clk, .ce, .a(a[63:32]), .b(b[63:32]), .y(d_im));

    // The twiddle waits for the difference.
    logic [31:0] c_q [ADD_LAT];
    logic [31:0] s_q [ADD_LAT];
    always_ff @(posedge clk) begin
        if (ce) begin
            c_q[0] <= c;
            s_q[0] <= s;
            for (int i = 1; i < ADD_LAT; i++) begin
                c_q[i] <= c_q[i-1];
                s_q[i] <= s_q[i-1];
            end
        end
    end

    // ---------------------------------------------------------------- cycles 6-12: products
    logic [31:0] p_rc, p_is, p_ic, p_rs;  // d.re*c, d.im*s, d.im*c, d.re*s
    fk_fp32_mul u_rc (.clk, .ce, .a(d_re), .b(c_q[ADD_LAT-1]), .y(p_rc));
    fk_fp32_mul u_is (.clk, .ce, .a(d_im), .b(s_q[ADD_LAT-1]), .y(p_is));
    fk_fp32_mul u_ic (.clk, .ce, .a(d_im), .b(c_q[ADD_LAT-1]), .y(p_ic));
    fk_fp32_mul u_rs (.clk, .ce, .a(d_re), .b(s_q[ADD_LAT-1]), .y(p_rs));

    // ---------------------------------------------------------------- cycles 12-18: sums
    logic [31:0] t_re, t_im;
    fk_fp32_addsub #(.SUB(INVERSE))  u_t_re (.clk, .ce, .a(p_rc), .b(p_is), .y(t_re));
    fk_fp32_addsub #(.SUB(!INVERSE)) u_t_im (.clk, .ce, .a(p_ic), .b(p_rs), .y(t_im));

    // The sum waits for the twiddled difference.
    localparam int SUM_DELAY = MUL_LAT + ADD_LAT;
    logic [63:0] sum_q [SUM_DELAY];
    always_ff @(posedge clk) begin
        if (ce) begin
            sum_q[0] <= {sum_im, sum_re};
            for (int i = 1; i < SUM_DELAY; i++) sum_q[i] <= sum_q[i-1];
        end
    end

    assign x0 = sum_q[SUM_DELAY-1];
    assign x1 = {t_im, t_re};
endmodule
