// fpgakern RTL support library: the channel of every lane's element in a broadcast
// kernel's element stream (docs/rtl.md, "Broadcast kernels").
//
// Element e of a run belongs to channel (channel0 + e / inner) % channels; lane l of beat
// b carries element b * LANES + l. There is no divider per element: after `start`, a short
// sequential set-up (about 32 + 2 * LANES cycles, hidden behind the table load) reduces
// channel0 modulo channels (restoring division, one bit per cycle), splits
// LANES = q * inner + s, reduces q modulo channels, and walks the first LANES elements to
// give every lane its position within its channel's run of `inner` elements and its
// channel. Each `advance` then moves every lane LANES elements on: the position by s,
// carrying one channel when it passes inner, the channel by q + carry, wrapping at
// channels; each is one addition and one conditional subtraction.
//
// Needs inner >= 1 and 1 <= channels <= 2**CH_W; the top starts it only then.
module fk_channel_walk #(
    parameter int LANES = 1,
    parameter int CH_W  = 12  // bits of a channel index: tables hold 2**CH_W channels
) (
    input  logic                  clk,
    input  logic                  rst_n,
    input  logic                  start,
    input  logic [31:0]           inner,
    input  logic [CH_W:0]         channels,
    input  logic [31:0]           channel0,
    input  logic                  advance,   // every lane to its element LANES further on
    output logic                  ready,     // set-up done: `channel` is valid
    output logic [LANES*CH_W-1:0] channel    // lane l's channel at [l*CH_W +: CH_W]
);
    localparam int LANE_W = LANES > 1 ? $clog2(LANES) : 1;

    typedef enum logic [2:0] {S_IDLE, S_MOD, S_SPLIT, S_WRAP, S_LANES, S_READY} state_t;
    state_t state;

    logic [31:0]       inner_q, c0_bits, step_pos;  // step_pos: s, once S_SPLIT is done
    logic [CH_W:0]     chans;
    logic [CH_W:0]     rem;        // channel0 mod channels, being divided out (< channels)
    logic [5:0]        bit_count;
    logic [CH_W:0]     step_ch;    // q, then q mod channels
    logic [LANE_W-1:0] lane_idx;
    logic [31:0]       walk_pos;   // the walk over the first LANES elements
    logic [CH_W-1:0]   walk_ch;
    logic [31:0]       pos [LANES];
    logic [CH_W-1:0]   ch [LANES];

    logic [CH_W+1:0] rem_shift;
    assign rem_shift = {rem, c0_bits[31]};

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state <= S_IDLE;
        end else if (start) begin
            state     <= S_MOD;
            inner_q   <= inner;
            chans     <= channels;
            c0_bits   <= channel0;
            rem       <= '0;
            bit_count <= '0;
            step_pos  <= 32'(LANES);
            step_ch   <= '0;
        end else begin
            case (state)
                S_MOD: begin  // one bit of channel0 mod channels per cycle
                    rem       <= rem_shift >= (CH_W + 2)'(chans)
                               ? (CH_W + 1)'(rem_shift - (CH_W + 2)'(chans)) : (CH_W + 1)'(rem_shift);
                    c0_bits   <= c0_bits << 1;
                    bit_count <= bit_count + 1'b1;
                    if (bit_count == 6'd31) state <= S_SPLIT;
                end
                S_SPLIT: begin  // LANES = q * inner + s, by subtraction (q <= LANES)
                    if (step_pos >= inner_q) begin
                        step_pos <= step_pos - inner_q;
                        step_ch  <= step_ch + 1'b1;
                    end else state <= S_WRAP;
                end
                S_WRAP: begin  // q mod channels
                    if (step_ch >= chans) step_ch <= step_ch - chans;
                    else begin
                        state    <= S_LANES;
                        lane_idx <= '0;
                        walk_pos <= '0;
                        walk_ch  <= CH_W'(rem);
                    end
                end
                S_LANES: begin  // lane l starts at element l
                    pos[lane_idx] <= walk_pos;
                    ch[lane_idx]  <= walk_ch;
                    if (walk_pos + 1 == inner_q) begin
                        walk_pos <= '0;
                        walk_ch  <= (CH_W + 1)'(walk_ch) + 1'b1 == chans ? '0 : walk_ch + 1'b1;
                    end else walk_pos <= walk_pos + 1;
                    lane_idx <= lane_idx + 1'b1;
                    if (lane_idx == LANE_W'(LANES - 1)) state <= S_READY;
                end
                S_READY: if (advance) begin
                    for (int l = 0; l < LANES; l++) begin
                        logic [32:0]   sum;
                        logic          carry;
                        logic [CH_W:0] csum;
                        sum   = {1'b0, pos[l]} + {1'b0, step_pos};
                        carry = sum >= {1'b0, inner_q};
                        pos[l] <= carry ? 32'(sum - {1'b0, inner_q}) : sum[31:0];
                        csum  = {1'b0, ch[l]} + step_ch + (CH_W + 1)'(carry);
                        ch[l] <= csum >= chans ? CH_W'(csum - chans) : csum[CH_W-1:0];
                    end
                end
                default: ;
            endcase
        end
    end

    assign ready = state == S_READY;
    for (genvar l = 0; l < LANES; l++) begin : g_out
        assign channel[l*CH_W +: CH_W] = ch[l];
    end
endmodule
