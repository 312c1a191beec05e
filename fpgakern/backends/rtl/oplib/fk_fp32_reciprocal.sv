// float32 reciprocal 1 / a, as torch.reciprocal: correctly rounded (round to nearest
// even), subnormal operands and results as IEEE says (1 / 2^-149 overflows to inf, the
// reciprocals of values above 2^126 are subnormal), 1 / +-0 = +-inf, 1 / +-inf = +-0,
// NaN gives the canonical quiet NaN. The divider with its dividend tied to 1.0: the same
// datapath as fk_fp32_div, whose constant dividend synthesis simplifies away.
// Latency 18 (fk_fp32_div's), II = 1.
module fk_fp32_reciprocal (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    fk_fp32_div u_div (.clk(clk), .ce(ce), .a(32'h3F80_0000), .b(a), .y(y));
endmodule
