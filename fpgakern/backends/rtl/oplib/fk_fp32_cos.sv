// fk_fp32_cos: y = cos(x) (torch.cos) on float32, for every float32 x, within 1 ulp of the
// correctly rounded result (op-table contract: 2 ulp against MPFR). The argument reduction
// (Payne-Hanek, every finite x), the polynomial, the special values and the error budget
// are fk_fp32_sincos_core's, with COS = 1. Latency 22 ce-cycles, II = 1.
module fk_fp32_cos (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  fk_fp32_sincos_core #(.COS(1'b1)) u_core (.clk, .ce, .a, .y);
endmodule
