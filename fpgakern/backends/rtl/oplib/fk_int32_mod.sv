// fk_int32_mod: int32 remainders, torch.fmod (FLOORED = 0) and torch.remainder (FLOORED = 1).
//
//   FLOORED = 0, fk_int32_fmod:      C's a % b, truncating: the result has a's sign
//   FLOORED = 1, fk_int32_remainder: Python's a % b, floored: the result has b's sign
//   x % 0 = x (torch raises; hardware must answer, and the RISC-V convention, the
//   dividend, is what the divider gives); INT32_MIN % -1 = 0.
//
// Sign-magnitude: |a| mod |b| on fk_udiv_pipe (32 iterations, 2 per stage), then a's sign.
// With d = 0 the recurrence never subtracts and shifts |a| whole into the remainder, so
// x % 0 needs no special case: |a| with a's sign is a again (also for INT32_MIN).
// FLOORED adds b to a nonzero truncated remainder whose sign differs from b's.
// Latency 18 + FLOORED ce-cycles: 1 (magnitudes) + 16 (recurrence) + 1 (sign)
// (+ 1: the floored correction), II = 1.
module fk_int32_mod #(
  parameter bit FLOORED = 1'b0
) (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  // Stage 1: magnitudes.
  logic [31:0] mag_a_q, mag_b_q, b_q;
  logic        neg_q;
  always_ff @(posedge clk) begin
    if (ce) begin
      mag_a_q <= a[31] ? 32'd0 - a : a;
      mag_b_q <= b[31] ? 32'd0 - b : b;
      neg_q   <= a[31];
      b_q     <= b;
    end
  end

  logic [31:0] unused_quot, rem, b_out;
  logic        neg_out;
  fk_udiv_pipe #(.DW(32), .QW(32), .PER_STAGE(2), .SW(33)) u_div (
    .clk, .ce,
    .rem_in(32'd0), .qa_in(mag_a_q), .d_in(mag_b_q), .side_in({neg_q, b_q}),
    .q(unused_quot), .rem(rem), .side_out({neg_out, b_out})
  );

  // The truncated remainder takes a's sign.
  logic [31:0] trunc_q, b_last;
  always_ff @(posedge clk) begin
    if (ce) begin
      trunc_q <= neg_out ? 32'd0 - rem : rem;
      b_last  <= b_out;
    end
  end

  if (FLOORED) begin : g_floored
    // b = 0 leaves x alone: 0's sign counts as +, and x + 0 = x.
    always_ff @(posedge clk) begin
      if (ce) y <= trunc_q != 32'd0 && trunc_q[31] != b_last[31] ? trunc_q + b_last : trunc_q;
    end
  end else begin : g_truncated
    assign y = trunc_q;
    logic unused_b;
    assign unused_b = ^b_last;
  end

  logic unused;
  assign unused = ^unused_quot;
endmodule

// torch.fmod on int32, latency 18.
/* verilator lint_off DECLFILENAME */
module fk_int32_fmod (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  fk_int32_mod #(.FLOORED(1'b0)) u_mod (.clk, .ce, .a, .b, .y);
endmodule

// torch.remainder on int32, latency 19.
module fk_int32_remainder (
  input  logic        clk,
  input  logic        ce,
  input  logic [31:0] a,
  input  logic [31:0] b,
  output logic [31:0] y
);
  fk_int32_mod #(.FLOORED(1'b1)) u_mod (.clk, .ce, .a, .b, .y);
endmodule
/* verilator lint_on DECLFILENAME */
