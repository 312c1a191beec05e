// fk_axil_ctrl: the s_axi_control slave of every fpgakern RTL kernel.
//
// AXI4-Lite slave holding the Vitis HLS register map (docs/rtl.md, "Control"):
//   0x00 CTRL  b0 ap_start (R/W, cleared by ap_ready unless auto_restart)
//              b1 ap_done  (R, sticky, cleared when CTRL is read)
//              b2 ap_idle  (R)
//              b3 ap_ready (R, sticky, cleared when CTRL is read)
//              b4 ap_continue (W 1: pulse to the block; reads back the pulse)
//              b7 auto_restart (R/W)
//              b9 interrupt (R, the interrupt line)
//   0x04 GIE   b0 global interrupt enable
//   0x08 IER   b0 done, b1 ready
//   0x0C ISR   b0 done, b1 ready; set by the event when enabled, toggled by writing 1
//   0x10+      ARG_WORDS argument words; words whose ARG_WRITABLE bit is 0 are the
//              reserved words HLS leaves after each argument: they ignore writes and read 0.
//              A word whose ARG_STATUS bit is 1 reads arg_status's word instead of what
//              was written (a register kernel's mailbox status and results, fk_mailbox).
// The block-level side speaks ap_ctrl_chain the way the HLS-generated slave does, so XRT
// drives it unchanged: ap_start is held until ap_ready; ap_continue is a one-cycle pulse
// on a write of CTRL.b4 and is held high while auto_restart is active.
//
// Writes accept AW and W independently (in either order) and answer with one B; reads
// answer one R per AR. Responses are always OKAY; addresses outside the map read as 0.
// For a register kernel's mailbox (fk_mailbox), the slave also tells which argument word
// the host wrote in this cycle (arg_written), when the host writes ap_start (host_start),
// shows CTRL.auto_restart, and restarts the kernel while counted_restart is high (the
// auto-restart counter has runs left), as it does while CTRL.auto_restart is set.
module fk_axil_ctrl #(
    parameter int                   ARG_WORDS    = 1,
    parameter logic [ARG_WORDS-1:0] ARG_WRITABLE = '1,
    parameter logic [ARG_WORDS-1:0] ARG_STATUS   = '0
) (
    input  logic                   clk,
    input  logic                   rst_n,  // synchronous, active low

    input  logic                   awvalid,
    output logic                   awready,
    input  logic [11:0]            awaddr,
    input  logic                   wvalid,
    output logic                   wready,
    input  logic [31:0]            wdata,
    input  logic [3:0]             wstrb,
    output logic                   bvalid,
    input  logic                   bready,
    output logic [1:0]             bresp,
    input  logic                   arvalid,
    output logic                   arready,
    input  logic [11:0]            araddr,
    output logic                   rvalid,
    input  logic                   rready,
    output logic [31:0]            rdata,
    output logic [1:0]             rresp,

    output logic                   irq,

    output logic                   ap_start,
    input  logic                   ap_ready,
    input  logic                   ap_done,
    input  logic                   ap_idle,
    output logic                   ap_continue,

    output logic [ARG_WORDS*32-1:0] args,
    input  logic [ARG_WORDS*32-1:0] arg_status,   // read in place of ARG_STATUS words
    output logic [ARG_WORDS-1:0]    arg_written,  // the host writes this word now
    output logic                   host_start,   // the host writes CTRL with ap_start
    output logic                   auto_restart,   // CTRL.auto_restart
    input  logic                   counted_restart // restart after this run (the counter)
);
    localparam logic [9:0] W_CTRL = 10'd0, W_GIE = 10'd1, W_IER = 10'd2, W_ISR = 10'd3;
    localparam int         W_ARG0 = 4;

    // ------------------------------------------------------------------ write channel
    logic        aw_have, w_have;
    logic [9:0]  aw_word;
    logic [31:0] w_data;
    logic [3:0]  w_strb;
    logic        wr_en;  // the register write happens in this cycle
    logic        rd_ctrl;  // CTRL is being read in this cycle (clear-on-read events)

    assign awready = !aw_have;
    assign wready  = !w_have;
    assign wr_en   = aw_have && w_have && !bvalid;
    assign bresp   = 2'b00;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            aw_have <= 1'b0;
            w_have  <= 1'b0;
            bvalid  <= 1'b0;
            aw_word <= '0;
            w_data  <= '0;
            w_strb  <= '0;
        end else begin
            if (awvalid && awready) begin
                aw_have <= 1'b1;
                aw_word <= awaddr[11:2];
            end
            if (wvalid && wready) begin
                w_have <= 1'b1;
                w_data <= wdata;
                w_strb <= wstrb;
            end
            if (wr_en) begin
                aw_have <= 1'b0;
                w_have  <= 1'b0;
                bvalid  <= 1'b1;
            end else if (bvalid && bready) begin
                bvalid <= 1'b0;
            end
        end
    end

    // ------------------------------------------------------------------ control state
    logic       int_ap_start, int_done, int_ready, int_idle, int_continue;
    logic       int_auto_restart, auto_restart_status, restarting;
    logic       int_gie;
    logic [1:0] int_ier, int_isr;
    logic       task_done, task_ready, auto_restart_done;
    logic       wr_ctrl;

    assign wr_ctrl = wr_en && aw_word == W_CTRL && w_strb[0];
    assign host_start = wr_ctrl && w_data[0];
    assign auto_restart = int_auto_restart;

    // As in the HLS slave: with auto_restart the host sees one ap_done when the kernel
    // goes idle after auto_restart is cleared, not one per iteration.
    // The kernel restarts after a run while CTRL.auto_restart is set or the auto-restart
    // counter has runs left (counted_restart).
    assign restarting        = int_auto_restart || counted_restart;
    assign auto_restart_done = auto_restart_status && ap_idle && !int_idle;
    assign task_done         = (ap_done && !auto_restart_status) || auto_restart_done;
    assign task_ready        = ap_ready && !restarting;
    assign ap_start          = int_ap_start;
    assign ap_continue       = int_continue || auto_restart_status;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            int_ap_start        <= 1'b0;
            int_done            <= 1'b0;
            int_ready           <= 1'b0;
            int_idle            <= 1'b0;
            int_continue        <= 1'b0;
            int_auto_restart    <= 1'b0;
            auto_restart_status <= 1'b0;
            int_gie             <= 1'b0;
            int_ier             <= '0;
            int_isr             <= '0;
            irq                 <= 1'b0;
        end else begin
            if (wr_ctrl && w_data[0]) int_ap_start <= 1'b1;
            else if (ap_ready)        int_ap_start <= restarting;

            if (task_done)    int_done <= 1'b1;
            else if (rd_ctrl) int_done <= 1'b0;

            if (task_ready)   int_ready <= 1'b1;
            else if (rd_ctrl) int_ready <= 1'b0;

            int_idle     <= ap_idle;
            int_continue <= wr_ctrl && w_data[4];

            if (wr_ctrl) int_auto_restart <= w_data[7];
            if (restarting)   auto_restart_status <= 1'b1;
            else if (ap_idle)     auto_restart_status <= 1'b0;

            if (wr_en && aw_word == W_GIE && w_strb[0]) int_gie <= w_data[0];
            if (wr_en && aw_word == W_IER && w_strb[0]) int_ier <= w_data[1:0];

            // ISR: the event sets its bit when enabled; a write toggles (1 clears a set bit).
            if (int_ier[0] && ap_done) int_isr[0] <= 1'b1;
            else if (wr_en && aw_word == W_ISR && w_strb[0]) int_isr[0] <= int_isr[0] ^ w_data[0];
            if (int_ier[1] && ap_ready) int_isr[1] <= 1'b1;
            else if (wr_en && aw_word == W_ISR && w_strb[0]) int_isr[1] <= int_isr[1] ^ w_data[1];

            irq <= int_gie && |(int_ier & int_isr);
        end
    end

    // ------------------------------------------------------------------ argument words
    for (genvar k = 0; k < ARG_WORDS; k++) begin : g_arg
        assign arg_written[k] = wr_en && aw_word == 10'(W_ARG0 + k);
        if (ARG_WRITABLE[k]) begin : g_rw
            logic [31:0] word;
            always_ff @(posedge clk) begin
                if (!rst_n) begin
                    word <= '0;
                end else if (wr_en && aw_word == 10'(W_ARG0 + k)) begin
                    for (int byte_i = 0; byte_i < 4; byte_i++)
                        if (w_strb[byte_i]) word[byte_i*8 +: 8] <= w_data[byte_i*8 +: 8];
                end
            end
            assign args[k*32 +: 32] = word;
        end else begin : g_reserved
            assign args[k*32 +: 32] = '0;
        end
    end

    // ------------------------------------------------------------------ read channel
    logic [9:0]  ar_word;
    logic [31:0] read_value;

    assign arready = !rvalid;
    assign rresp   = 2'b00;
    assign ar_word = araddr[11:2];
    assign rd_ctrl = arvalid && arready && ar_word == W_CTRL;

    // Registers are words: the byte offset within a word is ignored, as HLS does.
    // (Verilator's default unused-regexp accepts signals named *unused*.)
    logic unused_byte_offsets;
    assign unused_byte_offsets = &{1'b0, awaddr[1:0], araddr[1:0]};

    always_comb begin
        read_value = '0;
        case (ar_word)
            W_CTRL: begin
                read_value[0] = int_ap_start;
                read_value[1] = int_done;
                read_value[2] = int_idle;
                read_value[3] = int_ready;
                read_value[4] = int_continue;
                read_value[7] = int_auto_restart;
                read_value[9] = irq;
            end
            W_GIE:   read_value[0]   = int_gie;
            W_IER:   read_value[1:0] = int_ier;
            W_ISR:   read_value[1:0] = int_isr;
            default: begin
                for (int k = 0; k < ARG_WORDS; k++)
                    if (ar_word == 10'(W_ARG0 + k))
                        read_value = ARG_STATUS[k] ? arg_status[k*32 +: 32] : args[k*32 +: 32];
            end
        endcase
    end

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            rvalid <= 1'b0;
            rdata  <= '0;
        end else if (arvalid && arready) begin
            rvalid <= 1'b1;
            rdata  <= read_value;
        end else if (rvalid && rready) begin
            rvalid <= 1'b0;
        end
    end
endmodule
