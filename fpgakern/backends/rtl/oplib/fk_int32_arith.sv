// int32 arithmetic operators: add, sub, mul and fma (low 32 bits), neg, abs. Two's
// complement, wrapping like C/torch int32: INT32_MIN + -1 wraps, -INT32_MIN and
// |INT32_MIN| give INT32_MIN. Interface and timing contract: docs/operators.md.
//
// One file holds the whole family, so every module after the first is named differently
// from the file by design:
/* verilator lint_off DECLFILENAME */

// Latency 1: one 32-bit carry chain, registered.
module fk_int32_add (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= a + b;
endmodule

// Latency 1.
module fk_int32_sub (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= a - b;
endmodule

// Latency 3: operand registers, product register, output register, the pipeline a
// DSP48E2 cascade absorbs (AREG/MREG/PREG). Only the low 32 bits are kept, which are the
// same for signed and unsigned operands.
module fk_int32_mul (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    logic [31:0] a_r, b_r, p_r;
    always_ff @(posedge clk) begin
        if (ce) begin
            a_r <= a;
            b_r <= b;
            p_r <= a_r * b_r;
            y   <= p_r;
        end
    end
endmodule

// Latency 3: a * b + c, the low 32 bits. The DSP48E2 pipeline of fk_int32_mul with the
// addend joining in the last stage, where the DSP's post-adder (C port) absorbs it.
module fk_int32_fma (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] y
);
    logic [31:0] a_r, b_r, c_r, c_rr, p_r;
    always_ff @(posedge clk) begin
        if (ce) begin
            a_r  <= a;
            b_r  <= b;
            c_r  <= c;
            p_r  <= a_r * b_r;
            c_rr <= c_r;
            y    <= p_r + c_rr;
        end
    end
endmodule

// Latency 1: 0 - a.
module fk_int32_neg (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= 32'd0 - a;
endmodule

// Latency 1: a < 0 ? -a : a.
module fk_int32_abs (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= a[31] ? 32'd0 - a : a;
endmodule
/* verilator lint_on DECLFILENAME */
