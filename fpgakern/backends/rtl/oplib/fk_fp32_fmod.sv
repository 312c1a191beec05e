// fk_fp32_fmod: IEEE-754 binary32 fmod(a, b), C's fmodf and torch.fmod: a - n*b with n the
// quotient a/b truncated toward zero, computed exactly (the result is always representable,
// so there is no rounding). The result has a's sign, also when it is zero (fmod(-4, 2) = -0).
// Subnormal operands and results are exact (no flushing).
//   fmod(NaN, y), fmod(x, NaN), fmod(+-inf, y), fmod(x, +-0) = NaN, the canonical 0x7FC00000
//   fmod(+-0, y) = +-0 (y not 0, not NaN);  fmod(x, +-inf) = x (x finite);  |a| < |b|: a
//
// Algorithm: both significands are normalized to 24 bits with the leading one at bit 23
// (subnormals by their leading-zero count), so |a| = ma * 2^(xa-150), |b| = mb * 2^(xb-150)
// with ma, mb in [2^23, 2^24). With d = xa - xb >= 0 the result is (ma * 2^d mod mb) *
// 2^(xb-150): r = ma mod mb (one conditional subtraction), then d steps of r = 2r, minus mb
// when it fits (the remainder half of a restoring division; the quotient is not kept).
// d is at most 254 - (1 - 23) = 276 (the largest a over the smallest subnormal b), so the
// pipeline holds DMAX = 276 steps, PER_STAGE per stage; a step past d passes r unchanged.
// When |a| < |b| (d < 0), b = inf or a = 0 the result is a: r = ma, xb := xa, d = 0, which
// the final normalization packs back into a's bits.
//
// Pipeline, latency 2 + 276/PER_STAGE + 2 ce-cycles (142 with PER_STAGE = 2), II = 1:
//   1        classify, leading-zero counts
//   2        normalize significands, d, r = ma mod mb (or the pass-through of a)
//   3..140   138 stages of 2 steps each
//   141      normalize r (leading-zero count), exponent
//   142      pack (a subnormal result is shifted right: only zero bits leave), specials
module fk_fp32_fmod #(
  parameter int PER_STAGE = 2
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  localparam int DMAX   = 276;
  localparam int STAGES = (DMAX + PER_STAGE - 1) / PER_STAGE;
  localparam logic [31:0] QNAN = 32'h7FC0_0000;

  // ---------------------------------------------------------------- stage 1: classify
  logic [23:0] ma, mb;       // significands with the hidden bit, not yet normalized
  logic [7:0]  ea, eb;       // effective biased exponents (1 for subnormals)
  logic [4:0]  lza, lzb;
  logic        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  fk_fp32_unpack u_unpack_a (.mag(a[30:0]), .nan(a_nan), .inf(a_inf), .zero(a_zero), .m(ma),
                             .e(ea), .lz(lza));
  fk_fp32_unpack u_unpack_b (.mag(b[30:0]), .nan(b_nan), .inf(b_inf), .zero(b_zero), .m(mb),
                             .e(eb), .lz(lzb));

  logic [23:0] ma1, mb1;
  logic [7:0]  ea1, eb1;     // effective biased exponents (1 for subnormals)
  logic [4:0]  lza1, lzb1;
  logic        sign1, nan1, pass1;
  always_ff @(posedge clk) begin
    if (ce) begin
      ma1   <= ma;
      mb1   <= mb;
      ea1   <= ea;
      eb1   <= eb;
      lza1  <= lza;
      lzb1  <= lzb;
      sign1 <= a[31];
      nan1  <= a_nan || b_nan || a_inf || b_zero;
      pass1 <= a_zero || b_inf;
    end
  end

  // ---------------------------------------------------------------- stage 2: set up
  logic [23:0]       man, mbn;
  logic signed [9:0] xa, xb, dd;
  logic [24:0]       first_diff;
  assign man = ma1 << lza1;
  assign mbn = mb1 << lzb1;
  assign xa  = $signed({2'b00, ea1}) - $signed({5'd0, lza1});
  assign xb  = $signed({2'b00, eb1}) - $signed({5'd0, lzb1});
  assign dd  = xa - xb;
  assign first_diff = {1'b0, man} - {1'b0, mbn};

  // Index s holds the state entering step stage s; index STAGES is the last stage's output.
  logic [STAGES:0][23:0]       r_q;
  logic [STAGES:0][23:0]       m_q;      // the divisor's significand mb
  logic [STAGES:0][8:0]        d_q;      // steps to take (0..276)
  logic [STAGES:0][9:0]        x_q;      // the result's exponent before normalization
  logic [STAGES:0]             sign_q, nan_q;

  always_ff @(posedge clk) begin
    if (ce) begin
      sign_q[0] <= sign1;
      nan_q[0]  <= nan1;
      m_q[0]    <= mbn;
      if (pass1 || dd < 0) begin  // the result is a itself
        r_q[0] <= man;
        x_q[0] <= xa;
        d_q[0] <= 9'd0;
      end else begin
        r_q[0] <= first_diff[24] ? man : first_diff[23:0];
        x_q[0] <= xb;
        d_q[0] <= dd[8:0];
      end
    end
  end

  // ---------------------------------------------------------------- steps
  for (genvar s = 0; s < STAGES; s++) begin : g_stage
    // The chained steps of this stage, flattened; slice 0 is the registered stage input.
    logic [(PER_STAGE+1)*24-1:0] r_c;
    assign r_c[23:0] = r_q[s];

    for (genvar k = 0; k < PER_STAGE; k++) begin : g_step
      localparam int STEP = s * PER_STAGE + k + 1;  // 1-based step number
      logic [23:0] r_k;
      assign r_k = r_c[k*24 +: 24];
      if (STEP <= DMAX) begin : g_on
        logic [24:0] doubled, diff;
        assign doubled = {r_k, 1'b0};
        assign diff    = doubled - {1'b0, m_q[s]};
        // r < mb, so 2r < 2 mb: one conditional subtraction brings it below mb again.
        // doubled >= mb: diff[24] clear; the difference fits in 24 bits.
        assign r_c[(k+1)*24 +: 24] =
            d_q[s] < 9'(STEP) ? r_k : (diff[24] ? doubled[23:0] : diff[23:0]);
      end else begin : g_off
        assign r_c[(k+1)*24 +: 24] = r_k;
      end
    end

    always_ff @(posedge clk) begin
      if (ce) begin
        r_q[s+1]    <= r_c[PER_STAGE*24 +: 24];
        m_q[s+1]    <= m_q[s];
        d_q[s+1]    <= d_q[s];
        x_q[s+1]    <= x_q[s];
        sign_q[s+1] <= sign_q[s];
        nan_q[s+1]  <= nan_q[s];
      end
    end
  end

  // ---------------------------------------------------------------- normalize
  logic [4:0] lzr;
  fk_lzc #(.W(24)) u_lzr (.x(r_q[STAGES]), .count(lzr));

  logic [23:0]       mr;
  logic signed [9:0] er;   // biased exponent of mr with its leading one at bit 23
  logic              zr, sign_r, nan_r;
  always_ff @(posedge clk) begin
    if (ce) begin
      mr     <= r_q[STAGES] << lzr;
      er     <= $signed(x_q[STAGES]) - $signed({5'd0, lzr});
      zr     <= r_q[STAGES] == 24'd0;
      sign_r <= sign_q[STAGES];
      nan_r  <= nan_q[STAGES];
    end
  end

  // ---------------------------------------------------------------- pack
  // er >= 1: a normal number. er < 1: a subnormal; the value is representable, so the
  // right shift by 1 - er (at most 23 for a nonzero result) drops only zero bits.
  logic [9:0]  sub_shift;
  logic [23:0] sub_m;
  assign sub_shift = 10'sd1 - er;
  assign sub_m     = sub_shift > 10'd24 ? 24'd0 : mr >> sub_shift;

  always_ff @(posedge clk) begin
    if (ce) begin
      if (nan_r)        y <= QNAN;
      else if (zr)      y <= {sign_r, 31'd0};
      else if (er >= 1) y <= {sign_r, er[7:0], mr[22:0]};
      else              y <= {sign_r, 8'd0, sub_m[22:0]};
    end
  end

  // The divisor and the step counts leave the last stage unused; a subnormal's top bit
  // is always clear; b's sign never matters (fmod takes a's).
  logic unused;
  assign unused = ^{m_q[STAGES], d_q[STAGES], sub_m[23], er[9:8], b[31]};
endmodule
