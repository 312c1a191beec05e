// fk_fp32_fma: float32 fused multiply-add, y = a*b + c with ONE rounding (IEEE-754
// fusedMultiplyAdd): round to nearest even, subnormal inputs and outputs handled exactly
// (no flush to zero), NaN results are the canonical quiet NaN 0x7FC00000. This is what
// torch.add(c, b, alpha=a) computes on the CPU (the vectorized loop uses FMA).
//
// Latency 8, II = 1:
//   1 unpack, special values; normalize subnormal a and b (leading-zero count, shift)
//   2 24x24 significand product (DSP multiply, MREG); exponent difference d of the two
//     terms, which term is shifted and by how much
//   3 product register (DSP PREG); align c when it is the smaller term
//   4 align the product when it is the smaller term
//   5 add, or subtract in both orders and keep the non-negative difference
//   6 leading-zero count, choose the normalizing shift
//   7 shift left to normalize (limited so the exponent stays >= 1: subnormal results)
//   8 round, pack, special values
//
// The frame. Both terms sit in one 51-bit word: bit 50 takes the carry of an addition,
// bit 49 is the top of a term, bit 0 is a sticky bit only. The product's 48 bits occupy
// [49:2] and c's 24 bits [49:26] when unshifted. The term whose top is higher (bit 47 of
// the product against c's hidden bit: d >= 0 means the product) stays put, the other
// moves right by |d| and whatever leaves bit 1 is ORed into bit 0. That is exact where it
// has to be: a shifted term loses bits only when |d| >= 26 (c) or >= 2 (the product), and
// then the result's leading one is at bit >= 47 (c below 2^24 against a product of at
// least 2^48) or >= 48 (a normal c of at least 2^49 against a product below 2^48), or its
// last place is the subnormal one, at bit 26 (c subnormal or zero on top). So wherever
// bits are lost the rounding position is at bit >= 24: the bits and rounding boundaries
// there are multiples of 2, while the lost bits only move the value inside an open
// interval of width 2 whose midpoint the sticky bit marks, and round to nearest even sees
// the same guard and sticky as for the exact sum. Normalizing a and b first keeps the
// product's leading one at bit 47 or 46, which that argument needs; a zero product always
// counts as the smaller term, so c is never lost to it. A subtraction may go negative
// (d = 0, or a subnormal c on top), so both differences are formed and the non-negative
// one kept: no comparison of the terms up front, and 51 bits (not the 74 of a fixed
// three-term window) carry the whole datapath.
module fk_fp32_fma (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    input  logic [31:0] c,
    output logic [31:0] y
);
    localparam logic [31:0] QNAN = 32'h7FC0_0000;

    // ------------------------------------------------------------ 1: unpack, normalize
    logic       a_nan, b_nan, c_nan, a_inf, b_inf, c_inf, a_zero, b_zero, sp;
    logic [4:0] lz_a, lz_b;

    // Leading zeros of the significands (0 for normal numbers, 24 for zero).
    fk_lzc #(.W(24)) u_lz_a (.x({|a[30:23], a[22:0]}), .count(lz_a));
    fk_lzc #(.W(24)) u_lz_b (.x({|b[30:23], b[22:0]}), .count(lz_b));

    always_comb begin
        a_nan  = (&a[30:23]) & (|a[22:0]);
        b_nan  = (&b[30:23]) & (|b[22:0]);
        c_nan  = (&c[30:23]) & (|c[22:0]);
        a_inf  = (&a[30:23]) & ~(|a[22:0]);
        b_inf  = (&b[30:23]) & ~(|b[22:0]);
        c_inf  = (&c[30:23]) & ~(|c[22:0]);
        a_zero = a[30:0] == 31'd0;
        b_zero = b[30:0] == 31'd0;
        sp     = a[31] ^ b[31];  // the product's sign, zero products included
    end

    logic [23:0] s1_ma, s1_mb, s1_mc;
    logic [8:0]  s1_exp_ab;   // ea + eb, subnormal fields taken as 1 (2..508)
    logic [5:0]  s1_lz_ab;    // lz_a + lz_b: how far the normalization moved them
    logic [7:0]  s1_exp_c;    // ec, subnormal (and zero) taken as 1
    logic        s1_sp, s1_sc, s1_p_zero, s1_zero_sign, s1_nan, s1_inf, s1_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s1_ma        <= {|a[30:23], a[22:0]} << lz_a;
            s1_mb        <= {|b[30:23], b[22:0]} << lz_b;
            s1_mc        <= {|c[30:23], c[22:0]};  // c stays as it is: it is only shifted
            s1_exp_ab    <= {1'b0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]}
                          + {1'b0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]};
            s1_lz_ab     <= {1'b0, lz_a} + {1'b0, lz_b};
            s1_exp_c     <= (c[30:23] == 8'd0) ? 8'd1 : c[30:23];
            s1_sp        <= sp;
            s1_sc        <= c[31];
            s1_p_zero    <= a_zero | b_zero;
            // An exact zero result is -0 only for (-0) + (-0) (round to nearest): both
            // terms zero and negative. Cancelling nonzero terms have opposite signs.
            s1_zero_sign <= sp & c[31];
            s1_nan       <= a_nan | b_nan | c_nan | (a_inf & b_zero) | (b_inf & a_zero)
                          | ((a_inf | b_inf) & c_inf & (sp ^ c[31]));
            s1_inf       <= a_inf | b_inf | c_inf;
            s1_inf_sign  <= (a_inf | b_inf) ? sp : c[31];
        end
    end

    // ------------------------------------------------------------ 2: multiply, plan
    // Unbiased exponents: the product's bit 47 weighs 2^(ea' + eb' - 253) and c's hidden
    // bit 2^(ec - 127), where ea' = ea - lz_a after normalization. d is their difference.
    logic signed [10:0] exp_p, d;    // exp_p = ea' + eb' in -44..508; d in -424..381
    logic               p_big;       // the product's top is not below c's: c moves
    logic [10:0]        span;        // |d|

    always_comb begin
        exp_p = $signed({2'b0, s1_exp_ab}) - $signed({5'b0, s1_lz_ab});
        d     = exp_p - $signed({3'b0, s1_exp_c}) - 11'sd126;
        p_big = ~d[10] & ~s1_p_zero;
        span  = p_big ? d : -d;
    end

    logic [47:0] s2_prod;
    logic [23:0] s2_mc;
    logic [5:0]  s2_shift;    // right shift of the smaller term; >= 50 loses it all
    logic [9:0]  s2_exp_top;  // biased exponent field of frame bit 50 (2..383)
    logic        s2_p_big, s2_sub, s2_sp, s2_sc, s2_zero_sign;
    logic        s2_nan, s2_inf, s2_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s2_prod      <= s1_ma * s1_mb;
            s2_mc        <= s1_mc;
            s2_shift     <= (span > 11'd63) ? 6'd63 : span[5:0];
            // Frame bit 49 weighs 2^(top exponent); bit 50 is one higher: +127 + 1.
            // p_big implies exp_p - 253 >= ec - 127 >= -126, so the field is >= 2.
            s2_exp_top   <= p_big ? 10'(exp_p - 11'sd125) : {2'b0, s1_exp_c} + 10'd1;
            s2_p_big     <= p_big;
            s2_sub       <= s1_sp ^ s1_sc;
            s2_sp        <= s1_sp;
            s2_sc        <= s1_sc;
            s2_zero_sign <= s1_zero_sign;
            s2_nan       <= s1_nan;
            s2_inf       <= s1_inf;
            s2_inf_sign  <= s1_inf_sign;
        end
    end

    // ------------------------------------------------------------ 3: align c
    // A frame word is {data[49:0], sticky}: data holds the term at its place.
    logic [49:0] c_data, c_kept;
    logic        c_lost;

    always_comb begin
        c_data = {1'b0, s2_mc, 25'd0};
        c_kept = c_data >> s2_shift;
        c_lost = |(c_data & ~({50{1'b1}} << s2_shift));  // the bits shifted out
    end

    logic [47:0] s3_prod;
    logic [50:0] s3_c;
    logic [5:0]  s3_shift;
    logic [9:0]  s3_exp_top;
    logic        s3_p_big, s3_sub, s3_sp, s3_sc, s3_zero_sign;
    logic        s3_nan, s3_inf, s3_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s3_prod      <= s2_prod;
            s3_c         <= s2_p_big ? {c_kept, c_lost} : {c_data, 1'b0};
            s3_shift     <= s2_shift;
            s3_exp_top   <= s2_exp_top;
            s3_p_big     <= s2_p_big;
            s3_sub       <= s2_sub;
            s3_sp        <= s2_sp;
            s3_sc        <= s2_sc;
            s3_zero_sign <= s2_zero_sign;
            s3_nan       <= s2_nan;
            s3_inf       <= s2_inf;
            s3_inf_sign  <= s2_inf_sign;
        end
    end

    // ------------------------------------------------------------ 4: align the product
    logic [49:0] p_data, p_kept;
    logic        p_lost;

    always_comb begin
        p_data = {1'b0, s3_prod, 1'b0};
        p_kept = p_data >> s3_shift;
        p_lost = |(p_data & ~({50{1'b1}} << s3_shift));
    end

    logic [50:0] s4_p, s4_c;
    logic [9:0]  s4_exp_top;
    logic        s4_sub, s4_sp, s4_sc, s4_zero_sign, s4_nan, s4_inf, s4_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s4_p         <= s3_p_big ? {p_data, 1'b0} : {p_kept, p_lost};
            s4_c         <= s3_c;
            s4_exp_top   <= s3_exp_top;
            s4_sub       <= s3_sub;
            s4_sp        <= s3_sp;
            s4_sc        <= s3_sc;
            s4_zero_sign <= s3_zero_sign;
            s4_nan       <= s3_nan;
            s4_inf       <= s3_inf;
            s4_inf_sign  <= s3_inf_sign;
        end
    end

    // ------------------------------------------------------------ 5: add / subtract
    // Both words are below 2^50 (bit 50 clear), so the sum fits 51 bits and the sign of a
    // difference is its bit 51.
    logic [51:0] p_minus_c;
    logic [50:0] c_minus_p;  // used only when c > p, so no borrow to keep
    logic        c_wins;

    always_comb begin
        p_minus_c = {1'b0, s4_p} - {1'b0, s4_c};
        c_minus_p = s4_c - s4_p;
        c_wins    = s4_sub & p_minus_c[51];
    end

    logic [50:0] s5_sum;
    logic [9:0]  s5_exp_top;
    logic        s5_sign, s5_zero_sign, s5_nan, s5_inf, s5_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s5_sum       <= !s4_sub ? s4_p + s4_c : c_wins ? c_minus_p : p_minus_c[50:0];
            s5_sign      <= c_wins ? s4_sc : s4_sp;
            s5_exp_top   <= s4_exp_top;
            s5_zero_sign <= s4_zero_sign;
            s5_nan       <= s4_nan;
            s5_inf       <= s4_inf;
            s5_inf_sign  <= s4_inf_sign;
        end
    end

    // ------------------------------------------------------------ 6: choose the shift
    // With the leading one at bit 50 - lz the exponent field is exp_top - lz, as long as
    // that stays >= 1; otherwise the result is subnormal and the shift stops at
    // exp_top - 1 (field 1 with hidden bit 0, which packs as field 0). exp_top >= 2, so
    // no result needs a right shift.
    logic [5:0] lz;
    logic [5:0] amount;

    fk_lzc #(.W(51)) u_lzc (.x(s5_sum), .count(lz));

    always_comb begin
        amount = ({4'd0, lz} < s5_exp_top) ? lz : 6'(s5_exp_top - 10'd1);
    end

    logic [50:0] s6_sum;
    logic [5:0]  s6_amount;
    logic [9:0]  s6_exp;
    logic        s6_sign, s6_nan, s6_inf, s6_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s6_sum      <= s5_sum;
            s6_amount   <= amount;
            // Field after a full normalization; stage 7 keeps it only with a hidden bit.
            s6_exp      <= s5_exp_top - {4'd0, lz};
            s6_sign     <= (s5_sum == 51'd0) ? s5_zero_sign : s5_sign;
            s6_nan      <= s5_nan;
            s6_inf      <= s5_inf;
            s6_inf_sign <= s5_inf_sign;
        end
    end

    // ------------------------------------------------------------ 7: normalize
    logic [50:0] norm;

    always_comb norm = s6_sum << s6_amount;  // amount <= lz: nothing leaves the top

    logic [22:0] s7_frac;
    logic        s7_guard, s7_sticky;
    logic [9:0]  s7_exp;
    logic        s7_sign, s7_nan, s7_inf, s7_inf_sign;

    always_ff @(posedge clk) begin
        if (ce) begin
            s7_frac     <= norm[49:27];
            s7_guard    <= norm[26];
            s7_sticky   <= |norm[25:0];
            s7_exp      <= norm[50] ? s6_exp : 10'd0;
            s7_sign     <= s6_sign;
            s7_nan      <= s6_nan;
            s7_inf      <= s6_inf;
            s7_inf_sign <= s6_inf_sign;
        end
    end

    // ------------------------------------------------------------ 8: round, pack
    logic [31:0] rounded;
    fk_fp32_round #(.EW(10)) u_round (
        .sign(s7_sign), .exp(s7_exp), .frac(s7_frac),
        .guard(s7_guard), .sticky(s7_sticky), .y(rounded)
    );

    always_ff @(posedge clk) begin
        if (ce) y <= s7_nan ? QNAN : s7_inf ? {s7_inf_sign, 8'hFF, 23'd0} : rounded;
    end
endmodule
