// fk_fp32_exp_core: e^x for a float32 x as an unrounded (n, M) pair, shared by fk_fp32_exp
// and fk_fp32_sigmoid:   e^x ~= M * 2^n,  M = 1.frac in [1, 2), n a signed integer.
// With BASE2 = 1 (fk_fp32_exp2) it computes 2^x the same way, t = x taken exactly instead of
// x * log2(e) (the constant is 2^40, whose product is a shift), for |x| < 256; the default
// BASE2 = 0 is the e^x datapath unchanged.
// The relative error of M * 2^n is below 2^-29 (analysis below), so a consumer that rounds
// once to float32 is within 0.52 ulp, i.e. at most 1 ulp after rounding.
//
// Range reduction, all in fixed point (no floating-point adder inside):
//   t = x * log2(e) = n + f, n = floor(t), f in [0, 1)            (t with 32 fraction bits)
//   2^f = 2^(i/64) * 2^g,  i = f's top 6 bits, g < 2^-6          (64-entry table)
//   2^g - 1 = g * (c1 + g * (c2 + g * c3)),  ck = ln2^k / k!      (Taylor, degree 3)
//   M = T[i] + T[i] * (2^g - 1)                          (fk_fp32_exp2_fixed)
// x enters as its 24-bit significand m times the 41-bit constant log2(e) * 2^40 (exact
// product), then shifts into place: t needs only |x| < 128, because |x| >= 128 (and inf)
// is decided by class: e^x overflows (x > 0) or is far below the smallest subnormal.
//
// Error budget (relative): t truncated to 2^-32 and log2(e) rounded at 2^-41 * |x| <= 2^-34
// give 2^-32.2 after the exponential; the Taylor remainder (g ln2)^4/24 < 2^-30.7; the
// truncated products add 2^-31.9 (c2 term, at 24 bits), 2^-32 (p) and 2^-32.5 (T * p at 27
// bits); the table entries are rounded to 2^-33. Sum < 2^-29.5.
// M is saturated below 2: where 2^f rounds up to 2 the consumer's rounding reaches 2 anyway.
//
// cls: 0 finite result M * 2^n; 1 NaN; 2 x >= 128 or +inf (overflow); 3 x <= -128 or -inf
// (e^x below 2^-184). n is only meaningful for cls 0 and lies in [-185, 184].
// BASE2: the limits are |x| >= 256 (2^x overflows, or lies below 2^-256) and n lies in
// [-256, 255]; t = x has at most 32 fraction bits for |x| >= 2^-9 (exact), and below that
// only its truncation to 2^-32 enters the budget, as for e^x (no log2(e) rounding).
// Latency 12 ce-cycles, II = 1. SW sideband bits travel alongside for the consumer.
module fk_fp32_exp_core #(
  parameter int SW = 1,
  parameter bit BASE2 = 1'b0
) (
  input  logic              clk,
  input  logic              ce,
  input  logic [31:0]       a,
  input  logic [SW-1:0]     side_in,
  output logic [1:0]        cls,
  output logic signed [8:0] n,
  output logic [31:0]       frac,
  output logic [SW-1:0]     side_out
);
  localparam int LAT = 12;
  localparam logic [1:0] CLS_FINITE = 2'd0, CLS_NAN = 2'd1, CLS_OVF = 2'd2, CLS_UNF = 2'd3;
  // Constants printed by gen_exp_table.py (exact decimal arithmetic, rounded to nearest).
  localparam logic [40:0] LOG2E_Q40 = 41'h171_5476_52B8;  // log2(e) * 2^40
  // BASE2: t = x * 2^40 / 2^40 exactly, and |x| < 256 reaches e = 7, one place further
  // than e^x's e = 6: the product is cut one bit lower and shifted one place less.
  localparam logic [40:0] K_Q40   = BASE2 ? 41'h100_0000_0000 : LOG2E_Q40;
  localparam logic [7:0]  EA_OUT  = BASE2 ? 8'd135 : 8'd134;  // |x| >= 256 : 128
  localparam logic [7:0]  SH_BASE = BASE2 ? 8'd134 : 8'd133;

  // Sideband and class travel in a delay line beside the datapath.
  logic [LAT:0][SW-1:0] side_q;
  logic [LAT:0][1:0]    cls_q;
  assign side_q[0] = side_in;

  // ---------------------------------------------------------------- 1: classify
  // x = m * 2^(e-23) with e the unbiased exponent; t in units of 2^-32 is
  // (m * LOG2E_Q40) >> (31 - e). For |x| < 128, e <= 6, so the shift is >= 25: the
  // multiplier output is cut at bit 25 and the rest (0..40, 40 clears it) stays variable.
  logic [7:0] ea;
  assign ea = a[30:23];
  always_comb begin
    if (ea == 8'hFF && a[22:0] != 23'd0) cls_q[0] = CLS_NAN;
    else if (ea >= EA_OUT)               cls_q[0] = a[31] ? CLS_UNF : CLS_OVF;  // |x| >= 128
    else                                 cls_q[0] = CLS_FINITE;
  end
  logic [7:0] sh_full;  // 31 - e - 25 = 133 - field (field 0 scales like field 1)
  assign sh_full = SH_BASE - (ea == 8'd0 ? 8'd1 : ea);

  logic [23:0] m1;
  logic [5:0]  sh1;
  logic        neg1;
  always_ff @(posedge clk) begin
    if (ce) begin
      m1   <= {ea != 8'd0, a[22:0]};
      sh1  <= (ea >= EA_OUT || sh_full > 8'd40) ? 6'd40 : sh_full[5:0];
      neg1 <= a[31];
    end
  end

  // ---------------------------------------------------------------- 2-3: x * log2(e)
  // Two register levels after the 24 x 41 product so it maps onto pipelined DSPs.
  logic [64:0] prod2, prod3;
  logic [5:0]  sh2, sh3;
  logic        neg2, neg3;
  always_ff @(posedge clk) begin
    if (ce) begin
      prod2 <= {41'd0, m1} * {24'd0, K_Q40};
      sh2   <= sh1;
      neg2  <= neg1;
      prod3 <= prod2;
      sh3   <= sh2;
      neg3  <= neg2;
    end
  end

  // ---------------------------------------------------------------- 4: align
  logic [39:0] mag4;   // |t| * 2^32 < 185 * 2^32 < 2^40
  logic        neg4;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag4 <= (BASE2 ? prod3[63:24] : prod3[64:25]) >> sh3;
      neg4 <= neg3;
    end
  end

  // ---------------------------------------------------------------- 5: sign, split n.f
  // Two's complement t; its integer part is n = floor(t), its fraction f = t - n >= 0.
  logic [40:0] t5;
  always_ff @(posedge clk) begin
    if (ce) t5 <= neg4 ? 41'd0 - {1'b0, mag4} : {1'b0, mag4};
  end

  // ---------------------------------------------------------------- 6-12: 2^t
  fk_fp32_exp2_fixed u_exp2 (.clk, .ce, .t(t5), .n, .frac);

  for (genvar s = 0; s < LAT; s++) begin : g_delay
    always_ff @(posedge clk) begin
      if (ce) begin
        side_q[s+1] <= side_q[s];
        cls_q[s+1]  <= cls_q[s];
      end
    end
  end
  assign side_out = side_q[LAT];
  assign cls      = cls_q[LAT];

  // Bits below the kept precision.
  logic unused;
  assign unused = ^{prod3[64], prod3[24:0]};
endmodule
