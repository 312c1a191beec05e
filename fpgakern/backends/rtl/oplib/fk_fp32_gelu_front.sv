// fk_fp32_gelu_front: the input side shared by fk_fp32_gelu and fk_fp32_gelu_tanh
// (combinational). Both compute y = x * P(x), P(x) = Phi(x) or sigmoid(2u(x)), where
// P(0) = 1/2, P'(0) = 1/sqrt(2 pi) (both), P -> 1 as x -> +inf and P -> 0 (faster than any
// power) as x -> -inf. So these results follow from x alone (special = 1, y = spec):
//   NaN -> NaN (canonical 0x7FC00000); -inf -> NaN (-inf * 0, as torch); +inf -> +inf;
//   x >= 16 -> x (1 - P < 2^-184); x <= -16 -> -0 (|y| < 2^-180, far below 2^-150);
//   |x| < 2^-26 (zeros and subnormals included): y = x/2 rounded, ties toward +inf.
//   There y = x/2 (1 + c x + O(x^2)), c = 2/sqrt(2 pi) = 0.798 < 1, so the relative
//   deviation from x/2 is below 2^-26.3, less than half an ulp: x/2 is the correctly
//   rounded result where it is exact (2^-125 <= |x|), and where x/2 falls between two
//   subnormals (an odd significand count) the deviation's sign picks the side: up for
//   x > 0 (larger), toward zero for x < 0: toward +inf in both cases.
// Otherwise (2^-26 <= |x| < 16, exponent field in [101, 130]) the datapath's operand is
// X = |x| * 2^40 = m << (field - 110), exact for |x| >= 2^-17, truncated below.
module fk_fp32_gelu_front (
  input  logic [31:0] a,
  output logic        special,
  output logic [31:0] spec,
  output logic [43:0] xfix
);
  logic [7:0] ea;
  logic       sa;
  assign ea = a[30:23];
  assign sa = a[31];
  always_comb begin
    special = 1'b1;
    if ((ea == 8'hFF && a[22:0] != 23'd0) || a == 32'hFF80_0000)
      spec = 32'h7FC0_0000;                                    // NaN, and -inf
    else if (ea >= 8'd131)
      spec = sa ? 32'h8000_0000 : a;                           // |x| >= 16, +inf
    else if (ea < 8'd101)                                      // |x| < 2^-26: x/2
      spec = {sa, ea >= 8'd2 ? a[30:0] - 31'h0080_0000
                             : (a[30:0] >> 1) + {30'd0, a[0] & ~sa}};
    else begin
      special = 1'b0;
      spec    = 32'd0;
    end
  end
  logic [4:0] lsh, rsh;
  assign lsh  = (ea >= 8'd110 && ea <= 8'd130) ? 5'(ea - 8'd110) : 5'd0;
  assign rsh  = (ea < 8'd110 && ea >= 8'd101) ? 5'(8'd110 - ea) : 5'd0;
  assign xfix = ({20'd0, 1'b1, a[22:0]} << lsh) >> rsh;
endmodule
