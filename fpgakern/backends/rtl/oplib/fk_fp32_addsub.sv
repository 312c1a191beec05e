// float32 add and subtract: IEEE-754 binary32, round to nearest even, subnormal inputs and
// outputs handled exactly (no flush to zero), NaN results are the canonical quiet NaN
// 0x7FC00000. Bit-exact with x86 SSE addss/subss (MXCSR default: no FTZ/DAZ).
//
// Latency 6, II = 1:
//   1 unpack, order the operands by magnitude   4 leading-zero count of the sum
//   2 align the smaller significand             5 normalize (left or right shift)
//   3 add or subtract the significands          6 round, pack, special values
// Significands carry three extra bits (guard, round, sticky) through the alignment: with
// an exponent difference of at most 1 nothing is lost, and with a larger one the result
// moves at most one place left during normalization, so guard/round/sticky still decide
// the rounding exactly.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */
module fk_fp32_addsub #(
    parameter bit SUB = 1'b0  // 1: y = a - b (b's sign flipped on entry)
) (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    localparam logic [31:0] QNAN = 32'h7FC0_0000;

    // ---------------------------------------------------------------- 1: unpack, order
    logic        sa, sb, a_nan, b_nan, a_inf, b_inf, swap;
    logic [31:0] greater;
    logic [30:0] lesser;  // its sign only matters through s1_sub
    logic [7:0]  e_big, e_small, diff;

    always_comb begin
        sa    = a[31];
        sb    = b[31] ^ SUB;
        a_nan = (&a[30:23]) & (|a[22:0]);
        b_nan = (&b[30:23]) & (|b[22:0]);
        a_inf = (&a[30:23]) & ~(|a[22:0]);
        b_inf = (&b[30:23]) & ~(|b[22:0]);
        // Ordering the bit patterns of the magnitudes orders the values, subnormals included.
        swap  = b[30:0] > a[30:0];
        greater = swap ? {sb, b[30:0]} : {sa, a[30:0]};
        lesser  = swap ? a[30:0] : b[30:0];
        // A subnormal has exponent field 0 but scale 2^-126, the same as field 1.
        e_big   = (greater[30:23] == 8'd0) ? 8'd1 : greater[30:23];
        e_small = (lesser[30:23] == 8'd0) ? 8'd1 : lesser[30:23];
        diff    = e_big - e_small;
    end

    logic [23:0] s1_m_big, s1_m_small;
    logic [4:0]  s1_shift;
    logic [7:0]  s1_exp;
    logic        s1_sign, s1_sub, s1_nan, s1_inf, s1_inf_sign, s1_zero_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s1_m_big     <= {|greater[30:23], greater[22:0]};
            s1_m_small   <= {|lesser[30:23], lesser[22:0]};
            // Beyond 26 places the smaller operand is all sticky; 31 saturates that.
            s1_shift     <= (diff > 8'd31) ? 5'd31 : diff[4:0];
            s1_exp       <= e_big;
            s1_sign      <= greater[31];
            s1_sub       <= sa ^ sb;
            s1_nan       <= a_nan | b_nan | (a_inf & b_inf & (sa ^ sb));
            s1_inf       <= a_inf | b_inf;
            s1_inf_sign  <= a_inf ? sa : sb;
            // An exact zero sum is -0 only for (-0) + (-0) (round to nearest).
            s1_zero_sign <= sa & sb;
        end
    end

    // ---------------------------------------------------------------- 2: align
    logic [58:0] wide;
    logic [26:0] small_aligned;

    always_comb begin
        wide = {s1_m_small, 3'b000, 32'd0} >> s1_shift;
        small_aligned = {wide[58:33], wide[32] | (|wide[31:0])};
    end

    logic [26:0] s2_big, s2_small;
    logic [7:0]  s2_exp;
    logic        s2_sign, s2_sub, s2_nan, s2_inf, s2_inf_sign, s2_zero_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s2_big       <= {s1_m_big, 3'b000};
            s2_small     <= small_aligned;
            s2_exp       <= s1_exp;
            s2_sign      <= s1_sign;
            s2_sub       <= s1_sub;
            s2_nan       <= s1_nan;
            s2_inf       <= s1_inf;
            s2_inf_sign  <= s1_inf_sign;
            s2_zero_sign <= s1_zero_sign;
        end
    end

    // ---------------------------------------------------------------- 3: add / subtract
    // |greater| >= |lesser| after alignment, so the difference never goes negative.
    logic [27:0] s3_sum;
    logic [7:0]  s3_exp;
    logic        s3_sign, s3_nan, s3_inf, s3_inf_sign, s3_zero_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s3_sum       <= s2_sub ? {1'b0, s2_big} - {1'b0, s2_small}
                                   : {1'b0, s2_big} + {1'b0, s2_small};
            s3_exp       <= s2_exp;
            s3_sign      <= s2_sign;
            s3_nan       <= s2_nan;
            s3_inf       <= s2_inf;
            s3_inf_sign  <= s2_inf_sign;
            s3_zero_sign <= s2_zero_sign;
        end
    end

    // ---------------------------------------------------------------- 4: leading zeros
    logic [4:0] lz;
    fk_lzc #(.W(28)) u_lzc (.x(s3_sum), .count(lz));

    logic [27:0] s4_sum;
    logic [4:0]  s4_lz;
    logic [7:0]  s4_exp;
    logic        s4_sign, s4_nan, s4_inf, s4_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s4_sum      <= s3_sum;
            s4_lz       <= lz;
            s4_exp      <= s3_exp;
            s4_sign     <= (s3_sum == 28'd0) ? s3_zero_sign : s3_sign;
            s4_nan      <= s3_nan;
            s4_inf      <= s3_inf;
            s4_inf_sign <= s3_inf_sign;
        end
    end

    // ---------------------------------------------------------------- 5: normalize
    // Bit 26 of the sum is the hidden bit at exponent s4_exp; bit 27 is the carry.
    logic [26:0] norm;
    logic [8:0]  e_norm;
    logic [7:0]  want, limit, left;

    always_comb begin
        want  = {3'd0, s4_lz} - 8'd1;  // places to bring the leading one up to bit 26
        limit = s4_exp - 8'd1;         // places before the exponent would fall below 1
        left  = (want <= limit) ? want : limit;
        if (s4_lz == 5'd0) begin  // carry out: one place right, keep the lost bit sticky
            norm   = {s4_sum[27:2], s4_sum[1] | s4_sum[0]};
            e_norm = {1'b0, s4_exp} + 9'd1;
        end else begin
            norm   = s4_sum[26:0] << left;
            e_norm = {1'b0, s4_exp - left};
        end
    end

    logic [25:0] s5_norm;  // below the hidden bit, which went into s5_exp
    logic [8:0]  s5_exp;
    logic        s5_sign, s5_nan, s5_inf, s5_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s5_norm     <= norm[25:0];
            // No hidden bit after a limited shift: a subnormal (or zero), exponent field 0.
            s5_exp      <= norm[26] ? e_norm : 9'd0;
            s5_sign     <= s4_sign;
            s5_nan      <= s4_nan;
            s5_inf      <= s4_inf;
            s5_inf_sign <= s4_inf_sign;
        end
    end

    // ---------------------------------------------------------------- 6: round, pack
    logic [31:0] rounded;
    fk_fp32_round #(.EW(9)) u_round (
        .sign(s5_sign), .exp(s5_exp), .frac(s5_norm[25:3]),
        .guard(s5_norm[2]), .sticky(|s5_norm[1:0]), .y(rounded)
    );

    always_ff @(posedge clk) begin
        if (ce) y <= s5_nan ? QNAN : s5_inf ? {s5_inf_sign, 8'hFF, 23'd0} : rounded;
    end
endmodule

// y = a + b, latency 6.
module fk_fp32_add (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    fk_fp32_addsub #(.SUB(1'b0)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule

// y = a - b, latency 6.
module fk_fp32_sub (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    fk_fp32_addsub #(.SUB(1'b1)) u_core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
/* verilator lint_on DECLFILENAME */
