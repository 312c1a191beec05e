// float32 rounding to an integral value: trunc, floor, ceil and round (half to even, as
// torch.round), each correctly rounded (the result is an exact integer, so IEEE leaves
// no choice). Signed zeros follow IEEE: trunc(-0.5) = ceil(-0.5) = round(-0.5) = -0.
// Subnormals are handled as IEEE says (floor(-tiny) = -1, ceil(+tiny) = +1). A NaN
// operand gives the canonical quiet NaN 0x7FC00000, as the arithmetic operators do.
// Latency 1 (combinational, then the output register), II = 1.
//
// |x| >= 2^23 (biased exponent >= 150) is integral already. 1 <= |x| < 2^23 has
// k = 150 - exponent fraction bits below the binary point: they are cleared, and
// rounding away from zero adds 2^k to the packed {exponent, fraction}, where a carry
// out of the fraction correctly moves into the next binade (1.11..1 -> 10.0).
// |x| < 1 rounds to a zero of x's sign or to +-1.0.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */
module fk_fp32_rint #(
    parameter int MODE = 0  // 0: trunc, 1: floor, 2: ceil, 3: round half to even
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    localparam int TRUNC = 0, FLOOR = 1, CEIL = 2;

    logic [7:0]  e;
    logic        sign, nan, below_one;
    logic [4:0]  k;        // fraction bits below the binary point (1..23 when used)
    logic [22:0] low;      // mask of those bits
    logic [22:0] rest;     // the fraction bits that are cleared
    logic [22:0] half;     // the weight of the first cleared bit
    logic        inexact, away;
    logic [30:0] magnitude;
    logic [31:0] result;

    always_comb begin
        e         = a[30:23];
        sign      = a[31];
        nan       = (&e) & (|a[22:0]);
        below_one = e < 8'd127;
        // Only meaningful for 127 <= e < 150 (k in 1..23); clamped so the shifts stay in
        // range for the other exponents, whose results are chosen below.
        k         = (e >= 8'd127 && e < 8'd150) ? 5'(8'd150 - e) : 5'd1;
        low       = (23'd1 << k) - 23'd1;
        half      = 23'd1 << (k - 5'd1);
        rest      = a[22:0] & low;
        inexact   = rest != 23'd0;
        unique case (MODE)
            TRUNC:   away = 1'b0;
            FLOOR:   away = sign & inexact;
            CEIL:    away = ~sign & inexact;
            // Ties go to the even integer: the last integer bit is the implicit 1 when
            // k = 23 (1 <= |x| < 2), else fraction bit k.
            default: away = (rest > half) || (rest == half && (k == 5'd23 || a[k]));
        endcase
        magnitude = {e, a[22:0] & ~low} + (away ? 31'(32'd1 << k) : 31'd0);

        if (nan) begin
            result = 32'h7FC0_0000;
        end else if (e >= 8'd150) begin
            result = a;  // integral already (and +-inf)
        end else if (below_one) begin
            // |x| < 1: to +-0 or to +-1.0; x = +-0 stays as it is.
            unique case (MODE)
                TRUNC:   result = {sign, 31'd0};
                FLOOR:   result = (sign && a[30:0] != 31'd0) ? 32'hBF80_0000 : {sign, 31'd0};
                CEIL:    result = (!sign && a[30:0] != 31'd0) ? 32'h3F80_0000 : {sign, 31'd0};
                // More than one half (exponent 126, fraction not 0) rounds to 1; exactly
                // one half ties to the even 0.
                default: result = (e == 8'd126 && a[22:0] != 23'd0) ? {sign, 31'h3F80_0000}
                                                                    : {sign, 31'd0};
            endcase
        end else begin
            result = {sign, magnitude};
        end
    end

    always_ff @(posedge clk) begin
        if (ce) y <= result;
    end
endmodule

module fk_fp32_trunc (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    fk_fp32_rint #(.MODE(0)) u_core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule

module fk_fp32_floor (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    fk_fp32_rint #(.MODE(1)) u_core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule

module fk_fp32_ceil (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    fk_fp32_rint #(.MODE(2)) u_core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule

module fk_fp32_round_even (
    input  logic clk, input logic ce, input logic [31:0] a,
    output logic [31:0] y
);
    fk_fp32_rint #(.MODE(3)) u_core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule
/* verilator lint_on DECLFILENAME */
