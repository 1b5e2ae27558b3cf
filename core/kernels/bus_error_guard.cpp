#include "core/kernels/bus_error_guard.h"

#include <pthread.h>

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <mutex>

namespace hs::kernels {
namespace {

// This thread's landing point while it runs a guarded function, else null. Initial-exec
// thread-local storage (the library is linked into the program), so the handler may read
// it; volatile, so the store before the guarded call is never dropped as dead.
__attribute__((tls_model("initial-exec"))) thread_local sigjmp_buf* volatile landing = nullptr;
struct sigaction previous_action {};
std::atomic<int> stopped{0};

void on_bus_error(int signal, siginfo_t* info, void*) {
    if (sigjmp_buf* to = landing) {
        landing = nullptr;
        siglongjmp(*to, 1);
    }
    // Not a guarded read: the action there was before. A fault repeats when the handler
    // returns (the instruction runs again) and goes to it; a signal another process sent
    // (si_code ≤ 0) or an asynchronous memory-error notice does not repeat, so it is
    // raised again.
    sigaction(signal, &previous_action, nullptr);
    if (info->si_code <= 0 || info->si_code == BUS_MCEERR_AO) raise(signal);
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

// After the jump out of the handler: SIGBUS unblocked, should the system have blocked it
// for the handler despite SA_NODEFER (one system call, on this rare path only).
void unblock_bus_error() {
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, nullptr);
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
        unblock_bus_error();
        stopped.fetch_add(1);
        return false;
    }
    landing = &here;
    try {
        fn(context);
    } catch (...) {  // no landing point may outlive this frame
        landing = outer;
        throw;
    }
    landing = outer;
    return true;
}

int bus_errors_stopped() { return stopped.load(); }

}  // namespace hs::kernels
