// fk_valid_delay: the valid bit that travels with a DEPTH-stage pipeline; unlike data
// delay lines it is reset, so no phantom result leaves the pipeline after reset.
module fk_valid_delay #(
    parameter int DEPTH = 1
) (
    input  logic clk,
    input  logic rst_n,
    input  logic ce,
    input  logic d,
    output logic q
);
    if (DEPTH == 0) begin : g_wire
        assign q = d;
        logic unused_clock;
        assign unused_clock = &{1'b0, clk, rst_n, ce};
    end else begin : g_shift
        logic [DEPTH-1:0] stage;
        always_ff @(posedge clk) begin
            if (!rst_n) stage <= '0;
            else if (ce) begin
                stage[0] <= d;
                for (int i = 1; i < DEPTH; i++) stage[i] <= stage[i-1];
            end
        end
        assign q = stage[DEPTH-1];
    end
endmodule
