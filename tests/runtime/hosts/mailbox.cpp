// A kernel that restarts itself, fed through its mailbox: the shape of AMD's
// mailbox_auto_restart_xrt host. mbox_autorestart(in1, in2, add, mult) is started once
// with xrt::autostart (its results, arguments 2 and 3, are never set); then, round after
// round, the host hands it new inputs (set_arg, write) and reads the results back (read,
// get_arg), which must be those of the inputs it last wrote; run.stop() ends it. Nothing
// in it knows fpgakern.
//   usage: mailbox <xclbin>                 the rounds, then TEST PASSED or TEST FAILED
//          mailbox <xclbin> counted <n>     autostart{n}: wait() for the run, then the
//                                           results the last run left in the registers
//          mailbox <xclbin> stopped         stop() after one round: the results are still
//                                           readable, and on the idle kernel a write()
//                                           and a read() complete at once (as XRT says)
//          mailbox <xclbin> refused <name>  autostart and a mailbox on an ordinary kernel
// Errors end the program with a message and EXIT_FAILURE.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "xrt/experimental/xrt_mailbox.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace {

const int kAdd = 2, kMult = 3;  // the results' argument indices

int result(const xrt::mailbox& mbox, int index) {
    const std::pair<const void*, size_t> arg = mbox.get_arg(index);
    if (arg.second != sizeof(int)) throw std::runtime_error("a result is not an int");
    int value = 0;
    std::memcpy(&value, arg.first, sizeof value);
    return value;
}

bool check(const std::string& what, int in1, int in2, int add, int mult) {
    const bool ok = add == in1 + in2 && mult == in1 * in2;
    std::cout << what << ": " << in1 << ", " << in2 << " -> " << add << ", " << mult
              << (ok ? "" : " (wrong)") << "\n";
    return ok;
}

int rounds(xrt::kernel& krnl) {
    int in1 = 3, in2 = 40;
    auto run = krnl(xrt::autostart{0}, in1, in2);
    xrt::mailbox mbox(run);
    bool match = true;
    for (int step = 0; step < 20; ++step) {
        if (step % 2 == 0) {  // new inputs, taken at the kernel's next start
            mbox.set_arg(0, ++in1);
            mbox.set_arg(1, --in2);
            mbox.write();
        } else {  // the results of a run that started after them
            mbox.read();
            const int add = result(mbox, kAdd), mult = result(mbox, kMult);
            match = check("round " + std::to_string(step / 2), in1, in2, add, mult) && match;
        }
    }
    run.stop();
    const bool completed = run.state() == ERT_CMD_STATE_COMPLETED;
    std::cout << "stopped: " << (completed ? "completed" : "not completed") << "\n";
    match = match && completed;
    std::cout << "TEST " << (match ? "PASSED" : "FAILED") << std::endl;
    return match ? EXIT_SUCCESS : EXIT_FAILURE;
}

int counted(xrt::kernel& krnl, unsigned iterations) {
    int in1 = -7, in2 = 6;
    auto run = krnl(xrt::autostart{iterations}, in1, in2);
    const ert_cmd_state state = run.wait();
    xrt::mailbox mbox(run);  // no read(): the registers the last run wrote
    const bool ok = check("last run", in1, in2, result(mbox, kAdd), result(mbox, kMult));
    std::cout << "state " << state << "\n";
    return ok && state == ERT_CMD_STATE_COMPLETED ? EXIT_SUCCESS : EXIT_FAILURE;
}

int stopped(xrt::kernel& krnl) {
    int in1 = 9, in2 = 5;
    auto run = krnl(xrt::autostart{}, in1, in2);
    xrt::mailbox mbox(run);
    in1 = 12;
    mbox.set_arg("in1", in1);  // by name
    mbox.write();
    mbox.read();
    check("running", in1, in2, result(mbox, kAdd), result(mbox, kMult));
    run.stop();
    std::cout << "state " << run.state() << "\n";
    bool ok = check("stopped", in1, in2, result(mbox, kAdd), result(mbox, kMult));
    // Idle: the new inputs are taken at once, no run computes them; a read answers at
    // once with the last run's results.
    mbox.set_arg(0, 40);
    mbox.write();
    mbox.read();
    ok = check("idle", in1, in2, result(mbox, kAdd), result(mbox, kMult)) && ok;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

// Each refusal's message on its own line.
int refused(const xrt::device& device, const xrt::uuid& uuid, const std::string& name) {
    auto krnl = xrt::kernel(device, uuid, name);
    auto run = xrt::run(krnl);
    try {
        run.start(xrt::autostart{});
        std::cout << "autostart: accepted\n";
    } catch (const std::exception& e) {
        std::cout << "autostart: " << e.what() << "\n";
    }
    try {
        xrt::mailbox mbox(run);
        std::cout << "mailbox: accepted\n";
    } catch (const std::exception& e) {
        std::cout << "mailbox: " << e.what() << "\n";
    }
    return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cout << "usage: " << argv[0] << " <xclbin> [counted <n> | stopped | refused "
                                             "<kernel>]\n";
        return EXIT_FAILURE;
    }
    const std::string mode = argc > 2 ? argv[2] : "rounds";
    try {
        auto device = xrt::device(0);
        auto uuid = device.load_xclbin(std::string(argv[1]));
        if (mode == "refused" && argc > 3) return refused(device, uuid, argv[3]);
        auto krnl = xrt::kernel(device, uuid, "mbox_autorestart");
        if (mode == "rounds") return rounds(krnl);
        if (mode == "counted" && argc > 3) {
            return counted(krnl, static_cast<unsigned>(std::strtoul(argv[3], nullptr, 0)));
        }
        if (mode == "stopped") return stopped(krnl);
        std::cerr << "unknown mode " << mode << "\n";
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
    }
    return EXIT_FAILURE;
}
