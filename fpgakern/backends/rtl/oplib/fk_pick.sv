// fk_pick: the combine of the index reductions (argmax, argmin). Operands are
// {value, index} pairs (value in bits 63:32, float32 or int32; index in 31:0, unsigned);
// y is the pair that wins: a NaN beats every number, then the larger (LARGER = 1, argmax)
// or the smaller (argmin) value, and among equal values (-0 == +0, NaN and NaN) the lower
// index. That orders all pairs totally, so the winner of a set of pairs does not depend on
// the order they are combined in (fk_reduce_core's lane tree and partials). The HLS C++
// spelling is fk::pick in fpgakern_ops.h. Latency 1, II = 1.
module fk_pick #(
    parameter bit FLOAT  = 1'b1,  // 1: float32 values, 0: int32 values
    parameter bit LARGER = 1'b1   // 1: argmax, 0: argmin
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [63:0] a,
    input  logic [63:0] b,
    output logic [63:0] y
);
    logic [31:0] va, vb, key_a, key_b;
    logic        nan_a, nan_b, beyond, equal, take_b;

    always_comb begin
        va = a[63:32];
        vb = b[63:32];
        nan_a = FLOAT && (&va[30:23]) && (|va[22:0]);
        nan_b = FLOAT && (&vb[30:23]) && (|vb[22:0]);
        // Unsigned keys in the values' order: floats by sign-magnitude with -0 made +0
        // (the two compare equal), ints with the sign bit flipped.
        if (FLOAT) begin
            key_a = va[30:0] == '0 ? 32'h8000_0000 : (va[31] ? ~va : {1'b1, va[30:0]});
            key_b = vb[30:0] == '0 ? 32'h8000_0000 : (vb[31] ? ~vb : {1'b1, vb[30:0]});
        end else begin
            key_a = {~va[31], va[30:0]};
            key_b = {~vb[31], vb[30:0]};
        end
        beyond = LARGER ? key_b > key_a : key_b < key_a;
        equal  = (nan_a && nan_b) || (!nan_a && !nan_b && key_a == key_b);
        take_b = (nan_b && !nan_a) || (!nan_a && !nan_b && beyond)
              || (equal && b[31:0] < a[31:0]);
    end

    always_ff @(posedge clk) begin
        if (ce) y <= take_b ? b : a;
    end
endmodule
