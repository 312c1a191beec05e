// fk_fp32_log2: y = log2(x) on float32 (base-2 logarithm), within 1 ulp of the correctly rounded
// result (op-table contract: 2 ulp). Special values and the algorithm: fk_fp32_log_core.
// Latency 16 ce-cycles, II = 1.
module fk_fp32_log2 (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  output logic [31:0] y
);
  fk_fp32_log_core #(.NATURAL(1'b0)) u_core (.clk, .ce, .a, .y);
endmodule
