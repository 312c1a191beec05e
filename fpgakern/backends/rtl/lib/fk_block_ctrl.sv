// fk_block_ctrl: the kernel's block-level state machine (ap_ctrl_chain, one run at a time).
//
//   IDLE --ap_start--> RUN --work_done--> DONE --ap_continue--> IDLE
//
// In IDLE, ap_idle is high until ap_start. Seeing ap_start, the block pulses ap_ready and run_start in
// the same cycle: the top latches its arguments and starts its engines on that edge, so the
// host may write the next run's arguments as soon as ap_ready is seen. work_done is sampled
// from the cycle after run_start, when every engine has registered the start. The block
// then waits in DONE for ap_continue, as an HLS ap_ctrl_chain block holds its output;
// done_event pulses once, on entry to DONE: it is the ap_done the control slave sees
// (sticky CTRL.ap_done, ISR), so one run raises one interrupt even while DONE waits.
module fk_block_ctrl (
    input  logic clk,
    input  logic rst_n,
    input  logic ap_start,
    input  logic ap_continue,
    output logic ap_ready,
    output logic ap_idle,
    output logic run_start,   // latch arguments and start the engines
    input  logic work_done,   // every engine is idle and the result is in memory
    output logic done_event
);
    typedef enum logic [1:0] {S_IDLE, S_RUN, S_DONE} state_t;
    state_t state;

    // As HLS's: not idle once started, so a kernel that restarts at once (auto_restart)
    // is not idle between its runs, and the control slave sees one ap_done at its end.
    assign ap_idle   = state == S_IDLE && !ap_start;
    assign ap_ready  = state == S_IDLE && ap_start;
    assign run_start = ap_ready;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            state      <= S_IDLE;
            done_event <= 1'b0;
        end else begin
            done_event <= 1'b0;
            case (state)
                S_IDLE: if (ap_start) state <= S_RUN;
                S_RUN: if (work_done) begin
                    state      <= S_DONE;
                    done_event <= 1'b1;
                end
                S_DONE: if (ap_continue) state <= S_IDLE;
                default: state <= S_IDLE;
            endcase
        end
    end
endmodule
