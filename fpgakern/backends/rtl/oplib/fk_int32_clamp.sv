// int32 clamp(x, lo, hi), as torch.clamp with tensor bounds: min(max(x, lo), hi), so
// lo > hi gives hi. Latency 1 (two signed compares in one cycle), II = 1.
module fk_int32_clamp (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,  // x
    input  logic [31:0] b,  // lo
    input  logic [31:0] c,  // hi
    output logic [31:0] y
);
    logic [31:0] above_lo;
    assign above_lo = ($signed(a) > $signed(b)) ? a : b;
    always_ff @(posedge clk) if (ce) y <= ($signed(above_lo) < $signed(c)) ? above_lo : c;
endmodule
