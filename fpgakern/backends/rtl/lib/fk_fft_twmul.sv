// fk_fft_twmul: the butterfly's twiddle product in exactly the reference's float32
// operations (fpgakern.ir.fft; every product and sum rounded, never fused), d = x:
//     forward:  re = d.re*c + d.im*s      im = d.im*c - d.re*s
//     inverse:  re = d.re*c - d.im*s      im = d.im*c + d.re*s
// The four products are the same in both directions; the direction only picks which
// product enters each adder negated: p + (-q) is p - q bit for bit (fk_fp32_sub flips the
// sign of b and adds). Latency 12 (multiply 6, add 6), ce-gated; inverse must be steady.
module fk_fft_twmul (
    input  logic        clk,
    input  logic        ce,
    input  logic        inverse,
    input  logic [63:0] x,
    input  logic [31:0] c,
    input  logic [31:0] s,
    output logic [63:0] y
);
    // Verilated once, as a hierarchical block, however many instances a model has (a
    // simulator pragma): the lanes core has one per lane in every stage, and Verilator
    // otherwise emits each instance's logic again (the rung-4 rfft model: 84 MB of C++,
    // 66 s to build; as blocks, 16 s). fpgakern.verify.rtlsim builds them --hierarchical.
    /* verilator hier_block */
    /* verilator no_inline_module */
    logic [31:0] rc, is_, ic, rs;
    fk_fp32_mul u_rc (.clk(clk), .ce(ce), .a(x[31:0]),  .b(c), .y(rc));
    fk_fp32_mul u_is (.clk(clk), .ce(ce), .a(x[63:32]), .b(s), .y(is_));
    fk_fp32_mul u_ic (.clk(clk), .ce(ce), .a(x[63:32]), .b(c), .y(ic));
    fk_fp32_mul u_rs (.clk(clk), .ce(ce), .a(x[31:0]),  .b(s), .y(rs));
    fk_fp32_add u_re (.clk(clk), .ce(ce), .a(rc), .b({is_[31] ^ inverse, is_[30:0]}),
                      .y(y[31:0]));
    fk_fp32_add u_im (.clk(clk), .ce(ce), .a(ic), .b({rs[31] ^ !inverse, rs[30:0]}),
                      .y(y[63:32]));
endmodule
