// Verilator main loop for fpgakern's cocotb simulations, with the clock generated here.
//
// Derived from cocotb's share/lib/verilator/verilator.cpp (Copyright cocotb contributors,
// BSD-3-Clause), which this replaces. Two changes, both for speed:
//
// 1. The top's `ap_clk` input is toggled by this loop every FK_HALF_PERIOD time units, so
//    no Python coroutine (and no --timing scheduler) runs per cycle.
// 2. While Python waits for all_done (it says so through fk_sim_turbo), half cycles
//    are plain evals. Otherwise, when Python has nothing scheduled before the next clock edge except value-change
//    callbacks (it is waiting for `all_done`, an interrupt, or a far-away timeout), each
//    half cycle is one eval plus one value-change check, instead of the full sequence of
//    VPI phases. As soon as a callback fires or Python writes a signal, the step is
//    finished with the full sequence, so cocotb sees the same semantics as with
//    cocotb's own loop.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "Vtop.h"
#include "verilated.h"
#include "verilated_vpi.h"

#ifndef VM_TRACE_FST
#define VM_TRACE_FST 0
#endif
#if VM_TRACE
#if VM_TRACE_FST
#include <verilated_fst_c.h>
using verilated_trace_t = VerilatedFstC;
#else
#include <verilated_vcd_c.h>
using verilated_trace_t = VerilatedVcdC;
#endif
static verilated_trace_t* tfp = nullptr;
#endif

#ifndef FK_HALF_PERIOD
#define FK_HALF_PERIOD 5000  // time precision units (1 ps): a 100 MHz, 10 ns clock
#endif

static vluint64_t main_time = 0;

// Set from Python (ctypes) right before it waits for the wrapper's all_done: until
// all_done rises or the next VPI deadline (its timeout) comes, no value-change callback
// can matter, so half cycles run without any VPI call. Cleared here when it ends.
static volatile int fk_turbo = 0;
extern "C" void fk_sim_turbo(int on) { fk_turbo = on; }

double sc_time_stamp() { return main_time; }

extern "C" {
void vlog_startup_routines_bootstrap(void);
}

static inline bool settle_value_callbacks() {
    bool called = VerilatedVpi::callValueCbs();
    bool again = called;
    while (again) again = VerilatedVpi::callValueCbs();
    return called;
}

static void wrap_up() {
    VerilatedVpi::callCbs(cbEndOfSimulation);
#if VM_TRACE
    if (tfp) tfp->close();
#endif
}

static inline void dump_trace() {
#if VM_TRACE
    if (tfp) tfp->dump(main_time);
#endif
}

// The rest of a time step after inputs changed, exactly as cocotb's loop does it.
static void finish_time_step(Vtop* top, bool evaluated) {
    do {
        do {
            if (!evaluated) top->eval_step();
            evaluated = false;
            VerilatedVpi::clearEvalNeeded();
            VerilatedVpi::doInertialPuts();
            settle_value_callbacks();
        } while (VerilatedVpi::evalNeeded());
        VerilatedVpi::callCbs(cbReadWriteSynch);
        VerilatedVpi::doInertialPuts();
        settle_value_callbacks();
    } while (VerilatedVpi::evalNeeded());
    top->eval_end_step();
    VerilatedVpi::callCbs(cbReadOnlySynch);
    dump_trace();
}

int main(int argc, char** argv) {
    const char* trace_file = VM_TRACE_FST ? "dump.fst" : "dump.vcd";
    bool trace_on = false;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--trace") {
            trace_on = true;
        } else if (arg == "--trace-file" && i + 1 < argc) {
            trace_file = argv[++i];
        }
    }
    Verilated::commandArgs(argc, argv);
    std::unique_ptr<Vtop> top(new Vtop(""));
    Verilated::fatalOnVpiError(false);

#if VM_TRACE
    Verilated::traceEverOn(true);
    if (trace_on) {
        tfp = new verilated_trace_t;
        top->trace(tfp, 99);
        tfp->open(trace_file);
    }
#else
    if (trace_on) {
        std::fprintf(stderr, "error: --trace needs a model built with tracing\n");
        return 1;
    }
    (void)trace_file;
#endif

    top->ap_clk = 0;
    vlog_startup_routines_bootstrap();
    Verilated::addExitCb([](void*) { wrap_up(); }, nullptr);
    VerilatedVpi::callCbs(cbStartOfSimulation);
    settle_value_callbacks();

    vluint64_t next_edge = FK_HALF_PERIOD;
    finish_time_step(top.get(), false);
    while (!Verilated::gotFinish()) {
        if (fk_turbo) {
            const vluint64_t deadline = VerilatedVpi::cbNextDeadline();
            while (!top->all_done && next_edge < deadline && !Verilated::gotFinish()) {
                main_time = next_edge;
                next_edge += FK_HALF_PERIOD;
                top->ap_clk = !top->ap_clk;
                top->eval();
                dump_trace();
            }
            fk_turbo = 0;
            finish_time_step(top.get(), true);  // all_done's watcher fires here
        }
        // Fast half cycles while Python only waits for value changes.
        while (!fk_turbo && !Verilated::gotFinish() && VerilatedVpi::cbNextDeadline() > next_edge &&
               !VerilatedVpi::hasCbs(cbNextSimTime) &&
               !VerilatedVpi::hasCbs(cbReadWriteSynch) &&
               !VerilatedVpi::hasCbs(cbReadOnlySynch)) {
            main_time = next_edge;
            next_edge += FK_HALF_PERIOD;
            top->ap_clk = !top->ap_clk;
            const bool watched = VerilatedVpi::hasCbs(cbValueChange);
            // Edge callbacks run before the design evaluates the edge, as in cocotb's
            // loop, so Python samples the values from before the edge.
            if (watched && VerilatedVpi::callValueCbs()) {
                finish_time_step(top.get(), false);
                continue;
            }
            top->eval_step();
            if (watched && VerilatedVpi::callValueCbs()) {
                finish_time_step(top.get(), true);  // a design signal Python waits on moved
            } else {
                top->eval_end_step();
                dump_trace();
            }
        }
        if (Verilated::gotFinish()) break;

        // The general step: a VPI deadline or a phase callback comes first.
        const vluint64_t deadline = VerilatedVpi::cbNextDeadline();
        main_time = std::min(deadline, next_edge);
        VerilatedVpi::callCbs(cbNextSimTime);
        settle_value_callbacks();
        if (main_time == next_edge) {
            next_edge += FK_HALF_PERIOD;
            top->ap_clk = !top->ap_clk;
        }
        VerilatedVpi::callTimedCbs();
        settle_value_callbacks();
        finish_time_step(top.get(), false);
    }

    top->final();
    wrap_up();
#if VM_TRACE
    delete tfp;
    tfp = nullptr;
#endif
    return Verilated::threadContextp()->errorCount() > 0 ? 1 : 0;
}
