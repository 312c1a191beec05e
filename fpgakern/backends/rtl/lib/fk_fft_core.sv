// fk_fft_core: the streaming radix-2 DIF FFT engine behind fk_fft_sdf (LANES = 1) and
// fk_fft_lanes (LANES = 8), with their ports (fk_fft_ports.sv: the list and its
// contract). Bit-exact with fpgakern.ir.fft.complex_transform: the same butterflies in
// the same float32 operations on the same operands, then the reorder, then x * scale per
// component.
//
// Structure (a "slot" is one advance of the front's clock enable, one beat of LANES
// samples):
//
//   in -> x0 -> [lane-local R2SDF stages, HD = 2^(MAX_LOG2-LG-1) .. 1] -> [LG spatial
//   stages across the lanes] -> reorder writer -> double-buffered reorder RAM -> reader
//   -> x * scale -> output FIFO -> out
//
// * Bypass. The transform of n = 2^log2n uses the last log2n stages (half-spans n/2 .. 1);
//   the sample enters the first of them directly (a 2:1 mux in front of every stage), so
//   a short transform does not pay the long stages' delay.
// * Positions. Every stage's decisions (pair, sum or difference, twiddle) are functions
//   of the slot position of its input, p0 - 18 * (stages before it): the delays HD of
//   the earlier stages add up to NB - 2 * HD, a multiple of the block length 2 * HD, so
//   they drop out (NB = n / LANES slots per frame). The front counts positions; nothing
//   data-dependent is tracked per sample.
// * Front clock enable (ce_f). The stages only work on whole frames of consecutive
//   slots, so the front advances one slot per accepted sample, stalls mid-frame when the
//   input has no sample, and drains by *bubble frames*: when a frame boundary is reached
//   with no sample offered, frames are still in the pipeline and flush is high, whole
//   frames of bubbles (zeros) are pushed through. A per-frame flag (real or bubble,
//   FLAGS entries) goes with each frame to the writer; bubble frames write nothing. The
//   front also stops when the writer's next word would go into a reorder bank still being
//   read (back-pressure from the output). This clock enable fans out to every register of
//   the stages (the price of a stream that must move in whole frames; the output side
//   instead uses credits, like the generated kernels).
// * Reorder. After the stages, position p holds bin bitrev(p). The writer writes bin
//   idx = bitrev(p) of every lane; the reader reads beats of bins 8j'..8j'+7 (LANES = 8)
//   or bin j' (LANES = 1) in natural order. Two frames of storage (banks), so a frame is
//   written while the previous one is read: back-to-back transforms at full rate.
//   For LANES = 8 the frame is spread over 8 RAM banks, bank(idx) = idx[L-1:L-3] ^
//   idx[2:0] (L = log2n; idx[2:0] for L = 3), address idx >> 3: a beat written (one
//   lane per bin k' + M*q, q = 0..7: the top three bits run over all values) and a beat
//   read (bins 8j'..8j'+7: the low three bits run over all values) each touch the 8 banks
//   once, for every L >= 3 (L = 4, 5 too, where the two bit fields overlap).
// * Output. The reader issues a beat only with a credit (a free place in the output
//   FIFO: OUT_DEPTH, regained when out pops), so the RAM, the scale multipliers and the
//   FIFO never stall: out_ready low just stops issue, then fills the banks, then the
//   front.
// * Configuration. log2n, inverse and scale are taken with the first sample accepted
//   while idle is high and held until idle again.
module fk_fft_core #(
    parameter int MAX_LOG2  = 16,  // longest transform 2^MAX_LOG2 (<= 16)
    parameter int LANES     = 1,   // samples per beat: 1 or 8
    parameter int OUT_DEPTH = 16,  // output FIFO (beats), a power of two >= 16
    parameter int FLAGS     = 64   // > frames in flight in the front, at most
                                   // (NB - 1 + 18 log2n) / NB + 2: 56 for LANES = 8, n = 8
) (
    `define FK_FFT_PORTS
    `include "fk_fft_ports.sv"
);
    localparam int W   = 64 * LANES;
    localparam int LG  = $clog2(LANES);
    localparam int NS  = MAX_LOG2 - LG;     // lane-local stages
    localparam int PW  = NS + 1;            // slot position bits
    localparam int AW  = NS + 1;            // reorder RAM address bits: bank, beat
    localparam int FW  = $clog2(FLAGS);
    localparam int CW  = $clog2(OUT_DEPTH) + 1;
    localparam int LAT = 18;                // stage latency beyond its delay HD
    localparam int RD_LAT = 7;              // reorder RAM read 1 + fk_fp32_mul 6

    // ------------------------------------------------------------------ configuration
    logic [4:0]  cfg_l2, eff_l2;
    logic        cfg_inv;
    logic [31:0] cfg_scale;
    logic [PW-1:0] nb_mask;  // NB - 1
    logic [4:0]  first;      // first active lane-local stage (NS: none)
    logic        latch;      // the configuration is taken (registers below and per stage)
    assign eff_l2  = idle ? log2n : cfg_l2;

    // ------------------------------------------------------------------ front
    logic [PW-1:0] pn;            // position of the next slot
    logic [PW-1:0] p0;            // position of x0
    logic          fr_real;       // the frame being entered is real (not bubbles)
    logic [FW:0]   front_frames;  // real frames entered and not yet fully written
    logic [W-1:0]  x0;
    logic          boundary, front_empty, take, restart, bubble, ce_f, can_write;

    assign p0          = pn - 1'b1;
    assign boundary    = (pn & nb_mask) == '0;
    assign front_empty = front_frames == '0;
    assign in_ready    = can_write && (front_empty || boundary || fr_real);
    assign take        = in_valid && in_ready;
    assign restart     = take && front_empty;
    assign bubble      = can_write && !take && !front_empty && (boundary ? flush : !fr_real);
    assign ce_f        = take || bubble;
    assign latch       = idle && take;

    // ------------------------------------------------------------------ writer state
    logic [FLAGS-1:0] flags;      // per frame: real
    logic [FW-1:0]    fi, fo;
    logic [17:0]      wcount;     // slots until the first frame reaches the writer
    logic [PW-1:0]    wpos;
    logic             wreal, wlive, cur_wreal, wr_en, w_last, frame_done;
    logic [1:0]       bank_full;
    logic             wb, rb;
    logic [17:0]      c_total;    // pipeline depth in slots for eff_l2

    assign c_total   = 18'((1 << (eff_l2 - 5'(LG))) - 1) + 18'(LAT) * 18'(eff_l2);
    assign wlive     = wcount == '0;
    assign cur_wreal = (wpos & nb_mask) == '0 ? flags[fo] : wreal;
    assign can_write = !(wlive && cur_wreal && bank_full[wb]);
    assign wr_en     = ce_f && !restart && wlive && cur_wreal;
    assign w_last    = (wpos & nb_mask) == nb_mask;
    assign frame_done = wr_en && w_last;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            pn           <= '0;
            fr_real      <= 1'b0;
            front_frames <= '0;
            fi           <= '0;
            fo           <= '0;
            wcount       <= '1;
            wpos         <= '0;
            wreal        <= 1'b0;
            cfg_l2       <= 5'(MAX_LOG2);
            cfg_inv      <= 1'b0;
            cfg_scale    <= 32'h3F80_0000;
            nb_mask      <= PW'((1 << NS) - 1);
            first        <= '0;
        end else begin
            if (latch) begin
                cfg_l2    <= log2n;
                cfg_inv   <= inverse;
                cfg_scale <= scale;
                nb_mask   <= PW'((1 << (log2n - 5'(LG))) - 1);
                first     <= 5'(MAX_LOG2) - log2n;
            end
            if (restart) begin
                pn           <= PW'(1);
                fr_real      <= 1'b1;
                front_frames <= (FW + 1)'(1);
                fi           <= FW'(1);
                fo           <= '0;
                wcount       <= c_total;
                wpos         <= '0;
            end else begin
                if (ce_f) begin
                    pn <= pn + 1'b1;
                    if (boundary) begin
                        fr_real <= take;
                        fi      <= fi + 1'b1;
                    end
                    if (!wlive) wcount <= wcount - 1'b1;
                    else begin
                        wpos <= (wpos + 1'b1) & nb_mask;
                        if ((wpos & nb_mask) == '0) begin
                            wreal <= flags[fo];
                            fo    <= fo + 1'b1;
                        end
                    end
                end
                front_frames <= front_frames + (FW + 1)'(ce_f && boundary && take)
                                             - (FW + 1)'(frame_done);
            end
        end
    end

    always_ff @(posedge clk) begin
        if (restart) flags[0] <= 1'b1;
        else if (ce_f && boundary) flags[fi] <= take;
        if (ce_f) x0 <= take ? in_data : '0;
    end

    // ------------------------------------------------------------------ stages
    logic [W-1:0] st_in [NS];
    logic [W-1:0] st_out [NS];
    logic [W-1:0] last;

    for (genvar k = 0; k < NS; k++) begin : g_stage
        localparam int HD = 1 << (NS - 1 - k);
        logic [PW-1:0] pos, offset;
        // Active from stage `first` on; 18 slots per active stage before this one (a
        // register, so that no multiply sits on the path to the stage's control).
        always_ff @(posedge clk) begin
            if (!rst_n) offset <= '0;
            else if (latch) offset <= PW'(LAT * (k + int'(log2n) - MAX_LOG2));
        end
        assign pos = p0 - offset;
        if (k == 0) begin : g_in0
            assign st_in[k] = x0;
        end else begin : g_in
            assign st_in[k] = (5'(k) <= first) ? x0 : st_out[k-1];
        end
        for (genvar l = 0; l < LANES; l++) begin : g_lane
            fk_fft_stage #(.HD(HD), .LANES(LANES), .LANE(l), .PW(PW)) u_stage (
                .clk(clk), .ce(ce_f), .inverse(cfg_inv), .pos(pos),
                .x(st_in[k][64*l +: 64]), .y(st_out[k][64*l +: 64]));
        end
    end

    if (LG == 0) begin : g_no_spatial
        assign last = st_out[NS-1];
    end else begin : g_spatial
        logic [W-1:0] xs [LG+1];
        assign xs[0] = (first >= 5'(NS)) ? x0 : st_out[NS-1];
        for (genvar s = 0; s < LG; s++) begin : g_x
            fk_fft_xstage #(.LANES(LANES), .H(LANES >> (s + 1))) u_x (
                .clk(clk), .ce(ce_f), .inverse(cfg_inv), .x(xs[s]), .y(xs[s+1]));
        end
        assign last = xs[LG];
    end

    // ------------------------------------------------------------------ reorder
    // bitrev over cfg_l2 bits of an element position (MAX_LOG2 bits wide).
    function automatic logic [MAX_LOG2-1:0] bitrev(input logic [MAX_LOG2-1:0] p,
                                                   input logic [4:0] bits);
        logic [MAX_LOG2-1:0] r;
        integer b;
        for (b = 0; b < MAX_LOG2; b = b + 1) r[b] = p[MAX_LOG2-1-b];
        bitrev = r >> (5'(MAX_LOG2) - bits);  // not `return`: Yosys's frontend lacks it
    endfunction

    // Bank of bin idx (LANES = 8): see the header.
    function automatic logic [2:0] bank_of(input logic [MAX_LOG2-1:0] idx,
                                           input logic [4:0] bits);
        bank_of = (bits == 5'd3) ? idx[2:0] : 3'(idx >> (bits - 5'd3)) ^ idx[2:0];
    endfunction

    logic            issue, issue_last;
    logic [PW-1:0]   rj;
    logic [CW-1:0]   credits;
    logic [W-1:0]    rd_beat;
    logic            push;
    logic [W-1:0]    push_data;
    logic            pop;

    assign issue      = bank_full[rb] && credits != '0;
    assign issue_last = (rj & nb_mask) == nb_mask;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            bank_full <= '0;
            wb        <= 1'b0;
            rb        <= 1'b0;
            rj        <= '0;
            credits   <= CW'(OUT_DEPTH);
        end else begin
            if (frame_done) wb <= !wb;
            if (issue) begin
                rj <= issue_last ? '0 : rj + 1'b1;
                if (issue_last) rb <= !rb;
            end
            for (int b = 0; b < 2; b++) begin
                if (frame_done && wb == b[0]) bank_full[b] <= 1'b1;
                else if (issue && issue_last && rb == b[0]) bank_full[b] <= 1'b0;
            end
            credits <= credits - CW'(issue) + CW'(pop);
        end
    end

    if (LANES == 1) begin : g_ram1
        logic [AW-1:0] waddr;
        assign waddr = {wb, bitrev(MAX_LOG2'(wpos), cfg_l2)};
        fk_ram #(.WIDTH(64), .DEPTH(1 << AW)) u_ram (
            .clk(clk), .we(wr_en), .waddr(waddr), .wdata(last), .re(issue),
            .raddr({rb, rj[AW-2:0]}), .rdata(rd_beat));
    end else begin : g_ram8
        logic [2:0]          wbank [LANES];
        logic [AW-2:0]       waddr [LANES];
        logic [2:0]          rbank [LANES];
        logic [2:0]          rbank_q [LANES];
        logic [63:0]         rdata [LANES];
        for (genvar l = 0; l < LANES; l++) begin : g_map
            logic [MAX_LOG2-1:0] widx, ridx;
            assign widx     = bitrev(MAX_LOG2'({wpos, 3'(l)}), cfg_l2);
            assign wbank[l] = bank_of(widx, cfg_l2);
            assign waddr[l] = (AW - 1)'(widx >> 3);
            assign ridx     = MAX_LOG2'({rj, 3'(l)});
            assign rbank[l] = bank_of(ridx, cfg_l2);
            logic unused_idx;
            assign unused_idx = &{1'b0, widx[2:0]};
        end
        always_ff @(posedge clk) begin
            if (issue) rbank_q <= rbank;
        end
        for (genvar b = 0; b < LANES; b++) begin : g_bank
            logic [63:0]   wd;
            logic [AW-2:0] wa;
            always_comb begin
                wd = '0;
                wa = '0;
                for (int l = 0; l < LANES; l++) begin
                    if (wbank[l] == 3'(b)) begin
                        wd = last[64*l +: 64];
                        wa = waddr[l];
                    end
                end
            end
            fk_ram #(.WIDTH(64), .DEPTH(1 << AW)) u_ram (
                .clk(clk), .we(wr_en), .waddr({wb, wa}), .wdata(wd), .re(issue),
                .raddr({rb, rj[AW-2:0]}), .rdata(rdata[b]));
        end
        for (genvar l = 0; l < LANES; l++) begin : g_out
            assign rd_beat[64*l +: 64] = rdata[rbank_q[l]];
        end
    end

    // ------------------------------------------------------------------ scale, output
    for (genvar l = 0; l < LANES; l++) begin : g_scale
        fk_fft_scale u_scale (.clk(clk), .ce(1'b1), .x(rd_beat[64*l +: 64]),
                              .scale(cfg_scale), .y(push_data[64*l +: 64]));
    end
    fk_valid_delay #(.DEPTH(RD_LAT)) u_push (
        .clk(clk), .rst_n(rst_n), .ce(1'b1), .d(issue), .q(push));

    logic unused_fifo_ready;
    fk_fifo #(.WIDTH(W), .DEPTH(OUT_DEPTH)) u_out (
        .clk(clk), .rst_n(rst_n), .in_valid(push), .in_ready(unused_fifo_ready),
        .in_data(push_data), .out_valid(out_valid), .out_ready(out_ready),
        .out_data(out_data));
    assign pop  = out_valid && out_ready;
    assign idle = front_empty && bank_full == 2'b00 && credits == CW'(OUT_DEPTH);
endmodule
