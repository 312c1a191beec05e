// int32 sign, as torch.sign: 1, 0 or -1. Latency 0 (combinational), II = 1.
//
// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_int32_signum (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    assign y = a[31] ? 32'hFFFF_FFFF : {31'd0, a != 32'd0};
endmodule
/* verilator lint_on UNUSEDSIGNAL */
