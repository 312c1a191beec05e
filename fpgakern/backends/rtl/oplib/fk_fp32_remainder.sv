// fk_fp32_remainder: torch.remainder on float32 (Python's %, the result takes b's sign),
// as torch's CPU kernel computes it: r = fmod(a, b); if r != 0 and r's sign differs from
// b's, r + b, one IEEE addition rounded to nearest even (remainder(-1e-30, 1) = 1.0).
//   remainder(-0, 1) = -0 (r = 0 is kept);  remainder(-5, inf) = inf (r + b);
//   remainder(x, +-0), remainder(+-inf, y), NaN operands: the canonical NaN 0x7FC00000.
// Subnormal operands and results exact.
//
// fk_fp32_fmod (latency 142), then fk_fp32_add (latency 6) of r and either b (delayed 142
// cycles alongside) or -0, which leaves every r unchanged (x + -0 = x, -0 + -0 = -0, a NaN
// becomes the canonical NaN, which it already is). Latency 148 ce-cycles, II = 1.
module fk_fp32_remainder (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  localparam int FMOD_LATENCY = 142;

  logic [31:0] r;
  fk_fp32_fmod u_fmod (.clk, .ce, .a, .b, .y(r));

  logic [FMOD_LATENCY-1:0][31:0] b_q;
  always_ff @(posedge clk) begin
    if (ce) b_q <= {b_q[FMOD_LATENCY-2:0], b};
  end

  logic [31:0] b_r, addend;
  logic        adjust;
  assign b_r    = b_q[FMOD_LATENCY-1];
  assign adjust = r[30:0] != 31'd0 && r[31] != b_r[31];
  assign addend = adjust ? b_r : 32'h8000_0000;

  fk_fp32_add u_add (.clk, .ce, .a(r), .b(addend), .y);
endmodule
