#include "core/kernels/bus_error_guard.h"

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <mutex>

namespace hs::kernels {
namespace {

// This thread's landing point while it runs a guarded function, else null. Initial-exec
// thread-local storage (the library is linked into the program), so the handler may read it.
thread_local sigjmp_buf* landing = nullptr;
struct sigaction previous_action {};
std::atomic<int> stopped{0};

void on_bus_error(int signal, siginfo_t*, void*) {
    if (sigjmp_buf* to = landing) {
        landing = nullptr;
        siglongjmp(*to, 1);
    }
    // Not a guarded read: the action there was before; returning re-runs the faulting
    // instruction, which faults again into it.
    sigaction(signal, &previous_action, nullptr);
}

void install_handler_once() {
    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction action {};
        action.sa_sigaction = on_bus_error;
        action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &previous_action);
    });
}

}  // namespace

bool run_unless_bus_error(void (*fn)(const void*), const void* context) {
    install_handler_once();
    sigjmp_buf here;
    sigjmp_buf* const outer = landing;  // a guarded call inside another (not used today)
    // savemask 0: no system call per run. SA_NODEFER leaves SIGBUS unblocked in the handler,
    // so the jump out of it leaves the thread's mask as it was.
    if (sigsetjmp(here, 0) != 0) {
        landing = outer;
        stopped.fetch_add(1);
        return false;
    }
    landing = &here;
    fn(context);
    landing = outer;
    return true;
}

int bus_errors_stopped() { return stopped.load(); }

}  // namespace hs::kernels
