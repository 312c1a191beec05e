// fk_fp32_round: IEEE-754 round-to-nearest-even and packing of a float32 result,
// combinational (shared operator helper).
//
// The caller supplies the result already aligned to the float32 format: the biased
// exponent field `exp` (0 when the value is subnormal or zero, the caller having shifted
// the significand right accordingly), the 23 fraction bits, the guard bit (first bit
// below the fraction) and the sticky bit (OR of every bit below the guard).
// Rounding adds one to the packed {exponent, fraction}: a carry out of the fraction
// moves into the exponent, which is exactly right for subnormal -> smallest normal,
// for 1.111.. -> 10.000.., and for the largest finite -> infinity (exponent 255, fraction 0).
module fk_fp32_round #(
    parameter int EW = 10  // width of exp; values >= 255 mean overflow to infinity
) (
    input  logic          sign,
    input  logic [EW-1:0] exp,
    input  logic [22:0]   frac,
    input  logic          guard,
    input  logic          sticky,
    output logic [31:0]   y
);
    logic        round_up;
    logic [30:0] magnitude;

    always_comb begin
        round_up  = guard & (sticky | frac[0]);  // ties go to the even fraction
        magnitude = {exp[7:0], frac} + 31'(round_up);
        y = (exp >= EW'(255)) ? {sign, 8'hFF, 23'd0} : {sign, magnitude};
    end
endmodule
