// fk_fp32_exp: y = e^x on float32, within 1 ulp of the correctly rounded result
// (op-table contract: <= 2 ulp against np.exp(float64(x)) rounded to float32).
//   exp(NaN) = NaN (canonical 0x7FC00000), exp(+inf) = +inf, exp(-inf) = +0;
//   results above the largest float round to +inf; results below the normal range are
//   rounded once into the subnormal range (through to +0), never flushed.
//
// fk_fp32_exp_core delivers e^x = M * 2^n with relative error < 2^-29; this wrapper rounds
// it once (RNE) to float32, denormalizing first when the biased exponent n + 127 <= 0.
// Error bound: 0.5 ulp (rounding) + 2^-29 / 2^-24 ulp < 0.52 ulp, so at most 1 ulp.
//
// Pipeline, latency 15 ce-cycles, II = 1: 12 (core) + 1 (exponent, shift amount)
// + 1 (denormalizing shift, sticky) + 1 (round, pack, special cases).
// BASE2 = 1 gives 2^x instead (fk_fp32_exp2, same bound, same rounding; n in [-256, 255]).
module fk_fp32_exp #(
  parameter bit BASE2 = 1'b0
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [1:0] CLS_NAN = 2'd1, CLS_OVF = 2'd2, CLS_UNF = 2'd3;

  logic [1:0]        cls;
  logic signed [8:0] n;
  logic [31:0]       frac;
  logic              unused_side;
  fk_fp32_exp_core #(.SW(1), .BASE2(BASE2)) u_core (
    .clk, .ce, .a, .side_in(1'b0), .cls, .n, .frac, .side_out(unused_side)
  );

  // ---------------------------------------------------------------- 13: exponent
  logic signed [9:0] eb;          // biased exponent, in [-58, 311] (BASE2: [-129, 382])
  assign eb = 10'(n) + 10'sd127;
  logic [32:0] m11;               // 1.frac
  logic [5:0]  sh11;              // right shift into the subnormal range (34 clears all)
  logic [9:0]  exp11;             // exponent field for fk_fp32_round; >= 255 overflows
  logic [1:0]  cls11;
  always_ff @(posedge clk) begin
    if (ce) begin
      m11   <= {1'b1, frac};
      sh11  <= eb > 10'sd0 ? 6'd0 : (eb < -10'sd33 ? 6'd34 : 6'(10'sd1 - eb));
      exp11 <= eb > 10'sd0 ? eb : 10'd0;
      cls11 <= cls;
    end
  end

  // ---------------------------------------------------------------- 14: denormalize
  logic [32:0] m12;
  logic        lost12;            // a one was shifted out: part of the sticky bit
  logic [9:0]  exp12;
  logic [1:0]  cls12;
  always_ff @(posedge clk) begin
    if (ce) begin
      m12    <= m11 >> sh11;
      lost12 <= (m11 & ~({33{1'b1}} << sh11)) != 33'd0;
      exp12  <= exp11;
      cls12  <= cls11;
    end
  end

  // ---------------------------------------------------------------- 15: round, pack
  // m12 = {hidden, 23 fraction bits, guard, 8 more bits that join the sticky}.
  logic [31:0] rounded;
  fk_fp32_round #(.EW(10)) u_round (
    .sign(1'b0), .exp(exp12), .frac(m12[31:9]), .guard(m12[8]),
    .sticky(lost12 || m12[7:0] != 8'd0), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (cls12)
        CLS_NAN: y <= 32'h7FC0_0000;
        CLS_OVF: y <= 32'h7F80_0000;
        CLS_UNF: y <= 32'h0000_0000;
        default: y <= rounded;
      endcase
    end
  end

  // The hidden bit is implied by the exponent field.
  logic unused;
  assign unused = m12[32] ^ unused_side;
endmodule
