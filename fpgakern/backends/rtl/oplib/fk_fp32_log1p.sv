// fk_fp32_log1p: y = log(1 + x) on float32 (torch.log1p), within 1 ulp of the correctly
// rounded result (op-table contract: 2 ulp against MPFR). Three ranges of x, each rounded
// once:
//
//   |x| < 2^-24 (tiny, subnormals and zeros included): y = x exactly. log1p(x) = x(1 + d)
//     with |d| <= |x|/2 (1 + |x|) < 2^-25, so |log1p(x) - x| < 2^-25 |x|. For x in
//     [2^k, 2^(k+1)) the gap to either neighbouring float is at least 2^(k-24) (2^(k-24)
//     below a power of two, 2^(k-23) elsewhere), and |log1p(x) - x| < x^2 / 2 <
//     2^(2k+1) <= 2^(k-24) for k <= -25; at x = 2^k exactly the distance is x^2/2 =
//     2^(2k-1), far below half the gap 2^(k-25). Negative x moves away from zero, where
//     the gap is 2^(k-23). So x is the correctly rounded result (subnormal x too: the
//     distance, below 2^-250, is far under half the smallest subnormal).
//   2^-24 <= |x| < 2^-4 (small): y = x * P(x), P(x) = 1 - x/2 + x^2/3 - ... + x^6/7 (the
//     series of log1p(x)/x; the next term is below 2^-31 relative), Horner in signed fixed
//     point with 40 fraction bits (six truncations, below 2^-37), then the exact product
//     of the 24-bit significand and P in [0.969, 1.033], normalized one place either way
//     (fk_fp32_series). No cancellation: error below 2^-30.9 relative, under 2^-6.9 ulp.
//   |x| >= 2^-4 (large, x > -1): 1 + x exactly in fixed point (27 fraction bits: x's ulp
//     is at least 2^-27 there, and 1 + x >= 2^-24 for x > -1), a 58-bit leading-zero
//     count and normalization to a 32-bit significand m in [1, 2) (exact while x < 2^30;
//     from 2^30 on the 1 is dropped and m is x's significand: a relative error below
//     2^-30 of the argument, an absolute error below 2^-30 of a result above 20), then a
//     widened copy of fk_fp32_log_core (natural log, the same table): z = m * r - 1 is
//     exact at 41 fraction bits and enters the core truncated to 33 (an absolute error
//     below 2^-33 of the logarithm). |log1p(x)| >= log(1 + 2^-4) > 2^-4.05 in this range,
//     so that truncation is below 2^-28.95 relative, and the core's own budget (Taylor
//     remainder |z|^5/5 < 2^-37 absolute, q's truncated products 2^-32 relative to z q,
//     table and ln 2 at 2^-58) adds less than 2^-31: below 2^-28.6 relative in total,
//     under 2^-4.6 ulp before the one rounding.
// Hence at most 1 ulp everywhere.
// Special values: log1p(NaN) = NaN (canonical 0x7FC00000), log1p(x < -1) = NaN (-inf
// included), log1p(-1) = -inf, log1p(+inf) = +inf, log1p(+-0) = +-0. Every finite nonzero
// result is a normal float or x itself.
//
// Pipeline, latency 18 ce-cycles, II = 1: the large range takes 17 stages (unpack,
// 1 + x, lzc, normalize, then the log core's 13: table, m * r, z, four Horner steps,
// z * q over two, sum, magnitude, lzc, normalize), the small range 16 (fk_fp32_series:
// unpack, align x, six Horner steps of product and sum, x * P, normalize) and a delay of
// 1; then one stage rounds, packs and selects. Series constants: 1/(k+1) * 2^40 rounded to
// nearest; the log table, ln 2 and q's constants are fk_fp32_log_core's (gen_log_table.py).
module fk_fp32_log1p (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam int LAT = 18;
  localparam logic [2:0] SEL_LARGE = 3'd0, SEL_SMALL = 3'd1, SEL_NAN = 3'd2,
                         SEL_NINF = 3'd3, SEL_PINF = 3'd4;
  // (-1)^k / (k+1) * 2^40 (rounded to nearest), the Horner coefficients of log1p(x)/x.
  localparam logic signed [41:0] S1 = -42'sd549755813888;  // -1/2
  localparam logic signed [41:0] S2 = 42'sd366503875925;   //  1/3
  localparam logic signed [41:0] S3 = -42'sd274877906944;  // -1/4
  localparam logic signed [41:0] S4 = 42'sd219902325555;   //  1/5
  localparam logic signed [41:0] S5 = -42'sd183251937963;  // -1/6
  localparam logic signed [41:0] S6 = 42'sd157073089682;   //  1/7
  // q(z) = 1 - z/2 + z^2/3 - z^3/4 with 32 fraction bits, and ln 2 * 2^58: the natural
  // log constants of fk_fp32_log_core (gen_log_table.py prints them).
  localparam logic signed [34:0] C1 = 35'sd4294967296;
  localparam logic signed [34:0] C2 = -35'sd2147483648;
  localparam logic signed [34:0] C3 = 35'sd1431655765;
  localparam logic signed [34:0] C4 = -35'sd1073741824;
  localparam logic signed [59:0] LN2_Q58 = 60'sd199786072581291495;

  // ---------------------------------------------------------------- 0: classify
  logic [7:0] ea;
  assign ea = a[30:23];
  logic [2:0] sel0;
  always_comb begin
    if (ea == 8'hFF && a[22:0] != 23'd0)            sel0 = SEL_NAN;
    else if (a == 32'hBF80_0000)                    sel0 = SEL_NINF;  // log1p(-1)
    else if (a[31] && ea >= 8'd127)                 sel0 = SEL_NAN;   // x < -1, -inf
    else if (a == 32'h7F80_0000)                    sel0 = SEL_PINF;
    else if (ea < 8'd123)                           sel0 = SEL_SMALL; // |x| < 2^-4
    else                                            sel0 = SEL_LARGE;
  end
  // {sel, sign of x} beside the datapath
  logic [LAT:0][3:0] side_q;
  assign side_q[0] = {sel0, a[31]};
  for (genvar s = 0; s < LAT; s++) begin : g_side
    always_ff @(posedge clk) begin
      if (ce) side_q[s+1] <= side_q[s];
    end
  end

  // ================================================================ large: log(1 + x)
  // ---------------------------------------------------------------- 1: unpack
  logic [7:0]  ea1;
  logic [23:0] xm1;
  logic        neg1;
  always_ff @(posedge clk) begin
    if (ce) begin
      ea1  <= ea;
      xm1  <= {1'b1, a[22:0]};  // |x| >= 2^-4 here: a normal float
      neg1 <= a[31];
    end
  end

  // ---------------------------------------------------------------- 2: 1 + x
  // In units 2^-27: 1 is 2^27, x is xm * 2^(field - 123) (field - 123 in [0, 33] while
  // x < 2^30; x in (-1, -2^-4] shifts by 0 to 3). From x >= 2^30 on, m is x's.
  logic [5:0]  sh1;
  assign sh1 = 6'(ea1 - 8'd123);
  logic [57:0] xs1;
  assign xs1 = 58'(xm1) << sh1;
  logic [57:0] sum2;
  logic        big2;
  logic [23:0] xm2;
  logic signed [8:0] ebig2;
  always_ff @(posedge clk) begin
    if (ce) begin
      sum2  <= neg1 ? 58'h800_0000 - xs1 : 58'h800_0000 + xs1;
      big2  <= !neg1 && ea1 >= 8'd157;
      xm2   <= xm1;
      ebig2 <= $signed({1'b0, ea1}) - 9'sd127;
    end
  end

  // ---------------------------------------------------------------- 3: leading zeros
  logic [5:0]  lz_s2;
  fk_lzc #(.W(58)) u_lzc_arg (.x(sum2), .count(lz_s2));
  logic [57:0] sum3;
  logic [5:0]  lz3;
  logic        big3;
  logic [23:0] xm3;
  logic signed [8:0] ebig3;
  always_ff @(posedge clk) begin
    if (ce) begin
      sum3  <= sum2;
      lz3   <= lz_s2;
      big3  <= big2;
      xm3   <= xm2;
      ebig3 <= ebig2;
    end
  end

  // ---------------------------------------------------------------- 4: normalize
  // 1 + x = 2^e * m, m in [1, 2) with 31 fraction bits; the sum's top bit at 57 - lz
  // weighs 2^(30 - lz). 1 + x >= 2^-24, so lz <= 54.
  logic [57:0] sumn3;
  assign sumn3 = sum3 << lz3;
  logic [31:0]       m4;
  logic signed [8:0] e4;
  always_ff @(posedge clk) begin
    if (ce) begin
      m4 <= big3 ? {xm3, 8'd0} : sumn3[57:26];
      e4 <= big3 ? ebig3 : 9'sd30 - $signed({3'd0, lz3});
    end
  end

  // ---------------------------------------------------------------- 5: table, e * ln 2
  logic [10:0] recip;
  logic [58:0] lg;
  fk_fp32_log_table #(.NATURAL(1'b1)) u_table (.idx(m4[30:24]), .recip(recip), .lg(lg));
  logic [31:0]        m5;
  logic [10:0]        r5;
  logic [58:0]        lg5;
  logic signed [68:0] eprod5;  // e * ln 2, 58 fraction bits
  always_ff @(posedge clk) begin
    if (ce) begin
      m5     <= m4;
      r5     <= recip;
      lg5    <= lg;
      eprod5 <= e4 * LN2_Q58;
    end
  end

  // ---------------------------------------------------------------- 6: m * r
  logic [42:0]        mr6;     // units 2^-41, within 2^-7 of 1
  logic [58:0]        lg6;
  logic signed [67:0] ebig6;
  always_ff @(posedge clk) begin
    if (ce) begin
      mr6   <= m5 * r5;
      lg6   <= lg5;
      ebig6 <= eprod5[67:0];  // |e * ln 2| < 2^65.7: the top bit only repeats the sign
    end
  end

  // ---------------------------------------------------------------- 7: z = m * r - 1
  // Exact at 41 fraction bits, truncated (toward -inf) to the core's 33.
  logic signed [43:0] z_wide;
  assign z_wide = $signed({1'b0, mr6}) - 44'sh200_0000_0000;  // - 2^41
  logic signed [26:0] z7;      // units 2^-33, |z| < 2^26
  logic [58:0]        lg7;
  logic signed [67:0] ebig7;
  always_ff @(posedge clk) begin
    if (ce) begin
      z7    <= z_wide[34:8];
      lg7   <= lg6;
      ebig7 <= ebig6;
    end
  end

  // ---------------------------------------------------------------- 8-11: q(z), Horner
  logic signed [17:0] z24_7;
  assign z24_7 = z7[26:9];
  logic signed [26:0] z8, z9, z10, z11;
  logic signed [52:0] p4_8, p3_9;   // units 2^-56
  logic signed [60:0] p2_10;        // units 2^-64
  logic signed [34:0] q1_11;        // units 2^-32
  logic signed [17:0] z24_8;
  logic [58:0]        lg8, lg9, lg10, lg11;
  logic signed [67:0] ebig8, ebig9, ebig10, ebig11;
  logic signed [34:0] q3, q2;
  assign q3 = C3 + 35'($signed(p4_8[52:24]));
  assign q2 = C2 + 35'($signed(p3_9[52:24]));
  always_ff @(posedge clk) begin
    if (ce) begin
      p4_8  <= z24_7 * C4;
      z24_8 <= z24_7;
      z8    <= z7;
      p3_9  <= z24_8 * q3;
      z9    <= z8;
      p2_10 <= $signed(z9[26:1]) * q2;
      z10   <= z9;
      q1_11 <= C1 + 35'($signed(p2_10[60:32]));
      z11   <= z10;
      {lg8, lg9, lg10, lg11}         <= {lg7, lg8, lg9, lg10};
      {ebig8, ebig9, ebig10, ebig11} <= {ebig7, ebig8, ebig9, ebig10};
    end
  end

  // ---------------------------------------------------------------- 12-13: z * q
  logic signed [61:0] zq12, zq13;   // units 2^-65
  logic [58:0]        lg12, lg13;
  logic signed [67:0] ebig12, ebig13;
  always_ff @(posedge clk) begin
    if (ce) begin
      zq12   <= z11 * q1_11;
      zq13   <= zq12;
      lg12   <= lg11;
      lg13   <= lg12;
      ebig12 <= ebig11;
      ebig13 <= ebig12;
    end
  end

  // ---------------------------------------------------------------- 14: the sum
  logic signed [67:0] s14;  // log1p(x) * 2^58
  always_ff @(posedge clk) begin
    if (ce) s14 <= ebig13 + $signed({9'd0, lg13}) + 68'($signed(zq13[61:7]));
  end

  // ---------------------------------------------------------------- 15: sign, magnitude
  logic [66:0] mag15;
  logic        neg15;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag15 <= s14[67] ? 67'(-s14) : 67'(s14);
      neg15 <= s14[67];
    end
  end

  // ---------------------------------------------------------------- 16: leading zeros
  logic [6:0]  lz_s15;
  fk_lzc #(.W(67)) u_lzc_sum (.x(mag15), .count(lz_s15));
  logic [66:0] mag16;
  logic [6:0]  lz16;
  logic        neg16;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag16 <= mag15;
      lz16  <= lz_s15;
      neg16 <= neg15;
    end
  end

  // ---------------------------------------------------------------- 17: normalize
  // The leading one moves to bit 66; the value is 2^(66 - lz - 58): biased exponent
  // 135 - lz. |log1p(x)| > 2^-4.05 here, so lz <= 62 and the result is normal.
  logic [66:0] norm16;
  assign norm16 = mag16 << lz16;
  logic [34:0] lfields17;  // {exponent (10 bits), 23 fraction bits, guard, sticky}
  logic        lneg17;
  always_ff @(posedge clk) begin
    if (ce) begin
      lfields17 <= {10'd135 - {3'd0, lz16}, norm16[65:43], norm16[42],
                    norm16[41:0] != 42'd0};
      lneg17    <= neg16;
    end
  end

  // ================================================================ small and tiny: x * P(x)
  // Stages 1-16 (|x| < 2^-4: exponent fields up to 122), then a delay of 1.
  logic [34:0] sfields16, sfields17;
  fk_fp32_series #(.K1(S1), .K2(S2), .K3(S3), .K4(S4), .K5(S5), .K6(S6), .EMAX(8'd122))
    u_series (.clk, .ce, .a, .fields(sfields16));
  always_ff @(posedge clk) begin
    if (ce) sfields17 <= sfields16;
  end

  // ================================================================ 18: round, pack, select
  logic [2:0] sel17;
  logic       sign17;
  assign {sel17, sign17} = side_q[LAT - 1];
  logic [34:0] fields;
  assign fields = sel17 == SEL_SMALL ? sfields17 : lfields17;
  logic [31:0] rounded;
  fk_fp32_round #(.EW(10)) u_round (
    .sign(sel17 == SEL_SMALL ? sign17 : lneg17), .exp(fields[34:25]), .frac(fields[24:2]),
    .guard(fields[1]), .sticky(fields[0]), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (sel17)
        SEL_NAN:  y <= 32'h7FC0_0000;
        SEL_NINF: y <= 32'hFF80_0000;
        SEL_PINF: y <= 32'h7F80_0000;
        default:  y <= rounded;
      endcase
    end
  end

  // Bits below the kept precision or only repeating a sign, the hidden bits, the last
  // side entry.
  logic unused;
  assign unused = ^{norm16[66], side_q[LAT], z_wide[43:35], z_wide[7:0], eprod5[68], sumn3[25:0],
                    p4_8[23:0], p3_9[23:0], p2_10[31:0], zq13[6:0]};
endmodule
