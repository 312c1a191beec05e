// fk_mac_pe: one multiply-accumulate PE of a contraction kernel, in the declared order
// (docs/matrix.md, fpgakern.ir.contraction.ACCUMULATION_ORDER).
//
// The PE keeps, for each of its SLOTS outputs, P partial sums in a small RAM. A product
// a * b arrives with its output's slot, its partial q (k mod P) and `first` (k < P: the
// partial's first product, written as it is); any other is added to the partial, the
// sum rounded (FLOAT: fk_fp32_mul, fk_fp32_add; else fk_int32_mul, fk_int32_add,
// wrapping). A new product may arrive every cycle: the partial it reads was last written
// at least P products earlier for that slot, so no sum waits for the one before it
// (P > MUL_LAT + ADD_LAT + 1 makes the read-after-write distance safe for one slot).
//
// tree_start combines every slot's first tree_count partials (1..P) by the declared
// pairwise tree, in place: level by level, pairs (0, 1), (2, 3), ... with an odd last
// passed up unchanged, every slot's pairs of a level one per cycle (they are
// independent), each level after the writes of the one before. out_valid pulses when the
// trees are done; then `result` is slot rd_slot's (its partial 0) until the bank's next
// product. tree_busy is high from tree_start until then.
//
// BANKS = 1: one set of partials, the tree on the products' adder; tree_start waits for
// the products in flight to land. BANKS = 2: two sets (`bank`, `tree_bank`, `rd_bank`
// pick one) and a second adder for the trees, so that one block's trees and results run
// while the next block's products go into the other bank. The caller presents no product
// for tree_bank from tree_start until its results are read; the tree starts when the
// products before tree_start have landed (MUL_LAT + ADD_LAT + 2 cycles).
module fk_mac_pe #(
    parameter bit FLOAT   = 1'b1,
    parameter int SLOTS   = 1,  // a power of two
    parameter int P       = 64,
    parameter int MUL_LAT = 6,  // the op table's latencies (fpgakern.ir.ops)
    parameter int ADD_LAT = 6,
    parameter int BANKS   = 1   // 1 or 2
) (
    input  logic                       clk,
    input  logic                       rst_n,  // synchronous, active low

    input  logic                       in_valid,
    input  logic [31:0]                a,
    input  logic [31:0]                b,
    input  logic [SLOT_W-1:0]          slot,
    input  logic [Q_W-1:0]             q,
    input  logic                       first,
    input  logic                       bank,       // the product's set of partials

    input  logic                       tree_start,
    input  logic                       tree_bank,
    input  logic [Q_W:0]               tree_count,
    output logic                       tree_busy,
    output logic                       out_valid,
    input  logic [SLOT_W-1:0]          rd_slot,
    input  logic                       rd_bank,
    output logic [31:0]                result
);
    localparam int SLOT_W = SLOTS > 1 ? $clog2(SLOTS) : 1;
    localparam int Q_W    = $clog2(P);
    localparam int ADDR_W = $clog2(SLOTS * P);
    // A write is the adder's: its address, whether it bypasses the sum (a partial's first
    // product, or the tree's odd last passed up) and the bypassed value.
    localparam int WRITE_W = 1 + ADDR_W + 1 + 32;
    localparam int SETTLE = ADD_LAT + 1;  // cycles for a level's writes to land
    localparam int LANDED = MUL_LAT + ADD_LAT + 2;  // a product presented now has landed

    logic [31:0] part [BANKS][SLOTS * P];
    logic        p_bank, t_bank;          // the bank of the product landing, of the tree

    // A partial's address: its slot's P partials, then the partial.
    // (Verilog-2001 style, a slice and no return: what Yosys reads. With one slot the
    // slot's bit is dropped.)
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic logic [ADDR_W-1:0] at(input logic [SLOT_W-1:0] s,
                                             input logic [Q_W-1:0] k);
        logic [SLOT_W+Q_W-1:0] full;
        full = {s, k};
        at = full[ADDR_W-1:0];
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // The adder's operands and result, and the write its tag carries.
    logic [31:0] add_x, add_y, sum;
    logic        write_valid, write_bypass, write_tree;
    logic [31:0] write_value;
    logic [ADDR_W-1:0] write_addr;

    // ------------------------------------------------------------------ multiply
    logic [31:0] product;
    logic        prod_valid, prod_first;
    logic [ADDR_W-1:0] prod_addr;
    if (FLOAT) begin : g_fmul
        fk_fp32_mul u_mul (.clk, .ce(1'b1), .a, .b, .y(product));
    end else begin : g_imul
        fk_int32_mul u_mul (.clk, .ce(1'b1), .a, .b, .y(product));
    end
    fk_delay #(.WIDTH(3 + ADDR_W), .DEPTH(MUL_LAT)) u_mul_tag (
        .clk, .ce(1'b1), .d({in_valid, first, BANKS > 1 && bank, at(slot, q)}),
        .q({prod_valid, prod_first, p_bank, prod_addr})
    );

    // ------------------------------------------------------------------ tree control
    typedef enum logic [1:0] {T_IDLE, T_DRAIN, T_PAIRS, T_SETTLE} tree_state_t;
    tree_state_t tstate;
    logic [SLOT_W-1:0] t_slot;        // the slot of the next pair
    logic [Q_W:0]      width, pair;   // this level's partials, and the next pair to issue
    logic [7:0]        settle;        // cycles left for this level's writes to land
    logic [7:0]        in_flight;     // products not yet written
    logic              tree_issue, tree_copy;
    logic [ADDR_W-1:0] rd0, rd1, wr_addr;
    logic [Q_W-1:0]    last_index;    // w - 1 (w >= 2 when it is read)
    logic [Q_W:0]      half, issues;

    // A pair (2t, 2t+1) into t, or (the level's odd last) a copy of w-1 into w/2.
    assign last_index = width[Q_W-1:0] - 1'b1;  // modulo 2^Q_W: P - 1 when w = P
    assign half       = width >> 1;
    assign issues     = (width + 1'b1) >> 1;  // the level's pairs and its odd last
    assign tree_issue = tstate == T_PAIRS;
    assign tree_copy  = tree_issue && pair == half;
    assign rd0 = at(t_slot, tree_copy ? last_index : {pair[Q_W-2:0], 1'b0});
    assign rd1 = at(t_slot, {pair[Q_W-2:0], 1'b1});
    assign wr_addr = at(t_slot, pair[Q_W-1:0]);
    assign tree_busy  = tstate != T_IDLE;
    assign result     = part[BANKS > 1 && rd_bank][at(rd_slot, '0)];

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            in_flight <= '0;
        end else begin
            in_flight <= in_flight + {7'd0, in_valid} - {7'd0, write_valid && !write_tree};
        end
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            tstate    <= T_IDLE;
            t_slot    <= '0;
            width     <= '0;
            pair      <= '0;
            settle    <= '0;
            t_bank    <= 1'b0;
            out_valid <= 1'b0;
        end else begin
            out_valid <= 1'b0;
            case (tstate)
                T_IDLE: if (tree_start) begin
                    width  <= tree_count;
                    t_bank <= BANKS > 1 && tree_bank;
                    settle <= LANDED[7:0];
                    tstate <= T_DRAIN;
                end
                T_DRAIN: begin
                    if (BANKS > 1 ? settle == 0 : in_flight == 0 && !in_valid) begin
                        pair   <= '0;
                        t_slot <= '0;
                        settle <= SETTLE[7:0];
                        tstate <= width > 1 ? T_PAIRS : T_SETTLE;
                    end else if (settle != 0) begin
                        settle <= settle - 1'b1;
                    end
                end
                T_PAIRS: begin
                    // Pair t of every slot, then t + 1; the level's odd last (pair ==
                    // width / 2) after its pairs.
                    if (32'(t_slot) + 1 < SLOTS) begin
                        t_slot <= t_slot + 1'b1;
                    end else if (pair + 1'b1 < issues) begin
                        t_slot <= '0;
                        pair   <= pair + 1'b1;
                    end else begin
                        settle <= SETTLE[7:0];
                        width  <= issues;
                        tstate <= T_SETTLE;
                    end
                end
                T_SETTLE: begin
                    if (settle != 0) begin
                        settle <= settle - 1'b1;
                    end else if (width > 1) begin
                        pair   <= '0;
                        t_slot <= '0;
                        tstate <= T_PAIRS;
                    end else begin
                        out_valid <= 1'b1;
                        tstate    <= T_IDLE;
                    end
                end
                default: tstate <= T_IDLE;
            endcase
        end
    end

    // ------------------------------------------------------------------ add and write
    // One bank: the adder takes a partial and a product (compute) or two partials (the
    // tree), never both: the tree starts when no product is in flight. Two banks: the
    // tree has an adder of its own, on the other bank.
    logic [31:0] tree_x, tree_y;
    assign tree_x = part[t_bank][rd0];
    assign tree_y = part[t_bank][rd1];
    if (BANKS == 1) begin : g_shared_adder
        assign add_x = tree_issue ? tree_x : part[0][prod_addr];
        assign add_y = tree_issue ? tree_y : product;
        fk_delay #(.WIDTH(WRITE_W + 1), .DEPTH(ADD_LAT)) u_add_tag (
            .clk, .ce(1'b1),
            .d(tree_issue ? {1'b1, wr_addr, tree_copy, tree_x, 1'b1}
                          : {prod_valid, prod_addr, prod_first, product, 1'b0}),
            .q({write_valid, write_addr, write_bypass, write_value, write_tree})
        );
        always_ff @(posedge clk) begin
            if (write_valid) part[0][write_addr] <= write_bypass ? write_value : sum;
        end
        logic unused_bank;  // always 0 with one bank
        assign unused_bank = &{1'b0, p_bank};
    end else begin : g_tree_adder
        logic [31:0] tree_sum, tree_value;
        logic        tree_valid, tree_bypass, tree_to_bank, write_bank;
        logic [ADDR_W-1:0] tree_addr;
        assign add_x = part[p_bank][prod_addr];
        assign add_y = product;
        fk_delay #(.WIDTH(WRITE_W + 2), .DEPTH(ADD_LAT)) u_add_tag (
            .clk, .ce(1'b1),
            .d({prod_valid, prod_addr, prod_first, product, 1'b0, p_bank}),
            .q({write_valid, write_addr, write_bypass, write_value, write_tree, write_bank})
        );
        if (FLOAT) begin : g_ftree
            fk_fp32_add u_tree_add (.clk, .ce(1'b1), .a(tree_x), .b(tree_y), .y(tree_sum));
        end else begin : g_itree
            fk_int32_add u_tree_add (.clk, .ce(1'b1), .a(tree_x), .b(tree_y), .y(tree_sum));
        end
        fk_delay #(.WIDTH(WRITE_W + 1), .DEPTH(ADD_LAT)) u_tree_tag (
            .clk, .ce(1'b1), .d({tree_issue, wr_addr, tree_copy, tree_x, t_bank}),
            .q({tree_valid, tree_addr, tree_bypass, tree_value, tree_to_bank})
        );
        // A bank is written by one adder at a time: the caller's order (above).
        always_ff @(posedge clk) begin
            for (int k = 0; k < BANKS; k++) begin
                if (write_valid && 32'(write_bank) == k)
                    part[k][write_addr] <= write_bypass ? write_value : sum;
                else if (tree_valid && 32'(tree_to_bank) == k)
                    part[k][tree_addr] <= tree_bypass ? tree_value : tree_sum;
            end
        end
    end
    if (FLOAT) begin : g_fadd
        fk_fp32_add u_add (.clk, .ce(1'b1), .a(add_x), .b(add_y), .y(sum));
    end else begin : g_iadd
        fk_int32_add u_add (.clk, .ce(1'b1), .a(add_x), .b(add_y), .y(sum));
    end
endmodule
