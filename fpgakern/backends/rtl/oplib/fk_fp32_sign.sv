// float32 sign operators: abs and neg (IEEE-754 sign-bit operations, so NaN payloads and
// signed zeros pass through exactly as numpy's bit-level reference has them), and relu.
// Latency 0 (combinational: a bit operation or a 32-bit mux), II = 1.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */

// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */

// |a|: clear the sign bit.
module fk_fp32_abs (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    assign y = {1'b0, a[30:0]};
endmodule

// -a: flip the sign bit.
module fk_fp32_neg (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    assign y = {~a[31], a[30:0]};
endmodule

// torch.relu: +0 when a < 0, else a (NaN and -0 pass through, as torch's clamp_min gives).
module fk_fp32_relu (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    logic nan, below_zero;
    assign nan        = (&a[30:23]) & (|a[22:0]);
    assign below_zero = a[31] && !nan && (|a[30:0]);  // negative and not -0
    assign y          = below_zero ? 32'd0 : a;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on DECLFILENAME */
