// int32 identity: what trunc, floor, ceil and round do to an integer (torch returns the
// integer tensor unchanged). Latency 0 (a wire), II = 1.
//
// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_int32_identity (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    assign y = a;
endmodule
/* verilator lint_on UNUSEDSIGNAL */
