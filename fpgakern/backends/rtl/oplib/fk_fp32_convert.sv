// Conversions between float32 and int32.
//
// fk_int32_to_fp32: round to nearest even (|x| > 2^24 may round); 0 gives +0. Latency 4.
// fk_fp32_to_int32: truncate toward zero. NaN, +-inf and values outside the int32 range
//   give INT32_MIN (0x80000000), the "integer indefinite" of x86 cvttss2si, which is what
//   numpy and torch's CPU kernels produce. Subnormals and |x| < 1 give 0. Latency 2.
// Both II = 1.
//
// One file holds the family, so later modules differ from the file name by design:
/* verilator lint_off DECLFILENAME */
module fk_int32_to_fp32 (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    // 1: magnitude (|INT32_MIN| = 2^31 fits the unsigned 32 bits)
    logic [31:0] s1_mag;
    logic        s1_sign;
    always_ff @(posedge clk) begin
        if (ce) begin
            s1_mag  <= a[31] ? 32'd0 - a : a;
            s1_sign <= a[31];
        end
    end

    // 2: leading-zero count
    logic [5:0]  lz;
    logic [31:0] s2_mag;
    logic [5:0]  s2_lz;
    logic        s2_sign;
    fk_lzc #(.W(32)) u_lzc (.x(s1_mag), .count(lz));
    always_ff @(posedge clk) begin
        if (ce) begin
            s2_mag  <= s1_mag;
            s2_lz   <= lz;
            s2_sign <= s1_sign;
        end
    end

    // 3: normalize so the leading one is bit 31; exponent field 127 + 31 - lz
    logic [30:0] s3_norm;  // below the leading one
    logic [8:0]  s3_exp;
    logic        s3_sign;
    always_ff @(posedge clk) begin
        if (ce) begin
            s3_norm <= 31'(s2_mag << s2_lz[4:0]);
            s3_exp  <= (s2_lz[5]) ? 9'd0 : 9'd158 - {4'd0, s2_lz[4:0]};  // lz = 32: zero
            s3_sign <= s2_sign;
        end
    end

    // 4: round to 24 significant bits and pack
    logic [31:0] rounded;
    fk_fp32_round #(.EW(9)) u_round (
        .sign(s3_sign), .exp(s3_exp), .frac(s3_norm[30:8]),
        .guard(s3_norm[7]), .sticky(|s3_norm[6:0]), .y(rounded)
    );
    always_ff @(posedge clk) if (ce) y <= rounded;
endmodule

module fk_fp32_to_int32 (
    input  logic        clk,
    input  logic        ce,
    input  logic [31:0] a,
    output logic [31:0] y
);
    // 1: the truncated magnitude. value = {1, frac} * 2^(e - 150); for e in 127..157 that
    // is {1, frac, 7'b0} >> (157 - e): one right shifter by 0..30 serves both the
    // integer-scaling and the fraction-dropping cases.
    logic [7:0]  e;
    logic [4:0]  amount;  // 157 - e, only meaningful (0..30) when 127 <= e <= 157
    logic [30:0] mag;
    always_comb begin
        e      = a[30:23];
        amount = 5'd29 - e[4:0];  // 157 - e mod 32 (157 = 4*32 + 29)
        if (e < 8'd127) mag = 31'd0;  // |a| < 1, subnormals included
        else            mag = {1'b1, a[22:0], 7'd0} >> amount;
    end

    logic [30:0] s1_mag;
    logic        s1_sign, s1_bad;
    always_ff @(posedge clk) begin
        if (ce) begin
            s1_mag  <= mag;
            s1_sign <= a[31];
            // |a| >= 2^31, inf and NaN. (-2^31 itself lands here too, and INT32_MIN is
            // also its exact value.)
            s1_bad  <= e >= 8'd158;
        end
    end

    // 2: apply the sign, or the out-of-range value
    always_ff @(posedge clk) begin
        if (ce) y <= s1_bad ? 32'h8000_0000 : (s1_sign ? 32'd0 - {1'b0, s1_mag} : {1'b0, s1_mag});
    end
endmodule
/* verilator lint_on DECLFILENAME */
