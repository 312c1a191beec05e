// fk_fp32_tanh: y = tanh(x) on float32 (torch.tanh), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR). tanh is odd: the datapath works on |x|
// and the sign is put back at the end. Three ranges of |x|, all rounded once (RNE):
//
//   |x| < 2^-12 (tiny, subnormals and zeros included): y = x exactly. tanh(x) = x(1 - d)
//     with 0 < d < x^2/3 < 2^-24/3, less than half the gap to the float below x (at least
//     2^-24 x relative, 2^-25 for a power of two), so x is the correctly rounded result.
//   2^-12 <= |x| < 2^-3 (small): y = x * P(z), z = x^2, P(z) = 1 - z/3 + 2z^2/15
//     - 17z^3/315 + 62z^4/2835 (Taylor; the next term is below 2^-36.8 relative), Horner
//     in fixed point with 40 fraction bits, z < 2^-6 with 40 fraction bits, then the exact
//     product of the 24-bit significand and P (a normalization of one place when it falls
//     below 1). No cancellation anywhere: error below 2^-36 relative.
//   |x| >= 2^-3 (large): y = (1 - w) / (1 + w), w = e^(-2|x|) in [0, 0.78] from
//     fk_fp32_exp_core (relative error < 2^-29.5) as fixed point with 32 fraction bits,
//     N = 1 - w >= 0.22 and D = 1 + w; N is shifted left by k in 0..4 into [D, 2D) and the
//     shared restoring divider (fk_udiv_pipe) gives 24 significand bits, a guard bit and
//     the remainder as sticky. N's absolute error (w's, plus 2^-32 truncation) is below
//     2^-29.8, so the quotient's relative error is below 2^-27.5: under 1/8 ulp before
//     the rounding. |x| >= 64 (and +-inf) leaves w = 0, so y = +-1 exactly; from about
//     9.01 on the quotient rounds to 1 by itself.
// Special values: tanh(NaN) = NaN (canonical 0x7FC00000), tanh(+-inf) = +-1,
// tanh(+-0) = +-0; no result is subnormal except x itself in the tiny range.
//
// Pipeline, latency 29 ce-cycles, II = 1: 12 (core on -2|x|) + 1 (align w) + 1 (N, D)
// + 1 (normalize N into [D, 2D)) + 13 (recurrence) + 1 (round, pack, select); the small
// range runs beside it (13 stages, then a delay line) into the same rounding.
module fk_fp32_tanh (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [1:0] CLS_UNF = 2'd3;
  localparam logic [1:0] SEL_LARGE = 2'd0, SEL_SMALL = 2'd1, SEL_NAN = 2'd2;
  // Taylor coefficients of tanh(x)/x in z = x^2, times 2^40 (rounded to nearest).
  localparam logic [39:0] C1 = 40'h55_5555_5555;  // 1/3
  localparam logic [39:0] C2 = 40'h22_2222_2222;  // 2/15
  localparam logic [39:0] C3 = 40'h0D_D0DD_0DD1;  // 17/315
  localparam logic [39:0] C4 = 40'h05_993D_220B;  // 62/2835
  localparam int DELAY = 15;  // small range: stage 13 to the divider's output at 28

  // ---------------------------------------------------------------- 0: classify
  logic [7:0] ea;
  assign ea = a[30:23];
  logic [1:0] sel0;
  always_comb begin
    if (ea == 8'hFF && a[22:0] != 23'd0) sel0 = SEL_NAN;
    else if (ea < 8'd124)                sel0 = SEL_SMALL;  // |x| < 2^-3
    else                                 sel0 = SEL_LARGE;
  end

  // ================================================================ large: w = e^(-2|x|)
  // -2|x| as a float: the exponent field plus one; |x| >= 64 (and inf) is sent as -2^7 * m,
  // whose class (underflow) makes w = 0.
  logic [7:0] ea2;
  assign ea2 = ea >= 8'd133 ? 8'd134 : ea + 8'd1;
  logic [1:0]        cls;
  logic signed [8:0] n;
  logic [31:0]       frac;
  logic [2:0]        side12;   // {sel, sign}
  fk_fp32_exp_core #(.SW(3)) u_core (
    .clk, .ce, .a({1'b1, ea2, a[22:0]}), .side_in({sel0, a[31]}), .cls, .n, .frac,
    .side_out(side12)
  );

  // ---------------------------------------------------------------- 13: align w
  // n <= -1 in the large range (w <= e^-0.25); 34 clears M entirely.
  logic [8:0]  kw;
  assign kw = 9'd0 - n;
  logic [32:0] m13;            // M = 1.frac, units 2^-32
  logic [5:0]  k13;
  logic        unf13;
  logic [2:0]  side13;
  always_ff @(posedge clk) begin
    if (ce) begin
      m13    <= {1'b1, frac};
      k13    <= kw > 9'd34 ? 6'd34 : kw[5:0];
      unf13  <= cls == CLS_UNF;
      side13 <= side12;
    end
  end

  // ---------------------------------------------------------------- 14: N = 1 - w, D = 1 + w
  logic [32:0] w13;
  assign w13 = unf13 ? 33'd0 : m13 >> k13;  // < 2^32 (k >= 1)
  logic [32:0] num14;          // units 2^-32, in (0.22, 1]
  logic [33:0] den14;          // units 2^-32, in [1, 1.78]
  logic [2:0]  side14;
  always_ff @(posedge clk) begin
    if (ce) begin
      num14  <= 33'h1_0000_0000 - w13;
      den14  <= 34'h1_0000_0000 + {1'b0, w13};
      side14 <= side13;
    end
  end

  // ---------------------------------------------------------------- 15: N << k in [D, 2D)
  // N / D = tanh|x| >= tanh(1/8) > 1/16, so k <= 4.
  logic [37:0] n0, n1, n2, n3, n4;
  assign n0 = {5'd0, num14};
  assign n1 = n0 << 1;
  assign n2 = n0 << 2;
  assign n3 = n0 << 3;
  assign n4 = n0 << 4;
  logic [2:0]  kn;
  logic [37:0] dividend;       // < 2D < 2^34
  always_comb begin
    if (n0 >= {4'd0, den14})      begin kn = 3'd0; dividend = n0; end
    else if (n1 >= {4'd0, den14}) begin kn = 3'd1; dividend = n1; end
    else if (n2 >= {4'd0, den14}) begin kn = 3'd2; dividend = n2; end
    else if (n3 >= {4'd0, den14}) begin kn = 3'd3; dividend = n3; end
    else                          begin kn = 3'd4; dividend = n4; end
  end
  localparam int SW = 3 + 3;
  logic [33:0]   rem_in, d_in;
  logic [24:0]   qa_in;
  logic [SW-1:0] side_in;
  always_ff @(posedge clk) begin
    if (ce) begin
      rem_in  <= dividend[34:1];
      qa_in   <= {dividend[0], 24'd0};
      d_in    <= den14;
      side_in <= {side14, kn};
    end
  end

  // ---------------------------------------------------------------- 16-28: N / D
  logic [24:0]   quot;         // floor(dividend * 2^24 / D), in [2^24, 2^25)
  logic [33:0]   rem;
  logic [SW-1:0] side28;
  fk_udiv_pipe #(.DW(34), .QW(25), .PER_STAGE(2), .SW(SW)) u_div (
    .clk, .ce, .rem_in, .qa_in, .d_in, .side_in, .q(quot), .rem, .side_out(side28)
  );

  // ================================================================ small and tiny: x * P(x^2)
  // ---------------------------------------------------------------- 1: unpack
  // x = m * 2^(E-23), E = field - 127 in [-12, -4]; z = m^2 * 2^(2E-46) is m^2 shifted right
  // by 6 - 2E (14..30) to 40 fraction bits.
  logic [23:0] m_s[1:12];
  logic [7:0]  e_s[1:12];
  logic [22:0] f_s[1:12];
  logic        tiny_s[1:12];
  logic [4:0]  shz1;
  always_ff @(posedge clk) begin
    if (ce) begin
      m_s[1]    <= {ea != 8'd0, a[22:0]};
      e_s[1]    <= ea;
      f_s[1]    <= a[22:0];
      tiny_s[1] <= ea < 8'd115;  // |x| < 2^-12
      shz1      <= (ea < 8'd115 || ea > 8'd123) ? 5'd30 : 5'(9'd260 - {ea, 1'b0});
    end
  end
  for (genvar s = 1; s < 12; s++) begin : g_carry
    always_ff @(posedge clk) begin
      if (ce) begin
        m_s[s+1]    <= m_s[s];
        e_s[s+1]    <= e_s[s];
        f_s[s+1]    <= f_s[s];
        tiny_s[s+1] <= tiny_s[s];
      end
    end
  end

  // ---------------------------------------------------------------- 2-3: z = x^2
  logic [47:0] msq2;
  logic [4:0]  shz2;
  logic [33:0] z_s[3:10];      // z, units 2^-40, < 2^34
  always_ff @(posedge clk) begin
    if (ce) begin
      msq2   <= m_s[1] * m_s[1];
      shz2   <= shz1;
      z_s[3] <= 34'(msq2 >> shz2);
    end
  end
  for (genvar s = 3; s < 10; s++) begin : g_carry_z
    always_ff @(posedge clk) begin
      if (ce) z_s[s+1] <= z_s[s];
    end
  end

  // ---------------------------------------------------------------- 4-11: Horner
  // h3 = C3 - z C4, h2 = C2 - z h3, h1 = C1 - z h2, P = 1 - z h1 (all positive), each a
  // product stage then a subtract stage; products truncated to 40 fraction bits.
  logic [73:0] p4, p6, p8, p10;
  logic [39:0] h5, h7, h9;
  logic [40:0] poly11;         // P, units 2^-40, in (0.994, 1]
  always_ff @(posedge clk) begin
    if (ce) begin
      p4     <= 74'(z_s[3]) * 74'(C4);
      h5     <= C3 - {6'd0, p4[73:40]};
      p6     <= 74'(z_s[5]) * 74'(h5);
      h7     <= C2 - {6'd0, p6[73:40]};
      p8     <= 74'(z_s[7]) * 74'(h7);
      h9     <= C1 - {6'd0, p8[73:40]};
      p10    <= 74'(z_s[9]) * 74'(h9);
      poly11 <= 41'h100_0000_0000 - {7'd0, p10[73:40]};
    end
  end

  // ---------------------------------------------------------------- 12: m * P
  logic [64:0] y12;            // units 2^-63, in [0.99, 2)
  always_ff @(posedge clk) begin
    if (ce) y12 <= 65'(m_s[11]) * 65'(poly11);
  end

  // ---------------------------------------------------------------- 13: normalize
  // Fields for fk_fp32_round: {exponent, 23 fraction bits, guard, sticky}. Tiny x passes
  // as itself (a subnormal or zero has exponent field 0: the rounding adds nothing).
  logic [32:0] fields13;
  always_ff @(posedge clk) begin
    if (ce) begin
      if (tiny_s[12])  fields13 <= {e_s[12], f_s[12], 2'b00};
      else if (y12[63]) fields13 <= {e_s[12], y12[62:40], y12[39], y12[38:0] != 39'd0};
      else              fields13 <= {e_s[12] - 8'd1, y12[61:39], y12[38], y12[37:0] != 38'd0};
    end
  end

  // ---------------------------------------------------------------- 14-28: delay
  logic [DELAY:0][32:0] fields_q;
  assign fields_q[0] = fields13;
  for (genvar s = 0; s < DELAY; s++) begin : g_delay
    always_ff @(posedge clk) begin
      if (ce) fields_q[s+1] <= fields_q[s];
    end
  end

  // ================================================================ 29: round, pack, select
  logic [1:0] sel28;
  logic       sign28;
  logic [2:0] k28;
  assign {sel28, sign28, k28} = side28;
  logic [7:0]  r_exp;
  logic [22:0] r_frac;
  logic        r_guard, r_sticky;
  always_comb begin
    if (sel28 == SEL_SMALL) begin
      {r_exp, r_frac, r_guard, r_sticky} = fields_q[DELAY];
    end else begin
      r_exp    = 8'd127 - {5'd0, k28};
      r_frac   = quot[23:1];
      r_guard  = quot[0];
      r_sticky = rem != 34'd0;
    end
  end
  logic [31:0] rounded;
  fk_fp32_round #(.EW(8)) u_round (
    .sign(sign28), .exp(r_exp), .frac(r_frac), .guard(r_guard), .sticky(r_sticky),
    .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) y <= sel28 == SEL_NAN ? 32'h7FC0_0000 : rounded;
  end

  // Bits below the kept precision; the hidden bits are implied by the exponents; the small
  // range's tiny bits and the large range's low dividend bits are zero by construction.
  logic unused;
  assign unused = ^{p4[39:0], p6[39:0], p8[39:0], p10[39:0], y12[64], quot[24],
                    dividend[37:35]};
endmodule
