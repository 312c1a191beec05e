// fk_fp32_log_core: y = log_b(x) on float32, b = e (NATURAL = 1) or 2, within 1 ulp of the
// correctly rounded result. Shared by fk_fp32_log and fk_fp32_log2 (the wrappers only fix
// NATURAL).
//   log(NaN) = NaN (canonical 0x7FC00000), log(x < 0) = NaN (-inf and negative subnormals
//   included), log(+-0) = -inf, log(+inf) = +inf, log(1) = +0. Subnormal inputs are
//   normalized (never flushed). A finite nonzero result is always a normal float32.
//
// Range reduction, in fixed point (no floating-point adder inside):
//   x = 2^e * m, m = 1.f in [1, 2)                          (subnormals: lzc + shift)
//   r = table[f's top 7 bits] ~ 1/m with 10 fraction bits, z = m * r - 1, |z| < 2^-7 exact
//   log_b(x) = e * log_b(2) + L + z * q(z),  L = -log_b(r) (table, 58 fraction bits),
//   q(z) = log_b(e) * (1 - z/2 + z^2/3 - z^3/4)              (Taylor, Horner)
// r_0 = 1 and r_127 = 1/2 exactly, so x just above 1 (e = 0, first interval) and just below
// (e = -1, last interval) give e * log_b(2) + L = 0 exactly: the result is z * q(z) alone,
// and z (at least 2^-24 there) keeps its full relative precision in the 58-fraction-bit
// sum. Everywhere else |log_b(x)| >= 2^-7.5, far above the sum's absolute errors.
//
// Error budget (relative to the result, before the final rounding): Taylor remainder
// |z|^4/5 < 2^-30.3; q's truncated products 2^-32 (the z^2 and z^3 terms use z at 24
// fraction bits, 2^-32 after the multiplications by z); table, ln 2 and the product z * q
// rounded at 2^-58 (at most 150 * 2^-58 with e * ln 2): below 2^-29.8 in total, i.e. the
// rounded result is within 0.5 + 2^-5.8 ulp: at most 1 ulp. Constants and tables come from
// gen_log_table.py.
//
// Pipeline, latency 16 ce-cycles, II = 1 (stages 1-5 but the classes and e * ln 2 are
// fk_fp32_log_reduce, shared with fk_fp32_pow):
//   1 classify, lzc | 2 normalize | 3 table, e * ln 2 | 4 m * r | 5 z | 6-9 q (Horner)
//   | 10-11 z * q | 12 sum | 13 magnitude | 14 lzc | 15 normalize | 16 round, pack.
module fk_fp32_log_core #(
  parameter bit NATURAL = 1'b0
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam int LAT = 16;
  localparam logic [1:0] CLS_FINITE = 2'd0, CLS_NAN = 2'd1, CLS_PINF = 2'd2, CLS_NINF = 2'd3;
  // q(z) coefficients, 32 fraction bits, printed by gen_log_table.py (LOG2_Cn / LN_Cn).
  localparam logic signed [34:0] C1 = NATURAL ? 35'sd4294967296  : 35'sd6196328019;
  localparam logic signed [34:0] C2 = NATURAL ? -35'sd2147483648 : -35'sd3098164009;
  localparam logic signed [34:0] C3 = NATURAL ? 35'sd1431655765  : 35'sd2065442673;
  localparam logic signed [34:0] C4 = NATURAL ? -35'sd1073741824 : -35'sd1549082005;
  localparam logic signed [59:0] LN2_Q58 = 60'sd199786072581291495;  // ln 2 * 2^58

  // Result class travels in a delay line beside the datapath.
  logic [LAT:0][1:0] cls_q;

  // ---------------------------------------------------------------- 1: classify, lzc
  logic [7:0]  ea;
  logic [22:0] fa;
  assign ea = a[30:23];
  assign fa = a[22:0];
  always_comb begin
    if (ea == 8'hFF && fa != 23'd0)      cls_q[0] = CLS_NAN;
    else if (ea == 8'd0 && fa == 23'd0)  cls_q[0] = CLS_NINF;  // log(+-0) = -inf
    else if (a[31])                      cls_q[0] = CLS_NAN;   // x < 0, -inf included
    else if (ea == 8'hFF)                cls_q[0] = CLS_PINF;
    else                                 cls_q[0] = CLS_FINITE;
  end
  // ---------------------------------------------------------------- 1-5: range reduction
  // x = 2^e * m, r = table[m] ~ 1/m, z = m * r - 1 (fk_fp32_log_reduce, shared with pow):
  // e leaves after stage 2, L = -log_b(r) after stage 3, z after stage 5.
  logic signed [8:0]  e2;
  logic [58:0]        lg3;
  logic signed [26:0] z5;   // units 2^-33, |z| < 2^26
  fk_fp32_log_reduce #(.NATURAL(NATURAL)) u_reduce (
      .clk, .ce, .mag(a[30:0]), .e(e2), .lg(lg3), .z(z5));

  // ---------------------------------------------------------------- 3: e * log_b 2
  logic signed [67:0] ebig3;  // e * log_b(2), 58 fraction bits
  if (NATURAL) begin : g_ln2
    logic signed [68:0] eprod;
    always_ff @(posedge clk) begin
      if (ce) eprod <= e2 * LN2_Q58;
    end
    assign ebig3 = eprod[67:0];  // |e * ln 2| < 2^65.7: the top bit only repeats the sign
    logic unused_top;
    assign unused_top = eprod[68];
  end else begin : g_log2
    logic signed [8:0] e3;
    always_ff @(posedge clk) begin
      if (ce) e3 <= e2;
    end
    assign ebig3 = 68'($signed({e3, 58'd0}));
  end

  // ---------------------------------------------------------------- 4-5: L, e * log_b 2 wait
  logic [58:0]        lg4, lg5;
  logic signed [67:0] ebig4, ebig5;
  always_ff @(posedge clk) begin
    if (ce) begin
      lg4   <= lg3;
      ebig4 <= ebig3;
      lg5   <= lg4;
      ebig5 <= ebig4;
    end
  end

  // ---------------------------------------------------------------- 6-9: q(z), Horner
  // The z^2 and z^3 coefficients are multiplied by z (< 2^-7) once more, so z enters them
  // at 24 fraction bits; the z coefficient's product takes z at 32.
  logic signed [17:0] z24_5;
  assign z24_5 = z5[26:9];

  logic signed [26:0] z6, z7, z8, z9;
  logic signed [52:0] p4_6, p3_7;   // units 2^-56
  logic signed [60:0] p2_8;         // units 2^-64
  logic signed [34:0] q1_9;         // units 2^-32
  logic signed [17:0] z24_6;
  logic [58:0]        lg6, lg7, lg8, lg9;
  logic signed [67:0] ebig6, ebig7, ebig8, ebig9;
  logic signed [34:0] q3, q2;
  assign q3 = C3 + 35'($signed(p4_6[52:24]));
  assign q2 = C2 + 35'($signed(p3_7[52:24]));
  always_ff @(posedge clk) begin
    if (ce) begin
      p4_6  <= z24_5 * C4;
      z24_6 <= z24_5;
      z6    <= z5;
      p3_7  <= z24_6 * q3;
      z7    <= z6;
      p2_8  <= $signed(z7[26:1]) * q2;
      z8    <= z7;
      q1_9  <= C1 + 35'($signed(p2_8[60:32]));
      z9    <= z8;
      {lg6, lg7, lg8, lg9}         <= {lg5, lg6, lg7, lg8};
      {ebig6, ebig7, ebig8, ebig9} <= {ebig5, ebig6, ebig7, ebig8};
    end
  end

  // ---------------------------------------------------------------- 10-11: z * q
  // A 27 x 35 product over two DSPs: a second register level for their pipeline registers.
  logic signed [61:0] zq10, zq11;   // units 2^-65
  logic [58:0]        lg10, lg11;
  logic signed [67:0] ebig10, ebig11;
  always_ff @(posedge clk) begin
    if (ce) begin
      zq10   <= z9 * q1_9;
      zq11   <= zq10;
      lg10   <= lg9;
      lg11   <= lg10;
      ebig10 <= ebig9;
      ebig11 <= ebig10;
    end
  end

  // ---------------------------------------------------------------- 12: the sum
  logic signed [67:0] s12;  // log_b(x) * 2^58
  always_ff @(posedge clk) begin
    if (ce) s12 <= ebig11 + $signed({9'd0, lg11}) + 68'($signed(zq11[61:7]));
  end

  // ---------------------------------------------------------------- 13: sign, magnitude
  logic [66:0] mag13;
  logic        neg13;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag13 <= s12[67] ? 67'(-s12) : 67'(s12);
      neg13 <= s12[67];
    end
  end

  // ---------------------------------------------------------------- 14: leading zeros
  logic [6:0]  lz_s;
  fk_lzc #(.W(67)) u_lzc_sum (.x(mag13), .count(lz_s));
  logic [66:0] mag14;
  logic [6:0]  lz14;
  logic        neg14;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag14 <= mag13;
      lz14  <= lz_s;
      neg14 <= neg13;
    end
  end

  // ---------------------------------------------------------------- 15: normalize
  // The leading one moves to bit 66; the value is 2^(66 - lz - 58), so the biased exponent
  // is 135 - lz (in [1, 142]: the result is never subnormal). lz = 67 means log(1) = 0.
  logic [66:0] norm15;
  logic [9:0]  exp15;
  logic        zero15, neg15;
  always_ff @(posedge clk) begin
    if (ce) begin
      norm15 <= mag14 << lz14;
      exp15  <= 10'd135 - {3'd0, lz14};
      zero15 <= lz14 == 7'd67;
      neg15  <= neg14;
    end
  end

  // ---------------------------------------------------------------- 16: round, pack
  logic [31:0] rounded;
  fk_fp32_round #(.EW(10)) u_round (
    .sign(neg15), .exp(exp15), .frac(norm15[65:43]), .guard(norm15[42]),
    .sticky(norm15[41:0] != 42'd0), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      case (cls_q[LAT - 1])
        CLS_NAN:  y <= 32'h7FC0_0000;
        CLS_PINF: y <= 32'h7F80_0000;
        CLS_NINF: y <= 32'hFF80_0000;
        default:  y <= zero15 ? 32'h0000_0000 : rounded;
      endcase
    end
  end

  for (genvar s = 0; s < LAT; s++) begin : g_delay
    always_ff @(posedge clk) begin
      if (ce) cls_q[s+1] <= cls_q[s];
    end
  end

  // The hidden bit is implied by the exponent; the last class is not needed; the rest are
  // below the kept precision.
  logic unused;
  assign unused = ^{norm15[66], cls_q[LAT], p4_6[23:0], p3_7[23:0], p2_8[31:0], zq11[6:0]};
endmodule
