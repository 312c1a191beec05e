// fk_fifo: first-word-fall-through FIFO with valid/ready on both sides.
//
// The storage is a DEPTH-entry RAM with a registered read port (so Yosys and Vivado map
// it to block or distributed RAM), followed by a two-entry output register. A RAM read is
// issued only when its word is sure to find room in the output register, so the FIFO moves
// one word per cycle with in_ready and out_valid both steady. Capacity is DEPTH words in
// the RAM plus up to three in the read path; producers that count credits use DEPTH.
// A word pushed while the RAM and its read path are empty and the output register has
// room bypasses the RAM: out_valid rises the next cycle. Otherwise it takes 3 cycles.
module fk_fifo #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 16  // a power of two, >= 2
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             in_valid,
    output logic             in_ready,
    input  logic [WIDTH-1:0] in_data,
    output logic             out_valid,
    input  logic             out_ready,
    output logic [WIDTH-1:0] out_data
);
    localparam int AW = $clog2(DEPTH);

    logic [WIDTH-1:0] ram [DEPTH];
    logic [AW:0]      wr_ptr, rd_ptr;
    logic             push, ram_push, bypass, ram_read, pop;
    logic             ram_empty;
    logic [WIDTH-1:0] ram_q;
    logic             ram_q_valid;  // ram_q holds the word read last cycle
    logic [WIDTH-1:0] out_reg [2];
    logic             out_head, out_tail;
    logic [1:0]       out_count;

    assign ram_empty = wr_ptr == rd_ptr;
    assign in_ready  = (wr_ptr - rd_ptr) != (AW + 1)'(DEPTH);
    assign push      = in_valid && in_ready;
    // Order is kept: the bypass is taken only when nothing older is in the RAM path.
    assign bypass    = push && ram_empty && !ram_q_valid
                    && ({1'b0, out_count} - {2'b0, pop}) <= 3'd1;
    assign ram_push  = push && !bypass;
    assign out_valid = out_count != 2'd0;
    assign out_data  = out_reg[out_head];
    assign pop       = out_valid && out_ready;
    // Room check one cycle ahead: the word read now lands in the output register next cycle.
    assign ram_read  = !ram_empty
                    && ({1'b0, out_count} + {2'b0, ram_q_valid} - {2'b0, pop}) <= 3'd1;

    always_ff @(posedge clk) begin
        if (ram_push) ram[wr_ptr[AW-1:0]] <= in_data;
        if (ram_read) ram_q <= ram[rd_ptr[AW-1:0]];
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            wr_ptr      <= '0;
            rd_ptr      <= '0;
            ram_q_valid <= 1'b0;
            out_head    <= 1'b0;
            out_tail    <= 1'b0;
            out_count   <= '0;
        end else begin
            if (ram_push) wr_ptr <= wr_ptr + 1'b1;
            if (ram_read) rd_ptr <= rd_ptr + 1'b1;
            ram_q_valid <= ram_read;
            if (ram_q_valid || bypass) out_tail <= !out_tail;
            if (pop) out_head <= !out_head;
            out_count <= out_count + {1'b0, ram_q_valid || bypass} - {1'b0, pop};
        end
    end

    always_ff @(posedge clk) begin
        if (ram_q_valid) out_reg[out_tail] <= ram_q;
        else if (bypass) out_reg[out_tail] <= in_data;
    end
endmodule
