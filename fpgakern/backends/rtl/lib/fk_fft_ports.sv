// fk_fft_ports: the port list of the streaming FFT cores fk_fft_sdf (LANES = 1) and
// fk_fft_lanes (LANES = 8), and of their engine fk_fft_core, written once. Each of them
// includes it between the parentheses of its port list, with FK_FFT_PORTS defined (the
// file undefines it again) and a parameter LANES in scope:
//     ) (
//         `define FK_FFT_PORTS
//         `include "fk_fft_ports.sv"
//     );
// Without FK_FFT_PORTS the file is empty, so it is listed and copied with the other
// sources (sources.fft_files, a variant's rtl/, a model's sources, the .xo) and compiled
// as one of them; the includes find it beside the including file (Verilator's
// --relative-includes, verilator.FLAGS).
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
//   in_valid, in_ready, in_data [64*LANES-1:0]
//                    beats of LANES samples (sample LANES*j + l in bits [64l +: 64]: re in
//                    the low 32 bits, im in the high 32) of x[0..n-1], each transform in
//                    natural order, transforms back to back: n / LANES beats each.
//                    AXI-stream handshake; in_ready does not depend on in_valid.
//   out_valid, out_ready, out_data [64*LANES-1:0]
//                    X[0..n-1] * scale in natural order, same framing. out_valid does not
//                    depend on out_ready (it is a FIFO's output register).
//   idle             no transform in flight anywhere (inputs to outputs); goes high after
//                    the last output of a batch has been taken.
`ifdef FK_FFT_PORTS
    input  logic                clk,
    input  logic                rst_n,
    input  logic [4:0]          log2n,
    input  logic                inverse,
    input  logic [31:0]         scale,
    input  logic                flush,
    input  logic                in_valid,
    output logic                in_ready,
    input  logic [64*LANES-1:0] in_data,
    output logic                out_valid,
    input  logic                out_ready,
    output logic [64*LANES-1:0] out_data,
    output logic                idle
`undef FK_FFT_PORTS
`endif
