// fk_fp32_pow: y = pow(a, b) = a^b on float32 (torch.pow, C99 powf), within 1 ulp of the
// correctly rounded result (op-table contract: 2 ulp against MPFR).
//
// Special cases (C99 Annex F.9.4.4, as torch's CPU pow; checked in the first stage):
//   pow(x, +-0) = 1 and pow(+1, y) = 1, NaN operands included; otherwise a NaN operand gives
//   NaN (canonical 0x7FC00000). pow(-1, +-inf) = 1; pow(x, -inf) = +inf for |x| < 1 and +0
//   for |x| > 1; pow(x, +inf) the reverse. pow(+-0, y < 0) = +-inf for an odd integer y,
//   +inf otherwise; pow(+-0, y > 0) = +-0 for an odd integer y, +0 otherwise; pow(-inf, y)
//   = pow(-0, -y) with the reciprocal's sign rule (-0 / -inf for odd y); pow(+inf, y) = +0 for
//   y < 0, +inf for y > 0. A finite x < 0 with a finite non-integer y gives NaN; with an
//   integer y the result is |x|^y, negated for an odd y. y's integer class comes from its
//   exponent and fraction bits: |y| >= 2^24 is an even integer, |y| < 1 not an integer,
//   otherwise the bits below the binary point decide and the lowest integer bit is the parity.
//   Subnormal operands are taken exactly, subnormal results rounded once (never flushed),
//   results from 2^128 on (after rounding) are +-inf.
//
// Algorithm: |x|^y = 2^t, t = y * log2|x|, in fixed point (no floating-point adder inside).
//   log2|x|: x = 2^e * m, m in [1, 2) (subnormals: lzc + shift); r = table[m's top 7 fraction
//   bits] ~ 1/m (fk_fp32_log_table), z = m * r - 1 exact, |z| < 2^-7 (fk_fp32_log_reduce,
//   shared with fk_fp32_log_core); log2|x| = e + L + z * q(z), L = -log2(r) (58 fraction
//   bits), and
//   q(z) = log2(e) * (1 - z/2 + z^2/3 - z^3/4 + z^4/5 - z^5/6) in Horner form (two more
//   Taylor terms and wider coefficients than fk_fp32_log_core's, printed by
//   gen_log_table.py as POW_Cn). The sum s = log2|x| is exact apart from q's error and L's
//   rounding, with 80 fraction bits: r_0 = 1 and r_127 = 1/2, so for x just above or below 1
//   e + L = 0 exactly and s = z * q(z) keeps its full relative precision however small z is
//   (down to 2^-24). s is normalized to a 48-bit significand (truncated).
//   t = y * s: the 24 x 48-bit product of the significands is exact; it is shifted into a
//   41-bit two's complement t with 32 fraction bits (the magnitude truncated). |t| >= 256
//   is decided by class (+inf for t > 0, +0 for t < 0: 2^-256 is far below the smallest
//   subnormal).
//   2^t: fk_fp32_exp2_fixed (table and degree-3 polynomial, M * 2^n), then fk_fp32_exp_pack
//   rounds once (denormalizing subnormal results first) and applies the sign.
//
// Error budget (relative to the result, before the final rounding), for results in the
// float32 range, i.e. |t| < 150:
//   q(z): Taylor remainder log2(e) |z|^6 / 7 relative to q < 2^-44.8; the truncated Horner
//   steps (h4, h3 at 32 fraction bits, h2 at 40, h1 at 46, q at 47; each multiplied by z^k
//   with |z| < 2^-7) add < 2^-47; so z * q(z) has relative error < 2^-44.5. L is rounded at
//   2^-59, which matters only where e + L != 0, i.e. |log2|x|| >= log2(1 + 2^-7) > 2^-6.5:
//   relative < 2^-52. Normalizing s to 48 bits: < 2^-47. So t has relative error < 2^-44.2,
//   an absolute error below 150 * 2^-44.2 < 2^-37 for |t| < 150, i.e. 2^-37.5 relative
//   after the exponential (whatever the sizes of y and log2|x|: the product is exact).
//   2^t (fk_fp32_exp2_fixed): < 2^-29.5 with t truncated to 32 fraction bits.
//   Total < 2^-29.4: the rounded result is within 0.5 + 2^-5.4 ulp, so at most 1 ulp, and a
//   result that is exactly representable (2^k, 3^k, 10^k, (-2)^k, ...) is returned exactly:
//   the computed value is within 2^-29.4 of it, less than half the gap to either neighbour
//   (>= 2^-25 relative).
//
// Pipeline, latency 30 ce-cycles, II = 1:
//   1 classify both operands, special cases, y's integer class, lzc | 2 normalize x
//   | 3 table | 4 m * r | 5 z (x's side of 1-5: fk_fp32_log_reduce) | 6-10 Horner
//   | 11-12 z * q | 13 s | 14 magnitude | 15 lzc | 16 normalize s | 17-18 y * s
//   | 19 align t | 20 sign, class | 21-27 2^t | 28-30 round, pack (fk_fp32_exp_pack).
module fk_fp32_pow (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  localparam logic [1:0] CLS_FINITE = 2'd0, CLS_NAN = 2'd1, CLS_OVF = 2'd2, CLS_UNF = 2'd3;
  // q(z) coefficients: POW_Cn of gen_log_table.py, Cn the z^(n-1) coefficient of
  // log2(1 + z) / z with 47, 46, 40, 32, 32 and 32 fraction bits.
  localparam logic signed [48:0] C1 = 49'sd203041276517400;
  localparam logic signed [46:0] C2 = -47'sd50760319129350;
  localparam logic signed [39:0] C3 = 40'sd528753324264;
  localparam logic signed [33:0] C4 = -34'sd1549082005;
  localparam logic signed [33:0] C5 = 34'sd1239265604;
  localparam logic signed [33:0] C6 = -34'sd1032721336;

  // ---------------------------------------------------------------- 1: classify
  logic        sx, sy;
  logic [7:0]  ex, ey;
  logic [22:0] fx, fy;
  assign {sx, ex, fx} = a;
  assign {sy, ey, fy} = b;
  logic x_nan, x_inf, x_zero, y_nan, y_inf, y_zero, x_gt1;
  assign x_nan  = ex == 8'hFF && fx != 23'd0;
  assign x_inf  = ex == 8'hFF && fx == 23'd0;
  assign x_zero = ex == 8'd0 && fx == 23'd0;
  assign y_nan  = ey == 8'hFF && fy != 23'd0;
  assign y_inf  = ey == 8'hFF && fy == 23'd0;
  assign y_zero = ey == 8'd0 && fy == 23'd0;
  assign x_gt1  = a[30:0] > 31'h3F80_0000;  // |x| > 1 (a NaN x is decided before)

  // y's integer class (finite nonzero y): with E = ey - 127 in [0, 23], the 23 - E bits of
  // the significand below the binary point must be zero, and the bit above them is the
  // parity; E >= 24 is an even integer, E < 0 no integer.
  logic [23:0] my;
  logic [4:0]  ybits;  // 23 - E, the number of fraction bits, for E in [0, 23]
  logic [23:0] my_int;
  logic        y_int, y_odd;
  assign my     = {ey != 8'd0, fy};
  assign ybits  = 5'(8'd150 - ey);
  assign my_int = my >> ybits;  // bit 0: the parity
  assign y_int  = ey >= 8'd150 || (ey >= 8'd127 && (my & ~(24'hFF_FFFF << ybits)) == 24'd0);
  assign y_odd  = ey >= 8'd127 && ey <= 8'd150 && y_int && my_int[0];

  // The special cases, as a forced class (CLS_FINITE meaning exactly 1) and the sign.
  logic       forced;
  logic [1:0] fcls;
  logic       rsign;
  always_comb begin
    forced = 1'b1;
    fcls   = CLS_FINITE;
    rsign  = sx & y_odd;  // y_odd is false for infinite and NaN y
    if (y_zero || a == 32'h3F80_0000) begin
      rsign = 1'b0;                                       // pow(x, 0) = pow(1, y) = 1
    end else if (x_nan || y_nan) begin
      fcls = CLS_NAN;
    end else if (y_inf) begin
      rsign = 1'b0;
      if (a[30:0] == 31'h3F80_0000) fcls = CLS_FINITE;    // pow(-1, +-inf) = 1
      else                          fcls = (x_gt1 ^ sy) ? CLS_OVF : CLS_UNF;
    end else if (x_zero) begin
      fcls = sy ? CLS_OVF : CLS_UNF;
    end else if (x_inf) begin
      fcls = sy ? CLS_UNF : CLS_OVF;
    end else if (sx && !y_int) begin
      fcls = CLS_NAN;                                     // x < 0, y not an integer
    end else begin
      forced = 1'b0;
    end
  end

  // y, the forced class and the sign travel beside the logarithm (stages 1-19).
  localparam int SIDE_W = 24 + 9 + 1 + 1 + 2 + 1;
  logic [19:0][SIDE_W-1:0] side_q;
  logic signed [8:0]       ey_unb;  // y = my * 2^(ey_unb - 23), subnormals included
  assign ey_unb = (ey == 8'd0 ? 9'sd1 : $signed({1'b0, ey})) - 9'sd127;
  assign side_q[0] = {my, ey_unb, sy, forced, fcls, rsign};

  // ---------------------------------------------------------------- 1-5: reduce x
  // x = 2^e * m, r = table[m] ~ 1/m, z = m * r - 1 (fk_fp32_log_reduce, shared with the log
  // core): e leaves after stage 2, L = -log2(r) after stage 3, z after stage 5.
  logic signed [8:0]  e2;
  logic [58:0]        lg3;
  logic signed [26:0] z5;  // units 2^-33, |z| < 2^26 (exact)
  fk_fp32_log_reduce #(.NATURAL(1'b0)) u_reduce (
      .clk, .ce, .mag(a[30:0]), .e(e2), .lg(lg3), .z(z5));
  // e and L = -log2(r) wait beside the polynomial (stages 3-12).
  logic [12:3][67:0] el_q;
  logic signed [8:0] e3;
  always_ff @(posedge clk) begin
    if (ce) e3 <= e2;
  end
  assign el_q[3] = {e3, lg3};

  // ---------------------------------------------------------------- 6-12: z * q(z)
  // Horner from the z^5 coefficient, each step's sum truncated to the fraction bits its
  // weight in q needs (h_k is multiplied by z^k, |z| < 2^-7); z enters every product exact.
  logic signed [26:0] z6, z7, z8, z9, z10;
  logic signed [60:0] p6, p7, p8;   // units 2^-65
  logic signed [68:0] p9;           // units 2^-73
  logic signed [74:0] p10;          // units 2^-79
  logic signed [33:0] h4, h3;       // units 2^-32
  logic signed [41:0] h2;           // units 2^-40
  logic signed [47:0] h1;           // units 2^-46
  logic signed [48:0] q;            // units 2^-47, q in (1.43, 1.46)
  assign h4 = C5 + 34'(p6 >>> 33);
  assign h3 = C4 + 34'(p7 >>> 33);
  assign h2 = 42'(C3) + 42'(p8 >>> 25);
  assign h1 = 48'(C2) + 48'(p9 >>> 27);
  assign q  = C1 + 49'(p10 >>> 32);
  logic signed [75:0] zq11, zq12;   // units 2^-80, |z * q| < 2^73.6
  always_ff @(posedge clk) begin
    if (ce) begin
      p6   <= 61'(z5 * C6);
      z6   <= z5;
      p7   <= 61'(z6 * h4);
      z7   <= z6;
      p8   <= 61'(z7 * h3);
      z8   <= z7;
      p9   <= 69'(z8 * h2);
      z9   <= z8;
      p10  <= 75'(z9 * h1);
      z10  <= z9;
      zq11 <= 76'(z10 * q);  // 27 x 49 over several DSPs: a second register level
      zq12 <= zq11;
    end
  end

  // ---------------------------------------------------------------- 13: s = log2|x|
  logic signed [8:0]  e12;
  logic [58:0]        lg12;
  assign {e12, lg12} = el_q[12];
  logic signed [88:0] s13;  // units 2^-80, |s| < 150
  always_ff @(posedge clk) begin
    if (ce) s13 <= $signed({e12, 80'd0}) + $signed({8'd0, lg12, 22'd0}) + 89'(zq12);
  end

  // ---------------------------------------------------------------- 14-16: normalize s
  logic [87:0] mag14, mag15;
  logic        sneg14, sneg15, sneg16;
  logic [6:0]  lz_s, lz15;
  fk_lzc #(.W(88)) u_lzc_s (.x(mag14), .count(lz_s));
  logic [47:0]        ms16;  // |s| = ms * 2^(es - 47), es = 7 - lz
  logic signed [9:0]  k16;   // es + y's exponent: |t| in [2^k, 2^(k+2))
  logic               szero16;
  logic [87:0]        norm;
  assign norm = mag15 << lz15;
  logic signed [8:0]  ey15;
  assign ey15 = side_q[15][SIDE_W-25 -: 9];
  always_ff @(posedge clk) begin
    if (ce) begin
      mag14   <= s13[88] ? 88'(-s13) : 88'(s13);
      sneg14  <= s13[88];
      mag15   <= mag14;
      lz15    <= lz_s;
      sneg15  <= sneg14;
      ms16    <= norm[87:40];
      k16     <= 10'(ey15) + 10'sd7 - $signed({3'd0, lz15});
      szero16 <= lz15 == 7'd88;  // x = 1: s = 0, t = 0
      sneg16  <= sneg15;
    end
  end

  // ---------------------------------------------------------------- 17-18: y * s
  logic [71:0]       p17, p18;   // t = p * 2^(k - 70), exact
  logic signed [9:0] k17, k18;
  logic              zero17, zero18, neg17, neg18;
  logic [23:0]       my16;
  logic              sy16;
  assign my16 = side_q[16][SIDE_W-1 -: 24];
  assign sy16 = side_q[16][SIDE_W-34];
  always_ff @(posedge clk) begin
    if (ce) begin
      p17    <= my16 * ms16;
      k17    <= k16;
      zero17 <= szero16;
      neg17  <= sy16 ^ sneg16;
      p18    <= p17;
      k18    <= k17;
      zero18 <= zero17;
      neg18  <= neg17;
    end
  end

  // ---------------------------------------------------------------- 19: align t
  // |t| * 2^32 = p >> (38 - k). k >= 8 means |t| >= 256; below, the shift is >= 31 and the
  // result fits 41 bits, its bit 40 again meaning |t| >= 256.
  logic signed [9:0] sh_full;
  logic [6:0]        sh19;
  assign sh_full = 10'sd38 - k18;
  assign sh19    = sh_full > 10'sd127 ? 7'd127 : sh_full[6:0];
  logic [71:0] p_shifted;
  assign p_shifted = p18 >> sh19;
  logic [40:0] tmag19;
  logic        big19, neg19;
  always_ff @(posedge clk) begin
    if (ce) begin
      tmag19 <= p_shifted[40:0];
      big19  <= !zero18 && k18 >= 10'sd8;
      neg19  <= neg18;
    end
  end

  // ---------------------------------------------------------------- 20: sign, class
  logic       forced19, rsign19;
  logic [1:0] fcls19;
  assign {forced19, fcls19, rsign19} = side_q[19][3:0];
  logic       big;
  assign big = big19 || tmag19[40];
  logic [40:0] t20;
  logic [1:0]  cls20;
  logic        sign20;
  always_ff @(posedge clk) begin
    if (ce) begin
      t20    <= forced19 ? 41'd0 : (neg19 ? 41'd0 - {1'b0, tmag19[39:0]} : {1'b0, tmag19[39:0]});
      cls20  <= forced19 ? fcls19 : (big ? (neg19 ? CLS_UNF : CLS_OVF) : CLS_FINITE);
      sign20 <= rsign19;
    end
  end

  // ---------------------------------------------------------------- 21-27: 2^t
  logic signed [8:0] n27;
  logic [31:0]       frac27;
  fk_fp32_exp2_fixed u_exp2 (.clk, .ce, .t(t20), .n(n27), .frac(frac27));
  logic [7:0][2:0] cs_q;  // class and sign, beside the exponential
  assign cs_q[0] = {cls20, sign20};

  // ---------------------------------------------------------------- 28-30: round, pack
  fk_fp32_exp_pack u_pack (.clk, .ce, .cls(cs_q[7][2:1]), .sign(cs_q[7][0]), .n(n27),
                           .frac(frac27), .y);

  for (genvar s = 0; s < 19; s++) begin : g_side
    always_ff @(posedge clk) begin
      if (ce) side_q[s+1] <= side_q[s];
    end
  end
  for (genvar s = 3; s < 12; s++) begin : g_el
    always_ff @(posedge clk) begin
      if (ce) el_q[s+1] <= el_q[s];
    end
  end
  for (genvar s = 0; s < 7; s++) begin : g_cs
    always_ff @(posedge clk) begin
      if (ce) cs_q[s+1] <= cs_q[s];
    end
  end

  // The products' low bits are below the kept precision; |s| < 2^88 leaves the top bits of
  // its negation unused; y's significand and exponent are not needed after stage 16; the
  // delay lines' ends are read in part.
  logic unused;
  assign unused = ^{p6[32:0], p7[32:0], p8[24:0], p9[26:0], p10[31:0],
                    norm[39:0], p_shifted[71:41], side_q[19][SIDE_W-1:4], side_q[16][9:0],
                    side_q[15][SIDE_W-1:SIDE_W-24], side_q[15][SIDE_W-34:0],
                    side_q[16][SIDE_W-25 -: 9], my_int[23:1]};
endmodule
