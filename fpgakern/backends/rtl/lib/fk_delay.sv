// fk_delay: a DEPTH-stage shift register that advances with ce; DEPTH = 0 is a wire.
// The datapath scheduler instantiates one per operand whose producer is ready earlier than
// its consumer starts, with DEPTH computed from the op table's latencies.
module fk_delay #(
    parameter int WIDTH = 32,
    parameter int DEPTH = 1
) (
    input  logic             clk,
    input  logic             ce,
    input  logic [WIDTH-1:0] d,
    output logic [WIDTH-1:0] q
);
    if (DEPTH == 0) begin : g_wire
        assign q = d;
        logic unused_clock;
        assign unused_clock = &{1'b0, clk, ce};
    end else begin : g_shift
        logic [WIDTH-1:0] stage [DEPTH];
        always_ff @(posedge clk) begin
            if (ce) begin
                stage[0] <= d;
                for (int i = 1; i < DEPTH; i++) stage[i] <= stage[i-1];
            end
        end
        assign q = stage[DEPTH-1];
    end
endmodule
