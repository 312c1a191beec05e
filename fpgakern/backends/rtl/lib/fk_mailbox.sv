// fk_mailbox: a register kernel's auto-restart counter and mailboxes (docs/rtl.md,
// "Register kernels"), beside fk_axil_ctrl, which holds the words the host writes (the
// software copy, args) and reads status words from here (status).
//
// Argument word k is at 0x10 + 4k: word 0 the auto-restart counter (0x10), word 1 the
// input mailbox (0x14), word 2 the output mailbox (0x18), then the kernel's scalars and
// results (INPUT_WORDS, RESULT_WORDS).
//   counter: the runs left (XRT's xrt::autostart{n} writes n, and 0xFFFFFFFF for
//            autostart{0}; run.stop() writes 0). A host write loads it; each run that
//            starts while it is not 0 takes one; the kernel restarts after a run while
//            runs are left (restart), as it does while CTRL.auto_restart is set.
//   input:   b0 reads back the host's bit; b1 (busy) is 1 from a host write with b0 set
//            (the scalars are written) until the next run start, which copies the scalars
//            into the kernel's input copy (inputs). A run the host starts (host_start)
//            takes them too, as any kernel's; an idle kernel takes them at once.
//   output:  b0 reads back the host's bit; b1 (busy) is 1 from a host write with b0 set
//            (the results are wanted) until the end of the first run that starts after
//            it, whose results are then copied into the words the host reads; an idle
//            kernel's are copied at once. The last run's results are copied too.
// A result word reads its copy; the reserved words stay 0 (fk_axil_ctrl).
module fk_mailbox #(
    parameter int                   ARG_WORDS    = 4,
    parameter logic [ARG_WORDS-1:0] INPUT_WORDS  = '0,
    parameter logic [ARG_WORDS-1:0] RESULT_WORDS = '0
) (
    input  logic                    clk,
    input  logic                    rst_n,  // synchronous, active low
    input  logic [ARG_WORDS*32-1:0] args,         // fk_axil_ctrl's argument words
    input  logic [ARG_WORDS-1:0]    arg_written,  // ... and which one the host writes now
    input  logic                    host_start,
    input  logic                    auto_restart,
    input  logic                    idle,         // ap_idle: no run, none starting
    input  logic                    run_start,    // a run starts (ap_ready)
    input  logic                    run_done,     // it has finished (done_event)
    input  logic [ARG_WORDS*32-1:0] results,      // the kernel's results, at run_done
    output logic [ARG_WORDS*32-1:0] inputs,       // the kernel's input copy
    output logic [ARG_WORDS*32-1:0] status,       // what the host reads of each word
    output logic                    restart       // runs are left after this one
);
    localparam int W_COUNTER = 0, W_IN = 1, W_OUT = 2;

    logic [31:0] counter;
    logic        in_busy, out_busy, out_armed, start_asked;
    logic [2:0]  wrote;  // the host wrote word W_COUNTER/W_IN/W_OUT last cycle
    logic        in_release, out_request;
    logic [ARG_WORDS*32-1:0] copy;  // the result words the host reads

    // The written value is in args the cycle after the write.
    assign in_release  = wrote[W_IN] && args[W_IN*32];
    assign out_request = wrote[W_OUT] && args[W_OUT*32];
    // The counter after a run start's take, so the run that takes the last is the last.
    assign restart = run_start ? counter > 32'd1 : counter != 32'd0;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            counter     <= '0;
            in_busy     <= 1'b0;
            out_busy    <= 1'b0;
            out_armed   <= 1'b0;
            start_asked <= 1'b0;
            wrote       <= '0;
            inputs      <= '0;
            copy        <= '0;
        end else begin
            wrote <= arg_written[2:0];
            if (host_start) start_asked <= 1'b1;

            if (wrote[W_COUNTER])             counter <= args[W_COUNTER*32 +: 32];
            else if (run_start && counter != 0) counter <= counter - 32'd1;

            if (run_start || (idle && in_release)) begin
                if (in_busy || in_release || start_asked) begin
                    for (int k = 0; k < ARG_WORDS; k++)
                        if (INPUT_WORDS[k]) inputs[k*32 +: 32] <= args[k*32 +: 32];
                end
                in_busy     <= 1'b0;
                start_asked <= start_asked && !run_start;
                if (run_start) out_armed <= out_busy || out_request;
            end else if (in_release) begin
                in_busy <= 1'b1;
            end

            if (out_request && !idle) out_busy <= 1'b1;
            if ((run_done && (out_armed || !(auto_restart || restart))) ||
                (idle && out_request)) begin
                for (int k = 0; k < ARG_WORDS; k++)
                    if (RESULT_WORDS[k]) copy[k*32 +: 32] <= results[k*32 +: 32];
                if (out_armed) begin
                    out_busy  <= 1'b0;
                    out_armed <= 1'b0;
                end
            end
        end
    end

    always_comb begin
        status = copy;
        status[W_COUNTER*32 +: 32] = counter;
        status[W_IN*32 +: 32]      = {30'd0, in_busy, args[W_IN*32]};
        status[W_OUT*32 +: 32]     = {30'd0, out_busy, args[W_OUT*32]};
    end

    // Only the input words of args are copied, only the result words of results, and
    // only the counter's and mailboxes' writes matter.
    logic unused_words;
    assign unused_words = &{1'b0, args, results, arg_written};
endmodule
