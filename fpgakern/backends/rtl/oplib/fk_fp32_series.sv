// fk_fp32_series: the small and tiny ranges of a float32 function f with f(x) = x * P(x),
// P(x) = 1 + K1 x + K2 x^2 + ... + K6 x^6 (fk_fp32_expm1, fk_fp32_log1p). Each caller proves
// its own error bound (see its header); this module only evaluates:
//
//   |x| < 2^-24 (tiny, subnormals and zeros included): fields = x itself.
//   2^-24 <= |x| < 2^(EMAX - 126) (small, exponent field 103..EMAX): Horner in signed fixed
//     point with 40 fraction bits (products truncated toward -inf), then the exact product
//     of the 24-bit significand and P, normalized by one place either way (P must lie in
//     (0.5, 2) on the range).
//   |x| beyond the range: fields are don't-care (the caller selects its own result).
//
// Output, 16 ce-cycles after a (unpack, align x, six Horner steps of product and sum,
// m * P, normalize), II = 1: {2'd0, biased exponent (8 bits), 23 fraction bits, guard,
// sticky}, unrounded and without the sign (fk_fp32_round's inputs with EW = 10).
module fk_fp32_series #(
  // The Horner coefficients K1..K6 times 2^40, rounded to nearest.
  parameter logic signed [41:0] K1 = 42'sd0,
  parameter logic signed [41:0] K2 = 42'sd0,
  parameter logic signed [41:0] K3 = 42'sd0,
  parameter logic signed [41:0] K4 = 42'sd0,
  parameter logic signed [41:0] K5 = 42'sd0,
  parameter logic signed [41:0] K6 = 42'sd0,
  // The largest exponent field of the small range (123: |x| < 2^-3, 122: |x| < 2^-4).
  parameter logic [7:0] EMAX = 8'd123
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [34:0] fields
);
  localparam logic signed [41:0] ONE = 42'sh100_0000_0000;

  // ---------------------------------------------------------------- 1: unpack
  // x = m * 2^(E-23), E = field - 127 in [-24, EMAX - 127]; x * 2^40 = m * 2^(E+17).
  logic [7:0] ea;
  assign ea = a[30:23];
  logic [23:0] m_s[1:14];
  logic [7:0]  e_s[1:15];
  logic [22:0] f_s[1:15];
  logic        tiny_s[1:15];
  logic        neg1;
  logic [4:0]  lsh1, rsh1;
  always_ff @(posedge clk) begin
    if (ce) begin
      m_s[1]    <= {ea != 8'd0, a[22:0]};
      e_s[1]    <= ea;
      f_s[1]    <= a[22:0];
      tiny_s[1] <= ea < 8'd103;  // |x| < 2^-24
      neg1      <= a[31];
      lsh1      <= (ea >= 8'd110 && ea <= EMAX) ? 5'(ea - 8'd110) : 5'd0;
      rsh1      <= ea < 8'd110 ? (ea < 8'd86 ? 5'd24 : 5'(8'd110 - ea)) : 5'd0;
    end
  end
  for (genvar s = 1; s < 15; s++) begin : g_carry
    always_ff @(posedge clk) begin
      if (ce) begin
        e_s[s+1]    <= e_s[s];
        f_s[s+1]    <= f_s[s];
        tiny_s[s+1] <= tiny_s[s];
      end
    end
  end
  for (genvar s = 1; s < 14; s++) begin : g_carry_m
    always_ff @(posedge clk) begin
      if (ce) m_s[s+1] <= m_s[s];
    end
  end

  // ---------------------------------------------------------------- 2: x in fixed point
  logic [36:0] xmag1;
  assign xmag1 = ({13'd0, m_s[1]} << lsh1) >> rsh1;  // |x| * 2^40 < 2^37
  logic signed [40:0] xs_s[2:12];
  always_ff @(posedge clk) begin
    if (ce) xs_s[2] <= neg1 ? -$signed({4'd0, xmag1}) : $signed({4'd0, xmag1});
  end
  for (genvar s = 2; s < 12; s++) begin : g_carry_x
    always_ff @(posedge clk) begin
      if (ce) xs_s[s+1] <= xs_s[s];
    end
  end

  // ---------------------------------------------------------------- 3-14: Horner
  // h5 = K5 + x K6, h4 = K4 + x h5, ..., h1 = K1 + x h2, P = 1 + x h1: a product stage
  // then a sum stage each, products truncated (arithmetic shift) to 40 fraction bits.
  logic signed [82:0] p3, p5, p7, p9, p11, p13;
  logic signed [41:0] h4, h6, h8, h10, h12, poly14;
  always_ff @(posedge clk) begin
    if (ce) begin
      p3     <= 83'(xs_s[2]) * 83'(K6);
      h4     <= K5 + 42'(p3 >>> 40);
      p5     <= 83'(xs_s[4]) * 83'(h4);
      h6     <= K4 + 42'(p5 >>> 40);
      p7     <= 83'(xs_s[6]) * 83'(h6);
      h8     <= K3 + 42'(p7 >>> 40);
      p9     <= 83'(xs_s[8]) * 83'(h8);
      h10    <= K2 + 42'(p9 >>> 40);
      p11    <= 83'(xs_s[10]) * 83'(h10);
      h12    <= K1 + 42'(p11 >>> 40);
      p13    <= 83'(xs_s[12]) * 83'(h12);
      poly14 <= ONE + 42'(p13 >>> 40);
    end
  end

  // ---------------------------------------------------------------- 15: m * P
  logic [65:0] y15;            // units 2^-63, in [0.5, 4)
  always_ff @(posedge clk) begin
    if (ce) y15 <= 66'(m_s[14]) * 66'($unsigned(poly14));
  end

  // ---------------------------------------------------------------- 16: normalize
  // Tiny x passes as itself (exponent field 0 for subnormals and zeros).
  always_ff @(posedge clk) begin
    if (ce) begin
      if (tiny_s[15])
        fields <= {2'd0, e_s[15], f_s[15], 2'b00};
      else if (y15[64])
        fields <= {2'd0, e_s[15] + 8'd1, y15[63:41], y15[40], y15[39:0] != 40'd0};
      else if (y15[63])
        fields <= {2'd0, e_s[15], y15[62:40], y15[39], y15[38:0] != 39'd0};
      else
        fields <= {2'd0, e_s[15] - 8'd1, y15[61:39], y15[38], y15[37:0] != 38'd0};
    end
  end

  // Bits below the kept precision, the products' sign bits beyond the kept range, the
  // top bit of m * P.
  logic unused;
  assign unused = ^{p3[39:0], p5[39:0], p7[39:0], p9[39:0], p11[39:0], p13[39:0],
                    p3[82], p5[82], p7[82], p9[82], p11[82], p13[82], y15[65]};
endmodule
