// float32 clamp(x, lo, hi), as torch.clamp with tensor bounds: minimum(maximum(x, lo),
// hi) with IEEE 754-2019 maximum/minimum, so a NaN in x, lo or hi gives NaN (the
// canonical quiet NaN), lo > hi gives hi, and -0 orders below +0. Two fk_fp32_minmax
// stages; hi is delayed one cycle to meet the first stage's result.
// Latency 2, II = 1.
module fk_fp32_clamp (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,  // x
    input  logic [31:0] b,  // lo
    input  logic [31:0] c,  // hi
    output logic [31:0] y
);
    logic [31:0] above_lo, hi_d1;

    fk_fp32_minmax #(.MAX(1'b1)) u_max (.clk(clk), .ce(ce), .a(a), .b(b), .y(above_lo));
    always_ff @(posedge clk) if (ce) hi_d1 <= c;
    fk_fp32_minmax #(.MAX(1'b0)) u_min (.clk(clk), .ce(ce), .a(above_lo), .b(hi_d1), .y(y));
endmodule
