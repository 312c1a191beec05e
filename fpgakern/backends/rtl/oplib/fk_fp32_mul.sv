// fk_fp32_mul: float32 multiply. IEEE-754 binary32, round to nearest even, subnormal
// inputs and outputs handled exactly (no flush to zero), NaN results are the canonical
// quiet NaN 0x7FC00000. Bit-exact with x86 SSE mulss (no FTZ/DAZ).
//
// Latency 6, II = 1:
//   1 unpack (significands with hidden bit, exponent sum, special values)
//   2 24x24 significand product        (DSP multiply, MREG)
//   3 product register                 (DSP PREG; the two-DSP cascade needs both)
//   4 leading-zero count of the product, choose the normalizing shift
//   5 shift: left to normalize, or right into the subnormal range
//   6 round, pack, special values
// The product is normalized after the multiply (not the inputs before it), so one 48-bit
// count-and-shift serves subnormal operands and subnormal results alike.
module fk_fp32_mul (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    input  logic [31:0] b,
    output logic [31:0] y
);
    localparam logic [31:0] QNAN = 32'h7FC0_0000;

    // ---------------------------------------------------------------- 1: unpack
    logic a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
    logic [9:0] exp_sum;

    always_comb begin
        a_nan  = (&a[30:23]) & (|a[22:0]);
        b_nan  = (&b[30:23]) & (|b[22:0]);
        a_inf  = (&a[30:23]) & ~(|a[22:0]);
        b_inf  = (&b[30:23]) & ~(|b[22:0]);
        a_zero = a[30:0] == 31'd0;
        b_zero = b[30:0] == 31'd0;
        // ea + eb with a subnormal's exponent taken as 1 (range 2..508, unsigned). The
        // product's exponent field, were its leading one at bit 47, is exp_sum - 126.
        exp_sum = {2'b0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]}
                + {2'b0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]};
    end

    logic [23:0] s1_ma, s1_mb;
    logic [9:0]  s1_exp_sum;
    logic        s1_sign, s1_nan, s1_inf, s1_zero;

    always_ff @(posedge clk) begin
        if (ce) begin
            s1_ma      <= {|a[30:23], a[22:0]};
            s1_mb      <= {|b[30:23], b[22:0]};
            s1_exp_sum <= exp_sum;
            s1_sign    <= a[31] ^ b[31];
            s1_nan     <= a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero);
            s1_inf     <= a_inf | b_inf;
            s1_zero    <= a_zero | b_zero;
        end
    end

    // ---------------------------------------------------------------- 2, 3: multiply
    logic [47:0] s2_prod, s3_prod;
    logic [9:0]  s2_exp_sum, s3_exp_sum;
    logic        s2_sign, s2_nan, s2_inf, s2_zero, s3_sign, s3_nan, s3_inf, s3_zero;

    always_ff @(posedge clk) begin
        if (ce) begin
            s2_prod    <= s1_ma * s1_mb;
            s2_exp_sum <= s1_exp_sum;
            s2_sign    <= s1_sign;
            s2_nan     <= s1_nan;
            s2_inf     <= s1_inf;
            s2_zero    <= s1_zero;
            s3_prod    <= s2_prod;
            s3_exp_sum <= s2_exp_sum;
            s3_sign    <= s2_sign;
            s3_nan     <= s2_nan;
            s3_inf     <= s2_inf;
            s3_zero    <= s2_zero;
        end
    end

    // ---------------------------------------------------------------- 4: choose the shift
    // With the leading one at bit 47 the exponent field is E = exp_sum - 126. Normalizing
    // shifts left by lz, giving E - lz, as long as that stays >= 1. Otherwise the result
    // is subnormal: shift left only E - 1 places (exponent field 1 with hidden bit 0, which
    // packs as field 0), or, when E < 1, shift right 1 - E places into the sticky bits.
    logic [5:0]  lz;
    logic [9:0]  e_top;      // E + 126 - lz, i.e. the normalized field + 126
    logic        go_right;
    logic [5:0]  amount;

    fk_lzc #(.W(48)) u_lzc (.x(s3_prod), .count(lz));

    always_comb begin
        e_top = s3_exp_sum - {4'd0, lz};
        if (s3_exp_sum <= 10'd126) begin           // E < 1: right shift by 1 - E = 127 - exp_sum
            go_right = 1'b1;
            // Shifts of 50 or more leave only sticky bits; 63 saturates that.
            amount   = (s3_exp_sum < 10'd64) ? 6'd63 : 6'(10'd127 - s3_exp_sum);
        end else if (e_top >= 10'd127) begin       // E - lz >= 1: full normalization
            go_right = 1'b0;
            amount   = lz;
        end else begin                             // stop at field 1: subnormal result
            go_right = 1'b0;
            amount   = 6'(s3_exp_sum - 10'd127);
        end
    end

    logic [47:0] s4_prod;
    logic [5:0]  s4_amount;
    logic        s4_right;
    logic [9:0]  s4_exp;
    logic        s4_sign, s4_nan, s4_inf, s4_zero;

    always_ff @(posedge clk) begin
        if (ce) begin
            s4_prod   <= s3_prod;
            s4_amount <= amount;
            s4_right  <= go_right;
            // Field after a full normalization; the hidden bit tells at stage 5 whether
            // the shift was full (use it) or limited/right (subnormal, field 0).
            s4_exp    <= e_top - 10'd126;
            s4_sign   <= s3_sign;
            s4_nan    <= s3_nan;
            s4_inf    <= s3_inf;
            s4_zero   <= s3_zero;
        end
    end

    // ---------------------------------------------------------------- 5: shift
    logic [111:0] shifted;

    always_comb begin
        shifted = s4_right ? ({s4_prod, 64'd0} >> s4_amount) : ({s4_prod, 64'd0} << s4_amount);
    end

    logic [22:0] s5_frac;
    logic        s5_guard, s5_sticky;
    logic [9:0]  s5_exp;
    logic        s5_sign, s5_nan, s5_inf, s5_zero;

    always_ff @(posedge clk) begin
        if (ce) begin
            s5_frac   <= shifted[110:88];
            s5_guard  <= shifted[87];
            s5_sticky <= |shifted[86:0];
            s5_exp    <= shifted[111] ? s4_exp : 10'd0;
            s5_sign   <= s4_sign;
            s5_nan    <= s4_nan;
            s5_inf    <= s4_inf;
            s5_zero   <= s4_zero;
        end
    end

    // ---------------------------------------------------------------- 6: round, pack
    logic [31:0] rounded;
    fk_fp32_round #(.EW(10)) u_round (
        .sign(s5_sign), .exp(s5_exp), .frac(s5_frac),
        .guard(s5_guard), .sticky(s5_sticky), .y(rounded)
    );

    always_ff @(posedge clk) begin
        if (ce) begin
            y <= s5_nan  ? QNAN
               : s5_inf  ? {s5_sign, 8'hFF, 23'd0}
               : s5_zero ? {s5_sign, 31'd0}
               : rounded;
        end
    end
endmodule
