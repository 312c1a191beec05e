// The reductions: fk_reduce_<dtype>_<op> = fk_reduce_core wired to the elementwise
// operator that combines two values. Interface, timing and the exact order of combination
// are documented in fk_reduce_core.sv and docs/operators.md.
//
// Parameters: LANES (1 for the scalar rungs, 16 for the 512-bit rung; power of two) and P,
// the number of interleaved partials (power of two, at least the operator's latency OPLAT;
// it fixes the summation order, so the HLS C++ model must use the same value).
// OPLAT must equal the operator module's latency (the op table's rtl latency of the
// combine op); tests/oplib/test_reduce.py checks it.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */

// fp32 sum: sum; IDENTITY -0.0 (exact: x + -0 = x for every x), an all-masked reduction gives +0.0. OPLAT 6 (fk_fp32_add).
module fk_reduce_fp32_sum #(
  parameter int LANES = 1,
  parameter int P     = 8
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 6;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'h8000_0000), .EMPTY(32'h0000_0000)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_fp32_add u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_fp32_add u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule

// fp32 max: maximum; NaN propagates (canonical NaN), -0 < +0; IDENTITY -inf. OPLAT 1 (fk_fp32_maximum).
module fk_reduce_fp32_max #(
  parameter int LANES = 1,
  parameter int P     = 1
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 1;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'hFF80_0000), .EMPTY(32'hFF80_0000)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_fp32_maximum u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_fp32_maximum u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule

// fp32 min: minimum; NaN propagates (canonical NaN), -0 < +0; IDENTITY +inf. OPLAT 1 (fk_fp32_minimum).
module fk_reduce_fp32_min #(
  parameter int LANES = 1,
  parameter int P     = 1
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 1;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'h7F80_0000), .EMPTY(32'h7F80_0000)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_fp32_minimum u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_fp32_minimum u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule

// int32 sum: wrapping sum; IDENTITY 0. OPLAT 1 (fk_int32_add).
module fk_reduce_int32_sum #(
  parameter int LANES = 1,
  parameter int P     = 1
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 1;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'h0000_0000), .EMPTY(32'h0000_0000)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_int32_add u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_int32_add u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule

// int32 max: signed maximum; IDENTITY INT32_MIN. OPLAT 1 (fk_int32_maximum).
module fk_reduce_int32_max #(
  parameter int LANES = 1,
  parameter int P     = 1
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 1;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'h8000_0000), .EMPTY(32'h8000_0000)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_int32_maximum u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_int32_maximum u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule

// int32 min: signed minimum; IDENTITY INT32_MAX. OPLAT 1 (fk_int32_minimum).
module fk_reduce_int32_min #(
  parameter int LANES = 1,
  parameter int P     = 1
) (
  input  logic               clk,
  input  logic               rst_n,
  input  logic               in_valid,
  output logic               in_ready,
  input  logic [LANES-1:0]   in_mask,
  input  logic [LANES*32-1:0] in_data,
  input  logic               in_last,
  output logic               out_valid,
  output logic [31:0]        out_data
);
  localparam int OPLAT    = 1;
  localparam int TREE_OPS = LANES > 1 ? LANES - 1 : 1;
  logic [TREE_OPS*32-1:0] tree_a, tree_b, tree_y;
  logic                   ring_ce;
  logic [31:0]            ring_a, ring_b, ring_y;

  fk_reduce_core #(
    .LANES(LANES), .P(P), .OPLAT(OPLAT), .IDENTITY(32'h7FFF_FFFF), .EMPTY(32'h7FFF_FFFF)
  ) u_core (
    .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_data, .in_last, .out_valid, .out_data,
    .tree_a, .tree_b, .tree_y, .ring_ce, .ring_a, .ring_b, .ring_y
  );

  for (genvar k = 0; k < LANES - 1; k++) begin : g_tree
    fk_int32_minimum u_op (
      .clk, .ce(1'b1), .a(tree_a[32*k +: 32]), .b(tree_b[32*k +: 32]), .y(tree_y[32*k +: 32])
    );
  end
  if (LANES == 1) begin : g_no_tree  // no lane tree: its ports are idle
    assign tree_y = '0;
    logic unused_tree;
    assign unused_tree = ^{tree_a, tree_b};
  end
  fk_int32_minimum u_ring (.clk, .ce(ring_ce), .a(ring_a), .b(ring_b), .y(ring_y));
endmodule
/* verilator lint_on DECLFILENAME */
