// fk_fp32_sigmoid: y = 1 / (1 + e^-x) on float32, within 1 ulp of the correctly rounded
// result (op-table contract: <= 2 ulp against 1/(1+np.exp(-float64(x))) rounded to float32)
// over the whole range: results round to 1.0 for large x, and for x in about [-104, -87],
// where e^-x overflows float32, the small (subnormal) result is still computed, not 0.
//   sigmoid(NaN) = NaN (canonical 0x7FC00000), sigmoid(+inf) = 1, sigmoid(-inf) = +0.
//
// Both signs use w = e^-|x| in (0, 1], from fk_fp32_exp_core as M * 2^n (n <= 0) with
// relative error < 2^-29, so nothing overflows:
//   x >= 0:  y = 1 / (1 + w)
//   x <  0:  y = w / (1 + w) = M / (1 + w) * 2^n
// The numerator N (1 or M) and D = 1 + w are fixed point with 32 fraction bits, both in
// [1, 2]; the quotient comes from the shared restoring divider (fk_udiv_pipe, 25 bits:
// 24 significand bits + guard, remainder as sticky) and is rounded once, denormalized first
// when the exponent is below the normal range. y's relative error before rounding is below
// 2^-29 (the 2^-32 truncation of w inside D adds at most 2^-32), so |error| < 0.52 ulp.
//
// Pipeline, latency 30 ce-cycles, II = 1: 12 (core) + 1 (shift w into place) + 1 (N, D)
// + 1 (normalize the quotient) + 13 (recurrence) + 1 (denormalize) + 1 (round, pack).
module fk_fp32_sigmoid (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [1:0] CLS_NAN = 2'd1, CLS_UNF = 2'd3;

  // ---------------------------------------------------------------- 1-12: w = e^-|x|
  logic [1:0]        cls;
  logic signed [8:0] n;
  logic [31:0]       frac;
  logic              neg;      // x < 0
  fk_fp32_exp_core #(.SW(1)) u_core (
    .clk, .ce, .a({1'b1, a[30:0]}), .side_in(a[31]), .cls, .n, .frac, .side_out(neg)
  );

  // ---------------------------------------------------------------- 13: align w
  // n <= 0 because the core's input is -|x| (n = 0 only for w = 1 exactly).
  logic [8:0]  k;
  assign k = 9'd0 - n;
  logic [32:0] m11;            // M = 1.frac, units 2^-32
  logic [5:0]  k11;            // right shift of M giving w (34 clears it)
  logic [8:0]  n11;
  logic        neg11;
  logic [1:0]  cls11;
  always_ff @(posedge clk) begin
    if (ce) begin
      m11   <= {1'b1, frac};
      k11   <= k > 9'd34 ? 6'd34 : k[5:0];
      n11   <= n;
      neg11 <= neg;
      cls11 <= cls;
    end
  end

  // ---------------------------------------------------------------- 14: N and D
  logic [32:0] num12;          // N in [1, 2), units 2^-32
  logic [33:0] den12;          // D = 1 + w in [1, 2], units 2^-32
  logic [9:0]  e12;            // biased exponent of the result before normalization
  logic [1:0]  cls12;
  always_ff @(posedge clk) begin
    if (ce) begin
      num12 <= neg11 ? m11 : 33'h1_0000_0000;
      // |x| >= 128 leaves w = 0 (the core's n and M are meaningless then).
      den12 <= 34'h1_0000_0000 + (cls11 == CLS_UNF ? 34'd0 : {1'b0, m11 >> k11});
      e12   <= neg11 ? {n11[8], n11} + 10'd127 : 10'd127;
      cls12 <= neg11 ? cls11 : (cls11 == CLS_UNF ? 2'd0 : cls11);  // w -> 0: y = 1/1
    end
  end

  // ---------------------------------------------------------------- 15: normalize N / D
  // N < D: double N so the quotient lands in [1, 2) (its first bit is the hidden one).
  logic        n_lt_d;
  logic [33:0] dividend;       // in [D, 2D)
  assign n_lt_d   = {1'b0, num12} < den12;
  assign dividend = n_lt_d ? {num12, 1'b0} : {1'b0, num12};

  localparam int SW = 10 + 2;
  logic [33:0]   rem_in, d_in;
  logic [24:0]   qa_in;
  logic [SW-1:0] side_in;
  always_ff @(posedge clk) begin
    if (ce) begin
      rem_in  <= {1'b0, dividend[33:1]};
      qa_in   <= {dividend[0], 24'd0};
      d_in    <= den12;
      side_in <= {cls12, n_lt_d ? e12 - 10'd1 : e12};
    end
  end

  // ---------------------------------------------------------------- 16-28: N / D
  logic [24:0]   quot;         // floor(dividend * 2^24 / D), in [2^24, 2^25)
  logic [33:0]   rem;
  logic [SW-1:0] side;
  fk_udiv_pipe #(.DW(34), .QW(25), .PER_STAGE(2), .SW(SW)) u_div (
    .clk, .ce, .rem_in, .qa_in, .d_in, .side_in, .q(quot), .rem, .side_out(side)
  );

  // ---------------------------------------------------------------- 29: denormalize
  logic signed [9:0] e_div;      // in [-59, 127]
  assign e_div = side[9:0];
  logic [24:0] q27;
  logic        sticky27;
  logic [7:0]  exp27;
  logic [1:0]  cls27;
  logic [4:0]  sh;
  assign sh = e_div > 10'sd0 ? 5'd0 : (e_div < -10'sd25 ? 5'd26 : 5'(10'sd1 - e_div));
  always_ff @(posedge clk) begin
    if (ce) begin
      q27      <= quot >> sh;
      sticky27 <= (rem != 34'd0) || ((quot & ~({25{1'b1}} << sh)) != 25'd0);
      exp27    <= e_div > 10'sd0 ? e_div[7:0] : 8'd0;
      cls27    <= side[11:10];
    end
  end

  // ---------------------------------------------------------------- 30: round, pack
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(1'b0), .exp(exp27), .frac(q27[23:1]), .guard(q27[0]), .sticky(sticky27),
    .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (cls27)
        CLS_NAN: y <= 32'h7FC0_0000;
        CLS_UNF: y <= 32'h0000_0000;  // x <= -128: below half the smallest subnormal
        default: y <= rounded;
      endcase
    end
  end

  // The hidden bit is implied by the exponent field.
  logic unused;
  assign unused = q27[24];
endmodule
