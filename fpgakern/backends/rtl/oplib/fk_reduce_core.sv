// fk_reduce_core: the accumulate structure of the reductions (sum, max, min, prod, and
// argmax / argmin over {value, index} pairs, over a stream of LANES-wide beats),
// independent of the combining operator. The fk_reduce_<dtype>_<op>
// wrappers, generated from the op table beside each kernel that uses one, instantiate the
// operator modules and wire them to the tree_* and ring_* ports here, so every reduction
// uses the same, bit-exact elementwise operators.
//
// Interface (one reduction = a run of accepted beats ending with in_last):
//   in_valid, in_ready    beat handshake: a beat is taken in a cycle with both high.
//   in_mask[i]            lane i holds an element; masked lanes count as IDENTITY (tails).
//   in_data[DW*i +: DW]   lane i (DW = 32: one element; an index reduction's wrapper
//                         passes {value, index} pairs, DW = 64).
//   in_last               this beat ends the reduction.
//   out_valid, out_data   one-cycle pulse with the result (no backpressure on the output).
// in_ready is low for P cycles after reset and from the cycle after a last beat is taken
// until its result is out (the drain and final combine below); otherwise high.
// A reduction whose lanes were all masked returns EMPTY.
//
// Order of combination (bit-exact; a C++ model reproduces it with the same operator):
//   1. beat value:  v = lanes with masked ones replaced by IDENTITY;
//                   for (w = LANES/2; w >= 1; w /= 2) for (j < w) v[j] = op(v[j], v[j+w]);
//                   the beat's value is v[0]  (a pipelined tree of LANES-1 operators).
//   2. partials:    p[0..P-1] = IDENTITY; beat k (k = 0, 1, ... counting accepted beats of
//                   this reduction, all-masked beats included) does
//                   p[k % P] = op(p[k % P], beat_k).
//                   The P partials circulate in a ring through ONE operator of latency
//                   OPLAT (<= P) plus P - OPLAT registers, which advances only when a beat
//                   value arrives, so one beat per cycle is accepted whatever OPLAT is.
//   3. combine:     for (w = P/2; w >= 1; w /= 2) for (j < w) p[j] = op(p[j], p[j+w]);
//                   result = p[0]. The ring itself does this: after the last beat it
//                   keeps turning for log2(P) revolutions, adding the partial leaving the
//                   ring to the one that left w cycles earlier (a tap line of P/2 registers),
//                   and refills with IDENTITY; one more revolution brings the result out.
// op(a, b) is commutative for every operator used (RNE add, IEEE max/min with canonical
// NaN, int add/max/min, fk_pick's total order on pairs), so operand order within a pair
// does not matter.
//
// Timing: the result of a reduction of N beats is out 1 + log2(LANES)*OPLAT + (log2(P)+1)*P
// + 1 cycles after its last beat is taken; a reduction occupies N + that many cycles.
// Control (state, counters, valids) is reset by rst_n (synchronous, active low); the
// datapath has no reset (the ring is refilled with IDENTITY after reset, taking P cycles).
module fk_reduce_core #(
  parameter int          LANES    = 1,              // power of two, >= 1
  parameter int          P        = 1,              // partials, power of two, >= OPLAT
  parameter int          OPLAT    = 1,              // latency of the operator, >= 1
  parameter int          DW       = 32,             // bits per lane value
  parameter logic [DW-1:0] IDENTITY = '0,
  parameter logic [DW-1:0] EMPTY    = IDENTITY,
  localparam int         TREE_OPS = LANES > 1 ? LANES - 1 : 1  // port width, >= 1
) (
  input  logic                  clk,
  input  logic                  rst_n,
  input  logic                  in_valid,
  output logic                  in_ready,
  input  logic [LANES-1:0]      in_mask,
  input  logic [LANES*DW-1:0]   in_data,
  input  logic                  in_last,
  output logic                  out_valid,
  output logic [DW-1:0]         out_data,
  // The lane tree's operators (always enabled): op k computes tree_y[k] = op(a, b).
  output logic [TREE_OPS*DW-1:0] tree_a,
  output logic [TREE_OPS*DW-1:0] tree_b,
  input  logic [TREE_OPS*DW-1:0] tree_y,
  // The ring's operator, clock-enabled by ring_ce.
  output logic                  ring_ce,
  output logic [DW-1:0]         ring_a,
  output logic [DW-1:0]         ring_b,
  input  logic [DW-1:0]         ring_y
);
  localparam int LOG_LANES = $clog2(LANES);
  localparam int LOG_P     = $clog2(P);
  localparam int TREE_LAT  = LOG_LANES * OPLAT;
  localparam int FOLD_LEN  = (LOG_P + 1) * P;           // cycles of the final combine
  localparam int CW        = $clog2(FOLD_LEN + 1) + 1;  // counter width
  localparam int TAPS      = P > 1 ? P / 2 : 1;

  // ---------------------------------------------------------------- input register
  logic accept;
  assign accept = in_valid && in_ready;

  logic [2*LANES-2:0][DW-1:0] node;  // tree values: lanes, then each level's results
  logic [LANES-1:0][DW-1:0]   lane_q;
  always_ff @(posedge clk) begin
    for (int i = 0; i < LANES; i++) lane_q[i] <= in_mask[i] ? in_data[DW*i +: DW] : IDENTITY;
  end

  // Beat sideband (valid, last, any lane valid) beside the tree; reset because it is control.
  logic [TREE_LAT:0] tv_q, tlast_q, tany_q;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      tv_q[0] <= 1'b0;
    end else begin
      tv_q[0] <= accept;
    end
    tlast_q[0] <= in_last;
    tany_q[0]  <= in_mask != '0;
  end
  for (genvar s = 0; s < TREE_LAT; s++) begin : g_side
    always_ff @(posedge clk) begin
      if (!rst_n) tv_q[s+1] <= 1'b0;
      else        tv_q[s+1] <= tv_q[s];
      tlast_q[s+1] <= tlast_q[s];
      tany_q[s+1]  <= tany_q[s];
    end
  end

  // ---------------------------------------------------------------- lane tree
  for (genvar i = 0; i < LANES; i++) begin : g_leaf
    assign node[i] = lane_q[i];
  end
  for (genvar l = 0; l < LOG_LANES; l++) begin : g_level
    localparam int W    = LANES >> (l + 1);           // operators on this level
    localparam int BASE = 2 * LANES - 2 * (LANES >> l);  // first value of this level
    localparam int OFS  = LANES - (LANES >> l);       // first operator of this level
    for (genvar j = 0; j < W; j++) begin : g_op
      assign tree_a[DW*(OFS+j) +: DW] = node[BASE + j];
      assign tree_b[DW*(OFS+j) +: DW] = node[BASE + j + W];
      assign node[LANES + OFS + j]    = tree_y[DW*(OFS+j) +: DW];
    end
  end
  if (LANES == 1) begin : g_no_tree
    assign tree_a = '0;
    assign tree_b = '0;
    logic unused_tree;
    assign unused_tree = ^tree_y;
  end

  logic        tv, tlast, tany;
  logic [DW-1:0] beat;
  assign tv    = tv_q[TREE_LAT];
  assign tlast = tlast_q[TREE_LAT];
  assign tany  = tany_q[TREE_LAT];
  assign beat  = node[2*LANES-2];

  // ---------------------------------------------------------------- control
  typedef enum logic [1:0] {S_INIT, S_ACCUM, S_WAIT, S_FOLD} state_t;
  state_t         state;
  logic [CW-1:0]  cnt;
  logic           any_q;

  // ---------------------------------------------------------------- ring
  // x: the partial leaving the ring this cycle (entered P advances ago).
  logic [DW-1:0] x;
  if (P > OPLAT) begin : g_ring_delay
    // P - OPLAT registers, newest in the low word (flat: Yosys cannot index 2-D arrays
    // declared inside a generate block).
    logic [(P-OPLAT)*DW-1:0] dly;
    if (P - OPLAT == 1) begin : g_one
      always_ff @(posedge clk) if (ring_ce) dly <= ring_y;
    end else begin : g_more
      always_ff @(posedge clk) if (ring_ce) dly <= {dly[(P-OPLAT-1)*DW-1:0], ring_y};
    end
    assign x = dly[(P-OPLAT)*DW-1 -: DW];
  end else begin : g_ring_direct
    assign x = ring_y;
  end

  // tap[k]: the partial that left the ring k+1 advances ago.
  logic [TAPS-1:0][DW-1:0] tap;
  always_ff @(posedge clk) begin
    if (ring_ce) begin
      tap[0] <= x;
      for (int s = 1; s < TAPS; s++) tap[s] <= tap[s-1];
    end
  end

  // Fold schedule: cycle cnt of the combine is position i of revolution r; in revolution
  // r < log2(P) the last w = P >> (r+1) positions pair x with the value w positions back.
  logic [CW-1:0] rev, pos;
  logic [DW-1:0] pair;
  logic          fold_add;
  always_comb begin
    rev      = cnt >> LOG_P;
    pos      = cnt & CW'(P - 1);
    fold_add = 1'b0;
    pair     = IDENTITY;
    for (int r = 0; r < LOG_P; r++) begin
      if (rev == CW'(r) && pos >= CW'(P - (P >> (r + 1)))) begin
        fold_add = 1'b1;
        pair     = tap[(P >> (r + 1)) - 1];
      end
    end
  end

  always_comb begin
    ring_ce = 1'b0;
    ring_a  = IDENTITY;
    ring_b  = IDENTITY;
    case (state)
      S_INIT: ring_ce = 1'b1;  // refill with IDENTITY
      S_ACCUM, S_WAIT: begin
        ring_ce = tv;
        ring_a  = x;
        ring_b  = beat;
      end
      default: begin           // S_FOLD
        ring_ce = 1'b1;
        if (fold_add) begin
          ring_a = x;
          ring_b = pair;
        end
      end
    endcase
  end

  assign in_ready = state == S_ACCUM;

  always_ff @(posedge clk) begin
    out_valid <= 1'b0;
    if (!rst_n) begin
      state <= S_INIT;
      cnt   <= '0;
      any_q <= 1'b0;
    end else begin
      case (state)
        S_INIT: begin
          cnt <= cnt + 1'b1;
          if (cnt == CW'(P - 1)) begin
            state <= S_ACCUM;
            cnt   <= '0;
          end
        end
        S_ACCUM, S_WAIT: begin
          if (accept && in_last) state <= S_WAIT;
          if (tv) begin
            any_q <= any_q || tany;
            if (tlast) state <= S_FOLD;
          end
        end
        default: begin         // S_FOLD
          cnt <= cnt + 1'b1;
          if (cnt == CW'(FOLD_LEN - 1)) begin
            out_valid <= 1'b1;
            out_data  <= any_q ? x : EMPTY;
            any_q     <= 1'b0;
            state     <= S_ACCUM;
            cnt       <= '0;
          end
        end
      endcase
    end
  end
endmodule
