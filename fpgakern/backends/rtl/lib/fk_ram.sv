// fk_ram: simple dual-port RAM, one write port and one registered read port, the shape
// Yosys and Vivado map to block RAM (rung-1 chunk buffers). DEPTH = 1 is a register.
module fk_ram #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 256,
    parameter int AW    = DEPTH > 1 ? $clog2(DEPTH) : 1
) (
    input  logic             clk,
    input  logic             we,
    input  logic [AW-1:0]    waddr,
    input  logic [WIDTH-1:0] wdata,
    input  logic             re,
    input  logic [AW-1:0]    raddr,
    output logic [WIDTH-1:0] rdata
);
    if (DEPTH == 1) begin : g_register
        logic [WIDTH-1:0] word;
        always_ff @(posedge clk) begin
            if (we) word <= wdata;
            if (re) rdata <= word;
        end
        logic unused_addr;
        assign unused_addr = &{1'b0, waddr, raddr};
    end else begin : g_array
        logic [WIDTH-1:0] mem [DEPTH];
        always_ff @(posedge clk) begin
            if (we) mem[waddr] <= wdata;
            if (re) rdata <= mem[raddr];
        end
    end
endmodule
