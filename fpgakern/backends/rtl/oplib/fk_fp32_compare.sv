// float32 comparisons eq, ne, lt, le, gt, ge with IEEE-754 semantics: -0 == +0, and every
// comparison with a NaN operand is false except ne, which is true. Result: 1 bit.
// Latency 1 (a 31-bit magnitude compare, registered), II = 1.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */

// Combinational core: the relations of a to b.
module fk_fp32_compare (
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic        lt,         // a < b
    output logic        eq,         // a == b
    output logic        unordered   // a or b is NaN
);
    logic both_zero, mag_lt;

    always_comb begin
        unordered = ((&a[30:23]) & (|a[22:0])) | ((&b[30:23]) & (|b[22:0]));
        both_zero = (a[30:0] == 31'd0) && (b[30:0] == 31'd0);
        mag_lt    = a[30:0] < b[30:0];
        eq        = !unordered && (a == b || both_zero);
        // Sign-magnitude order: differing signs decide alone (the zeros aside); two
        // negatives order by reversed magnitude.
        if (a[31] != b[31]) lt = a[31];
        else                lt = a[31] ? (b[30:0] < a[30:0]) : mag_lt;
        lt = lt && !unordered && !both_zero;
    end
endmodule

module fk_fp32_eq (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(a), .b(b), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= eq;
    wire unused = lt | unordered;  // this relation needs eq only
endmodule

module fk_fp32_ne (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(a), .b(b), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= !eq;  // true for NaN operands
    wire unused = lt | unordered;
endmodule

module fk_fp32_lt (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(a), .b(b), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= lt;
    wire unused = eq | unordered;
endmodule

module fk_fp32_le (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(a), .b(b), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= lt | eq;
    wire unused = unordered;
endmodule

// a > b is b < a: the core with the operands swapped.
module fk_fp32_gt (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(b), .b(a), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= lt;
    wire unused = eq | unordered;
endmodule

module fk_fp32_ge (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic y
);
    logic lt, eq, unordered;
    fk_fp32_compare u_cmp (.a(b), .b(a), .lt(lt), .eq(eq), .unordered(unordered));
    always_ff @(posedge clk) if (ce) y <= lt | eq;
    wire unused = unordered;
endmodule
/* verilator lint_on DECLFILENAME */
