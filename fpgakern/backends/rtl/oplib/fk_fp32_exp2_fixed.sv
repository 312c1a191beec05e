// fk_fp32_exp2_fixed: 2^t for a fixed-point t, as an unrounded (n, M) pair:
//   2^t ~= M * 2^n,  M = 1.frac in [1, 2),  n = floor(t) a signed integer.
// t is a 41-bit two's complement number with 32 fraction bits, |t| < 256 (n in [-256, 255]).
// The second half of fk_fp32_exp_core (which computes t from a float32 x), and the
// exponential of fk_fp32_pow (which computes t = y * log2|x| at the same scale).
//
//   t = n + f, f in [0, 1);  2^f = 2^(i/64) * 2^g,  i = f's top 6 bits, g < 2^-6 (table)
//   2^g - 1 = g * (c1 + g * (c2 + g * c3)),  ck = ln2^k / k!      (Taylor, degree 3)
//   M = T[i] + T[i] * (2^g - 1)
// Error budget (relative, for the t given): the Taylor remainder (g ln2)^4/24 < 2^-30.7;
// the truncated products add 2^-31.9 (c2 term, at 24 bits), 2^-32 (p) and 2^-32.5 (T * p
// at 27 bits); the table entries are rounded to 2^-33. Sum < 2^-29.8; with the caller's
// truncation of t to 2^-32 (2^-32.5 after the exponential) < 2^-29.5.
// M is saturated below 2: where 2^f rounds up to 2 the consumer's rounding reaches 2 anyway.
// Latency 7 ce-cycles, II = 1 (t is taken from the caller's register).
module fk_fp32_exp2_fixed (
  input  logic              clk,
  input  logic              ce,
  input  logic [40:0]       t,
  output logic signed [8:0] n,
  output logic [31:0]       frac
);
  // Constants printed by gen_exp_table.py (exact decimal arithmetic, rounded to nearest).
  localparam logic [31:0] C1_Q32    = 32'hB172_17F8;       // ln2 * 2^32
  localparam logic [21:0] C2_Q24    = 22'h3D_7F7C;         // ln2^2/2 * 2^24
  localparam logic [19:0] C3_Q24    = 20'hE_3584;          // ln2^3/6 * 2^24

  logic [5:0]  idx5;
  logic [25:0] g5;       // g in units of 2^-32, < 2^26
  assign idx5 = t[31:26];
  assign g5   = t[25:0];

  // ---------------------------------------------------------------- 6: table, c3 * g
  logic [32:0] tab;
  fk_fp32_exp_table u_table (.idx(idx5), .val(tab));

  logic [32:0] tab6;
  logic [25:0] g6;
  logic [8:0]  n6;
  logic [37:0] s3_6;     // c3 * g, units 2^-48
  always_ff @(posedge clk) begin
    if (ce) begin
      tab6 <= tab;
      g6   <= g5;
      n6   <= t[40:32];
      s3_6 <= C3_Q24 * g5[25:8];
    end
  end

  // ---------------------------------------------------------------- 7: (c2 + c3 g) * g
  // Both factors at 24 fraction bits: this term is multiplied by g again, so its error
  // weighs 2^-6 less.
  logic [21:0] q2;
  assign q2 = C2_Q24 + {8'd0, s3_6[37:24]};
  logic [32:0] tab7;
  logic [25:0] g7;
  logic [8:0]  n7;
  logic [39:0] s2_7;     // units 2^-48
  always_ff @(posedge clk) begin
    if (ce) begin
      tab7 <= tab6;
      g7   <= g6;
      n7   <= n6;
      s2_7 <= q2 * g6[25:8];
    end
  end

  // ---------------------------------------------------------------- 8: c1 + ...
  logic [32:0] tab8;
  logic [25:0] g8;
  logic [8:0]  n8;
  logic [31:0] q1_8;     // units 2^-32, < 0.7
  always_ff @(posedge clk) begin
    if (ce) begin
      tab8 <= tab7;
      g8   <= g7;
      n8   <= n7;
      q1_8 <= C1_Q32 + {8'd0, s2_7[39:16]};
    end
  end

  // ---------------------------------------------------------------- 9-10: p = 2^g - 1
  // A 32 x 26 product over two DSPs: a second register level lets it use their internal
  // pipeline registers.
  logic [57:0] p_full;
  logic [32:0] tab9, tab10;
  logic [8:0]  n9, n10;
  logic [25:0] p10;      // units 2^-32, < 2^-6.5
  always_ff @(posedge clk) begin
    if (ce) begin
      p_full <= q1_8 * g8;  // units 2^-64
      tab9   <= tab8;
      n9     <= n8;
      p10    <= p_full[57:32];
      tab10  <= tab9;
      n10    <= n9;
    end
  end

  // ---------------------------------------------------------------- 11-12: M = T + T * p
  logic [52:0] tp;       // T (27 bits, units 2^-26) * p, units 2^-58
  logic [32:0] tab11;
  logic [8:0]  n11;
  always_ff @(posedge clk) begin
    if (ce) begin
      tp    <= tab10[32:6] * p10;
      tab11 <= tab10;
      n11   <= n10;
    end
  end
  logic [33:0] m_sum;    // units 2^-32, may reach 2 by accumulated error
  assign m_sum = {1'b0, tab11} + {7'd0, tp[52:26]};
  always_ff @(posedge clk) begin
    if (ce) begin
      n    <= n11;
      frac <= m_sum[33:32] != 2'b01 ? 32'hFFFF_FFFF : m_sum[31:0];  // saturate below 2
    end
  end

  // Bits below the kept precision.
  logic unused;
  assign unused = ^{s3_6[23:0], s2_7[15:0], p_full[31:0], tp[25:0], tab10[5:0]};
endmodule
