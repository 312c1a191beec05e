// fk_fp32_log_reduce: the range reduction of a logarithm's argument, the first five stages
// of fk_fp32_log_core (log, log2) and fk_fp32_pow (log2|x|), shared by both.
//
//   x = 2^e * m, m = 1.f in [1, 2)   (|x| from the 31 magnitude bits; subnormals: lzc + shift)
//   r = table[f's top 7 bits] ~ 1/m with 10 fraction bits (fk_fp32_log_table),
//   z = m * r - 1, exact, |z| < 2^-7
// The caller classifies the operand (zero, infinity, NaN, sign); for those the outputs are
// don't-cares.
//
// The outputs leave at the stage where each is ready (ce-cycles after mag enters):
//   e   2   the unbiased exponent, subnormals included (-149 .. 127)
//   lg  3   L = -log_b(r) * 2^58 from the table (b = e when NATURAL, else 2)
//   z   5   z * 2^33 in two's complement (|z| < 2^26)
// Pipeline, II = 1: 1 lzc | 2 normalize | 3 table | 4 m * r | 5 z.
module fk_fp32_log_reduce #(
  parameter bit NATURAL = 1'b0
) (
  input  logic               clk,
  input  logic               ce,
  input  logic [30:0]        mag,   // |x|: the exponent field and the fraction
  output logic signed [8:0]  e,     // stage 2
  output logic [58:0]        lg,    // stage 3
  output logic signed [26:0] z      // stage 5
);
  // ---------------------------------------------------------------- 1: lzc
  logic [4:0] lz_f;
  fk_lzc #(.W(23)) u_lzc_in (.x(mag[22:0]), .count(lz_f));
  logic [7:0]  ex1;
  logic [22:0] fx1;
  logic [4:0]  lz1;
  always_ff @(posedge clk) begin
    if (ce) {ex1, fx1, lz1} <= {mag, lz_f};
  end

  // ---------------------------------------------------------------- 2: normalize
  // Subnormal: the leading one of f at bit 22 - lz moves to the hidden position 23, and
  // x = 2^(-127 - lz) * m. Normal: e = field - 127.
  logic [23:0] m2;
  always_ff @(posedge clk) begin
    if (ce) begin
      if (ex1 == 8'd0) begin
        m2 <= 24'({fx1, 1'b0} << lz1);
        e  <= -9'sd127 - $signed({4'd0, lz1});
      end else begin
        m2 <= {1'b1, fx1};
        e  <= $signed({1'b0, ex1}) - 9'sd127;
      end
    end
  end

  // ---------------------------------------------------------------- 3: table
  logic [10:0] recip;
  logic [58:0] lg_t;
  fk_fp32_log_table #(.NATURAL(NATURAL)) u_table (.idx(m2[22:16]), .recip(recip), .lg(lg_t));
  logic [23:0] m3;
  logic [10:0] r3;
  always_ff @(posedge clk) begin
    if (ce) {m3, r3, lg} <= {m2, recip, lg_t};
  end

  // ---------------------------------------------------------------- 4-5: z = m * r - 1
  logic [34:0] mr4;  // units 2^-33, within 2^-7 of 1
  always_ff @(posedge clk) begin
    if (ce) mr4 <= m3 * r3;
  end
  logic signed [35:0] z_wide;
  assign z_wide = $signed({1'b0, mr4}) - 36'sd8589934592;  // - 2^33
  always_ff @(posedge clk) begin
    if (ce) z <= z_wide[26:0];
  end

  // z's bits above 26 only repeat its sign.
  logic unused;
  assign unused = ^z_wide[35:27];
endmodule
