// fk_int32_div: int32 division with torch's div(rounding_mode='trunc') semantics.
//
//   y = a / b rounded toward zero;  x / 0 = -1 (all ones, the RISC-V convention);
//   INT32_MIN / -1 = INT32_MIN (the true quotient 2^31 wraps).
//
// Sign-magnitude: |a| / |b| on fk_udiv_pipe (32 iterations, 2 per stage), then the sign.
// |INT32_MIN| = 2^31 is representable as unsigned, so no operand needs a special case except
// b = 0; 2^31 / 1 negated or not gives 0x80000000, which is the wrapping result.
// Latency 18 ce-cycles: 1 (magnitudes) + 16 (recurrence) + 1 (sign, x/0), II = 1.
module fk_int32_div (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  // Stage 1: magnitudes and the result's sign.
  logic [31:0] mag_a_q, mag_b_q;
  logic        neg_q, zero_div_q;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag_a_q    <= a[31] ? 32'd0 - a : a;
      mag_b_q    <= b[31] ? 32'd0 - b : b;
      neg_q      <= a[31] ^ b[31];
      zero_div_q <= b == 32'd0;
    end
  end

  logic [31:0] quot, unused_rem;
  logic [1:0]  side;
  fk_udiv_pipe #(.DW(32), .QW(32), .PER_STAGE(2), .SW(2)) u_div (
    .clk, .ce,
    .rem_in(32'd0), .qa_in(mag_a_q), .d_in(mag_b_q), .side_in({neg_q, zero_div_q}),
    .q(quot), .rem(unused_rem), .side_out(side)
  );

  // Final stage: apply the sign; division by zero gives all ones.
  always_ff @(posedge clk) begin
    if (ce) begin
      if (side[0]) y <= 32'hFFFF_FFFF;
      else         y <= side[1] ? 32'd0 - quot : quot;
    end
  end

  logic unused;
  assign unused = ^unused_rem;
endmodule
