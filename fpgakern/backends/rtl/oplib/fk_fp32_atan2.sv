// fk_fp32_atan2: atan2(y, x) on float32 (torch.atan2(input = y, other = x)), within 1 ulp
// of the correctly rounded result (op-table contract: 2 ulp against MPFR). Port a is y,
// port b is x.
//
// Range reduction. With n = min(|y|, |x|) and d = max(|y|, |x|) (subnormals normalized by
// their leading-zero count), r = n / d is in [0, 1] and
//   |y| <= |x|, x > 0:  A = atan(r)            in [0, pi/4]
//   |y| >  |x|, x > 0:  A = pi/2 - atan(r)     in (pi/4, pi/2]
//   |y| <= |x|, x < 0:  A = pi - atan(r)       in [3pi/4, pi]
//   |y| >  |x|, x < 0:  A = pi/2 + atan(r)     in (pi/2, 3pi/4)
// and atan2(y, x) = sign(y) * A ("x < 0" is x's sign bit). The divider (fk_udiv_pipe,
// 32 quotient bits) gives r = q * 2^-k, q = Q * 2^-31 in [1, 2), k >= 0, and the remainder
// as a sticky bit s: Q' = 2Q + s (units 2^-32) is within 2^-32 of q, on the right side of
// every multiple of 2^-31.
//
// atan(r) = r * g(r), g(r) = atan(r) / r in (0.78, 1]. For k >= 16 (r < 2^-15), g is taken
// as 1 - 2^-34 (g = 1 - r^2/3 + ..., so the error is below 2^-31.5). Otherwise r is cut
// into 64 intervals of width 2^-6 by its top bits (r = 1 in the last one), t = r - c_i in
// [-2^-7, 2^-7] and g = C0 + t(C1 + t(C2 + t C3)), the cubic through g at the interval's
// Chebyshev nodes (gen_atan_table.py, coefficients with 34 fraction bits), in signed fixed
// point with each product floored to 34 fraction bits, and saturated below 1. The product
// P = Q' * G (G = g * 2^34) is exact.
//
// Error budget (relative to the result, before the single RNE rounding):
//   g: cubic with rounded coefficients 2^-33.0 (gen_atan_table.py), three floors
//      2^-34 (1 + 2^-7 + 2^-14), r truncated to 31 fraction bits with |g'| <= 0.29
//      2^-32.8: together below 2^-31.6, relative (g > 0.78) below 2^-31.3;
//   q: 2^-32; so q * g is within 2^-30.7 relative of r * g(r).
//   A = atan(r): P normalized and scaled by 2^-k, subnormal results shifted right with
//     every bit kept as sticky: 2^-30.7 relative, under 1/64 ulp.
//   A = pi/2 - atan(r), pi - atan(r), pi/2 + atan(r): atan(r) <= pi/4 to 2^-31 absolute,
//     truncated to 40 fraction bits (2^-40), pi and pi/2 rounded to 40 fraction bits
//     (2^-41). The subtraction cannot cancel: pi/2 - atan(r) > pi/4 and
//     pi - atan(r) >= 3pi/4, so A >= pi/4 > 1/2 where an ulp is >= 2^-24: under 1/128 ulp.
// Hence the result is within 1/2 + 1/64 ulp of atan2(y, x): at most 1 ulp from the
// correctly rounded result. For k >= 30 (r < 2^-29, every subnormal result among them)
// the result is the correctly rounded one: atan(r) = r(1 - e), 0 < e < 2^-58, lies in
// the same open interval between multiples of 2^-31 (in q's units) as Q' * (1 - 2^-34),
// and every rounding boundary is such a multiple, so both round alike (ties included:
// y/x exactly halfway between two subnormals rounds down, as atan(y/x) < y/x does).
//
// Special values (C99 Annex F, as torch): NaN in either operand gives the canonical NaN
// 0x7FC00000; atan2(+-0, x) = +-0 for x = +0 or x > 0 (+inf included) and +-pi for
// x = -0 or x < 0 (-inf included); atan2(y, +-0) = +-pi/2 for finite y != 0;
// atan2(+-y, +inf) = +-0 and atan2(+-y, -inf) = +-pi for finite y != 0;
// atan2(+-inf, x) = +-pi/2 for finite x, +-pi/4 for x = +inf, +-3pi/4 for x = -inf
// (pi, pi/2, pi/4 and 3pi/4 rounded to float32).
//
// Pipeline, latency 31 ce-cycles, II = 1: 1 (classify, order, leading zeros) + 1
// (normalize) + 1 (align the dividend) + 16 (recurrence, 2 bits per stage) + 1 (r, index,
// t) + 1 (table) + 6 (Horner: product, add) + 1 (Q' * G) + 1 (normalize or scale)
// + 1 (subnormal shift or add to pi, pi/2) + 1 (normalize, round, pack, select).
module fk_fp32_atan2 (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,   // y (torch's input)
  input  logic [31:0] b,   // x (torch's other)
  output logic [31:0] y
);
  // Result classes carried down the pipeline: computed, or a constant.
  localparam logic [2:0] SP_GEN = 3'd0, SP_NAN = 3'd1, SP_ZERO = 3'd2, SP_PI4 = 3'd3,
                         SP_PI2 = 3'd4, SP_3PI4 = 3'd5, SP_PI = 3'd6;
  // pi and pi/2 times 2^40, rounded (gen_atan_table.py prints them).
  localparam logic [41:0] PI_Q40      = 42'd3454217652358;
  localparam logic [41:0] HALF_PI_Q40 = 42'd1727108826179;
  localparam logic [33:0] G_MAX = 34'h3_FFFF_FFFF;  // 1 - 2^-34: g < 1 for every r > 0
  localparam int SIDE = 3 + 3 + 9;  // {class, sign of y, x < 0, swapped, k}

  // ---------------------------------------------------------------- 1: classify, order
  // |y| and |x| as {significand with the hidden bit, effective exponent, leading zeros}
  logic [36:0] ua, ub;
  logic        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  fk_fp32_unpack u_unpack_a (.mag(a[30:0]), .nan(a_nan), .inf(a_inf), .zero(a_zero),
                             .m(ua[36:13]), .e(ua[12:5]), .lz(ua[4:0]));
  fk_fp32_unpack u_unpack_b (.mag(b[30:0]), .nan(b_nan), .inf(b_inf), .zero(b_zero),
                             .m(ub[36:13]), .e(ub[12:5]), .lz(ub[4:0]));

  logic [2:0] cls0;
  always_comb begin
    if (a_nan || b_nan)  cls0 = SP_NAN;
    else if (a_inf)      cls0 = b_inf ? (b[31] ? SP_3PI4 : SP_PI4) : SP_PI2;
    else if (b_inf)      cls0 = b[31] ? SP_PI : SP_ZERO;
    else if (a_zero)     cls0 = b[31] ? SP_PI : SP_ZERO;
    else if (b_zero)     cls0 = SP_PI2;
    else                 cls0 = SP_GEN;
  end

  // Finite magnitudes order as their bit patterns: n = min, d = max.
  logic        swap0;
  assign swap0 = a[30:0] > b[30:0];
  logic [23:0] mn0, md0;
  logic [7:0]  en0, ed0;
  logic [4:0]  lzn0, lzd0;
  assign {mn0, en0, lzn0} = swap0 ? ub : ua;
  assign {md0, ed0, lzd0} = swap0 ? ua : ub;

  logic [23:0] mn1, md1;
  logic [8:0]  en1, ed1;       // exponent fields (1 for subnormals) minus leading zeros, + 23
  logic [4:0]  lzn1, lzd1;
  logic [5:0]  flags1;         // {class, sign of y, x < 0, swapped}
  always_ff @(posedge clk) begin
    if (ce) begin
      mn1    <= mn0;
      md1    <= md0;
      en1    <= {1'b0, en0} + 9'd23 - {4'd0, lzn0};
      ed1    <= {1'b0, ed0} + 9'd23 - {4'd0, lzd0};
      lzn1   <= lzn0;
      lzd1   <= lzd0;
      flags1 <= {cls0, a[31], b[31], swap0};
    end
  end

  // ---------------------------------------------------------------- 2: normalize
  // n = mn * 2^(en - 23 - 127 - 23), d likewise; k0 = ed - en >= 0 as n <= d.
  logic [23:0] mn2, md2;
  logic [8:0]  k02;
  logic [5:0]  flags2;
  always_ff @(posedge clk) begin
    if (ce) begin
      mn2    <= mn1 << lzn1;
      md2    <= md1 << lzd1;
      k02    <= ed1 - en1;
      flags2 <= flags1;
    end
  end

  // ---------------------------------------------------------------- 3: dividend in [d, 2d)
  logic        lt2;
  logic [24:0] dividend;
  assign lt2 = mn2 < md2;
  assign dividend = lt2 ? {mn2, 1'b0} : {1'b0, mn2};
  logic [23:0]     rem_in, d_in;
  logic [31:0]     qa_in;
  logic [SIDE-1:0] side_in;
  always_ff @(posedge clk) begin
    if (ce) begin
      rem_in  <= dividend[24:1];
      qa_in   <= {dividend[0], 31'd0};
      d_in    <= md2;
      side_in <= {flags2, k02 + {8'd0, lt2}};  // r = q * 2^-k
    end
  end

  // ---------------------------------------------------------------- 4-19: q = n / d
  logic [31:0]     quot;         // Q = floor(q * 2^31), q in [1, 2)
  logic [23:0]     rem;
  logic [SIDE-1:0] side19;
  fk_udiv_pipe #(.DW(24), .QW(32), .PER_STAGE(2), .SW(SIDE)) u_div (
    .clk, .ce, .rem_in, .qa_in, .d_in, .side_in, .q(quot), .rem, .side_out(side19)
  );

  // ---------------------------------------------------------------- 20: r, interval, t
  // r = Q >> k with 31 fraction bits (k < 16; beyond, g is a constant). Interval i = the
  // top 6 fraction bits (r = 1 goes to the last, t = +2^-7); t = r - (i + 1/2) 2^-6 as a
  // signed number of 2^-31 units, |t| <= 2^24.
  logic [8:0]  k19;
  assign k19 = side19[8:0];
  logic [31:0] r19;
  assign r19 = quot >> k19[3:0];
  logic [5:0]         idx20;
  logic signed [25:0] t20;
  logic [32:0]        qp20;     // Q' = 2Q + sticky, units 2^-32
  logic               small20;  // k >= 16
  logic [SIDE-1:0]    side20;
  always_ff @(posedge clk) begin
    if (ce) begin
      idx20   <= r19[31] ? 6'd63 : r19[30:25];
      t20     <= r19[31] ? 26'sd16777216 : $signed({1'b0, r19[24:0]}) - 26'sd16777216;
      qp20    <= {quot, rem != 24'd0};
      small20 <= k19 >= 9'd16;
      side20  <= side19;
    end
  end

  // ---------------------------------------------------------------- 21: coefficients
  logic signed [35:0] c0, c1, c2, c3;
  fk_fp32_atan_table u_table (.idx(idx20), .c0, .c1, .c2, .c3);
  // Delay lines; index s is the value registered in ce-cycle s.
  logic signed [35:0] c0_s[21:26], c1_s[21:24], c2_s[21:22], c3_21;
  logic signed [25:0] t_s[21:25];
  logic [32:0]        qp_s[21:27];
  logic               small_s[21:27];
  logic [SIDE-1:0]    side_s[21:30];
  always_ff @(posedge clk) begin
    if (ce) begin
      c0_s[21]    <= c0;
      c1_s[21]    <= c1;
      c2_s[21]    <= c2;
      c3_21       <= c3;
      t_s[21]     <= t20;
      qp_s[21]    <= qp20;
      small_s[21] <= small20;
      side_s[21]  <= side20;
    end
  end
  for (genvar s = 21; s < 30; s++) begin : g_side
    always_ff @(posedge clk) if (ce) side_s[s+1] <= side_s[s];
  end
  for (genvar s = 21; s < 27; s++) begin : g_qp
    always_ff @(posedge clk) if (ce) {qp_s[s+1], small_s[s+1]} <= {qp_s[s], small_s[s]};
  end
  for (genvar s = 21; s < 26; s++) begin : g_c0
    always_ff @(posedge clk) if (ce) c0_s[s+1] <= c0_s[s];
  end
  for (genvar s = 21; s < 25; s++) begin : g_t
    always_ff @(posedge clk) if (ce) t_s[s+1] <= t_s[s];
  end
  for (genvar s = 21; s < 24; s++) begin : g_c1
    always_ff @(posedge clk) if (ce) c1_s[s+1] <= c1_s[s];
  end
  always_ff @(posedge clk) if (ce) c2_s[22] <= c2_s[21];

  // ---------------------------------------------------------------- 22-27: Horner
  // h2 = C2 + t C3, h1 = C1 + t h2, g = C0 + t h1, each a product stage (t in 2^-31
  // units, h in 2^-34) then an add stage with the product floored to 2^-34.
  logic signed [61:0] p22, p24, p26;
  logic signed [35:0] h23, h25, g27;
  always_ff @(posedge clk) begin
    if (ce) begin
      p22 <= 62'(c3_21) * 62'(t_s[21]);
      h23 <= c2_s[22] + 36'(p22 >>> 31);
      p24 <= 62'(h23) * 62'(t_s[23]);
      h25 <= c1_s[24] + 36'(p24 >>> 31);
      p26 <= 62'(h25) * 62'(t_s[25]);
      g27 <= c0_s[26] + 36'(p26 >>> 31);
    end
  end
  // g as 34 fraction bits below 1: saturated (g < 1), or 1 - 2^-34 for r < 2^-15.
  logic [33:0] g_sat;
  assign g_sat = (small_s[27] || g27 > 36'sd17179869183) ? G_MAX : g27[33:0];

  // ---------------------------------------------------------------- 28: P = Q' * G
  logic [66:0] p28;            // q * g, units 2^-66, in (0.78, 2)
  always_ff @(posedge clk) begin
    if (ce) p28 <= 67'(qp_s[27]) * 67'(g_sat);
  end

  // ---------------------------------------------------------------- 29: normalize or scale
  logic [8:0]  k28;
  assign k28 = side_s[28][8:0];
  // atan(r) as a float: P with its leading one at bit 66, biased exponent 127 - k (- 1),
  // and the right shift that makes a subnormal result (31 clears it into the sticky).
  logic signed [10:0] e28;
  assign e28 = 11'sd127 - $signed({2'b00, k28}) - (p28[66] ? 11'sd0 : 11'sd1);
  logic signed [10:0] sh28;
  assign sh28 = 11'sd1 - e28;
  // atan(r) in fixed point with 40 fraction bits (below 1): P >> (26 + k), zero for k > 40.
  logic [6:0]  sha28;
  assign sha28 = k28 > 9'd40 ? 7'd67 : 7'd26 + k28[6:0];
  logic [66:0] atan_fix28;
  assign atan_fix28 = p28 >> sha28;
  logic [66:0] pn29;
  logic [7:0]  exp29;
  logic [4:0]  sh29;
  logic [39:0] atan29;
  always_ff @(posedge clk) begin
    if (ce) begin
      pn29   <= p28[66] ? p28 : p28 << 1;
      exp29  <= e28 >= 11'sd1 ? e28[7:0] : 8'd0;
      sh29   <= e28 >= 11'sd1 ? 5'd0 : (sh28 >= 11'sd31 ? 5'd31 : sh28[4:0]);
      atan29 <= atan_fix28[39:0];
    end
  end

  // ---------------------------------------------------------------- 30: shift, or pi -+ atan
  // Subnormal results: every bit shifted out stays in the 99-bit window (shift <= 31).
  logic [98:0] wide29;
  assign wide29 = {pn29, 32'd0} >> sh29;
  logic        swap29, xneg29;
  assign {xneg29, swap29} = side_s[29][10:9];
  logic [41:0] sum29;          // A in (pi/4, pi], units 2^-40
  always_comb begin
    if (!xneg29)     sum29 = HALF_PI_Q40 - {2'd0, atan29};  // swapped
    else if (swap29) sum29 = HALF_PI_Q40 + {2'd0, atan29};
    else             sum29 = PI_Q40 - {2'd0, atan29};
  end
  logic [32:0] small_fields30;  // {exponent, fraction, guard, sticky} of atan(r)
  logic [41:0] sum30;
  always_ff @(posedge clk) begin
    if (ce) begin
      small_fields30 <= {exp29, wide29[97:75], wide29[74], wide29[73:0] != 74'd0};
      sum30          <= sum29;
    end
  end

  // ---------------------------------------------------------------- 31: round, pack, select
  logic [2:0] cls30;
  logic       sign30, xneg30, swap30;
  assign {cls30, sign30, xneg30, swap30} = side_s[30][14:9];
  logic [32:0] fields30;
  always_comb begin
    if (!xneg30 && !swap30) fields30 = small_fields30;
    else if (sum30[41])     fields30 = {8'd128, sum30[40:18], sum30[17], sum30[16:0] != 17'd0};
    else if (sum30[40])     fields30 = {8'd127, sum30[39:17], sum30[16], sum30[15:0] != 16'd0};
    else                    fields30 = {8'd126, sum30[38:16], sum30[15], sum30[14:0] != 15'd0};
  end
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(sign30), .exp(fields30[32:25]), .frac(fields30[24:2]), .guard(fields30[1]),
    .sticky(fields30[0]), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (cls30)
        SP_NAN:  y <= 32'h7FC0_0000;
        SP_ZERO: y <= {sign30, 31'h0000_0000};
        SP_PI4:  y <= {sign30, 31'h3F49_0FDB};
        SP_PI2:  y <= {sign30, 31'h3FC9_0FDB};
        SP_3PI4: y <= {sign30, 31'h4016_CBE4};
        SP_PI:   y <= {sign30, 31'h4049_0FDB};
        default: y <= rounded;
      endcase
    end
  end

  // Bits known to be zero or unused: the quotient's top bit (q >= 1, implied), Horner's
  // bits below 2^-34, g's sign and top bit (0 < g < 1 after saturation), the scaled atan
  // above 2^0 (atan(r) <= pi/4), the window's hidden bit.
  logic unused;
  assign unused = ^{g27[35:34], atan_fix28[66:40],
                    wide29[98], sh28[10:5], k19[8:4], side_s[30][8:0]};
endmodule
