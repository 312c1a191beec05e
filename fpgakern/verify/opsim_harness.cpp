// Verilator driver for one fpgakern RTL operator (see fpgakern/verify/opsim.py).
//
// Compiled once per operator, with the model's prefix Vtop and a generated
// opsim_config.h beside the model that defines FK_ARITY (1..3). (A header rather than
// -D flags: the compile flags stay the same for every operator, so Verilator's runtime
// objects are compiled once and reused; see fpgakern/verify/verilate.py.)
// Usage:
//   harness <inputs.bin> <n> <extra> <outputs.bin> [<ce.bin>]
// inputs.bin : FK_ARITY arrays of n uint32, one after the other (a, then b, then c).
// ce.bin     : one byte per cycle, the ce level (nonzero = advance), used cyclically;
//              absent means ce = 1 in every cycle.
// outputs.bin: n + extra uint32, sample j = y during the j-th cycle with ce = 1, taken
//              after the inputs of that cycle settle and before its rising edge. For an
//              operator of latency L, sample j holds the result of operand set j - L.
// In cycles with ce = 0 the inputs carry pseudo-random junk, so an operator that
// captures operands while stalled is caught by the comparison in Python.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "Vtop.h"
#include "opsim_config.h"
#include "verilated.h"

#ifndef FK_ARITY
#error "FK_ARITY must be defined"
#endif

namespace {

bool read_file(const char* path, std::vector<uint8_t>& out) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    out.resize(static_cast<size_t>(size));
    size_t got = size > 0 ? std::fread(out.data(), 1, out.size(), f) : 0;
    std::fclose(f);
    return got == out.size();
}

uint32_t xorshift(uint32_t& s) {  // junk operands for stalled cycles
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s inputs.bin n extra outputs.bin [ce.bin]\n", argv[0]);
        return 2;
    }
    const size_t n = std::strtoull(argv[2], nullptr, 10);
    const size_t extra = std::strtoull(argv[3], nullptr, 10);
    std::vector<uint8_t> raw;
    if (!read_file(argv[1], raw) || raw.size() != n * FK_ARITY * sizeof(uint32_t)) {
        std::fprintf(stderr, "harness: cannot read %zu operand sets from %s\n", n, argv[1]);
        return 2;
    }
    const uint32_t* in = reinterpret_cast<const uint32_t*>(raw.data());
    std::vector<uint8_t> ce_pattern;
    if (argc > 5 && (!read_file(argv[5], ce_pattern) || ce_pattern.empty())) {
        std::fprintf(stderr, "harness: cannot read the ce pattern %s\n", argv[5]);
        return 2;
    }

    auto context = std::make_unique<VerilatedContext>();
    context->commandArgs(argc, argv);
    auto top = std::make_unique<Vtop>(context.get());

    const size_t total = n + extra;
    std::vector<uint32_t> out(total);
    uint32_t junk = 0x9E3779B9u;
    size_t sample = 0;
    size_t cycle = 0;
    top->clk = 0;
    top->ce = 0;
    top->eval();
    while (sample < total) {
        const bool ce = ce_pattern.empty() || ce_pattern[cycle % ce_pattern.size()] != 0;
        top->ce = ce ? 1 : 0;
        // Operand sets past n are zeros: the pipeline drains while the tail is sampled.
        const bool live = ce && sample < n;
        top->a = live ? in[sample] : (ce ? 0u : xorshift(junk));
#if FK_ARITY >= 2
        top->b = live ? in[n + sample] : (ce ? 0u : xorshift(junk));
#endif
#if FK_ARITY >= 3
        top->c = live ? in[2 * n + sample] : (ce ? 0u : xorshift(junk));
#endif
        top->eval();
        if (ce) out[sample++] = static_cast<uint32_t>(top->y);
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
        ++cycle;
        if (!ce_pattern.empty() && cycle > 64 * (total + 1) * ce_pattern.size()) {
            std::fprintf(stderr, "harness: the ce pattern never raises ce\n");
            return 2;
        }
    }
    top->final();

    FILE* f = std::fopen(argv[4], "wb");
    if (!f || std::fwrite(out.data(), sizeof(uint32_t), total, f) != total) {
        std::fprintf(stderr, "harness: cannot write %s\n", argv[4]);
        return 2;
    }
    std::fclose(f);
    return 0;
}
