// int32 bitwise and shift operators, and relu.
//   and, or, xor, relu: latency 0 (one LUT level), II = 1.
//   shl: a << b; shift amounts outside 0..31 (b negative or >= 32) give 0.      Latency 1.
//   shr: arithmetic a >> b; amounts outside 0..31 shift by 31 (sign fill).      Latency 1.
// These follow torch's CPU semantics for out-of-range shift amounts.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */

// clk and ce belong to the uniform operator interface (docs/operators.md); the latency-0
// operators below have no state, so they are unused there by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_int32_bitwise_and (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    assign y = a & b;
endmodule

module fk_int32_bitwise_or (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    assign y = a | b;
endmodule

module fk_int32_bitwise_xor (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    assign y = a ^ b;
endmodule

// torch.relu on int32: max(a, 0).
module fk_int32_relu (
    input logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    assign y = a[31] ? 32'd0 : a;
endmodule
/* verilator lint_on UNUSEDSIGNAL */

module fk_int32_shl (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= (b[31:5] != 27'd0) ? 32'd0 : a << b[4:0];
endmodule

module fk_int32_shr (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    logic [4:0] amount;
    assign amount = (b[31:5] != 27'd0) ? 5'd31 : b[4:0];
    always_ff @(posedge clk) if (ce) y <= $signed(a) >>> amount;
endmodule
/* verilator lint_on DECLFILENAME */
