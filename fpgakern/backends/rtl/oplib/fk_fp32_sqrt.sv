// fk_fp32_sqrt: IEEE-754 binary32 square root, correctly rounded (RNE), subnormal inputs
// handled exactly: bit-exact with numpy.sqrt on float32.
//   sqrt(+-0) = +-0, sqrt(+inf) = +inf, sqrt(x < 0) = NaN, sqrt(NaN) = NaN;
//   NaN results are the canonical quiet NaN 0x7FC00000.
// A square root is always a normal number (sqrt(2^-149) = 2^-74.5) and never lands exactly
// halfway between two floats, so guard + sticky rounding needs no subnormal path.
//
// Algorithm: normalize the significand m to [2^23, 2^24) (subnormals by their leading
// zeros); with an odd unbiased exponent double m so the exponent is even; the radicand
// R = m << 25 lies in [2^48, 2^50) and the restoring digit-by-digit square root (radix 2,
// two result bits per stage) gives root = floor(sqrt(R)) in [2^24, 2^25): 24 significand
// bits plus the guard bit, and remainder != 0 is the sticky bit.
//
// Pipeline, latency 16 ce-cycles, II = 1:
//   1     classify, leading-zero count
//   2     normalize, halve the exponent
//   3-15  13 recurrence stages (25 root bits)
//   16    round and pack, special cases
module fk_fp32_sqrt (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  localparam logic [1:0] SP_NONE = 2'd0, SP_NAN = 2'd1, SP_INF = 2'd2, SP_ZERO = 2'd3;
  localparam int STAGES = 13;  // 25 root bits, 2 per stage
  localparam int RW = 28;      // remainder width: rem <= 2*root < 2^26, shifted twice

  // ---------------------------------------------------------------- stage 1: classify
  logic [7:0]  ea;
  logic [22:0] fa;
  logic [4:0]  lz;
  assign ea = a[30:23];
  assign fa = a[22:0];
  fk_lzc #(.W(24)) u_lz (.x({ea != 8'd0, fa}), .count(lz));

  logic [1:0] sp0;
  always_comb begin
    if (ea == 8'hFF && fa != 23'd0)      sp0 = SP_NAN;   // NaN
    else if (ea == 8'd0 && fa == 23'd0)  sp0 = SP_ZERO;  // +-0 keeps its sign
    else if (a[31])                      sp0 = SP_NAN;   // negative, -inf included
    else if (ea == 8'hFF)                sp0 = SP_INF;
    else                                 sp0 = SP_NONE;
  end

  logic [23:0] m1;
  logic [7:0]  e1;           // effective biased exponent (1 for subnormals)
  logic [4:0]  lz1;
  logic        sign1;
  logic [1:0]  sp1;
  always_ff @(posedge clk) begin
    if (ce) begin
      m1    <= {ea != 8'd0, fa};
      e1    <= ea == 8'd0 ? 8'd1 : ea;
      lz1   <= lz;
      sign1 <= a[31];
      sp1   <= sp0;
    end
  end

  // ---------------------------------------------------------------- stage 2: normalize
  // Unbiased exponent u = e1 - lz1 - 127 (in [-149, 127]). Its parity is that of
  // e1 + lz1 + 1; an odd u moves one factor 2 into the significand. The result's biased
  // exponent is floor(u / 2) + 127 = (e1 - lz1 + 127 - odd) / 2, always in [52, 190].
  logic        odd;
  logic [23:0] m_norm;
  logic [8:0]  e_sum;
  assign odd    = e1[0] ^ lz1[0] ^ 1'b1;
  assign m_norm = m1 << lz1;
  assign e_sum  = {1'b0, e1} - {4'd0, lz1} + 9'd127 - {8'd0, odd};

  logic [STAGES:0][49:0]   rad_q;   // radicand bits still to be consumed, MSB pair first
  logic [STAGES:0][RW-1:0] rem_q;
  logic [STAGES:0][24:0]   root_q;
  logic [STAGES:0][7:0]    e_q;
  logic [STAGES:0]         sign_q;
  logic [STAGES:0][1:0]    sp_q;
  always_ff @(posedge clk) begin
    if (ce) begin
      rad_q[0]  <= odd ? {m_norm, 26'd0} : {1'b0, m_norm, 25'd0};
      rem_q[0]  <= '0;
      root_q[0] <= '0;
      e_q[0]    <= e_sum[8:1];
      sign_q[0] <= sign1;
      sp_q[0]   <= sp1;
    end
  end

  // ---------------------------------------------------------------- stages 3-15: recurrence
  // One step: bring down the next two radicand bits; the trial subtrahend is 4*root + 1
  // (that is (2*root + 1)^2 - (2*root)^2 at the current scale); keep it if it fits.
  for (genvar s = 0; s < STAGES; s++) begin : g_stage
    // Two chained steps, flattened (Yosys cannot index 2-D arrays declared inside a
    // generate block); slice 0 is the registered stage input.
    logic [3*50-1:0] rad_c;
    logic [3*RW-1:0] rem_c;
    logic [3*25-1:0] root_c;
    assign rad_c[49:0]    = rad_q[s];
    assign rem_c[RW-1:0]  = rem_q[s];
    assign root_c[24:0]   = root_q[s];
    for (genvar k = 0; k < 2; k++) begin : g_iter
      logic [49:0]   rad_k;
      logic [RW-1:0] rem_k;
      logic [24:0]   root_k;
      assign rad_k  = rad_c[k*50 +: 50];
      assign rem_k  = rem_c[k*RW +: RW];
      assign root_k = root_c[k*25 +: 25];
      if (2 * s + k < 25) begin : g_on
        logic [RW-1:0] pulled, trial, diff;
        assign pulled = {rem_k[RW-3:0], rad_k[49:48]};
        assign trial  = {1'b0, root_k, 2'b01};
        assign diff   = pulled - trial;
        // pulled < trial shows as a borrow into the (always zero) top bit.
        assign rem_c[(k+1)*RW +: RW] = diff[RW-1] ? pulled : diff;
        // rem <= 2 * root < 2^26: its top two bits are always zero.
        logic unused_top;
        assign unused_top = ^rem_k[RW-1:RW-2];
        assign root_c[(k+1)*25 +: 25] = {root_k[23:0], ~diff[RW-1]};
        assign rad_c[(k+1)*50 +: 50]  = {rad_k[47:0], 2'b00};
      end else begin : g_off
        assign rem_c[(k+1)*RW +: RW]  = rem_k;
        assign root_c[(k+1)*25 +: 25] = root_k;
        assign rad_c[(k+1)*50 +: 50]  = rad_k;
      end
    end
    always_ff @(posedge clk) begin
      if (ce) begin
        rad_q[s+1]  <= rad_c[2*50 +: 50];
        rem_q[s+1]  <= rem_c[2*RW +: RW];
        root_q[s+1] <= root_c[2*25 +: 25];
        e_q[s+1]    <= e_q[s];
        sign_q[s+1] <= sign_q[s];
        sp_q[s+1]   <= sp_q[s];
      end
    end
  end

  // ---------------------------------------------------------------- stage 16: round, pack
  logic [24:0] root;
  logic [31:0] rounded;
  assign root = root_q[STAGES];
  fk_fp32_round #(.EW(8)) u_round (
    .sign(1'b0), .exp(e_q[STAGES]), .frac(root[23:1]), .guard(root[0]),
    .sticky(rem_q[STAGES] != '0), .y(rounded)
  );

  always_ff @(posedge clk) begin
    if (ce) begin
      case (sp_q[STAGES])
        SP_NAN:  y <= 32'h7FC0_0000;
        SP_INF:  y <= 32'h7F80_0000;
        SP_ZERO: y <= {sign_q[STAGES], 31'd0};
        default: y <= rounded;
      endcase
    end
  end

  // The hidden bit is implied by the exponent; the radicand is used up.
  logic unused;
  assign unused = root[24] ^ (^rad_q[STAGES]) ^ e_sum[0];  // e_sum is even
endmodule
