// where(cond, a, b), as torch.where: a where the condition holds, else b, for float32 and
// int32 alike. A multiplexer: the chosen operand's bits pass unchanged (NaN payloads,
// signed zeros, subnormals). The condition is a comparison's 1-bit result (fk_fp32_gt,
// fk_int32_le, ...), so port a is 1 bit wide. Latency 0 (combinational), II = 1.
//
// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_where (
    input  logic clk, input logic ce, input logic a, input logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] y
);
    assign y = a ? b : c;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
