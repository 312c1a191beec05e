// fk_fp32_expm1: y = e^x - 1 on float32 (torch.expm1), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp against MPFR). Three ranges of x, each rounded once:
//
//   |x| < 2^-24 (tiny, subnormals and zeros included): y = x exactly. expm1(x) = x(1 + d)
//     with |d| < |x|/2 + x^2 < 2^-25, less than half the gap to either neighbouring float
//     of x (at least 2^-25 |x| relative, at a power of two), so x is the correctly
//     rounded result.
//   2^-24 <= |x| < 2^-3 (small): y = x * P(x), P(x) = 1 + x/2 + x^2/6 + ... + x^6/5040
//     (Taylor of expm1(x)/x; the next term is below 2^-36.3), Horner in signed fixed point
//     with 40 fraction bits, then the exact product of the 24-bit significand and
//     P in [0.94, 1.07] (normalized by one place either way), both in fk_fp32_series.
//     No cancellation: error below 2^-36 relative.
//   |x| >= 2^-3 (large): e^x = M * 2^n from fk_fp32_exp_core (relative error < 2^-29.5),
//     then the subtraction in fixed point: x > 0: M * 2^n - 1 = (M - 2^-n) * 2^n (n >= 0;
//     for n > 32 the 1 lies below M's precision and is left out, an error below 2^-32);
//     x < 0: 1 - M * 2^n with M * 2^n aligned to 32 fraction bits. The difference is at
//     least 0.1175 (|expm1(x)| >= |expm1(-1/8)|) and e^x / |e^x - 1| <= 8.5 there, so its
//     relative error stays below 2^-26.3: under 0.2 ulp before the rounding. The
//     result is normalized by a 5-way priority choice (its top bit lies 0 to 4 places
//     below the fixed-point frame's) and rounded; results above the largest float round to
//     +inf, and from x < -17.33 on the result rounds to -1 by itself.
// Special values: expm1(NaN) = NaN (canonical 0x7FC00000), expm1(+inf) = +inf (also
// x >= 128, the exp core's class), expm1(-inf) = -1 (also x <= -128), expm1(+-0) = +-0.
//
// Pipeline, latency 17 ce-cycles, II = 1: the small range takes 16 stages (fk_fp32_series:
// unpack, align x, six Horner steps of product and sum, x * P, normalize), the large range
// 14 (12 core, subtract, normalize) and a delay of 2; then one stage rounds, packs and
// selects.
module fk_fp32_expm1 (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [1:0] CLS_OVF = 2'd2, CLS_UNF = 2'd3;
  localparam logic [1:0] SEL_LARGE = 2'd0, SEL_SMALL = 2'd1, SEL_NAN = 2'd2;
  // 1/(k+1)! * 2^40 (rounded to nearest), the Horner coefficients of expm1(x)/x.
  localparam logic signed [41:0] C1 = 42'sh080_0000_0000;  // 1/2
  localparam logic signed [41:0] C2 = 42'sh02A_AAAA_AAAB;  // 1/6
  localparam logic signed [41:0] C3 = 42'sh00A_AAAA_AAAB;  // 1/24
  localparam logic signed [41:0] C4 = 42'sh002_2222_2222;  // 1/120
  localparam logic signed [41:0] C5 = 42'sh000_5B05_B05B;  // 1/720
  localparam logic signed [41:0] C6 = 42'sh000_0D00_D00D;  // 1/5040

  // ---------------------------------------------------------------- 0: classify
  logic [7:0] ea;
  assign ea = a[30:23];
  logic [1:0] sel0;
  always_comb begin
    if (ea == 8'hFF && a[22:0] != 23'd0) sel0 = SEL_NAN;
    else if (ea < 8'd124)                sel0 = SEL_SMALL;  // |x| < 2^-3
    else                                 sel0 = SEL_LARGE;
  end

  // ================================================================ large: e^x - 1
  logic [1:0]        cls;
  logic signed [8:0] n;
  logic [31:0]       frac;
  logic [2:0]        side12;   // {sel, sign}
  fk_fp32_exp_core #(.SW(3)) u_core (
    .clk, .ce, .a, .side_in({sel0, a[31]}), .cls, .n, .frac, .side_out(side12)
  );

  // ---------------------------------------------------------------- 13: subtract
  // The difference in units 2^-32 (below 2^33), and the biased exponent of its bit 32.
  logic [32:0] m12;
  assign m12 = {1'b1, frac};
  logic [8:0]  kneg;           // -n for x < 0 (n <= -1 there)
  assign kneg = 9'd0 - n;
  logic [32:0] mag12;
  logic [9:0]  eb12;
  always_comb begin
    if (!side12[0]) begin      // x > 0: n >= 0
      mag12 = m12 - (n > 9'sd32 ? 33'd0 : 33'h1_0000_0000 >> n[5:0]);
      eb12  = 10'(n) + 10'd95;  // + top-bit position (<= 32) - 32 + 127
    end else begin             // x < 0: 1 - M * 2^n
      mag12 = 33'h1_0000_0000 - (kneg > 9'd34 ? 33'd0 : m12 >> kneg[5:0]);
      eb12  = 10'd95;
    end
  end
  logic [32:0] mag13;
  logic [9:0]  eb13;
  logic [1:0]  cls13;
  logic [2:0]  side13;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag13  <= mag12;
      eb13   <= eb12;
      cls13  <= cls;
      side13 <= side12;
    end
  end

  // ---------------------------------------------------------------- 14: normalize
  // The top bit lies at 28..32 (the difference is at least 0.1175 * 2^32).
  logic [2:0]  lead;           // 32 - top-bit position
  always_comb begin
    if (mag13[32])      lead = 3'd0;
    else if (mag13[31]) lead = 3'd1;
    else if (mag13[30]) lead = 3'd2;
    else if (mag13[29]) lead = 3'd3;
    else                lead = 3'd4;
  end
  logic [32:0] norm13;
  assign norm13 = mag13 << lead;
  // {exponent (10 bits), 23 fraction bits, guard, sticky}, delayed to stage 16
  logic [2:0][34:0] lfields_q;
  logic [2:0][1:0]  cls_q;
  logic [2:0][2:0]  side_q;
  always_ff @(posedge clk) begin
    if (ce) begin
      lfields_q[0] <= {eb13 + 10'd32 - {7'd0, lead}, norm13[31:9], norm13[8],
                       norm13[7:0] != 8'd0};
      cls_q[0]     <= cls13;
      side_q[0]    <= side13;
      lfields_q[1] <= lfields_q[0];
      cls_q[1]     <= cls_q[0];
      side_q[1]    <= side_q[0];
      lfields_q[2] <= lfields_q[1];
      cls_q[2]     <= cls_q[1];
      side_q[2]    <= side_q[1];
    end
  end

  // ================================================================ small and tiny: x * P(x)
  // Stages 1-16 (|x| < 2^-3: exponent fields up to 123).
  logic [34:0] sfields16;
  fk_fp32_series #(.K1(C1), .K2(C2), .K3(C3), .K4(C4), .K5(C5), .K6(C6), .EMAX(8'd123))
    u_series (.clk, .ce, .a, .fields(sfields16));

  // ================================================================ 17: round, pack, select
  logic [1:0] sel16;
  logic       sign16;
  assign {sel16, sign16} = side_q[2];
  logic [34:0] fields;
  assign fields = sel16 == SEL_SMALL ? sfields16 : lfields_q[2];
  logic [31:0] rounded;
  fk_fp32_round #(.EW(10)) u_round (
    .sign(sign16), .exp(fields[34:25]), .frac(fields[24:2]), .guard(fields[1]),
    .sticky(fields[0]), .y(rounded)
  );
  always_ff @(posedge clk) begin
    if (ce) begin
      if (sel16 == SEL_NAN)                                 y <= 32'h7FC0_0000;
      else if (sel16 == SEL_LARGE && cls_q[2] == CLS_OVF)   y <= 32'h7F80_0000;
      else if (sel16 == SEL_LARGE && cls_q[2] == CLS_UNF)   y <= 32'hBF80_0000;
      else                                                  y <= rounded;
    end
  end

  // The hidden bit.
  logic unused;
  assign unused = norm13[32];
endmodule
