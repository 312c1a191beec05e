// float32 maximum and minimum as in IEEE 754-2019 (and torch.maximum/minimum): a NaN
// operand gives NaN (the canonical quiet NaN 0x7FC00000), and -0 orders below +0.
// Latency 1, II = 1.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */
module fk_fp32_minmax #(
    parameter bit MAX = 1'b1  // 1: maximum, 0: minimum
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    logic        nan, a_above;
    logic [31:0] key_a, key_b;

    always_comb begin
        nan = ((&a[30:23]) & (|a[22:0])) | ((&b[30:23]) & (|b[22:0]));
        // Map sign-magnitude to an unsigned key with the same total order on non-NaN
        // values (negatives reversed below positives), which puts -0 just below +0.
        key_a   = a[31] ? ~a : {1'b1, a[30:0]};
        key_b   = b[31] ? ~b : {1'b1, b[30:0]};
        a_above = key_a > key_b;
    end

    always_ff @(posedge clk) begin
        if (ce) y <= nan ? 32'h7FC0_0000 : ((a_above == MAX) ? a : b);
    end
endmodule

module fk_fp32_maximum (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    fk_fp32_minmax #(.MAX(1'b1)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_fp32_minimum (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    fk_fp32_minmax #(.MAX(1'b0)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
/* verilator lint_on DECLFILENAME */
