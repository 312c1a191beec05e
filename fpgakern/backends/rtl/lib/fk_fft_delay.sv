// fk_fft_delay: a ce-gated delay line of DEPTH slots for the FFT cores' stage memories,
// q(t) = d(t - DEPTH) counted in ce-cycles. Short lines are shift registers (fk_delay);
// from RAM_MIN on it is a circular buffer in fk_ram (block RAM or UltraRAM: an R2SDF
// stage of half-span 32768 needs 32768 x 64 bits). The buffer has DEPTH entries and its
// registered read port is the last delay stage: each ce writes d at wr and reads the entry
// after it, the oldest, so a read never hits the word written in the same cycle (no
// read-during-write collision mode is needed from the RAM).
module fk_fft_delay #(
    parameter int WIDTH   = 64,
    parameter int DEPTH   = 1,
    parameter int RAM_MIN = 32
) (
    input  logic             clk,
    input  logic             ce,
    input  logic [WIDTH-1:0] d,
    output logic [WIDTH-1:0] q
);
    if (DEPTH < RAM_MIN) begin : g_shift
        fk_delay #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_shift (.clk(clk), .ce(ce), .d(d), .q(q));
    end else begin : g_ram
        localparam int AW = $clog2(DEPTH);
        localparam logic [AW-1:0] LAST = AW'(DEPTH - 1);
        logic [AW-1:0] wr, rd;
        // No reset: the contents are don't-care until the line has filled, and the pointer
        // only has to stay in 0..DEPTH-1 (initialised for simulation; any start works in
        // hardware once it has wrapped, as it is compared for equality with LAST).
        initial wr = '0;
        assign rd = (wr == LAST) ? '0 : wr + 1'b1;
        always_ff @(posedge clk) begin
            if (ce) wr <= rd;
        end
        fk_ram #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_ram (
            .clk(clk), .we(ce), .waddr(wr), .wdata(d), .re(ce), .raddr(rd), .rdata(q));
    end
endmodule
