// fk_fft_scale: y = x * scale for both parts of a complex sample (re in [31:0], im in
// [63:32]), the reference's final float32 multiply. Latency 6, ce-gated.
module fk_fft_scale (
    input  logic        clk,
    input  logic        ce,
    input  logic [63:0] x,
    input  logic [31:0] scale,
    output logic [63:0] y
);
    // One C++ class for every instance in a Verilator model (a simulator pragma).
    /* verilator no_inline_module */
    fk_fp32_mul u_re (.clk(clk), .ce(ce), .a(x[31:0]),  .b(scale), .y(y[31:0]));
    fk_fp32_mul u_im (.clk(clk), .ce(ce), .a(x[63:32]), .b(scale), .y(y[63:32]));
endmodule
