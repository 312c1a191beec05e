// float32 sign, as torch.sign: +1.0 for x > 0, -1.0 for x < 0, and +0 for +-0 and for
// NaN (torch computes (0 < x) - (x < 0), which is +0 for both; checked against torch in
// tests/oplib/test_exact_ops.py). Subnormals are nonzero: sign(+-tiny) = +-1.
// Latency 0 (combinational), II = 1.
//
// clk and ce belong to the uniform operator interface (docs/operators.md); a latency-0
// operator has no state, so they are unused here by design.
/* verilator lint_off UNUSEDSIGNAL */
module fk_fp32_signum (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    logic nan, zero;
    assign nan  = (&a[30:23]) & (|a[22:0]);
    assign zero = a[30:0] == 31'd0;
    assign y    = (nan || zero) ? 32'd0 : {a[31], 31'h3F80_0000};
endmodule
/* verilator lint_on UNUSEDSIGNAL */
