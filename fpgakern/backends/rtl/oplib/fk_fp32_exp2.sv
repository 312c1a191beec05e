// fk_fp32_exp2: y = 2^x on float32 (torch.exp2), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR). fk_fp32_exp with BASE2 = 1: the exp core
// takes t = x exactly instead of x * log2(e), then the same table, polynomial and single
// rounding (denormalized into the subnormal range when needed, never flushed).
//   exp2(NaN) = NaN (canonical 0x7FC00000), exp2(+inf) = +inf, exp2(-inf) = +0;
//   exp2(x >= 128) = +inf, exp2(x <= -150) = +0 (2^-150 is the tie below the smallest
//   subnormal, rounded to even), exp2 of an integer in [-149, 127] is exact.
// Latency 15 ce-cycles, II = 1.
module fk_fp32_exp2 (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  fk_fp32_exp #(.BASE2(1'b1)) u_exp (.clk, .ce, .a, .y);
endmodule
