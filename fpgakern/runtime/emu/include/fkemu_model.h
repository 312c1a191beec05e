// fkemu_model.h: the C ABI of an fpgakern emulation model, one shared library per kernel.
//
// A model library holds one kernel (e.g. add_f32) as a compute-unit factory. Each CU is
// driven the way a host drives hardware: write argument registers and CTRL over the
// AXI-Lite control port, wait for the interrupt (or poll CTRL), read CTRL, continue.
// The CU reaches device memory only through the buffers mapped into it, at device
// addresses the caller chooses, so a kernel that strays outside its buffers is caught.
//
//   sw_emu: the compiled HLS C++ kernel behind a register file (it runs when ap_start is
//           written; no clock, cycles stay 0).
//   hw_emu: the Verilator model of the generated RTL kernel with an AXI4 memory model on
//           every m_axi port (read latency configurable, 64 cycles by default); every
//           register access and every wait advances its clock, which is counted.
//
// Both the C++ XRT emulation runtime (runtime/emu/src) and the Python runtime (ctypes)
// load these libraries; neither needs to know which kind it holds.
#ifndef FKEMU_MODEL_H
#define FKEMU_MODEL_H

#include <stdint.h>

#define FKEMU_ABI_VERSION 3

// Models are built with hidden visibility; only this ABI is exported.
#define FKEMU_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fkemu_cu fkemu_cu;

FKEMU_API int fkemu_abi_version(void);
FKEMU_API const char* fkemu_model_top(void);     // the kernel's top name, e.g. "add_f32"
FKEMU_API const char* fkemu_model_target(void);  // "sw_emu" or "hw_emu"

FKEMU_API fkemu_cu* fkemu_cu_new(void);  // a CU out of reset
FKEMU_API void fkemu_cu_free(fkemu_cu* cu);
// Memory timing of the CU's AXI ports (hw_emu; ignored by sw_emu).
FKEMU_API void fkemu_cu_configure(fkemu_cu* cu, unsigned read_latency, unsigned write_latency);

// Make host memory [host, host + bytes) visible to the CU at device address dev_addr.
FKEMU_API int fkemu_cu_map(fkemu_cu* cu, uint64_t dev_addr, void* host, uint64_t bytes, int writable);
FKEMU_API void fkemu_cu_unmap_all(fkemu_cu* cu);

// AXI-Lite register access. Return 0, or -1 when the port does not answer in time.
FKEMU_API int fkemu_cu_write(fkemu_cu* cu, uint32_t offset, uint32_t value);
FKEMU_API int fkemu_cu_read(fkemu_cu* cu, uint32_t offset, uint32_t* value);

FKEMU_API int fkemu_cu_interrupt(fkemu_cu* cu);  // the interrupt line
// Advance until the interrupt line is high, or max_cycles pass (then return -1).
FKEMU_API int fkemu_cu_wait_interrupt(fkemu_cu* cu, uint64_t max_cycles);
FKEMU_API void fkemu_cu_tick(fkemu_cu* cu, uint64_t cycles);
FKEMU_API uint64_t fkemu_cu_cycles(fkemu_cu* cu);  // clock cycles since the CU was created

// The first error the CU has seen (an AXI rule broken, an access outside every mapped
// buffer, a C-simulation stream error), or NULL. Cleared by fkemu_cu_clear_error.
FKEMU_API const char* fkemu_cu_error(fkemu_cu* cu);
FKEMU_API void fkemu_cu_clear_error(fkemu_cu* cu);

// hw_emu only (sw_emu models do not export these): memory banks with a bandwidth, and
// CUs stepped together. A bank moves at most bytes_per_cycle per cycle (<= 0: no limit)
// over all ports placed on it; fkemu_bank_bytes counts the bytes it moved. A bank belongs
// to the library that made it and serves CUs of that library; free it after its CUs.
typedef struct fkemu_bank fkemu_bank;
FKEMU_API fkemu_bank* fkemu_bank_new(double bytes_per_cycle);
FKEMU_API void fkemu_bank_free(fkemu_bank* bank);
FKEMU_API uint64_t fkemu_bank_bytes(fkemu_bank* bank);
// Place the m_axi port of `bundle` ("gmem0", as the kernel names it) on `bank`
// (NULL: unplaced, no limit). Returns -1 when the CU has no such port.
FKEMU_API int fkemu_cu_place(fkemu_cu* cu, const char* bundle, fkemu_bank* bank);
// Advance all `count` CUs one cycle at a time, together, until cus[which]'s interrupt is
// high (0), or max_cycles pass (-1). A CU whose interrupt is high is not advanced.
FKEMU_API int fkemu_cus_wait_interrupt(fkemu_cu** cus, unsigned count, unsigned which,
                                       uint64_t max_cycles);

// AXI4-Stream ports (a kernel spec's `streams:`), named as the kernel names them ("out").
// Each stream port of a CU ends in a FIFO of beats on the CU's side: the runtime pushes
// beats into an input stream's FIFO and pops them from an output stream's, and so joins
// CUs the way a link's stream_connect does (one beat at a time, in order). A beat is the
// 32-bit TDATA (in the low bits of `data`) and TLAST.
//   sw_emu: FIFOs without bound. fkemu_cu_tick runs what the streams allow: a started
//           kernel once every input stream holds the n beats it reads (one without input
//           streams runs at ap_start, as before); a free-running kernel once per beat
//           present on all its input streams.
//   hw_emu: FIFOs of FKEMU_STREAM_FIFO_DEPTH beats between the runtime and the RTL
//           ports (TVALID/TREADY handshakes every cycle fkemu_cu_tick advances).
#define FKEMU_STREAM_FIFO_DEPTH 16
// Push one beat into input stream `port`: 0, 1 when its FIFO is full (nothing taken),
// -1 when the CU has no input stream of that name.
FKEMU_API int fkemu_cu_stream_push(fkemu_cu* cu, const char* port, uint64_t data, int last);
// Pop one beat from output stream `port`: 0, 1 when its FIFO is empty, -1 when the CU
// has no output stream of that name.
FKEMU_API int fkemu_cu_stream_pop(fkemu_cu* cu, const char* port, uint64_t* data, int* last);
// 1 for a free-running kernel (ap_ctrl_none): no control registers (fkemu_cu_read and
// fkemu_cu_write answer -1, the interrupt stays low); it runs from reset whenever
// fkemu_cu_tick advances it. 0 otherwise.
FKEMU_API int fkemu_model_free_running(void);

#ifdef __cplusplus
}
#endif

#endif  // FKEMU_MODEL_H
