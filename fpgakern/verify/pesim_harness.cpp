// Verilator driver for the contraction PE fk_mac_pe (see fpgakern/verify/pesim.py).
//
// Usage: harness <jobs.bin> <results.bin>
// jobs.bin:    int32 J, then per job int32 K and K (a, b) pairs of 32-bit words.
// results.bin: J 32-bit results, then the uint64 clock cycles the run took.
// Jobs are run SLOTS at a time (pesim_config.h), their products interleaved round-robin
// over the PE's slots, one product per cycle (the rate the PE is built for), each with
// its partial q = k mod P and first = k < P; then one tree start for every slot's
// min(K, P) partials (a group's jobs have the same K: pesim.run groups them so), and each
// slot's result read. A job with K = 0 is not sent: its result is +0, as the kernel's
// (which never starts a tree on no partials).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "Vtop.h"
#include "pesim_config.h"
#include "verilated.h"

namespace {

struct Job {
    std::vector<uint32_t> a, b;
};

bool read_jobs(const char* path, std::vector<Job>& jobs) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    int32_t count = 0;
    bool ok = std::fread(&count, sizeof count, 1, f) == 1 && count >= 0 && count < (1 << 20);
    for (int32_t j = 0; ok && j < count; ++j) {
        int32_t k = 0;
        ok = std::fread(&k, sizeof k, 1, f) == 1 && k >= 0 && k < (1 << 24);
        Job job;
        for (int32_t p = 0; ok && p < k; ++p) {
            uint32_t pair[2];
            ok = std::fread(pair, sizeof pair, 1, f) == 1;
            job.a.push_back(pair[0]);
            job.b.push_back(pair[1]);
        }
        jobs.push_back(job);
    }
    std::fclose(f);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s jobs.bin results.bin\n", argv[0]);
        return 2;
    }
    std::vector<Job> jobs;
    if (!read_jobs(argv[1], jobs)) {
        std::fprintf(stderr, "harness: cannot read the jobs in %s\n", argv[1]);
        return 2;
    }
    auto context = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vtop>(context.get());
    uint64_t cycles = 0;
    auto tick = [&]() {
        top->eval();
        top->clk = 1;
        top->eval();
        top->clk = 0;
        ++cycles;
    };
    top->clk = 0;
    top->rst_n = 0;
    top->in_valid = 0;
    top->tree_start = 0;
    for (int i = 0; i < 4; ++i) tick();
    top->rst_n = 1;

    std::vector<uint32_t> results(jobs.size(), 0);
    for (size_t group = 0; group < jobs.size(); group += FK_SLOTS) {
        const size_t end = group + FK_SLOTS < jobs.size() ? group + FK_SLOTS : jobs.size();
        size_t longest = 0;
        for (size_t j = group; j < end; ++j) {
            if (jobs[j].a.size() > longest) longest = jobs[j].a.size();
        }
        for (size_t p = 0; p < longest; ++p) {
            for (size_t j = group; j < end; ++j) {
                if (p >= jobs[j].a.size()) continue;
                top->in_valid = 1;
                top->a = jobs[j].a[p];
                top->b = jobs[j].b[p];
                top->slot = static_cast<uint32_t>(j - group);
                top->q = static_cast<uint32_t>(p % FK_P);
                top->first = p < FK_P ? 1 : 0;
                tick();
            }
        }
        top->in_valid = 0;
        // One tree start for every slot: the group's jobs have one K between them only
        // when equal, so each distinct K of the group gets its own pass (a PE's trees
        // share one count).
        size_t k = 0;
        for (size_t j = group; j < end; ++j) k = jobs[j].a.size() > k ? jobs[j].a.size() : k;
        if (k == 0) continue;  // +0 for all
        top->tree_start = 1;
        top->tree_count = static_cast<uint32_t>(k < FK_P ? k : FK_P);
        tick();
        top->tree_start = 0;
        uint64_t waited = 0;
        while (!top->out_valid) {
            tick();
            if (++waited > 1000000) {
                std::fprintf(stderr, "harness: no result for group %zu\n", group);
                return 3;
            }
        }
        for (size_t j = group; j < end; ++j) {
            if (jobs[j].a.empty()) continue;  // +0
            top->rd_slot = static_cast<uint32_t>(j - group);
            top->eval();
            results[j] = top->result;
        }
    }
    top->final();
    FILE* f = std::fopen(argv[2], "wb");
    if (!f || std::fwrite(results.data(), sizeof(uint32_t), results.size(), f) != results.size() ||
        std::fwrite(&cycles, sizeof cycles, 1, f) != 1) {
        std::fprintf(stderr, "harness: cannot write %s\n", argv[2]);
        return 2;
    }
    std::fclose(f);
    return 0;
}
