// fk_fft_twiddle: (c, s) = (RN(cos(2*pi*k/65536)), RN(sin(2*pi*k/65536))) for k < 32768,
// read from the quarter-wave ROM exactly as fpgakern.ir.fft.twiddle_table rearranges it:
// k <= 16384: c = Q[k], s = Q[16384 - k]; beyond: c = -Q[32768 - k], s = Q[k - 16384]
// (negation flips the sign bit, as numpy's does). Latency 2, ce-gated: the index
// register, then the ROM's read register (the shape block RAM wants).
module fk_fft_twiddle (
    input  logic        clk,
    input  logic        ce,
    input  logic [14:0] k,
    output logic [31:0] c,
    output logic [31:0] s
);
    logic [14:0] k_r, ic, is;
    logic        first, neg;
    logic [31:0] qc;

    always_ff @(posedge clk) begin
        if (ce) begin
            k_r <= k;
            neg <= !first;
        end
    end

    always_comb begin
        first = k_r <= 15'd16384;
        ic    = first ? k_r : 15'(16'd32768 - {1'b0, k_r});
        is    = first ? 15'd16384 - k_r : k_r - 15'd16384;
    end

    fk_fft_twiddle_rom u_rom (.clk(clk), .ce(ce), .ia(ic), .ib(is), .qa(qc), .qb(s));
    assign c = {qc[31] ^ neg, qc[30:0]};
endmodule
