// fk_fp32_div: IEEE-754 binary32 division, round to nearest even, subnormal inputs and
// outputs handled per IEEE (no flushing): bit-exact with numpy float32 '/'.
// NaN results are the canonical quiet NaN 0x7FC00000 (numpy's payloads are not reproduced).
//
// Algorithm: normalize both significands to [1,2) (subnormals by their leading-zero count),
// pre-shift the dividend so the quotient lies in [1,2), then a radix-2 restoring recurrence
// (fk_udiv_pipe, 2 bits per stage) computes 25 quotient bits: 24 significand bits plus the
// round bit, and the remainder gives the sticky bit. Results below the normal range are
// shifted right (the shifted-out bits join the sticky) before the single rounding, so
// subnormal results are correctly rounded too.
//
// Pipeline, latency 18 ce-cycles, II = 1:
//   1     classify, leading-zero counts
//   2     normalize significands, exponent difference
//   3     compare significands, set up the recurrence
//   4-16  13 recurrence stages (25 quotient bits)
//   17    denormalizing shift and sticky
//   18    round and pack, special cases
module fk_fp32_div (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  // Special-result codes carried down the pipeline.
  localparam logic [1:0] SP_NONE = 2'd0, SP_NAN = 2'd1, SP_INF = 2'd2, SP_ZERO = 2'd3;

  // ---------------------------------------------------------------- stage 1: classify
  logic [7:0]  ea, eb;
  logic [22:0] fa, fb;
  logic        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  assign ea = a[30:23];
  assign eb = b[30:23];
  assign fa = a[22:0];
  assign fb = b[22:0];
  assign a_nan  = ea == 8'hFF && fa != 23'd0;
  assign b_nan  = eb == 8'hFF && fb != 23'd0;
  assign a_inf  = ea == 8'hFF && fa == 23'd0;
  assign b_inf  = eb == 8'hFF && fb == 23'd0;
  assign a_zero = ea == 8'd0 && fa == 23'd0;
  assign b_zero = eb == 8'd0 && fb == 23'd0;

  logic [4:0]  lza, lzb;
  fk_lzc #(.W(24)) u_lza (.x({ea != 8'd0, fa}), .count(lza));
  fk_lzc #(.W(24)) u_lzb (.x({eb != 8'd0, fb}), .count(lzb));

  logic [1:0]  sp1;
  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf) || (a_zero && b_zero)) sp1 = SP_NAN;
    else if (a_inf || b_zero)                                     sp1 = SP_INF;
    else if (a_zero || b_inf)                                     sp1 = SP_ZERO;
    else                                                          sp1 = SP_NONE;
  end

  logic [23:0] ma1, mb1;
  logic [7:0]  ea1, eb1;      // effective biased exponents (1 for subnormals)
  logic [4:0]  lza1, lzb1;
  logic        sign1;
  logic [1:0]  sp1_q;
  always_ff @(posedge clk) begin
    if (ce) begin
      ma1   <= {ea != 8'd0, fa};
      mb1   <= {eb != 8'd0, fb};
      ea1   <= ea == 8'd0 ? 8'd1 : ea;
      eb1   <= eb == 8'd0 ? 8'd1 : eb;
      lza1  <= lza;
      lzb1  <= lzb;
      sign1 <= a[31] ^ b[31];
      sp1_q <= sp1;
    end
  end

  // ---------------------------------------------------------------- stage 2: normalize
  // Result exponent (biased, before the quotient normalization): (ea-lza) - (eb-lzb) + 127,
  // in [-149, 404]: 11-bit two's complement.
  logic [23:0] ma2, mb2;
  logic [10:0] e2;
  logic        sign2;
  logic [1:0]  sp2;
  always_ff @(posedge clk) begin
    if (ce) begin
      ma2   <= ma1 << lza1;
      mb2   <= mb1 << lzb1;
      e2    <= {3'd0, ea1} - {6'd0, lza1} - {3'd0, eb1} + {6'd0, lzb1} + 11'd127;
      sign2 <= sign1;
      sp2   <= sp1_q;
    end
  end

  // ---------------------------------------------------------------- stage 3: set up
  // A dividend below the divisor is doubled (and the exponent decremented) so that the
  // quotient is in [1,2) and its first bit is the hidden one.
  logic        a_lt_b;
  logic [24:0] dividend;
  logic [10:0] e3;
  assign a_lt_b   = ma2 < mb2;
  assign dividend = a_lt_b ? {ma2, 1'b0} : {1'b0, ma2};
  assign e3       = a_lt_b ? e2 - 11'd1 : e2;

  localparam int SW = 1 + 2 + 11;
  logic [23:0] rem_in, d_in;
  logic [24:0] qa_in;
  logic [SW-1:0] side_in;
  always_ff @(posedge clk) begin
    if (ce) begin
      rem_in  <= dividend[24:1];
      qa_in   <= {dividend[0], 24'd0};
      d_in    <= mb2;
      side_in <= {sign2, sp2, e3};
    end
  end

  // ---------------------------------------------------------------- stages 4-16: recurrence
  logic [24:0]   quot;        // floor(dividend * 2^24 / divisor), in [2^24, 2^25)
  logic [23:0]   rem;
  logic [SW-1:0] side;
  fk_udiv_pipe #(.DW(24), .QW(25), .PER_STAGE(2), .SW(SW)) u_div (
    .clk, .ce, .rem_in, .qa_in, .d_in, .side_in, .q(quot), .rem, .side_out(side)
  );

  // ---------------------------------------------------------------- stage 17: denormalize
  // For a biased exponent e <= 0 the result is subnormal: shift right by 1-e (clamped; 26
  // already moves every quotient bit into the sticky) and pack with exponent field 0.
  logic [10:0] e16;
  assign e16 = side[10:0];
  logic        subnormal;
  logic [10:0] sh_full;
  logic [4:0]  sh;
  assign subnormal = e16[10] || e16 == 11'd0;
  assign sh_full   = 11'd1 - e16;
  assign sh        = !subnormal ? 5'd0 : (sh_full > 11'd26 ? 5'd26 : sh_full[4:0]);

  logic [24:0] q17;
  logic        sticky17, sign17;
  logic [10:0] exp17;         // biased exponent field, 0 for subnormals, >= 255 overflows
  logic [1:0]  sp17;
  always_ff @(posedge clk) begin
    if (ce) begin
      q17      <= quot >> sh;
      sticky17 <= (rem != 24'd0) || ((quot & ~(25'h1FF_FFFF << sh)) != 25'd0);
      exp17    <= subnormal ? 11'd0 : e16;
      sign17   <= side[13];
      sp17     <= side[12:11];
    end
  end

  // ---------------------------------------------------------------- stage 18: round, pack
  // q17 = {hidden, 23 fraction bits, guard}; fk_fp32_round adds the rounding increment to
  // {exponent, fraction}, so carries into the exponent (and 254 -> inf) come for free.
  logic [31:0] rounded;
  fk_fp32_round #(.EW(11)) u_round (
    .sign(sign17), .exp(exp17), .frac(q17[23:1]), .guard(q17[0]), .sticky(sticky17),
    .y(rounded)
  );

  always_ff @(posedge clk) begin
    if (ce) begin
      case (sp17)
        SP_NAN:  y <= 32'h7FC0_0000;
        SP_INF:  y <= {sign17, 31'h7F80_0000};
        SP_ZERO: y <= {sign17, 31'd0};
        default: y <= rounded;
      endcase
    end
  end

  // The hidden bit is implied by the exponent field.
  logic unused;
  assign unused = q17[24];
endmodule
