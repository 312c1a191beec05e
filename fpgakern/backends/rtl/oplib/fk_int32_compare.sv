// int32 (signed) comparisons eq, ne, lt, le, gt, ge (1-bit result) and maximum/minimum.
// Latency 1 (a 32-bit compare, registered), II = 1.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */
module fk_int32_compare #(
    parameter int REL = 0  // 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic        y
);
    logic r;
    always_comb begin
        case (REL)
            0:       r = a == b;
            1:       r = a != b;
            2:       r = $signed(a) <  $signed(b);
            3:       r = $signed(a) <= $signed(b);
            4:       r = $signed(a) >  $signed(b);
            default: r = $signed(a) >= $signed(b);
        endcase
    end
    always_ff @(posedge clk) if (ce) y <= r;
endmodule

module fk_int32_eq (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(0)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_int32_ne (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(1)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_int32_lt (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(2)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_int32_le (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(3)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_int32_gt (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(4)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

module fk_int32_ge (
    input logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b, output logic y
);
    fk_int32_compare #(.REL(5)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

// maximum / minimum: the larger / smaller signed operand.
module fk_int32_maximum (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= ($signed(a) > $signed(b)) ? a : b;
endmodule

module fk_int32_minimum (
    input  logic clk, input logic ce, input logic [31:0] a, input logic [31:0] b,
    output logic [31:0] y
);
    always_ff @(posedge clk) if (ce) y <= ($signed(a) < $signed(b)) ? a : b;
endmodule
/* verilator lint_on DECLFILENAME */
