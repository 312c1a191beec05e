// fk_fft_sdf: streaming FFT, one complex float32 sample per cycle, transforms back to
// back; bit-exact with fpgakern.ir.fft.complex_transform(x, inverse, scale).
//
// Radix-2 decimation in frequency as single-path delay-feedback (R2SDF) stages, one per
// half-span 2^(MAX_LOG2-1) .. 1 (fk_fft_stage), a double-buffered bit-reverse reorder RAM
// and the final x * scale; the engine is fk_fft_core (LANES = 1), whose header explains
// the control.
//
// Ports: fk_fft_ports.sv (configuration, flush, handshakes, idle) with LANES = 1: 64-bit
// in_data / out_data, one sample (re in [31:0], im in [63:32]) a beat.
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
    parameter  int MAX_LOG2  = 16,
    parameter  int OUT_DEPTH = 16,
    localparam int LANES     = 1
) (
    `define FK_FFT_PORTS
    `include "fk_fft_ports.sv"
);
    fk_fft_core #(.MAX_LOG2(MAX_LOG2), .LANES(LANES), .OUT_DEPTH(OUT_DEPTH)) u_core (.*);
endmodule
