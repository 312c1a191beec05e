// fk_lzc: leading-zero count of a W-bit vector, combinational (shared operator helper).
//
// count = number of zeros above the most significant one; W when x is all zeros.
// Binary search over halves (log2 levels of shrinking zero-detect + mux) instead of a
// priority chain, so the depth grows with log2(W) and Yosys maps it to few LUT levels.
// Each level's window is its own signal rather than one variable reassigned in a loop:
// the hardware is the same, but Verilator then evaluates every level once instead of
// substituting the earlier levels into each later one (a tree that doubles per level).
module fk_lzc #(
    parameter int W = 32,
    localparam int CW = $clog2(W + 1),  // width of count (holds W itself)
    localparam int L = $clog2(W),       // levels of the search
    localparam int P = 1 << L           // W padded to a power of two
) (
    input  logic [W-1:0]  x,
    output logic [CW-1:0] count
);
    // window[L] is x, padded below the LSB with ones: they never win over a real one, and
    // for an all-zero x they stop the search at W (that case is also set explicitly below).
    // Level k looks at the top 2**k bits of window[k+1] and shifts them out if all zero.
    logic [P-1:0] window[L+1];
    logic [L-1:0] found;

    assign window[L] = P'({x, {(P - W + 1){1'b1}}} >> 1);

    for (genvar k = L - 1; k >= 0; k--) begin : g_level
        assign found[k] = window[k+1][P-1 -: (1 << k)] == '0;
        assign window[k] = found[k] ? window[k+1] << (1 << k) : window[k+1];
    end

    assign count = (x == '0) ? CW'(W) : CW'(found);
endmodule
