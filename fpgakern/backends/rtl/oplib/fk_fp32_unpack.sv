// fk_fp32_unpack: a float32 operand's magnitude taken apart, combinational (shared operator
// helper, used by fk_fp32_fmod and fk_fp32_atan2).
//
//   nan, inf, zero   the classes (zero: +-0; a subnormal is neither of the three)
//   m                the 24-bit significand with its hidden bit ({exponent != 0, fraction})
//   e                the effective biased exponent: the field, 1 for subnormals (and zero)
//   lz               m's leading-zero count (fk_lzc), 0 for a normal number
// so a finite nonzero |x| = (m << lz) * 2^(e - lz - 150), (m << lz) in [2^23, 2^24): the
// caller normalizes a subnormal with one left shift by lz, usually a stage later.
module fk_fp32_unpack (
  input  logic [30:0] mag,   // |x|: the exponent field and the fraction
  output logic        nan,
  output logic        inf,
  output logic        zero,
  output logic [23:0] m,
  output logic [7:0]  e,
  output logic [4:0]  lz
);
  logic [7:0]  ex;
  logic [22:0] fx;
  assign {ex, fx} = mag;
  assign nan  = ex == 8'hFF && fx != 23'd0;
  assign inf  = ex == 8'hFF && fx == 23'd0;
  assign zero = ex == 8'd0 && fx == 23'd0;
  assign m    = {ex != 8'd0, fx};
  assign e    = ex == 8'd0 ? 8'd1 : ex;
  fk_lzc #(.W(24)) u_lzc (.x(m), .count(lz));
endmodule
