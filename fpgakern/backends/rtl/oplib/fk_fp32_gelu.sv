// fk_fp32_gelu: y = x Phi(x) = 0.5 x erfc(-x / sqrt(2)) on float32
// (torch.nn.functional.gelu, approximate='none'), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR) for every x, the negative tail down to
// the underflow near -14.3 included (where the float32 formula's 1 + erf(..) cancels).
//
// With a = |x| and Q = Phi(-a) = e^(-a^2/2) R(a) (gen_gelu_table.py: R is smooth, in
// (0.0249, 0.5]):
//   x < 0:  y = -a Q               x >= 0:  y = x (1 - Q)   (Q <= 1/2: no cancellation)
// e^(-a^2/2) = 2^t, t = -a^2 log2(e) / 2 >= -184.7, from fk_fp32_exp2_fixed as M 2^n.
// Fixed point: X = a 2^40 (fk_fp32_gelu_front), a^2 = m^2 2^(2e - 300) (m, e: x's
// significand and exponent field) truncated to 2^-40, t truncated to 2^-32 (log2(e)/2 at
// 2^-48): |t error| < 2^-31.9, so 2^t's relative error stays below 2^-29.4.
// R from a degree-5 polynomial on 128 intervals of width 1/8 (fk_fp32_gelu_table; fit and
// coefficient rounding < 2^-34.7 relative), Horner in fixed point, step k with 44 - 4k
// fraction bits (10 truncations of at most 2^-44 in R, < 2^-35.3 relative to R >= 0.0249). M R truncated to 2^-43
// (< 2^-37.6 relative). The factor F (M R, or 1 - Q at 2^-43, >= 1/2) then has a relative
// error below 2^-29.2; m F is exact and rounded once: |error| < 0.51 ulp, at most 1 ulp.
// The exponent of y is x's plus n (x < 0): results below the normal range are
// denormalized before the one rounding (subnormal results down to x = -14.3).
// Special values and the ranges decided on x alone: fk_fp32_gelu_front.
//
// Pipeline, latency 19 ce-cycles, II = 1: 1 (front, X) + 1 (a^2; t, idx) + 1 (t; r_5) +
// 10 (five Horner steps of product and sum; fk_fp32_exp2_fixed's 7 cycles meanwhile) +
// 1 (M R) + 1 (F) + 1 (m F) + 1 (normalize) + 1 (denormalize) + 1 (round, pack, select).
module fk_fp32_gelu (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [47:0] HALF_LOG2E_Q48 = 48'hB8AA_3B29_5C18;  // log2(e) / 2 * 2^48
  localparam int L = 19;

  // ---------------------------------------------------------------- 0-1: front, X
  logic        special0;
  logic [31:0] spec0;
  logic [43:0] x0;
  fk_fp32_gelu_front u_front (.a, .special(special0), .spec(spec0), .xfix(x0));
  logic [43:0] x1;               // a, units 2^-40
  logic [33:0] sd_s[1:L-1];      // {special, sign, spec}
  logic [23:0] m_s[1:L-4];
  logic [7:0]  e_s[1:L-4];
  always_ff @(posedge clk) begin
    if (ce) begin
      x1      <= x0;
      sd_s[1] <= {special0, a[31], spec0};
      m_s[1]  <= {1'b1, a[22:0]};
      e_s[1]  <= a[30:23];
    end
  end
  for (genvar s = 1; s < L - 1; s++) begin : g_carry_sd
    always_ff @(posedge clk) begin
      if (ce) sd_s[s+1] <= sd_s[s];
    end
  end
  for (genvar s = 1; s < L - 4; s++) begin : g_carry_m
    always_ff @(posedge clk) begin
      if (ce) begin
        m_s[s+1] <= m_s[s];
        e_s[s+1] <= e_s[s];
      end
    end
  end

  // ---------------------------------------------------------------- 2-3: t
  // a = m 2^(e - 150) (e the exponent field, in [101, 130] here): a^2 in units 2^-40 is
  // m^2 >> (260 - 2e), a product of the 24-bit significand.
  logic [47:0] msq;
  logic [8:0]  sqsh;
  assign msq  = 48'(m_s[1]) * 48'(m_s[1]);
  assign sqsh = 9'd260 - {e_s[1], 1'b0};
  logic [47:0] sq2;              // a^2, units 2^-40, < 2^48
  logic [95:0] tq_full;
  assign tq_full = 96'(sq2) * 96'(HALF_LOG2E_Q48);
  logic [40:0] t3;               // -a^2 log2(e) / 2, units 2^-32, >= -184.7
  always_ff @(posedge clk) begin
    if (ce) begin
      sq2 <= sqsh > 9'd47 ? 48'd0 : msq >> sqsh[5:0];
      t3  <= 41'd0 - 41'(tq_full >> 56);
    end
  end

  // ---------------------------------------------------------------- 4-10: 2^t
  logic signed [8:0] n10;        // in [-185, 0]
  logic [31:0]       frac10;
  fk_fp32_exp2_fixed u_exp2 (.clk, .ce, .t(t3), .n(n10), .frac(frac10));
  logic signed [8:0] n_s[11:14];
  logic [32:0]       mw_s[11:13];
  always_ff @(posedge clk) begin
    if (ce) begin
      n_s[11]  <= n10;
      mw_s[11] <= {1'b1, frac10};
    end
  end
  for (genvar s = 11; s < 14; s++) begin : g_carry_exp
    always_ff @(posedge clk) begin
      if (ce) begin
        n_s[s+1] <= n_s[s];
        if (s < 13) mw_s[s+1] <= mw_s[s];
      end
    end
  end

  // ---------------------------------------------------------------- 2-13: R(a)
  // idx = floor(8a) (X's top seven bits), t = a - (idx + 1/2)/8 in units 2^-40.
  logic [6:0]         idx_s[2:11];
  logic signed [37:0] tau_s[2:11];
  always_ff @(posedge clk) begin
    if (ce) begin
      idx_s[2] <= x1[43:37];
      tau_s[2] <= $signed({1'b0, x1[36:0]}) - 38'sh10_0000_0000;
    end
  end
  for (genvar s = 2; s < 11; s++) begin : g_carry_tau
    always_ff @(posedge clk) begin
      if (ce) begin
        idx_s[s+1] <= idx_s[s];
        tau_s[s+1] <= tau_s[s];
      end
    end
  end
  // Step k (k = 4..0): product stage p = t_k h_(k+1), then sum stage h_k = r_k + p, h_k
  // with 44 - 4k fraction bits and t_k = t truncated to 40 - 4k (r_k and the errors of
  // step k weigh |t|^k <= 2^-4k: each truncation counts at most 2^-44 in R). h_k is kept
  // sign-extended in a 48-bit register; |h| < 2^3.
  logic signed [47:0] coef[0:5];
  logic signed [47:0] h[0:5];
  fk_fp32_gelu_table #(.K(5)) u_r5 (.idx(idx_s[2]), .coef(coef[5]));
  always_ff @(posedge clk) begin
    if (ce) h[5] <= coef[5] >>> 20;   // 3
  end
  for (genvar k = 4; k >= 0; k--) begin : g_horner
    // product at 4 + 2 (4 - k), sum one stage later; the coefficient read at the product
    // stage's index, registered beside it.
    localparam int PS = 4 + 2 * (4 - k);
    localparam int TW = 38 - 4 * k;  // t_k: |t| < 2^(36 - 4k) units of 2^-(40 - 4k)
    localparam int HW = 44 - 4 * k;  // h_(k+1): 40 - 4k fraction bits
    logic signed [TW-1:0]    tk;
    logic signed [HW-1:0]    hk;
    logic signed [TW+HW-1:0] p;
    logic signed [47:0]      c_q;
    assign tk = TW'(tau_s[PS - 1] >>> (4 * k));
    assign hk = HW'(h[k+1]);
    fk_fp32_gelu_table #(.K(k)) u_r (.idx(idx_s[PS - 1]), .coef(coef[k]));
    always_ff @(posedge clk) begin
      if (ce) begin
        p    <= (TW+HW)'(tk) * (TW+HW)'(hk);
        c_q  <= coef[k];
        h[k] <= (c_q >>> (4 * k)) + 48'(p >>> (36 - 4 * k));
      end
    end
    // The product's bits below h_k's precision, h_(k+1)'s sign extension.
    logic unused_step;
    assign unused_step = ^{p[35 - 4 * k:0], h[k+1][47:HW], c_q[4 * k + (k == 0):0]};
  end

  // ---------------------------------------------------------------- 14: M R
  logic [80:0] mr_full;
  assign mr_full = 81'(mw_s[13]) * 81'(h[0][46:0]);   // R > 0: h[0]'s sign bit is 0
  logic [43:0] mr14;             // M R, units 2^-43, < 1
  always_ff @(posedge clk) begin
    if (ce) mr14 <= 44'(mr_full >> 33);
  end

  // ---------------------------------------------------------------- 15: F
  logic [8:0] k14;
  assign k14 = 9'd0 - n_s[14];
  logic              neg14;
  assign neg14 = sd_s[14][32];
  logic [43:0]       f15;        // units 2^-43: M R (x < 0), or 1 - M R 2^n (x >= 0)
  logic signed [9:0] e15;        // the exponent field of x, plus n for x < 0
  always_ff @(posedge clk) begin
    if (ce) begin
      f15 <= neg14 ? mr14
                   : 44'h800_0000_0000 - (mr14 >> (k14 > 9'd44 ? 6'd44 : k14[5:0]));
      e15 <= $signed({2'd0, e_s[14]}) + (neg14 ? 10'(n_s[14]) : 10'sd0);
    end
  end

  // ---------------------------------------------------------------- 16: m F
  logic [67:0]       p16;        // units 2^-66, in [2^-5.4, 2)
  logic signed [9:0] e16;
  always_ff @(posedge clk) begin
    if (ce) begin
      p16 <= 68'(m_s[15]) * 68'(f15);
      e16 <= e15;
    end
  end

  // ---------------------------------------------------------------- 17: normalize
  // The leading one is one of bits 67..61 (F > 0.0249 > 2^-6); y's biased exponent is
  // e + 1 - lz (bit 67 weighs 2^1).
  logic [2:0] lz16;
  fk_lzc #(.W(7)) u_lzc (.x(p16[67:61]), .count(lz16));
  logic [67:0]       norm17;
  logic signed [9:0] e17;
  always_ff @(posedge clk) begin
    if (ce) begin
      norm17 <= p16 << lz16;
      e17    <= e16 + 10'sd1 - 10'(lz16);
    end
  end

  // ---------------------------------------------------------------- 18: denormalize
  // norm17[67] is the hidden one; an exponent e17 <= 0 shifts right by 1 - e17.
  logic [5:0] sh17;
  assign sh17 = e17 > 10'sd0 ? 6'd0 : (e17 < -10'sd40 ? 6'd42 : 6'(10'sd1 - e17));
  logic [67:0] den17;
  assign den17 = norm17 >> sh17;
  logic [7:0]  exp18;
  logic [22:0] frac18;
  logic        guard18, sticky18;
  always_ff @(posedge clk) begin
    if (ce) begin
      exp18    <= e17 > 10'sd0 ? e17[7:0] : 8'd0;
      frac18   <= den17[66:44];
      guard18  <= den17[43];
      sticky18 <= den17[42:0] != 43'd0 || (norm17 & ~({68{1'b1}} << sh17)) != 68'd0;
    end
  end

  // ---------------------------------------------------------------- 19: round, pack
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(sd_s[18][32]), .exp(exp18), .frac(frac18), .guard(guard18), .sticky(sticky18),
    .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) y <= sd_s[18][33] ? sd_s[18][31:0] : rounded;
  end

  // Bits below each kept precision, R's sign (R > 0), the products' bits beyond their
  // range and the hidden bit (implied by the exponent field).
  logic unused;
  assign unused = ^{tq_full[55:0], tq_full[95], mr_full[32:0],
                    h[0][47], den17[67]};
endmodule
