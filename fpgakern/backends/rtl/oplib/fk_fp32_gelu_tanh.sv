// fk_fp32_gelu_tanh: y = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), on float32
// (torch.nn.functional.gelu(x, approximate='tanh')), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR) for every x, the negative tail down to
// the underflow included (where the float32 formula's 1 + tanh(u) cancels to 0).
//
// Identity: 0.5 (1 + tanh(u)) = sigmoid(2u), so with z = 2u = x (K1 + K3 x^2),
// K1 = 2 sqrt(2/pi), K3 = 0.044715 K1, and w = e^-|z| in (0, 1] (never overflows):
//   x >= 0:  y = x / (1 + w)          x < 0:  y = x w / (1 + w)
// as fk_fp32_sigmoid computes sigmoid, but with x's significand m multiplied into the
// numerator (exactly) so that the one division and the one rounding give x * sigmoid.
//   t = -|z| log2(e) = -|x| (A + B x^2), A = K1 log2(e), B = K3 log2(e), in fixed point:
//   x^2 = m^2 2^(2e - 300) truncated to 2^-40 (m, e: x's significand and exponent
//   field), s = A + B x^2 (A at 2^-40, B at 2^-48), t = -|x| s = -m s 2^(e - 150)
//   truncated to 2^-32: |t error| < 2^-32 + 16 * 2^-39, so w's relative error
//   (fk_fp32_exp2_fixed) stays below 2^-29.4 and y's, before the rounding, below 2^-29
//   (the 2^-32 truncation of w inside 1 + w adds at most 2^-32): |error| < 0.52 ulp, at
//   most 1 ulp after rounding.
// The numerator N (1 or w's significand M, 33 bits) times m is exact (57 bits); the
// quotient m N / (1 + w) is normalized into [1, 2) and computed by fk_udiv_pipe (25 bits,
// the remainder as sticky), denormalized when the exponent falls below the normal range.
// Ranges and special values: fk_fp32_gelu_front decides NaN, +-inf, |x| >= 16 and
//   |x| < 2^-26 on x alone; in the datapath t < -255 (|x| > about 11.5) gives w = 0:
//   y = x for x > 0, -0 for x < 0.
//
// Pipeline, latency 29 ce-cycles, II = 1: 1 (unpack, X) + 1 (x^2) + 1 (s) + 1 (t) + 7
// (fk_fp32_exp2_fixed) + 1 (align w) + 1 (m N, 1 + w) + 1 (normalize the quotient) + 13
// (fk_udiv_pipe) + 1 (denormalize) + 1 (round, pack, select).
module fk_fp32_gelu_tanh (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  // Constants printed by mpmath (200 bits, rounded to nearest).
  localparam logic [41:0] A_Q40 = 42'h24D_5D84_379D;      // 2 sqrt(2/pi) log2(e) * 2^40
  localparam logic [44:0] B_Q48 = 45'h1A5A_7CF7_572B;     // ... * 0.044715 * 2^48
  localparam logic [41:0] T_MAX = 42'h0FF_0000_0000;      // 255 in units 2^-32

  // ---------------------------------------------------------------- 0: classify, X
  logic        special0;        // the result is spec0, decided on x alone
  logic [31:0] spec0;
  logic [43:0] x0;
  fk_fp32_gelu_front u_front (.a, .special(special0), .spec(spec0), .xfix(x0));
  logic [7:0] ea;
  assign ea = a[30:23];

  // Sideband to the divider: {special, sign, spec}; m and the exponent field beside it.
  localparam int SDW = 34;
  logic [SDW-1:0] sd_s[1:13];
  logic [23:0]    m_s[1:12];
  logic [7:0]     e_s[1:12];
  logic           unf_s[4:12];
  always_ff @(posedge clk) begin
    if (ce) begin
      m_s[1]  <= {1'b1, a[22:0]};
      e_s[1]  <= ea;
      sd_s[1] <= {special0, a[31], spec0};
    end
  end
  for (genvar s = 1; s < 12; s++) begin : g_carry
    always_ff @(posedge clk) begin
      if (ce) begin
        m_s[s+1]  <= m_s[s];
        e_s[s+1]  <= e_s[s];
        sd_s[s+1] <= sd_s[s];
      end
    end
  end

  // ---------------------------------------------------------------- 2-4: t
  // |x| = m 2^(e - 150) (e the exponent field, in [101, 130] here): x^2 in units 2^-40 is
  // m^2 >> (260 - 2e), and |x| s in units 2^-32 is (m s) >> (158 - e), s in units 2^-40:
  // products of x's 24-bit significand rather than of its 44-bit fixed-point copy.
  logic [47:0] msq;
  logic [8:0]  sqsh;
  assign msq  = 48'(m_s[1]) * 48'(m_s[1]);
  assign sqsh = 9'd260 - {e_s[1], 1'b0};
  logic [47:0] sq2;              // x^2, units 2^-40, < 2^48
  logic [44:0] s3;               // A + B x^2, units 2^-40, < 2^45 (s < 28.7)
  logic [92:0] bx_full;
  logic [68:0] ms_full;
  logic [41:0] tp;               // |x| s, units 2^-32 (< 2^41.9)
  assign bx_full = 93'(B_Q48) * 93'(sq2);
  assign ms_full = 69'(m_s[3]) * 69'(s3);
  assign tp      = 42'(ms_full >> (8'd158 - e_s[3]));
  logic [40:0] t4;               // -min(|x| s, 255), units 2^-32, two's complement
  always_ff @(posedge clk) begin
    if (ce) begin
      sq2      <= sqsh > 9'd47 ? 48'd0 : msq >> sqsh[5:0];
      s3       <= 45'(A_Q40) + 45'(bx_full >> 48);
      t4       <= 41'd0 - (tp >= T_MAX ? 41'(T_MAX) : 41'(tp));
      unf_s[4] <= tp >= T_MAX;
    end
  end
  for (genvar s = 4; s < 12; s++) begin : g_carry_unf
    always_ff @(posedge clk) begin
      if (ce) unf_s[s+1] <= unf_s[s];
    end
  end

  // ---------------------------------------------------------------- 5-11: w = 2^t
  logic signed [8:0] n11;        // in [-255, -1]
  logic [31:0]       frac11;
  fk_fp32_exp2_fixed u_exp2 (.clk, .ce, .t(t4), .n(n11), .frac(frac11));

  // ---------------------------------------------------------------- 12: align w
  logic [8:0]  k11;
  assign k11 = 9'd0 - n11;
  logic [32:0] mw12;             // M = 1.frac, units 2^-32
  logic [32:0] w12;              // w = M 2^n, units 2^-32 (0 from a shift of 34 on)
  logic signed [8:0] n12;
  always_ff @(posedge clk) begin
    if (ce) begin
      mw12 <= {1'b1, frac11};
      w12  <= unf_s[11] ? 33'd0 : {1'b1, frac11} >> (k11 > 9'd34 ? 6'd34 : k11[5:0]);
      n12  <= n11;
    end
  end

  // ---------------------------------------------------------------- 13: m N, 1 + w
  logic              neg12;
  assign neg12 = sd_s[12][32];
  logic [56:0]       p13;        // m N, units 2^-55, in [1, 4)
  logic [33:0]       d13;        // 1 + w, units 2^-32, in (1, 2]
  logic signed [9:0] e13;        // biased exponent before normalization
  always_ff @(posedge clk) begin
    if (ce) begin
      p13      <= 57'(m_s[12]) * 57'(neg12 ? mw12 : 33'h1_0000_0000);
      d13      <= 34'h1_0000_0000 + {1'b0, w12};
      e13      <= $signed({2'd0, e_s[12]}) + (neg12 ? 10'(n12) : 10'sd0);
      // w = 0 (t clamped): x > 0 gives x / 1 in the datapath, x < 0 gives -0.
      sd_s[13] <= (unf_s[12] && neg12 && !sd_s[12][33]) ? {2'b11, 32'h8000_0000}
                                                        : sd_s[12];
    end
  end

  // ---------------------------------------------------------------- 14: normalize
  // Both in units 2^-56: P in [1, 4), D in (1, 2]; the dividend is P times 2, 1 or 1/2
  // (exact: P's unit is 2^-55) so that it lies in [D, 2D) and the quotient in [1, 2).
  logic [57:0] pw, dw;
  assign pw = {p13, 1'b0};
  assign dw = {d13, 24'd0};
  logic [58:0]       div13;
  logic signed [9:0] e_adj13;
  always_comb begin
    if (pw < dw) begin
      div13   = {pw, 1'b0};
      e_adj13 = e13 - 10'sd1;
    end else if ({1'b0, pw} < {dw, 1'b0}) begin
      div13   = {1'b0, pw};
      e_adj13 = e13;
    end else begin
      div13   = {2'b0, pw[57:1]};
      e_adj13 = e13 + 10'sd1;
    end
  end

  localparam int SW = 10 + SDW;
  logic [58:0]   rem_in, d_in;
  logic [24:0]   qa_in;
  logic [SW-1:0] side_in;
  always_ff @(posedge clk) begin
    if (ce) begin
      rem_in  <= {1'b0, div13[58:1]};
      qa_in   <= {div13[0], 24'd0};
      d_in    <= {1'b0, dw};
      side_in <= {e_adj13, sd_s[13]};
    end
  end

  // ---------------------------------------------------------------- 15-27: m N / D
  logic [24:0]   quot;           // floor(dividend * 2^24 / D), in [2^24, 2^25)
  logic [58:0]   rem;
  logic [SW-1:0] side;
  fk_udiv_pipe #(.DW(59), .QW(25), .PER_STAGE(2), .SW(SW)) u_div (
    .clk, .ce, .rem_in, .qa_in, .d_in, .side_in, .q(quot), .rem, .side_out(side)
  );

  // ---------------------------------------------------------------- 28: denormalize
  logic signed [9:0] e_div;      // in [-156, 131]
  assign e_div = side[SW-1:SDW];
  logic [4:0] sh;
  assign sh = e_div > 10'sd0 ? 5'd0 : (e_div < -10'sd25 ? 5'd26 : 5'(10'sd1 - e_div));
  logic [24:0]    q28;
  logic           sticky28;
  logic [7:0]     exp28;
  logic [SDW-1:0] sd28;
  always_ff @(posedge clk) begin
    if (ce) begin
      q28      <= quot >> sh;
      sticky28 <= (rem != 59'd0) || ((quot & ~({25{1'b1}} << sh)) != 25'd0);
      exp28    <= e_div > 10'sd0 ? e_div[7:0] : 8'd0;
      sd28     <= side[SDW-1:0];
    end
  end

  // ---------------------------------------------------------------- 29: round, pack
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(sd28[32]), .exp(exp28), .frac(q28[23:1]), .guard(q28[0]), .sticky(sticky28),
    .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) y <= sd28[33] ? sd28[31:0] : rounded;
  end

  // The front's fixed-point X (this datapath works from m), the bits below B x^2's kept
  // precision and the hidden bit, implied by the exponent field.
  logic unused;
  assign unused = ^{x0, bx_full[47:0], q28[24]};
endmodule
