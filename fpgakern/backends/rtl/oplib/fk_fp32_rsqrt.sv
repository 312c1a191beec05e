// fk_fp32_rsqrt: y = 1 / sqrt(x) on float32, as torch.rsqrt computes it on the CPU: the
// correctly rounded square root (fk_fp32_sqrt), then the correctly rounded reciprocal of
// that (fk_fp32_div, dividend 1.0). Two roundings, bit-exact with torch.rsqrt and with
// np.float32(1) / np.sqrt(x); within 1 ulp of the correctly rounded 1/sqrt(x) (the
// square root's relative error below 2^-24 moves 1/s less than 1 ulp from 1/sqrt(x), and
// rounding is monotone; docs/operators.md measures it against MPFR).
//   rsqrt(+0) = +inf, rsqrt(-0) = -inf (sqrt(-0) = -0), rsqrt(x < 0) = NaN,
//   rsqrt(+inf) = +0, rsqrt(NaN) = NaN; NaN results are the canonical 0x7FC00000.
// Subnormal inputs are exact (the square root normalizes them); results lie in
// [2^-64, 2^74.5], so no result is subnormal and none overflows.
// Latency 34 ce-cycles (16 + 18), II = 1.
module fk_fp32_rsqrt (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    logic [31:0] root;
    fk_fp32_sqrt u_sqrt (.clk(clk), .ce(ce), .a(a), .y(root));
    fk_fp32_div u_div (.clk(clk), .ce(ce), .a(32'h3F80_0000), .b(root), .y(y));
endmodule
