// fk_fp32_sincos_core: y = sin(x) (COS = 0, fk_fp32_sin) or y = cos(x) (COS = 1,
// fk_fp32_cos) on float32, for every float32 x, within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR). cos(x) = sin(x + pi/2): COS adds one to
// the quadrant, and everything else is shared.
//
// Tiny |x| < 2^-12 (exponent field below 115; zeros and subnormals included):
//   sin x = x exactly: sin x = x(1 - d), 0 < d < x^2/6 < 2^-24/6, less than half the gap
//   to the float below x (at least 2^-25 |x|, at a power of two), so x is the correctly
//   rounded result. cos x = 1 exactly: 1 - x^2/2 < cos x < 1 and x^2/2 < 2^-25, half the
//   gap to the float below 1.
// +-inf and NaN give the canonical NaN 0x7FC00000.
//
// Argument reduction (Payne-Hanek in fixed point), |x| = m * 2^(E-23), E in -12..127:
//   fk_fp32_sincos_table gives the 90 bits of 2/pi from bit E-24 on (those above weigh
//   multiples of 4 quadrants; below E = 25 the window starts with zeros), and
//   t = m * win mod 2^90 is |x| * 2/pi mod 4 with 88 fraction bits, short by less than
//   2^-64 (the bits of 2/pi below the window; see gen_sincos_table.py). The quadrant is
//   q = round(t) mod 4 and u = t - round(t) in [-1/2, 1/2) (the low 88 bits of t read as
//   a signed number), r = u * pi/2 in [-pi/4, pi/4).
//   How far this is exact: for every float32 |x| >= 2^-12 the computed u has a relative
//   error below 2^-34.1. Below 1, |u| > 2^-13 (no multiple of pi/2 but 0 is near). The
//   nearest float32 to a nonzero multiple of pi/2, found exhaustively over every float32
//   >= 1 (benchmarks/sincos_worst_reduction.py), is x = 16367173 * 2^72 (0x6F79BE45),
//   with |x * 2/pi - k| = 2^-29.86 (|x - k pi/2| = 1.615e-9): u has 29 leading zero
//   fraction bits at most, and 2^-64 / 2^-29.86 = 2^-34.1.
//
// Polynomial: |u| is normalized (fk_lzc, 40 bits kept: un = |u| * 2^(40+lz), truncated,
//   relative error < 2^-39) and z = u^2 in [0, 1/4] is formed with 40 fraction bits
//   (absolute error < 2^-39). With Q = q + COS (mod 4):
//     Q even: sin(pi/2 u) = u * S(z),   S(z) = sum S_k z^k, S_k = (-1)^k (pi/2)^(2k+1)/(2k+1)!
//     Q odd:  cos(pi/2 u) = C(z),       C(z) = sum C_k z^k, C_k = (-1)^k (pi/2)^(2k)/(2k)!
//   for k = 0..6 (Taylor, alternating with decreasing terms: the first omitted term is
//   below 2^-44 for S and 2^-41.2 for C, absolute). One Horner pipeline evaluates either,
//   its coefficients chosen per element, in signed fixed point with 40 fraction bits
//   (coefficients rounded to nearest, products truncated: absolute error below 2^-39.2);
//   the sign is (-1)^(Q >> 1), times sign(u) for the sine and sign(x) for sin.
//   Then un * S (or 2^39 * C) exactly, normalized and rounded once (fk_fp32_round, RNE).
//
// Error budget, relative, before the rounding (S >= sin(pi/4)/(1/2) = 1.414, C >= 0.707):
//   reduction 2^-34.1 (only near the worst cases; below 2^-50 for |x| < 1) + |u|
//   truncated 2^-39 + z's error through S' (|S'| < 0.65) or C' (|C'| < 1.24) 2^-38.2 +
//   Horner 2^-38.7 + Taylor 2^-40.7 < 2^-33.6 < 2^-9.6 ulp. So y is within 0.5 + 2^-9.6
//   ulp of the exact value: at most 1 ulp from the correctly rounded result. No result is
//   0 or subnormal except x itself (sin of a tiny x): |sin x|, |cos x| > 2^-31 elsewhere.
//
// Pipeline, latency 22 ce-cycles, II = 1: 1 (unpack, window) + 2 (m * win) + 1 (q, |u|)
// + 1 (lzc) + 1 (normalize) + 1 (z) + 12 (six Horner steps, product then sum) + 1 (un * P)
// + 1 (normalize) + 1 (round, pack, select).
module fk_fp32_sincos_core #(
  parameter bit COS = 1'b0
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam int LAT = 22;
  localparam logic [31:0] NAN = 32'h7FC0_0000, ONE = 32'h3F80_0000;
  // Taylor coefficients times 2^40, rounded (gen_sincos_table.py prints them).
  localparam logic signed [42:0] S0 = 43'sd1727108826179, C0 = 43'sd1099511627776;
  localparam logic signed [42:0] S1 = -43'sd710245036334, C1 = -43'sd1356468100068;
  localparam logic signed [42:0] S2 = 43'sd87622969206, C2 = 43'sd278912573549;
  localparam logic signed [42:0] S3 = -43'sd5147643110, C3 = -43'sd22939639695;
  localparam logic signed [42:0] S4 = 43'sd176406948, C4 = 43'sd1010737361;
  localparam logic signed [42:0] S5 = -43'sd3956970, C5 = -43'sd27709939;
  localparam logic signed [42:0] S6 = 43'sd62586, C6 = 43'sd517966;
  // The coefficients of S and C, k-th at bits [43k +: 43].
  localparam logic [7*43-1:0] KS = {S6, S5, S4, S3, S2, S1, S0};
  localparam logic [7*43-1:0] KC = {C6, C5, C4, C3, C2, C1, C0};

  // ---------------------------------------------------------------- 1: unpack, window
  // Tiny x and inf/NaN take a fixed result (x or 1, or NaN), selected at the end.
  logic [7:0] ea;
  assign ea = a[30:23];
  logic [89:0] win0;
  fk_fp32_sincos_table u_table (.ea, .win(win0));
  logic [23:0] m1;
  logic [89:0] win1;
  logic [LAT-1:1] fixed_s;     // the result is fix_s
  logic [31:0]    fix_s[1:LAT-1];
  logic [3:1]     sign_s;      // sign of x
  always_ff @(posedge clk) begin
    if (ce) begin
      m1         <= {1'b1, a[22:0]};
      win1       <= win0;
      fixed_s[1] <= ea < 8'd115 || ea == 8'hFF;
      fix_s[1]   <= ea == 8'hFF ? NAN : (COS ? ONE : a);
      sign_s[1]  <= a[31];
    end
  end
  for (genvar s = 1; s < LAT - 1; s++) begin : g_fixed
    always_ff @(posedge clk) begin
      if (ce) begin
        fixed_s[s+1] <= fixed_s[s];
        fix_s[s+1]   <= fix_s[s];
      end
    end
  end
  for (genvar s = 1; s < 3; s++) begin : g_sign
    always_ff @(posedge clk) begin
      if (ce) sign_s[s+1] <= sign_s[s];
    end
  end

  // ---------------------------------------------------------------- 2-3: t = m * win mod 2^90
  logic [68:0] lo2, hi2;       // m times the window's low and high 45 bits
  logic [89:0] t3;
  always_ff @(posedge clk) begin
    if (ce) begin
      lo2 <= m1 * win1[44:0];
      hi2 <= m1 * win1[89:45];
      t3  <= 90'(lo2) + {hi2[44:0], 45'd0};
    end
  end

  // ---------------------------------------------------------------- 4: quadrant, |u|
  // t = 4j + q + u: q = t's integer bits plus its 1/2 bit (rounding), u = the low 88 bits
  // as a signed number in [-1/2, 1/2), units 2^-88.
  logic [1:0] quad;
  assign quad = t3[89:88] + {1'b0, t3[87]} + {1'b0, COS};
  logic        is_cos4;        // Q odd: the cosine polynomial
  logic        neg4;           // the result is negative
  logic [87:0] mag4;           // |u| * 2^88, at most 2^87
  always_ff @(posedge clk) begin
    if (ce) begin
      is_cos4 <= quad[0];
      neg4    <= quad[1] ^ (~quad[0] & t3[87]) ^ (~COS & sign_s[3]);
      mag4    <= t3[87] ? 88'd0 - t3[87:0] : t3[87:0];
    end
  end

  // ---------------------------------------------------------------- 5: leading zeros of |u|
  logic [6:0]  lz_comb;
  fk_lzc #(.W(88)) u_lzc (.x(mag4), .count(lz_comb));
  logic [87:0] mag5;
  logic [6:0]  lz5;
  logic        is_cos5, neg5;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag5    <= mag4;
      lz5     <= lz_comb;
      is_cos5 <= is_cos4;
      neg5    <= neg4;
    end
  end

  // ---------------------------------------------------------------- 6: normalize
  // un = |u| * 2^(40+lz) in [2^39, 2^40) (truncated); f = |u| * 2^40 (truncated).
  logic [87:0] shifted5;
  assign shifted5 = mag5 << lz5;
  logic [39:0] un_s[6:19];
  logic [39:0] f6;
  logic [7:0]  exp_s[6:20];    // the result's biased exponent is P's position plus this
  logic [19:6] is_cos_s;
  logic [20:6] neg_s;
  always_ff @(posedge clk) begin
    if (ce) begin
      un_s[6]     <= shifted5[87:48];
      f6          <= mag5[87:48];
      // value = un * P * 2^(-80-lz) (sine), P * 2^-40 (cosine): see stage 21.
      exp_s[6]    <= is_cos5 ? 8'd48 : 8'd47 - {1'b0, lz5};
      is_cos_s[6] <= is_cos5;
      neg_s[6]    <= neg5;
    end
  end
  for (genvar s = 6; s < 20; s++) begin : g_carry
    always_ff @(posedge clk) begin
      if (ce) begin
        exp_s[s+1] <= exp_s[s];
        neg_s[s+1] <= neg_s[s];
      end
    end
  end
  for (genvar s = 6; s < 19; s++) begin : g_carry_un
    always_ff @(posedge clk) begin
      if (ce) begin
        un_s[s+1]     <= un_s[s];
        is_cos_s[s+1] <= is_cos_s[s];
      end
    end
  end

  // ---------------------------------------------------------------- 7: z = u^2
  logic [79:0] fsq;
  assign fsq = f6 * f6;
  logic signed [39:0] z_s[7:17];  // z * 2^40 <= 2^38, as a non-negative signed number
  always_ff @(posedge clk) begin
    if (ce) z_s[7] <= $signed({1'b0, fsq[78:40]});
  end
  for (genvar s = 7; s < 17; s++) begin : g_carry_z
    always_ff @(posedge clk) begin
      if (ce) z_s[s+1] <= z_s[s];
    end
  end

  // ---------------------------------------------------------------- 8-19: Horner
  // h_0 = K6, h_(j+1) = K_(5-j) + z h_j (j = 0..5; h_6 = P): stage 8 + 2j forms the
  // product, stage 9 + 2j the sum, the product truncated (arithmetic shift) to 40
  // fraction bits. Each stage reads the coefficient of the element it holds.
  logic signed [42:0] h_in[0:5];  // the factor of z in step j: K6, then h_s[j]
  logic signed [42:0] h_s[1:6];
  logic signed [82:0] prod_s[0:5];
  assign h_in[0] = $signed(is_cos_s[7] ? KC[6*43 +: 43] : KS[6*43 +: 43]);
  for (genvar j = 1; j < 6; j++) begin : g_h_in
    assign h_in[j] = h_s[j];
  end
  for (genvar j = 0; j < 6; j++) begin : g_horner
    always_ff @(posedge clk) begin
      if (ce) begin
        prod_s[j]  <= 83'(z_s[7 + 2*j]) * 83'(h_in[j]);
        h_s[j + 1] <= $signed(is_cos_s[8 + 2*j] ? KC[(5 - j)*43 +: 43] : KS[(5 - j)*43 +: 43])
                      + 43'(prod_s[j] >>> 40);
      end
    end
  end

  // ---------------------------------------------------------------- 20: un * P
  // P = S(z) in [1.41, 1.58] or C(z) in [0.70, 1], units 2^-40; the cosine is multiplied
  // by 1 (2^39, in un's units).
  logic [40:0] poly19;
  assign poly19 = h_s[6][40:0];
  logic [80:0] y20;            // sine: [2^79.5, 2^80.7); cosine: [2^78.5, 2^79]
  always_ff @(posedge clk) begin
    if (ce) y20 <= 81'(is_cos_s[19] ? 40'h80_0000_0000 : un_s[19]) * 81'(poly19);
  end

  // ---------------------------------------------------------------- 21: normalize
  // The value is y20 * 2^(-79 - lzx) (lzx = lz + 1 for the sine, 0 for the cosine): with
  // its leading one at bit p (78, 79 or 80), the biased exponent is p + 48 - lzx, that is
  // p + exp_s.
  logic [7:0]  r_exp;
  logic [22:0] r_frac;
  logic        r_guard, r_sticky, r_neg;
  always_ff @(posedge clk) begin
    if (ce) begin
      r_neg <= neg_s[20];
      if (y20[80]) begin
        {r_exp, r_frac, r_guard, r_sticky} <= {exp_s[20] + 8'd80, y20[79:57], y20[56],
                                               y20[55:0] != 56'd0};
      end else if (y20[79]) begin
        {r_exp, r_frac, r_guard, r_sticky} <= {exp_s[20] + 8'd79, y20[78:56], y20[55],
                                               y20[54:0] != 55'd0};
      end else begin
        {r_exp, r_frac, r_guard, r_sticky} <= {exp_s[20] + 8'd78, y20[77:55], y20[54],
                                               y20[53:0] != 54'd0};
      end
    end
  end

  // ---------------------------------------------------------------- 22: round, pack, select
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(r_neg), .exp(r_exp), .frac(r_frac), .guard(r_guard), .sticky(r_sticky),
    .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) y <= fixed_s[LAT-1] ? fix_s[LAT-1] : rounded;
  end

  // Bits above t's 90 (multiples of 4 quadrants), f's bits below 2^-40, the products'
  // bits below the kept precision and their sign bits (|z h| < 2^41), P's sign bits.
  logic unused;
  assign unused = ^{hi2[68:45], shifted5[47:0], fsq[79], fsq[39:0], h_s[6][42:41],
                    prod_s[0][82], prod_s[0][39:0], prod_s[1][82], prod_s[1][39:0],
                    prod_s[2][82], prod_s[2][39:0], prod_s[3][82], prod_s[3][39:0],
                    prod_s[4][82], prod_s[4][39:0], prod_s[5][82], prod_s[5][39:0]};
endmodule
