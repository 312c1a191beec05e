// fk_fft_bf: the radix-2 butterfly's sum and difference of complex samples a (the earlier
// element, x[j]) and b (x[j + h]): s = a + b, d = a - b, re and im separately, each one
// rounded float32 operation (fpgakern.ir.fft). Latency 6, ce-gated.
// Complex samples are 64 bits: re in [31:0], im in [63:32].
module fk_fft_bf (
    input  logic        clk,
    input  logic        ce,
    input  logic [63:0] a,
    input  logic [63:0] b,
    output logic [63:0] s,
    output logic [63:0] d
);
    // Verilated once, as a hierarchical block, however many instances a model has (a
    // simulator pragma): the lanes core has one per lane in every stage, and Verilator
    // otherwise emits each instance's logic again (the rung-4 rfft model: 84 MB of C++,
    // 66 s to build; as blocks, 16 s). fpgakern.verify.rtlsim builds them --hierarchical.
    /* verilator hier_block */
    /* verilator no_inline_module */
    fk_fp32_add u_sr (.clk(clk), .ce(ce), .a(a[31:0]),  .b(b[31:0]),  .y(s[31:0]));
    fk_fp32_add u_si (.clk(clk), .ce(ce), .a(a[63:32]), .b(b[63:32]), .y(s[63:32]));
    fk_fp32_sub u_dr (.clk(clk), .ce(ce), .a(a[31:0]),  .b(b[31:0]),  .y(d[31:0]));
    fk_fp32_sub u_di (.clk(clk), .ce(ce), .a(a[63:32]), .b(b[63:32]), .y(d[63:32]));
endmodule
