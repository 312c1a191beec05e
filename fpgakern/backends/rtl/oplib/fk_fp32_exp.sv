// fk_fp32_exp: y = e^x on float32, within 1 ulp of the correctly rounded result
// (op-table contract: <= 2 ulp against np.exp(float64(x)) rounded to float32).
//   exp(NaN) = NaN (canonical 0x7FC00000), exp(+inf) = +inf, exp(-inf) = +0;
//   results above the largest float round to +inf; results below the normal range are
//   rounded once into the subnormal range (through to +0), never flushed.
//
// fk_fp32_exp_core delivers e^x = M * 2^n with relative error < 2^-29; fk_fp32_exp_pack
// rounds it once (RNE) to float32, denormalizing first when the biased exponent
// n + 127 <= 0. Error bound: 0.5 ulp (rounding) + 2^-29 / 2^-24 ulp < 0.52 ulp, so at most
// 1 ulp.
//
// Pipeline, latency 15 ce-cycles, II = 1: 12 (core) + 3 (exponent and shift amount,
// denormalizing shift and sticky, round and pack).
// BASE2 = 1 gives 2^x instead (fk_fp32_exp2, same bound, same rounding; n in [-256, 255]).
module fk_fp32_exp #(
  parameter bit BASE2 = 1'b0
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  logic [1:0]        cls;
  logic signed [8:0] n;
  logic [31:0]       frac;
  logic              unused_side;
  fk_fp32_exp_core #(.SW(1), .BASE2(BASE2)) u_core (
    .clk, .ce, .a, .side_in(1'b0), .cls, .n, .frac, .side_out(unused_side)
  );
  fk_fp32_exp_pack u_pack (.clk, .ce, .cls, .sign(1'b0), .n, .frac, .y);
endmodule
