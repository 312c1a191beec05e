// fk_lzc: leading-zero count of a W-bit vector, combinational (shared operator helper).
//
// count = number of zeros above the most significant one; W when x is all zeros.
// Binary search over halves (log2 levels of shrinking zero-detect + mux) instead of a
// priority chain, so the depth grows with log2(W) and Yosys maps it to few LUT levels.
module fk_lzc #(
    parameter int W = 32,
    localparam int CW = $clog2(W + 1),  // width of count (holds W itself)
    localparam int L = $clog2(W),       // levels of the search
    localparam int P = 1 << L           // W padded to a power of two
) (
    input  logic [W-1:0]  x,
    output logic [CW-1:0] count
);
    logic [P-1:0] window;
    logic [L-1:0] found;

    always_comb begin
        // Pad below the LSB with ones: they never win over a real one, and for an all-zero
        // x they stop the search at W (the all-zero case is still set explicitly below).
        window = P'({x, {(P - W + 1){1'b1}}} >> 1);
        for (int k = L - 1; k >= 0; k--) begin
            // Are the top 2**k bits of the remaining window all zero?
            found[k] = (window >> (P - (1 << k))) == '0;
            if (found[k]) window = window << (1 << k);
        end
        count = (x == '0) ? CW'(W) : CW'(found);
    end
endmodule
