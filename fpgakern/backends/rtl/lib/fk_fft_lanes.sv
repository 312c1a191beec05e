// fk_fft_lanes: streaming FFT, eight complex float32 samples per cycle (a 512-bit beat
// holds x[8j .. 8j+7], sample 8j + l in bits [64l +: 64]), transforms back to back;
// bit-exact with fpgakern.ir.fft.complex_transform(x, inverse, scale), so with
// fk_fft_sdf too.
//
// The same DIF: a stage of half-span h >= 8 pairs elements of the same lane (lane l holds
// x[8j + l]), so each lane runs an R2SDF stage with delay h/8 and its own twiddles
// W_{2h}^{(8j+l) mod h} (fk_fft_stage with LANES = 8, LANE = l); the last three stages
// (h = 4, 2, 1) are butterflies across the lanes of a beat with constant twiddles
// (fk_fft_xstage). The reorder spreads each frame over 8 RAM banks so that a beat of
// bit-reversed bins is written, and a beat of natural-order bins read, in one cycle
// (fk_fft_core's header: bank = idx[L-1:L-3] ^ idx[2:0]), for every n from 8 up.
//
// Ports: fk_fft_ports.sv (configuration, flush, handshakes, idle), as fk_fft_sdf's, with
// LANES = 8: 512-bit in_data / out_data beats of 8 samples; a transform of n samples is
// n/8 beats.
// Rate: one beat (8 samples) per cycle in and out.
// Latency (first beat in to first beat out, no stalls): 2 * n/8 + 18 * log2n + 8 cycles
// (as fk_fft_sdf with n/8 beats per frame; measured: 64 at n = 8, 444 at n = 1024, 16680
// at n = 65536).
// Resources: 8x the lane-local stages of fk_fft_sdf at h/8 words each, 3 x 4 spatial
// butterflies with twiddle products, 8 reorder banks of 2 * 2^MAX_LOG2 / 8 words, 16
// multipliers for scale.
module fk_fft_lanes #(
    parameter  int MAX_LOG2  = 16,  // 4 .. 16
    parameter  int OUT_DEPTH = 16,
    localparam int LANES     = 8
) (
    `define FK_FFT_PORTS
    `include "fk_fft_ports.sv"
);
    fk_fft_core #(.MAX_LOG2(MAX_LOG2), .LANES(LANES), .OUT_DEPTH(OUT_DEPTH)) u_core (.*);
endmodule
