// fk_udiv_pipe: pipelined unsigned restoring division, the digit recurrence shared by
// fk_fp32_div, fk_int32_div and fk_fp32_sigmoid.
//
// It is the textbook shift-subtract divider with the dividend and the quotient sharing one
// shift register ("qa"): every iteration shifts {rem, qa} left by one, subtracts d from the
// remainder when it fits and then sets the freed qa LSB to 1. After QW iterations qa holds
// the quotient and rem the remainder.
//   * integer use: rem_in = 0, qa_in = dividend      -> q = dividend / d, rem = dividend % d
//   * mantissa use: a dividend D0 with d <= D0 < 2d enters as rem_in = D0 >> 1,
//     qa_in = {D0[0], 0...}; then q = floor(D0 * 2^(QW-1) / d), the first quotient bit is 1.
// rem_in must be < d (the invariant that keeps the remainder DW bits wide).
//
// PER_STAGE iterations are unrolled per pipeline stage (a DW-bit subtract and a mux each);
// latency = ceil(QW / PER_STAGE) ce-cycles, II = 1. SW sideband bits (sign, exponent,
// special-case flags of the caller) travel with the data so callers need no delay lines.
module fk_udiv_pipe #(
  parameter int DW        = 24,
  parameter int QW        = 25,
  parameter int PER_STAGE = 2,
  parameter int SW        = 1
) (
  input  logic          clk,
  input  logic          ce,
  input  logic [DW-1:0] rem_in,
  input  logic [QW-1:0] qa_in,
  input  logic [DW-1:0] d_in,
  input  logic [SW-1:0] side_in,
  output logic [QW-1:0] q,
  output logic [DW-1:0] rem,
  output logic [SW-1:0] side_out
);
  localparam int STAGES = (QW + PER_STAGE - 1) / PER_STAGE;

  // Index s holds the state entering stage s; index STAGES is the output register.
  logic [STAGES:0][DW-1:0] r_q;
  logic [STAGES:0][QW-1:0] qa_q;
  logic [STAGES:0][DW-1:0] d_q;
  logic [STAGES:0][SW-1:0] side_q;

  assign r_q[0]    = rem_in;
  assign qa_q[0]   = qa_in;
  assign d_q[0]    = d_in;
  assign side_q[0] = side_in;

  for (genvar s = 0; s < STAGES; s++) begin : g_stage
    // The chained iterations of this stage, flattened (Yosys cannot index 2-D arrays
    // declared inside a generate block); slice 0 is the registered stage input.
    logic [(PER_STAGE+1)*DW-1:0] r_c;
    logic [(PER_STAGE+1)*QW-1:0] qa_c;
    assign r_c[DW-1:0]  = r_q[s];
    assign qa_c[QW-1:0] = qa_q[s];

    for (genvar k = 0; k < PER_STAGE; k++) begin : g_iter
      logic [DW-1:0] r_k;
      logic [QW-1:0] qa_k;
      assign r_k  = r_c[k*DW +: DW];
      assign qa_k = qa_c[k*QW +: QW];
      if (s * PER_STAGE + k < QW) begin : g_on
        logic [DW:0] shifted;
        logic [DW:0] diff;
        assign shifted = {r_k, qa_k[QW-1]};
        assign diff    = shifted - {1'b0, d_q[s]};
        // No borrow means shifted >= d: keep the difference and set the quotient bit.
        assign r_c[(k+1)*DW +: DW] = diff[DW] ? shifted[DW-1:0] : diff[DW-1:0];
        if (QW > 1) begin : g_wide
          assign qa_c[(k+1)*QW +: QW] = {qa_k[QW-2:0], ~diff[DW]};
        end else begin : g_one
          assign qa_c[(k+1)*QW +: QW] = ~diff[DW];
        end
      end else begin : g_off  // last stage when QW is not a multiple of PER_STAGE
        assign r_c[(k+1)*DW +: DW]  = r_k;
        assign qa_c[(k+1)*QW +: QW] = qa_k;
      end
    end

    always_ff @(posedge clk) begin
      if (ce) begin
        r_q[s+1]    <= r_c[PER_STAGE*DW +: DW];
        qa_q[s+1]   <= qa_c[PER_STAGE*QW +: QW];
        d_q[s+1]    <= d_q[s];
        side_q[s+1] <= side_q[s];
      end
    end
  end

  assign q        = qa_q[STAGES];
  assign rem      = r_q[STAGES];
  assign side_out = side_q[STAGES];

  // The divisor leaves the last stage unused.
  logic unused_d;
  assign unused_d = ^d_q[STAGES];
endmodule
