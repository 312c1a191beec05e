// fk_fp32_exp_pack: rounds an exponential's unrounded result M * 2^n (M = 1.frac in
// [1, 2), from fk_fp32_exp_core or fk_fp32_exp2_fixed) once to float32, round to nearest
// even, with the given sign: denormalized first when the biased exponent n + 127 <= 0
// (subnormal results rounded once, through to zero, never flushed), rounded to infinity
// when the result reaches 2^128. Shared by fk_fp32_exp (sign 0) and fk_fp32_pow.
//   cls: 0 the finite result M * 2^n; 1 NaN (canonical 0x7FC00000); 2 infinity;
//   3 zero (infinity and zero carry the sign, NaN does not).
// n in [-256, 255]. Latency 3 ce-cycles, II = 1: 1 (exponent, shift amount)
// + 1 (denormalizing shift, sticky) + 1 (round, pack, special cases).
module fk_fp32_exp_pack (
  input  logic              clk,
  input  logic              ce,
  input  logic [1:0]        cls,
  input  logic              sign,
  input  logic signed [8:0] n,
  input  logic [31:0]       frac,
  output logic [31:0]       y
);
  localparam logic [1:0] CLS_NAN = 2'd1, CLS_OVF = 2'd2, CLS_UNF = 2'd3;

  // ---------------------------------------------------------------- 1: exponent
  logic signed [9:0] eb;          // biased exponent, in [-129, 382]
  assign eb = 10'(n) + 10'sd127;
  logic [32:0] m11;               // 1.frac
  logic [5:0]  sh11;              // right shift into the subnormal range (34 clears all)
  logic [9:0]  exp11;             // exponent field for fk_fp32_round; >= 255 overflows
  logic [1:0]  cls11;
  logic        sign11;
  always_ff @(posedge clk) begin
    if (ce) begin
      m11    <= {1'b1, frac};
      sh11   <= eb > 10'sd0 ? 6'd0 : (eb < -10'sd33 ? 6'd34 : 6'(10'sd1 - eb));
      exp11  <= eb > 10'sd0 ? eb : 10'd0;
      cls11  <= cls;
      sign11 <= sign;
    end
  end

  // ---------------------------------------------------------------- 2: denormalize
  logic [32:0] m12;
  logic        lost12;            // a one was shifted out: part of the sticky bit
  logic [9:0]  exp12;
  logic [1:0]  cls12;
  logic        sign12;
  always_ff @(posedge clk) begin
    if (ce) begin
      m12    <= m11 >> sh11;
      lost12 <= (m11 & ~({33{1'b1}} << sh11)) != 33'd0;
      exp12  <= exp11;
      cls12  <= cls11;
      sign12 <= sign11;
    end
  end

  // ---------------------------------------------------------------- 3: round, pack
  // m12 = {hidden, 23 fraction bits, guard, 8 more bits that join the sticky}.
  logic [31:0] rounded;
  fk_fp32_round #(.EW(10)) u_round (
    .sign(sign12), .exp(exp12), .frac(m12[31:9]), .guard(m12[8]),
    .sticky(lost12 || m12[7:0] != 8'd0), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (cls12)
        CLS_NAN: y <= 32'h7FC0_0000;
        CLS_OVF: y <= {sign12, 31'h7F80_0000};
        CLS_UNF: y <= {sign12, 31'h0};
        default: y <= rounded;
      endcase
    end
  end

  // The hidden bit is implied by the exponent field.
  logic unused;
  assign unused = m12[32];
endmodule
