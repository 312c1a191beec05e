// float32 copysign(a, b), as torch.copysign: a's magnitude with b's sign bit. A sign-bit
// operation (IEEE 754 copySign), so NaN payloads, NaN signs and signed zeros pass through
// exactly: copysign(1, -NaN) = -1. Latency 0 (combinational), II = 1.
//
// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_fp32_copysign (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    assign y = {b[31], a[30:0]};
endmodule
/* verilator lint_on UNUSEDSIGNAL */
