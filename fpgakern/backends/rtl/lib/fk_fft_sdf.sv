// fk_fft_sdf: streaming FFT, one complex float32 sample per cycle, transforms back to
// back; bit-exact with fpgakern.ir.fft.complex_transform(x, inverse, scale).
//
// Radix-2 decimation in frequency as single-path delay-feedback (R2SDF) stages, one per
// half-span 2^(MAX_LOG2-1) .. 1 (fk_fft_stage), a double-buffered bit-reverse reorder RAM
// and the final x * scale; the engine is fk_fft_core (LANES = 1), whose header explains
// the control.
//
// Ports
//   clk, rst_n       rst_n active low, synchronous.
//   log2n [4:0]      transform length n = 2^log2n, 3 <= log2n <= MAX_LOG2.
//   inverse          0: forward (twiddles conj(w)), 1: inverse (w, no 1/n).
//   scale [31:0]     float32 factor of every output component (torch's norm).
//                    log2n, inverse and scale are sampled with the first sample accepted
//                    while idle is high and used until idle rises again: change them only
//                    between batches (e.g. hold the kernel's arguments for a whole run).
//   flush            1: when the input has no sample at a frame boundary, push bubble
//                    frames to drain the transforms in flight (tie 1, or drive "the last
//                    row has been accepted" so that gaps between rows never cost bubble
//                    frames; with 0 the last frames stay in the pipeline until more input).
//   in_valid, in_ready, in_data [63:0]
//                    the samples x[0..n-1] of each transform in natural order, transforms
//                    back to back (re in [31:0], im in [63:32]). AXI-stream handshake;
//                    in_ready does not depend on in_valid.
//   out_valid, out_ready, out_data [63:0]
//                    X[0..n-1] * scale in natural order, same framing. out_valid does not
//                    depend on out_ready (it is a FIFO's output register).
//   idle             no transform in flight anywhere (inputs to outputs); goes high after
//                    the last output of a batch has been taken.
//
// Rate: one sample per cycle in and out while in_valid and out_ready hold; a new
// transform may start on the cycle after the previous one's last sample.
// Latency (first sample in to its transform's first sample out, no stalls):
//   2 * n + 18 * log2n + 8 cycles: n - 1 to take the frame, n - 1 + 18 per stage through
//   the stages, 1 into the reorder RAM, 7 to read it and multiply by scale, 1 through the
//   output FIFO (measured: 78 at n = 8, 2236 at n = 1024, 131368 at n = 65536).
// Resources: per stage of half-span h: 4 fp32 add/sub, 4 mul, 2 add, a delay memory of
// h words (h >= 8; 2h words in shift registers below), a twiddle ROM of h/2 + 1 words;
// reorder 2 * 2^MAX_LOG2 words of 64 bits; 2 multipliers for scale.
module fk_fft_sdf #(
    parameter int MAX_LOG2  = 16,
    parameter int OUT_DEPTH = 16
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic [4:0]  log2n,
    input  logic        inverse,
    input  logic [31:0] scale,
    input  logic        flush,
    input  logic        in_valid,
    output logic        in_ready,
    input  logic [63:0] in_data,
    output logic        out_valid,
    input  logic        out_ready,
    output logic [63:0] out_data,
    output logic        idle
);
    fk_fft_core #(.MAX_LOG2(MAX_LOG2), .LANES(1), .OUT_DEPTH(OUT_DEPTH)) u_core (
        .clk(clk), .rst_n(rst_n), .log2n(log2n), .inverse(inverse), .scale(scale),
        .flush(flush), .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data),
        .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data), .idle(idle));
endmodule
